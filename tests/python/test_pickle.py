"""Tokenizer and AsyncTokenizer pickle by their JSON (multiprocessing, Ray)."""

from __future__ import annotations

import copy
import multiprocessing as mp
import pickle

import pytest

import yieldtok
from conftest import FIXTURES, VARIED, load_pair


@pytest.mark.parametrize("name", FIXTURES)
def test_pickle_roundtrip(name):
    tok, hf = load_pair(name)
    for proto in (2, pickle.HIGHEST_PROTOCOL):
        tok2 = pickle.loads(pickle.dumps(tok, protocol=proto))
        assert isinstance(tok2, yieldtok.Tokenizer)
        for t in VARIED:
            assert tok2.encode(t).ids == tok.encode(t).ids
        assert tok2.get_vocab_size() == tok.get_vocab_size()
        assert tok2.chunking == tok.chunking
    assert copy.deepcopy(tok).encode("deep copy").ids == tok.encode("deep copy").ids


def test_async_tokenizer_pickles():
    tok = yieldtok.AsyncTokenizer(load_pair("qwen3")[0])
    tok2 = pickle.loads(pickle.dumps(tok))
    assert isinstance(tok2, yieldtok.AsyncTokenizer)
    assert tok2.sync.encode("x y").ids == tok.sync.encode("x y").ids


def _encode_in_child(tok_and_text):
    tok, text = tok_and_text
    return tok.encode(text).ids


def test_multiprocessing_spawn():
    tok = load_pair("llama3_1")[0]
    ctx = mp.get_context("spawn")
    with ctx.Pool(2) as pool:
        out = pool.map(_encode_in_child, [(tok, t) for t in VARIED[:6]])
    assert out == [tok.encode(t).ids for t in VARIED[:6]]


def test_to_str_roundtrip():
    tok = load_pair("gemma3")[0]
    again = yieldtok.Tokenizer.from_str(tok.to_str())
    assert again.encode("round trip ▁ text").ids == tok.encode("round trip ▁ text").ids
    assert yieldtok.Tokenizer.from_str(tok.to_str(pretty=True)).get_vocab_size() == tok.get_vocab_size()
