// The wasm binding's API in Node (nodejs target, and the web target loaded in Node): errors,
// slicing and yielding, cancellation, progress, batches, decode, the task API.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { fixturePaths, loadFixture, loadNodePkg, pkgWeb } from "./helpers.mjs";
import { generateDocument } from "../../bindings-wasm/demo/gen-doc.js";

const yt = loadNodePkg();
const FIX = "qwen3";
const skip = fixturePaths(FIX).present ? false : "qwen3 fixture not fetched";
const doc = generateDocument({ targetChars: 200_000 });
let tok;

test("load", { skip }, async () => {
  tok = await loadFixture(yt, FIX);
  assert.equal(tok.vocabSize, 151669);
  assert.equal(tok.name, FIX);
  assert.match(tok.chunking, /ByteLevel/);
  assert.equal(typeof yt.version(), "string");
});

test("errors are clear and typed", { skip }, async () => {
  await assert.rejects(tok.encode(3), { name: "TypeError", message: "text must be a string" });
  await assert.rejects(tok.encode("x", 5), { name: "TypeError", message: "options must be an object" });
  await assert.rejects(tok.encode("x", { addSpecialTokens: "yes" }), { name: "TypeError", message: /addSpecialTokens must be a boolean/ });
  await assert.rejects(tok.encode("x", { sliceMs: -1 }), { name: "TypeError", message: /sliceMs/ });
  await assert.rejects(tok.encode("x", { pieceBytes: 0 }), { name: "TypeError", message: /pieceBytes/ });
  await assert.rejects(tok.encode("x".repeat(10000), { yield: "bogus", pieceBytes: 100 }), { name: "TypeError", message: /options.yield/ });
  await assert.rejects(tok.encode("x", { onProgress: 1 }), { name: "TypeError", message: /onProgress/ });
  await assert.rejects(tok.encodeBatch("x"), { name: "TypeError", message: /array of strings/ });
  await assert.rejects(tok.encodeBatch(["a", 1]), { name: "TypeError", message: "text must be a string" });
  assert.throws(() => tok.encodeSync(null), { name: "TypeError" });
  assert.equal(tok.decode([999999999]), '') // ids the vocabulary lacks are skipped, as tokenizers does
  assert.throws(() => tok.createTask("x", { output: "tokens" }), { name: "TypeError", message: /options.output/ });
  await assert.rejects(yt.Tokenizer.fromJSON("{bad", { name: "broken.json" }), { message: /invalid tokenizer definition \(broken.json\)/, code: "invalid_tokenizer" });
  await assert.rejects(yt.Tokenizer.fromJSON(42), { name: "TypeError", message: /string, Uint8Array or ArrayBuffer/ });
  await assert.rejects(yt.Tokenizer.fromJSON(new Uint8Array([0xff, 0xfe])), { message: /not valid UTF-8/, code: "not_utf8" });
  await assert.rejects(yt.Tokenizer.inWorker("{}"), { message: /needs Web Workers/ });
  await assert.rejects(yt.Tokenizer.fromURL("http://127.0.0.1:9/none.json"), (e) => e instanceof Error);
  // The tokenizer still works after all of that.
  assert.deepEqual(Array.from(await tok.encode("Hello world")), Array.from(tok.encodeSync("Hello world")));
});

// Eight copies of the document: the own engine encodes one copy in a slice or two, too few
// for the slicing, progress, abort and fairness tests below.
const longDoc = doc ? Array(8).fill(doc).join("\n") : doc;

test("sliced encode equals the blocking one, and lets the event loop run", { skip }, async () => {
  const text = longDoc;
  const expected = tok.encodeSync(text);
  let ticks = 0;
  let last = performance.now();
  let maxGap = 0;
  let running = true;
  const tick = () => {
    const now = performance.now();
    maxGap = Math.max(maxGap, now - last);
    last = now;
    ticks++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  let calls = 0;
  // Small pieces and 1 ms slices: the slice count then depends on the work, not on how fast
  // this machine runs a default-sized piece (a 4 ms slice of ~1 MB pieces gave only 4 slices).
  const ids = await tok.encode(text, { sliceMs: 1, pieceBytes: 16384, onProgress: () => calls++ });
  running = false;
  assert.deepEqual(ids, expected);
  assert.ok(calls >= 5, `only ${calls} slices`);
  assert.ok(ticks >= calls / 2, `event loop ran ${ticks} times during ${calls} slices`);
  // A slice is ~4 ms plus at most one piece; generous bound for a loaded CI machine.
  assert.ok(maxGap < 100, `longest event-loop gap ${maxGap.toFixed(1)} ms`);
});

test("progress is monotonic and ends at the total", { skip }, async () => {
  const seen = [];
  await tok.count(longDoc, { onProgress: (done, total) => seen.push([done, total]) });
  const total = Buffer.byteLength(longDoc);
  assert.ok(seen.length > 1);
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i][0] >= seen[i - 1][0]);
  assert.deepEqual(seen.at(-1), [total, total]);
  for (const [, t] of seen) assert.equal(t, total);
});

