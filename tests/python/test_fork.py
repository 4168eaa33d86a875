"""Fork safety (issue 17, item 1): after `os.fork()` — or a `multiprocessing` pool with the
`fork` start method, or a preloading server (gunicorn --preload) — the parent's scheduler
threads, bridge threads and engine-loader thread do not exist in the child. Every call must
still work there (the child gets a fresh pool on first use), including with locks held by busy
parent threads at the moment of the fork.

Every case runs in a forked child with a hard timeout: a child that hangs is killed and the
test fails (it never hangs the suite). Before the fix every case below that touches the pool
(long texts, batches, awaitables, a new tokenizer, the engine loader) hung.
"""

from __future__ import annotations

import asyncio
import faulthandler
import json
import multiprocessing
import os
import select
import signal
import threading
import time
import traceback

import pytest

import yieldtok
from conftest import VARIED, fixture_dir, load_pair, long_text

pytestmark = [
    pytest.mark.serial,  # timing-sensitive or machine-wide: run alone, after the others (pytest.ini)
    pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork"),
    # CPython 3.12+ warns on fork() in a process with threads; forking is what is tested here.
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]

CHILD_TIMEOUT = 60.0
LONG = long_text(300_000)  # over the parallel (64 KB) threshold: runs on the pool
TEXTS = VARIED[2:14] + [LONG[:70_000], LONG[:5_000]]


def in_child(fn, timeout: float = CHILD_TIMEOUT):
    """Run `fn()` in a forked child; return its (JSON-able) result. Fails, never hangs: a child
    that does not answer within `timeout` seconds is killed (its Python stacks are dumped to
    stderr first)."""
    # (a watchdog thread of this process would not exist in the child, and re-arming it there
    # waits for that thread forever)
    faulthandler.cancel_dump_traceback_later()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        try:
            os.close(r)
            faulthandler.dump_traceback_later(max(timeout - 3, 1), exit=False)
            try:
                payload = {"ok": fn()}
            except BaseException as e:  # noqa: BLE001 - reported to the parent
                payload = {"error": f"{type(e).__name__}: {e}\n{traceback.format_exc()}"}
            data = json.dumps(payload).encode()
            while data:
                data = data[os.write(w, data):]
        finally:
            os._exit(0)
    os.close(w)
    deadline = time.monotonic() + timeout
    chunks = []
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                pytest.fail(f"the forked child did not finish within {timeout:.0f} s (hung)")
            ready, _, _ = select.select([r], [], [], left)
            if ready:
                b = os.read(r, 1 << 16)
                if not b:
                    break
                chunks.append(b)
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                pytest.fail("the forked child did not exit (hung after answering)")
            time.sleep(0.01)
        pid = 0
    finally:
        os.close(r)
        if pid:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    if not chunks:
        pytest.fail(f"the forked child died without an answer (status {status})")
    out = json.loads(b"".join(chunks))
    if "error" in out:
        pytest.fail("in the forked child: " + out["error"], pytrace=False)
    return out["ok"]


@pytest.fixture(scope="module")
def warm():
    """qwen3 with every background part running in this process before the fork: the
    scheduler's pool (a long sync encode), the short lane and the asyncio bridge (awaits), the
    fast engine (its loader thread) — and the `tokenizers` oracle's ids."""
    tok, hf = load_pair("qwen3")
    tok.encode(LONG)
    assert tok.wait_for_engine() in ("fastokens", "yieldtok", "tokenizers")
    assert tok.encoding_engine == "yieldtok", tok.encoding_engine_unavailable_reason
    tok.count(LONG)

    async def awaits():
        await asyncio.gather(tok.async_encode(LONG[:1000]), tok.async_encode(LONG), tok.async_count(LONG))

    asyncio.run(awaits())
    want = {
        "long": hf.encode(LONG).ids,
        "texts": [e.ids for e in hf.encode_batch(TEXTS)],
    }
    return tok, hf, want


def check_sync(tok, want) -> dict:
    enc = tok.encode(LONG)
    assert enc.ids == want["long"]
    assert tok.count(LONG) == len(want["long"])
    assert tok.encode("hello world " * 10_000).ids[:3] == tok.encode("hello world hello world hello world").ids[:3]
    batch = tok.encode_batch(TEXTS)
    assert [e.ids for e in batch] == want["texts"]
    assert tok.decode_batch(want["texts"]) == [tok.decode(i) for i in want["texts"]]
    return {"tokens": len(enc.ids)}


async def check_async(tok, want) -> dict:
    enc, n, short, batch = await asyncio.gather(
        tok.async_encode(LONG), tok.async_count(LONG), tok.async_encode("hello"), tok.async_encode_batch(TEXTS)
    )
    assert enc.ids == want["long"] and n == len(want["long"])
    assert short.ids == tok.encode("hello").ids
    assert [e.ids for e in batch] == want["texts"]
    assert await tok.async_decode(want["texts"][0]) == tok.decode(want["texts"][0])
    assert await tok.async_decode_batch(want["texts"]) == tok.decode_batch(want["texts"])
    text = await tok.async_apply_chat_template([{"role": "user", "content": "hi"}], tokenize=False)
    assert text == tok.apply_chat_template([{"role": "user", "content": "hi"}], tokenize=False)
    # many concurrent short awaits (the short lane and the bridge under load)
    got = await asyncio.gather(*(tok.async_count(t) for t in TEXTS * 20))
    assert got == [len(i) for i in want["texts"]] * 20
    return {"tokens": len(enc.ids)}


