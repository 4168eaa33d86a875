"""apply_chat_template through the Python binding against transformers' outputs.

The cases and transformers' renders are written by the test command (scripts/test.sh:
tests/oracle/make_chat_cases.py + chat_template_oracle.py with transformers) and passed as
CHAT_CASES / CHAT_ORACLE; the core's Rust test checks every case, this one checks the Python
argument conversion (dict order, None, kwargs, tools, continue_final_message) on all of them.
"""

import json
import os
from pathlib import Path

import pytest

import yieldtok

FIXTURES = Path(os.environ.get("YIELDTOK_FIXTURES", Path(__file__).resolve().parents[2] / ".cache" / "fixtures"))


def _cases():
    cases, oracle = os.environ.get("CHAT_CASES"), os.environ.get("CHAT_ORACLE")
    if not (cases and oracle):
        if os.environ.get("YIELDTOK_REQUIRE_ORACLE"):
            pytest.fail("YIELDTOK_REQUIRE_ORACLE is set but CHAT_CASES / CHAT_ORACLE are not")
        pytest.skip("CHAT_CASES / CHAT_ORACLE not set (scripts/test.sh sets them)")
    results = {r["id"]: r for r in json.load(open(oracle))["results"]}
    return [(c, results[c["id"]]) for c in json.load(open(cases)) if not c["id"].startswith("known/")]


_TOKS = {}


def _tok(name):
    if name not in _TOKS:
        _TOKS[name] = yieldtok.Tokenizer.from_dir(FIXTURES / name)
    return _TOKS[name]


def test_renders_match_transformers():
    checked = raised = 0
    for case, want in _cases():
        if case.get("return_assistant_tokens_mask") or "strftime" in case["id"]:
            continue  # masks: checked by the Rust test; strftime_now: the oracle ran on a fixed clock
        tok = _tok(case["template_dir"])
        kwargs = dict(case.get("kwargs") or {})
        args = dict(tools=case.get("tools"), add_generation_prompt=case.get("add_generation_prompt", False), tokenize=False)
        if "chat_template" in case:
            args["chat_template"] = case["chat_template"]
        if "continue_final_message" in case:
            args["continue_final_message"] = case["continue_final_message"]
        if "error" in want:
            with pytest.raises(yieldtok.TokenizerError):
                tok.apply_chat_template(case["messages"], **args, **kwargs)
            raised += 1
        else:
            assert tok.apply_chat_template(case["messages"], **args, **kwargs) == want["text"], case["id"]
            checked += 1
    assert checked > 100 and raised > 10, (checked, raised)


def test_tokenize_and_return_dict():
    tok = _tok("qwen3")
    msgs = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi there 👋"}]
    text = tok.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True)
    assert text.endswith("<|im_start|>assistant\n")
    ids = tok.apply_chat_template(msgs, add_generation_prompt=True)
    assert ids == tok.encode(text, add_special_tokens=False).ids
    d = tok.apply_chat_template(msgs, add_generation_prompt=True, return_dict=True)
    assert d["input_ids"] == ids and d["attention_mask"] == [1] * len(ids)
    with pytest.raises(yieldtok.TokenizerError):
        tok.apply_chat_template(msgs, chat_template="{{ raise_exception('nope') }}")
    with pytest.raises(yieldtok.TokenizerError):
        tok.apply_chat_template([{"role": "user", "content": object()}])
    assert tok.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True) == text


@pytest.mark.asyncio
async def test_awaitable_twins_run_on_the_core():
    tok = _tok("qwen3")
    atok = yieldtok.AsyncTokenizer(tok)
    msgs = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi there 👋"}]
    for kw in (dict(tokenize=False), dict(), dict(return_dict=True), dict(tokenize=False, return_dict=True)):
        want = tok.apply_chat_template(msgs, add_generation_prompt=True, **kw)
        assert await tok.async_apply_chat_template(msgs, add_generation_prompt=True, **kw) == want
        assert await atok.apply_chat_template(msgs, add_generation_prompt=True, **kw) == want
    with pytest.raises(yieldtok.TokenizerError):
        await atok.apply_chat_template(msgs, chat_template="{{ raise_exception('nope') }}")
    # Not on Python's default executor: no thread of it is started.
    import threading
    assert not any(t.name.startswith("asyncio_") for t in threading.enumerate())
