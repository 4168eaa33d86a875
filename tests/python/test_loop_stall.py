"""The event loop keeps running while a huge str is handed to an awaitable call (issue 17,
item 4): ``async_count`` / ``async_encode`` on a long non-ASCII ``str`` return their awaitable at
once (the UTF-8 conversion and the copy run off the loop, in pieces that take the GIL for a few
milliseconds each), and a ticker on the loop never stalls long while the call runs.

Old code: converting a 200 MB non-ASCII str on the loop took ~580 ms before the awaitable was
returned (so the loop stalled at least that long); the limits here are generous for a loaded
machine (an idle ticker there shows gaps of ~20 ms, a first call ~80 ms) and still far below.
"""

from __future__ import annotations

import asyncio
import time

import pytest

import yieldtok
from conftest import fixture_dir

pytestmark = pytest.mark.serial  # timing-sensitive or machine-wide: run alone, after the others (pytest.ini)

# ~96 MB of UTF-8 (Latin-1 and CJK text: no str of this size is ASCII)
TEXT = ("héllo wörld — ünïcode 東京 " * 3_200_000)
CALL_LIMIT_S = 0.06
GAP_LIMIT_S = 0.4


async def probe(make_call):
    gaps = []

    async def ticker(stop):
        last = time.perf_counter()
        while not stop.is_set():
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    stop = asyncio.Event()
    t = asyncio.ensure_future(ticker(stop))
    await asyncio.sleep(0.05)
    t0 = time.perf_counter()
    aw = make_call()
    call_s = time.perf_counter() - t0
    out = await aw
    stop.set()
    await t
    return out, call_s, max(gaps)


@pytest.fixture(scope="module")
def tok():
    return yieldtok.Tokenizer.from_dir(fixture_dir("qwen3"))


@pytest.mark.parametrize("method", ["async_count", "async_encode"])
def test_huge_non_ascii_str_does_not_stall_the_loop(tok, method):
    want = tok.count(TEXT)
    out, call_s, gap = asyncio.run(probe(lambda: getattr(tok, method)(TEXT)))
    n = out if method == "async_count" else len(out.ids)
    assert n == want
    assert call_s < CALL_LIMIT_S, f"{method} took {call_s * 1000:.0f} ms to return its awaitable"
    assert gap < GAP_LIMIT_S, f"the loop stalled {gap * 1000:.0f} ms"
    if method == "async_encode":
        # offsets refer to the str (code points), as for a short text
        assert out.offsets[-1][1] <= len(TEXT)


def test_huge_str_with_a_lone_surrogate_is_a_typed_error(tok):
    bad = TEXT[:2_500_000] + "\ud800" + TEXT[:10]

    async def run():
        with pytest.raises(yieldtok.TokenizerValueError, match="lone surrogate U\\+D800 at index 2500000"):
            await tok.async_count(bad)

    asyncio.run(run())


def test_cancelling_while_the_str_is_read(tok):
    async def run():
        task = asyncio.ensure_future(tok.async_encode(TEXT))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # the tokenizer keeps working
        assert await tok.async_count("hello world") == tok.count("hello world")

    asyncio.run(run())
