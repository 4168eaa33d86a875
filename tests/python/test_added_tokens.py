"""`add_tokens`, `add_special_tokens`, `AddedToken`'s flags and `encode_special_tokens` against
`tokenizers` 0.23 on every fixture: the same calls on both, then every result compared —
return values of the `add_*` calls, `encode` (short texts and texts long enough for the
parallel chunked path), `encode_batch`, `decode`, `get_vocab`, `get_vocab_size`,
`token_to_id`, `get_added_tokens_decoder` — and a pickle round trip that keeps the added
tokens. Each test loads its own tokenizers (the calls change them).
"""

from __future__ import annotations

import pickle

import pytest
import tokenizers
import yieldtok
from conftest import FIXTURES, VARIED, added_token_texts, fixture_dir, long_text

ALL = FIXTURES + ["minilm", "mon_unigram"]
PARALLEL_MIN_BYTES = 64 * 1024  # the core's PARALLEL_MIN_BYTES: the sync API encodes longer texts in parallel pieces


def fresh(name):
    d = fixture_dir(name)
    return yieldtok.Tokenizer.from_dir(d), tokenizers.Tokenizer.from_file(str(d / "tokenizer.json"))


def both(cls_name, *args, **kwargs):
    return getattr(yieldtok, cls_name)(*args, **kwargs), getattr(tokenizers, cls_name)(*args, **kwargs)


# (content, flags) of the tokens each side gets, normal and special.
NORMAL = [
    ("yieldtokword", None),
    ("zqxj", dict(single_word=True)),
    ("lsxq", dict(lstrip=True)),
    ("rsxq", dict(rstrip=True)),
    ("NrmXq", dict(normalized=False)),
    ("Hello Qworld", dict(normalized=True)),
    ("spxq", dict(special=True)),
    ("yieldtokword", None),  # twice: counted once
    ("the", None),  # most vocabularies have it already
]
SPECIAL = [
    ("<|mine|>", None),
    ("<|sw|>", dict(single_word=True)),
    ("[LSR]", dict(lstrip=True, rstrip=True)),
    ("<|nrm|>", dict(normalized=True)),
    ("<|plain|>", {}),  # an AddedToken object: marked special by the call
]


def tokens_for(cls, spec):
    return [c if flags is None else cls(c, **flags) for c, flags in spec]


def texts_with(contents):
    out = []
    for t in contents:
        out.append(f"{t}hello{t} world {t}\nnext line {t} {t}{t} a{t}b  {t}  x")
    out.append(" ".join(contents) + " mixed " + "".join(contents) + " Hello Qworld hello qworld HELLO QWORLD")
    return out


