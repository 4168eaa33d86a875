#!/usr/bin/env python3
"""Build trajectory-group test cases (plain data in ART's shapes) for tests/oracle/art_oracle.py.

Every assistant turn becomes an OpenAI `Choice` dict whose sampled tokens are the ids the model
would have generated for that turn *as the chat template renders it*: the text between
`apply_chat_template(messages[:i], add_generation_prompt=True)` and
`apply_chat_template(messages[:i+1])`, cut after the first end-of-turn token (kept, as vLLM
returns it). Where the template drops tool calls (llama3_1's short template; deepseek_v3 once ART
has turned `content: null` into ""), the tool calls are written in that model family's own syntax
(Llama 3.1 JSON / DeepSeek-V3 tool-call tokens) so the sampled ids stay realistic. Logprobs are
seeded pseudo-random; `logprobs.content[i].token` is "token_id:<id>" (vLLM
return_tokens_as_token_ids) unless a case says otherwise; `bytes` are the token's raw bytes.

Sources:
  * ../shared/data/tau-airline-conversations.jsonl (+ tau-airline-tools.json) when present:
    groups = the 4 trials of one task (real 0/1 rewards), for qwen3, llama3_1 and deepseek_v3,
    with and without tools, additional histories, plain-dict assistant turns,
    allow_training_without_logprobs, `<think>` turns, token strings, extra_logprobs, error cases.
  * a small self-made set otherwise (also what --small writes: the repo's
    tests/fixtures/trajectories-small.json).
  * --bench: the issue-8 benchmark shape (8 groups x 5 trajectories x two ~20k-token stitched
    histories, qwen3, airline tools).

Needs transformers + jinja2 (the oracle venv). Does not import ART.

Usage:
    venv-art/bin/python tests/oracle/make_trajectories.py -o cases.json            # tau (or small)
    venv-art/bin/python tests/oracle/make_trajectories.py --small -o tests/fixtures/trajectories-small.json
    venv-art/bin/python tests/oracle/make_trajectories.py --bench -o bench.json
    options: --data DIR --fixtures DIR --tokenizers qwen3,llama3_1,deepseek_v3 --tasks N --seed N
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import sys
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from art_oracle import DEFAULT_FIXTURES, load_tokenizer  # noqa: E402

DEFAULT_DATA = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "data"))
END_OF_TURN = ("<|im_end|>", "<|eot_id|>", "<|eom_id|>", "<｜end▁of▁sentence｜>", "<end_of_turn>")


# --------------------------------------------------------------------------- token helpers


def _bytes_to_unicode() -> dict[int, str]:
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, (chr(c) for c in cs)))


_BYTE_DECODER = {c: b for b, c in _bytes_to_unicode().items()}


class Tok:
    """A tokenizer plus what the generators need (template rendering as ART calls it)."""

    def __init__(self, name: str, fixtures: str):
        self.name = name
        self.tok = load_tokenizer(os.path.join(fixtures, name))
        template = self.tok.chat_template if isinstance(self.tok.chat_template, str) else ""
        self.default_kwargs = {"enable_thinking": False} if "enable_thinking" in template else {}
        self.added = {i: t.content for i, t in self.tok.added_tokens_decoder.items()}
        self.end_ids = {self.tok.convert_tokens_to_ids(t) for t in END_OF_TURN}
        self.end_ids.discard(None)
        self.end_ids.discard(self.tok.unk_token_id)
        self.eos_id = self.tok.eos_token_id

    def token_bytes(self, i: int) -> list[int]:
        if i in self.added:
            return list(self.added[i].encode("utf-8"))
        s = self.tok.convert_ids_to_tokens(i)
        if s is None:
            return []
        try:
            return [_BYTE_DECODER[c] for c in s]
        except KeyError:  # not a byte-level vocab
            return list(s.encode("utf-8"))

    def render(self, messages, tools, **kw) -> str:
        kwargs = {**self.default_kwargs, **kw}
        return self.tok.apply_chat_template(messages, tools=tools, tokenize=False, **kwargs)

    def encode(self, text: str) -> list[int]:
        return self.tok.encode(text, add_special_tokens=False)


def art_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages as ART hands them to the template (content None -> "")."""
    out = []
    for m in messages:
        m = dict(m)
        if m.get("content") is None:
            m["content"] = ""
        out.append(m)
    return out


