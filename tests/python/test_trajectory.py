"""Trajectory tokenization and packing (issue 8) through the Python binding.

Differential against what OpenPipe ART 0.5.18 produced for the committed small fixture
(tests/fixtures/trajectories-small.json -> trajectories-small.art.json, written by
tests/oracle/art_oracle.py), compared as core/tests/trajectory_art.rs does: ints exactly, floats
to 1e-6, NaN == NaN, `chat` byte for byte, provenance; seeds make CPython's `random` draws (prompt
ids, shuffles, group ids, row permutation) identical. Also: every input form gives the same
results, async == sync, per-trajectory errors keep the rest, numpy views are zero-copy and
read-only, numpy stays optional.
"""

from __future__ import annotations

import asyncio
import copy
import gc
import json
import math
import subprocess
import sys

import pytest

import yieldtok
from conftest import REPO, fixture_dir

CASES = json.loads((REPO / "tests/fixtures/trajectories-small.json").read_text(encoding="utf-8"))["cases"]
ART = json.loads((REPO / "tests/fixtures/trajectories-small.art.json").read_text(encoding="utf-8"))["cases"]
INPUT = {c["name"]: c for c in CASES}
ART_BY_NAME = {c["name"]: c for c in ART}

_toks: dict = {}


def tok(name: str) -> yieldtok.Tokenizer:
    if name not in _toks:
        _toks[name] = yieldtok.Tokenizer.from_dir(fixture_dir(name))
    return _toks[name]


# ---- comparison helpers (as core/tests/trajectory_art.rs) -----------------------------------


def fl(v) -> float:
    if isinstance(v, str):
        return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[v]
    return float(v)


def close(a: float, b: float) -> bool:
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b or abs(a - b) <= 1e-6 * max(abs(a), abs(b), 1.0)


def same_floats(ours, want) -> bool:
    ours = list(ours)
    return len(ours) == len(want) and all(close(a, fl(b)) for a, b in zip(ours, want))


def compare_result(ours: yieldtok.TokenizedResult, art: dict, per_history: bool = False) -> None:
    assert ours.token_ids.tolist() == art["token_ids"]
    assert ours.assistant_mask.tolist() == art["assistant_mask"]
    assert same_floats(ours.logprobs, art["logprobs"])
    assert ours.input_pos.tolist() == art["input_pos"]
    assert ours.choice_offsets.tolist() == art["choice_offsets"]
    assert list(ours.extra_logprobs) == list(art["extra_logprobs"])
    for k, v in art["extra_logprobs"].items():
        assert same_floats(ours.extra_logprobs[k], v), k
    assert close(ours.advantage, fl(art["advantage"]))
    if "chat" in art:
        assert ours.chat == art["chat"]
    assert len(ours) == len(art["token_ids"])
    if not per_history:
        assert close(ours.weight, fl(art["weight"]))
        assert ours.prompt_id == art["prompt_id"]
        assert ours.prompt_length == art["prompt_length"]
        assert (ours.group_index, ours.trajectory_index, ours.history_index) == (
            art["group_index"],
            art["trajectory_index"],
            art["history_index"],
        )


def same_exception(failure: yieldtok.TrajectoryFailure, art_type: str) -> bool:
    t = failure.art_exception
    if t == "TemplateError":
        return art_type.endswith("Error") and art_type not in ("ValueError", "KeyError", "AssertionError")
    return t == art_type or (t == "ValueError" and art_type == "UnicodeDecodeError")


def options(case_out: dict, case_in: dict) -> dict:
    o = dict(case_out.get("options") or case_in.get("options") or {})
    o.pop("per_history", None)
    kw = dict(
        allow_training_without_logprobs=o.get("allow_training_without_logprobs", False),
        scale_rewards=o.get("scale_rewards", True),
        shuffle_group_trajectories=o.get("shuffle_group_trajectories", True),
        drop_zero_advantage_trajectories=o.get("drop_zero_advantage_trajectories", True),
        chat_template_kwargs=o.get("chat_template_kwargs"),
        seed=o.get("seed", 0),
        chat_template_tool_schema_format=o.get("chat_template_tool_schema_format") or "default",
        validate_sampled_tokens=False,  # ART's behaviour (ART splices unvalidated ids)
    )
    return kw


