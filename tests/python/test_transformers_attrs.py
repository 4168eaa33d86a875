"""transformers-style attributes (bos_token … padding_side) against transformers 5.24's
PreTrainedTokenizerFast for the same folders (tests/oracle/attributes_oracle.py writes ATTRS_ORACLE;
required when YIELDTOK_REQUIRE_ORACLE=1, else skipped without it)."""
import json
import os

import pytest

import yieldtok

ORACLE = os.environ.get("ATTRS_ORACLE")
FIXTURES = os.environ.get("ATTRS_FIXTURES", os.path.join(os.path.dirname(__file__), "..", "..", ".cache", "fixtures"))


def _expected():
    if not ORACLE or not os.path.exists(ORACLE):
        if os.environ.get("YIELDTOK_REQUIRE_ORACLE") == "1":
            pytest.fail("ATTRS_ORACLE is required (YIELDTOK_REQUIRE_ORACLE=1)")
        pytest.skip("no ATTRS_ORACLE (tests/oracle/attributes_oracle.py)")
    with open(ORACLE) as f:
        return json.load(f)


def test_attributes_equal_transformers():
    expected = _expected()
    assert expected, "the oracle covers no fixture"
    for name, want in expected.items():
        tok = yieldtok.Tokenizer.from_dir(os.path.join(FIXTURES, name))
        for attr, value in want.items():
            got = getattr(tok, attr)
            if attr == "model_max_length":
                got = str(got)
            assert got == value, (name, attr, got, value)


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
