"""Word ids and the ``Encoding`` alignment methods against Hugging Face ``tokenizers`` 0.23 on
every fixture: ``tokens``, ``word_ids``, ``words`` (deprecated there, with the same warning),
``char_to_token``, ``char_to_word``, ``token_to_chars``, ``token_to_word``, ``token_to_sequence``,
``word_to_tokens``, ``word_to_chars`` with and without ``sequence_index`` (0, 1, and 2 which no
encoding has), at every index of short encodings (and just past the ends) and at a spread of
indices of long ones; single texts, pairs, batches, truncation with overflowing parts and
stride, padding on either side, added/special tokens in the text, and long texts encoded in
pieces (word ids counted over the whole text, on the own engine and on the reference engine).
"""

from __future__ import annotations

import os
import warnings

import pytest

from conftest import FIXTURES, VARIED, added_token_texts, fixture_dir, long_text, real_text

ALL = FIXTURES + ["minilm", "mon_unigram", "spm_unigram"]

_loaded: dict = {}


def load(name, engine=None):
    """(yieldtok, tokenizers) for fixture ``name``; ``engine="reference"`` loads yieldtok on the
    reference engine only (``YIELDTOK_ENGINE`` is read at load)."""
    key = (name, engine)
    if key not in _loaded:
        import tokenizers
        import yieldtok

        d = fixture_dir(name)
        old = os.environ.get("YIELDTOK_ENGINE")
        if engine is not None:
            os.environ["YIELDTOK_ENGINE"] = engine
        try:
            yt = yieldtok.Tokenizer.from_dir(d)
        finally:
            if old is None:
                os.environ.pop("YIELDTOK_ENGINE", None)
            else:
                os.environ["YIELDTOK_ENGINE"] = old
        if engine == "reference":
            assert yt.encoding_engine == "tokenizers"
        hf = tokenizers.Tokenizer.from_file(str(d / "tokenizer.json"))
        _loaded[key] = (yt, hf)
    yt, hf = _loaded[key]
    for t in (yt, hf):
        t.no_truncation()
        t.no_padding()
    return yt, hf


