#!/usr/bin/env bash
# Runs every fuzz target of fuzz/ for a bounded time from the inputs kept in fuzz/corpus/<target>
# (plus the fixtures' chat templates as extra seeds). Any crash, assertion, timeout (> 10 s on
# one input) or memory blow-up (> 2 GB) fails the run and leaves the input in
# fuzz/artifacts/<target>/; reproduce it with `cargo +nightly-2026-05-19 fuzz run -s none --features libfuzzer <target> <file>`
# from fuzz/, fix it, and keep the input in fuzz/corpus/<target>/ as its regression test.
#
#   FUZZ_SECONDS  seconds per target (default 10; chunked_encode gets three times as long, as
#                 loading its six tokenizers takes the first few seconds)
#   FUZZ_NEW_DIR  where the new inputs libFuzzer finds are kept (one folder per target); by
#                 default a temporary directory, deleted at the end, so the kept corpus changes
#                 only by hand (copy the inputs worth keeping; `cargo fuzz cmin` keeps it small)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
secs=${FUZZ_SECONDS:-10}
# A pinned nightly (cargo-fuzz needs one for the sanitizer flags): a new nightly cannot break the
# test command, and every run builds with the same compiler.
nightly=nightly-2026-05-19

# (`rustup run`, not `toolchain list | grep -q`: under pipefail, grep's early exit can fail the
# pipe and update an installed nightly)
rustup run "$nightly" rustc -V >/dev/null 2>&1 || rustup toolchain install "$nightly" --profile minimal
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --version 0.13.2 --locked

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
new=${FUZZ_NEW_DIR:-$work}
mkdir -p "$work/templates"
python3 - "${YIELDTOK_FIXTURES:-$root/.cache/fixtures}" "$work/templates" <<'PY'
import json, pathlib, sys
for cfg in sorted(pathlib.Path(sys.argv[1]).glob("*/tokenizer_config.json")):
    t = json.loads(cfg.read_text()).get("chat_template")
    for i, src in enumerate(t if isinstance(t, list) else [t] if t else []):
        src = src["template"] if isinstance(src, dict) else src
        (pathlib.Path(sys.argv[2]) / f"{cfg.parent.name}-{i}").write_text(src)
PY

cd fuzz
# `-s none`: Rust is memory-safe outside its few `unsafe` blocks; coverage guidance without
# AddressSanitizer builds and runs several times faster.
cargo +"$nightly" fuzz build -s none --features libfuzzer
for target in chunked_encode template_render tag_scanner trajectory_parse; do
  seeds=()
  dict=()
  t=$secs
  max_len=4096
  case $target in
    chunked_encode) dict=(-dict=dicts/chunked_encode.dict); t=$((secs * 3)) ;;
    template_render | tag_scanner) seeds=("$work/templates"); dict=(-dict=dicts/jinja.dict); max_len=65536 ;;
    trajectory_parse) dict=(-dict=dicts/trajectory_parse.dict) ;;
  esac
  mkdir -p "$new/new-$target"
  echo "fuzz: $target for ${t}s"
  rc=0
  cargo +"$nightly" fuzz run -s none --features libfuzzer "$target" "$new/new-$target" "corpus/$target" "${seeds[@]}" -- \
    -max_total_time="$t" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" "${dict[@]}" -print_final_stats=1 \
    >"$work/$target.log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    tail -n 60 "$work/$target.log"
    echo "fuzz: $target FAILED (the input is in fuzz/artifacts/$target/)"
    exit 1
  fi
  grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb)" "$work/$target.log" || true
done
echo "fuzz: all targets passed"
