"""``apply_chat_template`` as a call, against transformers 5.24's ``PreTrainedTokenizerFast``
(tests/oracle/chat_call_oracle.py writes CHAT_CALL_ORACLE; required when
YIELDTOK_REQUIRE_ORACLE=1, else skipped without it): its defaults (``return_dict=True``: a dict
with ``input_ids`` / ``attention_mask``), ``tokenize=False``, ``return_dict=False``,
``return_tensors``, ``padding`` / ``truncation`` / ``max_length`` / ``tokenizer_kwargs`` applied
to the encoding (not passed to the template), batches of conversations, generation prompts,
``continue_final_message`` and ``return_assistant_tokens_mask``, on real fixtures. Every key,
value, numpy dtype and shape must be equal; where transformers raises, so must we (the same
builtin exception class). The awaitable forms must give the same."""
import asyncio
import builtins
import sys

import pytest

import yieldtok
from conftest import REPO, fixture_dir, oracle_json

sys.path.insert(0, str(REPO / "tests" / "oracle"))
from plain_json import plain  # noqa: E402  (the oracle's own conversion)

# Where yieldtok knowingly differs (each still checked for what it does instead).
KNOWN = {
    # transformers hands an empty conversation inside a batch to the template (which renders
    # it, or fails on messages[0]); yieldtok refuses it as it refuses a lone empty conversation.
    "batch with an empty conversation": "ValueError",
}


def _cases():
    return oracle_json("CHAT_CALL_ORACLE", "chat_call_oracle.py")


_toks: dict = {}


def tok(name):
    if name not in _toks:
        _toks[name] = yieldtok.Tokenizer.from_dir(fixture_dir(name))
    return _toks[name]


def shaped(r):
    if isinstance(r, dict):
        return {"dict": {k: plain(v) for k, v in r.items()}}
    return {"value": plain(r)}


def outcome(f, case):
    try:
        return shaped(f(*case["args"], **case["kwargs"]))
    except Exception as e:  # noqa: BLE001 - compared with transformers' error
        return {"error": e}


async def async_outcome(f, case):
    try:
        return shaped(await f(*case["args"], **case["kwargs"]))
    except Exception as e:  # noqa: BLE001 - compared with transformers' error
        return {"error": e}


def check(case, got):
    where = (case["fixture"], case["name"], case["kwargs"])
    if case["name"] in KNOWN:
        assert isinstance(got.get("error"), getattr(builtins, KNOWN[case["name"]])), (where, got)
        return
    if "error" in case:
        assert "error" in got, (where, case["error"], got)
        if case["error_type"]:
            assert isinstance(got["error"], getattr(builtins, case["error_type"])), (where, case["error"], got["error"])
        return
    assert "error" not in got, (where, repr(got.get("error")))
    if "dict" in case:
        assert "dict" in got, (where, got)
        assert list(got["dict"]) == list(case["dict"]), (where, "keys")
        for k in case["dict"]:
            assert got["dict"][k] == case["dict"][k], (where, k)
    else:
        assert got == {"value": case["value"]}, where


def test_apply_chat_template_equals_transformers():
    cases = _cases()
    assert len({c["fixture"] for c in cases}) >= 5 and len(cases) >= 300
    kinds = {"dict": 0, "value": 0, "error": 0, "masks": 0, "np": 0, "batch padded": 0}
    for case in cases:
        check(case, outcome(tok(case["fixture"]).apply_chat_template, case))
        for k in ("dict", "value", "error"):
            kinds[k] += k in case
        d = case.get("dict", {})
        kinds["masks"] += "assistant_masks" in d
        kinds["np"] += isinstance(d.get("input_ids"), dict)
        conv = case["args"][0]
        kinds["batch padded"] += bool(conv) and isinstance(conv[0], list) and bool(case["kwargs"].get("padding"))
    assert min(kinds.values()) >= 10, kinds


def test_awaitable_forms_equal_transformers():
    cases = [c for c in _cases() if c["fixture"] in ("qwen3", "gemma3")]

    async def main():
        out = []
        for case in cases:
            t = tok(case["fixture"])
            a = yieldtok.AsyncTokenizer(t)
            out.append((await async_outcome(t.async_apply_chat_template, case),
                        await async_outcome(a.apply_chat_template, case)))
        return out

    for case, (g1, g2) in zip(cases, asyncio.run(main())):
        check(case, g1)
        check(case, g2)


def test_template_variables_are_not_encoding_arguments():
    # padding/truncation/max_length/return_tensors are applied to the encoding; a template that
    # prints its variables sees none of them (transformers passes only **kwargs to it).
    t = tok("qwen3")
    src = "{{ padding is defined }}|{{ truncation is defined }}|{{ max_length is defined }}|{{ return_tensors is defined }}|{{ x }}"
    msgs = [{"role": "user", "content": "hi"}]
    assert t.apply_chat_template(msgs, chat_template=src, tokenize=False, padding=True, truncation=True,
                                 max_length=3, return_tensors="np", x=1) == "False|False|False|False|1"


def test_ids_only_and_full_paths_agree():
    # no padding and no offsets wanted: the core encodes ids only; with offsets asked it encodes
    # in full; the ids must not depend on it
    t = tok("qwen3")
    msgs = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello 👋 " * 400}]
    for kw in ({}, {"truncation": True, "max_length": 50}):
        a = t.apply_chat_template(msgs, **kw)
        b = t.apply_chat_template(msgs, tokenizer_kwargs={"return_offsets_mapping": True}, **kw)
        assert a["input_ids"] == b["input_ids"] and a["attention_mask"] == b["attention_mask"]
        assert len(b["offset_mapping"]) == len(a["input_ids"])


def test_pt_when_torch_is_installed():
    torch = pytest.importorskip("torch")
    t = tok("qwen3")
    batch = [[{"role": "user", "content": "hi"}], [{"role": "user", "content": "a longer question here"}]]
    r = t.apply_chat_template(batch, padding=True, return_tensors="pt")
    assert r["input_ids"].dtype == torch.int64 and r["input_ids"].shape[0] == 2
    assert r["attention_mask"].shape == r["input_ids"].shape
