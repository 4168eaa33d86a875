"""Pre-tokenized input (``is_pretokenized=True``): the same calls on Hugging Face ``tokenizers``
0.23 and on yieldtok, every result compared.

``encode(words, is_pretokenized=True)``, ``encode(words, pair_words, is_pretokenized=True)``,
``encode_batch`` of word lists, tuples of words and pairs of them (as tuples and as lists of
two lists), the awaitables (compared with the sync ``tokenizers`` calls: its own awaitables
return byte offsets and refuse a two-word list in a batch), under truncation and padding.
Words come from varied text split several ways (on spaces, keeping the spaces as
byte-level BPE users pass them, single characters, empty words, special tokens as words,
whole lines), and a >= 64 KB list runs the parallel path. Compared per encoding: ids,
type_ids, tokens, offsets (chars into each word), word_ids, sequence_ids, masks,
``overflowing`` recursively, and every alignment method at every index.
"""

from __future__ import annotations

import asyncio

import pytest

from conftest import configure, each, pairwise, run_both, VARIED, added_token_texts, fixture_dir, long_text, real_text

FAMILIES = ["qwen3", "llama2", "minilm", "gemma3"]
OTHERS = ["llama3_1", "deepseek_v3", "gpt4o", "gptoss", "mon_unigram", "spm_unigram"]

TRUNCATIONS = [
    None,
    dict(max_length=12, stride=2),
    dict(max_length=12, strategy="only_first", direction="left"),
    dict(max_length=9, strategy="only_second"),
    dict(max_length=0),
]
PADDINGS = [None, dict(length=40, pad_id=3, pad_type_id=1, pad_token="<pad>"), dict(direction="left", pad_to_multiple_of=8)]


def load(name):
    import tokenizers
    import yieldtok

    d = fixture_dir(name)
    return yieldtok.Tokenizer.from_dir(d), tokenizers.Tokenizer.from_file(str(d / "tokenizer.json"))


def word_lists(hf) -> list[list[str]]:
    """Varied pre-tokenized sequences."""
    real = real_text(3000) or "\n\n".join(VARIED[2:12])
    special = [t.content for t in hf.get_added_tokens_decoder().values()][:3]
    lists = [
        [],
        [""],
        ["Hello", "world", "!"],
        "Hello , world ! I'm here .".split(" "),
        # byte-level BPE users pass words with their leading space (``add_prefix_space``-style)
        [w if i == 0 else " " + w for i, w in enumerate("The quick brown fox jumps over".split())],
        list("héllo wörld 😀"),
        ["", "a", "", "b", ""],
        [VARIED[6], VARIED[7], VARIED[13]],
        VARIED[14].split(" ") + VARIED[15].split(" "),
        ["multiple", "   ", "spaces", "\t", "\n\n"],
        special + ["between", *special],
        [*(added_token_texts(hf)[:1]), "x"],
        real.split()[:300],
        real.splitlines()[:40],
    ]
    return [lst for lst in lists]


def same(got, want, what: str) -> None:
    assert got.ids == want.ids, what
    assert got.type_ids == want.type_ids, what
    assert got.tokens == want.tokens, what
    assert got.offsets == want.offsets, what
    assert got.word_ids == want.word_ids, what
    assert got.attention_mask == want.attention_mask, what
    assert got.special_tokens_mask == want.special_tokens_mask, what
    assert got.sequence_ids == want.sequence_ids, what
    assert got.n_sequences == want.n_sequences, what
    assert len(got.overflowing) == len(want.overflowing), what
    for k, (g, w) in enumerate(zip(got.overflowing, want.overflowing)):
        same(g, w, f"{what} overflowing[{k}]")


def same_alignment(got, want, what: str) -> None:
    n = len(want.ids)
    words = max([w for w in want.word_ids if w is not None], default=-1) + 2
    chars = max([e for _, e in want.offsets], default=0) + 2
    for s in range(want.n_sequences):
        for w in range(words):
            assert got.word_to_tokens(w, s) == want.word_to_tokens(w, s), f"{what} word_to_tokens({w}, {s})"
            assert got.word_to_chars(w, s) == want.word_to_chars(w, s), f"{what} word_to_chars({w}, {s})"
        for c in range(chars):
            assert got.char_to_token(c, s) == want.char_to_token(c, s), f"{what} char_to_token({c}, {s})"
            assert got.char_to_word(c, s) == want.char_to_word(c, s), f"{what} char_to_word({c}, {s})"
    for i in range(n + 2):
        assert got.token_to_chars(i) == want.token_to_chars(i), f"{what} token_to_chars({i})"
        assert got.token_to_word(i) == want.token_to_word(i), f"{what} token_to_word({i})"
        assert got.token_to_sequence(i) == want.token_to_sequence(i), f"{what} token_to_sequence({i})"








