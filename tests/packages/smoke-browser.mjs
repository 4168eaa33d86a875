// Smoke test of the installed browser package (yieldtok-wasm) in headless Chromium, run by
// scripts/test-packages.sh: the page is served from a fresh npm project outside the repository
// (node_modules/yieldtok-wasm as npm installed it, tokenizer.json and tokenizer_config.json,
// expected.json) and
// imports the package by its name through an import map, as an app would.
//   node smoke-browser.mjs <project dir> <expected.json>
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFileSync, existsSync, statSync } from "node:fs";
import { extname, join, normalize } from "node:path";
import { launch } from "../browser/chromium.mjs";

const [project, expectedPath] = process.argv.slice(2);
const expected = JSON.parse(readFileSync(expectedPath, "utf8"));
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".json": "application/json", ".wasm": "application/wasm" };
const PAGE = `<!doctype html><meta charset="utf-8">
<script type="importmap">{ "imports": { "yieldtok-wasm": "/node_modules/yieldtok-wasm/yieldtok_wasm.js" } }</script>
<script type="module">
import init, { Tokenizer } from "yieldtok-wasm";
try {
  await init();
  const config = await (await fetch("/tokenizer_config.json")).text();
  const tok = await Tokenizer.fromJSON(await (await fetch("/tokenizer.json")).text(), { config });
  const { texts } = await (await fetch("/expected.json")).json();
  const ids = [];
  for (const t of texts) ids.push(Array.from(await tok.encode(t)));
  const chat = await tok.applyChatTemplate([{ role: "user", content: "Hi there" }], { addGenerationPrompt: true });
  window.__result = { ids, chat };
} catch (e) { window.__result = { error: String(e && e.stack || e) }; }
</script>`;

const server = createServer((req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
  if (path === "/") return res.writeHead(200, { "content-type": "text/html" }).end(PAGE);
  const file = path === "/expected.json" ? expectedPath : join(project, path);
  if (!file.startsWith(project) && file !== expectedPath) return res.writeHead(403).end();
  if (!existsSync(file) || !statSync(file).isFile()) return res.writeHead(404).end();
  res.writeHead(200, { "content-type": TYPES[extname(file)] || "application/octet-stream" }).end(readFileSync(file));
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const browser = await launch();
try {
  await browser.page.goto(`http://127.0.0.1:${server.address().port}/`);
  await browser.page.waitForFunction(() => window.__result, null, { timeout: 120_000 });
  const result = await browser.page.evaluate(() => window.__result);
  assert.ok(!result.error, result.error);
  assert.deepEqual(result.ids, expected.ids);
  const text = typeof result.chat === "string" ? result.chat : result.chat.text;
  assert.ok(text.includes("Hi there") && text !== "Hi there", text);
  console.log(`browser package OK: ${expected.texts.length} texts in headless Chromium, chat prompt of ${text.length} chars`);
} finally {
  await browser.close();
  server.close();
}
