// Truncation, padding, pairs and added tokens of the wasm binding (nodejs target) against the
// `tokenizers` crate itself (its pieces composed as the Python package 0.23.3 runs `encode`): tests/wasm/settings_cases.mjs, run through the crate by
// bindings-wasm/examples/settings_ref.rs into target/wasm-ref/settings.json. Every case: the
// fixture loaded fresh, the case's settings applied with the JS names (`setTruncation`,
// `setPadding`, `addTokens`/`addSpecialTokens`), every input encoded blocking, sliced (small
// pieces, so the early stop of right truncation runs over several) and as one `encodeBatch`.
// YIELDTOK_REQUIRE_CONFORMANCE=1 makes missing vectors a failure instead of a skip.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fixturePaths, firstDiff, loadNodePkg, root } from "./helpers.mjs";
import { settingsCases } from "./settings_cases.mjs";

const yt = loadNodePkg();
const refFile = join(root, "target/wasm-ref/settings.json");
const cases = settingsCases();
const refs = existsSync(refFile) ? new Map(JSON.parse(readFileSync(refFile, "utf8")).map((r) => [r.name, r])) : null;

test("settings reference vectors are present", () => {
  if (process.env.YIELDTOK_REQUIRE_CONFORMANCE === "1") {
    assert.ok(refs, `${refFile} missing (node tests/wasm/settings_cases.mjs && settings_ref)`);
    assert.deepEqual(cases.filter((c) => !refs.has(c.name)).map((c) => c.name), [], "cases without a reference");
  }
  if (!refs) console.log(`# no ${refFile}: the settings cases are skipped`);
});

const jsonCache = new Map();
function load(fixture) {
  if (!jsonCache.has(fixture)) {
    const p = fixturePaths(fixture);
    jsonCache.set(fixture, readFileSync(p.json));
  }
  return yt.Tokenizer.fromJSON(jsonCache.get(fixture), { name: fixture });
}

// The JS (tokenizers npm) names of a case's snake_case settings; every other case uses the
// npm enum names, to check both spellings.
const NPM_STRATEGY = { longest_first: "LongestFirst", only_first: "OnlyFirst", only_second: "OnlySecond" };
function apply(tok, c, i) {
  for (const [k, t] of (c.added ?? []).entries()) {
    const opts = { singleWord: t.single_word, leftStrip: t.lstrip, rightStrip: t.rstrip, normalized: t.normalized };
    // An AddedToken, a plain object with its fields, or a string (specials only: a string's flags are the defaults).
    const token = k % 2 === 0 ? new yt.AddedToken(t.content, t.special, opts) : { content: t.content, special: t.special, ...opts };
    const n = t.special ? tok.addSpecialTokens([token]) : tok.addTokens([token]);
    assert.equal(n, 1, `${t.content} is new`);
  }
  if (c.truncation === null) tok.disableTruncation();
  else if (c.truncation) {
    const t = c.truncation;
    const strategy = t.strategy && i % 2 ? NPM_STRATEGY[t.strategy] : t.strategy;
    tok.setTruncation(t.max_length, { stride: t.stride, strategy, direction: t.direction });
  }
  if (c.padding === null) tok.disablePadding();
  else if (c.padding) {
    const p = c.padding;
    const direction = p.direction && i % 2 ? { left: 0, right: 1 }[p.direction] : p.direction;
    tok.setPadding({ maxLength: p.length, direction, padToMultipleOf: p.pad_to_multiple_of, padId: p.pad_id, padTypeId: p.pad_type_id, padToken: p.pad_token });
  }
}

function same(actual, expected, what) {
  const a = Array.from(actual);
  const i = firstDiff(a, expected);
  if (i >= 0 || a.length !== expected.length) {
    assert.fail(`${what}: first difference at ${i} (length ${a.length} vs ${expected.length}): ` +
      `wasm ${JSON.stringify(a.slice(Math.max(0, i - 3), i + 4))} crate ${JSON.stringify(expected.slice(Math.max(0, i - 3), i + 4))}`);
  }
}