def test_sync_calls_in_a_forked_child(warm):
    tok, _, want = warm
    assert in_child(lambda: check_sync(tok, want)) == {"tokens": len(want["long"])}


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_awaitables_in_a_forked_child(warm, loop):
    tok, _, want = warm
    if loop == "uvloop":
        uvloop = pytest.importorskip("uvloop")
        run = lambda: uvloop.run(check_async(tok, want))  # noqa: E731
    else:
        run = lambda: asyncio.run(check_async(tok, want))  # noqa: E731
    assert in_child(run) == {"tokens": len(want["long"])}


def test_new_tokenizer_in_a_forked_child(warm):
    _, hf, want = warm

    def child():
        tok = yieldtok.Tokenizer.from_dir(fixture_dir("qwen3"))
        assert tok.encode(LONG).ids == want["long"]
        engine = tok.wait_for_engine()  # the engine loader thread, fresh in this process
        assert tok.count(LONG) == len(want["long"])
        assert asyncio.run(check_async(tok, want)) == {"tokens": len(want["long"])}
        yieldtok.wait_for_engine_loads()
        return engine

    assert in_child(child) == warm[0].engine


def test_fork_of_a_fork(warm):
    """A child that used its own pool forks again: the grandchild gets a pool of its own."""
    tok, _, want = warm

    def child():
        check_sync(tok, want)
        return in_child(lambda: asyncio.run(check_async(tok, want)) and check_sync(tok, want), CHILD_TIMEOUT / 2)

    assert in_child(child) == {"tokens": len(want["long"])}


def test_fork_while_the_parent_is_busy(warm):
    """Forks taken while the parent's workers, short lane and bridge are in the middle of
    encodes (holding the scheduler's locks at random moments): each child still works."""
    tok, _, want = warm
    stop = threading.Event()
    errors = []

    def sync_load():
        while not stop.is_set():
            try:
                tok.encode(LONG)
                tok.count(LONG[:100_000])
                tok.encode_batch(TEXTS)
            except Exception as e:  # noqa: BLE001
                errors.append(e)

    def async_load():
        async def main():
            while not stop.is_set():
                await asyncio.gather(tok.async_encode(LONG), tok.async_count(LONG), *(tok.async_encode(t) for t in TEXTS))

        try:
            asyncio.run(main())
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=sync_load), threading.Thread(target=async_load)]
    for t in threads:
        t.start()
    try:
        for i in range(6):
            time.sleep(0.05 + 0.03 * i)
            assert in_child(lambda: check_sync(tok, want) and asyncio.run(check_async(tok, want))) == {
                "tokens": len(want["long"])
            }
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=120)
    assert not errors


def _pool_count(i: int) -> int:
    tok = _POOL_TOKENIZER[0]
    return tok.count(TEXTS[i % len(TEXTS)] if i % 3 else LONG)


def _pool_async(i: int) -> list:
    tok = _POOL_TOKENIZER[0]

    async def main():
        return [e.ids for e in await tok.async_encode_batch([LONG[: 1000 * (i + 1)], TEXTS[i % len(TEXTS)]])]

    return asyncio.run(main())


_POOL_TOKENIZER: list = []


def test_multiprocessing_pool_with_fork(warm):
    tok, hf, want = warm
    _POOL_TOKENIZER[:] = [tok]
    ctx = multiprocessing.get_context("fork")
    pool = ctx.Pool(2)
    try:
        counts = pool.map_async(_pool_count, range(12)).get(timeout=CHILD_TIMEOUT)
        assert counts == [len(want["long"]) if i % 3 == 0 else len(want["texts"][i % len(TEXTS)]) for i in range(12)]
        batches = pool.map_async(_pool_async, range(4)).get(timeout=CHILD_TIMEOUT)
        for i, b in enumerate(batches):
            assert b == [hf.encode(LONG[: 1000 * (i + 1)]).ids, want["texts"][i % len(TEXTS)]]
        pool.close()
    finally:
        pool.terminate()
        pool.join()


def test_preloading_server_pattern(warm):
    """gunicorn --preload: the master loads the tokenizer, then forks workers that each serve
    concurrent requests on their own event loop."""
    tok, _, want = warm

    async def serve():
        results = await asyncio.gather(*(tok.async_encode(TEXTS[i % len(TEXTS)]) for i in range(200)))
        assert [e.ids for e in results] == [want["texts"][i % len(TEXTS)] for i in range(200)]
        return len(results)

    workers = []
    for _ in range(3):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(r)
                ok = asyncio.run(serve()) == 200 and check_sync(tok, want)["tokens"] == len(want["long"])
                os.write(w, b"ok" if ok else b"bad")
            except BaseException as e:  # noqa: BLE001
                os.write(w, repr(e).encode()[:4000])
            finally:
                os._exit(0)
        os.close(w)
        workers.append((pid, r))
    deadline = time.monotonic() + CHILD_TIMEOUT
    answers = []
    try:
        for pid, r in workers:
            ready, _, _ = select.select([r], [], [], max(deadline - time.monotonic(), 0))
            answers.append(os.read(r, 4096) if ready else b"<hung>")
    finally:
        for pid, r in workers:
            os.close(r)
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
    assert answers == [b"ok"] * 3
