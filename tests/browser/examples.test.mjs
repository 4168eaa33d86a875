// examples/browser/ (the Web Worker example of examples/README.md) in Debian's headless Chromium,
// opened as a user would open it (bindings-wasm/demo/serve.mjs, /examples/browser/): it loads
// qwen3 in its worker, and its encode() gives the native core's ids (target/wasm-ref/qwen3.json)
// for short texts, a 100 KB slice and the whole ~160k-token demo document; the page's timer
// keeps ticking while the worker encodes; a cancelled encode rejects with an AbortError; typing
// re-encodes.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { launch, root } from "./chromium.mjs";
import { startServer } from "../../bindings-wasm/demo/serve.mjs";
import { generateDocument } from "../../bindings-wasm/demo/gen-doc.js";

const refFile = join(root, "target/wasm-ref/qwen3.json");
const have = existsSync(join(root, "bindings-wasm/pkg-web/yieldtok_wasm.js")) && existsSync(join(root, ".cache/fixtures/qwen3/tokenizer.json"));
const skip = have ? false : "needs bindings-wasm/pkg-web and the qwen3 fixture";

let server;
let url;
let browser;
let page;
const consoleErrors = [];

before(async () => {
  if (skip) return;
  ({ server, url } = await startServer({ port: 0 }));
  browser = await launch();
  page = browser.page;
  page.on("console", (m) => m.type() === "error" && consoleErrors.push(m.text()));
  page.on("pageerror", (e) => consoleErrors.push(String(e)));
});

after(async () => {
  await browser?.close();
  server?.close();
});

function vectors() {
  assert.ok(existsSync(refFile), `${refFile} missing: node tests/wasm/cases.mjs target/wasm-ref/cases.json && cargo run -p yieldtok-wasm --release --example native_ref -- target/wasm-ref/cases.json target/wasm-ref`);
  const all = JSON.parse(readFileSync(refFile, "utf8"));
  // The example's encode adds special tokens (the wasm default), like these vectors.
  const picked = all.filter((c) => c.add_special_tokens && ["hello", "cjk", "emoji", "special_qwen", "code", "doc_100k", "doc_full"].includes(c.name));
  // doc_full's vector holds ids only: its text is the demo document (tests/wasm/cases.mjs).
  return picked.map((c) => (c.name === "doc_full" ? { ...c, text: generateDocument() } : c));
}

test("examples/browser: the worker loads qwen3 and encodes exactly, off the main thread", { skip, timeout: 240_000 }, async () => {
  const cases = vectors();
  assert.equal(cases.length, 7);
  await page.goto(new URL("examples/browser/", url).href);
  await page.waitForFunction(() => window.example, null, { timeout: 30_000 });
  assert.equal(await page.evaluate(() => window.example.loaded), "/fixtures/qwen3/tokenizer.json");
  await page.waitForFunction(() => document.getElementById("out").textContent.includes("tokens in"), null, { timeout: 60_000 });
  for (const c of cases) {
    const r = await page.evaluate(async (text) => {
      const before = window.example.ticks();
      const ids = await window.example.encode(text);
      return { ids: Array.from(ids), ticks: window.example.ticks() - before };
    }, c.text);
    assert.equal(r.ids.length, c.ids.length, `${c.name}: token count`);
    assert.deepEqual(r.ids, c.ids, `${c.name}: ids differ from native`);
    // The whole document takes the worker a while (tens of ms or more); the page's 16 ms timer
    // runs meanwhile. Not a timing limit: only that the main thread was not blocked throughout.
    if (c.name === "doc_full") assert.ok(r.ticks > 0, "the page's timer did not tick during the worker's encode");
  }
  const cancelled = await page.evaluate(async (text) => {
    const ac = new AbortController();
    const p = window.example.encode(text, { signal: ac.signal });
    ac.abort();
    try {
      await p;
      return "resolved";
    } catch (e) {
      return e.name;
    }
  }, cases.at(-1).text.repeat(4));
  assert.equal(cancelled, "AbortError");
  // Typing still works: the page's own handler re-encodes.
  await page.fill("#text", "Hello world");
  await page.waitForFunction(() => /^\d+ tokens in/.test(document.getElementById("out").textContent) && document.getElementById("out").textContent.includes("9707 1879"), null, { timeout: 30_000 });
});

test("examples/browser: no errors in the page console", { skip }, () => {
  assert.deepEqual(consoleErrors, []);
});
