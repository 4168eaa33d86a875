"""Pairs, truncation and padding: the same call sequence on Hugging Face ``tokenizers`` 0.23 and
on yieldtok, for every fixture, every result compared.

Pairs x truncation strategies x directions x strides x padding options (fixed length,
batch-longest, multiple-of, left/right), single texts, pairs, batches mixing texts, pairs and
lengths, the awaitables, and the settings' own API (``truncation``/``padding`` dicts, errors).
Compared for each encoding: ids, type_ids, attention_mask, special_tokens_mask, offsets,
sequence_ids, n_sequences, ``token_to_sequence`` at every index, and ``overflowing``
recursively. Where ``tokenizers`` raises (an error, or a panic such as a stride that is not
below a truncated half of a pair), yieldtok must raise too (an ``Exception``).
"""

from __future__ import annotations

import asyncio

import pytest

from conftest import configure, each, pairwise, run_both, FIXTURES, VARIED, added_token_texts, fixture_dir, long_text, real_text

ALL = FIXTURES + ["minilm", "mon_unigram", "spm_unigram"]

TRUNCATIONS = [None] + [
    dict(max_length=m, stride=s, strategy=st, direction=d)
    for st in ("longest_first", "only_first", "only_second")
    for d in ("right", "left")
    for m, s in ((20, 0), (20, 4), (7, 0), (0, 0))
]

PADDINGS = [
    None,
    dict(length=48, pad_id=3, pad_type_id=1, pad_token="<pad>"),
    dict(direction="left", pad_to_multiple_of=8, pad_id=7),
    dict(),
    dict(length=5, pad_to_multiple_of=4, direction="left"),
]


def load(name):
    import tokenizers
    import yieldtok

    d = fixture_dir(name)
    return yieldtok.Tokenizer.from_dir(d), tokenizers.Tokenizer.from_file(str(d / "tokenizer.json"))


def texts_for(hf) -> list[str]:
    special = added_token_texts(hf)[:2]
    real = real_text(6000) or ""
    return [
        "",
        "Hello, world!",
        VARIED[4],  # odd whitespace
        VARIED[14],  # emoji
        VARIED[17],  # code
        VARIED[6] + " " + VARIED[8] + " " + VARIED[13],  # multilingual
        *special,
        (real[:2500] or "\n\n".join(VARIED[2:14])),
    ]


def same(got, want, what: str) -> None:
    assert got.ids == want.ids, what
    assert got.type_ids == want.type_ids, what
    assert got.attention_mask == want.attention_mask, what
    assert got.special_tokens_mask == want.special_tokens_mask, what
    assert got.offsets == want.offsets, what
    assert got.sequence_ids == want.sequence_ids, what
    assert got.n_sequences == want.n_sequences, what
    n = len(want.ids)
    assert [got.token_to_sequence(i) for i in range(n + 2)] == [want.token_to_sequence(i) for i in range(n + 2)], what
    assert len(got.overflowing) == len(want.overflowing), what
    for k, (g, w) in enumerate(zip(got.overflowing, want.overflowing)):
        same(g, w, f"{what} overflowing[{k}]")








same_batch = each(same)


def both(f_yt, f_hf, what: str, cmp=same):
    run_both(f_yt, f_hf, what, cmp)


@pytest.mark.parametrize("name", ALL)
def test_settings_loaded_from_tokenizer_json(name):
    yt, hf = load(name)
    assert yt.truncation == hf.truncation
    assert yt.padding == hf.padding
    for t in texts_for(hf)[:4]:
        same(yt.encode(t), hf.encode(t), f"{name} as loaded: {t[:20]!r}")
        same(yt.encode(t, "and a pair"), hf.encode(t, "and a pair"), f"{name} as loaded, pair: {t[:20]!r}")


@pytest.mark.parametrize("name", ALL)
def test_pairs_truncation_padding(name):
    yt, hf = load(name)
    texts = texts_for(hf)
    pairs = [(1, 2), (3, 4), (0, 5), (len(texts) - 1, 1), (4, len(texts) - 1), (5, 0), (2, 2)]
    for trunc, pad in pairwise(TRUNCATIONS, PADDINGS):
        if not configure(yt, hf, trunc, pad):
            continue
        tag = f"{name} trunc={trunc} pad={pad}"
        for add in (True, False):
            for i, t in enumerate(texts):
                both(lambda: yt.encode(t, add_special_tokens=add), lambda: hf.encode(t, add_special_tokens=add), f"{tag} single {i} add={add}")
            for a, b in pairs:
                both(
                    lambda: yt.encode(texts[a], texts[b], add_special_tokens=add),
                    lambda: hf.encode(texts[a], texts[b], add_special_tokens=add),
                    f"{tag} pair {a},{b} add={add}",
                )
        batch = [texts[i] if i % 3 else (texts[i], texts[(i + 2) % len(texts)]) for i in range(len(texts))]
        both(lambda: yt.encode_batch(batch), lambda: hf.encode_batch(batch), f"{tag} mixed batch", same_batch)
        singles = [t for t in texts]
        both(lambda: yt.encode_batch(singles), lambda: hf.encode_batch(singles), f"{tag} batch", same_batch)
        lists = [[texts[1], texts[3]], texts[2]]
        both(lambda: yt.encode_batch(lists, add_special_tokens=False), lambda: hf.encode_batch(lists, add_special_tokens=False), f"{tag} list pairs", same_batch)


