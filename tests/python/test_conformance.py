"""Cross-language conformance vectors written by the core CLI:

    cargo run -p yieldtok-cli --release -- conformance --out target/conformance

Each target/conformance/<fixture>.json is a list of {name, text, add_special_tokens, ids,
offsets (bytes), char_offsets}. Skipped when absent unless YIELDTOK_REQUIRE_CONFORMANCE=1.
"""

from __future__ import annotations

import json
import os
import pathlib

import pytest

from conftest import FIXTURES, REPO, load_pair


def conformance_dir() -> pathlib.Path:
    if os.environ.get("YIELDTOK_CONFORMANCE_DIR"):
        return pathlib.Path(os.environ["YIELDTOK_CONFORMANCE_DIR"])
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target")
    return target / "conformance"


@pytest.mark.parametrize("name", FIXTURES)
def test_conformance_vectors(name):
    path = conformance_dir() / f"{name}.json"
    if not path.is_file():
        if os.environ.get("YIELDTOK_REQUIRE_CONFORMANCE") == "1":
            pytest.fail(f"{path} is missing (run: cargo run -p yieldtok-cli --release -- conformance --out target/conformance)")
        pytest.skip(f"{path} not generated")
    cases = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(cases, list) and cases, f"{path} holds no cases"
    tok = load_pair(name)[0]
    for case in cases:
        enc = tok.encode(case["text"], add_special_tokens=case["add_special_tokens"])
        ctx = f"{name}/{case.get('name')}"
        assert enc.ids == case["ids"], ctx
        assert [list(o) for o in enc.byte_offsets] == [list(o) for o in case["offsets"]], ctx
        assert [list(o) for o in enc.offsets] == [list(o) for o in case["char_offsets"]], ctx
