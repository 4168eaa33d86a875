"""``tokenizer(text, ...)`` (transformers' ``__call__``) against transformers 5.24's
PreTrainedTokenizerFast over a grid of arguments on several fixtures: tests/oracle/call_oracle.py
writes CALL_ORACLE (required when YIELDTOK_REQUIRE_ORACLE=1, else skipped without it). Every key,
value, numpy dtype and shape must be equal; where transformers raises, so must we."""
import asyncio
import sys

import pytest

import yieldtok
from conftest import REPO, fixture_dir, oracle_json

sys.path.insert(0, str(REPO / "tests" / "oracle"))
from plain_json import plain  # noqa: E402  (the oracle's own conversion)


def _cases():
    return oracle_json("CALL_ORACLE", "call_oracle.py")


_toks: dict = {}


def tok(name):
    if name not in _toks:
        _toks[name] = yieldtok.Tokenizer.from_dir(fixture_dir(name))
    return _toks[name]


def run(t, case):
    text, pair = case["args"]
    try:
        r = t(text, pair, **case["kwargs"])
    except Exception as e:  # noqa: BLE001
        return {"error": f"{type(e).__name__}: {e}"}
    assert isinstance(r, dict)
    return {"result": {k: plain(v) for k, v in r.items()}}


def test_call_equals_transformers():
    cases = _cases()
    fixtures = {c["fixture"] for c in cases}
    assert len(fixtures) >= 5 and len(cases) >= 1000
    checked = 0
    for case in cases:
        got = run(tok(case["fixture"]), case)
        where = (case["fixture"], case["name"], case["kwargs"])
        if "error" in case:
            assert "error" in got, (where, case["error"])
        else:
            assert "error" not in got, (where, got.get("error"))
            assert list(got["result"]) == list(case["result"]), (where, "keys")
            for k in case["result"]:
                assert got["result"][k] == case["result"][k], (where, k)
            checked += 1
    assert checked >= 1000


def test_async_call_equals_sync():
    cases = [c for c in _cases() if c["fixture"] == "qwen3"][:120]
    atok = yieldtok.AsyncTokenizer(tok("qwen3"))

    async def main():
        out = []
        for case in cases:
            text, pair = case["args"]
            try:
                r = await atok(text, pair, **case["kwargs"])
                out.append({"result": {k: plain(v) for k, v in r.items()}})
            except Exception as e:  # noqa: BLE001
                out.append({"error": f"{type(e).__name__}: {e}"})
        return out

    got = asyncio.run(main())
    for case, g in zip(cases, got):
        assert ("error" in g) == ("error" in case), case["kwargs"]
        if "result" in g:
            assert g["result"] == case["result"], case["kwargs"]


def test_call_leaves_the_tokenizer_settings_alone():
    t = yieldtok.Tokenizer.from_dir(fixture_dir("qwen3"))
    t.enable_truncation(5)
    r = t(["a b c d e f g h i j k", "x"], padding=True, truncation=True, max_length=8)
    assert [len(x) for x in r["input_ids"]] == [8, 8]
    assert t.truncation["max_length"] == 5 and t.padding is None
    # transformers runs the backend with the call's settings only: no truncation here
    assert len(t("a b c d e f g h i j k")["input_ids"]) > 5


def test_call_pt_when_torch_is_installed():
    torch = pytest.importorskip("torch")
    r = tok("qwen3")(["hello world", "hi"], padding=True, return_tensors="pt")
    assert r["input_ids"].dtype == torch.int64 and tuple(r["input_ids"].shape) == (2, 2)