def pack_kwargs(p: dict) -> dict:
    return dict(
        seq_len=p["seq_len"],
        pad_token_id=p.get("pad_token_id", -100),
        truncate_long_results=p.get("truncate_long_results", True),
        advantage_balance=p.get("advantage_balance", 0.0),
        pack_results=p.get("pack_results", True),
        seed=p.get("seed", 0),
    )


def tensor_rows(t: dict) -> list:
    width = t["shape"][1]
    rows = []
    for row in t["data"]:
        row = list(row)
        if "pad" in t:
            row += [t["pad"]] * (width - len(row))
        rows.append(row)
    return rows


def compare_packed(ours: dict, art: dict) -> None:
    np = pytest.importorskip("numpy")
    shape = tuple(art["tokens"]["shape"])
    for key, dtype in [
        ("tokens", np.int64),
        ("group_ids", np.int64),
        ("parent_ids", np.int64),
        ("input_pos", np.int64),
        ("assistant_mask", np.bool_),
        ("logprobs", np.float32),
        ("advantages", np.float32),
        ("weights", np.float32),
    ]:
        a = ours[key]
        assert a.shape == shape and a.dtype == dtype, key
        want = tensor_rows(art[key])
        if dtype in (np.int64, np.bool_):
            assert a.tolist() == want, key
        else:
            for r, row in enumerate(want):
                assert same_floats(a[r], row), (key, r)
    assert ours["pixel_values"] == [None] * shape[0]
    assert ours["image_grid_thw"] == [None] * shape[0]


def run_case(name: str, **overrides):
    out, case = ART_BY_NAME[name], INPUT[name]
    kw = options(out, case)
    kw.update(overrides)
    return tok(case["tokenizer"]).tokenize_trajectory_groups(case["groups"], **kw)


# ---- ART parity --------------------------------------------------------------------------


@pytest.mark.parametrize("name", [c["name"] for c in ART])
def test_results_equal_art(name):
    out = ART_BY_NAME[name]
    if out["ok"]:
        results = run_case(name)
        assert len(results) == len(out["results"])
        for ours, art in zip(results, out["results"]):
            compare_result(ours, art)
    else:
        with pytest.raises(yieldtok.TrajectoryError) as info:
            run_case(name)
        first = info.value.errors[0]
        assert same_exception(first, out["error"]["type"]), (first, out["error"])
        assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("name", [c["name"] for c in ART if c.get("histories")])
def test_single_histories_equal_art(name):
    out, case = ART_BY_NAME[name], INPUT[name]
    kw = options(out, case)
    for k in ("scale_rewards", "shuffle_group_trajectories", "drop_zero_advantage_trajectories", "seed"):
        kw.pop(k)
    t = tok(case["tokenizer"])
    checked = 0
    for row in out["histories"]:
        group = case["groups"][row["group_index"]]
        trajs = group["trajectories"] if isinstance(group, dict) else group
        traj = trajs[row["trajectory_index"]]
        hi = row["history_index"]
        history = traj if hi == 0 else traj["additional_histories"][hi - 1]
        adv = fl(row["result"]["advantage"]) if row.get("result") else 0.0
        if row["ok"]:
            r = t.tokenize_trajectory(history, adv, **kw)
            if row["result"] is None:
                assert r is None
            else:
                compare_result(r, row["result"], per_history=True)
        else:
            with pytest.raises(yieldtok.TrajectoryError) as info:
                t.tokenize_trajectory(history, adv, **kw)
            assert same_exception(info.value.errors[0], row["error"]["type"])
            assert info.value.results == []
        checked += 1
    assert checked == len(out["histories"])


@pytest.mark.parametrize("name", [c["name"] for c in ART if c.get("packed", {}).get("ok")])
def test_packing_equals_art(name):
    out = ART_BY_NAME[name]
    results = run_case(name)
    packed = yieldtok.packed_tensors_from_tokenized_results(results, **pack_kwargs(out["pack_options"]))
    compare_packed(packed, out["packed"])


