"""transformers-style attributes (bos_token … chat_template) and methods (convert_ids_to_tokens,
convert_tokens_to_ids, convert_tokens_to_string, get_added_vocab, len) against transformers 5.24's
PreTrainedTokenizerFast for the same folders (tests/oracle/attributes_oracle.py writes ATTRS_ORACLE;
required when YIELDTOK_REQUIRE_ORACLE=1, else skipped without it)."""
import os

import pytest

import yieldtok
from conftest import oracle_json

FIXTURES = os.environ.get("ATTRS_FIXTURES", os.path.join(os.path.dirname(__file__), "..", "..", ".cache", "fixtures"))


def _expected():
    return oracle_json("ATTRS_ORACLE", "attributes_oracle.py")


def test_attributes_equal_transformers():
    expected = _expected()
    assert expected, "the oracle covers no fixture"
    for name, want in expected.items():
        tok = yieldtok.Tokenizer.from_dir(os.path.join(FIXTURES, name))
        atok = yieldtok.AsyncTokenizer(tok)
        assert len(want["attrs"]) >= 23 and len(want["calls"]) >= 16
        for attr, value in want["attrs"].items():
            for t in (tok, atok):
                got = getattr(t, attr)
                if attr == "model_max_length":
                    got = str(got)
                assert got == value, (name, attr, got, value)
        for method, args, kwargs, value in want["calls"]:
            if method == "get_added_vocab":  # JSON keys are str; ids stay ints in both
                value = {k: int(v) for k, v in value.items()}
            for t in (tok, atok):
                got = len(t) if method == "__len__" else getattr(t, method)(*args, **kwargs)
                assert got == value, (name, method, args, kwargs, got, value)
                if method == "get_added_vocab":
                    assert list(got) == list(value), (name, "get_added_vocab order")


def test_attributes_without_config():
    path = os.path.join(FIXTURES, "gpt4o", "tokenizer.json")
    tok = yieldtok.Tokenizer.from_file(path)
    assert tok.eos_token is None and tok.eos_token_id is None
    assert tok.padding_side == "right" and tok.truncation_side == "right"
    assert tok.model_max_length == int(1e30)


def test_async_tokenizer_forwards_attributes():
    tok = yieldtok.AsyncTokenizer.from_dir(os.path.join(FIXTURES, "qwen3"))
    assert tok.eos_token == tok.sync.eos_token == "<|im_end|>"
    assert tok.eos_token_id == tok.sync.token_to_id("<|im_end|>")
    assert tok.bos_token is None and tok.padding_side == "right"


def test_methods_without_config_and_argument_forms():
    tok = yieldtok.Tokenizer.from_file(os.path.join(FIXTURES, "gpt4o", "tokenizer.json"))
    assert tok.all_special_tokens == [] and tok.all_special_ids == [] and tok.chat_template is None
    assert tok.convert_tokens_to_ids("no-such-token-x") is None  # no unk token
    assert len(tok) == tok.get_vocab_size() and tok.vocab_size == tok.get_vocab_size(with_added_tokens=False)
    import numpy as np

    ids = tok.encode("numpy ids").ids
    assert tok.convert_ids_to_tokens(np.array(ids, dtype=np.int64)) == tok.convert_ids_to_tokens(ids)
    assert tok.convert_ids_to_tokens(tuple(ids)) == [tok.id_to_token(i) for i in ids]
    assert tok.convert_ids_to_tokens(-1) is None
    with pytest.raises(TypeError):
        tok.convert_tokens_to_ids([1, 2])
    with pytest.raises(TypeError):
        tok.convert_tokens_to_string("not a list")