same_batch = each(same)


def both(f_yt, f_hf, what: str, cmp=same):
    run_both(f_yt, f_hf, what, cmp)


@pytest.mark.parametrize("name", FAMILIES + OTHERS)
def test_encode_pretokenized_as_loaded(name):
    """Every word list and pair, with the fixture's own settings (minilm: truncation to 128 and
    padding from its tokenizer.json), every field and alignment method."""
    yt, hf = load(name)
    lists = word_lists(hf)
    for add in (True, False):
        for i, words in enumerate(lists):
            what = f"{name} words[{i}] add={add}"
            want = hf.encode(words, is_pretokenized=True, add_special_tokens=add)
            got = yt.encode(words, is_pretokenized=True, add_special_tokens=add)
            same(got, want, what)
            if i < 12:
                same_alignment(got, want, what)
            same(yt.encode(tuple(words), is_pretokenized=True, add_special_tokens=add), want, f"{what} tuple")
        for a, b in [(2, 3), (5, 1), (0, 4), (8, 10), (12, 6)]:
            what = f"{name} pair {a},{b} add={add}"
            want = hf.encode(lists[a], lists[b], is_pretokenized=True, add_special_tokens=add)
            got = yt.encode(lists[a], pair=lists[b], is_pretokenized=True, add_special_tokens=add)
            same(got, want, what)
            same_alignment(got, want, what)


@pytest.mark.parametrize("name", FAMILIES)
def test_pretokenized_truncation_padding(name):
    yt, hf = load(name)
    lists = word_lists(hf)
    for trunc, pad in pairwise(TRUNCATIONS, PADDINGS):
        if not configure(yt, hf, trunc, pad):
            continue
        tag = f"{name} trunc={trunc} pad={pad}"
        for i in (2, 4, 5, 8, 12):
            w = lists[i]
            both(lambda: yt.encode(w, is_pretokenized=True), lambda: hf.encode(w, is_pretokenized=True), f"{tag} words[{i}]")
        for a, b in [(2, 12), (12, 5), (0, 8)]:
            both(
                lambda: yt.encode(lists[a], lists[b], is_pretokenized=True),
                lambda: hf.encode(lists[a], lists[b], is_pretokenized=True),
                f"{tag} pair {a},{b}",
            )
        batch = [lists[2], (lists[4], lists[5]), [lists[8], lists[3]], tuple(lists[12]), lists[0], ("two", "words")]
        for add in (True, False):
            both(
                lambda: yt.encode_batch(batch, is_pretokenized=True, add_special_tokens=add),
                lambda: hf.encode_batch(batch, is_pretokenized=True, add_special_tokens=add),
                f"{tag} batch add={add}",
                same_batch,
            )
        both(
            lambda: yt.encode_batch_fast(batch[:3], is_pretokenized=True),
            lambda: hf.encode_batch(batch[:3], is_pretokenized=True),
            f"{tag} batch_fast",
            same_batch,
        )


