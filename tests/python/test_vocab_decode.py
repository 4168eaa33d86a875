"""Decode and vocabulary calls against `tokenizers` 0.23 on every fixture: `decode` of plain
ints, numpy arrays of every integer dtype and ids the vocabulary lacks (skipped, as
`tokenizers` does), `decode_batch` and the awaitables; `get_vocab`, `get_added_tokens_decoder`,
`to_str`/`save`; `id_to_token` of huge ints."""

from __future__ import annotations

import asyncio
import json

import numpy as np
import pytest

import yieldtok

TEXTS = ["Hello world", "", "日本語 text 👍🏽 and ü", "  spaces\n\ttabs  ", "a" * 300]
DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]


def sample_ids(yt, hf):
    """Id lists covering plain text, special tokens and the last added tokens."""
    out = [hf.encode(t).ids for t in TEXTS]
    dec = hf.get_added_tokens_decoder()
    specials = sorted(dec)[:3] + sorted(dec)[-3:]
    out.append(specials + hf.encode("mixed").ids + specials)
    return out


def test_decode_matches_tokenizers(pair):
    yt, hf = pair
    for ids in sample_ids(yt, hf):
        for skip in (True, False):
            assert yt.decode(ids, skip_special_tokens=skip) == hf.decode(ids, skip_special_tokens=skip)
            assert yt.decode(ids, skip) == hf.decode(ids, skip)
    assert yt.decode_batch(sample_ids(yt, hf)) == hf.decode_batch(sample_ids(yt, hf))
    assert yt.decode_batch(sample_ids(yt, hf), False) == hf.decode_batch(sample_ids(yt, hf), False)


def test_decode_unknown_ids_are_skipped_like_tokenizers(pair):
    yt, hf = pair
    n = hf.get_vocab_size(True)
    known = hf.encode("Hello world").ids
    unknown = [i for i in (n, n + 7, 10**7, 2**32 - 1) if hf.id_to_token(i) is None]
    assert unknown, "no id the vocabulary lacks"
    for ids in (unknown, known[:1] + unknown + known[1:], [unknown[0]] + known):
        want = hf.decode(ids)
        assert want == hf.decode([i for i in ids if i not in unknown])  # tokenizers skips them
        assert yt.decode(ids) == want
        assert yt.decode(ids, False) == hf.decode(ids, False)
    assert yt.decode_batch([known, unknown, known + unknown]) == hf.decode_batch([known, unknown, known + unknown])


def test_decode_numpy_and_plain_int(pair):
    yt, hf = pair
    ids = hf.encode("Hello world, numpy!").ids
    small = [i for i in range(1, 100) if hf.id_to_token(i) is not None][:5]
    for dt in DTYPES:
        cur = small if np.iinfo(dt).max < max(ids) else ids
        arr = np.array(cur, dtype=dt)
        assert yt.decode(arr) == hf.decode(arr) == hf.decode(cur), dt
        assert yt.decode_batch([arr, arr[:2]]) == hf.decode_batch([arr, arr[:2]]), dt
    arr2 = np.array([ids, ids[::-1]], dtype=np.int64)
    assert yt.decode_batch(arr2) == hf.decode_batch(arr2)
    # One int (vLLM and ART call decode(token_id)); tokenizers only takes a sequence.
    for i in ids + small + [hf.get_vocab_size(True) + 3]:
        assert yt.decode(i) == hf.decode([i])
        assert yt.decode(i, False) == hf.decode([i], False)
        assert yt.decode(np.int64(i)) == yt.decode(np.uint32(i)) == hf.decode([i])
    with pytest.raises(yieldtok.TokenizerValueError):
        yt.decode(-1)
    with pytest.raises(yieldtok.TokenizerValueError):
        yt.decode(np.array([-1], dtype=np.int64))
    with pytest.raises(yieldtok.TokenizerValueError):
        yt.decode(np.array([2**40], dtype=np.int64))
    with pytest.raises(TypeError):
        yt.decode("12")
    with pytest.raises(TypeError):
        yt.decode([1.0])


