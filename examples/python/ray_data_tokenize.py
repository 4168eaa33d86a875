#!/usr/bin/env python3
"""Tokenize a text corpus with Ray Data and yieldtok: JSONL or Parquet in, Parquet out.

Each Ray worker holds one tokenizer, loaded once in the callable class's constructor;
``map_batches`` hands it Arrow batches, and it writes the ids as an Arrow ``list<uint32>``
column (``input_ids``) plus ``num_tokens``. Options: truncation to ``--max-length`` tokens, and
``--chat`` to render a ``messages`` column (JSON text of a conversation) with the tokenizer's
chat template before encoding (``apply_chat_template(..., tokenize=False)`` then ``encode``
without special tokens, as transformers tokenizes a rendered prompt).

``--engine tokenizers`` runs the same pipeline on Hugging Face ``tokenizers`` (the comparison in
``bindings-py/bench/scale_bench.py``).

Run it on this machine (a local Ray cluster of ``--num-cpus`` CPUs is started for you)::

    python examples/python/ray_data_tokenize.py --tokenizer .cache/fixtures/qwen3 \\
        --input corpus.jsonl --output tokens/ [--max-length 512] [--chat]

On a real cluster, start Ray there (``ray start --head`` / ``ray start --address=...``) and run
the same command with ``--address auto``: the tokenizer is sent to every worker inside the
pickled callable (yieldtok tokenizers pickle with their ``tokenizer_config.json``), so workers
need no copy of the tokenizer folder; input and output paths must be visible to all nodes
(shared storage or ``s3://...``).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any, Optional

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


class Tokenize:
    """The per-worker callable: loads (or unpickles) the tokenizer once, then encodes batches.

    ``tokenizer``: a ``yieldtok.Tokenizer`` (pickled to each worker by Ray) or a path to a
    model folder / ``tokenizer.json`` that every worker can read. ``threads``: the size of
    yieldtok's pool inside this worker (``YIELDTOK_THREADS``); Ray gives each worker
    ``num_cpus`` CPUs, so the default is 1 thread per worker.
    """

    def __init__(
        self,
        tokenizer: Any,
        text_column: str = "text",
        max_length: Optional[int] = None,
        chat: bool = False,
        engine: str = "yieldtok",
        threads: int = 1,
    ) -> None:
        os.environ.setdefault("YIELDTOK_THREADS", str(threads))
        os.environ.setdefault("RAYON_NUM_THREADS", str(threads))
        self.text_column = text_column
        self.chat = chat
        self.engine = engine
        if engine == "yieldtok":
            import yieldtok

            if isinstance(tokenizer, yieldtok.Tokenizer):
                self.tok = tokenizer
            else:
                path = str(tokenizer)
                self.tok = yieldtok.Tokenizer.from_dir(path) if os.path.isdir(path) else yieldtok.Tokenizer.from_file(path)
        elif engine == "tokenizers":
            if chat:
                raise ValueError("--chat needs a chat-template renderer: use the yieldtok engine")
            import tokenizers

            path = str(tokenizer)
            self.tok = tokenizers.Tokenizer.from_file(os.path.join(path, "tokenizer.json") if os.path.isdir(path) else path)
        else:
            raise ValueError(f"unknown engine {engine!r}")
        if max_length is not None:
            self.tok.enable_truncation(max_length)

    def texts(self, batch: pa.Table) -> list[str]:
        if not self.chat:
            return batch.column(self.text_column).to_pylist()
        return [self.tok.apply_chat_template(json.loads(m), tokenize=False) for m in batch.column("messages").to_pylist()]

    def __call__(self, batch: pa.Table) -> pa.Table:
        texts = self.texts(batch)
        # A rendered chat already holds its special tokens.
        encodings = self.tok.encode_batch(texts, add_special_tokens=not self.chat)
        if self.engine == "yieldtok":
            arrays = [e.ids_array for e in encodings]  # zero-copy views
        else:
            arrays = [np.asarray(e.ids, dtype=np.uint32) for e in encodings]
        lengths = np.fromiter((len(a) for a in arrays), dtype=np.int64, count=len(arrays))
        offsets = np.zeros(len(arrays) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        flat = np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.uint32)
        ids = pa.LargeListArray.from_arrays(pa.array(offsets), pa.array(flat.astype(np.uint32, copy=False)))
        return batch.append_column("input_ids", ids).append_column("num_tokens", pa.array(lengths))


def read(path: str):
    import ray.data

    if path.endswith(".parquet") or os.path.isdir(path):
        return ray.data.read_parquet(path)
    return ray.data.read_json(path)


def run(
    tokenizer: Any,
    input_path: str,
    output_path: Optional[str],
    *,
    max_length: Optional[int] = None,
    chat: bool = False,
    engine: str = "yieldtok",
    workers: int = 2,
    cpus_per_worker: float = 1.0,
    batch_size: int = 256,
) -> dict:
    """Tokenize ``input_path`` into Parquet at ``output_path`` (or only count, if ``None``) on the
    running Ray cluster with ``workers`` tokenizer workers reserving ``cpus_per_worker`` CPUs
    each; returns the counts and the wall time.

    The reservation must leave a CPU for Ray Data's read and write tasks: actors holding every
    CPU of the cluster starve them, and the pipeline waits forever (on a 2-CPU machine, 2
    workers of 0.5 CPU, or 1 of 1)."""
    import ray.data

    start = time.perf_counter()
    ds = read(input_path).map_batches(
        Tokenize,
        fn_constructor_kwargs={"tokenizer": tokenizer, "max_length": max_length, "chat": chat, "engine": engine},
        batch_format="pyarrow",
        batch_size=batch_size,
        compute=ray.data.ActorPoolStrategy(size=workers),
        num_cpus=cpus_per_worker,
    )
    if output_path is None:
        tokens = rows = 0
        for batch in ds.iter_batches(batch_format="pyarrow", batch_size=None):
            rows += batch.num_rows
            tokens += int(pc.sum(batch.column("num_tokens")).as_py() or 0)
    else:
        ds.write_parquet(output_path)
        written = ray.data.read_parquet(output_path)
        rows = written.count()
        tokens = int(written.sum("num_tokens") or 0)
    return {"rows": rows, "tokens": tokens, "seconds": time.perf_counter() - start}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tokenizer", required=True, help="model folder or tokenizer.json")
    ap.add_argument("--input", required=True, help="JSONL (a `text` or `messages` field per line) or Parquet")
    ap.add_argument("--output", help="Parquet folder to write (default: only count)")
    ap.add_argument("--max-length", type=int)
    ap.add_argument("--chat", action="store_true", help="render the `messages` column (JSON text) with the chat template")
    ap.add_argument("--engine", choices=["yieldtok", "tokenizers"], default="yieldtok")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cpus-per-worker", type=float, default=0.5, help="CPUs each worker reserves (leave one for reads and writes)")
    ap.add_argument("--num-cpus", type=int, default=2, help="CPUs of the local cluster (ignored with --address)")
    ap.add_argument("--address", help="an existing Ray cluster (e.g. `auto`)")
    args = ap.parse_args()

    import ray

    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=args.num_cpus, include_dashboard=False)
    tokenizer: Any = args.tokenizer
    if args.engine == "yieldtok" and args.address:
        import yieldtok  # ship the tokenizer itself: the workers need no copy of the folder

        tokenizer = yieldtok.Tokenizer.from_dir(args.tokenizer) if os.path.isdir(args.tokenizer) else yieldtok.Tokenizer.from_file(args.tokenizer)
    out = run(tokenizer, args.input, args.output, max_length=args.max_length, chat=args.chat, engine=args.engine, workers=args.workers, cpus_per_worker=args.cpus_per_worker)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
