"""Bad inputs raise clear exceptions (TokenizerError subclasses that are also ValueError /
OSError, or TypeError for wrong types) and the tokenizer keeps working afterwards."""

from __future__ import annotations

import shutil

import pytest

import yieldtok
from conftest import fixture_dir


def still_works(tok):
    assert tok.encode("still works").ids == tok.encode_batch(["still works"])[0].ids
    assert len(tok.encode("still works")) > 0


def test_hierarchy():
    assert issubclass(yieldtok.TokenizerValueError, yieldtok.TokenizerError)
    assert issubclass(yieldtok.TokenizerValueError, ValueError)
    assert issubclass(yieldtok.TokenizerOSError, yieldtok.TokenizerError)
    assert issubclass(yieldtok.TokenizerOSError, OSError)
    assert issubclass(yieldtok.TokenizerNotFoundError, yieldtok.TokenizerOSError)
    assert issubclass(yieldtok.TokenizerNotFoundError, FileNotFoundError)
    assert issubclass(yieldtok.TokenizerInternalError, RuntimeError)
    assert yieldtok.TokenizerError.__module__ == "yieldtok"
    assert yieldtok.TokenizerValueError.__doc__


def test_missing_files(tmp_path):
    with pytest.raises(yieldtok.TokenizerNotFoundError, match="nope.json"):
        yieldtok.Tokenizer.from_file(tmp_path / "nope.json")
    with pytest.raises(FileNotFoundError):
        yieldtok.Tokenizer.from_file(str(tmp_path / "nope.json"))
    with pytest.raises(yieldtok.TokenizerNotFoundError, match="tokenizer.json"):
        yieldtok.Tokenizer.from_dir(tmp_path)
    with pytest.raises(yieldtok.TokenizerOSError):
        yieldtok.Tokenizer.from_file(tmp_path)  # a folder, not a file
    with pytest.raises(yieldtok.TokenizerNotFoundError, match="never downloads"):
        yieldtok.Tokenizer.from_pretrained("no-such-org/no-such-model", cache_dir=tmp_path)
    with pytest.raises(yieldtok.TokenizerValueError):
        yieldtok.Tokenizer.from_pretrained("../escape", cache_dir=tmp_path)


def test_corrupt_definitions(tmp_path):
    with pytest.raises(yieldtok.TokenizerValueError, match="invalid tokenizer"):
        yieldtok.Tokenizer.from_str("{")
    with pytest.raises(ValueError):
        yieldtok.Tokenizer.from_str('{"model": {"type": "NoSuchModel"}}')
    bad = tmp_path / "tokenizer.json"
    bad.write_text('{"version": "1.0", "truncated', encoding="utf-8")
    with pytest.raises(yieldtok.TokenizerValueError, match=str(tmp_path.name)):
        yieldtok.Tokenizer.from_file(bad)
    bad.write_bytes(b"\xff\xfe not utf-8")
    with pytest.raises(yieldtok.TokenizerValueError, match="UTF-8"):
        yieldtok.Tokenizer.from_file(bad)
    with pytest.raises(yieldtok.TokenizerValueError):
        yieldtok.Tokenizer.from_buffer(b"[1, 2, 3]")
    d = tmp_path / "model"
    d.mkdir()
    shutil.copy(fixture_dir("qwen3") / "tokenizer.json", d / "tokenizer.json")
    (d / "tokenizer_config.json").write_text('{"chat_template": 3}', encoding="utf-8")
    with pytest.raises(yieldtok.TokenizerValueError, match="chat_template"):
        yieldtok.Tokenizer.from_dir(d)


