#!/usr/bin/env python3
"""yieldtok vs Hugging Face `tokenizers` 0.23, side by side in one process (issue 4's seven
measurements, 8: truncation that stops early, 9: the same for one 10 MB encode, 10: a batch truncated
to 128 and padded), on the qwen3 tokenizer.

    .venv/bin/python bindings-py/bench/bench.py                 # all nine, default asyncio loop
    .venv/bin/python bindings-py/bench/bench.py --only 1 4 --runs 7 --uvloop
    .venv/bin/python bindings-py/bench/bench.py --json bench.json

Text: conversations stitched from <repo>/../shared/data/tau-airline-conversations.jsonl when
present, else a deterministic synthetic multilingual/code/JSON corpus. Every figure is the
median of --runs repetitions; every event-loop figure is also given as the excess over an idle
1 ms heartbeat measured in the same run just before (these machines are noisy). CPU is the
process's CPU time (all threads).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import pathlib
import random
import statistics
import subprocess
import sys
import threading
import time

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]

# ---- corpus ---------------------------------------------------------------------------------


def shared_conversations() -> list[str]:
    for d in (REPO.parent / "shared" / "data", pathlib.Path("/work/shared/data")):
        f = d / "tau-airline-conversations.jsonl"
        if f.is_file():
            out = []
            for line in f.open(encoding="utf-8"):
                try:
                    msgs = json.loads(line).get("messages") or []
                except ValueError:
                    continue
                for m in msgs:
                    c = m.get("content")
                    if isinstance(c, str) and c:
                        out.append(c)
                    for call in m.get("tool_calls") or []:
                        out.append(json.dumps(call.get("function", {}), ensure_ascii=False))
            return out
    return []


def synthetic_messages(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    words = (
        "the flight reservation passenger baggage cabin economy business refund policy agent user "
        "booking change cancel upgrade insurance payment certificate gift card travel date origin "
        "destination airport delay status membership gold silver regular confirm details please"
    ).split()
    intl = ["数据", "東京", "서울", "مرحبا", "привет", "naïve", "café", "😀", "✈️", "Ωμέγα", "नमस्ते"]
    out = []
    for i in range(n):
        kind = i % 5
        if kind == 3:
            obj = {"reservation_id": f"R{rng.randrange(10**6):06d}", "amount": rng.randrange(10**5) / 100, "ok": rng.random() < 0.5,
                   "legs": [{"from": rng.choice(["JFK", "SFO", "LAX"]), "to": rng.choice(["ORD", "SEA"])} for _ in range(rng.randrange(1, 4))]}
            out.append(json.dumps(obj, indent=rng.choice([None, 2])))
        elif kind == 4:
            out.append("def handler(event):\n    for item in event['items']:\n        if item.get('qty', 0) > %d:\n            yield item\n" % rng.randrange(100))
        else:
            sent = []
            for _ in range(rng.randrange(3, 12)):
                w = [rng.choice(words) for _ in range(rng.randrange(5, 20))]
                if rng.random() < 0.2:
                    w.insert(rng.randrange(len(w)), rng.choice(intl))
                sent.append(" ".join(w).capitalize() + rng.choice([".", "?", "!"]))
            out.append(" ".join(sent))
    return out


MESSAGES: list[str] = []


def messages() -> list[str]:
    global MESSAGES
    if not MESSAGES:
        MESSAGES = shared_conversations() or synthetic_messages(4000)
    return MESSAGES


def document(hf, tokens: int, offset: int = 0) -> str:
    """A document of about `tokens` tokens (qwen3), stitched from messages starting at `offset`."""
    msgs = messages()
    parts, n, i = [], 0, offset
    while n < tokens:
        m = msgs[i % len(msgs)]
        parts.append(m)
        n += len(hf.encode(m, add_special_tokens=False).ids) + 1
        i += 1
    text = "\n\n".join(parts)
    return text


def texts_of_tokens(hf, lo: int, hi: int, count: int, seed: int) -> list[str]:
    """`count` texts of lo..hi tokens each, cut from the messages."""
    rng = random.Random(seed)
    msgs = messages()
    out = []
    while len(out) < count:
        m = msgs[rng.randrange(len(msgs))]
        ids = hf.encode(m, add_special_tokens=False)
        if len(ids.ids) < lo:
            continue
        want = rng.randrange(lo, hi + 1)
        end = ids.offsets[min(want, len(ids.ids)) - 1][1]
        out.append(m[:end])
    return out


# ---- helpers --------------------------------------------------------------------------------


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def p99(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.99 * (len(xs) - 1))))] if xs else float("nan")


def os_threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


class Heartbeat:
    """A coroutine ticking every 1 ms; records the gaps between ticks."""

    def __init__(self):
        self.gaps: list[float] = []
        self.stop = False
        self.task = None

    async def _run(self):
        last = time.perf_counter()
        while not self.stop:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            self.gaps.append(now - last)
            last = now

    def start(self):
        self.task = asyncio.ensure_future(self._run())
        return self

    async def finish(self) -> float:
        self.stop = True
        await self.task
        return max(self.gaps) if self.gaps else 0.0


async def idle_max_gap(seconds: float) -> float:
    hb = Heartbeat().start()
    await asyncio.sleep(seconds)
    return await hb.finish()


async def lag_of(make_coro) -> tuple[float, float, object]:
    """(max heartbeat gap, wall seconds, result) while awaiting make_coro()."""
    hb = Heartbeat().start()
    await asyncio.sleep(0.01)
    t0 = time.perf_counter()
    result = await make_coro()
    wall = time.perf_counter() - t0
    return await hb.finish(), wall, result


def ms(x):
    return f"{x * 1e3:8.2f}"


ROWS: list[dict] = []


def row(measure, what, **vals):
    ROWS.append({"measure": measure, "what": what, **vals})
    cells = "  ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in vals.items())
    print(f"  [{measure}] {what:<46} {cells}", flush=True)


# ---- the seven measurements ----------------------------------------------------------------


async def m1_loop_lag(yt, hf, doc, runs):
    print(f"\n1. Event-loop lag while one {len(hf.encode(doc).ids)}-token document is awaited (1 ms heartbeat)")
    cases = {
        "yieldtok Tokenizer.async_encode": lambda: yt.async_encode(doc),
        "tokenizers async_encode": lambda: hf.async_encode(doc),
        "tokenizers asyncio.to_thread(encode)": lambda: asyncio.to_thread(hf.encode, doc),
        "tokenizers run_in_executor(encode)": lambda: asyncio.get_running_loop().run_in_executor(None, hf.encode, doc),
    }
    res = {k: {"gap": [], "idle": [], "wall": []} for k in cases}
    for _ in range(runs):
        for name, mk in cases.items():
            idle = await idle_max_gap(0.5)
            gap, wall, _ = await lag_of(mk)
            res[name]["gap"].append(gap)
            res[name]["idle"].append(idle)
            res[name]["wall"].append(wall)
    out = {}
    for name, r in res.items():
        excess = med([g - i for g, i in zip(r["gap"], r["idle"])])
        out[name] = excess
        row(1, name, max_gap_ms=med(r["gap"]) * 1e3, idle_max_ms=med(r["idle"]) * 1e3, excess_ms=excess * 1e3, wall_s=med(r["wall"]))
    ok = out["yieldtok Tokenizer.async_encode"] <= 0.002
    print(f"  target: yieldtok excess <= 2 ms -> {'PASS' if ok else 'FAIL'}")
    return ok


async def m2_eight_prompts(yt, hf, prompts, runs):
    ntok = [len(hf.encode(p).ids) for p in prompts]
    print(f"\n2. Eight concurrent prompts awaited together ({min(ntok)}..{max(ntok)} tokens each)")
    sync_ids = [yt.encode(p).ids for p in prompts]
    assert sync_ids == [hf.encode(p).ids for p in prompts], "yieldtok sync ids differ from tokenizers"
    cases = {
        "yieldtok async_encode x8": lambda: asyncio.gather(*(yt.async_encode(p) for p in prompts)),
        "tokenizers async_encode x8": lambda: asyncio.gather(*(hf.async_encode(p) for p in prompts)),
    }
    res = {k: {"gap": [], "idle": [], "wall": []} for k in cases}
    identical = True
    for _ in range(runs):
        for name, mk in cases.items():
            idle = await idle_max_gap(0.5)
            gap, wall, result = await lag_of(mk)
            if name.startswith("yieldtok"):
                identical &= [r.ids for r in result] == sync_ids
            res[name]["gap"].append(gap)
            res[name]["idle"].append(idle)
            res[name]["wall"].append(wall)
            del result
            gc.collect()
    ex = {}
    for name, r in res.items():
        ex[name] = med([g - i for g, i in zip(r["gap"], r["idle"])])
        row(2, name, max_gap_ms=med(r["gap"]) * 1e3, idle_max_ms=med(r["idle"]) * 1e3, excess_ms=ex[name] * 1e3, wall_s=med(r["wall"]))
    ok = ex["yieldtok async_encode x8"] <= 0.005 and identical
    print(f"  ids identical to sync: {identical}; target: excess <= 5 ms -> {'PASS' if ok else 'FAIL'}")
    return ok


def spin_fraction(work, runs):
    """Fraction of its idle iteration rate a pure-Python spin thread keeps during work()."""
    fr, walls = [], []
    for _ in range(runs):
        count = 0
        stop = False

        def spin():
            nonlocal count
            while not stop:
                count += 1

        t = threading.Thread(target=spin)
        t.start()
        time.sleep(0.02)
        c0, t0 = count, time.perf_counter()
        work()
        c1, t1 = count, time.perf_counter()
        dur = t1 - t0
        c2 = count
        time.sleep(dur)
        c3, t3 = count, time.perf_counter()
        stop = True
        t.join()
        idle_rate = (c3 - c2) / (t3 - t1)
        fr.append(((c1 - c0) / dur) / idle_rate)
        walls.append(dur)
    return med(fr), med(walls)


def m3_gil(yt, hf, doc, runs):
    print("\n3. GIL: a pure-Python spin thread's iteration rate during a sync encode of the document, vs idle")
    f_yt, w_yt = spin_fraction(lambda: yt.encode(doc), runs)
    f_hf, w_hf = spin_fraction(lambda: hf.encode(doc), runs)
    row(3, "yieldtok encode", spinner_kept=f_yt, wall_s=w_yt)
    row(3, "tokenizers encode", spinner_kept=f_hf, wall_s=w_hf)
    ok = f_yt >= 0.5
    print(f"  target: spinner keeps >= 50% -> {'PASS' if ok else 'FAIL'}")
    return ok


async def head_of_line(encode_async, longs, shorts, loaded: bool):
    stop = False
    workers = []
    if loaded:
        async def long_worker(doc):
            while not stop:
                await encode_async(doc)

        workers = [asyncio.ensure_future(long_worker(d)) for d in longs[:4]]
        await asyncio.sleep(0.05)
    lat = []

    async def one(arrival, text):
        await encode_async(text)
        lat.append(time.perf_counter() - arrival)

    tasks = []
    t0 = time.perf_counter()
    for i, s in enumerate(shorts):
        target = t0 + i * 0.002
        delay = target - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.ensure_future(one(target, s)))
    await asyncio.gather(*tasks)
    stop = True
    if workers:
        await asyncio.gather(*workers)
    return lat


async def m4_head_of_line(yt, hf, longs, shorts, runs):
    print(f"\n4. Head-of-line: 4 long requests in flight (~{len(hf.encode(longs[0]).ids)} tokens, resubmitted), "
          f"{len(shorts)} short (~{statistics.mean(len(hf.encode(s).ids) for s in shorts):.0f}-token) requests every 2 ms")
    libs = {"yieldtok async_encode": yt.async_encode, "tokenizers async_encode": hf.async_encode}
    res = {k: {"loaded": [], "unloaded": []} for k in libs}
    for _ in range(runs):
        for name, enc in libs.items():
            res[name]["unloaded"].append(p99(await head_of_line(enc, longs, shorts, loaded=False)))
            res[name]["loaded"].append(p99(await head_of_line(enc, longs, shorts, loaded=True)))
            gc.collect()
    for name, r in res.items():
        row(4, name, p99_unloaded_ms=med(r["unloaded"]) * 1e3, p99_loaded_ms=med(r["loaded"]) * 1e3,
            excess_ms=(med(r["loaded"]) - med(r["unloaded"])) * 1e3)
    y, h = res["yieldtok async_encode"], res["tokenizers async_encode"]
    ratio = med(y["loaded"]) / med(h["loaded"])
    ok = med(y["loaded"]) - med(y["unloaded"]) <= 0.005 and ratio <= 0.25
    print(f"  yieldtok/tokenizers loaded p99 = {ratio:.3f}; target: excess <= 5 ms and ratio <= 0.25 -> {'PASS' if ok else 'FAIL'}")
    return ok


THREAD_CHILD = r"""
import asyncio, json, os, sys, time
sys.path.insert(0, {here!r})
import bench
lib = sys.argv[1]
if lib == "yieldtok":
    import yieldtok
    tok = yieldtok.Tokenizer.from_dir({fixture!r})