@pytest.mark.parametrize("name", ["qwen3", "minilm", "llama2"])
def test_awaitables_take_the_same_arguments(name):
    yt, hf = load(name)
    texts = texts_for(hf)
    configs = [(dict(max_length=16, stride=2), dict(length=24)), (dict(max_length=9, direction="left"), dict(direction="left")), (None, None)]

    async def run():
        for trunc, pad in configs:
            if not configure(yt, hf, trunc, pad):
                continue
            tag = f"{name} trunc={trunc} pad={pad}"
            for a, b in [(1, 5), (5, 3)]:
                want = hf.encode(texts[a], texts[b])
                same(await yt.async_encode(texts[a], texts[b]), want, f"{tag} async pair")
                same(await yt.async_encode(texts[a], pair=texts[b], add_special_tokens=True), want, f"{tag} async pair kw")
            same(await yt.async_encode(texts[5]), hf.encode(texts[5]), f"{tag} async single")
            mixed = [texts[1], (texts[2], texts[5]), texts[5]]
            same_batch(await yt.async_encode_batch(mixed), hf.encode_batch(mixed), f"{tag} async mixed batch")
            singles = texts[:6]
            same_batch(await yt.async_encode_batch(singles), hf.encode_batch(singles), f"{tag} async batch")
            same_batch(await yt.async_encode_batch_fast(singles, add_special_tokens=False), hf.encode_batch(singles, add_special_tokens=False), f"{tag} async batch fast")

    asyncio.run(run())


@pytest.mark.parametrize("name", ["qwen3", "llama3_1", "minilm"])
def test_long_text_truncated_with_stride(name):
    """A text long enough for the parallel chunked path, truncated with a stride."""
    yt, hf = load(name)
    text = long_text(100_000)
    for trunc in (dict(max_length=512, stride=64), dict(max_length=300, direction="left")):
        configure(yt, hf, trunc, dict(pad_to_multiple_of=64))
        same(yt.encode(text), hf.encode(text), f"{name} long {trunc}")
        same(yt.encode(text[:3000], text), hf.encode(text[:3000], text), f"{name} long pair {trunc}")


def test_settings_api_and_errors():
    yt, hf = load("qwen3")
    for bad in (dict(max_length=4, stride=5), dict(max_length=3, strategy="x"), dict(max_length=3, direction="x")):
        with pytest.raises(ValueError) as want:
            hf.enable_truncation(**bad)
        with pytest.raises(ValueError) as got:
            yt.enable_truncation(**bad)
        assert str(got.value) == str(want.value)
    with pytest.raises(ValueError):
        yt.enable_padding(direction="up")
    with pytest.raises(TypeError):
        yt.enable_padding("left")  # keyword-only, as tokenizers
    yt.enable_truncation(8)
    yt.enable_padding(length=12)
    hf.enable_truncation(8)
    hf.enable_padding(length=12)
    assert yt.truncation == hf.truncation == {"max_length": 8, "stride": 0, "strategy": "longest_first", "direction": "right"}
    assert yt.padding == hf.padding
    text = "a much longer text than eight tokens, to be truncated " * 5
    # count is the untruncated length; encode is truncated and padded.
    yt.no_truncation()
    full = yt.count(text)
    yt.enable_truncation(8)
    assert yt.count(text) == full > 12
    assert len(yt.encode(text).ids) == 12
    # Settings survive pickling, as tokenizers' to_str keeps them.
    import pickle

    back = pickle.loads(pickle.dumps(yt))
    assert back.truncation == yt.truncation and back.padding == yt.padding
    same(back.encode(text), hf.encode(text), "after pickle")
    # Pairs need a str (pre-tokenized input: tests/python/test_pretokenized.py).
    with pytest.raises(TypeError):
        yt.encode("a", 5)
    with pytest.raises(TypeError):
        yt.encode("a", True)
    with pytest.raises(TypeError):
        yt.encode(["a", "b"])
    with pytest.raises(TypeError):
        yt.encode_batch(["a", ("b",)])
    # only_second on a single text that needs cutting: tokenizers' error, an Exception here too.
    yt.enable_truncation(4, strategy="only_second")
    hf.enable_truncation(4, strategy="only_second")
    with pytest.raises(Exception):
        hf.encode(text)
    with pytest.raises(Exception):
        yt.encode(text)
