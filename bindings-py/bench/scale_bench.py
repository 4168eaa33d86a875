#!/usr/bin/env python3
"""Scale-out benchmark (issue 18): the examples' pipelines with yieldtok and with `tokenizers`,
side by side in one run.

1. Ray Data (`examples/python/ray_data_tokenize.py`) on a local Ray cluster of 2 CPUs: the
   corpus read from JSONL, tokenized by 1 and by 2 workers (one tokenizer thread each), ids
   counted on the driver; tokens per second of wall time, and per worker-second (wall x
   workers), medians of --runs.
2. `datasets` (`examples/python/datasets_map.py`'s mapped function; for `tokenizers` the same
   function over `tokenizers.Tokenizer.encode_batch` with its thread pool limited to 1):
   `Dataset.map(batched=True, num_proc=1 | 2)`, a fresh cache each run.

Corpus: --texts texts of 1–4 KB cut from ../shared/data's conversations (or from the varied
test texts without it). Tokenizer: --tokenizer (default qwen3 from the fixtures).

Usage:
    .venv/bin/python bindings-py/bench/scale_bench.py [--runs 3] [--texts 4000] [--tokenizer DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "examples" / "python"))
sys.path.insert(0, str(REPO / "tests" / "python"))
os.environ.setdefault("YIELDTOK_THREADS", "1")
os.environ.setdefault("RAYON_NUM_THREADS", "1")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")


def corpus(n: int) -> list[str]:
    from conftest import VARIED, real_text

    real = real_text(n * 4200) or "\n\n".join(VARIED[2:] * 50)
    texts, i, size = [], 0, 1024
    while len(texts) < n:
        if i + size > len(real):
            i = 0
        texts.append(real[i : i + size])
        i, size = i + size, 1024 + (size * 7919) % 3072
    return texts


class HfEncodeBatch:
    """`datasets_map.EncodeBatch` on `tokenizers`."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._tok = None

    def __getstate__(self) -> dict:
        return {"path": self.path}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["path"])

    def __call__(self, batch: dict) -> dict:
        import numpy as np
        import tokenizers

        if self._tok is None:
            self._tok = tokenizers.Tokenizer.from_file(self.path)
        ids = [np.asarray(e.ids, dtype=np.uint32) for e in self._tok.encode_batch(batch["text"])]
        return {"input_ids": ids, "num_tokens": [len(a) for a in ids]}


def datasets_run(src: str, fn, num_proc: int) -> tuple[float, int]:
    import datasets

    with tempfile.TemporaryDirectory() as cache:
        ds = datasets.load_dataset("json", data_files=src, split="train", cache_dir=cache)
        start = time.perf_counter()
        out = ds.map(fn, batched=True, batch_size=256, num_proc=num_proc if num_proc > 1 else None, remove_columns=["text"])
        seconds = time.perf_counter() - start
        return seconds, int(sum(out["num_tokens"]))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--texts", type=int, default=4000)
    ap.add_argument("--tokenizer", default=str(REPO / ".cache" / "fixtures" / "qwen3"))
    ap.add_argument("--json")
    args = ap.parse_args()

    import datasets
    import ray

    import datasets_map
    import ray_data_tokenize
    import yieldtok

    datasets.disable_progress_bars()
    texts = corpus(args.texts)
    tmp = tempfile.mkdtemp()
    src = os.path.join(tmp, "corpus.jsonl")
    with open(src, "w", encoding="utf-8") as f:
        f.writelines(json.dumps({"text": t}, ensure_ascii=False) + "\n" for t in texts)
    mb = sum(len(t.encode()) for t in texts) / 1e6
    print(f"corpus: {len(texts)} texts, {mb:.1f} MB; tokenizer {args.tokenizer}; load average {os.getloadavg()[0]:.2f}")

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1",
             runtime_env={"env_vars": {"PYTHONPATH": str(REPO / "examples" / "python")}})
    results: dict = {}
    for workers in (1, 2):
        for engine in ("yieldtok", "tokenizers"):
            runs = []
            for _ in range(args.runs):
                out = ray_data_tokenize.run(args.tokenizer, src, None, engine=engine, workers=workers, cpus_per_worker=0.5, batch_size=256)
                runs.append(out["tokens"] / out["seconds"])
            results[f"ray/{engine}/{workers}"] = statistics.median(runs)
    ray.shutdown()

    tok = yieldtok.Tokenizer.from_dir(args.tokenizer)
    hf_path = os.path.join(args.tokenizer, "tokenizer.json")
    for num_proc in (1, 2):
        for engine, fn in (("yieldtok", datasets_map.EncodeBatch(tok)), ("tokenizers", HfEncodeBatch(hf_path))):
            runs = []
            for _ in range(args.runs):
                seconds, tokens = datasets_run(src, fn, num_proc)
                runs.append(tokens / seconds)
            results[f"datasets/{engine}/{num_proc}"] = statistics.median(runs)

    print(f"\n{'pipeline':<10} {'procs':>5} {'yieldtok tok/s':>15} {'tokenizers tok/s':>17} {'ratio':>6} {'per worker-s (yt)':>18}")
    for kind in ("ray", "datasets"):
        for n in (1, 2):
            y, h = results[f"{kind}/yieldtok/{n}"], results[f"{kind}/tokenizers/{n}"]
            print(f"{kind:<10} {n:>5} {y:>15,.0f} {h:>17,.0f} {y / h:>5.2f}x {y / n:>18,.0f}")
        y1, y2 = results[f"{kind}/yieldtok/1"], results[f"{kind}/yieldtok/2"]
        h1, h2 = results[f"{kind}/tokenizers/1"], results[f"{kind}/tokenizers/2"]
        print(f"{kind:<10} scaling 1→2: yieldtok {y2 / y1:.2f}x, tokenizers {h2 / h1:.2f}x")
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
