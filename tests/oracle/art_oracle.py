#!/usr/bin/env python3
"""Oracle: run OpenPipe ART 0.5.18's own trajectory tokenization and packing on plain-data input.

Runs `art.preprocessing.tokenize.tokenize_trajectory_groups` and
`art.preprocessing.pack.packed_tensors_from_tokenized_results` unmodified, and dumps every output
field to JSON, so that yieldtok's implementation can be diffed against ART itself.
Spec of what ART does: docs/art-semantics.md.

Environment (a venv outside the repo; see docs/art-semantics.md "Oracle environment"):

    python3.11 -m venv /work/scratch/venv-art
    V=/work/scratch/venv-art/bin
    $V/pip install --no-deps openpipe-art==0.5.18
    $V/pip install transformers==5.2.0 tokenizers==0.22.2 jinja2==3.1.6 pydantic==2.14.4 \
        openai==3.57.0 pillow torch==2.10.0

`art/__init__.py` (which imports litellm, weave, polars, ...) is never executed: this script
registers an empty `art` package pointing at the installed sources, so only `art.trajectories`,
`art.types`, `art.preprocessing.tokenize` and `art.preprocessing.pack` are imported, with their
real dependencies (openai, pydantic, transformers, torch, PIL). Nothing is stubbed.

Input (JSON), either a single run:
    {"tokenizer": "qwen3" | "/path/to/folder", "options": {...}, "pack": {...} | null,
     "groups": [group, ...]}
or many:  {"cases": [{"name": "...", <same keys as a single run>}, ...]}
(a bare list is taken as "groups"). Command-line options override/complete the file's.

  group      = [trajectory, ...]  or  {"trajectories": [trajectory, ...]}
  trajectory = {"messages_and_choices": [item, ...], "tools": [tool, ...] | null,
                "additional_histories": [{"messages_and_choices": [...], "tools": ...}, ...],
                "reward": float}
  item       = an OpenAI message dict ({"role": ..., ...}), or a Choice dict: any dict with a
               "message" key and no "role" key:
               {"finish_reason": "stop", "index": 0,
                "message": {"role": "assistant", "content": str | null, "tool_calls": [...]},
                "logprobs": null | {"content": [{"token": "token_id:<id>" | "<token string>",
                                                 "logprob": float, "bytes": [int, ...] | null,
                                                 "top_logprobs": [],
                                                 "extra_logprobs": {name: float | null}}, ...],
                                    "refusal": null}}
               Missing finish_reason/index/top_logprobs get defaults ("stop"/"tool_calls", 0, []);
               the dict is then turned into an `openai...Choice` with `Choice.model_validate`
               (ART only recognises Choice *objects*; a Choice left as a dict is a message to it).

  options = {"allow_training_without_logprobs": false, "scale_rewards": true,
             "shuffle_group_trajectories": true, "drop_zero_advantage_trajectories": true,
             "chat_template_kwargs": null, "chat_template_tool_schema_format": "default",
             "seed": 0, "per_history": false}
  pack    = {"seq_len": int, "pad_token_id": -100, "truncate_long_results": true,
             "advantage_balance": 0.0, "pack_results": true, "seed": 0}

Seeds: ART draws from Python's global `random` (prompt ids, per-group shuffles, packing group ids,
row shuffle). The oracle calls `random.seed(options.seed)` right before tokenizing and
`random.seed(pack.seed)` right before packing, so a run is reproducible.

Output: JSON with floats NaN/inf encoded as the strings "NaN", "Infinity", "-Infinity".
Per case: {"name", "ok", "error": {"type", "message"} | absent, "results": [...], "packed": ...}.
Each result carries ART's fields (token_ids, assistant_mask, logprobs, input_pos, choice_offsets,
extra_logprobs, advantage, weight, prompt_id, prompt_length, chat) plus provenance computed
without touching ART's logic: group/trajectory/history index (history 0 = the trajectory's own
messages_and_choices, k>0 = additional_histories[k-1]). `packed` has every tensor as
{"dtype", "shape", "data"} plus "provenance": for each packed result (packing order) its result
index, pre-shuffle row, offset in the row, drawn group id, and whether its prompt was stripped;
and "permutation" (output row r = pre-shuffle row permutation[r]).
With options.per_history, "histories" also lists, per history, ART's `tokenize_trajectory` result
or the error it raises (the group call stops at the first error; this shows all of them).

Usage:
    venv-art/bin/python tests/oracle/art_oracle.py INPUT.json [-o OUT.json] [--fixtures DIR]
        [--tokenizer NAME|DIR] [--seq-len N] [--allow-training-without-logprobs]
        [--no-shuffle] [--no-scale-rewards] [--keep-zero-advantage] [--seed N] [--per-history]
        [--only NAME] [--no-chat] [--timing]
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import json
import math
import os
import random
import sys
import time
import traceback
import types
from typing import Any

os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_FIXTURES = os.path.normpath(os.path.join(HERE, "..", "..", ".cache", "fixtures"))

DEFAULT_OPTIONS = {
    "allow_training_without_logprobs": False,
    "scale_rewards": True,
    "shuffle_group_trajectories": True,
    "drop_zero_advantage_trajectories": True,
    "chat_template_kwargs": None,
    "chat_template_tool_schema_format": "default",
    "seed": 0,
    "per_history": False,
}
DEFAULT_PACK = {
    "pad_token_id": -100,
    "truncate_long_results": True,
    "advantage_balance": 0.0,
    "pack_results": True,
    "seed": 0,
}


# --------------------------------------------------------------------------- importing ART


def import_art(art_src: str | None = None):
    """Import ART's preprocessing modules without running art/__init__.py."""
    if "art" not in sys.modules:
        if art_src:
            pkgdir = os.path.join(art_src, "art") if os.path.isdir(os.path.join(art_src, "art")) else art_src
            origin = os.path.join(pkgdir, "__init__.py")
        else:
            spec = importlib.util.find_spec("art")
            if spec is None or spec.origin is None:
                sys.exit("art_oracle: openpipe-art is not installed (pip install --no-deps openpipe-art==0.5.18)")
            origin = spec.origin
            pkgdir = os.path.dirname(origin)
        pkg = types.ModuleType("art")
        pkg.__path__ = [pkgdir]  # type: ignore[attr-defined]
        pkg.__file__ = origin
        sys.modules["art"] = pkg
    from art.preprocessing import pack as pack_mod
    from art.preprocessing import tokenize as tok_mod
    from art import trajectories as traj_mod

    return tok_mod, pack_mod, traj_mod