/** byte position -> UTF-16 position of `text`, at every char boundary. */
function utf16Index(text) {
  const at = new Map([[0, 0]]);
  let b = 0;
  for (let u = 0; u < text.length; ) {
    const cp = text.codePointAt(u);
    b += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    u += cp > 0xffff ? 2 : 1;
    at.set(b, u);
  }
  return at;
}

function checkEncoding(enc, want, input, what) {
  for (const [k, field] of [["ids", "ids"], ["typeIds", "type_ids"], ["attentionMask", "attention_mask"], ["specialTokensMask", "special_tokens_mask"], ["wordIds", "word_ids"], ["sequenceIds", "sequence_ids"]]) {
    same(enc[k], want[field], `${what}: ${k}`);
  }
  same(enc.byteOffsets, want.offsets.flat(), `${what}: byteOffsets`);
  const index = (Array.isArray(input) ? input : [input]).map(utf16Index);
  const utf16 = want.offsets.flatMap(([s, e], t) => {
    const at = index[Math.max(0, want.sequence_ids[t])];
    return [at.get(s), at.get(e)];
  });
  same(enc.offsets, utf16, `${what}: offsets (UTF-16)`);
  assert.equal(enc.nSequences, Array.isArray(input) ? 2 : 1, `${what}: nSequences`);
}

const args = (input, opts) => (Array.isArray(input) ? [input[0], input[1], opts] : [input, opts]);

cases.forEach((c, i) => {
  const skip = !fixturePaths(c.fixture).present ? `${c.fixture} fixture not fetched` : !refs?.has(c.name) ? "no reference" : false;
  test(`settings: ${c.name}`, { skip }, async () => {
    const ref = refs.get(c.name);
    const tok = await load(c.fixture);
    if (ref.set_error) {
      assert.throws(() => apply(tok, c, i), (e) => e.code === "invalid_argument" || /stride/.test(e.message), "the crate refuses these settings");
      return;
    }
    try {
      apply(tok, c, i);
    } catch (e) {
      // The crate took the settings and then failed (or panicked) on every encode: refusing
      // them when they are set is the same error, earlier.
      assert.ok(ref.singles.every((s) => s.error), `setTruncation threw (${e.message}) where the crate encodes`);
      return;
    }
    for (const [t, k] of Object.entries(ref.added)) assert.equal(tok.tokenToId(t), k, `added ${t}`);
    if (Object.keys(ref.added).length) {
      const vocab = tok.getVocab();
      for (const [t, k] of Object.entries(ref.added)) assert.equal(vocab[t], k, `getVocab() has ${t}`);
      assert.equal(Object.keys(vocab).length, tok.vocabSize);
      for (const t of Object.keys(ref.added)) assert.equal(tok.getVocab(false)[t], undefined, `getVocab(false) has no ${t}`);
    }
    const opts = { addSpecialTokens: c.add_special_tokens ?? true };
    const sliced = { ...opts, pieceBytes: 512, sliceMs: 1 };
    for (const [j, input] of c.inputs.entries()) {
      const want = ref.singles[j];
      const what = `${c.name} input ${j}${Array.isArray(input) ? " (pair)" : ""}`;
      if (want.error) {
        // An error of the core (with its code), not a trap: a panic would be `unreachable`.
        const clean = (e) => e instanceof Error && !(e instanceof WebAssembly.RuntimeError) && typeof e.code === "string";
        assert.throws(() => tok.encodeWithOffsetsSync(...args(input, opts)), clean, `${what}: the crate fails (${want.error})`);
        await assert.rejects(tok.encodeWithOffsets(...args(input, sliced)), clean, `${what}: async`);
        continue;
      }
      checkEncoding(tok.encodeWithOffsetsSync(...args(input, opts)), want, input, `${what} (sync)`);
      checkEncoding(await tok.encodeWithOffsets(...args(input, sliced)), want, input, `${what} (sliced)`);
      same(tok.encodeSync(...args(input, opts)), want.ids, `${what}: encodeSync`);
      same(await tok.encode(...args(input, sliced)), want.ids, `${what}: encode`);
    }
    if (ref.batch.error) {
      await assert.rejects(tok.encodeBatch(c.inputs, opts), Error, `${c.name}: batch`);
    } else {
      const batch = await tok.encodeBatch(c.inputs, sliced);
      assert.equal(batch.length, ref.batch.length);
      batch.forEach((ids, j) => same(ids, ref.batch[j], `${c.name}: batch item ${j}`));
    }
  });
});

