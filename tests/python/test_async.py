"""Awaitables: equal to the sync results, cancellable (cancelling stops the work on the
scheduler within milliseconds), bounded threads, and the event loop keeps running.
Every test here runs under the default asyncio loop and under uvloop (see conftest)."""

from __future__ import annotations

import asyncio
import os
import pathlib
import time

import pytest

import yieldtok
from conftest import VARIED, added_token_texts, fixture_dir, load_pair, long_text

pytestmark = [pytest.mark.serial, pytest.mark.asyncio]  # timing-sensitive or machine-wide: run alone, after the others (pytest.ini)


def os_threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        import threading

        return threading.active_count()


async def test_awaitables_equal_sync(qwen):
    texts = VARIED + [long_text(200_000)]
    for text in texts:
        a = await qwen.async_encode(text)
        b = qwen.encode(text)
        assert a.ids == b.ids and a.offsets == b.offsets and a.special_tokens_mask == b.special_tokens_mask
        a = await qwen.async_encode(text, add_special_tokens=False)
        assert a.ids == qwen.encode(text, add_special_tokens=False).ids
        assert await qwen.async_count(text) == qwen.count(text)
    batch = await qwen.async_encode_batch(texts)
    assert [e.ids for e in batch] == [e.ids for e in qwen.encode_batch(texts)]
    fast = await qwen.async_encode_batch_fast(texts, add_special_tokens=False)
    assert [e.ids for e in fast] == [e.ids for e in qwen.encode_batch(texts, add_special_tokens=False)]
    seqs = [e.ids for e in batch]
    assert await qwen.async_decode_batch(seqs) == qwen.decode_batch(seqs)
    assert await qwen.async_decode(seqs[2], False) == qwen.decode(seqs[2], skip_special_tokens=False)


@pytest.mark.parametrize("name", ["llama2", "gemma3", "gpt4o"])
async def test_async_tokenizer_all_methods(name):
    sync, hf = load_pair(name)
    tok = yieldtok.AsyncTokenizer(sync)
    texts = VARIED + added_token_texts(hf)
    for t in texts:
        e = await tok.encode(t)
        assert e.ids == hf.encode(t).ids
        assert e.offsets == hf.encode(t).offsets
        assert await tok.count(t, add_special_tokens=False) == len(hf.encode(t, add_special_tokens=False).ids)
    b = await tok.encode_batch(texts)
    assert [e.ids for e in b] == [e.ids for e in hf.encode_batch(texts)]
    assert await tok.decode_batch([e.ids for e in b]) == hf.decode_batch([e.ids for e in b])
    assert await tok.decode(b[3].ids) == hf.decode(b[3].ids)
    assert tok.get_vocab_size() == hf.get_vocab_size()
    # create_task works because these are real coroutines.
    task = asyncio.create_task(tok.encode("coroutine"))
    assert (await task).ids == hf.encode("coroutine").ids


async def test_many_concurrent_requests_equal_sync(qwen):
    texts = [f"request {i}: " + VARIED[i % len(VARIED)] * (1 + i % 5) for i in range(300)]
    texts[7] = long_text(150_000)
    results = await asyncio.gather(*(qwen.async_encode(t) for t in texts))
    assert [r.ids for r in results] == [e.ids for e in qwen.encode_batch(texts)]


async def test_async_from_constructors(tmp_path):
    d = pathlib.Path(load_pair("qwen3")[0].origin)
    for tok in (
        yieldtok.AsyncTokenizer.from_dir(d),
        yieldtok.AsyncTokenizer.from_file(d / "tokenizer.json"),
        yieldtok.AsyncTokenizer.from_str((d / "tokenizer.json").read_text(encoding="utf-8")),
        yieldtok.AsyncTokenizer.from_buffer((d / "tokenizer.json").read_bytes()),
    ):
        assert (await tok.encode("hi there")).ids == load_pair("qwen3")[1].encode("hi there").ids


async def wait_idle(timeout=2.0):
    """Seconds until the core scheduler has no queued job."""
    t0 = time.perf_counter()
    while yieldtok.scheduler_info()["queued"] and time.perf_counter() - t0 < timeout:
        await asyncio.sleep(0.001)  # uvloop turns sub-ms sleeps into 0
    return time.perf_counter() - t0


async def cpu_over(seconds):
    c0 = time.process_time()
    await asyncio.sleep(seconds)
    return time.process_time() - c0


@pytest.fixture(scope="module")
def slow_qwen():
    """qwen3 on the reference engine only: the cancellation tests need encodes that last
    longer than their timing windows (the own engine encodes 10 MB in ~50 ms)."""
    old = os.environ.get("YIELDTOK_ENGINE")
    os.environ["YIELDTOK_ENGINE"] = "reference"
    try:
        tok = yieldtok.Tokenizer.from_dir(fixture_dir("qwen3"))
    finally:
        if old is None:
            del os.environ["YIELDTOK_ENGINE"]
        else:
            os.environ["YIELDTOK_ENGINE"] = old
    assert tok.encoding_engine == "tokenizers"
    return tok


