// The demo in real headless Chromium (Debian's package, driven by playwright-core): encode the
// ~160k-token document with the sliced encoder and check that
//   - ids (count and FNV-1a checksum) equal the native core's (target/wasm-ref/qwen3.json),
//   - no long task (PerformanceObserver `longtask`) over 50 ms,
//   - the largest gap between animation frames is at most 50 ms,
//   - a key press dispatched mid-encode is handled within 50 ms;
// also the worker mode (same ids, a short request overtakes a long one). Screenshots go to
// artifacts/ (git-ignored).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadavg } from "node:os";
import { launch, root } from "./chromium.mjs";
import { startServer } from "../../bindings-wasm/demo/serve.mjs";
import { idsChecksum } from "../../bindings-wasm/demo/gen-doc.js";

const LIMIT_MS = 50;
const artifacts = join(root, "artifacts");
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
  mkdirSync(artifacts, { recursive: true });
});

after(async () => {
  await browser?.close();
  server?.close();
});

function nativeDoc() {
  assert.ok(existsSync(refFile), `${refFile} missing: node tests/wasm/cases.mjs target/wasm-ref/cases.json && cargo run -p yieldtok-wasm --release --example native_ref -- target/wasm-ref/cases.json target/wasm-ref`);
  const v = JSON.parse(readFileSync(refFile, "utf8")).find((c) => c.name === "doc_full");
  assert.ok(v, "no doc_full vector");
  return { count: v.ids.length, checksum: idsChecksum(v.ids), ids: v.ids };
}

test("the demo loads qwen3 and encodes as the page opens", { skip, timeout: 120_000 }, async () => {
  await page.goto(url);
  await page.waitForFunction(() => window.__demo?.ready && window.__demo.encodes.length > 0, null, { timeout: 90_000 });
  const state = await page.evaluate(() => ({ fixture: window.__demo.fixture, encodes: window.__demo.encodes }));
  assert.equal(state.fixture, "qwen3");
  assert.ok(state.encodes[0].count > 50);
  const options = await page.$$eval("#fixture option", (os) => os.map((o) => o.value));
  assert.ok(options.includes("qwen3"));
  assert.ok((await page.textContent("#tokens")).length > 100, "coloured token view is empty");
});

// Timing is measured in wall-clock time, which a loaded machine stretches (a descheduled
// renderer shows up as a "long task"). Exactness is asserted on every attempt; the timing limits
// must hold on one of ATTEMPTS attempts, each reported.
const ATTEMPTS = 3;

async function encodeDocument(attempt) {
  const before = await page.evaluate(() => window.__demo.encodes.length);
  await page.evaluate(() => {
    window.__rec.frames.length = 0;
    window.__rec.long.length = 0;
  });
  // Start it from inside the page (a click's round trip can outlast the whole encode).
  await page.evaluate(() => void window.__demo.generate());
  await page.waitForFunction(() => window.__demo.encoding && window.__demo.progress > 0.25, null, { timeout: 60_000, polling: 2 });
  const down = Date.now();
  await page.keyboard.press("k");
  const roundTrip = Date.now() - down;
  await page.waitForFunction((n) => window.__demo.encodes.length > n && window.__demo.encodes.at(-1).chars > 700000, before, { timeout: 120_000 });
  const r = await page.evaluate(() => {
    const e = window.__demo.encodes.at(-1);
    const frames = window.__rec.frames.filter((f) => f >= e.start - 20 && f <= e.end + 100);
    let maxGap = 0;
    for (let i = 1; i < frames.length; i++) maxGap = Math.max(maxGap, frames[i] - frames[i - 1]);
    const long = window.__rec.long.filter(([s, d]) => s + d > e.start && s < e.end).map(([, d]) => d);
    const keys = window.__demo.keyDelays.filter((k) => k.key === "k" && k.at >= e.start && k.at <= e.end);
    const keysAfter = window.__demo.keyDelays.filter((k) => k.key === "k" && k.at > e.end);
    return { entry: e, maxGap, frames: frames.length, long, keys, keysAfter };
  });
  return { ...r, roundTrip };
}