else:
    import tokenizers
    tok = tokenizers.Tokenizer.from_file({fixture!r} + "/tokenizer.json")
text = {text!r}
async def main():
    before = bench.os_threads()
    peak = before
    done = False
    async def sampler():
        nonlocal peak
        while not done:
            peak = max(peak, bench.os_threads())
            await asyncio.sleep(0.001)
    s = asyncio.ensure_future(sampler())
    t0 = time.perf_counter(); c0 = time.process_time()
    await asyncio.gather(*(tok.async_encode(text) for _ in range(2048)))
    wall = time.perf_counter() - t0; cpu = time.process_time() - c0
    peak = max(peak, bench.os_threads())
    done = True
    await s
    print(json.dumps({{"before": before, "peak": peak, "wall": wall, "cpu": cpu}}))
asyncio.run(main())
"""


def m5_threads(fixture, text):
    print("\n5. Bounded resources: peak OS threads during 2048 concurrent awaits (fresh process each)")
    limit = (os.cpu_count() or 2) + 16
    code = THREAD_CHILD.format(here=str(HERE), fixture=str(fixture), text=text)
    out = {}
    for lib in ("yieldtok", "tokenizers"):
        r = subprocess.run([sys.executable, "-c", code, lib], capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            print(r.stderr)
            raise SystemExit(f"thread child for {lib} failed")
        d = json.loads(r.stdout.strip().splitlines()[-1])
        out[lib] = d
        row(5, f"{lib} async_encode x2048", threads_before=d["before"], threads_peak=d["peak"], wall_s=d["wall"], cpu_s=d["cpu"])
    ok = out["yieldtok"]["peak"] < limit
    print(f"  target: < {limit} (cores + 16) -> {'PASS' if ok else 'FAIL'}")
    return ok


async def m6_batch_fast(yt, hf, batch, runs, max_n):
    ntok = sum(len(hf.encode(t).ids) for t in batch)
    print(f"\n6. asyncio.gather of n awaits of async_encode_batch_fast on the same {len(batch)}-text batch ({ntok} tokens)")
    assert [e.ids for e in await yt.async_encode_batch_fast(batch)] == [e.ids for e in await hf.async_encode_batch_fast(batch)]
    ok = True
    n = 1
    table = []
    while n <= max_n:
        r = {"yt": {"wall": [], "cpu": []}, "hf": {"wall": [], "cpu": []}}
        reps = runs if n <= 256 else max(3, runs // 2 + 1)
        for rep in range(reps):
            order = (("yt", yt), ("hf", hf)) if rep % 2 == 0 else (("hf", hf), ("yt", yt))
            for key, tok in order:
                gc.collect()
                t0, c0 = time.perf_counter(), time.process_time()
                await asyncio.gather(*(tok.async_encode_batch_fast(batch) for _ in range(n)))
                r[key]["wall"].append(time.perf_counter() - t0)
                r[key]["cpu"].append(time.process_time() - c0)
        yw, hw, yc, hc = med(r["yt"]["wall"]), med(r["hf"]["wall"]), med(r["yt"]["cpu"]), med(r["hf"]["cpu"])
        row(6, f"n_tasks={n}", yieldtok_wall_ms=yw * 1e3, tokenizers_wall_ms=hw * 1e3, wall_speedup=hw / yw,
            yieldtok_cpu_ms=yc * 1e3, tokenizers_cpu_ms=hc * 1e3)
        table.append((n, yw, hw))
        # "no slower" with 10% noise tolerance for sub-10 ms timings on a shared machine
        if yw > hw * (1.10 if hw < 0.01 else 1.0):
            ok = False
        n *= 2
    print(f"  target: yieldtok wall no slower at every n -> {'PASS' if ok else 'FAIL'}")
    return ok


def timed(f, runs):
    walls, cpus = [], []
    for _ in range(runs):
        gc.collect()
        t0, c0 = time.perf_counter(), time.process_time()
        f()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return med(walls), med(cpus)


def m7_throughput(yt, hf, doc, mediums, runs):
    print(f"\n7. Throughput ({os.cpu_count()} cores)")
    yw, yc = timed(lambda: yt.encode(doc), runs)
    hw, hc = timed(lambda: hf.encode(doc), runs)
    row(7, "document: yieldtok encode", wall_s=yw, cpu_s=yc)
    row(7, "document: tokenizers encode", wall_s=hw, cpu_s=hc)
    speed, cpu_ratio = hw / yw, yc / hc
    print(f"  document: {speed:.2f}x faster wall, CPU ratio {cpu_ratio:.2f} (target >= 1.7x and <= 1.0)")
    bw, bc = timed(lambda: yt.encode_batch(mediums), runs)
    fw, fc = timed(lambda: hf.encode_batch_fast(mediums), runs)
    sw, sc = timed(lambda: hf.encode_batch(mediums), runs)
    row(7, f"batch {len(mediums)}: yieldtok encode_batch", wall_s=bw, cpu_s=bc)
    row(7, f"batch {len(mediums)}: tokenizers encode_batch_fast", wall_s=fw, cpu_s=fc)
    row(7, f"batch {len(mediums)}: tokenizers encode_batch", wall_s=sw, cpu_s=sc)
    print(f"  batch: {fw / bw:.2f}x vs encode_batch_fast (target >= 1.0), {sw / bw:.2f}x vs encode_batch")
    ok_doc = speed >= 1.7 and cpu_ratio <= 1.0
    ok_batch = bw <= fw
    print(f"  -> document {'PASS' if ok_doc else 'FAIL'}, batch {'PASS' if ok_batch else 'FAIL'}")
    return ok_doc and ok_batch


def truncating(hf, max_length):
    """A yieldtok and a tokenizers copy of the qwen3 tokenizer, each with enable_truncation(max_length)."""
    import copy

    import yieldtok

    hft = copy.deepcopy(hf)
    hft.enable_truncation(max_length)
    ytt = yieldtok.Tokenizer.from_dir(fixture_dir())
    ytt.enable_truncation(max_length)
    return ytt, hft


def m8_truncation(yt, hf, docs, runs, max_length=512):
    """An embedding server's call: long texts truncated to `max_length` tokens."""
    print(f"\n8. Truncation to {max_length} tokens of {len(docs)} long texts (~{len(docs[0])} chars each)")
    ytt, hft = truncating(hf, max_length)
    want = [e.ids for e in hft.encode_batch(docs)]
    got = yt(docs, truncation=True, max_length=max_length)["input_ids"]
    same = got == want and [e.ids for e in ytt.encode_batch(docs)] == want
    cw, cc = timed(lambda: yt(docs, truncation=True, max_length=max_length), runs)
    ew, ec = timed(lambda: ytt.encode_batch(docs), runs)
    hw, hc = timed(lambda: hft.encode_batch(docs), runs)
    row(8, "yieldtok tok(texts, truncation=True)", wall_s=cw, cpu_s=cc)
    row(8, "yieldtok enable_truncation+encode_batch", wall_s=ew, cpu_s=ec)
    row(8, "tokenizers enable_truncation+encode_batch", wall_s=hw, cpu_s=hc)
    print(f"  ids identical: {same}; __call__ (stops early) {hw / cw:.1f}x tokenizers wall, {hc / cc:.1f}x per CPU-s;"
          f" encode_batch (keeps overflowing, encodes all) {hw / ew:.2f}x wall")
    return same and cw < hw


