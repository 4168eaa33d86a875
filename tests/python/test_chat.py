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
    ids = tok.apply_chat_template(msgs, add_generation_prompt=True, return_dict=False)
    assert ids == tok.encode(text, add_special_tokens=False).ids
    d = tok.apply_chat_template(msgs, add_generation_prompt=True)  # transformers 5: a dict by default
    assert d == {"input_ids": ids, "attention_mask": [1] * len(ids)}
    assert tok.apply_chat_template(msgs, add_generation_prompt=True, return_dict=True) == d
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
    for kw in (dict(tokenize=False), dict(), dict(return_dict=False), dict(tokenize=False, return_dict=True)):
        want = tok.apply_chat_template(msgs, add_generation_prompt=True, **kw)
        assert await tok.async_apply_chat_template(msgs, add_generation_prompt=True, **kw) == want
        assert await atok.apply_chat_template(msgs, add_generation_prompt=True, **kw) == want
    with pytest.raises(yieldtok.TokenizerError):
        await atok.apply_chat_template(msgs, chat_template="{{ raise_exception('nope') }}")
    # Not on Python's default executor: no thread of it is started.
    import threading
    assert not any(t.name.startswith("asyncio_") for t in threading.enumerate())


@pytest.mark.asyncio
async def test_values_json_cannot_carry_are_named_with_their_place():
    # issue 17, item 7: a NaN or a lone surrogate said "conversation: unexpected end of hex escape"
    tok = _tok("qwen3")
    ok = {"role": "system", "content": "Be brief."}
    cases = [
        ([ok, {"role": "user", "content": float("nan")}], r'conversation\[1\]\["content"\]: the float nan'),
        ([ok, {"role": "user", "content": "hi \ud800 there"}], r'conversation\[1\]\["content"\]: .*lone surrogate U\+D800 at index 3'),
        ([ok, {"role": "user", "content": [{"type": "text", "text": "x"}, {"type": "x", "v": float("-inf")}]}], r'conversation\[1\]\["content"\]\[1\]\["v"\]: the float -inf'),
        ([{"role": "user", "content": "x", "\udfff": 1}], r"conversation\[0\]: .*lone surrogate U\+DFFF"),
    ]
    for msgs, pattern in cases:
        with pytest.raises(yieldtok.TokenizerValueError, match=pattern):
            tok.apply_chat_template(msgs, tokenize=False)
        with pytest.raises(yieldtok.TokenizerValueError, match=pattern):
            await tok.async_apply_chat_template(msgs)
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"default": float("inf")}}}]
    with pytest.raises(yieldtok.TokenizerValueError, match=r'tools\[0\]\["function"\]\["parameters"\]\["default"\]: the float inf'):
        tok.apply_chat_template([ok], tools=tools, tokenize=False)
    assert tok.apply_chat_template([ok], tokenize=False).startswith("<|im_start|>system")


def test_non_utf8_config_and_template_files_are_named(tmp_path):
    import shutil

    d = tmp_path / "model"
    d.mkdir()
    shutil.copy(FIXTURES / "qwen3" / "tokenizer.json", d / "tokenizer.json")
    (d / "tokenizer_config.json").write_bytes(b'{"bos_token": "\xff"}')
    with pytest.raises(yieldtok.TokenizerValueError, match=r"tokenizer_config\.json is not valid UTF-8 \(first invalid byte at offset 15\)"):
        yieldtok.Tokenizer.from_dir(d)
    (d / "tokenizer_config.json").unlink()
    (d / "chat_template.jinja").write_bytes(b"{{ messages }}\xc3(")
    with pytest.raises(yieldtok.TokenizerValueError, match=r"chat_template\.jinja is not valid UTF-8"):
        yieldtok.Tokenizer.from_dir(d)
