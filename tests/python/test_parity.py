"""Ids, char offsets, masks and tokens equal Hugging Face `tokenizers` (the PyPI package, the
test oracle) on the seven real fixture tokenizers and varied text."""

from __future__ import annotations

import pytest

from conftest import VARIED, added_token_texts, long_text, real_text


def texts_for(hf):
    texts = list(VARIED) + added_token_texts(hf)
    real = real_text(20_000)
    if real:
        texts.append(real[:20_000])
    return texts


def assert_same(ours, theirs, text, full=True):
    ctx = f"text={text[:80]!r}"
    assert ours.ids == theirs.ids, ctx
    assert len(ours) == len(theirs.ids), ctx
    if full:
        assert ours.offsets == theirs.offsets, ctx
        assert ours.attention_mask == theirs.attention_mask, ctx
        assert ours.special_tokens_mask == theirs.special_tokens_mask, ctx
        assert ours.type_ids == theirs.type_ids, ctx
        assert ours.tokens == theirs.tokens, ctx


@pytest.mark.parametrize("add_special_tokens", [True, False])
def test_encode_matches_tokenizers(pair, add_special_tokens):
    ours, hf = pair
    for text in texts_for(hf):
        assert_same(ours.encode(text, add_special_tokens=add_special_tokens), hf.encode(text, add_special_tokens=add_special_tokens), text)


def test_long_text_parallel_pieces_match(pair):
    # >= 64 KB takes the parallel chunked path of the core.
    ours, hf = pair
    text = long_text(300_000)
    for add in (True, False):
        a, b = ours.encode(text, add_special_tokens=add), hf.encode(text, add_special_tokens=add)
        assert a.ids == b.ids
        assert a.offsets == b.offsets
        assert ours.count(text, add_special_tokens=add) == len(b.ids)


def test_batch_matches(pair):
    ours, hf = pair
    texts = texts_for(hf)
    a = ours.encode_batch(texts)
    b = hf.encode_batch(texts)
    assert len(a) == len(b)
    for x, y, t in zip(a, b, texts):
        assert_same(x, y, t)
    assert [e.ids for e in ours.encode_batch_fast(texts, add_special_tokens=False)] == [
        e.ids for e in hf.encode_batch_fast(texts, add_special_tokens=False)
    ]


@pytest.mark.parametrize("skip", [True, False])
def test_decode_matches(pair, skip):
    ours, hf = pair
    seqs = [hf.encode(t).ids for t in texts_for(hf)]
    assert [ours.decode(s, skip_special_tokens=skip) for s in seqs] == [hf.decode(s, skip_special_tokens=skip) for s in seqs]
    assert ours.decode_batch(seqs, skip_special_tokens=skip) == hf.decode_batch(seqs, skip_special_tokens=skip)


def test_vocab_lookups_match(pair):
    ours, hf = pair
    assert ours.get_vocab_size() == hf.get_vocab_size()
    assert ours.get_vocab_size(with_added_tokens=False) == hf.get_vocab_size(with_added_tokens=False)
    for i in list(range(0, 300, 7)) + [hf.get_vocab_size() - 1] + list(hf.get_added_tokens_decoder()):
        tok = hf.id_to_token(i)
        assert ours.id_to_token(i) == tok
        if tok is not None:
            assert ours.token_to_id(tok) == hf.token_to_id(tok)
    assert ours.token_to_id("definitely not a token \u2603\u2603") is None
    assert ours.id_to_token(10**9) is None