# --------------------------------------------------------------------------- tokenizer


SPECIAL_KEYS = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")


def _token_content(v: Any) -> Any:
    return v["content"] if isinstance(v, dict) else v


def load_tokenizer(folder: str):
    """PreTrainedTokenizerFast from tokenizer.json + tokenizer_config.json's special tokens and
    chat_template (transformers 5.x AutoTokenizer builds a broken DeepSeek-V3 tokenizer)."""
    from transformers import PreTrainedTokenizerFast

    with open(os.path.join(folder, "tokenizer_config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    kwargs: dict[str, Any] = {}
    for key in SPECIAL_KEYS:
        if cfg.get(key) is not None:
            kwargs[key] = _token_content(cfg[key])
    if cfg.get("additional_special_tokens"):
        kwargs["additional_special_tokens"] = [_token_content(t) for t in cfg["additional_special_tokens"]]
    if "clean_up_tokenization_spaces" in cfg:
        kwargs["clean_up_tokenization_spaces"] = cfg["clean_up_tokenization_spaces"]
    tok = PreTrainedTokenizerFast(tokenizer_file=os.path.join(folder, "tokenizer.json"), **kwargs)
    template = cfg.get("chat_template")
    if template is None and os.path.exists(os.path.join(folder, "chat_template.jinja")):
        with open(os.path.join(folder, "chat_template.jinja"), encoding="utf-8") as f:
            template = f.read()
    if isinstance(template, list):
        template = {t["name"]: t["template"] for t in template}
    tok.chat_template = template
    return tok


def resolve_tokenizer(name: str, fixtures: str) -> str:
    if os.path.isdir(name):
        return name
    path = os.path.join(fixtures, name)
    if os.path.isdir(path):
        return path
    raise SystemExit(f"art_oracle: tokenizer folder not found: {name} (fixtures: {fixtures})")


# --------------------------------------------------------------------------- plain data -> ART


def is_choice_dict(item: Any) -> bool:
    return isinstance(item, dict) and "message" in item and "role" not in item


def to_choice(d: dict[str, Any]):
    from openai.types.chat.chat_completion import Choice

    d = copy.deepcopy(d)
    msg = d.get("message") or {}
    d.setdefault("finish_reason", "tool_calls" if msg.get("tool_calls") else "stop")
    d.setdefault("index", 0)
    lp = d.get("logprobs")
    if isinstance(lp, dict):
        for key in ("content", "refusal"):
            entries = lp.get(key)
            if isinstance(entries, list):
                for e in entries:
                    if isinstance(e, dict):
                        e.setdefault("top_logprobs", [])
    return Choice.model_validate(d)


def to_items(items: list[Any]) -> list[Any]:
    return [to_choice(it) if is_choice_dict(it) else copy.deepcopy(it) for it in items]


def to_trajectory(traj_mod, t: dict[str, Any]):
    kwargs: dict[str, Any] = {
        "messages_and_choices": to_items(t.get("messages_and_choices", [])),
        "reward": t.get("reward", 0.0),
    }
    if "tools" in t:
        kwargs["tools"] = copy.deepcopy(t["tools"])
    if t.get("additional_histories"):
        kwargs["additional_histories"] = [
            traj_mod.History(
                messages_and_choices=to_items(h.get("messages_and_choices", [])),
                **({"tools": copy.deepcopy(h["tools"])} if "tools" in h else {}),
            )
            for h in t["additional_histories"]
        ]
    return traj_mod.Trajectory(**kwargs)


def to_groups(traj_mod, groups: list[Any]):
    out = []
    for g in groups:
        trajs = g["trajectories"] if isinstance(g, dict) else g
        out.append(traj_mod.TrajectoryGroup([to_trajectory(traj_mod, t) for t in trajs]))
    return out


# --------------------------------------------------------------------------- JSON encoding


def enc_float(x: float) -> Any:
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def enc_floats(xs) -> list[Any]:
    return [enc_float(x) for x in xs]


def enc_tensor(t) -> dict[str, Any]:
    import torch

    dtype = str(t.dtype).replace("torch.", "")
    data = t.tolist()
    if t.is_floating_point():
        data = [[enc_float(v) for v in row] for row in data] if t.dim() == 2 else enc_floats(data)
    elif t.dtype == torch.bool:
        data = [[bool(v) for v in row] for row in data] if t.dim() == 2 else [bool(v) for v in data]
    return {"dtype": dtype, "shape": list(t.shape), "data": data}


def result_to_json(r, include_chat: bool = True) -> dict[str, Any]:
    out = {
        "group_index": getattr(r, "_oracle_group", None),
        "trajectory_index": getattr(r, "_oracle_trajectory", None),
        "history_index": getattr(r, "_oracle_history", None),
        "token_ids": list(r.token_ids),
        "assistant_mask": list(r.assistant_mask),
        "logprobs": enc_floats(r.logprobs),
        "input_pos": list(r.input_pos),
        "choice_offsets": list(r.choice_offsets),
        "extra_logprobs": {k: enc_floats(v) for k, v in r.extra_logprobs.items()},
        "advantage": enc_float(r.advantage),
        "weight": enc_float(r.weight),
        "prompt_id": r.prompt_id,
        "prompt_length": r.prompt_length,
    }
    if include_chat:
        out["chat"] = r.chat
    return out


def error_to_json(e: BaseException) -> dict[str, Any]:
    tb = traceback.extract_tb(e.__traceback__)
    where = next((f"{os.path.basename(fr.filename)}:{fr.lineno}" for fr in reversed(tb) if "/art/" in fr.filename), None)
    return {"type": type(e).__name__, "message": str(e), "art_location": where}


# --------------------------------------------------------------------------- running ART


class _RecordingRandom:
    """Stands in for the `random` module inside art.preprocessing.pack: delegates every call to the
    real global `random` (same state, same draws) and records what packing drew, and for which
    result (read from the caller's frame), to report provenance."""

    def __init__(self, index_of: dict[int, int]):
        self.index_of = index_of
        self.provenance: list[dict[str, Any]] = []
        self.permutation: list[int] | None = None

    def randint(self, a: int, b: int) -> int:
        value = random.randint(a, b)
        f = sys._getframe(1).f_locals
        result, token_ids = f.get("result"), f.get("token_ids")
        self.provenance.append(
            {
                "result_index": self.index_of.get(id(result)),
                "row": len(token_ids) - 1 if token_ids is not None else None,
                "offset": len(token_ids[-1]) if token_ids is not None else None,
                "group_id": value,
                "prompt_stripped": bool(result is not None and result.prompt_id in f.get("group_ids", [[]])[-1]),
            }
        )
        return value

    def shuffle(self, x: list[Any]) -> None:
        random.shuffle(x)
        self.permutation = list(x)

    def __getattr__(self, name: str) -> Any:
        return getattr(random, name)


def run_case(case: dict[str, Any], fixtures: str, art_src: str | None, include_chat: bool, timing: bool) -> dict[str, Any]:
    tok_mod, pack_mod, traj_mod = import_art(art_src)
    opts = {**DEFAULT_OPTIONS, **(case.get("options") or {})}
    out: dict[str, Any] = {"name": case.get("name"), "options": opts}
    tok_folder = resolve_tokenizer(case["tokenizer"], fixtures)
    tokenizer = _TOKENIZERS.get(tok_folder)
    if tokenizer is None:
        tokenizer = _TOKENIZERS[tok_folder] = load_tokenizer(tok_folder)
    out["tokenizer"] = case["tokenizer"]

    try:
        groups = to_groups(traj_mod, case["groups"])
    except Exception as e:  # pydantic validation of ART's input types
        out.update(ok=False, error=error_to_json(e), stage="input")
        return out

    # provenance: which group/trajectory/history each result came from
    where: dict[int, tuple[int, int]] = {}
    for gi, g in enumerate(groups):
        for ti, t in enumerate(g.trajectories):
            where[id(t)] = (gi, ti)
    real_tokenize_trajectory = tok_mod.tokenize_trajectory

    def recording_tokenize_trajectory(tokenizer, image_processor, history, advantage, allow, trajectory, **kw):
        result = real_tokenize_trajectory(tokenizer, image_processor, history, advantage, allow, trajectory, **kw)
        if result is not None:
            gi, ti = where.get(id(trajectory), (None, None))
            hi = 0
            for k, h in enumerate(trajectory.additional_histories):
                if h is history:
                    hi = k + 1
            result._oracle_group, result._oracle_trajectory, result._oracle_history = gi, ti, hi
        return result

    tok_mod.tokenize_trajectory = recording_tokenize_trajectory
    try:
        random.seed(opts["seed"])
        t0, c0 = time.perf_counter(), time.process_time()
        results = list(
            tok_mod.tokenize_trajectory_groups(
                tokenizer,
                groups,
                opts["allow_training_without_logprobs"],
                opts["scale_rewards"],
                shuffle_group_trajectories=opts["shuffle_group_trajectories"],
                drop_zero_advantage_trajectories=opts["drop_zero_advantage_trajectories"],
                chat_template_kwargs=opts["chat_template_kwargs"],
                chat_template_tool_schema_format=opts["chat_template_tool_schema_format"],
            )
        )
        t_tok, c_tok = time.perf_counter() - t0, time.process_time() - c0
        out["ok"] = True
    except Exception as e:
        out.update(ok=False, error=error_to_json(e), stage="tokenize")
        results = None
    finally:
        tok_mod.tokenize_trajectory = real_tokenize_trajectory

    if opts.get("per_history"):
        out["histories"] = per_history(tok_mod, tokenizer, groups, opts, include_chat)

    if results is None:
        return out
    out["results"] = [result_to_json(r, include_chat) for r in results]
    if timing:
        n_tokens = sum(len(r.token_ids) for r in results)
        out["timing"] = {"tokenize_s": t_tok, "tokenize_cpu_s": c_tok, "tokens": n_tokens, "results": len(results)}

    pack = case.get("pack")
    if pack:
        pack = {**DEFAULT_PACK, **pack}
        out["pack_options"] = pack
        recorder = _RecordingRandom({id(r): i for i, r in enumerate(results)})
        real_random = pack_mod.random
        pack_mod.random = recorder
        try:
            random.seed(pack["seed"])
            t0, c0 = time.perf_counter(), time.process_time()
            packed = pack_mod.packed_tensors_from_tokenized_results(
                results,
                pack["seq_len"],
                pad_token_id=pack["pad_token_id"],
                truncate_long_results=pack["truncate_long_results"],
                advantage_balance=pack["advantage_balance"],
                verbosity=0,
                pack_results=pack["pack_results"],
            )
            t_pack, c_pack = time.perf_counter() - t0, time.process_time() - c0
        except Exception as e:
            out["packed"] = {"ok": False, "error": error_to_json(e)}
            return out
        finally:
            pack_mod.random = real_random
        p: dict[str, Any] = {"ok": True}
        for key in ("tokens", "group_ids", "parent_ids", "input_pos", "assistant_mask", "logprobs", "advantages", "weights"):
            p[key] = enc_tensor(packed[key])
        p["pixel_values"] = [None if v is None else "tensor" for v in packed["pixel_values"]]
        p["image_grid_thw"] = [None if v is None else "tensor" for v in packed["image_grid_thw"]]
        p["provenance"] = recorder.provenance
        p["permutation"] = recorder.permutation
        out["packed"] = p
        if timing:
            out["timing"]["pack_s"] = t_pack
            out["timing"]["pack_cpu_s"] = c_pack
    return out


def per_history(tok_mod, tokenizer, groups, opts, include_chat) -> list[dict[str, Any]]:
    """ART's tokenize_trajectory on every history, with the advantage ART would compute, errors
    captured one by one (no shuffling, no prompt_id/prompt_length/weight, no drop)."""
    from art.trajectories import History

    rows = []
    for gi, group in enumerate(groups):
        if not group:
            continue
        mean = sum(t.reward for t in group) / len(group)
        std = math.sqrt(sum((t.reward - mean) ** 2 for t in group) / len(group))
        for ti, t in enumerate(group):
            adv = t.reward - mean
            if opts["scale_rewards"]:
                adv /= std + 1e-6
            hists = [History(messages_and_choices=t.messages_and_choices, tools=t.tools), *t.additional_histories]
            for hi, h in enumerate(hists):
                row: dict[str, Any] = {"group_index": gi, "trajectory_index": ti, "history_index": hi}
                try:
                    r = tok_mod.tokenize_trajectory(
                        tokenizer,
                        None,
                        h,
                        adv,
                        opts["allow_training_without_logprobs"],
                        t,
                        chat_template_kwargs=opts["chat_template_kwargs"],
                        chat_template_tool_schema_format=opts["chat_template_tool_schema_format"],
                    )
                    row["ok"] = True
                    if r is None:
                        row["result"] = None
                    else:
                        d = result_to_json(r, include_chat)
                        for k in ("group_index", "trajectory_index", "history_index", "weight", "prompt_id", "prompt_length"):
                            d.pop(k)
                        row["result"] = d
                except Exception as e:
                    row["ok"] = False
                    row["error"] = error_to_json(e)
                rows.append(row)
    return rows


_TOKENIZERS: dict[str, Any] = {}


def versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for name in ("openpipe-art", "transformers", "tokenizers", "jinja2", "pydantic", "openai", "torch"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("input", help="JSON file (single run, {'cases': [...]}, or a list of groups)")
    ap.add_argument("-o", "--output", help="output JSON file (default: stdout)")
    ap.add_argument("--fixtures", default=DEFAULT_FIXTURES, help="folder of tokenizer folders")
    ap.add_argument("--art-src", help="unpacked openpipe-art sources to use instead of the installed package")
    ap.add_argument("--tokenizer", help="tokenizer name under --fixtures, or a folder")
    ap.add_argument("--seq-len", type=int, help="also pack with this seq_len")
    ap.add_argument("--pad-token-id", type=int)
    ap.add_argument("--no-truncate", action="store_true", help="truncate_long_results=False")
    ap.add_argument("--advantage-balance", type=float)
    ap.add_argument("--no-pack-results", action="store_true", help="pack_results=False")
    ap.add_argument("--pack-seed", type=int)
    ap.add_argument("--allow-training-without-logprobs", action="store_true")
    ap.add_argument("--no-scale-rewards", action="store_true")
    ap.add_argument("--no-shuffle", action="store_true")
    ap.add_argument("--keep-zero-advantage", action="store_true")
    ap.add_argument("--chat-template-kwargs", type=json.loads)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--per-history", action="store_true")
    ap.add_argument("--only", action="append", help="run only the named case(s)")
    ap.add_argument("--no-chat", action="store_true", help="leave out the rendered chat strings")
    ap.add_argument("--timing", action="store_true", help="add wall-clock timings")
    ap.add_argument("--indent", type=int, default=None)
    args = ap.parse_args(argv)

    with open(args.input, encoding="utf-8") as f:
        data = json.load(f)
    if isinstance(data, list):
        data = {"groups": data}
    single = "cases" not in data
    cases = [data] if single else data["cases"]
    if args.only:
        cases = [c for c in cases if c.get("name") in args.only]

    cli_opts: dict[str, Any] = {}
    if args.allow_training_without_logprobs:
        cli_opts["allow_training_without_logprobs"] = True
    if args.no_scale_rewards:
        cli_opts["scale_rewards"] = False
    if args.no_shuffle:
        cli_opts["shuffle_group_trajectories"] = False
    if args.keep_zero_advantage:
        cli_opts["drop_zero_advantage_trajectories"] = False
    if args.chat_template_kwargs is not None:
        cli_opts["chat_template_kwargs"] = args.chat_template_kwargs
    if args.seed is not None:
        cli_opts["seed"] = args.seed
    if args.per_history:
        cli_opts["per_history"] = True
    cli_pack: dict[str, Any] = {}
    if args.seq_len is not None:
        cli_pack["seq_len"] = args.seq_len
    if args.pad_token_id is not None:
        cli_pack["pad_token_id"] = args.pad_token_id
    if args.no_truncate:
        cli_pack["truncate_long_results"] = False
    if args.advantage_balance is not None:
        cli_pack["advantage_balance"] = args.advantage_balance
    if args.no_pack_results:
        cli_pack["pack_results"] = False
    if args.pack_seed is not None:
        cli_pack["seed"] = args.pack_seed

    outputs = []
    for case in cases:
        case = dict(case)
        if args.tokenizer:
            case["tokenizer"] = args.tokenizer
        if "tokenizer" not in case:
            sys.exit("art_oracle: no tokenizer given (--tokenizer or the input's 'tokenizer')")
        case["options"] = {**(case.get("options") or {}), **cli_opts}
        if cli_pack:
            case["pack"] = {**(case.get("pack") or {}), **cli_pack}
        if case.get("pack") and "seq_len" not in case["pack"]:
            sys.exit(f"art_oracle: case {case.get('name')!r}: pack needs seq_len")
        outputs.append(run_case(case, args.fixtures, args.art_src, not args.no_chat, args.timing))

    doc: dict[str, Any] = {"versions": versions()}
    if single:
        doc.update(outputs[0])
    else:
        doc["cases"] = outputs
    text = json.dumps(doc, ensure_ascii=False, allow_nan=False, indent=args.indent)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
            f.write("\n")
    else:
        sys.stdout.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
