"""Sync calls release the GIL: a pure-Python thread keeps running during a long encode."""

from __future__ import annotations

import threading
import time

import pytest

from conftest import long_text

pytestmark = pytest.mark.serial  # timing-sensitive or machine-wide: run alone, after the others (pytest.ini)


def spin_rate(during):
    """Iterations/s of a pure-Python spin thread while `during()` runs."""
    count = 0
    stop = False

    def spin():
        nonlocal count
        while not stop:
            count += 1

    t = threading.Thread(target=spin)
    t.start()
    time.sleep(0.01)
    c0, t0 = count, time.perf_counter()
    during()
    c1, t1 = count, time.perf_counter()
    stop = True
    t.join()
    return (c1 - c0) / (t1 - t0)


def test_sync_encode_releases_the_gil(qwen):
    text = long_text(600_000)
    idle = spin_rate(lambda: time.sleep(0.3))
    during = spin_rate(lambda: qwen.encode(text))
    batch = spin_rate(lambda: qwen.encode_batch([text[i : i + 5000] for i in range(0, len(text), 5000)]))
    # tokenizers' encode (GIL held) leaves the spinner ~3%; the benchmark asserts >= 50% on a quiet
    # machine, this guard is looser for loaded CI machines.
    assert during / idle > 0.15, f"spinner kept {during / idle:.0%} of its idle rate"
    assert batch / idle > 0.15, f"spinner kept {batch / idle:.0%} of its idle rate (batch)"
