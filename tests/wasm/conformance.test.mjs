// wasm (nodejs target) against the native core, on the real fixture tokenizers.
//
// Vectors: target/conformance/<fixture>.json (the core's cross-language vectors:
// `cargo run -p yieldtok-cli --release -- conformance --out target/conformance`) and
// target/wasm-ref/<fixture>.json (this suite's cases: tests/wasm/cases.mjs, encoded natively by
// bindings-wasm/examples/native_ref.rs). YIELDTOK_REQUIRE_CONFORMANCE=1 makes missing vectors
// a failure instead of a skip.
import { test } from "node:test";
import assert from "node:assert/strict";
import { basename, dirname } from "node:path";
import { FIXTURES, fixturePaths, loadFixture, loadNodePkg, readVectors, utf16ToCharOffsets, vectorFiles, firstDiff, flat } from "./helpers.mjs";
import { cases } from "./cases.mjs";
import { idsChecksum } from "../../bindings-wasm/demo/gen-doc.js";

const require = process.env.YIELDTOK_REQUIRE_CONFORMANCE === "1";
const yt = loadNodePkg();
let textsByName = null;
const caseText = (name) => {
  textsByName ??= new Map(cases().map((c) => [c.name, c.text]));
  return textsByName.get(name);
};

function sameArray(actual, expected, what) {
  const a = Array.from(actual);
  const i = firstDiff(a, expected);
  if (i >= 0) {
    assert.fail(`${what}: first difference at ${i} (length ${a.length} vs ${expected.length}): ` +
      `wasm ${JSON.stringify(a.slice(Math.max(0, i - 3), i + 4))} native ${JSON.stringify(expected.slice(Math.max(0, i - 3), i + 4))}`);
  }
}

test("conformance vectors are present", () => {
  const missingCore = FIXTURES.filter((f) => !vectorFiles(f).some((p) => p.includes("/conformance/")));
  const missingOwn = FIXTURES.filter((f) => !vectorFiles(f).some((p) => p.includes("/wasm-ref/")));
  if (require) {
    assert.deepEqual(missingCore, [], "target/conformance vectors missing (cargo run -p yieldtok-cli --release -- conformance --out target/conformance)");
    assert.deepEqual(missingOwn, [], "target/wasm-ref vectors missing (node tests/wasm/cases.mjs && native_ref)");
  }
  if (missingCore.length) console.log(`# no core conformance vectors for: ${missingCore.join(", ")}`);
  if (missingOwn.length) console.log(`# no wasm-ref vectors for: ${missingOwn.join(", ")}`);
  assert.ok(FIXTURES.some((f) => vectorFiles(f).length > 0), "no vectors at all: see the header of tests/wasm/conformance.test.mjs");
});

for (const fixture of FIXTURES) {
  const files = vectorFiles(fixture);
  const skip = !fixturePaths(fixture).present ? "fixture not fetched" : files.length === 0 ? "no vectors" : false;
  test(`wasm ids and offsets equal native: ${fixture}`, { skip }, async (t) => {
    const full = await loadFixture(yt, fixture);
    let bytes;
    try {
      await checkVectors(t, fixture, files, full);
      bytes = full.toCompact();
    } finally {
      full.free();
    }
    // The same vectors on the tokenizer built from its compact form (the own engine alone).
    const compact = await yt.Tokenizer.fromCompact(bytes, { name: fixture });
    try {
      assert.equal(compact.compact, true);
      await checkVectors(t, `${fixture} (compact)`, files, compact);
    } finally {
      compact.free();
    }
  });
}

async function checkVectors(t, fixture, files, tok) {
  for (const file of files) {
    const source = basename(dirname(file));
    for (const v of readVectors(file)) {
      const text = v.text ?? caseText(v.name);
      assert.equal(typeof text, "string", `${source}/${v.name}: no text`);
      const opts = { addSpecialTokens: v.add_special_tokens };
      const label = `${fixture} ${source}/${v.name}`;
      if (v.ids_only || !v.offsets) {
        const ids = await tok.encode(text, opts);
        sameArray(ids, v.ids, `${label} ids (sliced)`);
        assert.equal(idsChecksum(ids), idsChecksum(v.ids));
        continue;
      }
      const enc = await tok.encodeWithOffsets(text, opts);
      sameArray(enc.ids, v.ids, `${label} ids (sliced)`);
      sameArray(enc.byteOffsets, flat(v.offsets), `${label} byte offsets`);
      if (v.char_offsets) sameArray(utf16ToCharOffsets(text, enc.offsets), flat(v.char_offsets), `${label} char offsets`);
      // Tiny pieces and slices: many cuts, many yields, same result.
      const small = await tok.encode(text, { ...opts, pieceBytes: 64, sliceMs: 0.5 });
      sameArray(small, v.ids, `${label} ids (64-byte pieces)`);
      sameArray(tok.encodeSync(text, opts), v.ids, `${label} ids (encodeSync)`);
      assert.equal(await tok.count(text, opts), v.ids.length, `${label} count`);
    }
    t.diagnostic(`${source}: ${readVectors(file).length} vectors`);
  }
}
