"""One bad value in a trajectory batch (issue 17, item 3): the failing trajectory is reported
with its place, every other result is kept (``TrajectoryError.results``), in every input form
(Python objects, JSON bytes, a JSONL file).

What ART 0.5.18 does, and what yieldtok does:

* ``logprob: -inf`` (a token the sampler could not have drawn, or a masked one): pydantic's
  ``float`` accepts it and ART copies it into ``logprobs`` as it is. yieldtok keeps it too.
* a NaN or infinite ``reward``: ART accepts it and every advantage of the group becomes NaN. yieldtok reports that trajectory and computes its
  group without it; ``validate_sampled_tokens=False`` takes ART's behaviour.
* a lone surrogate in a ``str``: ``json.dumps`` writes it as an escape that no JSON reader
  accepts as Unicode; yieldtok reports that trajectory (with the field's path), not a raw
  ``UnicodeEncodeError``.
"""

from __future__ import annotations

import copy
import json
import math

import pytest

import yieldtok
from test_trajectory import small_traj, tok


def with_neg_inf_logprob(reward):
    t = small_traj(reward)
    t["messages_and_choices"][2]["logprobs"]["content"][1]["logprob"] = float("-inf")
    return t


def with_surrogate(reward):
    t = small_traj(reward)
    t["messages_and_choices"][1]["content"] = "Weather\ud800?"
    return t


def batch():
    return [
        [small_traj(1.0), small_traj(float("nan")), with_neg_inf_logprob(0.0)],
        [small_traj(1.0), with_surrogate(0.5), small_traj(0.0)],
        [small_traj(float("inf")), small_traj(1.0), small_traj(0.0)],
    ]


def failure(groups, **kw) -> yieldtok.TrajectoryError:
    with pytest.raises(yieldtok.TrajectoryError) as info:
        tok("qwen3").tokenize_trajectory_groups(groups, seed=5, **kw)
    return info.value


def check(e: yieldtok.TrajectoryError, surrogate_path: bool) -> None:
    assert [(f.group, f.trajectory) for f in e.errors] == [(0, 1), (1, 1), (2, 0)], e.errors
    assert all(f.kind == "invalid_input" for f in e.errors)
    assert "reward" in e.errors[0].message and "NaN" in e.errors[0].message
    assert "surrogate" in e.errors[1].message
    if surrogate_path:
        assert "messages_and_choices[1].content" in e.errors[1].message
        assert (e.errors[1].history, e.errors[1].item) == (0, 1)
    assert "reward" in e.errors[2].message and "inf" in e.errors[2].message
    kept = sorted((r.group_index, r.trajectory_index) for r in e.results)
    assert kept == [(0, 0), (0, 2), (1, 0), (1, 2), (2, 1), (2, 2)], kept
    # each group's statistics without its bad trajectory: rewards 1 and 0, advantages +-1
    assert all(math.isclose(abs(r.advantage), 1.0, rel_tol=1e-5) for r in e.results)
    (neg_inf,) = [r for r in e.results if (r.group_index, r.trajectory_index) == (0, 2)]
    assert -math.inf in neg_inf.logprobs.tolist()


def test_objects():
    check(failure(batch()), surrogate_path=True)


def test_async_objects():
    import asyncio

    async def run():
        with pytest.raises(yieldtok.TrajectoryError) as info:
            await tok("qwen3").async_tokenize_trajectory_groups(batch(), seed=5)
        return info.value

    check(asyncio.run(run()), surrogate_path=True)


def test_json_bytes():
    # json.dumps writes NaN / Infinity / -Infinity and the surrogate as a \\ud800 escape
    data = json.dumps(batch()).encode()
    assert b"NaN" in data and b"-Infinity" in data and b"\\ud800" in data
    check(failure(data), surrogate_path=False)
    check(failure(data.decode()), surrogate_path=False)


def test_jsonl_file(tmp_path):
    lines = [json.dumps(g) for g in batch()]
    lines.insert(2, '[{"messages_and_choices": [}]')  # a broken line: its group only
    path = tmp_path / "groups.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    e = failure(path)
    assert [(f.group, f.trajectory) for f in e.errors] == [(0, 1), (1, 1), (2, None), (3, 0)], e.errors
    assert "line 3" in e.errors[2].message
    assert len(e.results) == 6


def test_art_compatible_takes_non_finite_rewards():
    groups = [g for i, g in enumerate(batch()) if i != 1]  # (group 1 has the lone surrogate)
    results = tok("qwen3").tokenize_trajectory_groups(groups, seed=5, validate_sampled_tokens=False)
    by_group = {}
    for r in results:
        by_group.setdefault(r.group_index, []).append(r.advantage)
    # ART: a NaN or infinite reward makes every advantage of its group NaN (the mean or the
    # standard deviation is NaN)
    assert len(by_group[0]) == 3 and all(math.isnan(a) for a in by_group[0])
    assert len(by_group[1]) == 3 and all(math.isnan(a) for a in by_group[1])  # (the input's group 2)


def test_neg_inf_logprobs_are_kept_like_art():
    t = tok("qwen3")
    groups = [[small_traj(1.0), with_neg_inf_logprob(0.0)]]
    results = t.tokenize_trajectory_groups(groups, seed=1)
    ref = t.tokenize_trajectory_groups([[small_traj(1.0), small_traj(0.0)]], seed=1)
    for ours, plain in zip(results, ref):
        a, b = ours.logprobs.tolist(), plain.logprobs.tolist()
        assert len(a) == len(b)
        diff = [i for i, (x, y) in enumerate(zip(a, b)) if not (x == y or (math.isnan(x) and math.isnan(y)))]
        if ours.trajectory_index == 1:
            assert len(diff) == 1 and a[diff[0]] == -math.inf and b[diff[0]] == -0.25
        else:
            assert diff == []
    packed = yieldtok.packed_tensors_from_tokenized_results(results, seq_len=256)
    assert (packed["logprobs"] == -math.inf).sum() == 1


def test_a_lone_surrogate_in_a_single_history_is_a_typed_error():
    with pytest.raises(yieldtok.TokenizerValueError, match="surrogate") as info:
        tok("qwen3").tokenize_trajectory(with_surrogate(0.0), advantage=1.0)
    assert not isinstance(info.value, UnicodeError)


def test_input_is_not_modified():
    groups = batch()
    before = copy.deepcopy(groups)
    failure(groups)
    assert json.dumps(groups) == json.dumps(before)
