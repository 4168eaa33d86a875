#!/usr/bin/env bash
# Builds the installable packages into dist/ (issue 18), for this machine's platform (x86_64
# Linux, glibc):
#   dist/yieldtok-<v>-cp310-abi3-manylinux_*_x86_64.whl   Python wheel (abi3: one wheel for 3.10+)
#   dist/yieldtok-<v>.tar.gz                               Python sdist (builds from source with Rust)
#   dist/yieldtok-<v>.tgz                                  npm package (JS API + loader)
#   dist/yieldtok-linux-x64-gnu-<v>.tgz                    npm per-platform package (the addon), napi-rs' layout
#   dist/yieldtok-wasm-<v>.tgz                             browser package (ES module, .d.ts, .wasm asset)
# The version comes from the workspace (Cargo.toml's [workspace.package] version); the npm
# package.json versions are checked against it. Reuses the release builds the test command
# made (maturin develop --release, napi build --release, the wasm32 build); builds what is
# missing. Then scripts/test-packages.sh installs each artifact where the source tree is not
# visible and runs a smoke test.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$PWD"
dist="$root/dist"
version=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version *= *"\(.*\)"/\1/p' Cargo.toml)
[ -n "$version" ] || { echo "package.sh: no [workspace.package] version in Cargo.toml" >&2; exit 1; }
mkdir -p "$dist"
rm -f "$dist"/yieldtok-*
for pj in bindings-node/package.json; do
  v=$(node -p "require('./$pj').version")
  [ "$v" = "$version" ] || { echo "package.sh: $pj has version $v, the workspace $version" >&2; exit 1; }
done

python=${PYTHON:-"$root/.venv/bin/python"}
[ -x "$python" ] || python=python3
maturin=$("$python" -c 'import shutil,sys,os; p=os.path.join(os.path.dirname(sys.executable),"maturin"); print(p if os.path.exists(p) else shutil.which("maturin") or "")')
[ -n "$maturin" ] || { echo "package.sh: maturin not found (pip install maturin==1.16.0)" >&2; exit 1; }

echo "== python: wheel and sdist"
(cd bindings-py && "$maturin" build --release --quiet --out "$dist" && "$maturin" sdist --out "$dist") 2>&1 | grep -v '^\s*$' | tail -n 4

echo "== node: the addon's per-platform package and the main package"
node_tmp=$(mktemp -d)
trap 'rm -rf "$node_tmp"' EXIT
(cd bindings-node && { ls yieldtok.linux-x64-gnu.node >/dev/null 2>&1 || npx napi build --platform --release; })
plat="$node_tmp/linux-x64-gnu"
mkdir -p "$plat"
cp bindings-node/yieldtok.linux-x64-gnu.node "$plat/"
cp LICENSE* "$plat/" 2>/dev/null || true
node -e '
const [version, out] = process.argv.slice(1);
const pkg = {
  name: "yieldtok-linux-x64-gnu", version,
  description: "The linux-x64-gnu native addon of yieldtok (installed by the yieldtok package)",
  license: "Apache-2.0", main: "yieldtok.linux-x64-gnu.node", files: ["yieldtok.linux-x64-gnu.node", "LICENSE*"],
  os: ["linux"], cpu: ["x64"], libc: ["glibc"], engines: { node: ">= 20" },
};
require("fs").writeFileSync(out + "/package.json", JSON.stringify(pkg, null, 2) + "\n");
' "$version" "$plat"
(cd "$plat" && npm pack --silent --pack-destination "$dist" >/dev/null)
main="$node_tmp/main"
mkdir -p "$main"
(cd bindings-node && cp yieldtok.js yieldtok.mjs yieldtok.d.ts yieldtok.d.mts index.js index.d.ts README.md "$main/")
cp LICENSE* "$main/" 2>/dev/null || true
node -e '
const [src, out] = process.argv.slice(1);
const pkg = JSON.parse(require("fs").readFileSync(src, "utf8"));
delete pkg.devDependencies; delete pkg.scripts;
pkg.files = pkg.files.filter((f) => f !== "*.node").concat(["README.md", "LICENSE*"]);
pkg.optionalDependencies = { "yieldtok-linux-x64-gnu": pkg.version };
require("fs").writeFileSync(out + "/package.json", JSON.stringify(pkg, null, 2) + "\n");
' "$root/bindings-node/package.json" "$main"
(cd "$main" && npm pack --silent --pack-destination "$dist" >/dev/null)

echo "== browser: the wasm package (pkg-web)"
if [ ! -f bindings-wasm/pkg-web/yieldtok_wasm_bg.wasm ]; then
  cargo build -p yieldtok-wasm --target wasm32-unknown-unknown --release
  node bindings-wasm/scripts/bindgen.mjs
fi
web="$node_tmp/web"
cp -r bindings-wasm/pkg-web "$web"
cp LICENSE* "$web/" 2>/dev/null || true
node -e '
const [out, version] = process.argv.slice(1);
const f = out + "/package.json";
const pkg = JSON.parse(require("fs").readFileSync(f, "utf8"));
if (pkg.version !== version) { console.error(`pkg-web has version ${pkg.version}, the workspace ${version}`); process.exit(1); }
pkg.files = require("fs").readdirSync(out).filter((n) => n !== "package.json");
pkg.exports = { ".": { types: "./" + pkg.types, default: "./" + pkg.main }, "./yieldtok_wasm_bg.wasm": "./yieldtok_wasm_bg.wasm", "./package.json": "./package.json" };
pkg.sideEffects = false;
require("fs").writeFileSync(f, JSON.stringify(pkg, null, 2) + "\n");
' "$web" "$version"
(cd "$web" && npm pack --silent --pack-destination "$dist" >/dev/null)

echo "== dist/"
ls -l "$dist" | tail -n +2 | awk '{ printf "%10d  %s\n", $5, $9 }'