# ---- input forms -------------------------------------------------------------------------


class FakeChoice:
    """Duck-types an openai `Choice` (pydantic): only `model_dump`."""

    def __init__(self, d):
        self._d = copy.deepcopy(d)

    def model_dump(self, mode="python"):
        return copy.deepcopy(self._d)


class FakeHistory:
    def __init__(self, h):
        self.messages_and_choices = [to_obj_item(i) for i in h["messages_and_choices"]]
        self.tools = h.get("tools")


class FakeTrajectory(FakeHistory):
    def __init__(self, t):
        super().__init__(t)
        self.additional_histories = [FakeHistory(h) for h in t.get("additional_histories", [])]
        self.reward = t.get("reward", 0.0)
        self.metrics = {"unrelated": object()}  # never serialised


class FakeGroup:
    def __init__(self, trajs):
        self.trajectories = [FakeTrajectory(t) for t in trajs]
        self.exceptions = [object()]

    def __iter__(self):
        return iter(self.trajectories)


def to_obj_item(item):
    if isinstance(item, dict) and "message" in item and "role" not in item:
        return FakeChoice(item)
    return item


def to_objects(groups):
    return [FakeGroup(g["trajectories"] if isinstance(g, dict) else g) for g in groups]


def signature(results):
    return [
        (
            r.token_ids.tolist(),
            r.assistant_mask.tolist(),
            [x if x == x else "nan" for x in r.logprobs.tolist()],
            r.choice_offsets.tolist(),
            {k: [x if x == x else "nan" for x in v.tolist()] for k, v in r.extra_logprobs.items()},
            r.advantage,
            r.weight,
            r.prompt_id,
            r.prompt_length,
            r.chat,
            (r.group_index, r.trajectory_index, r.history_index),
        )
        for r in results
    ]


@pytest.mark.parametrize("name", ["qwen3-small-basic", "qwen3-small-histories-dicts", "llama3_1-small-allow"])
def test_input_forms_agree(name, tmp_path):
    out, case = ART_BY_NAME[name], INPUT[name]
    kw = options(out, case)
    t = tok(case["tokenizer"])
    groups = case["groups"]
    want = signature(t.tokenize_trajectory_groups(groups, **kw))
    text = json.dumps(groups, ensure_ascii=False)
    (tmp_path / "g.json").write_text(text, encoding="utf-8")
    (tmp_path / "g.jsonl").write_text("\n".join(json.dumps(g) for g in groups) + "\n\n", encoding="utf-8")
    forms = {
        "bytes": text.encode(),
        "bytearray": bytearray(text.encode()),
        "str": "  \n" + text,
        "path": tmp_path / "g.json",
        "str path": str(tmp_path / "g.json"),
        "jsonl path": tmp_path / "g.jsonl",
        "objects": to_objects(groups),
        "tuples": tuple(tuple(g) if isinstance(g, list) else g for g in groups),
    }
    for form, value in forms.items():
        assert signature(t.tokenize_trajectory_groups(value, **kw)) == want, form
    # the ART fixture itself is the reference
    compare_result(t.tokenize_trajectory_groups(forms["objects"], **kw)[0], out["results"][0])


def test_single_history_input_forms():
    case = INPUT["qwen3-small-basic"]
    t = tok("qwen3")
    traj = case["groups"][0][0] if isinstance(case["groups"][0], list) else case["groups"][0]["trajectories"][0]
    want = t.tokenize_trajectory(traj, 0.5)
    assert want is not None and want.advantage == 0.5 and want.weight == 0.0 and want.prompt_id == 0
    assert traj.get("tools")
    # a bare messages_and_choices list is a history without tools
    bare = t.tokenize_trajectory(traj["messages_and_choices"], 0.5)
    assert signature([bare]) == signature([t.tokenize_trajectory({"messages_and_choices": traj["messages_and_choices"]}, 0.5)])
    assert bare.chat != want.chat
    for form in (
        {"messages_and_choices": traj["messages_and_choices"], "tools": traj.get("tools")},
        json.dumps(traj).encode(),
        json.dumps(traj),
        FakeTrajectory(traj),
    ):
        r = t.tokenize_trajectory(form, 0.5)
        assert signature([r]) == signature([want])
    assert t.tokenize_trajectory([{"role": "user", "content": "hi"}]) is None


