"""Right truncation of one long text stops early (only the prefix the kept tokens come from is
encoded; the core's ``core/tests/early_stop.rs`` proves the stop happens), and what Python sees
is still exactly ``tokenizers``' encode-everything-then-cut: every field, and ``overflowing``
with its stride, which yieldtok computes from the whole text only when it is first read.
"""

from __future__ import annotations

import pytest

from conftest import fixture_dir, long_text
from test_pairs_truncation import configure, load, same

TEXT_BYTES = 1_000_000


@pytest.fixture(scope="module")
def text() -> str:
    return long_text(TEXT_BYTES)


@pytest.mark.parametrize("name", ["qwen3", "llama2", "minilm", "gemma3"])
def test_one_megabyte_truncated_equals_tokenizers(name, text):
    yt, hf = load(name)
    for trunc, pad in (
        (dict(max_length=512, stride=32), None),
        (dict(max_length=1000), dict(pad_to_multiple_of=384)),
    ):
        configure(yt, hf, trunc, pad)
        tag = f"{name} {trunc} {pad}"
        want = hf.encode(text)
        got = yt.encode(text)
        # Fields first (the early-stopped result), then the deferred overflowing parts.
        assert got.ids == want.ids, tag
        assert got.offsets == want.offsets, tag
        assert len(got.overflowing) == len(want.overflowing) > 100, tag
        same(got, want, tag)
        # Read in the other order, and without special tokens.
        got = yt.encode(text, add_special_tokens=False)
        want = hf.encode(text, add_special_tokens=False)
        assert [o.ids for o in got.overflowing] == [o.ids for o in want.overflowing], tag
        same(got, want, tag + " add_special_tokens=False")


def test_short_text_and_no_truncation_are_unchanged(text):
    yt, hf = load("qwen3")
    configure(yt, hf, dict(max_length=512, stride=8), None)
    for t in ("", "Hello, world!", text[:1500]):
        same(yt.encode(t), hf.encode(t), repr(t[:20]))
    configure(yt, hf, dict(max_length=1), None)
    same(yt.encode(text[:20_000]), hf.encode(text[:20_000]), "max_length=1")
    configure(yt, hf, None, None)
    got = yt.encode(text[:200_000])
    assert got.overflowing == [] and got.ids == hf.encode(text[:200_000]).ids


def test_transformers_call_truncates_early_and_keeps_overflow_when_asked(text):
    import yieldtok

    yt = yieldtok.Tokenizer.from_dir(fixture_dir("qwen3"))
    _, hf = load("qwen3")
    hf.enable_truncation(max_length=256, stride=16)
    want = hf.encode(text[:300_000])
    out = yt(text[:300_000], truncation=True, max_length=256)
    assert out["input_ids"] == want.ids
    out = yt(text[:300_000], truncation=True, max_length=256, stride=16, return_overflowing_tokens=True)
    assert out["input_ids"] == [want.ids] + [o.ids for o in want.overflowing]
