#!/usr/bin/env python3
"""Trajectory tokenization and packing from Python (issue 8), side by side with OpenPipe ART 0.5.18.

The workload is issue 8's: `tests/oracle/make_trajectories.py --bench` (8 groups x 5 trajectories
x two ~16.5k-token histories stitched from ../shared/data tau-airline conversations, airline
tools, every assistant turn a Choice with one `token_id:<id>` entry per sampled token; qwen3),
built once into .cache/bench/ (needs transformers: the ART venv or the oracle venv).

Measured in this process, medians of --runs runs, wall and CPU seconds (all threads):
  1. Python dicts -> results -> numpy views (`tok.tokenize_trajectory_groups(groups)` and each
     result's token_ids / assistant_mask / logprobs arrays); the convert share (Python objects ->
     JSON text, GIL held) is measured separately with the binding doing only that (all rewards
     equal, so every trajectory is dropped after parsing) and the parse share likewise from bytes;
  2. JSON bytes -> results -> numpy views, and the same awaited on AsyncTokenizer;
  3. packing the results (seq_len 65536, pack_results=True, as the workload says);
  4. linearity: the workload doubled (16 groups), dicts and bytes, x1 and x2 runs alternating
     in the same process state (measured apart, x2 ran later, after the packing, in a process
     holding ~155 MB more, and came out 2.22-2.27x; alternating, ~2.0x);
  5. peak memory above the baseline, in a fresh subprocess per input form, against the input
     JSON size.
If /work/scratch/venv-art/bin/python exists (or --art-python), ART 0.5.18 runs on the same input
in subprocesses (`tests/oracle/art_oracle.py --timing --no-chat`: single process, tokenize and
pack timed inside on ready pydantic objects), its results are compared with ours (token ids,
masks, prompt ids/lengths, packed tokens and group ids), and the ratios are printed.

Usage:
    .venv/bin/python bindings-py/bench/trajectory_bench.py [--runs 5] [--art-runs 3] [--no-art]
        [--input bench.json] [--art-python PATH] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
CACHE = REPO / ".cache" / "bench"
DEFAULT_INPUT = CACHE / "trajectories-bench.json"
ART_PYTHON = pathlib.Path("/work/scratch/venv-art/bin/python")
ORACLE_PYTHON = REPO / ".cache" / "venv-oracle" / "bin" / "python"

TARGETS = {
    "dicts_tok_s": 1.5e6,
    "bytes_tok_s": 3.0e6,
    "vs_art_cpu": 20.0,
    "pack_vs_art": 20.0,
    "linearity": 0.10,
    "memory_x": 3.0,
}


def fixtures_root() -> pathlib.Path:
    return pathlib.Path(os.environ.get("YIELDTOK_FIXTURES") or REPO / ".cache" / "fixtures")


def load_average() -> str:
    try:
        return "load average %.2f, %.2f, %.2f" % os.getloadavg()
    except OSError:
        return "load average n/a"


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return load_average()


def ensure_input(path: pathlib.Path) -> pathlib.Path:
    if path.is_file():
        return path
    if path != DEFAULT_INPUT:
        sys.exit(f"trajectory_bench: {path} does not exist")
    py = next((p for p in (ART_PYTHON, ORACLE_PYTHON) if p.is_file()), None)
    if py is None:
        sys.exit("trajectory_bench: building the workload needs transformers (/work/scratch/venv-art or .cache/venv-oracle)")
    CACHE.mkdir(parents=True, exist_ok=True)
    print(f"building the workload with {py} tests/oracle/make_trajectories.py --bench ...", flush=True)
    subprocess.run([str(py), str(REPO / "tests/oracle/make_trajectories.py"), "--bench", "-o", str(path)], check=True)
    return path


class Clock:
    def __enter__(self):
        gc.collect()
        self.w, self.c = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall, self.cpu = time.perf_counter() - self.w, time.process_time() - self.c


def median_runs(fn, runs: int):
    walls, cpus, out = [], [], None
    for _ in range(runs):
        out = None
        gc.collect()
        with Clock() as c:
            out = fn()
        walls.append(c.wall)
        cpus.append(c.cpu)
    return statistics.median(walls), statistics.median(cpus), out


def median_pair(fn1, fn2, runs: int):
    """Medians of `fn1` and `fn2` run alternately (order flipped every round), wall and CPU."""
    r1, r2 = [], []
    for i in range(runs):
        for which in ((1, 2) if i % 2 else (2, 1)):
            gc.collect()
            with Clock() as c:
                (fn1 if which == 1 else fn2)()
            (r1 if which == 1 else r2).append((c.wall, c.cpu))
    med = lambda r, k: statistics.median(x[k] for x in r)  # noqa: E731
    return med(r1, 0), med(r1, 1), med(r2, 0), med(r2, 1)


def views(results):
    """What a trainer touches: the per-token numpy views of every result."""
    return [(r.token_ids, r.assistant_mask, r.logprobs) for r in results]


def fmt_rate(tokens: int, seconds: float) -> str:
    return f"{tokens / seconds / 1e6:6.2f}M tok/s" if seconds > 0 else "     n/a"


# ---- memory (fresh subprocess) ----------------------------------------------------------------

MEM_CHILD = r"""
import gc, json, sys, time
import yieldtok
def status(key):
    for line in open('/proc/self/status'):
        if line.startswith(key + ':'):
            return int(line.split()[1]) * 1024
