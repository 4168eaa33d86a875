#!/usr/bin/env python3
"""Streaming detokenization: N streams stepped by one id each per generated token, yieldtok's
one-call `DecodeStream.step_many` against a Python loop over `tokenizers`' `DecodeStream.step`
(what vLLM runs per step) and a Python loop over yieldtok's own `step`, side by side in one
process. Reports per-step cost (µs per stream per step) and the ratio, for N = 1 … 8192.

    .venv/bin/python bindings-py/bench/stream_bench.py                  # qwen3, medians of 5
    .venv/bin/python bindings-py/bench/stream_bench.py --fixture llama2 --runs 7 --n 2048

Each stream decodes its own slice of real conversation text (shared/data when present, else a
synthetic multilingual corpus), so the streams hold different, realistic windows. Timing is
wall time of the whole step across all N streams (one thread calling; step_many uses the pool
for large N), median of --runs repetitions of --steps steps each.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))

from bench import shared_conversations, synthetic_messages  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fixture", default="qwen3")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--steps", type=int, default=32)
    ap.add_argument("--n", type=int, nargs="*", default=[1, 8, 64, 512, 2048, 8192])
    args = ap.parse_args()

    import tokenizers
    from tokenizers.decoders import DecodeStream as HfStream

    import yieldtok

    d = REPO / ".cache" / "fixtures" / args.fixture
    yt = yieldtok.Tokenizer.from_dir(d)
    hf = tokenizers.Tokenizer.from_file(str(d / "tokenizer.json"))
    texts = shared_conversations() or synthetic_messages(4000)
    ids = hf.encode("\n".join(texts[:3000])).ids
    print(f"# {args.fixture}: {len(ids)} ids of text; median of {args.runs} runs x {args.steps} steps; tokenizers {tokenizers.__version__}")
    print(f"{'N':>6} {'tokenizers loop':>16} {'yieldtok loop':>14} {'step_many':>10}   step_many vs tokenizers (us per stream-step)")
    for n in args.n:
        starts = [(i * 7919) % max(1, len(ids) - args.steps - 1) for i in range(n)]

        def loop(stream_class, tok):
            """One Python `step` call per stream per generated token."""
            streams = [stream_class(skip_special_tokens=False) for _ in range(n)]
            t = time.perf_counter()
            for k in range(args.steps):
                for s, st in zip(streams, starts):
                    s.step(tok, ids[st + k])
            return time.perf_counter() - t

        def yt_many():
            streams = [yieldtok.DecodeStream(skip_special_tokens=False) for _ in range(n)]
            step = yieldtok.DecodeStream.step_many
            t = time.perf_counter()
            for k in range(args.steps):
                step(yt, streams, [ids[st + k] for st in starts])
            return time.perf_counter() - t

        per = n * args.steps / 1e6
        a = statistics.median(loop(HfStream, hf) for _ in range(args.runs)) / per
        b = statistics.median(loop(yieldtok.DecodeStream, yt) for _ in range(args.runs)) / per
        c = statistics.median(yt_many() for _ in range(args.runs)) / per
        print(f"{n:>6} {a:>14.3f}us {b:>12.3f}us {c:>8.3f}us   {a / c:.1f}x")


if __name__ == "__main__":
    main()
