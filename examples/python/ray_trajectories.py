#!/usr/bin/env python3
"""RL trajectories to training tensors on a Ray actor pool, with yieldtok.

The shape of an RL trainer's preprocessing (ART, verl, OpenRLHF, SkyRL run on Ray): rollout
workers produce trajectory groups; a pool of tokenizer actors (one tokenizer each, loaded once)
turns each group into ART's ``TokenizedResult``s — ``tokenize_trajectory_groups``, exactly ART
0.5.18's results — and the trainer packs them into fixed-length tensors
(``packed_tensors_from_tokenized_results``). Groups travel through the object store as JSON
bytes (parsed by yieldtok without the GIL) or as Python objects; results come back pickled
(their byte form: NaN logprobs survive bit for bit).

Run it on this machine (a local Ray cluster is started for you)::

    python examples/python/ray_trajectories.py --tokenizer .cache/fixtures/qwen3 \\
        --groups groups.jsonl [--seq-len 8192]

``groups.jsonl``: one group per line, a group being a list of ART trajectories (or
``{"trajectories": [...]}``). On a real cluster pass ``--address auto``; the tokenizer travels
pickled to the actors.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any, Iterable, Optional


def load_tokenizer(tokenizer: Any):
    import yieldtok

    if isinstance(tokenizer, yieldtok.Tokenizer):
        return tokenizer
    path = str(tokenizer)
    return yieldtok.Tokenizer.from_dir(path) if os.path.isdir(path) else yieldtok.Tokenizer.from_file(path)


class TrajectoryWorker:
    """One tokenizer actor. ``tokenize(groups)``: ``groups`` is JSON bytes / text or Python data
    (a list of groups); returns the ``TokenizedResult``s, and the failures of invalid
    trajectories as strings (the valid ones are kept, as yieldtok's ``TrajectoryError``
    carries them)."""

    def __init__(self, tokenizer: Any, threads: int = 1, **options: Any) -> None:
        os.environ.setdefault("YIELDTOK_THREADS", str(threads))
        self.tok = load_tokenizer(tokenizer)
        self.options = options

    def tokenize(self, groups: Any, seed: Optional[int] = None) -> tuple[list, list[str]]:
        import yieldtok

        try:
            return self.tok.tokenize_trajectory_groups(groups, seed=seed, **self.options), []
        except yieldtok.TrajectoryError as e:
            return list(e.results), [str(f) for f in e.errors]


def tokenize_groups(
    pool_size: int, tokenizer: Any, batches: Iterable[Any], seed: int = 0, cpus_per_worker: float = 1.0, **options: Any
) -> tuple[list, list[str]]:
    """Tokenize ``batches`` (each a list of groups, JSON bytes or objects; batch ``i`` with seed
    ``seed + i``) on ``pool_size`` actors of the running Ray cluster, each reserving
    ``cpus_per_worker`` CPUs; results in input order. The actors are stopped at the end."""
    import ray
    from ray.util import ActorPool

    actor = ray.remote(num_cpus=cpus_per_worker)(TrajectoryWorker)
    actors = [actor.remote(tokenizer, **options) for _ in range(pool_size)]
    results: list = []
    errors: list[str] = []
    try:
        work = list(enumerate(batches))
        for i, (rs, es) in enumerate(ActorPool(actors).map(lambda a, b: a.tokenize.remote(b[1], seed + b[0]), work)):
            results.extend(rs)
            errors.extend(f"batch {i}: {e}" for e in es)
    finally:
        for a in actors:
            ray.kill(a)
    return results, errors


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--groups", required=True, help="JSONL, one group per line")
    ap.add_argument("--groups-per-task", type=int, default=4)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seq-len", type=int, default=8192)
    ap.add_argument("--num-cpus", type=int, default=2)
    ap.add_argument("--address")
    args = ap.parse_args()

    import ray
    import yieldtok

    ray.init(address=args.address) if args.address else ray.init(num_cpus=args.num_cpus, include_dashboard=False)
    with open(args.groups, "rb") as f:
        lines = [line for line in f if line.strip()]
    # Each task gets its groups as JSON bytes: a JSON array of the lines' groups.
    batches = [b"[" + b",".join(lines[i : i + args.groups_per_task]) + b"]" for i in range(0, len(lines), args.groups_per_task)]
    tokenizer = load_tokenizer(args.tokenizer) if args.address else args.tokenizer
    results, errors = tokenize_groups(args.workers, tokenizer, batches)
    packed = yieldtok.packed_tensors_from_tokenized_results(results, seq_len=args.seq_len) if results else None
    print(json.dumps({
        "results": len(results),
        "tokens": sum(len(r) for r in results),
        "packed_rows": 0 if packed is None else int(packed["tokens"].shape[0]),
        "errors": errors,
    }))


if __name__ == "__main__":
    main()