# ---- async --------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_async_equals_sync():
    name = "qwen3-small-allow"
    out, case = ART_BY_NAME[name], INPUT[name]
    kw = options(out, case)
    t = tok(case["tokenizer"])
    sync = t.tokenize_trajectory_groups(case["groups"], **kw)
    a = await t.async_tokenize_trajectory_groups(case["groups"], **kw)
    atok = yieldtok.AsyncTokenizer(t)
    b = await atok.tokenize_trajectory_groups(json.dumps(case["groups"]).encode(), **kw)
    assert signature(a) == signature(sync) == signature(b)
    p = pack_kwargs(out["pack_options"])
    want = yieldtok.packed_tensors_from_tokenized_results(sync, **p)
    got = await atok.packed_tensors_from_tokenized_results(a, **p)
    got2 = await yieldtok.async_packed_tensors_from_tokenized_results(b, **p)
    for k in ("tokens", "group_ids", "assistant_mask", "input_pos"):
        assert got[k].tolist() == want[k].tolist() == got2[k].tolist()
    compare_packed(got, out["packed"])
    traj = case["groups"][0][0] if isinstance(case["groups"][0], list) else case["groups"][0]["trajectories"][0]
    one = await atok.tokenize_trajectory(traj, 1.0, True)
    assert signature([one]) == signature([t.tokenize_trajectory(traj, 1.0, True)])
    # many concurrent calls
    many = await asyncio.gather(*(t.async_tokenize_trajectory_groups(case["groups"], **kw) for _ in range(16)))
    assert all(signature(m) == signature(sync) for m in many)
    with pytest.raises(yieldtok.TrajectoryError):
        await atok.tokenize_trajectory_groups(INPUT["qwen3-small-errors"]["groups"], allow_training_without_logprobs=True)


# ---- errors ------------------------------------------------------------------------------


def small_traj(reward, token="token_id:50"):
    return {
        "messages_and_choices": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Weather?"},
            {
                "finish_reason": "stop",
                "index": 0,
                "message": {"role": "assistant", "content": "Sunny."},
                "logprobs": {
                    "content": [
                        {"token": token, "logprob": -0.5, "bytes": [83]},
                        {"token": "token_id:13", "logprob": -0.25},
                        {"token": "token_id:151645", "logprob": -0.125},
                    ]
                },
            },
        ],
        "reward": reward,
    }


def test_errors_name_their_place_and_keep_the_rest():
    t = tok("qwen3")
    missing = small_traj(0.0)
    del missing["messages_and_choices"][2]["logprobs"]["content"][1]["token"]
    no_role = small_traj(1.0)
    no_role["messages_and_choices"][0] = {"content": "no role"}
    groups = [
        [small_traj(1.0), small_traj(0.0), missing],
        [small_traj(1.0, "token_id:999999999"), small_traj(0.0)],
        [no_role, small_traj(0.0)],
    ]
    with pytest.raises(yieldtok.TrajectoryError) as info:
        t.tokenize_trajectory_groups(groups, seed=3)
    e = info.value
    assert isinstance(e, yieldtok.TokenizerValueError) and isinstance(e, ValueError)
    assert [(f.group, f.trajectory, f.history, f.item) for f in e.errors] == [(0, 2, 0, 2), (1, 0, 0, 2), (2, 0, 0, 0)]
    assert [f.kind for f in e.errors] == ["invalid_input", "token_id_out_of_vocabulary", "missing_role"]
    assert [f.art_exception for f in e.errors] == ["ValidationError", None, "KeyError"]
    assert "token" in e.errors[0].message
    assert str(e.errors[1]).startswith("group 1, trajectory 0, messages_and_choices, item 2: ")
    assert "999999999" in str(e.errors[1])
    assert "3 trajectories failed; first: group 0, trajectory 2" in str(e)
    # the rest of the batch: group 0's two valid trajectories, group 1's and group 2's valid one
    assert sorted((r.group_index, r.trajectory_index) for r in e.results) == [(0, 0), (0, 1), (1, 1), (2, 1)]
    assert all(isinstance(r, yieldtok.TokenizedResult) for r in e.results)
    # ART-compatible mode: the out-of-vocabulary id is spliced silently, as ART does
    with pytest.raises(yieldtok.TrajectoryError) as info:
        t.tokenize_trajectory_groups(groups, seed=3, validate_sampled_tokens=False)
    assert len(info.value.errors) == 2
    assert any(999999999 in r.token_ids.tolist() for r in info.value.results)
    # the tokenizer keeps working
    assert len(t.tokenize_trajectory_groups([groups[0][:2]], seed=3)) == 2


