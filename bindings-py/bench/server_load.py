#!/usr/bin/env python3
"""The example servers under a real HTTP load generator: short requests (~100 tokens) at a
constant 100/s to ``/tokenize``, alone and while long prompts (~160k tokens) arrive at 2/s, for
every ``--mode`` of ``examples/python/asgi_server.py`` (uvicorn, one loop) and, with ``--node``,
of ``examples/node/server.mjs`` — side by side in one run, medians of ``--runs`` runs.

    cargo install oha --locked                                 # the load generator (once)
    .venv/bin/python bindings-py/bench/server_load.py          # qwen3, 10 s per phase, 3 runs
    .venv/bin/python bindings-py/bench/server_load.py --node --runs 5 --boost --json out.json

The load is `oha` at a constant rate (``-q``) with ``--latency-correction``: a request's latency
is counted from when the schedule said it should be sent, so a server that stalls is charged for
the requests it kept waiting (no coordinated omission). Short and long requests come from two
oha processes at once, each on its own connections. The texts are real conversations from
shared/data when present (else fixture-generated text); the long prompt is one ~160k-token
text. Every response must be a 200 (the servers' answers are checked by the tests, not here).
Reports short-request p50/p99/max (ms) alone and under long load, the long requests' p50, and
the ratio of each mode's short p99 under long load to yieldtok's. Not part of the test command
(about 25 s per mode and run); ``bench/server-last-run.txt`` has the last run kept.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))

from bench import shared_conversations, synthetic_messages  # noqa: E402

PY_MODES = ["yieldtok", "tokenizers", "to_thread", "async_encode"]
NODE_MODES = ["node:yieldtok", "node:tokenizers"]


def start(mode: str, tokenizer: pathlib.Path) -> tuple[subprocess.Popen, int]:
    if mode.startswith("node:"):
        cmd = ["node", str(REPO / "examples/node/server.mjs"), str(tokenizer), "--mode", mode[5:], "--port", "0"]
    else:
        cmd = [sys.executable, str(REPO / "examples/python/asgi_server.py"), "--tokenizer", str(tokenizer),
               "--mode", mode, "--port", "0"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    first = proc.stdout.readline()
    if not first.startswith("listening on "):
        proc.kill()
        raise SystemExit(f"{mode}: the server did not start: {first!r}")
    return proc, int(first.split()[2].rsplit(":", 1)[1])


def post(port: int, body: bytes) -> dict:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/tokenize", body, {"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        return json.loads(r.read())


WRK_LUA = """
wrk.method = "POST"
wrk.headers["content-type"] = "application/json"
local f = io.open("%(body)s", "rb"); wrk.body = f:read("*a"); f:close()
function delay() return %(delay_ms)d end
function done(summary, latency, requests)
  io.write(string.format('{"p50": %%d, "p99": %%d, "max": %%d, "n": %%d, "errors": %%d}\\n', latency:percentile(50),
    latency:percentile(99), latency.max, summary.requests,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout))
