"""Interpreter exit right after many awaits: the bridge threads must not take the GIL while
CPython finalizes (that aborts the process on CPython < 3.14). Each run is a fresh process
that awaits 2048 encodes and exits at once; every run must exit with status 0."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import fixture_dir

pytestmark = pytest.mark.serial  # timing-sensitive or machine-wide: run alone, after the others (pytest.ini)

CHILD = r"""
import asyncio, sys
import yieldtok
tok = yieldtok.Tokenizer.from_dir(sys.argv[1])
text = "Hello world, a medium text to encode before the interpreter exits. " * 8
async def main():
    r = await asyncio.gather(*(tok.async_encode(text) for _ in range(2048)))
    assert len(r) == 2048
    # leave some awaits unfinished too: their results arrive while Python shuts down
    for _ in range(256):
        asyncio.ensure_future(tok.async_encode(text * 4))
    await asyncio.sleep(0)
if sys.argv[2] == "uvloop":
    import uvloop
    uvloop.run(main())
else:
    asyncio.run(main())
print("done")
"""


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_exit_after_many_awaits_is_clean(loop):
    if loop == "uvloop":
        pytest.importorskip("uvloop")
    for run in range(6):
        r = subprocess.run([sys.executable, "-X", "faulthandler", "-c", CHILD, str(fixture_dir("qwen3")), loop],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0 and r.stdout.strip() == "done", f"run {run}: exit {r.returncode}\n{r.stderr[-2000:]}"