mode, path, fixtures, pack = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
tok = yieldtok.Tokenizer.from_dir(fixtures)
tok.wait_for_engine()
tok.tokenize_trajectory_groups([[]])  # prepare the template
raw = open(path, 'rb').read()
data = json.loads(raw) if mode == 'dicts' else raw
if mode == 'dicts':
    del raw
gc.collect()
base = status('VmRSS')
open('/proc/self/clear_refs', 'w').write('5')  # reset the peak to now
results = tok.tokenize_trajectory_groups(data, seed=0)
v = [(r.token_ids, r.assistant_mask, r.logprobs) for r in results]
peak_tok = status('VmHWM')
packed = yieldtok.packed_tensors_from_tokenized_results(results, **pack)
peak_all = status('VmHWM')
held = status('VmRSS')
print(json.dumps({'base': base, 'peak_tokenize': peak_tok - base, 'peak_total': peak_all - base, 'held': held - base}))
"""


def memory(mode: str, groups_path: pathlib.Path, pack: dict) -> dict | None:
    if not pathlib.Path("/proc/self/clear_refs").exists():
        return None
    r = subprocess.run(
        [sys.executable, "-c", MEM_CHILD, mode, str(groups_path), str(fixtures_root() / "qwen3"), json.dumps(pack)],
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        print(f"  memory ({mode}) failed: {r.stderr.strip()[-400:]}")
        return None
    return json.loads(r.stdout)


# ---- ART ---------------------------------------------------------------------------------------


def art_run(art_python: pathlib.Path, input_path: pathlib.Path, out_path: pathlib.Path) -> dict:
    env = dict(os.environ, YIELDTOK_FIXTURES=str(fixtures_root()))
    cmd = [
        str(art_python),
        str(REPO / "tests/oracle/art_oracle.py"),
        str(input_path),
        "--timing",
        "--no-chat",
        "--fixtures",
        str(fixtures_root()),
        "-o",
        str(out_path),
    ]
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    with open(out_path, encoding="utf-8") as f:
        return json.load(f)


def compare_with_art(results, packed, art: dict) -> list[str]:
    """Differences between our results and ART's (seeded, so identical draws)."""
    bad = []
    arts = art.get("results") or []
    if len(arts) != len(results):
        return [f"{len(results)} results vs ART's {len(arts)}"]
    for i, (r, a) in enumerate(zip(results, arts)):
        if r.token_ids.tolist() != a["token_ids"]:
            bad.append(f"result {i}: token_ids")
        if r.assistant_mask.tolist() != a["assistant_mask"]:
            bad.append(f"result {i}: assistant_mask")
        if (r.prompt_id, r.prompt_length) != (a["prompt_id"], a["prompt_length"]):
            bad.append(f"result {i}: prompt_id/prompt_length")
        if abs(r.weight - a["weight"]) > 1e-6 * max(1.0, abs(a["weight"])):
            bad.append(f"result {i}: weight")
    p = art.get("packed") or {}
    if p.get("ok"):
        for key in ("tokens", "group_ids"):
            t = p[key]
            rows = [list(row) + [t.get("pad")] * (t["shape"][1] - len(row)) if "pad" in t else row for row in t["data"]]
            if packed[key].tolist() != rows:
                bad.append(f"packed {key}")
    return bad