test("abort rejects with AbortError and leaves the tokenizer usable", { skip }, async () => {
  const ac = new AbortController();
  let slices = 0;
  const p = tok.encode(longDoc, { signal: ac.signal, sliceMs: 1, onProgress: () => ++slices === 3 && ac.abort() });
  await assert.rejects(p, { name: "AbortError" });
  assert.equal(slices, 3);
  const pre = new AbortController();
  pre.abort(new Error("stop"));
  await assert.rejects(tok.encode("abc", { signal: pre.signal }), { message: "stop" });
  assert.equal(await tok.count("Hello world"), 2);
});

test("an exception in onProgress rejects the encode", { skip }, async () => {
  await assert.rejects(tok.encode(doc, { onProgress: () => { throw new Error("boom"); } }), { message: "boom" });
  assert.equal(await tok.count("Hello world"), 2);
});

test("a short request is not stuck behind a long one", { skip }, async () => {
  const order = [];
  const long = tok.encode(longDoc).then(() => order.push("long"));
  const short = tok.encode("short text").then(() => order.push("short"));
  await Promise.all([long, short]);
  assert.deepEqual(order, ["short", "long"]);
});

test("encodeBatch, count, decode, offsets, vocabulary", { skip }, async () => {
  const texts = ["Hello world", "", "分词器 🚀", doc.slice(0, 5000)];
  const batch = await tok.encodeBatch(texts, { addSpecialTokens: false });
  assert.equal(batch.length, texts.length);
  for (let i = 0; i < texts.length; i++) {
    assert.deepEqual(batch[i], tok.encodeSync(texts[i], { addSpecialTokens: false }));
    assert.equal(tok.decode(batch[i]), texts[i]);
    assert.equal(await tok.count(texts[i]), batch[i].length);
    assert.equal(tok.countSync(texts[i]), batch[i].length);
  }
  assert.deepEqual(await tok.encodeBatch([]), []);
  const im = tok.tokenToId("<|im_start|>");
  assert.equal(typeof im, "number");
  assert.equal(tok.idToToken(im), "<|im_start|>");
  assert.equal(tok.decode([im, ...tok.encodeSync("hi")], { skipSpecialTokens: true }), "hi");
  assert.equal(tok.decode(Uint32Array.from([im])), "<|im_start|>");
  const text = "a😀 é\u0301 分词";
  const enc = await tok.encodeWithOffsets(text);
  assert.deepEqual(enc, tok.encodeWithOffsetsSync(text));
  const pieces = [];
  for (let i = 0; i < enc.ids.length; i++) pieces.push(text.slice(enc.offsets[2 * i], enc.offsets[2 * i + 1]));
  assert.equal(pieces.join(""), text);
});

test("applyChatTemplate renders like transformers and tokenizes without special tokens", { skip }, () => {
  const messages = [
    { role: "system", content: "Be brief." },
    { role: "user", content: "hi" },
    { role: "assistant", content: "Hello!" },
    { role: "user", content: "2+2?" },
  ];
  const r = tok.applyChatTemplate(messages, { addGenerationPrompt: true, tokenize: true, kwargs: { enable_thinking: false } });
  assert.equal(
    r.text,
    "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n" +
      "<|im_start|>user\n2+2?<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n",
  );
  assert.deepEqual(r.ids, tok.encodeSync(r.text, { addSpecialTokens: false }));
  assert.equal(tok.applyChatTemplate(messages.slice(0, 2)).ids, undefined);
  const custom = tok.applyChatTemplate([{ role: "user", content: "x" }], { chatTemplate: "{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}" });
  assert.equal(custom.text, "<user>x");
  assert.throws(() => tok.applyChatTemplate("hi"), { name: "TypeError", message: /array of message objects/ });
  assert.throws(() => tok.applyChatTemplate([], { kwargs: 3 }), { name: "TypeError", message: /kwargs must be an object/ });
});

test("lone surrogates are replaced, not fatal", { skip }, async () => {
  const ids = await tok.encode("a\ud800b\udc00c");
  assert.deepEqual(ids, tok.encodeSync("a\ufffdb\ufffdc"));
});

test("task API: step by hand", { skip }, () => {
  const task = tok.createTask(doc.slice(0, 20000), { output: "count", pieceBytes: 1024 });
  assert.equal(task.totalBytes, Buffer.byteLength(doc.slice(0, 20000)));
  let steps = 0;
  while (!task.step(0)) steps++;
  assert.ok(steps >= 10, `${steps} steps`);
  assert.equal(task.doneBytes, task.totalBytes);
  assert.equal(task.finish(), tok.countSync(doc.slice(0, 20000)));
  task.free();
  const cancelled = tok.createTask(doc);
  cancelled.step(1);
  cancelled.cancel();
  assert.equal(cancelled.step(1), true);
  assert.throws(() => cancelled.finish(), { message: "cancelled" });
  cancelled.free();
});

