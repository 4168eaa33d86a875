"""Scale-out (issue 18): results that pickle, the Ray Data and Ray actor-pool examples on a real
local Ray cluster, and ``datasets.map(num_proc=2)`` with a stable fingerprint.

Ray and ``datasets`` are optional: without them those tests are skipped, unless
``YIELDTOK_REQUIRE_SCALE_OUT=1`` (the test command sets it and installs both), which turns a
missing package into a failure.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import pathlib
import pickle
import subprocess
import sys

import numpy as np
import pytest

import yieldtok
from conftest import REPO, VARIED, fixture_dir, real_text

pytestmark = pytest.mark.serial  # timing-sensitive or machine-wide: run alone, after the others (pytest.ini)

EXAMPLES = REPO / "examples" / "python"
REQUIRED = os.environ.get("YIELDTOK_REQUIRE_SCALE_OUT") == "1"


def need(module: str):
    if importlib.util.find_spec(module) is None:
        if REQUIRED:
            pytest.fail(f"{module} is not installed and YIELDTOK_REQUIRE_SCALE_OUT=1", pytrace=False)
        pytest.skip(f"{module} not installed")
    return importlib.import_module(module)


def example(name: str):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # so Ray can pickle the example's classes by reference
    spec.loader.exec_module(mod)
    return mod


def corpus(n: int = 120) -> list[str]:
    """Real conversation text cut into 0.2–4 KB pieces when available, plus the varied texts."""
    texts = [t for t in VARIED if t]
    real = real_text(200_000)
    if real:
        i, size = 0, 200
        while i < len(real) and len(texts) < n:
            texts.append(real[i : i + size])
            i, size = i + size, 200 + (size * 7) % 3800
    while len(texts) < n:
        texts.append(" ".join(VARIED[2 + len(texts) % (len(VARIED) - 2)] for _ in range(1 + len(texts) % 5)))
    return texts


def write_jsonl(path: pathlib.Path, rows: list[dict]) -> str:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def traj(reward: float, token: str = "token_id:50") -> dict:
    return {
        "messages_and_choices": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": f"Weather in city {reward}?"},
            {
                "finish_reason": "stop",
                "index": 0,
                "message": {"role": "assistant", "content": "Sunny."},
                "logprobs": {
                    "content": [
                        {"token": token, "logprob": -0.5},
                        {"token": "token_id:13", "logprob": float("-inf")},
                        {"token": "token_id:151645", "logprob": -0.125},
                    ]
                },
            },
        ],
        "reward": reward,
    }


def groups(k: int) -> list:
    return [[traj(float(g + t)) for t in range(3)] for g in range(k)]


def same_result(a: yieldtok.TokenizedResult, b: yieldtok.TokenizedResult) -> None:
    for field in ("token_ids", "assistant_mask", "input_pos", "choice_offsets"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    assert np.asarray(a.logprobs).tobytes() == np.asarray(b.logprobs).tobytes()  # NaN and -inf bit for bit
    for field in ("advantage", "weight", "prompt_id", "prompt_length", "chat", "group_index", "trajectory_index", "history_index"):
        x, y = getattr(a, field), getattr(b, field)
        assert x == y or (isinstance(x, float) and math.isnan(x) and math.isnan(y)), field


# ---- pickling ----------------------------------------------------------------------------


def test_tokenized_results_pickle_bit_exact_and_deterministic(qwen):
    results = qwen.tokenize_trajectory_groups(groups(2), seed=1)
    assert results and any(np.isnan(np.asarray(r.logprobs)).any() for r in results)
    for r in results + [results[0].without_prompt()]:
        data = pickle.dumps(r)
        assert data == pickle.dumps(r)
        back = pickle.loads(data)
        assert isinstance(back, yieldtok.TokenizedResult)
        same_result(back, r)
    packed = yieldtok.packed_tensors_from_tokenized_results(pickle.loads(pickle.dumps(results)), seq_len=256, seed=3)
    want = yieldtok.packed_tensors_from_tokenized_results(results, seq_len=256, seed=3)
    assert packed.keys() == want.keys()
    for k in want:
        a, b = np.asarray(packed[k]), np.asarray(want[k])
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), k


def test_bad_result_bytes_raise_a_clear_error(qwen):
    r = qwen.tokenize_trajectory_groups(groups(1), seed=1)[0]
    ctor, (data,) = r.__reduce__()
    for bad, words in ((data[:-3], "end inside"), (data + b"\0", "trailing"), (b"garbage!" + data[8:], "bad header")):
        with pytest.raises(yieldtok.TokenizerValueError, match=words):
            ctor(bad)


# ---- Ray ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ray_cluster():
    ray = need("ray")
    need("pyarrow")
    if not ray.is_initialized():
        # A real local cluster (raylet, GCS, worker processes), loopback only.
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            log_to_driver=False,
            _node_ip_address="127.0.0.1",
            runtime_env={"env_vars": {"PYTHONPATH": str(EXAMPLES)}},
        )
    yield ray
    ray.shutdown()


@pytest.mark.parametrize("mode", ["path", "pickled", "truncated", "chat"])
def test_ray_data_pipeline_equals_tokenizers(ray_cluster, tmp_path, mode):
    import pyarrow.parquet as pq
    import tokenizers

    mod = example("ray_data_tokenize")
    d = fixture_dir("qwen3")
    texts = corpus()
    hf = tokenizers.Tokenizer.from_file(str(d / "tokenizer.json"))
    yt = yieldtok.Tokenizer.from_dir(d)
    if mode == "chat":
        convs = [[{"role": "system", "content": "Be brief."}, {"role": "user", "content": t}, {"role": "assistant", "content": t[::-1]}] for t in texts[:40]]
        rows = [{"id": i, "messages": json.dumps(c, ensure_ascii=False)} for i, c in enumerate(convs)]
        want = [hf.encode(yt.apply_chat_template(c, tokenize=False), add_special_tokens=False).ids for c in convs]
    else:
        rows = [{"id": i, "text": t} for i, t in enumerate(texts)]
        if mode == "truncated":
            hf.enable_truncation(64)
        want = [e.ids for e in hf.encode_batch(texts)]
    src = write_jsonl(tmp_path / "in.jsonl", rows)
    out = tmp_path / "out"
    tokenizer = yt if mode == "pickled" else str(d)
    stats = mod.run(tokenizer, src, str(out), max_length=64 if mode == "truncated" else None, chat=mode == "chat", workers=2, cpus_per_worker=0.5, batch_size=16)
    table = pq.read_table(str(out))
    got = dict(zip(table.column("id").to_pylist(), table.column("input_ids").to_pylist()))
    assert stats["rows"] == len(rows) == len(got)
    assert [got[i] for i in range(len(rows))] == want
    assert stats["tokens"] == sum(map(len, want))
    assert table.schema.field("input_ids").type.value_type.id == __import__("pyarrow").uint32().id


def test_ray_data_tokenizers_mode_counts_the_same(ray_cluster, tmp_path):
    mod = example("ray_data_tokenize")
    d = fixture_dir("llama3_1")
    src = write_jsonl(tmp_path / "in.jsonl", [{"text": t} for t in corpus(60)])
    ours = mod.run(str(d), src, None, engine="yieldtok", workers=2, cpus_per_worker=0.5, batch_size=8)
    theirs = mod.run(str(d), src, None, engine="tokenizers", workers=2, cpus_per_worker=0.5, batch_size=8)
    assert (ours["rows"], ours["tokens"]) == (theirs["rows"], theirs["tokens"]) and ours["tokens"] > 0


def test_ray_actor_pool_trajectories_equal_local(ray_cluster, qwen):
    mod = example("ray_trajectories")
    batches = [groups(2), json.dumps(groups(3)).encode(), [[traj(0.0, "token_id:999999999"), traj(1.0), traj(2.0)]]]
    results, errors = mod.tokenize_groups(2, str(fixture_dir("qwen3")), batches, seed=7, cpus_per_worker=0.5)
    want = []
    for i, b in enumerate(batches):
        try:
            want.extend(qwen.tokenize_trajectory_groups(b, seed=7 + i))
        except yieldtok.TrajectoryError as e:
            want.extend(e.results)
    assert len(results) == len(want) > 0
    for a, b in zip(results, want):
        same_result(a, b)
    assert len(errors) == 1 and errors[0].startswith("batch 2:") and "999999999" in errors[0]
    packed = yieldtok.packed_tensors_from_tokenized_results(results, seq_len=512, seed=0)
    assert packed["tokens"].shape[1] == 512


# ---- datasets -----------------------------------------------------------------------------


def test_datasets_map_num_proc_equals_tokenizers_and_caches(tmp_path):
    need("datasets")
    import tokenizers

    d = fixture_dir("gpt4o")
    texts = corpus(80)
    src = write_jsonl(tmp_path / "in.jsonl", [{"text": t} for t in texts])
    cache = tmp_path / "hf-cache"
    script = EXAMPLES / "datasets_map.py"
    env = dict(os.environ, HF_DATASETS_CACHE=str(cache), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")

    def run() -> dict:
        r = subprocess.run([sys.executable, str(script), "--tokenizer", str(d), "--input", src, "--num-proc", "2", "--max-length", "48", "--cache-dir", str(cache)],
                           capture_output=True, text=True, env=env, timeout=600)
        assert r.returncode == 0, r.stderr[-3000:]
        return json.loads(r.stdout.strip().splitlines()[-1])

    first = run()
    files = sorted(p.name for p in cache.rglob("cache-*.arrow"))
    second = run()  # a fresh process: same fingerprint, so datasets loads its cache
    assert first["fingerprint"] == second["fingerprint"]
    assert sorted(p.name for p in cache.rglob("cache-*.arrow")) == files and files
    hf = tokenizers.Tokenizer.from_file(str(d / "tokenizer.json"))
    hf.enable_truncation(48)
    assert first["tokens"] == second["tokens"] == sum(len(e.ids) for e in hf.encode_batch(texts))

    mod = example("datasets_map")
    tok = yieldtok.Tokenizer.from_dir(d)
    ds = mod.tokenize(src, tok, num_proc=2, max_length=48, cache_dir=str(tmp_path / "c2"))
    assert [list(x) for x in ds["input_ids"]] == [e.ids for e in hf.encode_batch(texts)]
    assert tok.truncation is None  # the caller's tokenizer is left as it was
