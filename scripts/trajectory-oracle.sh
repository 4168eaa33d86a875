#!/usr/bin/env bash
# Trajectory tokenization (issue 8): regenerate OpenPipe ART 0.5.18 oracle outputs and diff
# yieldtok against them, and/or run the benchmark side by side with ART.
#
#   scripts/trajectory-oracle.sh [small|tau|bench|all] [--write-fixture]
#
#   small   ART on tests/fixtures/trajectories-small.json, then the differential test
#           (--write-fixture: also rewrite tests/fixtures/trajectories-small.art.json)
#   tau     cases from ../shared/data (tau airline; qwen3, llama3_1, deepseek_v3), ART, diff
#   bench   the issue-8 workload: ART's output diffed too, then
#           `cargo run --release --example trajectory_bench` with ART timed in the same run
#   all     small + tau + bench (default)
#
# Needs the ART venv (docs/art-semantics.md, "Oracle"): ART_PYTHON (default
# /work/scratch/venv-art/bin/python). Outputs go to $OUT (default target/trajectory-oracle).
# The committed fixture needs none of this: `cargo test -p yieldtok --test trajectory_art`.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=${ART_PYTHON:-/work/scratch/venv-art/bin/python}
OUT=${OUT:-$ROOT/target/trajectory-oracle}
RUNS=${RUNS:-5}
MODE=${1:-all}
WRITE_FIXTURE=0
for a in "$@"; do [ "$a" = --write-fixture ] && WRITE_FIXTURE=1; done
[ -x "$PY" ] || { echo "no ART venv python at $PY (set ART_PYTHON)" >&2; exit 2; }
mkdir -p "$OUT"
cd "$ROOT"

diff_against() { # cases.json oracle.json
    YIELDTOK_ART_CASES="$1" YIELDTOK_ART_ORACLE="$2" \
        nice -n 10 cargo test -q -p yieldtok --test trajectory_art external_oracle_matches_art -- --nocapture 2>&1 |
        grep -E "trajectory_art:|MISMATCH|panicked|test result"
}

if [ "$MODE" = small ] || [ "$MODE" = all ]; then
    echo "== small fixture"
    nice -n 10 "$PY" tests/oracle/art_oracle.py tests/fixtures/trajectories-small.json -o "$OUT/small.art.json"
    python3 tests/oracle/compact_oracle_output.py "$OUT/small.art.json" "$OUT/small.art.compact.json"
    if [ $WRITE_FIXTURE = 1 ]; then
        cp "$OUT/small.art.compact.json" tests/fixtures/trajectories-small.art.json
    elif ! cmp -s "$OUT/small.art.compact.json" tests/fixtures/trajectories-small.art.json; then
        echo "note: ART's output differs from the committed fixture (rerun with --write-fixture to update)"
    fi
    diff_against "$ROOT/tests/fixtures/trajectories-small.json" "$OUT/small.art.json"
fi

if [ "$MODE" = tau ] || [ "$MODE" = all ]; then
    echo "== tau airline cases (qwen3, llama3_1, deepseek_v3)"
    nice -n 10 "$PY" tests/oracle/make_trajectories.py -o "$OUT/tau.json"
    nice -n 10 "$PY" tests/oracle/art_oracle.py "$OUT/tau.json" -o "$OUT/tau.art.json"
    diff_against "$OUT/tau.json" "$OUT/tau.art.json"
    echo "== variants: tool_schema_format=vllm_openai, a template that makes ART parse tool-call arguments"
    python3 - "$OUT" "${YIELDTOK_FIXTURES:-$ROOT/.cache/fixtures}" <<'PY'
import json, os, shutil, sys
out, fixtures = sys.argv[1], sys.argv[2]
folder = os.path.join(out, "qwen3-args")
os.makedirs(folder, exist_ok=True)
shutil.copy(os.path.join(fixtures, "qwen3", "tokenizer.json"), folder)
with open(os.path.join(fixtures, "qwen3", "tokenizer_config.json"), encoding="utf-8") as f:
    cfg = json.load(f)
# ART json.loads tool-call arguments when the template source contains this text
cfg["chat_template"] = "{#- tool_call.arguments|items -#}\n" + cfg["chat_template"]
with open(os.path.join(folder, "tokenizer_config.json"), "w", encoding="utf-8") as f:
    json.dump(cfg, f, ensure_ascii=False)
with open(os.path.join(out, "tau.json"), encoding="utf-8") as f:
    by_name = {c["name"]: c for c in json.load(f)["cases"]}
cases = []
for base, name, change in [
    ("qwen3-tau-tools", "qwen3-tau-tools-vllm-openai", {"options": {"chat_template_tool_schema_format": "vllm_openai"}}),
    ("llama3_1-tau-tools", "llama3_1-tau-tools-vllm-openai", {"options": {"chat_template_tool_schema_format": "vllm_openai"}}),
    ("qwen3-tau-tools", "qwen3-args-tau-tools", {"tokenizer": folder}),
    ("qwen3-tau-additional-histories", "qwen3-args-additional-histories", {"tokenizer": folder}),
]:
    if base not in by_name:
        continue
    c = json.loads(json.dumps(by_name[base]))
    c["name"] = name
    c.setdefault("options", {}).update(change.get("options", {}))
    if "tokenizer" in change:
        c["tokenizer"] = change["tokenizer"]
    cases.append(c)
with open(os.path.join(out, "variants.json"), "w", encoding="utf-8") as f:
    json.dump({"cases": cases}, f)
PY
    nice -n 10 "$PY" tests/oracle/art_oracle.py "$OUT/variants.json" -o "$OUT/variants.art.json"
    diff_against "$OUT/variants.json" "$OUT/variants.art.json"
fi

if [ "$MODE" = bench ] || [ "$MODE" = all ]; then
    echo "== benchmark workload"
    nice -n 10 "$PY" tests/oracle/make_trajectories.py --bench -o "$OUT/bench.json"
    nice -n 10 "$PY" tests/oracle/art_oracle.py "$OUT/bench.json" -o "$OUT/bench.art.json"
    diff_against "$OUT/bench.json" "$OUT/bench.art.json"
    rm -f "$OUT/bench.art.json"
    nice -n 10 cargo build -q --release -p yieldtok --example trajectory_bench
    "$ROOT/target/release/examples/trajectory_bench" "$OUT/bench.json" --runs "$RUNS" --art-python "$PY"
fi