def test_from_pretrained_local_cache(tmp_path):
    snap = tmp_path / "models--org--tiny" / "snapshots" / "abc123"
    snap.mkdir(parents=True)
    shutil.copy(fixture_dir("gpt4o") / "tokenizer.json", snap / "tokenizer.json")
    (tmp_path / "models--org--tiny" / "refs").mkdir()
    (tmp_path / "models--org--tiny" / "refs" / "main").write_text("abc123\n")
    tok = yieldtok.Tokenizer.from_pretrained("org/tiny", cache_dir=tmp_path)
    ref = yieldtok.Tokenizer.from_file(fixture_dir("gpt4o") / "tokenizer.json")
    assert tok.encode("hello world").ids == ref.encode("hello world").ids
    assert yieldtok.Tokenizer.from_pretrained("org/tiny", revision="abc123", cache_dir=str(tmp_path)).get_vocab_size() == ref.get_vocab_size()
    with pytest.raises(yieldtok.TokenizerNotFoundError):
        yieldtok.Tokenizer.from_pretrained("org/tiny", revision="v9", cache_dir=tmp_path)


def test_wrong_types(qwen):
    for call in (
        lambda: qwen.encode(123),
        lambda: qwen.encode(None),
        lambda: qwen.encode(b"bytes"),
        lambda: qwen.encode_batch("a str is not a batch"),
        lambda: qwen.encode_batch(["ok", 5]),
        lambda: qwen.encode_batch(7),
        lambda: qwen.decode("abc"),
        lambda: qwen.decode([1, "2"]),
        lambda: qwen.decode([1.5]),
        lambda: qwen.decode_batch([[1], None]),
        lambda: qwen.count(3.0),
        lambda: qwen.id_to_token("x"),
        lambda: yieldtok.Tokenizer.from_file(42),
        lambda: yieldtok.AsyncTokenizer("not a tokenizer"),
    ):
        with pytest.raises(TypeError):
            call()
    still_works(qwen)


def test_lone_surrogates(qwen):
    for text in ("a\ud800b", "\udfff", "ok " * 1000 + "\ud83d"):
        with pytest.raises(yieldtok.TokenizerValueError, match=r"lone surrogate U\+D[89A-F][0-9A-F]{2} at index \d+"):
            qwen.encode(text)
        with pytest.raises(ValueError, match="surrogate"):
            qwen.count(text)
    with pytest.raises(yieldtok.TokenizerValueError, match=r"texts\[1\]"):
        qwen.encode_batch(["fine", "bad\ud800"])
    # A correctly paired surrogate pair written as one astral char is fine.
    assert qwen.encode("\U0001F600").ids == qwen.encode("😀").ids
    still_works(qwen)


def test_ids_out_of_range(qwen):
    n = qwen.get_vocab_size()
    # Ids the vocabulary lacks are skipped, as tokenizers does.
    for ids, known in (([n + 10], []), ([1, 2, 2**32 - 1], [1, 2]), ([10**6], [])):
        assert qwen.decode(ids) == qwen.decode(known)
    with pytest.raises(yieldtok.TokenizerValueError):
        qwen.decode([-1])
    with pytest.raises(yieldtok.TokenizerValueError):
        qwen.decode([2**40])
    with pytest.raises(yieldtok.TokenizerValueError):
        qwen.decode(-1)
    assert qwen.decode_batch([[1, 2], [n + 1]]) == [qwen.decode([1, 2]), ""]
    assert qwen.id_to_token(-1) is None
    assert qwen.id_to_token(n + 10) is None
    still_works(qwen)


def test_unsupported_arguments_and_loop(qwen):
    with pytest.raises(TypeError):
        qwen.encode("a", 5)  # second positional is the pair: a str or None
    with pytest.raises(RuntimeError):
        qwen.async_encode("needs a running event loop")
    still_works(qwen)


def test_bad_inputs_in_threads(qwen):
    """Errors raised from many threads at once leave the tokenizer consistent."""
    from concurrent.futures import ThreadPoolExecutor

    def job(i):
        if i % 3 == 0:
            with pytest.raises(yieldtok.TokenizerValueError):
                qwen.decode([2**40])  # not a u32 (an id the vocabulary lacks is skipped, not an error)
        elif i % 3 == 1:
            with pytest.raises(yieldtok.TokenizerValueError):
                qwen.encode("x\ud800" * 500)
        return qwen.encode(f"thread {i} " * 200).ids

    with ThreadPoolExecutor(8) as ex:
        out = list(ex.map(job, range(48)))
    assert out == [qwen.encode(f"thread {i} " * 200).ids for i in range(48)]