# ---- main --------------------------------------------------------------------------------------


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--input", type=pathlib.Path, default=DEFAULT_INPUT)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--art-runs", type=int, default=3)
    ap.add_argument("--art-python", type=pathlib.Path, default=ART_PYTHON)
    ap.add_argument("--no-art", action="store_true")
    ap.add_argument("--json", type=pathlib.Path, help="also write the figures here")
    args = ap.parse_args()

    import numpy  # noqa: F401  (the views need it)

    import yieldtok

    start_uptime = uptime()
    print(f"trajectory_bench: {start_uptime}; {os.cpu_count()} CPUs; yieldtok {yieldtok.__version__}; "
          f"scheduler {yieldtok.scheduler_info()['threads']} threads; Python {sys.version.split()[0]}")
    path = ensure_input(args.input)
    raw = path.read_bytes()
    doc = json.loads(raw)
    groups = doc["groups"]
    seed = (doc.get("options") or {}).get("seed", 0)
    pack = {"seq_len": 65536, "pad_token_id": -100, "truncate_long_results": True, "pack_results": True, "seed": 0}
    pack.update(doc.get("pack") or {})
    tok = yieldtok.Tokenizer.from_dir(fixtures_root() / doc.get("tokenizer", "qwen3"))
    tok.wait_for_engine()
    groups_bytes = json.dumps(groups, ensure_ascii=False, separators=(",", ":")).encode()
    CACHE.mkdir(parents=True, exist_ok=True)
    groups_path = CACHE / "trajectories-bench.groups.json"
    if not groups_path.is_file() or groups_path.stat().st_size != len(groups_bytes):
        groups_path.write_bytes(groups_bytes)
    # the same documents with every reward equal: each trajectory is dropped right after
    # parsing, so a call measures conversion + parsing only
    flat = [[dict(t, reward=0.0) for t in g] for g in groups]
    flat_bytes = json.dumps(flat, ensure_ascii=False, separators=(",", ":")).encode()

    n_traj = sum(len(g) for g in groups)
    n_hist = sum(1 + len(t.get("additional_histories", [])) for g in groups for t in g)
    n_choices = sum(
        1 for g in groups for t in g for h in [t] + t.get("additional_histories", []) for m in h["messages_and_choices"] if "message" in m and "role" not in m
    )
    print(f"workload: {path} ({len(raw) / 1e6:.1f} MB; groups only {len(groups_bytes) / 1e6:.1f} MB), "
          f"{len(groups)} groups, {n_traj} trajectories, {n_hist} histories, {n_choices} Choices")

    tok.tokenize_trajectory_groups(groups_bytes, seed=seed)  # warm-up (template, engine, pool)
    R = args.runs
    fig: dict = {"uptime_start": start_uptime, "runs": R}

    # 1-2. tokenization
    w_d, c_d, _ = median_runs(lambda: views(tok.tokenize_trajectory_groups(groups, seed=seed)), R)
    results = tok.tokenize_trajectory_groups(groups, seed=seed)
    tokens = sum(len(r) for r in results)
    sampled = sum(r.trainable_tokens for r in results)
    w_b, c_b, _ = median_runs(lambda: views(tok.tokenize_trajectory_groups(groups_bytes, seed=seed)), R)
    w_conv, c_conv, _ = median_runs(lambda: tok.tokenize_trajectory_groups(flat, seed=seed), R)
    w_parse, c_parse, _ = median_runs(lambda: tok.tokenize_trajectory_groups(flat_bytes, seed=seed), R)
    atok = yieldtok.AsyncTokenizer(tok)

    async def awaited():
        return views(await atok.tokenize_trajectory_groups(groups_bytes, seed=seed))

    w_a, c_a, _ = median_runs(lambda: asyncio.run(awaited()), R)
    print(f"\nresults: {len(results)} results, {tokens:,} tokens, {sampled:,} trained tokens")
    print("tokenize (medians)                      wall      CPU    tokens/s (wall)  tokens per CPU-s")
    rows = [
        ("Python dicts -> numpy views", w_d, c_d),
        ("  of which convert+parse (no tokenize)", w_conv, c_conv),
        ("JSON bytes -> numpy views", w_b, c_b),
        ("  of which parse (no tokenize)", w_parse, c_parse),
        ("JSON bytes, awaited (AsyncTokenizer)", w_a, c_a),
    ]
    for name, w, c in rows:
        print(f"  {name:<38} {w:7.3f}s {c:7.3f}s  {fmt_rate(tokens, w)}   {fmt_rate(tokens, c)}")
    conv_only = max(w_conv - w_parse, 0.0)
    print(f"  shares: dicts: convert (Python -> JSON, GIL held) ~{conv_only:.3f}s = {conv_only / w_d:.0%}, "
          f"parse ~{w_parse:.3f}s = {w_parse / w_d:.0%}; bytes: parse {w_parse / w_b:.0%} of the wall time")
    fig.update(tokens=tokens, results=len(results), dicts_wall=w_d, dicts_cpu=c_d, bytes_wall=w_b, bytes_cpu=c_b,
               convert_parse_wall=w_conv, parse_wall=w_parse, async_wall=w_a)

    # 3. packing
    w_p, c_p, packed = median_runs(lambda: yieldtok.packed_tensors_from_tokenized_results(results, **pack), R)
    print(f"\npack {len(results)} results -> {packed['tokens'].shape} (seq_len {pack['seq_len']}, pack_results "
          f"{pack['pack_results']}): {w_p * 1e3:.1f} ms wall, {c_p * 1e3:.1f} ms CPU")
    fig.update(pack_wall=w_p, pack_cpu=c_p)

    # 4. linearity
    groups2 = groups + groups
    bytes2 = json.dumps(groups2, ensure_ascii=False, separators=(",", ":")).encode()
    L = max(R, 6)
    wd1, cd1, w_d2, c_d2 = median_pair(lambda: views(tok.tokenize_trajectory_groups(groups, seed=seed)),
                                       lambda: views(tok.tokenize_trajectory_groups(groups2, seed=seed)), L)
    wb1, cb1, w_b2, c_b2 = median_pair(lambda: views(tok.tokenize_trajectory_groups(groups_bytes, seed=seed)),
                                       lambda: views(tok.tokenize_trajectory_groups(bytes2, seed=seed)), L)
    print(f"\nlinearity (workload doubled: 16 groups; {L} runs of each, x1 and x2 alternating)   time x2 / time x1 "
          "(wall, CPU); ideal 2.00")
    print(f"  dicts: {w_d2 / wd1:.2f}, {c_d2 / cd1:.2f}     bytes: {w_b2 / wb1:.2f}, {c_b2 / cb1:.2f}")
    fig.update(lin_dicts_wall=w_d2 / wd1, lin_dicts_cpu=c_d2 / cd1, lin_bytes_wall=w_b2 / wb1, lin_bytes_cpu=c_b2 / cb1)
    groups2 = bytes2 = None  # free them before the memory runs

    # 5. memory
    out_bytes = sum(len(r) * 17 + len(r.chat.encode()) for r in results)
    packed_bytes = sum(packed[k].nbytes for k in ("tokens", "group_ids", "parent_ids", "input_pos", "assistant_mask", "logprobs", "advantages", "weights"))
    print(f"\npeak memory above the baseline (fresh process; input JSON {len(groups_bytes) / 1e6:.1f} MB)")
    for mode in ("bytes", "dicts"):
        m = memory(mode, groups_path, pack)
        if m:
            x = m["peak_tokenize"] / len(groups_bytes)
            print(f"  {mode:5}: tokenize {m['peak_tokenize'] / 1e6:6.1f} MB = {x:.2f}x the input; with packing "
                  f"{m['peak_total'] / 1e6:6.1f} MB = {m['peak_total'] / len(groups_bytes):.2f}x; held afterwards "
                  f"(results + packed) {m['held'] / 1e6:.1f} MB")
            fig[f"mem_{mode}_x"] = x
            fig[f"mem_{mode}_with_pack_x"] = m["peak_total"] / len(groups_bytes)
    print(f"  (the results alone are {out_bytes / 1e6:.1f} MB and the packed tensors {packed_bytes / 1e6:.1f} MB: "
          f"ids u32 + mask u8 + logprobs f64 + input_pos u32 per token, 8 (n_rows, seq_len) arrays)")

    # ART
    art = None
    if not args.no_art and args.art_python.is_file():
        print(f"\nART 0.5.18 ({args.art_python}; {args.art_runs} runs, each a fresh process) ...", flush=True)
        timings = []
        with tempfile.TemporaryDirectory() as tmp:
            for i in range(args.art_runs):
                out = art_run(args.art_python, path, pathlib.Path(tmp) / "art.json")
                timings.append(out["timing"])
                if i == 0:
                    diff = compare_with_art(results, packed, out)
                    print("  results equal to ART's (token ids, masks, weights, prompt ids/lengths, packed tokens and group ids):",
                          "yes" if not diff else f"NO: {diff[:5]}")
                    fig["equal_to_art"] = not diff
                del out
        med = {k: statistics.median(t[k] for t in timings) for k in ("tokenize_s", "tokenize_cpu_s", "pack_s", "pack_cpu_s")}
        art = med
        print(f"  ART tokenize: {med['tokenize_s']:.2f}s wall, {med['tokenize_cpu_s']:.2f}s CPU "
              f"({fmt_rate(tokens, med['tokenize_s'])} wall, {fmt_rate(tokens, med['tokenize_cpu_s'])} per CPU-s); "
              f"pack: {med['pack_s']:.2f}s wall, {med['pack_cpu_s']:.2f}s CPU")
        print("  ratios (ART / yieldtok)        wall      CPU")
        for name, w, c in [("dicts -> numpy", w_d, c_d), ("bytes -> numpy", w_b, c_b), ("packing", w_p, c_p)]:
            aw, ac = (med["pack_s"], med["pack_cpu_s"]) if name == "packing" else (med["tokenize_s"], med["tokenize_cpu_s"])
            print(f"    {name:<26} {aw / w:7.1f}x {ac / c:7.1f}x")
        fig.update(art_tokenize_wall=med["tokenize_s"], art_tokenize_cpu=med["tokenize_cpu_s"], art_pack_wall=med["pack_s"],
                   art_pack_cpu=med["pack_cpu_s"])
    elif not args.no_art:
        print(f"\nART: {args.art_python} not found, skipped")

    # targets
    print("\nissue 8 targets")
    checks = [
        ("dicts -> numpy >= 1.5M tok/s (wall)", tokens / w_d >= TARGETS["dicts_tok_s"], f"{tokens / w_d / 1e6:.2f}M"),
        ("JSON bytes -> numpy >= 3M tok/s (wall)", tokens / w_b >= TARGETS["bytes_tok_s"], f"{tokens / w_b / 1e6:.2f}M"),
        ("cost linear: x2 within 10% (CPU, dicts and bytes)",
         abs(c_d2 / cd1 - 2) <= 0.2 and abs(c_b2 / cb1 - 2) <= 0.2, f"{c_d2 / cd1:.2f}, {c_b2 / cb1:.2f}"),
    ]
    if "mem_bytes_x" in fig:
        checks.append(("peak memory of tokenization <= 3x the input JSON (bytes, dicts)",
                       max(fig["mem_bytes_x"], fig.get("mem_dicts_x", 0)) <= TARGETS["memory_x"],
                       f"{fig['mem_bytes_x']:.2f}x, {fig.get('mem_dicts_x', math.nan):.2f}x"))
    if art:
        checks.append((">= 20x ART's tokens per CPU-second (dicts)", art["tokenize_cpu_s"] / c_d >= TARGETS["vs_art_cpu"],
                       f"{art['tokenize_cpu_s'] / c_d:.1f}x"))
        checks.append(("packing >= 20x ART's (CPU)", art["pack_cpu_s"] / c_p >= TARGETS["pack_vs_art"], f"{art['pack_cpu_s'] / c_p:.1f}x"))
    for name, ok, value in checks:
        print(f"  [{'ok' if ok else 'MISSED'}] {name}: {value}")
    end_uptime = uptime()
    print(f"\n{end_uptime}")
    fig["uptime_end"] = end_uptime
    if args.json:
        args.json.write_text(json.dumps(fig, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
