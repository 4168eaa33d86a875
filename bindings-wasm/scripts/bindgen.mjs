#!/usr/bin/env node
// Turn the cargo output into the two packages:
//   pkg-web/  (--target web, ES module)   pkg-node/  (--target nodejs, CommonJS)
// then fix the generated glue (see patchGlue) and write each folder's package.json.
//
//   node bindings-wasm/scripts/bindgen.mjs [--wasm path/to/yieldtok_wasm.wasm] [--opt]
//
// --opt runs wasm-opt -Oz from the npm `binaryen` package on both outputs (about 45 CPU-s;
// smaller download, no measurable speed change).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync, statSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const here = dirname(fileURLToPath(import.meta.url));
const crate = resolve(here, "..");
const root = resolve(crate, "..");
const args = process.argv.slice(2);
const wasmArg = args.indexOf("--wasm");
const input = wasmArg >= 0 ? resolve(args[wasmArg + 1]) : join(root, "target/wasm32-unknown-unknown/release/yieldtok_wasm.wasm");
const optimize = args.includes("--opt");
if (!existsSync(input)) {
  console.error(`bindgen: ${input} not found; build it first:\n  cargo build -p yieldtok-wasm --target wasm32-unknown-unknown --release`);
  process.exit(1);
}

const bindgen = process.env.WASM_BINDGEN || "wasm-bindgen";
const version = execFileSync(bindgen, ["--version"], { encoding: "utf8" }).trim();
if (version !== "wasm-bindgen 0.2.130") {
  console.error(`bindgen: need wasm-bindgen 0.2.130 (the crate's version), found "${version}":\n  cargo install wasm-bindgen-cli --version 0.2.130`);
  process.exit(1);
}

// wasm-bindgen 0.2.130's re-initialization (wasm_bindgen::handler::schedule_reinit, which the
// binding's panic hook calls) checks a method's receiver for staleness *before* the call guard
// that re-creates the instance, and `free()` does not check at all. So the first call after a
// panic would run on the fresh instance with a pointer from the old one. Run the guard first,
// and make free() of a stale object a no-op. Every pattern must match: a wasm-bindgen upgrade
// that changes the glue fails here instead of silently.
function patchGlue(file) {
  let js = readFileSync(file, "utf8");
  const stale = "if (this.__wbg_inst !== undefined && this.__wbg_inst !== __wbg_instance_id) {";
  const n = js.split(stale).length - 1;
  if (n === 0 || !js.includes("function __wbg_call_guard()")) throw new Error(`${file}: stale-object check not found`);
  js = js.split(stale).join(`__wbg_call_guard();\n        ${stale}`);
  const free = /free\(\) \{\n(\s*)const ptr = this\.__destroy_into_raw\(\);\n\s*__wbg_call_guard\(\);\n/g;
  const frees = js.match(free) || [];
  // one per exported class: AddedToken, DecodeStream, EncodeTask, Tokenizer
  if (frees.length !== 4) throw new Error(`${file}: expected 4 free() methods, found ${frees.length}`);
  js = js.replace(free, (_m, indent) =>
    `free() {\n${indent}__wbg_call_guard();\n${indent}const stale = this.__wbg_inst !== undefined && this.__wbg_inst !== __wbg_instance_id;\n${indent}const ptr = this.__destroy_into_raw();\n${indent}if (stale || ptr === 0) return;\n`);
  writeFileSync(file, js);
  return n;
}

const size = (f) => {
  const b = readFileSync(f);
  return { raw: b.length, gzip: gzipSync(b, { level: 9 }).length };
};
const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;

// The version is the workspace's (Cargo.toml, [workspace.package]): one place for every package.
const pkgVersion = /\[workspace\.package\][^[]*?\nversion\s*=\s*"([^"]+)"/.exec(readFileSync(join(root, "Cargo.toml"), "utf8"))?.[1];
if (!pkgVersion) throw new Error("no [workspace.package] version in Cargo.toml");
const pkgJson = {
  name: "yieldtok-wasm",
  version: pkgVersion,
  description: "yieldtok for browsers: exact tokenization in slices that never block the page",
  license: "Apache-2.0",
};
for (const [target, dir, extra] of [
  ["web", "pkg-web", { type: "module", main: "yieldtok_wasm.js", types: "yieldtok_wasm.d.ts" }],
  ["nodejs", "pkg-node", { type: "commonjs", main: "yieldtok_wasm.js", types: "yieldtok_wasm.d.ts" }],
]) {
  const out = join(crate, dir);
  execFileSync(bindgen, [input, "--target", target, "--out-dir", out], { stdio: "inherit" });
  const wasm = join(out, "yieldtok_wasm_bg.wasm");
  if (optimize) {
    const wasmOpt = join(crate, "node_modules/.bin/wasm-opt");
    execFileSync(wasmOpt, [wasm, "-Oz", "--enable-bulk-memory", "--enable-nontrapping-float-to-int", "--enable-sign-ext", "--enable-mutable-globals", "--enable-reference-types", "--enable-multivalue", "-o", wasm], { stdio: "inherit" });
  }
  const checks = patchGlue(join(out, "yieldtok_wasm.js"));
  writeFileSync(join(out, "package.json"), JSON.stringify({ ...pkgJson, ...extra }, null, 2) + "\n");
  // The snippet (js/runtime.js) is an ES module in both packages (Node loads it with require(esm)).
  mkdirSync(join(out, "snippets"), { recursive: true });
  writeFileSync(join(out, "snippets/package.json"), '{ "type": "module" }\n');
  const s = size(wasm);
  console.log(`${dir}: ${mb(s.raw)} wasm (${mb(s.gzip)} gzip -9), glue patched at ${checks} checks`);
}
const s = size(input);
console.log(`cargo output: ${mb(s.raw)} (with debug info; wasm-bindgen strips it)`);