def tool_call_text(tok: Tok, tool_calls: list[dict[str, Any]]) -> str:
    if tok.name.startswith("deepseek"):
        calls = "".join(
            (
                "<｜tool▁call▁begin｜>function<｜tool▁sep｜>" + tc["function"]["name"] + "\n```json\n"
                + tc["function"]["arguments"] + "\n```<｜tool▁call▁end｜>"
            )
            for tc in tool_calls
        )
        return "<｜tool▁calls▁begin｜>" + calls + "<｜tool▁calls▁end｜>"
    return "; ".join(
        '{"name": "%s", "parameters": %s}' % (tc["function"]["name"], tc["function"]["arguments"]) for tc in tool_calls
    )


def sampled_ids(tok: Tok, messages: list[dict[str, Any]], i: int, tools, template_kwargs=None, window=False) -> list[int]:
    """Ids the model generated for assistant turn i, as the chat template renders that turn.
    window=True renders only from the last user message before turn i (and no tools): same ids
    for the templates here, at a fraction of the cost (used for the long benchmark histories)."""
    kw = template_kwargs or {}
    if window and i > 0:
        j = max((k for k in range(i) if messages[k]["role"] == "user"), default=0)
        messages, i, tools = messages[j : i + 1], i - j, None
    msgs = art_messages(messages[: i + 1])
    full = tok.render(msgs, tools, **kw)
    try:
        prefix = tok.render(msgs[:i], tools, add_generation_prompt=True, **kw) if i else ""
    except Exception:
        prefix = None
    message = messages[i]
    if prefix is not None and full.startswith(prefix):
        text = full[len(prefix) :]
    else:
        text = message.get("content") or ""
    ids = tok.encode(text)
    cut = next((k for k, t in enumerate(ids) if t in tok.end_ids), None)
    body = ids[:cut] if cut is not None else ids
    end = ids[cut] if cut is not None else tok.eos_id
    tool_calls = message.get("tool_calls")
    if tool_calls and tool_calls[0]["function"]["name"] not in tok.tok.decode(body):
        body = tok.encode((message.get("content") or "") + tool_call_text(tok, tool_calls))
    return body + [end]


def make_choice(
    tok: Tok,
    message: dict[str, Any],
    ids: list[int],
    rng: random.Random,
    *,
    token_format: str = "token_id",
    all_bytes: bool = True,
    extra: bool = False,
    logprobs: bool = True,
    compact: bool = False,
) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
    if message.get("tool_calls"):
        msg["tool_calls"] = copy.deepcopy(message["tool_calls"])
    choice: dict[str, Any] = {
        "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
        "index": 0,
        "message": msg,
        "logprobs": None,
    }
    if not logprobs:
        return choice
    entries = []
    for k, t in enumerate(ids):
        if token_format == "token_id":
            token = f"token_id:{t}"
        elif token_format == "vocab":
            token = tok.tok.convert_ids_to_tokens(t)
        else:  # decoded text, as vLLM returns without return_tokens_as_token_ids
            token = tok.tok.decode([t])
        e: dict[str, Any] = {
            "token": token,
            "logprob": round(-rng.expovariate(3.0), 3 if compact else 6),
            "bytes": tok.token_bytes(t) if (all_bytes or k == 0) else None,
            "top_logprobs": [],
        }
        if compact:  # the oracle fills top_logprobs=[]; bytes only matter on the first entry
            del e["top_logprobs"]
            if e["bytes"] is None:
                del e["bytes"]
        if extra and rng.random() < 0.7:
            e["extra_logprobs"] = {"ref": round(-rng.expovariate(3.0), 6) if rng.random() < 0.9 else None}
            if rng.random() < 0.3:
                e["extra_logprobs"]["old"] = round(-rng.expovariate(2.0), 6)
        entries.append(e)
    choice["logprobs"] = {"content": entries, "refusal": None}
    return choice