def test_whole_input_errors():
    t = tok("qwen3")
    for bad in (b"{", b"{}", "[1, 2", b"\xff"):
        with pytest.raises(yieldtok.TrajectoryError) as info:
            t.tokenize_trajectory_groups(bad)
        assert info.value.results == [] and info.value.errors[0].group is None
    with pytest.raises(yieldtok.TokenizerNotFoundError):
        t.tokenize_trajectory_groups("/nonexistent/groups.jsonl")
    # a value that cannot be converted fails its own trajectory, named by its field
    with pytest.raises(yieldtok.TrajectoryError) as info:
        t.tokenize_trajectory_groups([[{"messages_and_choices": [], "reward": object()}]])
    assert info.value.errors[0].trajectory == 0 and info.value.errors[0].message.startswith("invalid input: reward: ")
    with pytest.raises(yieldtok.TrajectoryError, match="reward: NaN"):
        t.tokenize_trajectory_groups([[small_traj(float("nan"))]])
    with pytest.raises(yieldtok.TokenizerValueError):
        t.tokenize_trajectory_groups([], chat_template_tool_schema_format="nope")
    assert t.tokenize_trajectory_groups([]) == []
    # a tokenizer without a chat template cannot render trajectories
    bare = yieldtok.Tokenizer.from_file(fixture_dir("qwen3") / "tokenizer.json")
    with pytest.raises(yieldtok.TokenizerValueError, match="chat template"):
        bare.tokenize_trajectory_groups([[small_traj(1.0), small_traj(0.0)]])
    with pytest.raises(yieldtok.TokenizerValueError):
        yieldtok.packed_tensors_from_tokenized_results([], 0)
    with pytest.raises(TypeError):
        yieldtok.packed_tensors_from_tokenized_results([object()], 16)


def test_seed_reproducible_and_explicit_template():
    t = tok("qwen3")
    groups = [[small_traj(1.0), small_traj(0.0), small_traj(0.25)]]
    a = t.tokenize_trajectory_groups(groups, seed=7)
    b = t.tokenize_trajectory_groups(groups, seed=7)
    assert signature(a) == signature(b)
    template = "{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}"
    c = t.tokenize_trajectory_groups(groups, seed=7, chat_template=template)
    assert c[0].chat.startswith("<system>You are terse.<user>Weather?")


def test_packing_accepts_duck_typed_results():
    name = "qwen3-small-think"
    out = ART_BY_NAME[name]
    results = run_case(name)

    class ArtLike:  # ART's TokenizedResult holds lists
        def __init__(self, r):
            for k in ("token_ids", "assistant_mask", "logprobs", "input_pos"):
                setattr(self, k, getattr(r, k).tolist())
            self.advantage, self.weight = r.advantage, r.weight
            self.prompt_id, self.prompt_length = r.prompt_id, r.prompt_length

    packed = yieldtok.packed_tensors_from_tokenized_results([ArtLike(r) for r in results], **pack_kwargs(out["pack_options"]))
    compare_packed(packed, out["packed"])
    # without_prompt, as ART's
    r = results[0]
    w = r.without_prompt()
    assert w.prompt_length == 0 and w.token_ids.tolist() == r.token_ids.tolist()[r.prompt_length :]