end
"""


def load(generator: str, port: int, body_file: str, rate: float, seconds: float, connections: int) -> subprocess.Popen:
    """A load generator process sending body_file to /tokenize at `rate` per second for `seconds`."""
    url = f"http://127.0.0.1:{port}/tokenize"
    if generator == "oha":  # open loop: a constant rate, latency counted from the scheduled send time
        cmd = ["oha", "--no-tui", "--output-format", "json", "-z", f"{seconds:g}s", "-q", str(rate),
               "--latency-correction", "-c", str(connections), "-m", "POST", "-T", "application/json",
               "-D", body_file, url]
    else:  # wrk: closed loop, each connection waits connections/rate between its requests
        script = f"{body_file}.lua"
        pathlib.Path(script).write_text(WRK_LUA % {"body": body_file, "delay_ms": int(connections / rate * 1000)})
        cmd = ["wrk", "-t1", f"-c{connections}", f"-d{seconds:g}s", "--timeout", "60s", "-s", script, url]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    p.generator = generator
    return p


def result(proc: subprocess.Popen) -> dict:
    out, err = proc.communicate()
    if proc.returncode != 0:
        raise SystemExit(f"{proc.generator} failed ({proc.returncode}): {err} {out}")
    if proc.generator == "wrk":
        r = json.loads(out.strip().splitlines()[-1])
        if r["errors"]:
            raise SystemExit(f"wrk: {r['errors']} errors or non-2xx responses")
        return {"p50": r["p50"] / 1e3, "p99": r["p99"] / 1e3, "max": r["max"] / 1e3, "n": r["n"]}
    r = json.loads(out)
    codes = r.get("statusCodeDistribution", {})
    if set(codes) != {"200"}:
        raise SystemExit(f"responses other than 200: {codes} {r.get('errorDistribution')}")
    p = r["latencyPercentiles"]
    return {"p50": p["p50"] * 1e3, "p99": p["p99"] * 1e3, "max": r["summary"]["slowest"] * 1e3,
            "n": sum(codes.values())}


def measure(mode: str, args, short_file: str, long_file: str, long_body: bytes, short_body: bytes) -> dict:
    proc, port = start(mode, args.tokenizer)
    try:
        for _ in range(2):  # warm up: first loads, the pool's threads, the own engine's tables
            post(port, long_body)
        for _ in range(50):
            post(port, short_body)
        g, short_c, long_c = args.generator, (16 if args.generator == "oha" else 4), (8 if args.generator == "oha" else 1)
        alone = result(load(g, port, short_file, args.rate, args.seconds, short_c))
        longs = load(g, port, long_file, args.long_rate, args.seconds + 1, long_c)
        time.sleep(0.5)  # the long load is running before the short requests start
        loaded = result(load(g, port, short_file, args.rate, args.seconds, short_c))
        long = result(longs)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    return {"alone": alone, "loaded": loaded, "long": long}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fixture", default="qwen3")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--rate", type=float, default=100, help="short requests per second")
    ap.add_argument("--long-rate", type=float, default=2, help="long prompts per second")
    ap.add_argument("--long-tokens", type=int, default=160_000)
    ap.add_argument("--modes", nargs="*", default=PY_MODES)
    ap.add_argument("--node", action="store_true", help="also the Node server's modes")
    ap.add_argument("--boost", action="store_true", help="raise priority (root) to cut noise from other tenants")
    ap.add_argument("--json", help="write every run's numbers here")
    ap.add_argument("--generator", choices=["oha", "wrk"], default="oha" if shutil.which("oha") else "wrk",
                    help="oha (default when installed) or wrk (closed loop: no latency correction)")
    args = ap.parse_args()
    if shutil.which(args.generator) is None:
        raise SystemExit(f"{args.generator} not found: cargo install oha --locked (or apt-get install wrk)")
    if args.boost:
        try:
            with open("/proc/self/autogroup", "w") as f:
                f.write("-10")
            os.nice(-10)
        except OSError as e:
            print(f"--boost: {e}", file=sys.stderr)
    modes = args.modes + (NODE_MODES if args.node else [])
    args.tokenizer = REPO / ".cache" / "fixtures" / args.fixture

    import tokenizers

    hf = tokenizers.Tokenizer.from_file(str(args.tokenizer / "tokenizer.json"))
    texts = shared_conversations() or synthetic_messages(20_000)
    short = next(t for t in texts if 90 <= len(hf.encode(t).ids) <= 110)
    parts, n = [], 0
    for t in texts * 50:
        parts.append(t)
        n += len(hf.encode(t).ids)
        if n >= args.long_tokens:
            break
    long = "\n\n".join(parts)
    short_body, long_body = json.dumps({"text": short}).encode(), json.dumps({"text": long}).encode()
    tmp = tempfile.mkdtemp()
    short_file, long_file = f"{tmp}/short.json", f"{tmp}/long.json"
    pathlib.Path(short_file).write_bytes(short_body)
    pathlib.Path(long_file).write_bytes(long_body)
    gen_note = ("oha -q with --latency-correction" if args.generator == "oha"
                else "wrk, closed loop (no latency correction: a stall delays the requests it would send)")
    print(f"# {args.fixture}: short {len(hf.encode(short).ids)} tokens at {args.rate:g}/s; long "
          f"{len(hf.encode(long).ids)} tokens ({len(long_body) // 1024} KB) at {args.long_rate:g}/s; "
          f"{args.seconds:g} s per phase; {gen_note}; median of {args.runs} runs; "
          f"tokenizers {tokenizers.__version__}; {os.cpu_count()} cores, load avg {os.getloadavg()[0]:.1f}")

    runs: dict = {m: [] for m in modes}
    for r in range(args.runs):
        for m in modes[r % len(modes):] + modes[: r % len(modes)]:  # a different order each run
            runs[m].append(measure(m, args, short_file, long_file, long_body, short_body))
            x = runs[m][-1]
            print(f"  run {r + 1} {m:>16}: short p99 alone {x['alone']['p99']:7.1f} ms, under long load "
                  f"{x['loaded']['p99']:7.1f} ms; long p50 {x['long']['p50']:6.0f} ms", flush=True)

    def med(m, phase, key):
        return statistics.median(x[phase][key] for x in runs[m])

    print(f"\n{'mode':>16} | {'short alone (ms)':^23} | {'short under long load (ms)':^26} | long p50 | "
          f"p99 under load vs yieldtok's")
    print(f"{'':>16} | {'p50':>7}{'p99':>8}{'max':>8} | {'p50':>7}{'p99':>9}{'max':>9}  | {'(ms)':>8} |")
    for m in modes:
        ref = "node:yieldtok" if m.startswith("node:") else "yieldtok"
        ratio = f"{med(m, 'loaded', 'p99') / med(ref, 'loaded', 'p99'):.1f}x" if ref in runs else ""
        print(f"{m:>16} | {med(m, 'alone', 'p50'):7.1f}{med(m, 'alone', 'p99'):8.1f}{med(m, 'alone', 'max'):8.1f} | "
              f"{med(m, 'loaded', 'p50'):7.1f}{med(m, 'loaded', 'p99'):9.1f}{med(m, 'loaded', 'max'):9.1f}  | "
              f"{med(m, 'long', 'p50'):8.0f} | {ratio}")
    print(f"load avg at end: {os.getloadavg()[0]:.1f}")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(runs, indent=1))
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