def build_items(
    tok: Tok,
    messages: list[dict[str, Any]],
    tools,
    rng: random.Random,
    *,
    dict_turn=lambda i, m: False,
    no_logprobs_turn=lambda i, m: False,
    template_kwargs=None,
    window=False,
    **choice_kw,
) -> list[Any]:
    items: list[Any] = []
    for i, m in enumerate(messages):
        if m["role"] != "assistant":
            items.append(copy.deepcopy(m))
        elif dict_turn(i, m):
            items.append(copy.deepcopy(m))
        else:
            ids = sampled_ids(tok, messages, i, tools, template_kwargs, window)
            items.append(make_choice(tok, m, ids, rng, logprobs=not no_logprobs_turn(i, m), **choice_kw))
    return items


def cut_after_last_assistant(messages):
    last = max(i for i, m in enumerate(messages) if m["role"] == "assistant")
    return messages[: last + 1]


# --------------------------------------------------------------------------- tau cases


def load_tau(data: str):
    rows = [json.loads(line) for line in open(os.path.join(data, "tau-airline-conversations.jsonl"), encoding="utf-8")]
    tools = json.load(open(os.path.join(data, "tau-airline-tools.json"), encoding="utf-8"))
    by_task: dict[int, list[dict]] = {}
    for r in rows:
        by_task.setdefault(r["task_id"], []).append(r)
    return by_task, tools


