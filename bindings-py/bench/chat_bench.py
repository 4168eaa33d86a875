"""Chat-template benchmark (issue 7, issue 15): render + tokenize a ~20k-token tool-using
conversation with the qwen3 template — transformers 5's ``apply_chat_template`` (default: a dict)
vs yieldtok's, and a batch of 8 of its prefixes padded and truncated to numpy arrays — side by
side in one process, medians of several runs, ratio. Checks the results are identical first.

    .venv/bin/pip install 'transformers==5.24.0'      # the peer
    .venv/bin/python bindings-py/bench/chat_bench.py [--runs 15] [--tokens 20000]
    (or any Python with transformers: PYTHONPATH=<dir with the yieldtok wheel installed>)

Conversations come from ../shared/data (tau-bench airline transcripts with their 14 tools)
when present, else from a built-in tool-calling dialogue.
"""

import argparse
import json
import statistics
import time
from pathlib import Path

import yieldtok

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / ".cache" / "fixtures" / "qwen3"
DATA = ROOT.parent / "shared" / "data"


def conversation(target_tokens, tok):
    tools = None
    msgs = [{"role": "system", "content": "You are an airline support agent. Use the tools."}]
    pool = []
    if (DATA / "tau-airline-conversations.jsonl").exists():
        tools = json.loads((DATA / "tau-airline-tools.json").read_text())
        for line in (DATA / "tau-airline-conversations.jsonl").read_text().splitlines():
            pool.extend(m for m in json.loads(line)["messages"] if m["role"] != "system")
    else:
        tools = [{"type": "function", "function": {"name": "get_reservation", "description": "Look up a reservation by id.",
                  "parameters": {"type": "object", "properties": {"reservation_id": {"type": "string"}}, "required": ["reservation_id"]}}}]
        for i in range(400):
            pool += [
                {"role": "user", "content": f"Please check reservation R{i:04d}; I need to change the date to May {i % 28 + 1}."},
                {"role": "assistant", "content": "", "tool_calls": [{"id": f"c{i}", "type": "function", "function": {"name": "get_reservation", "arguments": json.dumps({"reservation_id": f"R{i:04d}"})}}]},
                {"role": "tool", "tool_call_id": f"c{i}", "name": "get_reservation", "content": json.dumps({"id": f"R{i:04d}", "flights": [{"from": "SFO", "to": "JFK", "date": f"2024-05-{i % 28 + 1:02d}"}], "status": "confirmed"})},
                {"role": "assistant", "content": f"Reservation R{i:04d} is confirmed; I can move it to May {i % 28 + 1}. Shall I proceed?"},
            ]
    for m in pool:
        m = dict(m)
        if m.get("content") is None:
            m["content"] = ""
        msgs.append(m)
        if len(msgs) % 20 == 0 and len(tok.apply_chat_template(msgs, tools=tools, return_dict=False)) >= target_tokens:
            break
    while msgs[-1]["role"] != "user" and msgs[-1]["role"] != "tool" and len(msgs) > 2:
        msgs.pop()
    return msgs, tools


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--tokens", type=int, default=20000)
    a = ap.parse_args()
    from transformers import PreTrainedTokenizerFast
    import transformers

    cfg = json.loads((FIX / "tokenizer_config.json").read_text())
    special = {k: (v["content"] if isinstance(v, dict) else v) for k, v in cfg.items() if k.endswith("_token") and v}
    hf = PreTrainedTokenizerFast(tokenizer_file=str(FIX / "tokenizer.json"), **special)
    hf.chat_template = cfg["chat_template"]
    yt = yieldtok.Tokenizer.from_dir(FIX)
    # The fast ids-only engine loads in the background on first ids-only use; a server warms it
    # up once at start. Measure with it ready (the reference engine alone is the other row).
    engine = yt.wait_for_engine()
    msgs, tools = conversation(a.tokens, yt)
    kw = dict(tools=tools, add_generation_prompt=True, enable_thinking=False)
    ours = yt.apply_chat_template(msgs, **kw)  # transformers 5: a dict by default, on both sides
    theirs = hf.apply_chat_template(msgs, **kw)
    assert dict(theirs) == ours, "results differ"
    # a batch of conversations, padded and truncated (training-style): 8 prefixes of the conversation
    batch = [msgs[: max(2, len(msgs) * (i + 1) // 8)] for i in range(8)]
    bkw = dict(kw, padding=True, truncation=True, max_length=8192, return_tensors="np")
    ob, tb = yt.apply_chat_template(batch, **bkw), hf.apply_chat_template(batch, **bkw)
    assert list(ob) == list(tb) and all((ob[k] == tb[k]).all() for k in ob), "batch results differ"
    def timed(f):
        out = []
        for _ in range(a.runs):
            t = time.perf_counter()
            c = time.process_time()
            f()
            out.append((time.perf_counter() - t, time.process_time() - c))
        return statistics.median(x[0] for x in out) * 1e3, statistics.median(x[1] for x in out) * 1e3
    hw, hc = timed(lambda: hf.apply_chat_template(msgs, **kw))
    yw, yc = timed(lambda: yt.apply_chat_template(msgs, **kw))
    rw, rc = timed(lambda: yt.apply_chat_template(msgs, tokenize=False, **kw))
    hbw, hbc = timed(lambda: hf.apply_chat_template(batch, **bkw))
    ybw, ybc = timed(lambda: yt.apply_chat_template(batch, **bkw))
    n = len(ours["input_ids"])
    print(f"conversation: {len(msgs)} messages, {len(tools or [])} tools, {n} tokens; transformers {transformers.__version__}; results identical")
    print("| render + tokenize | wall ms | CPU ms |")
    print("|---|---|---|")
    print(f"| transformers apply_chat_template (default: dict) | {hw:.2f} | {hc:.2f} |")
    print(f"| yieldtok apply_chat_template (default: dict; ids by the {engine} engine) | {yw:.2f} | {yc:.2f} |")
    print(f"| yieldtok apply_chat_template(tokenize=False), render only | {rw:.2f} | {rc:.2f} |")
    print(f"| transformers, batch of 8 prefixes, padding+truncation (8192)+np | {hbw:.2f} | {hbc:.2f} |")
    print(f"| yieldtok, the same batch | {ybw:.2f} | {ybc:.2f} |")
    print(f"speedup: {hw / yw:.1f}x wall, {hc / yc:.1f}x CPU (target >= 10x); batch {hbw / ybw:.1f}x wall, {hbc / ybc:.1f}x CPU")


if __name__ == "__main__":
    main()
