"""`yieldtok.DecodeStream` against `tokenizers.decoders.DecodeStream` 0.23 on every fixture:
every id of real and varied text stepped one by one and in lists, with and without special
tokens skipped, streams seeded with a prompt, random id sequences (special tokens, byte
fallback and multi-byte characters split across tokens, ids the vocabulary lacks), the errors;
and `DecodeStream.step_many` equal to N separate streams."""

from __future__ import annotations

import copy
import random

import pytest
from tokenizers.decoders import DecodeStream as HfStream

import yieldtok
from conftest import FIXTURES, VARIED, added_token_texts, load_pair, real_text

ALL = FIXTURES + ["minilm", "mon_unigram", "spm_unigram"]


@pytest.fixture(params=ALL)
def both(request):
    return load_pair(request.param)


def texts_for(hf):
    real = real_text(6000) or ""
    return VARIED + added_token_texts(hf) + [real]


def run(stream, tok, chunks):
    """What each step returns, or the exception's type and message where one raises."""
    out = []
    for c in chunks:
        try:
            out.append(stream.step(tok, c))
        except Exception as e:  # noqa: BLE001 - both libraries' errors are compared
            out.append(("error", str(e)))
            break
    return out


def same_stream(yt, hf, chunks, ids=None, skip=False):
    want = run(HfStream(ids=ids, skip_special_tokens=skip), hf, chunks)
    got = run(yieldtok.DecodeStream(ids=ids, skip_special_tokens=skip), yt, chunks)
    assert got == want, (chunks[:20], ids, skip)
    return want


def test_every_id_of_varied_text(both):
    yt, hf = both
    for text in texts_for(hf):
        ids = hf.encode(text).ids
        for skip in (False, True):
            out = same_stream(yt, hf, ids, skip=skip)
            if not skip and ids:
                assert "".join(x for x in out if isinstance(x, str)) in hf.decode(ids, False) + "\ufffd"


def test_lists_of_ids_and_a_seeded_prompt(both):
    yt, hf = both
    rng = random.Random(7)
    for text in texts_for(hf)[:20]:
        ids = hf.encode(text).ids
        chunks, i = [], 0
        while i < len(ids):
            k = rng.randint(0, 4)
            chunks.append(ids[i : i + k])
            i += k
        same_stream(yt, hf, chunks, skip=rng.random() < 0.5)
        cut = len(ids) // 2
        same_stream(yt, hf, ids[cut:], ids=ids[:cut], skip=False)
        same_stream(yt, hf, ids[cut:], ids=ids[:cut], skip=True)


def test_random_ids_split_characters_and_specials(both):
    yt, hf = both
    rng = random.Random(11)
    n = hf.get_vocab_size(True)
    specials = sorted(hf.get_added_tokens_decoder())
    byteish = [hf.token_to_id(f"<0x{b:02X}>") for b in (0xE4, 0xB8, 0xAD, 0xF0, 0x9F, 0x98, 0x80, 0xFF, 0x41)]
    byteish = [i for i in byteish if i is not None]
    multi = hf.encode("中文 😀👍🏽 é ü 한국어 مرحبا").ids
    pool = multi + byteish + specials[:6] + specials[-6:] + [n, n + 5]
    for trial in range(60):
        chunks = [rng.choice(pool) if rng.random() < 0.6 else rng.randrange(n) for _ in range(rng.randint(1, 40))]
        seed = [rng.choice(pool) for _ in range(rng.randint(0, 3))] if trial % 3 == 0 else None
        same_stream(yt, hf, chunks, ids=seed, skip=trial % 2 == 0)


def test_step_many_equals_separate_streams(both):
    yt, hf = both
    rng = random.Random(3)
    seqs = [hf.encode(t).ids for t in texts_for(hf)]
    seqs = [s for s in seqs if s]
    n_streams = 700  # over the parallel threshold
    plans = [seqs[i % len(seqs)] for i in range(n_streams)]
    skip = [rng.random() < 0.5 for _ in range(n_streams)]
    ours = [yieldtok.DecodeStream(skip_special_tokens=s) for s in skip]
    ref = [yieldtok.DecodeStream(skip_special_tokens=s) for s in skip]
    hfs = [HfStream(skip_special_tokens=s) for s in skip]
    for step in range(40):
        ids = [p[step % len(p)] if rng.random() < 0.8 else [p[step % len(p)], p[(step + 1) % len(p)]] for p in plans]
        try:
            got = yieldtok.DecodeStream.step_many(yt, ours, ids)
        except Exception as e:  # an invalid prefix in some stream: compare the separate steps
            want_err = None
            for r, h, i in zip(ref, hfs, ids):
                try:
                    r.step(yt, i)
                except Exception as e2:  # noqa: BLE001
                    want_err = str(e2)
                    break
            assert str(e) == want_err
            return
        assert got == [r.step(yt, i) for r, i in zip(ref, ids)]
        assert got == [h.step(hf, i) for h, i in zip(hfs, ids)]


def test_api_and_errors(qwen):
    s = yieldtok.DecodeStream()
    assert s.step(qwen, qwen.encode("Hello").ids[0]) == "Hello"
    assert copy.copy(s).step(qwen, []) is None
    with pytest.raises(TypeError):
        s.step(qwen, "x")
    with pytest.raises(yieldtok.TokenizerValueError):
        s.step(qwen, -1)
    with pytest.raises(ValueError, match="streams but"):
        yieldtok.DecodeStream.step_many(qwen, [s], [1, 2])
    with pytest.raises(ValueError, match="twice"):
        yieldtok.DecodeStream.step_many(qwen, [s, s], [1, 2])
    with pytest.raises(TypeError, match="streams\\[1\\]"):
        yieldtok.DecodeStream.step_many(qwen, [s, object()], [1, 2])
    assert yieldtok.DecodeStream.step_many(qwen, [], []) == []
    assert "DecodeStream(skip_special_tokens=False" in repr(s)