def tau_cases(tok: Tok, by_task, tau_tools, n_tasks: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(f"{seed}-{tok.name}")
    tasks = sorted(by_task)[:n_tasks]
    pack = {"seq_len": 16384, "pad_token_id": tok.eos_id, "truncate_long_results": False, "seed": seed}
    cases = []

    def group(task, tools, **kw):
        return [
            {
                "messages_and_choices": build_items(tok, r["messages"], tools, rng, **kw),
                "tools": tools,
                "reward": r["reward"],
            }
            for r in by_task[task]
        ]

    cases.append(
        {
            "name": f"{tok.name}-tau-tools",
            "options": {"seed": seed},
            "pack": pack,
            "groups": [group(t, tau_tools) for t in tasks],
        }
    )
    cases.append(
        {
            "name": f"{tok.name}-tau-notools-noshuffle",
            "options": {"shuffle_group_trajectories": False, "scale_rewards": False, "seed": seed},
            "pack": {**pack, "seq_len": 32768, "truncate_long_results": True, "advantage_balance": 0.5},
            "groups": [group(t, None) for t in tasks],
        }
    )
    # additional histories: each trajectory carries a second, sub-agent-like history made of a
    # prefix (up to some assistant turn) of another trial of the same task, without tools
    groups = []
    for t in tasks:
        g = []
        trials = by_task[t]
        for j, r in enumerate(trials):
            other = trials[(j + 1) % len(trials)]["messages"]
            k = rng.randrange(2, len(other))
            sub = cut_after_last_assistant(other[: k + 1]) if any(m["role"] == "assistant" for m in other[: k + 1]) else other
            g.append(
                {
                    "messages_and_choices": build_items(tok, r["messages"], tau_tools, rng, extra=True),
                    "tools": tau_tools,
                    "additional_histories": [{"messages_and_choices": build_items(tok, sub, None, rng), "tools": None}],
                    "reward": r["reward"] + rng.choice([0.0, 0.25]),
                }
            )
        groups.append(g)
    cases.append(
        {
            "name": f"{tok.name}-tau-additional-histories",
            "options": {"seed": seed + 1, "drop_zero_advantage_trajectories": False},
            "pack": {**pack, "seq_len": 24576, "pack_results": False, "advantage_balance": -0.3},
            "groups": groups,
        }
    )
    # plain-dict assistant turns (not trainable without allow_training_without_logprobs)
    cases.append(
        {
            "name": f"{tok.name}-tau-dict-turns",
            "options": {"seed": seed + 2},
            "pack": pack,
            "groups": [group(t, tau_tools, dict_turn=lambda i, m: i % 3 == 0) for t in tasks],
        }
    )
    # allow_training_without_logprobs: text turns as plain dicts (trained via encode(content)),
    # tool-calling turns as Choices, some of them without logprobs (never the last one)
    groups = []
    for t in tasks:
        g = []
        for r in by_task[t]:
            msgs = r["messages"]
            last_asst = max(i for i, m in enumerate(msgs) if m["role"] == "assistant")
            items = build_items(
                tok,
                msgs,
                tau_tools,
                rng,
                dict_turn=lambda i, m: not m.get("tool_calls") and i != last_asst,
                no_logprobs_turn=lambda i, m: i != last_asst and rng.random() < 0.3,
            )
            g.append({"messages_and_choices": items, "tools": tau_tools, "reward": r["reward"]})
        groups.append(g)
    cases.append(
        {
            "name": f"{tok.name}-tau-allow-without-logprobs",
            "options": {"allow_training_without_logprobs": True, "seed": seed + 3},
            "pack": pack,
            "groups": groups,
        }
    )
    # token strings instead of token_id:<id>
    t0 = next((t for t in tasks if len({r["reward"] for r in by_task[t]}) > 1), tasks[0])
    cases.append(
        {
            "name": f"{tok.name}-tau-vocab-token-strings",
            "options": {"seed": seed + 4, "shuffle_group_trajectories": False, "drop_zero_advantage_trajectories": False},
            "groups": [group(t0, tau_tools, token_format="vocab", all_bytes=False)],
        }
    )
    cases.append(
        {
            "name": f"{tok.name}-tau-decoded-token-strings",
            "options": {"seed": seed + 5, "shuffle_group_trajectories": False, "drop_zero_advantage_trajectories": False},
            "groups": [group(t0, tau_tools, token_format="text", all_bytes=False)],
        }
    )
    if "enable_thinking" in tok.default_kwargs:
        # the model thought: sampled ids start with <think> (rendered with enable_thinking=True)
        kw = {"enable_thinking": True}
        cases.append(
            {
                "name": f"{tok.name}-tau-thinking",
                "options": {"seed": seed + 6, "chat_template_kwargs": kw},
                "pack": pack,
                "groups": [group(t, tau_tools, template_kwargs=kw) for t in tasks[:3]],
            }
        )
        cases.append(
            {
                "name": f"{tok.name}-tau-thinking-sampled-default-kwargs",
                "options": {"seed": seed + 7},
                "groups": [group(t, tau_tools, template_kwargs=kw) for t in tasks[:3]],
            }
        )
    with_tool_calls = next(
        (r["messages"] for t in tasks for r in by_task[t] if any(m.get("tool_calls") for m in r["messages"])),
        by_task[t0][0]["messages"],
    )
    cases.extend(error_cases(tok, with_tool_calls, tau_tools, rng, prefix=f"{tok.name}-tau"))
    for c in cases:
        c["tokenizer"] = tok.name
    return cases


def error_cases(tok: Tok, msgs, tools, rng, prefix: str) -> list[dict[str, Any]]:
    """Cases where ART raises, or silently does something odd (per_history shows each history)."""
    last_asst = max(i for i, m in enumerate(msgs) if m["role"] == "assistant")
    tc_turn = next((i for i, m in enumerate(msgs) if m["role"] == "assistant" and m.get("tool_calls")), None)
    ok = {"messages_and_choices": build_items(tok, msgs, tools, rng), "tools": tools, "reward": 1.0}
    cases = []

    def case(name, traj, **opts):
        cases.append(
            {
                "name": f"{prefix}-{name}",
                "options": {"per_history": True, "shuffle_group_trajectories": False, **opts},
                "groups": [[ok, traj]],
            }
        )

    # final Choice without logprobs, allow_training_without_logprobs -> ValueError (sentinel not found)
    case(
        "error-final-choice-no-logprobs",
        {"messages_and_choices": build_items(tok, msgs, tools, rng, no_logprobs_turn=lambda i, m: i == last_asst), "tools": tools, "reward": 0.0},
        allow_training_without_logprobs=True,
    )
    # same without allow: the last Choice *with* logprobs is the final trainable one (no error)
    case(
        "final-choice-no-logprobs-not-allowed",
        {"messages_and_choices": build_items(tok, msgs, tools, rng, no_logprobs_turn=lambda i, m: i == last_asst), "tools": tools, "reward": 0.0},
    )
    if tc_turn is not None:
        # plain-dict assistant with tool_calls, allow -> ValueError
        case(
            "error-dict-tool-calls-allowed",
            {"messages_and_choices": build_items(tok, msgs, tools, rng, dict_turn=lambda i, m: i == tc_turn), "tools": tools, "reward": 0.0},
            allow_training_without_logprobs=True,
        )
    # plain-dict assistant with content None and no tool calls, allow -> AssertionError
    bad = build_items(tok, msgs, tools, rng)
    bad.insert(1, {"role": "assistant", "content": None})
    case("error-dict-content-null-allowed", {"messages_and_choices": bad, "tools": tools, "reward": 0.0}, allow_training_without_logprobs=True)
    # Choice dict whose sampled ids contain an id outside the vocabulary: ART does not check
    items = build_items(tok, msgs, tools, rng)
    for it in items:
        if isinstance(it, dict) and "message" in it:
            it["logprobs"]["content"][0]["token"] = f"token_id:{len(tok.tok) + 1000}"
            break
    case("oov-sampled-id", {"messages_and_choices": items, "tools": tools, "reward": 0.0})
    # sentinel collision: a sampled id equal to ART's sentinel in an early Choice
    plain = tok.tok.apply_chat_template(art_messages(msgs), tools=tools, tokenize=True, return_dict=False, **tok.default_kwargs)
    sentinel = max(set(range(tok.tok.vocab_size)) - set(plain))
    items = build_items(tok, msgs, tools, rng)
    for it in items:
        if isinstance(it, dict) and "message" in it:
            it["logprobs"]["content"].insert(1, {"token": f"token_id:{sentinel}", "logprob": -1.0, "bytes": tok.token_bytes(sentinel), "top_logprobs": []})
            break
    case("sentinel-collision", {"messages_and_choices": items, "tools": tools, "reward": 0.0})
    # a Choice with logprobs {"content": []} (truthy, trainable, splices nothing)
    items = build_items(tok, msgs, tools, rng)
    first = next(k for k, it in enumerate(items) if isinstance(it, dict) and "message" in it)
    items[first]["logprobs"]["content"] = []
    case("empty-logprobs-content", {"messages_and_choices": items, "tools": tools, "reward": 0.0})
    # no trainable message at all -> tokenize_trajectory returns None
    case(
        "no-trainable-history",
        {"messages_and_choices": [copy.deepcopy(m) for m in msgs], "tools": tools, "reward": 0.0},
    )
    for c in cases:
        c["tokenizer"] = tok.name
    return cases


# --------------------------------------------------------------------------- small self-made set


SMALL_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather for a city ('today' only).",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string", "description": "City name"}},
                "required": ["city"],
            },
        },
    }
]


