#!/usr/bin/env bash
# Installs each artifact of dist/ (scripts/package.sh) as a user gets it, somewhere the source
# tree is not visible, and runs a smoke test (encode against tokenizers' ids, async encode, a
# chat template):
#   - the Python wheel into a fresh venv (pip, no compilation), run with `python -I` from a
#     temporary folder;
#   - the Python sdist built from source in another fresh venv (`pip install dist/*.tar.gz`);
#   - the npm packages (main + linux-x64-gnu addon) into a fresh npm project;
#   - the browser package into a fresh npm project, imported by name by a page in headless
#     Chromium.
# Prints install times and artifact sizes. The sdist build shares target/ with the test
# command's release builds (its dependencies compile once); YIELDTOK_SKIP_SDIST=1 skips it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$PWD"
dist="$root/dist"
model="$root/.cache/fixtures/qwen3"
work=$(mktemp -d /tmp/yieldtok-packages-XXXXXX)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
took() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f} s')" "$1" "$(now)"; }

echo "== expected ids (tokenizers, in the dev venv)"
"$root/.venv/bin/python" - "$model/tokenizer.json" "$work/expected.json" <<'EOF'
import json, sys, tokenizers
texts = ["Hello, world!", "  spaces\tand\nnewlines\r\n", "数字 1234567890 emoji 😀👍🏽 👨‍👩‍👧", "def f(x):\n    return {'a': [1, 2]}\n", "<|im_start|>user\nhi<|im_end|>"]
tok = tokenizers.Tokenizer.from_file(sys.argv[1])
json.dump({"texts": texts, "ids": [tok.encode(t).ids for t in texts]}, open(sys.argv[2], "w"), ensure_ascii=False)
EOF

echo "== python wheel: fresh venv, pip install, smoke test"
wheel=$(ls "$dist"/yieldtok-*-abi3-*.whl)
python3 -m venv "$work/venv-wheel"
t=$(now)
"$work/venv-wheel/bin/pip" install -q --disable-pip-version-check "$wheel"
echo "installed $(basename "$wheel") in $(took "$t")"
(cd "$work" && "$work/venv-wheel/bin/python" -I "$root/tests/packages/smoke.py" "$model" "$work/expected.json")

if [ "${YIELDTOK_SKIP_SDIST:-0}" != 1 ]; then
  echo "== python sdist: fresh venv, pip install (builds from source), smoke test"
  sdist=$(ls "$dist"/yieldtok-*.tar.gz)
  python3 -m venv "$work/venv-sdist"
  t=$(now)
  CARGO_TARGET_DIR="$root/target" "$work/venv-sdist/bin/pip" install -q --disable-pip-version-check "$sdist"
  echo "built and installed $(basename "$sdist") in $(took "$t")"
  (cd "$work" && "$work/venv-sdist/bin/python" -I "$root/tests/packages/smoke.py" "$model" "$work/expected.json")
fi

echo "== npm packages: fresh project, npm install, smoke test"
mkdir -p "$work/node-app" && cd "$work/node-app"
npm init -y >/dev/null
t=$(now)
npm install --no-audit --no-fund --silent "$dist"/yieldtok-linux-x64-gnu-*.tgz "$(ls "$dist"/yieldtok-[0-9]*.tgz)"
echo "installed the npm packages in $(took "$t")"
cp "$root/tests/packages/smoke.cjs" .
node smoke.cjs "$model" "$work/expected.json"

echo "== browser package: fresh project, npm install, a page imports it in headless Chromium"
mkdir -p "$work/web-app" && cd "$work/web-app"
npm init -y >/dev/null
t=$(now)
npm install --no-audit --no-fund --silent "$(ls "$dist"/yieldtok-wasm-*.tgz)"
echo "installed the browser package in $(took "$t")"
cp "$model/tokenizer.json" "$model/tokenizer_config.json" .
node "$root/tests/packages/smoke-browser.mjs" "$work/web-app" "$work/expected.json"

echo "== artifact sizes"
ls -l "$dist" | tail -n +2 | awk '{ printf "%10d  %s\n", $5, $9 }'
wasm="$work/web-app/node_modules/yieldtok-wasm/yieldtok_wasm_bg.wasm"
printf '%10d  %s (raw), %d gzip -9\n' "$(stat -c %s "$wasm")" "yieldtok_wasm_bg.wasm" "$(gzip -9c "$wasm" | wc -c)"