const skipQwen = fixturePaths("qwen3").present ? false : "qwen3 fixture not fetched";

test("settings: bad arguments are TypeErrors/RangeErrors and change nothing", { skip: skipQwen }, async () => {
  const tok = await load("qwen3");
  const before = Array.from(tok.encodeSync("Hello world, again"));
  assert.throws(() => tok.setTruncation(-1), { name: "TypeError", message: /maxLength/ });
  assert.throws(() => tok.setTruncation(1.5), { name: "TypeError" });
  assert.throws(() => tok.setTruncation(8, { strategy: "longest" }), { name: "RangeError", message: /LongestFirst/ });
  assert.throws(() => tok.setTruncation(8, { direction: "up" }), { name: "RangeError" });
  assert.throws(() => tok.setTruncation(8, 3), { name: "TypeError" });
  assert.throws(() => tok.setPadding({ direction: 2 }), { name: "RangeError" });
  assert.throws(() => tok.setPadding({ padId: "0" }), { name: "TypeError" });
  assert.throws(() => tok.addTokens("x"), { name: "TypeError" });
  assert.throws(() => tok.addTokens([5]), { name: "TypeError", message: /tokens\[0\]/ });
  assert.throws(() => new yt.AddedToken(5), { name: "TypeError" });
  assert.throws(() => new yt.AddedToken("x", "yes"), { name: "TypeError", message: /isSpecial/ });
  assert.throws(() => tok.encodeSync("a", 5), { name: "TypeError", message: "options must be an object" });
  assert.throws(() => tok.encodeSync("a", 5, {}), { name: "TypeError", message: /pair must be a string/ });
  assert.throws(() => tok.encodeSync("a", ["b"]), { name: "TypeError", message: /pair must be a string/ });
  await assert.rejects(tok.encodeBatch([["a"]]), { name: "TypeError", message: /\[text, pair\]/ });
  assert.deepEqual(Array.from(tok.encodeSync("Hello world, again")), before);
  const t = new yt.AddedToken("<x>", true);
  assert.deepEqual([t.content, t.special, t.singleWord, t.leftStrip, t.rightStrip, t.normalized], ["<x>", true, false, false, false, false]);
  assert.equal(new yt.AddedToken("y").normalized, true);
});

test("settings: a setter does not touch tasks already made; pairs cancel; compact tokenizers refuse", { skip: skipQwen }, async () => {
  const tok = await load("qwen3");
  const text = "one two three four five six seven eight nine ten ".repeat(20);
  const full = Array.from(tok.encodeSync(text));
  const task = tok.createTask(text, { pieceBytes: 64 });
  tok.setTruncation(5);
  assert.deepEqual(Array.from(tok.encodeSync(text)), full.slice(0, 5));
  while (!task.step(50));
  assert.deepEqual(Array.from(task.finish()), full, "the task made before setTruncation keeps its settings");
  tok.disableTruncation();
  assert.deepEqual(Array.from(tok.encodeSync(text)), full);
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(tok.encode("a", "b", { signal: ac.signal }), { name: "AbortError" });
  const late = new AbortController();
  const p = tok.encodeWithOffsets(text, text, { signal: late.signal });
  late.abort();
  await assert.rejects(p, { name: "AbortError" });
  assert.equal((await tok.encodeWithOffsets("a", "b")).nSequences, 2, "usable after an abort");
  const compact = await yt.Tokenizer.fromCompact(tok.toCompact());
  assert.throws(() => compact.setTruncation(5), /compact form/);
  assert.throws(() => compact.encodeSync("a", "b"), /compact form/);
  assert.throws(() => compact.getVocab(), /compact form/);
});
