"""Zero-copy numpy views; numpy stays optional at runtime."""

from __future__ import annotations

import gc
import subprocess
import sys

import pytest

np = pytest.importorskip("numpy")

from conftest import VARIED, long_text  # noqa: E402


def test_ids_array_is_a_readonly_zero_copy_view(qwen):
    enc = qwen.encode(long_text(300_000))
    a = enc.ids_array
    assert a.dtype == np.uint32 and a.shape == (len(enc),)
    assert a.tolist() == enc.ids
    assert not a.flags.writeable
    with pytest.raises(ValueError):
        a[0] = 1
    b = enc.ids_array
    # Same Rust-owned memory every time: no copy.
    assert a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
    assert np.shares_memory(a, b)
    assert a.base is not None
    m = enc.attention_mask_array
    assert m.tolist() == enc.attention_mask


def test_view_outlives_the_encoding(qwen):
    text = "keep me alive " * 5000
    a = qwen.encode(text).ids_array  # the Encoding is dropped right away
    gc.collect()
    junk = [qwen.encode(t).ids_array.copy() for t in VARIED * 3]  # churn the allocator
    assert a.tolist() == qwen.encode(text).ids
    del junk


def test_offsets_array(qwen):
    for text in VARIED + ["héllo 😀 wörld"]:
        enc = qwen.encode(text)
        o = enc.offsets_array
        assert o.dtype == np.int64 and o.shape == (len(enc), 2)
        assert [tuple(x) for x in o.tolist()] == enc.offsets
        assert not o.flags.writeable


def test_batch_padded_views(qwen):
    texts = ["short", "a somewhat longer text here", "", "mid length text"]
    b = qwen.encode_batch(texts)
    ids = b.ids_array
    mask = b.attention_mask_array
    width = max(len(e) for e in b)
    assert ids.shape == (4, width) and mask.shape == (4, width) and ids.dtype == np.uint32
    for row, e in enumerate(b):
        n = len(e)
        assert ids[row, :n].tolist() == e.ids
        assert (ids[row, n:] == b.pad_id).all()
        assert mask[row, :n].tolist() == [1] * n and (mask[row, n:] == 0).all()
    assert b.lengths == [len(e) for e in b]
    assert np.shares_memory(b.ids_array, ids)
    assert b.ids == [e.ids for e in b]
    # Sequence behaviour.
    assert len(b) == 4 and b[-1].ids == b[3].ids and [e.ids for e in b[1:3]] == [b[1].ids, b[2].ids]
    with pytest.raises(IndexError):
        b[4]
    from collections.abc import Sequence

    assert isinstance(b, Sequence)


def test_empty(qwen):
    e = qwen.encode("", add_special_tokens=False)
    assert e.ids_array.shape == (0,) and e.offsets_array.shape == (0, 2)
    b = qwen.encode_batch([])
    assert len(b) == 0 and b.ids_array.shape == (0, 0)


def test_numpy_is_optional(qwen):
    code = f"""
import sys
sys.modules['numpy'] = None  # make `import numpy` fail
import yieldtok
tok = yieldtok.Tokenizer.from_dir({qwen.origin!r})
e = tok.encode('works without numpy')
assert e.ids and e.offsets
try:
    e.ids_array
except ImportError as err:
    assert 'numpy' in str(err)
    print('ok')
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"