test("160k-token document, sliced: exact, no long task, frames keep coming, keys are handled", { skip, timeout: 400_000 }, async (t) => {
  const expected = nativeDoc();
  await page.focus("#probe");
  // Our own frame recorder and long-task observer, independent of the demo's.
  await page.evaluate(() => {
    const rec = (window.__rec = { frames: [], long: [] });
    // performance.now() rather than the rAF timestamp (which, after a blocked main thread, is
    // the early time the frame was begun).
    const loop = () => {
      rec.frames.push(performance.now());
      requestAnimationFrame(loop);
    };
    requestAnimationFrame(loop);
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) rec.long.push([e.startTime, e.duration]);
    }).observe({ type: "longtask" });
  });
  const problems = [];
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const r = await encodeDocument(attempt);
    t.diagnostic(`attempt ${attempt + 1}: encode ${r.entry.ms.toFixed(0)} ms in ${r.entry.slices} slices, ${r.entry.count} tokens, ${r.frames} frames, max frame gap ${r.maxGap.toFixed(1)} ms, long tasks ${JSON.stringify(r.long.map((d) => Math.round(d)))}, key delay ${r.keys.map((k) => k.delay.toFixed(1)).join(",")} ms (CDP round trip ${r.roundTrip} ms), load average ${loadavg()[0].toFixed(1)}`);
    assert.equal(r.entry.mode, "sliced");
    assert.equal(r.entry.count, expected.count, "token count differs from native");
    assert.equal(r.entry.checksum, expected.checksum, "ids checksum differs from native");
    assert.ok(r.entry.count > 150_000, `document has only ${r.entry.count} tokens`);
    // The window is the encode plus 120 ms; the own engine's sliced encode can take under 50 ms,
    // so a few frames are all there is (a frame gap over the limit is checked below).
    assert.ok(r.frames >= 3, `too few frames recorded (${r.frames})`);
    // The own engine can finish the rest of the sliced encode (~50 ms in all) before the key
    // press's CDP round trip delivers the key: then the key cannot land inside the encode, and
    // the attempt only checks that it was handled right after. The key's time stamp is when the
    // input arrived (not when it was handled: a key sent during a blocked encode carries a stamp
    // inside it), so a stamp after the encode's end means it arrived after the end.
    const keyAfterShortEncode = r.keys.length === 0 && r.keysAfter.length === 1;
    if (keyAfterShortEncode) t.diagnostic(`attempt ${attempt + 1}: the encode (${r.entry.ms.toFixed(0)} ms) ended within the key press's round trip (${r.roundTrip} ms); the key was handled after it`);
    else assert.equal(r.keys.length, 1, "the key press was not handled during the encode");
    const bad = [];
    const long = r.long.filter((d) => d > LIMIT_MS);
    if (long.length) bad.push(`long tasks over ${LIMIT_MS} ms: ${long.map((d) => d.toFixed(0)).join(", ")}`);
    if (r.maxGap > LIMIT_MS) bad.push(`max frame gap ${r.maxGap.toFixed(1)} ms`);
    if (!keyAfterShortEncode && r.keys[0].delay > LIMIT_MS) bad.push(`key press handled after ${r.keys[0].delay.toFixed(1)} ms`);
    // (Not during the measured encode: a screenshot is a long task of its own.)
    if (attempt === 0 || bad.length === 0) await page.screenshot({ path: join(artifacts, "wasm-demo.png") });
    if (bad.length === 0) break;
    problems.push(`attempt ${attempt + 1}: ${bad.join("; ")}`);
    if (problems.length === ATTEMPTS) assert.fail(problems.join("\n"));
  }
  assert.equal((await page.inputValue("#probe")).includes("k"), true);
  // A picture of the page mid-encode (an extra, unmeasured encode).
  await page.evaluate(() => void window.__demo.generate());
  await page.waitForFunction(() => window.__demo.encoding && window.__demo.progress > 0.3, null, { timeout: 60_000, polling: 2 });
  await page.screenshot({ path: join(artifacts, "wasm-demo-encoding.png") });
  await page.waitForFunction(() => !window.__demo.encoding, null, { timeout: 120_000 });
  // The coloured view shows tokens of the full encode, id for id.
  await page.waitForFunction(() => window.__demo.view && window.__demo.view.count > 200, null, { timeout: 30_000 });
  const view = await page.evaluate(() => window.__demo.view);
  assert.deepEqual(view.windowIds, expected.ids.slice(view.from, view.from + view.count));
  // Also in the middle of the document: put the caret there.
  await page.evaluate(() => {
    const doc = document.getElementById("doc");
    doc.setSelectionRange(400_000, 400_000);
    doc.dispatchEvent(new Event("click"));
  });
  await page.waitForFunction(() => window.__demo.view.from > 50_000, null, { timeout: 30_000 });
  const middle = await page.evaluate(() => window.__demo.view);
  assert.ok(middle.count > 200, `only ${middle.count} tokens shown`);
  assert.deepEqual(middle.windowIds, expected.ids.slice(middle.from, middle.from + middle.count));
  await page.screenshot({ path: join(artifacts, "wasm-demo-middle.png") });
});