async def test_cancel_stops_a_10mb_encode(slow_qwen):
    qwen = slow_qwen
    # Fast engines load on a background thread (this tokenizer's and those of earlier tests);
    # let them finish so the CPU measured below is only the cancelled encode's.
    qwen.wait_for_engine()
    yieldtok.wait_for_engine_loads()
    text = long_text(10 * 1024 * 1024)
    task = asyncio.ensure_future(qwen.async_encode(text))  # an asyncio.Future, like tokenizers
    # The text is converted to UTF-8 on the pool before its job is queued: wait for the job.
    for _ in range(200):
        await asyncio.sleep(0.01)
        if yieldtok.scheduler_info()["queued"] >= 1:
            break
    assert not task.done(), "10 MB should take far longer than its conversion"
    assert yieldtok.scheduler_info()["queued"] >= 1
    t0 = time.perf_counter()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    stopped = await wait_idle()
    # The job leaves the queue within a few ms (a piece is ~2 KB, about a millisecond of work).
    assert stopped < 0.05, f"scheduler still busy {stopped * 1e3:.1f} ms after cancel"
    # ...and the workers really stop: no CPU burnt afterwards (a live 10 MB encode burns ~2 CPU-s/s).
    await asyncio.sleep(0.01)
    burnt = await cpu_over(0.25)
    assert burnt < 0.06, f"{burnt:.3f} CPU-s burnt in 0.25 s after cancel"
    # A short follow-up request is served quickly and the tokenizer still works.
    t1 = time.perf_counter()
    e = await qwen.async_encode("follow-up request")
    assert time.perf_counter() - t1 < 0.25
    assert e.ids == qwen.encode("follow-up request").ids
    print(f"cancel -> idle {stopped * 1e3:.2f} ms (since cancel() {(time.perf_counter() - t0) * 1e3:.1f} ms), CPU after {burnt * 1e3:.1f} ms")


async def test_cancel_batch_and_wait_for_timeout(slow_qwen):
    qwen = slow_qwen
    qwen.wait_for_engine()  # background engine loads are not part of what is measured
    yieldtok.wait_for_engine_loads()
    texts = [long_text(1024 * 1024)] * 4
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(qwen.async_encode_batch(texts), timeout=0.05)
    assert await wait_idle() < 0.05
    assert await cpu_over(0.2) < 0.05
    tok = yieldtok.AsyncTokenizer(qwen)
    task = asyncio.create_task(tok.encode(texts[0]))
    await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_idle() < 0.05
    assert (await tok.encode("still fine")).ids == qwen.encode("still fine").ids


async def test_bounded_threads_under_2048_awaits(qwen):
    text = "The quick brown fox jumps over the lazy dog. " * 40
    peak = os_threads()
    done = asyncio.Event()

    async def sampler():
        nonlocal peak
        while not done.is_set():
            peak = max(peak, os_threads())
            await asyncio.sleep(0.002)

    s = asyncio.create_task(sampler())
    results = await asyncio.gather(*(qwen.async_encode(text) for _ in range(2048)))
    done.set()
    await s
    peak = max(peak, os_threads())
    assert len({tuple(r.ids) for r in results}) == 1
    limit = (os.cpu_count() or 2) + 16
    assert peak < limit, f"{peak} OS threads (limit {limit})"


async def test_event_loop_keeps_ticking(qwen):
    """A loose regression guard (the benchmark holds the real targets): while a ~160k-token
    document is awaited, a 1 ms heartbeat keeps running (a GIL-holding encode would stall it
    for the whole encode, ~1 s)."""
    text = long_text(700_000)
    gaps = []
    stop = False

    async def heartbeat():
        last = time.perf_counter()
        while not stop:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    hb = asyncio.create_task(heartbeat())
    await asyncio.sleep(0.02)
    t0 = time.perf_counter()
    enc = await qwen.async_encode(text)
    elapsed = time.perf_counter() - t0
    stop = True
    await hb
    assert len(enc) > 100_000
    assert max(gaps) < max(0.1, elapsed / 3), f"max gap {max(gaps) * 1e3:.1f} ms during a {elapsed * 1e3:.0f} ms encode"


async def test_errors_in_awaitables(qwen):
    with pytest.raises(yieldtok.TokenizerValueError, match="surrogate"):
        await qwen.async_encode("bad \ud800 text")
    with pytest.raises(yieldtok.TokenizerValueError, match="surrogate"):
        await qwen.async_encode_batch(["ok", "bad \udfff"])
    with pytest.raises(yieldtok.TokenizerValueError, match="0..2"):
        await qwen.async_decode_batch([[1, 2], [2**33]])
    with pytest.raises(yieldtok.TokenizerValueError, match="0..2"):
        await qwen.async_decode([-5])
    with pytest.raises(TypeError):
        await qwen.async_encode(b"bytes")
    # Pairs are supported (issue 14): the awaitable gives the sync pair encoding.
    assert (await qwen.async_encode("a", "b")).ids == qwen.encode("a", "b").ids
    # Pre-tokenized input too (tests/python/test_pretokenized.py).
    assert (await qwen.async_encode(["a"], is_pretokenized=True)).ids == qwen.encode(["a"], is_pretokenized=True).ids
    with pytest.raises(TypeError):
        await qwen.async_encode("a", is_pretokenized=True)
    assert (await qwen.async_encode("works after errors")).ids == qwen.encode("works after errors").ids

