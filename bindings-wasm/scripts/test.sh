#!/usr/bin/env bash
# The wasm binding's part of the project's test command: build for wasm32, generate the web and
# nodejs packages, install the JS tooling, write the native reference vectors, run the Node
# tests and the headless-Chromium test. Run from anywhere; expects the fixtures to be fetched
# (scripts/fetch-fixtures.sh) and, when YIELDTOK_REQUIRE_CONFORMANCE=1, target/conformance/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
t0=$SECONDS
step() { printf '\n== %s   [wasm stage: %d s so far]\n' "$*" "$((SECONDS - t0))"; }

step "wasm: toolchain"
rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
wasm-bindgen --version 2>/dev/null | grep -qx 'wasm-bindgen 0.2.130' || cargo install wasm-bindgen-cli --version 0.2.130   # no --locked (see shared notes)
[ -x /usr/bin/chromium ] || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

step "wasm: build, wasm-bindgen (web + nodejs), npm ci"
nice -n 10 cargo build -p yieldtok-wasm --target wasm32-unknown-unknown --release
node bindings-wasm/scripts/bindgen.mjs
(cd bindings-wasm && npm ci --no-audit --no-fund)

step "wasm: native reference vectors (incl. the ~160k-token demo document; settings from the tokenizers crate)"
node tests/wasm/cases.mjs target/wasm-ref/cases.json
node tests/wasm/settings_cases.mjs target/wasm-ref/settings_cases.json
# Built with the workspace's features (as the project's cargo test built it), not this crate's alone.
nice -n 10 cargo build --quiet --workspace --example native_ref --example settings_ref
"${CARGO_TARGET_DIR:-target}/debug/examples/native_ref" target/wasm-ref/cases.json target/wasm-ref
"${CARGO_TARGET_DIR:-target}/debug/examples/settings_ref" target/wasm-ref/settings_cases.json target/wasm-ref/settings.json

step "wasm: node tests (nodejs + web targets, types) and headless Chromium (demo, worker)"
node --test tests/wasm/ tests/browser/
