// Shared paths and loaders of the wasm tests.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const pkgNode = join(root, "bindings-wasm/pkg-node");
export const pkgWeb = join(root, "bindings-wasm/pkg-web");
export const fixturesDir = process.env.YIELDTOK_FIXTURES || join(root, ".cache/fixtures");
export const FIXTURES = ["qwen3", "llama3_1", "gemma3", "deepseek_v3", "gpt4o", "gptoss", "llama2"];

/** The nodejs-target package, or a clear error telling how to build it. */
export function loadNodePkg() {
  const main = join(pkgNode, "yieldtok_wasm.js");
  if (!existsSync(main)) {
    throw new Error(
      "bindings-wasm/pkg-node is missing; build it:\n" +
        "  cargo build -p yieldtok-wasm --target wasm32-unknown-unknown --release && node bindings-wasm/scripts/bindgen.mjs",
    );
  }
  return createRequire(import.meta.url)(main);
}

export function fixturePaths(name) {
  const dir = join(fixturesDir, name);
  const json = join(dir, "tokenizer.json");
  const config = join(dir, "tokenizer_config.json");
  return { dir, json, config: existsSync(config) ? config : null, present: existsSync(json) };
}

export async function loadFixture(yt, name) {
  const p = fixturePaths(name);
  if (!p.present) throw new Error(`fixture ${name} missing: run scripts/fetch-fixtures.sh`);
  return yt.Tokenizer.fromJSON(readFileSync(p.json), { name, config: p.config ? readFileSync(p.config, "utf8") : undefined });
}

/** Char (Unicode scalar) offsets from UTF-16 offsets of `text`. */
export function utf16ToCharOffsets(text, utf16) {
  const map = new Uint32Array(text.length + 1);
  let chars = 0;
  for (let i = 0; i < text.length; i++) {
    map[i] = chars;
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        map[i + 1] = chars;
        i++;
      }
    }
    chars++;
  }
  map[text.length] = chars;
  const out = new Array(utf16.length);
  for (let i = 0; i < utf16.length; i++) out[i] = map[utf16[i]];
  return out;
}

export const flat = (pairs) => pairs.flat();

export function firstDiff(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}

/** Vector files for `fixture`: the core's conformance vectors and the wasm tests' own. */
export function vectorFiles(fixture) {
  const files = [];
  for (const dir of ["target/conformance", "target/wasm-ref"]) {
    const f = join(root, dir, `${fixture}.json`);
    if (existsSync(f)) files.push(f);
  }
  return files;
}

export function readVectors(file) {
  return JSON.parse(readFileSync(file, "utf8"));
}
