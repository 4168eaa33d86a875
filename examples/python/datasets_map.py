#!/usr/bin/env python3
"""Tokenize a Hugging Face ``datasets`` dataset with yieldtok: ``Dataset.map(batched=True,
num_proc=N)``, cached.

``datasets`` fingerprints the mapped function by pickling it, tokenizer included: a yieldtok
tokenizer pickles to the same bytes every time (its ``tokenizer.json`` text and config), so the
fingerprint is the same in every run and a second run loads the result from the cache instead
of tokenizing again. ``num_proc`` worker processes each get the tokenizer by pickle.

    python examples/python/datasets_map.py --tokenizer .cache/fixtures/qwen3 --input corpus.jsonl \\
        [--num-proc 2] [--max-length 512] [--cache-dir DIR]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import time
from typing import Optional


class EncodeBatch:
    """The mapped function: ``{"text": [...]}`` → ``{"input_ids": [...], "num_tokens": [...]}``.

    It pickles as the tokenizer and ``max_length`` (what ``datasets`` fingerprints and sends to
    its workers) and truncates a private copy of the tokenizer, never the caller's."""

    def __init__(self, tokenizer, max_length: Optional[int] = None) -> None:
        self.tokenizer, self.max_length = tokenizer, max_length
        self._tok = None

    def __getstate__(self) -> dict:
        return {"tokenizer": self.tokenizer, "max_length": self.max_length}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["tokenizer"], state["max_length"])

    def __call__(self, batch: dict) -> dict:
        if self._tok is None:
            self._tok = copy.copy(self.tokenizer)
            if self.max_length is not None:
                self._tok.enable_truncation(self.max_length)
        encodings = self._tok.encode_batch(batch["text"])
        ids = [e.ids_array for e in encodings]
        return {"input_ids": ids, "num_tokens": [len(a) for a in ids]}


def tokenize(input_path: str, tokenizer, *, num_proc: Optional[int] = 2, max_length: Optional[int] = None, cache_dir: Optional[str] = None, batch_size: int = 256):
    """Load ``input_path`` (JSONL with a ``text`` field) and map it; returns the mapped dataset."""
    import datasets

    ds = datasets.load_dataset("json", data_files=input_path, split="train", cache_dir=cache_dir)
    return ds.map(EncodeBatch(tokenizer, max_length), batched=True, batch_size=batch_size, num_proc=num_proc, remove_columns=["text"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--input", required=True)
    ap.add_argument("--num-proc", type=int, default=2)
    ap.add_argument("--max-length", type=int)
    ap.add_argument("--cache-dir")
    args = ap.parse_args()

    import yieldtok

    tok = yieldtok.Tokenizer.from_dir(args.tokenizer) if os.path.isdir(args.tokenizer) else yieldtok.Tokenizer.from_file(args.tokenizer)
    start = time.perf_counter()
    ds = tokenize(args.input, tok, num_proc=args.num_proc, max_length=args.max_length, cache_dir=args.cache_dir)
    print(json.dumps({"rows": len(ds), "tokens": int(sum(ds["num_tokens"])), "fingerprint": ds._fingerprint, "seconds": time.perf_counter() - start}))


if __name__ == "__main__":
    main()
