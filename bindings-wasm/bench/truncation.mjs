#!/usr/bin/env node
// Truncation in the wasm binding (nodejs target), measured from Node: one long document (~1 MB
// of real conversation text, or of the demo generator's text without ../shared/data) with
// `setTruncation(512)`, blocking `encodeWithOffsetsSync` and sliced `encodeWithOffsets`,
// against the `tokenizers` npm package (native, bindings-node's dev dependency) doing the same
// in the same run, and against the binding's own untruncated encode cut to 512 (what a page
// had to do before `setTruncation`). Ids checked equal first. Wall ms per call, medians of
// `--rounds` (default 5).
//
//   node bindings-wasm/bench/truncation.mjs [--fixture qwen3] [--rounds 5]
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { generateDocument } from "../demo/gen-doc.js";
import { fixturePaths, loadNodePkg, root } from "../../tests/wasm/helpers.mjs";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? dflt : process.argv[i + 1];
};
const ROUNDS = Number(arg("rounds", 5));
const FIXTURE = arg("fixture", "qwen3");
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

async function measure(fn) {
  await fn();
  const wall = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    await fn();
    wall.push(performance.now() - t0);
  }
  return median(wall);
}

function document() {
  const f = join(root, "..", "shared", "data", "tau-airline-conversations.jsonl");
  let doc;
  if (existsSync(f)) {
    const parts = [];
    for (const line of readFileSync(f, "utf8").split("\n")) {
      if (!line) continue;
      for (const m of JSON.parse(line).messages) parts.push(typeof m.content === "string" && m.content ? m.content : JSON.stringify(m.tool_calls ?? m));
    }
    doc = parts.join("\n\n");
  } else {
    doc = generateDocument({ targetChars: 1_000_000 });
  }
  while (doc.length < 1_000_000) doc += "\n\n" + doc;
  return { doc: doc.slice(0, 1_000_000), source: existsSync(f) ? "shared conversations" : "demo generator" };
}

const yt = loadNodePkg();
const p = fixturePaths(FIXTURE);
const HF = createRequire(join(root, "bindings-node/package.json"))("tokenizers").Tokenizer;
const tok = await yt.Tokenizer.fromJSON(readFileSync(p.json));
const hf = HF.fromFile(p.json);
const { doc, source } = document();

const full = tok.encodeSync(doc);
tok.setTruncation(512);
hf.setTruncation(512);
const want = (await hf.encode(doc)).getIds();
const same = (a, what) => {
  if (JSON.stringify(Array.from(a)) !== JSON.stringify(want)) throw new Error(`${what}: ids differ from tokenizers'`);
};
same(tok.encodeWithOffsetsSync(doc).ids, "encodeWithOffsetsSync");
same((await tok.encodeWithOffsets(doc)).ids, "encodeWithOffsets");
same(full.slice(0, 512), "the untruncated encode cut to 512");

const rows = [
  ["yieldtok wasm, setTruncation(512), encodeWithOffsetsSync", await measure(() => tok.encodeWithOffsetsSync(doc))],
  ["yieldtok wasm, setTruncation(512), encodeWithOffsets (sliced)", await measure(() => tok.encodeWithOffsets(doc))],
  ["tokenizers npm (native), setTruncation(512), encode", await measure(() => hf.encode(doc))],
];
tok.disableTruncation();
rows.push(["yieldtok wasm, untruncated encodeSync, then slice(0, 512)", await measure(() => tok.encodeSync(doc).slice(0, 512))]);

console.log(`fixture ${FIXTURE}, 1 MB document (${source}), ${ROUNDS} rounds, medians of wall ms; ids checked equal first`);
const peer = rows[2][1];
for (const [name, ms] of rows) console.log(`${name}: ${ms.toFixed(2)} ms (${(peer / ms).toFixed(1)}x tokenizers npm)`);