def small_conversations() -> list[list[dict[str, Any]]]:
    sys_msg = {"role": "system", "content": "You are a terse assistant."}
    call = lambda i, city: {  # noqa: E731
        "id": f"call_{i}",
        "type": "function",
        "function": {"name": "get_weather", "arguments": json.dumps({"city": city}, ensure_ascii=False)},
    }
    return [
        [
            sys_msg,
            {"role": "user", "content": "Weather in Zürich?"},
            {"role": "assistant", "content": None, "tool_calls": [call(1, "Zürich")]},
            {"role": "tool", "tool_call_id": "call_1", "name": "get_weather", "content": '{"temp_c": 21, "sky": "sunny"}'},
            {"role": "assistant", "content": "Sunny, 21 °C."},
        ],
        [
            sys_msg,
            {"role": "user", "content": "Weather in 東京?"},
            {"role": "assistant", "content": "Checking.", "tool_calls": [call(2, "東京")]},
            {"role": "tool", "tool_call_id": "call_2", "name": "get_weather", "content": '{"temp_c": 18, "sky": "rain"}'},
            {"role": "assistant", "content": "Rain, 18 °C ☔"},
        ],
        [
            {"role": "user", "content": "Say hi."},
            {"role": "assistant", "content": "Hi!"},
            {"role": "user", "content": "Again, louder."},
            {"role": "assistant", "content": "HI!"},
        ],
    ]