# ---- zero-copy views ------------------------------------------------------------------------


def test_views_are_zero_copy_and_read_only():
    np = pytest.importorskip("numpy")
    results = run_case("qwen3-small-allow")
    r = results[0]
    for name, dtype in [
        ("token_ids", np.uint32),
        ("assistant_mask", np.uint8),
        ("logprobs", np.float64),
        ("input_pos", np.uint32),
        ("choice_offsets", np.uint64),
    ]:
        a = getattr(r, name)
        assert a.dtype == dtype and a.shape == (len(r) if name != "choice_offsets" else a.shape[0],), name
        assert a.base is not None and not a.flags.owndata and not a.flags.writeable, name
        assert np.shares_memory(a, getattr(r, name)), name  # the same Rust memory every time
        with pytest.raises(ValueError):
            a[...] = 0
    packed = yieldtok.packed_tensors_from_tokenized_results(results, 1024, seed=0)
    for k in ("tokens", "group_ids", "parent_ids", "input_pos", "assistant_mask", "logprobs", "advantages", "weights"):
        a = packed[k]
        assert a.base is not None and not a.flags.owndata and not a.flags.writeable, k
    # views outlive their result objects
    ids = results[1].token_ids
    want = ids.tolist()
    tokens = packed["tokens"]
    del results, r, packed
    gc.collect()
    junk = [run_case("qwen3-small-basic") for _ in range(3)]
    assert ids.tolist() == want and tokens.shape[1] == 1024
    del junk