@pytest.mark.parametrize("name", ["qwen3", "minilm", "llama2"])
def test_pretokenized_awaitables(name):
    """The awaitables give what the sync ``tokenizers`` calls give (char offsets per word)."""
    yt, hf = load(name)
    lists = word_lists(hf)
    batch = [lists[2], (lists[4], lists[5]), [lists[8], lists[3]], lists[12], ["two", "words"]]

    async def run():
        for trunc, pad in [(None, None), (dict(max_length=10, stride=1), dict(length=16))]:
            configure(yt, hf, trunc, pad)
            tag = f"{name} trunc={trunc} pad={pad}"
            for i in (2, 5, 12):
                same(await yt.async_encode(lists[i], is_pretokenized=True), hf.encode(lists[i], is_pretokenized=True), f"{tag} async {i}")
            same(
                await yt.async_encode(lists[8], lists[3], is_pretokenized=True, add_special_tokens=False),
                hf.encode(lists[8], lists[3], is_pretokenized=True, add_special_tokens=False),
                f"{tag} async pair",
            )
            want = hf.encode_batch(batch, is_pretokenized=True)
            same_batch(await yt.async_encode_batch(batch, is_pretokenized=True), want, f"{tag} async batch")
            same_batch(await yt.async_encode_batch_fast(batch, is_pretokenized=True), want, f"{tag} async batch fast")
            # AsyncTokenizer, the coroutine wrapper, takes the flag too.
            atok = yieldtok.AsyncTokenizer(yt)
            same(await atok.encode(lists[8], pair=lists[3], is_pretokenized=True), hf.encode(lists[8], lists[3], is_pretokenized=True), f"{tag} AsyncTokenizer")
            same_batch(await atok.encode_batch(batch, is_pretokenized=True), want, f"{tag} AsyncTokenizer batch")

    import yieldtok

    asyncio.run(run())


@pytest.mark.parametrize("name", ["qwen3", "minilm", "gemma3"])
def test_long_pretokenized_input(name):
    """>= 64 KB of words (the words encoded in parallel on the pool), and one word that is a
    long text itself (chunked)."""
    yt, hf = load(name)
    hf.no_truncation()
    hf.no_padding()
    yt.no_truncation()
    yt.no_padding()
    text = long_text(90_000)
    words = text.split(" ")
    assert sum(len(w.encode()) for w in words) >= 64 * 1024
    same(yt.encode(words, is_pretokenized=True), hf.encode(words, is_pretokenized=True), f"{name} long words")
    lines = [text[:70_000], "tail", text[70_000:71_000]]
    same(yt.encode(lines, is_pretokenized=True), hf.encode(lines, is_pretokenized=True), f"{name} long word")
    same(yt.encode(words[:50], lines, is_pretokenized=True), hf.encode(words[:50], lines, is_pretokenized=True), f"{name} long pair")
    batch = [words, (words[:10], lines)]
    same_batch(yt.encode_batch(batch, is_pretokenized=True), hf.encode_batch(batch, is_pretokenized=True), f"{name} long batch")


def test_pretokenized_input_forms_and_errors():
    """What ``tokenizers`` accepts (lists, tuples, numpy object arrays) and what it refuses
    with a ``TypeError``; a plain ``str`` with ``is_pretokenized=True`` is refused too."""
    import numpy as np
    import yieldtok

    yt, hf = load("qwen3")
    arr = np.array(["Hello", " wörld"], dtype=object)
    same(yt.encode(arr, is_pretokenized=True), hf.encode(arr, is_pretokenized=True), "numpy object array")
    same_batch(yt.encode_batch([arr], is_pretokenized=True), hf.encode_batch([arr], is_pretokenized=True), "numpy batch")
    for bad in ("ab", None, 5, [1], [["a"]], ["a", None]):
        with pytest.raises(TypeError):
            hf.encode(bad, is_pretokenized=True)
        with pytest.raises(TypeError):
            yt.encode(bad, is_pretokenized=True)
    with pytest.raises(TypeError):
        hf.encode(["a"], "b", is_pretokenized=True)
    with pytest.raises(TypeError):
        yt.encode(["a"], "b", is_pretokenized=True)
    for bad in (["ab"], [[["a"], ["b"], ["c"]]], [(["a"], "b")], [["a", 1]], [5]):
        with pytest.raises(TypeError):
            hf.encode_batch(bad, is_pretokenized=True)
        with pytest.raises(TypeError):
            yt.encode_batch(bad, is_pretokenized=True)
    # A lone surrogate is yieldtok's TokenizerValueError naming the word (tokenizers: TypeError).
    with pytest.raises(yieldtok.TokenizerValueError, match=r"sequence\[1\]"):
        yt.encode(["ok", "bad \udfff"], is_pretokenized=True)
    # Plain text inputs are unchanged by the flag's default.
    same(yt.encode("a b"), hf.encode("a b"), "plain")
    assert yt.encode(["a", "b"], is_pretokenized=True).text == "a b"