def indices(n: int) -> list[int]:
    """``range(n)`` when short; else its first and last 40 and 120 spread in between (each
    word/char lookup scans the tokens, on both sides)."""
    if n <= 200:
        return list(range(n))
    step = max(1, (n - 80) // 120)
    return sorted(set(range(40)) | set(range(n - 40, n)) | set(range(40, n - 40, step)))


def call(f, *args, **kw):
    """The result, or the exception's type (both sides must raise the same)."""
    try:
        return f(*args, **kw)
    except Exception as e:  # noqa: BLE001
        return type(e)


def aligned(got, want, what: str) -> None:
    """Every alignment result of ``got`` (yieldtok) equals ``want``'s (tokenizers), token
    strings included (a Unigram unknown token is named by the text it covers in both)."""
    assert got.ids == want.ids, what
    assert got.tokens == want.tokens, what
    assert got.offsets == want.offsets, what
    assert got.sequence_ids == want.sequence_ids, what
    wids = want.word_ids
    assert got.word_ids == wids, what
    with warnings.catch_warnings(record=True) as w_hf:
        warnings.simplefilter("always")
        words_hf = want.words
    with warnings.catch_warnings(record=True) as w_yt:
        warnings.simplefilter("always")
        words_yt = got.words
    assert words_yt == words_hf == wids, what
    assert [(w.category, str(w.message)) for w in w_yt] == [(w.category, str(w.message)) for w in w_hf], what

    n = len(want.ids)
    n_words = max((w for w in wids if w is not None), default=-1) + 1
    n_chars = max((e for _, e in want.offsets), default=0)
    for t in indices(n + 2):
        for m in ("token_to_chars", "token_to_word", "token_to_sequence"):
            assert call(getattr(got, m), t) == call(getattr(want, m), t), f"{what}: {m}({t})"
    for w in indices(n_words + 2):
        for m in ("word_to_tokens", "word_to_chars"):
            assert call(getattr(got, m), w) == call(getattr(want, m), w), f"{what}: {m}({w})"
            for s in (0, 1, 2):
                g = call(getattr(got, m), w, sequence_index=s)
                assert g == call(getattr(want, m), w, s), f"{what}: {m}({w}, {s})"
    # Positions from just before the first token's start (an overflowing part starts far in).
    lo = max(0, min((a for a, b in want.offsets if b > a), default=0) - 2)
    for p in sorted({0, 1} | {lo + i for i in indices(n_chars + 2 - lo)}):
        for m in ("char_to_token", "char_to_word"):
            assert call(getattr(got, m), p) == call(getattr(want, m), p), f"{what}: {m}({p})"
            for s in (0, 1, 2):
                g = call(getattr(got, m), p, sequence_index=s)
                assert g == call(getattr(want, m), p, s), f"{what}: {m}({p}, {s})"
    assert len(got.overflowing) == len(want.overflowing), what
    for k, (g, w) in enumerate(zip(got.overflowing, want.overflowing)):
        aligned(g, w, f"{what} overflowing[{k}]")


def texts_for(hf) -> list[str]:
    real = real_text(3000) or ""
    return list(VARIED) + added_token_texts(hf)[:4] + ([real[:3000]] if real else [])


@pytest.mark.parametrize("name", ALL)
def test_single_texts_and_pairs(name):
    yt, hf = load(name)
    texts = texts_for(hf)
    for add in (True, False):
        for i, t in enumerate(texts):
            aligned(yt.encode(t, add_special_tokens=add), hf.encode(t, add_special_tokens=add), f"{name} {i} add={add}")
    for a, b in [(2, 5), (14, 6), (0, 3), (len(texts) - 1, 13), (16, 23), (len(VARIED), 2)]:
        for add in (True, False):
            aligned(
                yt.encode(texts[a], texts[b], add_special_tokens=add),
                hf.encode(texts[a], texts[b], add_special_tokens=add),
                f"{name} pair {a},{b} add={add}",
            )
    batch = [texts[i] if i % 3 else (texts[i], texts[(i + 5) % len(texts)]) for i in range(len(texts))]
    for k, (g, w) in enumerate(zip(yt.encode_batch(batch), hf.encode_batch(batch))):
        aligned(g, w, f"{name} batch[{k}]")


SETTINGS = [
    (dict(max_length=20, stride=4), dict(length=48, pad_id=3, pad_token="<pad>")),
    (dict(max_length=9, strategy="only_first", direction="left"), dict(direction="left", pad_to_multiple_of=8)),
    (dict(max_length=16, stride=2, strategy="only_second"), None),
    (dict(max_length=30, stride=5, direction="left"), dict()),
    (None, dict(direction="left")),
]


@pytest.mark.parametrize("name", ALL)
def test_truncation_overflowing_and_padding(name):
    yt, hf = load(name)
    texts = texts_for(hf)
    picks = [texts[i] for i in (2, 5, 6, 14, 17, 23)] + added_token_texts(hf)[:1] + texts[-1:]
    for trunc, pad in SETTINGS:
        if trunc is not None:
            hf.enable_truncation(**trunc)
            yt.enable_truncation(**trunc)
        if pad is not None:
            hf.enable_padding(**pad)
            yt.enable_padding(**pad)
        tag = f"{name} trunc={trunc} pad={pad}"
        for i, t in enumerate(picks):
            try:
                want = hf.encode(t)
            except BaseException:  # noqa: BLE001  (only_second on a single text)
                continue
            aligned(yt.encode(t), want, f"{tag} {i}")
        for a, b in [(0, 3), (3, 1), (len(picks) - 1, 4)]:
            try:
                want = hf.encode(picks[a], picks[b])
            except BaseException:  # noqa: BLE001  (a stride not below a truncated half)
                continue
            aligned(yt.encode(picks[a], picks[b]), want, f"{tag} pair {a},{b}")
        mixed = [picks[1], (picks[2], picks[3]), picks[-1], picks[0]]
        try:
            want_b = hf.encode_batch(mixed)
        except BaseException:  # noqa: BLE001
            continue
        for k, (g, w) in enumerate(zip(yt.encode_batch(mixed), want_b)):
            aligned(g, w, f"{tag} batch[{k}]")
        for t in (yt, hf):
            t.no_truncation()
            t.no_padding()


@pytest.mark.parametrize("engine", [None, "reference"])
@pytest.mark.parametrize("name", ALL)
def test_long_text_encoded_in_pieces(name, engine):
    """A text cut into pieces (parallel, >= 64 KB): word ids count over the whole text, as
    ``tokenizers``' single pass numbers them; the ids alone would not show a numbering that
    restarts in each piece."""
    yt, hf = load(name, engine)
    # The load-time self-check compares word ids too: a numbering that broke at cuts would
    # switch cutting off (and pass below as one piece), so that must not happen.
    assert "self-check failed" not in yt.chunking, yt.chunking
    if name in ("qwen3", "llama2", "gemma3"):  # the families that cut inside and between words
        assert not yt.chunking.startswith("unchunked"), yt.chunking
    text = long_text(300_000)
    assert len(text.encode()) > 4 * 64 * 1024
    got, want = yt.encode(text), hf.encode(text)
    assert got.word_ids == want.word_ids, f"{name} engine={engine} (chunking: {yt.chunking})"
    aligned(got, want, f"{name} long engine={engine}")
    # A pair whose second text is long; and the long text cut by truncation, with overflowing.
    aligned(yt.encode(text[:2000], text), hf.encode(text[:2000], text), f"{name} long pair engine={engine}")
    for trunc in (dict(max_length=512, stride=64), dict(max_length=300, direction="left")):
        yt.enable_truncation(**trunc)
        hf.enable_truncation(**trunc)
        g, w = yt.encode(text), hf.encode(text)
        assert g.word_ids == w.word_ids
        assert [o.word_ids for o in g.overflowing] == [o.word_ids for o in w.overflowing]
        for k in sorted({0, 1, len(w.overflowing) // 2, len(w.overflowing) - 1}):
            if k < len(w.overflowing):
                aligned(g.overflowing[k], w.overflowing[k], f"{name} {trunc} overflowing[{k}] engine={engine}")


def test_pieces_actually_cut_and_words_go_past_one_piece():
    """The long-text test is not vacuous: qwen3 cuts long texts, and its words run far past what
    one 64 KB piece holds."""
    yt, hf = load("qwen3")
    assert not yt.chunking.startswith("unchunked"), yt.chunking
    text = long_text(300_000)
    w = yt.encode(text).word_ids
    assert max(x for x in w if x is not None) > 4 * max(x for x in hf.encode(text[:65536]).word_ids if x is not None)


def test_index_errors_match():
    yt, hf = load("qwen3")
    g, w = yt.encode("Hello world", "and more"), hf.encode("Hello world", "and more")
    for m, args in [
        ("token_to_chars", (-1,)),
        ("token_to_word", (-1,)),
        ("word_to_tokens", (-1,)),
        ("word_to_tokens", (2**32,)),
        ("word_to_chars", (0, -1)),
        ("char_to_token", (-1,)),
        ("char_to_word", (3, -2)),
    ]:
        assert call(getattr(g, m), *args) == call(getattr(w, m), *args) != None, m  # noqa: E711
    with pytest.raises(TypeError):
        g.word_to_tokens(0, 0, 0)
    for t in (yt, hf):
        with pytest.raises(AttributeError):
            t.encode("x").word_ids = []
