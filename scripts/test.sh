#!/usr/bin/env bash
# Every test of the project, from a fresh machine: installs what the tests need, fetches the
# real tokenizer fixtures (npm), then runs the Rust tests (unit, differential exactness,
# property tests), writes the cross-language conformance vectors, and runs each binding's suite.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$PWD"
mkdir -p target
# A run from a fresh clone builds everything once: incremental compilation would only add its
# bookkeeping (a caller's own setting wins).
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
# Each stage's header says how long the run has taken so far and how long the stage before took
# (CI prints only part of a long log; the times show where it goes), and the end prints them all.
t0=$SECONDS t_prev=$SECONDS prev="" stage_times=""
step() {
  [ -n "$prev" ] && stage_times+=$(printf '%6d s  %s' "$((SECONDS - t_prev))" "$prev")$'\n'
  printf '\n== %s   [%d s into the run; the stage before took %d s]\n' "$*" "$((SECONDS - t0))" "$((SECONDS - t_prev))"
  t_prev=$SECONDS prev="$*"
}

step "fixtures"
scripts/fetch-fixtures.sh

step "rust: format gate (cargo fmt --all --check, rustfmt.toml)"
rustup component add rustfmt >/dev/null 2>&1 || true
cargo fmt --all --check

step "rust: module circles gate (scripts/check-module-cycles.py; the edges still allowed are listed in it)"
python3 scripts/check-module-cycles.py

step "rust: lint gate (cargo clippy --workspace --all-targets -D warnings, [workspace.lints])"
rustup component add clippy >/dev/null 2>&1 || true
cargo clippy --workspace --all-targets --quiet -- -D warnings

step "python environments: .venv (binding + its tests, Ray, datasets), .cache/venv-oracle (transformers, the chat-template oracle)"
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check maturin==1.16.0 pytest 'pytest-asyncio>=1.5,<2' 'pytest-xdist==3.8.0' numpy uvloop 'tokenizers==0.23.*' \
  'ray[data]==2.60.0' 'datasets==5.2.0' \
  'uvicorn==0.54.0'   # scale-out tests: a real local Ray cluster, datasets.map(num_proc=2); the ASGI example server
export YIELDTOK_REQUIRE_SCALE_OUT=1
[ -x .cache/venv-oracle/bin/python ] || python3 -m venv .cache/venv-oracle
.cache/venv-oracle/bin/python -m pip install -q --disable-pip-version-check 'transformers==5.24.0' 'jinja2==3.1.6'

step "chat templates: transformers' apply_chat_template renders the cases (the oracle of yieldtok-chat's differential test)"
data_args=(--no-data)
[ -f ../shared/data/tau-airline-conversations.jsonl ] && data_args=(--data ../shared/data --max-conversations 40)
python3 tests/oracle/make_chat_cases.py target/chat-cases.json "${data_args[@]}"
.cache/venv-oracle/bin/python tests/oracle/chat_template_oracle.py target/chat-cases.json target/chat-oracle.json \
  --fixtures .cache/fixtures --fixed-now 2024-07-26T09:05:03.000042
export CHAT_CASES="$root/target/chat-cases.json" CHAT_ORACLE="$root/target/chat-oracle.json" \
  CHAT_FIXTURES="$root/.cache/fixtures" CHAT_FIXED_NOW=2024-07-26T09:05:03.000042 YIELDTOK_REQUIRE_ORACLE=1
# (crates/yieldtok-chat/tests/differential.rs compares yieldtok against it in cargo test below)

step "rust: cargo test --workspace"
cargo test --workspace --no-fail-fast 2>&1 | tee target/rust-tests.log
grep -q "test result: ok" target/rust-tests.log

# The programs below are built with the whole workspace's features, as cargo test built them, so
# nothing compiles again (`cargo run -p <one crate>` resolves features for that crate alone and
# rebuilt tokenizers and core twice: 474 s of a 4021 s run here, now ~8 s).
cargo build --quiet --workspace --bin yieldtok --example tokio_encode --example native_ref
bin="${CARGO_TARGET_DIR:-target}/debug"

step "conformance vectors (tokenizers whole-text encode vs yieldtok, all fixtures)"
"$bin/yieldtok" conformance --out target/conformance
export YIELDTOK_REQUIRE_CONFORMANCE=1

step "examples: the Rust one runs (examples/README.md; the Python and Node ones are run by their suites)"
"$bin/examples/tokio_encode" .cache/fixtures/qwen3

# The fuzz targets' properties ran above on stable (fuzz/tests/corpus.rs: the kept corpus, the
# templates, seeded mutations). Coverage-guided fuzzing needs nightly, cargo-fuzz and a build of
# its own (many minutes on a cold 2-core machine): YIELDTOK_FUZZ=1 adds it.
if [ "${YIELDTOK_FUZZ:-0}" = 1 ]; then
  step "fuzz: every target of fuzz/ for a bounded time from its kept corpus (scripts/fuzz.sh; installs nightly and cargo-fuzz)"
  scripts/fuzz.sh
fi

step "transformers-style attributes, __call__ and apply_chat_template: expected values from transformers' PreTrainedTokenizerFast"
.cache/venv-oracle/bin/python tests/oracle/attributes_oracle.py target/attrs-oracle.json --fixtures .cache/fixtures
export ATTRS_ORACLE="$root/target/attrs-oracle.json" ATTRS_FIXTURES="$root/.cache/fixtures"
.cache/venv-oracle/bin/python tests/oracle/call_oracle.py target/call-oracle.json --fixtures .cache/fixtures
export CALL_ORACLE="$root/target/call-oracle.json"
.cache/venv-oracle/bin/python tests/oracle/chat_call_oracle.py target/chat-call-oracle.json --fixtures .cache/fixtures
export CHAT_CALL_ORACLE="$root/target/chat-call-oracle.json"   # apply_chat_template's results (tests/python/test_chat_call.py)

step "python: lint gate (ruff check, ruff.toml)"
.venv/bin/python -m pip install -q --disable-pip-version-check 'ruff==0.17.6'
.venv/bin/ruff check .

step "python binding: build (maturin, release) and pytest"
(cd bindings-py && VIRTUAL_ENV="$root/.venv" "$root/.venv/bin/maturin" develop --release --quiet)
# The differential tests on two workers (pytest-xdist); the timing-sensitive ones (marked serial:
# loop stalls, fairness, servers, fork, signals, the GIL, Ray) alone afterwards.
.venv/bin/pytest tests/python -q -n 2 -m "not serial" --durations=15
.venv/bin/pytest tests/python -q -m serial --durations=10

step "node binding: npm ci, napi build (release), node --test"
(cd bindings-node && npm ci --no-audit --no-fund && npx napi build --platform --release)
node --test tests/node/

step "wasm binding: wasm32 build, Node tests, headless Chromium (demo)"
bindings-wasm/scripts/test.sh

step "packages: build dist/ (wheel, sdist, npm main + addon, browser) and install each where the source tree is not visible"
scripts/package.sh
scripts/test-packages.sh

step "engine: pure Rust, so it builds for wasm32 as it is (cargo check, wasm32-unknown-unknown)"
cargo check --quiet -p yieldtok-engine --target wasm32-unknown-unknown

step "all tests passed"
printf '\nstage times:\n%s%6d s  in all\n' "$stage_times" "$((SECONDS - t0))"