def test_without_numpy_fields_are_lists():
    case = INPUT["qwen3-small-basic"]
    code = f"""
import json, sys
sys.modules['numpy'] = None  # make `import numpy` fail
import yieldtok
tok = yieldtok.Tokenizer.from_dir({str(fixture_dir('qwen3'))!r})
groups = json.loads({json.dumps(json.dumps(case['groups']))})
rs = tok.tokenize_trajectory_groups(groups, seed=0, validate_sampled_tokens=False)
r = rs[0]
assert isinstance(r.token_ids, list) and isinstance(r.logprobs, list) and isinstance(r.assistant_mask, list)
p = yieldtok.packed_tensors_from_tokenized_results(rs, 512, seed=0)
assert isinstance(p['tokens'], list) and len(p['tokens'][0]) == 512 and isinstance(p['assistant_mask'][0][0], bool)
print(json.dumps([r.token_ids[:5], p['tokens'][0][:5]]))
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    ids, row = json.loads(r.stdout)
    art = ART_BY_NAME["qwen3-small-basic"]
    assert ids == art["results"][0]["token_ids"][:5]
    assert row == tensor_rows(art["packed"]["tokens"])[0][:5]


def test_python_values_serialise_like_json_dumps():
    """Python input is written as JSON by the binding: the same as going through json.dumps."""
    np = pytest.importorskip("numpy")
    t = tok("qwen3")
    base = [[small_traj(1.0), small_traj(0.0)]]
    want = signature(t.tokenize_trajectory_groups(base, seed=1))
    odd = copy.deepcopy(base)
    odd[0][0]["reward"] = np.float64(1.0)  # float subclass
    odd[0][1]["reward"] = np.int64(0)  # not an int: through the hook (tolist)
    odd[0][0]["messages_and_choices"][0]["extra"] = {1: None, None: True, 2.5: (1, 2**70)}  # json.dumps keys
    odd[0][0]["messages_and_choices"][2]["logprobs"]["content"][0]["bytes"] = np.array([83], dtype=np.int32)
    got = t.tokenize_trajectory_groups(odd, seed=1)
    assert signature(got) == want  # the template ignores the extra key
    same_via_json = t.tokenize_trajectory_groups(json.dumps(odd, default=lambda o: o.tolist()).encode(), seed=1)
    assert signature(got) == signature(same_via_json)
    # dict keys that are int / float subclasses are written as json.dumps writes them
    import enum

    class Num(enum.IntEnum):
        A = 1

    class F(float):
        def __repr__(self):
            return "F!"

    keyed = copy.deepcopy(base)
    keyed[0][0]["tools"] = [{"type": "function", "function": {"name": "f", "description": "d", "parameters": {"type": "object", "properties": {}, "enum_map": {Num.A: "a", F(2.5): "b"}}}}]
    keyed[0][1]["tools"] = keyed[0][0]["tools"]
    got_keyed = t.tokenize_trajectory_groups(keyed, seed=1)
    assert signature(got_keyed) == signature(t.tokenize_trajectory_groups(json.dumps(keyed).encode(), seed=1))
    assert '"1"' in got_keyed[0].chat and '"2.5"' in got_keyed[0].chat
    with pytest.raises(ValueError):
        t.tokenize_trajectory_groups([[dict(small_traj(1.0), tools=[{"x": {float("nan"): 1}}])]])
    bad = copy.deepcopy(base)
    bad[0][0]["messages_and_choices"][0]["content"] = "lone \ud800 surrogate"
    # fails its own trajectory, named by its field
    with pytest.raises(yieldtok.TrajectoryError, match=r"messages_and_choices\[0\]\.content: a str contains a lone surrogate U\+D800 at index 5"):
        t.tokenize_trajectory_groups(bad)
    deep: list = []
    for _ in range(2000):
        deep = [deep]
    # too deep: fails its own trajectory
    with pytest.raises(yieldtok.TrajectoryError, match="RecursionError: maximum nesting depth"):
        t.tokenize_trajectory_groups([[{"messages_and_choices": [], "tools": deep}]])


def test_what_the_parser_skips_is_left_out_of_python_input_alike():
    """Python input leaves out what the core's parser skips (top_logprobs, later entries'
    bytes, other keys of a Choice's logprobs): the results equal the full JSON's; elsewhere
    nothing is left out (a tool parameter or a message key named like them is kept)."""
    t = tok("qwen3")
    full = [[small_traj(1.0), small_traj(0.0)]]
    for traj in full[0]:
        choice = traj["messages_and_choices"][2]
        choice["logprobs"]["zzz"] = [1, {"token": "q"}]
        choice["logprobs"]["refusal"] = None
        for i, e in enumerate(choice["logprobs"]["content"]):
            e["bytes"] = [83 + i]
            e["top_logprobs"] = [{"token": "token_id:7", "logprob": -2.0, "bytes": [1, 2]}]
            e["extra_logprobs"] = {"old": -0.5 - i}
        # a message (it has a role) keeps its logprobs whole
        traj["messages_and_choices"][1]["logprobs"] = {"content": [{"token": "x", "logprob": -1.0, "top_logprobs": []}]}
    got = t.tokenize_trajectory_groups(full, seed=3)
    want = t.tokenize_trajectory_groups(json.dumps(full).encode(), seed=3)
    assert signature(got) == signature(want)
    assert got[0].extra_logprobs and "old" in got[0].extra_logprobs
    # the same names outside a Choice's logprobs are data: tool parameters named like them, in
    # a properties dict that looks like a Choice (`message`, no `role`) and under a key named
    # `messages_and_choices`
    props = {"message": {"type": "string"}, "logprobs": {"type": "object", "properties": {"top_logprobs": {"type": "integer"}}},
             "top_logprobs": {"type": "string"}, "bytes": {"type": "integer"},
             "messages_and_choices": {"type": "array", "items": [{"message": "m", "logprobs": {"z": 1, "content": [{"token": "t", "logprob": 0, "top_logprobs": 2}]}}]}}
    tool = {"type": "function", "function": {"name": "f", "description": "d", "parameters": {"type": "object", "properties": props}}}
    with_tool = [[dict(small_traj(1.0), tools=[tool]), dict(small_traj(0.0), tools=[tool])]]
    r = t.tokenize_trajectory_groups(with_tool, seed=3)
    assert signature(r) == signature(t.tokenize_trajectory_groups(json.dumps(with_tool).encode(), seed=3))
    assert "top_logprobs" in r[0].chat and '"bytes"' in r[0].chat and '"z"' in r[0].chat