def test_async_decode_like_sync(pair):
    yt, hf = pair
    n = hf.get_vocab_size(True)
    ids = hf.encode("async decode").ids + [n + 1]

    async def run():
        a = await yt.async_decode(ids)
        b = await yt.async_decode(ids[0])
        c = await yt.async_decode(np.array(ids, dtype=np.uint32), False)
        d = await yt.async_decode_batch([ids, [n + 2]])
        e = await yieldtok.AsyncTokenizer(yt).decode(ids[0])
        return a, b, c, d, e

    a, b, c, d, e = asyncio.run(run())
    assert a == hf.decode(ids)
    assert b == e == hf.decode(ids[:1])
    assert c == hf.decode(ids, False)
    assert d == hf.decode_batch([ids, [n + 2]])


def test_vocab_and_added_tokens(pair):
    yt, hf = pair
    for w in (True, False):
        assert yt.get_vocab(w) == hf.get_vocab(w)
        assert yt.get_vocab(with_added_tokens=w) == hf.get_vocab(with_added_tokens=w)
    assert yt.get_vocab() == hf.get_vocab()
    mine, theirs = yt.get_added_tokens_decoder(), hf.get_added_tokens_decoder()
    assert list(mine) == sorted(theirs)
    for i, t in theirs.items():
        m = mine[i]
        assert isinstance(m, yieldtok.AddedToken)
        for f in ("content", "single_word", "lstrip", "rstrip", "normalized", "special"):
            assert getattr(m, f) == getattr(t, f), (i, f)
        assert repr(m) == repr(t)
        assert str(m) == str(t)
        assert m == m and hash(m) == hash(yieldtok.AddedToken(m.content))
    assert yieldtok.AsyncTokenizer(yt).get_added_tokens_decoder() == mine
    assert yieldtok.AsyncTokenizer(yt).get_vocab(False) == hf.get_vocab(False)


def test_added_token_class_like_tokenizers():
    import tokenizers

    for kw in ({}, {"special": True}, {"lstrip": True, "rstrip": True}, {"single_word": True, "normalized": False}):
        a, b = yieldtok.AddedToken("<x>", **kw), tokenizers.AddedToken("<x>", **kw)
        assert repr(a) == repr(b), kw
        for f in ("content", "single_word", "lstrip", "rstrip", "normalized", "special"):
            assert getattr(a, f) == getattr(b, f), (kw, f)
    t = yieldtok.AddedToken
    assert t("x") == t("x") and t("x") != t("x", special=True) and t("x") != "x"
    assert (tokenizers.AddedToken("x") == tokenizers.AddedToken("x", special=True)) is False


def test_to_str_and_save(pair, tmp_path):
    yt, hf = pair
    for pretty in (False, True):
        assert yt.to_str(pretty) == hf.to_str(pretty)
        assert yt.to_str(pretty=pretty) == hf.to_str(pretty=pretty)
    for pretty in (True, False):
        a, b = tmp_path / f"yt-{pretty}.json", tmp_path / f"hf-{pretty}.json"
        yt.save(str(a), pretty)
        hf.save(str(b), pretty)
        assert a.read_bytes() == b.read_bytes()
    yt.save(tmp_path / "default.json")
    hf.save(str(tmp_path / "default-hf.json"))
    assert (tmp_path / "default.json").read_bytes() == (tmp_path / "default-hf.json").read_bytes()
    assert json.loads((tmp_path / "default.json").read_text())["model"]["type"] == json.loads(hf.to_str())["model"]["type"]
    assert yieldtok.Tokenizer.from_file(tmp_path / "default.json").encode("round trip").ids == hf.encode("round trip").ids
    with pytest.raises(yieldtok.TokenizerOSError, match="cannot write"):
        yt.save(tmp_path / "no" / "such" / "dir" / "t.json")


def test_id_to_token_huge_and_negative(pair):
    yt, hf = pair
    n = hf.get_vocab_size(True)
    for i in list(range(0, 50)) + [n - 1, n, n + 1, 2**32 - 1]:
        assert yt.id_to_token(i) == hf.id_to_token(i), i
    for i in (2**32, 2**63, 2**64, 2**70, -1, -(2**70)):
        assert yt.id_to_token(i) is None, i
    with pytest.raises(TypeError):
        yt.id_to_token("1")