test("worker mode: same ids, a short request overtakes a long one, and its compact form builds a tokenizer on the page", { skip, timeout: 240_000 }, async () => {
  const expected = nativeDoc();
  const r = await page.evaluate(async () => {
    const { Tokenizer } = await import("/pkg-web/yieldtok_wasm.js");
    const { generateDocument, idsChecksum } = await import("/demo/gen-doc.js");
    const cfg = await (await fetch("/fixtures/qwen3/tokenizer_config.json")).text();
    const wt = await Tokenizer.inWorker(new URL("/fixtures/qwen3/tokenizer.json", location.href), { config: cfg, name: "qwen3" });
    const doc = generateDocument();
    const order = [];
    const t0 = performance.now();
    let progress = 0;
    // The long request is the document 16 times over: the own engine encodes one copy in ~30 ms.
    const long = wt.encode(Array(16).fill(doc).join("\n"), { onProgress: () => progress++ }).then((ids) => (order.push("long"), ids));
    await new Promise((res) => setTimeout(res, 30));
    const short = wt.encode("a short request").then((ids) => (order.push("short"), { ids, at: performance.now() - t0 }));
    const [, s] = await Promise.all([long, short]);
    const total = performance.now() - t0;
    const ids = await wt.encode(doc);
    const ac = new AbortController();
    const cancelled = wt.encode(doc, { signal: ac.signal });
    ac.abort();
    let abortName = null;
    try {
      await cancelled;
    } catch (e) {
      abortName = e.name;
    }
    const decoded = await wt.decode(s.ids);
    const batch = await wt.encodeBatch(["x y", "z"]);
    const chat = await wt.applyChatTemplate([{ role: "user", content: "hi" }], { addGenerationPrompt: true, kwargs: { enable_thinking: false } });
    // Settings, pairs and added tokens in the worker, against the same calls on the page.
    const { AddedToken } = await import("/pkg-web/yieldtok_wasm.js");
    const json = await (await fetch("/fixtures/qwen3/tokenizer.json")).text();
    const pageTok = await Tokenizer.fromJSON(json, { name: "qwen3" });
    const pageSide = [];
    const workerSide = [];
    const both = async (f) => {
      pageSide.push(await f(pageTok));
      workerSide.push(await f(wt));
    };
    const flat = (e) => (e instanceof Uint32Array ? Array.from(e) : Array.isArray(e) ? e.map(flat) : e && e.ids ? Object.fromEntries(Object.entries(e).map(([k, v]) => [k, ArrayBuffer.isView(v) ? Array.from(v) : v])) : e);
    await both(async (t) => (await t.setTruncation(16, { strategy: "OnlyFirst" }), flat(await t.encode(doc))));
    await both(async (t) => (await t.setPadding({ maxLength: 24, direction: "left", padId: 7 }), flat(await t.encodeWithOffsets("a question?", "a passage, longer than the question."))));
    await both(async (t) => flat(await t.encodeBatch(["x y", ["q", "p"]])));
    await both(async (t) => (await t.setPadding({ padToMultipleOf: 3 }), flat(await t.encodeBatch(["x", "a longer text than x", ["q", "p"]]))));
    await both(async (t) => (await t.disableTruncation(), await t.disablePadding(), await t.addTokens(["yieldtok", new AddedToken("<tool>", true)])));
    await both(async (t) => [(await t.getVocab())["<tool>"], (await t.getVocab(false))["<tool>"] ?? null, flat(await t.encode("a yieldtok<tool>b"))]);
    pageTok.free();
    // The compact form, made in the worker, builds a tokenizer on the page with the same ids.
    const bytes = await wt.toCompact();
    const compact = await Tokenizer.fromCompact(bytes, { name: "qwen3" });
    const compactIds = await compact.encode(doc);
    compact.free();
    const pendingAfter = wt.pending;
    wt.terminate();
    return { pageSide, workerSide, compactChecksum: idsChecksum(compactIds), compactBytes: bytes.length, chat: chat.text, count: ids.length, checksum: idsChecksum(ids), order, shortAt: s.at, total, progress, abortName, decoded, batch: batch.map((b) => b.length), pendingAfter };
  });
  assert.equal(r.count, expected.count);
  assert.equal(r.checksum, expected.checksum);
  assert.equal(r.compactChecksum, expected.checksum, `compact form of ${r.compactBytes} bytes`);
  assert.deepEqual(r.order, ["short", "long"], `short request at ${r.shortAt.toFixed(0)} ms of ${r.total.toFixed(0)}`);
  assert.ok(r.progress > 0);
  assert.equal(r.abortName, "AbortError");
  assert.equal(r.decoded, "a short request");
  assert.deepEqual(r.batch, [2, 1]);
  assert.equal(r.chat, "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n");
  assert.equal(r.pendingAfter, 0);
  assert.deepEqual(r.workerSide, r.pageSide, "the worker's settings, pairs and added tokens give the page's results");
  assert.equal(r.pageSide[0].length, 16);
  assert.equal(r.pageSide[1].nSequences, 2);
  assert.equal(r.pageSide[1].ids.length, 24);
  const lens = r.pageSide[3].map((ids) => ids.length);
  assert.ok(lens.every((n) => n === lens[0]) && lens[0] % 3 === 0 && lens[0] >= 5, `padded over the batch to its longest, a multiple of 3: ${lens}`);
  assert.equal(r.pageSide[4], 2);
  assert.equal(r.pageSide[5][1], null);
});

test("no errors in the page console", { skip }, () => {
  assert.deepEqual(consoleErrors, []);
});