def m9_encode_truncated(yt, hf, text, runs, max_length=512):
    """Tokenizer.encode of one very long text under enable_truncation(max_length)."""
    print(f"\n9. encode of one {len(text.encode()) / 1e6:.0f} MB text with enable_truncation({max_length})")
    ytt, hft = truncating(hf, max_length)
    want = hft.encode(text)
    got = ytt.encode(text)
    same = got.ids == want.ids and got.offsets == want.offsets
    head = text[:4096]
    yw, yc = timed(lambda: ytt.encode(text), runs)
    pw, pc = timed(lambda: yt.encode(head), runs)
    hw, hc = timed(lambda: hft.encode(text), max(1, runs // 2))
    row(9, "yieldtok enable_truncation+encode", wall_s=yw, cpu_s=yc)
    row(9, "yieldtok encode of the first 4 KB alone", wall_s=pw, cpu_s=pc)
    row(9, "tokenizers enable_truncation+encode", wall_s=hw, cpu_s=hc)
    print(f"  ids and offsets identical: {same}; {hw / yw:.0f}x tokenizers wall, {hc / yc:.0f}x per CPU-s"
          f" (target >= 100x); {yw / pw:.2f}x the cost of encoding the first 4 KB alone (target <= 2)")
    return same and hw >= 100 * yw and yw <= 2 * pw


# ---- main -----------------------------------------------------------------------------------


def m10_batch_truncated_padded(hf, texts, runs, max_length=128):
    """An embedding server's batch: every text truncated to `max_length` tokens and padded to it."""
    print(f"\n10. encode_batch of {len(texts)} texts (~{sum(map(len, texts)) // len(texts)} chars each),"
          f" enable_truncation({max_length}) + enable_padding(length={max_length})")
    ytt, hft = truncating(hf, max_length)
    for t in (ytt, hft):
        t.enable_padding(length=max_length)
    want = hft.encode_batch(texts)
    got = ytt.encode_batch(texts)
    same = all(g.ids == w.ids and g.offsets == w.offsets and g.attention_mask == w.attention_mask
               for g, w in zip(got, want)) and len(got) == len(want)
    yw, yc = timed(lambda: ytt.encode_batch(texts), runs)
    hw, hc = timed(lambda: hft.encode_batch(texts), runs)
    row(10, "yieldtok encode_batch, truncated + padded", wall_s=yw, cpu_s=yc)
    row(10, "tokenizers encode_batch, truncated + padded", wall_s=hw, cpu_s=hc)
    print(f"  ids, offsets and masks identical: {same}; {hw / yw:.1f}x tokenizers wall, {hc / yc:.1f}x per CPU-s"
          " (target >= 20x)")
    return same and hc >= 20 * yc


def fixture_dir() -> pathlib.Path:
    d = pathlib.Path(os.environ.get("YIELDTOK_FIXTURES") or REPO / ".cache" / "fixtures") / "qwen3"
    if not (d / "tokenizer.json").is_file():
        subprocess.run(["bash", str(REPO / "scripts" / "fetch-fixtures.sh"), "qwen3"], check=True)
    return d


async def amain(args):
    import tokenizers
    import yieldtok

    fx = fixture_dir()
    yt = yieldtok.Tokenizer.from_dir(fx)
    hf = tokenizers.Tokenizer.from_file(str(fx / "tokenizer.json"))
    print(f"yieldtok {yieldtok.__version__}, tokenizers {tokenizers.__version__}, Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} cores, loop {type(asyncio.get_running_loop()).__module__}, load avg {os.getloadavg()[0]:.1f}, "
          f"text: {'shared/data conversations' if shared_conversations() else 'synthetic corpus'}")
    doc = document(hf, args.doc_tokens)
    print(f"document: {len(doc)} chars, {len(hf.encode(doc).ids)} tokens; runs per figure: {args.runs}")
    results = {}
    only = set(args.only or range(1, 11))
    if 1 in only:
        results[1] = await m1_loop_lag(yt, hf, doc, args.runs)
    if 2 in only:
        prompts = [document(hf, args.prompt_tokens, offset=97 * i) for i in range(8)]
        results[2] = await m2_eight_prompts(yt, hf, prompts, max(1, args.runs // 2 + 1))
    if 3 in only:
        results[3] = m3_gil(yt, hf, doc, args.runs)
    if 4 in only:
        longs = [document(hf, args.prompt_tokens, offset=131 * i) for i in range(4)]
        shorts = texts_of_tokens(hf, 80, 120, 200, seed=4)
        results[4] = await m4_head_of_line(yt, hf, longs, shorts, max(1, args.runs // 2 + 1))
    if 5 in only:
        results[5] = m5_threads(fx, texts_of_tokens(hf, 200, 300, 1, seed=5)[0])
    if 6 in only:
        batch = texts_of_tokens(hf, 10, 60, 16, seed=6)
        results[6] = await m6_batch_fast(yt, hf, batch, max(5, args.runs), args.max_tasks)
    if 7 in only:
        mediums = texts_of_tokens(hf, 300, 700, 1000, seed=7)
        results[7] = m7_throughput(yt, hf, doc, mediums, args.runs)
    if 8 in only:
        docs = [document(hf, args.prompt_tokens // 4, offset=53 * i) for i in range(8)]
        results[8] = m8_truncation(yt, hf, docs, args.runs)
    if 9 in only:
        big = document(hf, args.doc_tokens)
        big = big * (10_000_000 // len(big.encode()) + 1)
        results[9] = m9_encode_truncated(yt, hf, big, args.runs)
    if 10 in only:
        mediums = texts_of_tokens(hf, 300, 700, 1000, seed=7)
        results[10] = m10_batch_truncated_padded(hf, mediums, args.runs)
    print("\nsummary: " + ", ".join(f"{k}: {'PASS' if v else 'FAIL'}" for k, v in sorted(results.items())))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"results": results, "rows": ROWS}, indent=1))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", type=int, nargs="*", help="measurement numbers (1-10)")
    ap.add_argument("--runs", type=int, default=5, help="repetitions per figure (medians)")
    ap.add_argument("--doc-tokens", type=int, default=160_000)
    ap.add_argument("--prompt-tokens", type=int, default=128_000)
    ap.add_argument("--max-tasks", type=int, default=2048)
    ap.add_argument("--uvloop", action="store_true")
    ap.add_argument("--json", help="write rows to this file")
    ap.add_argument("--boost", action="store_true",
                    help="raise this process's (and its autogroup's) priority to cut noise from other tenants (root)")
    args = ap.parse_args()
    if args.boost:
        try:
            with open("/proc/self/autogroup", "w") as f:
                f.write("-10")
            os.nice(-10)
        except OSError as e:
            print(f"--boost: {e}", file=sys.stderr)
    if args.uvloop:
        import uvloop

        uvloop.run(amain(args))
    else:
        asyncio.run(amain(args))
    print(f"load avg at end: {os.getloadavg()[0]:.1f}")
    sys.stdout.flush()
    sys.stderr.flush()
    # tokenizers 0.23's async runtime sometimes segfaults at interpreter exit (about 1 run in
    # 12 here, with tokenizers alone); skip finalization so the benchmark's exit code is clean.
    os._exit(0)


if __name__ == "__main__":
    main()