def long_with(contents, n_bytes):
    base = long_text(n_bytes)
    parts, step = [], 997
    for i in range(0, len(base), step):
        parts.append(base[i : i + step])
        parts.append(contents[(i // step) % len(contents)] if (i // step) % 3 else f" {contents[(i // step) % len(contents)]} ")
    return "".join(parts)


def same_encoding(a, b, what):
    """Every field equal, `tokens` included (``tokenizers`` names a match of an
    ``lstrip``/``rstrip``/``normalized`` token by the text matched, whitespace taken in
    included, and so does yieldtok)."""
    assert a.ids == b.ids, what
    assert a.tokens == b.tokens, what
    assert a.offsets == b.offsets, what
    assert list(a.special_tokens_mask) == b.special_tokens_mask, what
    assert list(a.attention_mask) == b.attention_mask, what
    assert list(a.type_ids) == b.type_ids, what


def decoder_view(d):
    return {i: repr(t) for i, t in d.items()}


def check_same(yt, hf, texts, long_texts=()):
    assert yt.get_vocab() == hf.get_vocab()
    assert yt.get_vocab(with_added_tokens=False) == hf.get_vocab(with_added_tokens=False)
    assert yt.get_vocab_size() == hf.get_vocab_size()
    assert yt.get_vocab_size(with_added_tokens=False) == hf.get_vocab_size(with_added_tokens=False)
    assert decoder_view(yt.get_added_tokens_decoder()) == decoder_view(hf.get_added_tokens_decoder())
    assert yt.encode_special_tokens == hf.encode_special_tokens
    for t in texts + list(long_texts):
        for add in (True, False):
            e, h = yt.encode(t, add_special_tokens=add), hf.encode(t, add_special_tokens=add)
            same_encoding(e, h, (t[:80], add))
            for skip in (True, False):
                assert yt.decode(h.ids, skip_special_tokens=skip) == hf.decode(h.ids, skip_special_tokens=skip)
    for e, h in zip(yt.encode_batch(texts), hf.encode_batch(texts)):
        same_encoding(e, h, "batch")


@pytest.mark.parametrize("name", ALL)
def test_add_tokens_and_special_tokens_like_tokenizers(name):
    yt, hf = fresh(name)
    contents = sorted({c for c, _ in NORMAL + SPECIAL})
    n = yt.add_tokens(tokens_for(yieldtok.AddedToken, NORMAL))
    assert n == hf.add_tokens(tokens_for(tokenizers.AddedToken, NORMAL))
    texts = texts_with(contents) + VARIED[:12]
    check_same(yt, hf, texts)

    own_special = [t.content for t in hf.get_added_tokens_decoder().values() if t.special][:1]
    spec = SPECIAL + [(c, None) for c in own_special]
    ys, hs = tokens_for(yieldtok.AddedToken, spec), tokens_for(tokenizers.AddedToken, spec)
    assert yt.add_special_tokens(ys) == hf.add_special_tokens(hs)
    # tokenizers marks an AddedToken passed to add_special_tokens special: so do we
    assert [repr(t) for t in ys] == [repr(t) for t in hs]
    for c in contents:
        assert yt.token_to_id(c) == hf.token_to_id(c), c
    long = long_with(contents, 2 * PARALLEL_MIN_BYTES)
    assert len(long.encode()) >= PARALLEL_MIN_BYTES
    check_same(yt, hf, texts + added_token_texts(hf), [long])

    # pickle keeps the added tokens, as tokenizers' does: through the JSON, whose parse
    # renumbers tokens added after a gap in the ids (gpt4o: 200019 comes back as 200000)
    back = pickle.loads(pickle.dumps(yt))
    check_same(back, pickle.loads(pickle.dumps(hf)), texts[:3], [long])


@pytest.mark.parametrize("name", ALL)
def test_encode_special_tokens_like_tokenizers(name):
    yt, hf = fresh(name)
    assert yt.add_special_tokens(["<|mine|>"]) == hf.add_special_tokens(["<|mine|>"])
    assert yt.add_tokens(["yieldtokword"]) == hf.add_tokens(["yieldtokword"])
    specials = [t.content for t in hf.get_added_tokens_decoder().values() if t.special][:6] + ["yieldtokword"]
    texts = texts_with(specials) + added_token_texts(hf)
    long = long_with(specials, 2 * PARALLEL_MIN_BYTES)
    assert yt.encode_special_tokens is False
    yt.encode_special_tokens = True
    hf.encode_special_tokens = True
    assert yt.encode_special_tokens is True
    check_same(yt, hf, texts, [long])
    if hf.truncation is None:  # count is the length before truncation
        assert yt.count(long) == len(hf.encode(long).ids)
    # tokenizers' pickle (its JSON) does not keep the flag; neither does ours
    back = pickle.loads(pickle.dumps(yt))
    assert back.encode_special_tokens is False
    yt.encode_special_tokens = False
    hf.encode_special_tokens = False
    check_same(yt, hf, texts, [long])


def test_added_token_class_and_argument_errors():
    yt, hf = fresh("qwen3")
    for kwargs in ({}, dict(special=True), dict(special=True, normalized=True), dict(single_word=True, lstrip=True)):
        a, b = both("AddedToken", "tok", **kwargs)
        assert repr(a) == repr(b) and a.normalized == b.normalized and str(a) == str(b)
    assert yieldtok.AddedToken("a") != yieldtok.AddedToken("a", lstrip=True)
    assert yieldtok.AddedToken("a", special=True) == yieldtok.AddedToken("a", special=True, normalized=False)
    for bad in ("abc", ("abc",), [1]):
        with pytest.raises(TypeError) as want:
            hf.add_tokens(bad)
        with pytest.raises(TypeError) as got:
            yt.add_tokens(bad)
        assert str(got.value) == str(want.value)
    assert yt.add_tokens([]) == hf.add_tokens([]) == 0


def test_change_is_seen_by_async_wrapper_and_running_encodes_keep_theirs():
    yt, hf = fresh("qwen3")
    at = yieldtok.AsyncTokenizer(yt)
    before = yt.encode("a yieldtokword b").ids
    assert at.add_tokens(["yieldtokword"]) == hf.add_tokens(["yieldtokword"]) == 1
    assert yt.encode("a yieldtokword b").ids == hf.encode("a yieldtokword b").ids != before
    assert at.get_vocab_size() == hf.get_vocab_size()