def small_cases(tok: Tok, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(f"{seed}-small-{tok.name}")
    convs = small_conversations()
    ck = dict(all_bytes=False, compact=True)
    cases = []

    def traj(conv, tools, reward, **kw):
        return {"messages_and_choices": build_items(tok, conv, tools, rng, **{**ck, **kw}), "tools": tools, "reward": reward}

    cases.append(
        {
            "name": f"{tok.name}-small-basic",
            "options": {"seed": seed},
            "pack": {"seq_len": 512, "pad_token_id": tok.eos_id, "seed": seed},
            "groups": [
                [traj(convs[0], SMALL_TOOLS, 1.0), traj(convs[1], SMALL_TOOLS, 0.0, extra=True), traj(convs[0], SMALL_TOOLS, 0.5)],
                [traj(convs[2], None, 1.0), traj(convs[2], None, 1.0)],  # zero advantage: dropped
            ],
        }
    )
    full = tok.name == "qwen3"  # the other tokenizers get a subset, to keep the repo fixture small
    if full:
        cases.append(
            {
                "name": f"{tok.name}-small-histories-dicts",
                "options": {"seed": seed + 1, "shuffle_group_trajectories": False, "scale_rewards": False, "drop_zero_advantage_trajectories": False},
                "pack": {"seq_len": 256, "truncate_long_results": True, "advantage_balance": 0.5, "seed": seed},
                "groups": [
                    [
                        {**traj(convs[1], SMALL_TOOLS, 1.0), "additional_histories": [{"messages_and_choices": build_items(tok, convs[2], None, rng, **ck)}]},
                        traj(convs[2], None, 0.0, dict_turn=lambda i, m: i == 1),
                        traj(convs[2], None, 0.0, dict_turn=lambda i, m: True),  # nothing trainable
                    ]
                ],
            }
        )
    cases.append(
        {
            "name": f"{tok.name}-small-allow",
            "options": {"seed": seed + 2, "allow_training_without_logprobs": True, "per_history": True},
            "pack": {"seq_len": 1024, "pack_results": False, "advantage_balance": -0.5, "seed": seed},
            "groups": [
                [
                    traj(convs[2], None, 1.0, dict_turn=lambda i, m: i == 1),
                    traj(convs[2], None, 0.0, dict_turn=lambda i, m: i == 3, token_format="vocab"),
                    traj(convs[0], SMALL_TOOLS, 0.25, no_logprobs_turn=lambda i, m: i == 2),
                ]
            ],
        }
    )
    if full:
        cases.append(
            {
                "name": f"{tok.name}-small-errors",
                "options": {"seed": seed + 3, "allow_training_without_logprobs": True, "per_history": True, "shuffle_group_trajectories": False},
                "groups": [
                    [
                        traj(convs[2], None, 1.0),
                        traj(convs[0], SMALL_TOOLS, 0.0, dict_turn=lambda i, m: i == 2),  # dict with tool_calls
                        traj(convs[2], None, 0.5, no_logprobs_turn=lambda i, m: i == 3),  # final Choice, no logprobs
                    ]
                ],
            }
        )
    if "enable_thinking" in tok.default_kwargs:
        kw = {"enable_thinking": True}
        think = [dict(m) for m in convs[2]]
        think[3] = {"role": "assistant", "content": "<think>\nThey want it louder.\n</think>\n\nHI!"}
        cases.append(
            {
                "name": f"{tok.name}-small-think",
                "options": {"seed": seed + 4, "shuffle_group_trajectories": False, "drop_zero_advantage_trajectories": False},
                "pack": {"seq_len": 128, "seed": seed},
                "groups": [
                    [
                        traj(think, None, 1.0, template_kwargs=kw),
                        traj(convs[2], None, 0.0, template_kwargs=kw),
                        {**traj(think, None, 0.5, template_kwargs=kw), "additional_histories": [{"messages_and_choices": build_items(tok, think, None, rng, **ck)}]},
                    ]
                ],
            }
        )
        cases.append(
            {
                "name": f"{tok.name}-small-think-enabled",
                "options": {"seed": seed + 5, "chat_template_kwargs": kw, "shuffle_group_trajectories": False},
                "groups": [[traj(think, None, 1.0, template_kwargs=kw), traj(convs[2], None, 0.0, template_kwargs=kw)]],
            }
        )
    for c in cases:
        c["tokenizer"] = tok.name
    return cases


# --------------------------------------------------------------------------- benchmark workload


def bench_groups(tok: Tok, by_task, tau_tools, seed: int, n_groups=8, n_traj=5, n_hist=2, target_tokens=16500):
    """8 groups x 5 trajectories x two ~20k-token histories stitched from real conversations."""
    rng = random.Random(f"{seed}-bench")
    convs = [r["messages"] for t in sorted(by_task) for r in by_task[t]]
    system = convs[0][0]
    sys_tokens = len(tok.encode(tok.render([system], tau_tools)))

    def stitched():
        msgs = [system]
        n = sys_tokens
        while n < target_tokens:
            c = rng.choice(convs)
            body = [m for m in c if m["role"] != "system"]
            msgs.extend(copy.deepcopy(body))
            n += sum(len(tok.encode(json.dumps(m, ensure_ascii=False))) for m in body) * 0.8
        return cut_after_last_assistant(msgs)

    groups = []
    for g in range(n_groups):
        trajs = []
        for t in range(n_traj):
            hists = [stitched() for _ in range(n_hist)]
            items = [build_items(tok, h, tau_tools, rng, window=True) for h in hists]
            trajs.append(
                {
                    "messages_and_choices": items[0],
                    "tools": tau_tools,
                    "additional_histories": [{"messages_and_choices": it, "tools": tau_tools} for it in items[1:]],
                    "reward": float(rng.random() < 0.5) + rng.random() * 0.1,
                }
            )
        groups.append(trajs)
    return groups


# --------------------------------------------------------------------------- main


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--data", default=DEFAULT_DATA)
    ap.add_argument("--fixtures", default=DEFAULT_FIXTURES)
    ap.add_argument("--tokenizers", default="qwen3,llama3_1,deepseek_v3")
    ap.add_argument("--tasks", type=int, default=6, help="tau tasks (groups of 4 trials) per case")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--small", action="store_true", help="only the small self-made set")
    ap.add_argument("--bench", action="store_true", help="the issue-8 benchmark workload (qwen3)")
    args = ap.parse_args(argv)

    have_tau = os.path.exists(os.path.join(args.data, "tau-airline-conversations.jsonl"))
    names = [n for n in args.tokenizers.split(",") if n]
    if args.bench:
        if not have_tau:
            sys.exit("make_trajectories: --bench needs tau-airline-conversations.jsonl")
        by_task, tau_tools = load_tau(args.data)
        tok = Tok(names[0] if args.tokenizers != "qwen3,llama3_1,deepseek_v3" else "qwen3", args.fixtures)
        doc = {
            "tokenizer": tok.name,
            "options": {"seed": args.seed},
            "pack": {"seq_len": 65536, "pad_token_id": tok.eos_id, "truncate_long_results": False, "seed": args.seed},
            "groups": bench_groups(tok, by_task, tau_tools, args.seed),
        }
    else:
        cases = []
        for name in names:
            tok = Tok(name, args.fixtures)
            cases.extend(small_cases(tok, args.seed))
            if have_tau and not args.small:
                by_task, tau_tools = load_tau(args.data)
                cases.extend(tau_cases(tok, by_task, tau_tools, args.tasks, args.seed))
        doc = {"cases": cases}
    with open(args.output, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {args.output} ({os.path.getsize(args.output)} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