test("the web target loads in Node too and gives the same ids", { skip }, async () => {
  const web = await import(pathToFileURL(join(pkgWeb, "yieldtok_wasm.js")).href);
  await web.default({ module_or_path: readFileSync(join(pkgWeb, "yieldtok_wasm_bg.wasm")) });
  const wtok = await web.Tokenizer.fromJSON(readFileSync(fixturePaths(FIX).json, "utf8"));
  const text = doc.slice(0, 30000);
  assert.deepEqual(await wtok.encode(text), tok.encodeSync(text));
  wtok.free();
});

test("compact form: fromCompact(toCompact()) serves the same encodes, refuses bad bytes, and says what it lacks", { skip }, async () => {
  const bytes = tok.toCompact();
  assert.ok(bytes instanceof Uint8Array && bytes.length > 1000);
  assert.equal(tok.compact, false);
  const c = await yt.Tokenizer.fromCompact(bytes.buffer.slice(0), { name: "cached-qwen3" });
  try {
    assert.equal(c.compact, true);
    assert.equal(c.engine, "yieldtok");
    assert.equal(c.engineUnavailableReason, undefined);
    assert.equal(c.name, "cached-qwen3");
    assert.equal(c.vocabSize, tok.vocabSize);
    assert.equal(c.chunking, tok.chunking);
    for (const add of [true, false]) {
      const want = tok.encodeWithOffsetsSync(doc, { addSpecialTokens: add });
      const got = await c.encodeWithOffsets(doc, { addSpecialTokens: add, sliceMs: 1 });
      assert.deepEqual(Array.from(got.ids), Array.from(want.ids));
      assert.deepEqual(Array.from(got.offsets), Array.from(want.offsets));
      assert.deepEqual(Array.from(got.byteOffsets), Array.from(want.byteOffsets));
      assert.deepEqual(Array.from(c.encodeSync(doc, { addSpecialTokens: add })), Array.from(want.ids));
      assert.equal(await c.count(doc, { addSpecialTokens: add, pieceBytes: 100 }), want.ids.length);
      assert.equal(c.countSync(doc, { addSpecialTokens: add }), want.ids.length);
    }
    const batch = await c.encodeBatch(["Hello world", "<|im_start|>user\nhi<|im_end|>"]);
    assert.deepEqual(batch.map((b) => Array.from(b)), [Array.from(tok.encodeSync("Hello world")), Array.from(tok.encodeSync("<|im_start|>user\nhi<|im_end|>"))]);
    const task = c.createTask(doc, { output: "count", pieceBytes: 512 });
    let steps = 0;
    while (!task.step(0.2)) steps++;
    assert.ok(steps > 3, `${steps} steps`);
    assert.equal(task.finish(), tok.countSync(doc));
    task.free();
    const ac = new AbortController();
    const p = c.encode(longDoc, { signal: ac.signal, sliceMs: 1, pieceBytes: 256 });
    ac.abort();
    await assert.rejects(p, { name: "AbortError" });
    for (const [what, f] of [["decode", () => c.decode([1])], ["applyChatTemplate", () => c.applyChatTemplate([{ role: "user", content: "hi" }])], ["tokenToId", () => c.tokenToId("a")], ["idToToken", () => c.idToToken(1)], ["toCompact", () => c.toCompact()]]) {
      assert.throws(f, { message: new RegExp(`${what} is not available on a tokenizer built from its compact form`) }, what);
    }
  } finally {
    c.free();
  }
  await assert.rejects(yt.Tokenizer.fromCompact("bytes"), { name: "TypeError", message: /Uint8Array or ArrayBuffer/ });
  await assert.rejects(yt.Tokenizer.fromCompact(new Uint8Array(10)), { message: /not a usable compact form/ });
  await assert.rejects(yt.Tokenizer.fromCompact(bytes.slice(0, bytes.length - 1)), { message: /not a usable compact form/ });
  const flipped = bytes.slice();
  flipped[bytes.length >> 1] ^= 4;
  await assert.rejects(yt.Tokenizer.fromCompact(flipped), { message: /not a usable compact form/ });
  // A tokenizer.json given to fromCompact, and a compact form given to fromJSON.
  await assert.rejects(yt.Tokenizer.fromCompact(readFileSync(fixturePaths(FIX).json)), { message: /not a usable compact form/ });
  await assert.rejects(yt.Tokenizer.fromJSON(bytes), { message: /not valid UTF-8|invalid tokenizer definition/ });
});
