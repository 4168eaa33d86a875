// The wasm DecodeStream against `tokenizers`' own stream state machine: replays the core's
// target/conformance/decode_stream/<fixture>.json (see tests/node/decode_stream.test.mjs and
// `yieldtok conformance`) step by step and through `stepMany`. Skipped when absent, unless
// YIELDTOK_REQUIRE_CONFORMANCE=1.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES, fixturePaths, loadFixture, loadNodePkg, root } from "./helpers.mjs";

const yt = loadNodePkg();
const DIR = join(process.env.YIELDTOK_CONFORMANCE_DIR || join(root, "target", "conformance"), "decode_stream");
const REQUIRED = process.env.YIELDTOK_REQUIRE_CONFORMANCE === "1";
const chunkOf = (v, i) => v.ids.slice(i * v.chunk, (i + 1) * v.chunk);

for (const fixture of FIXTURES) {
  const file = join(DIR, `${fixture}.json`);
  const skip = !fixturePaths(fixture).present ? "fixture not fetched" : !existsSync(file) && !REQUIRED ? `no ${file}` : false;
  test(`DecodeStream equals tokenizers: ${fixture}`, { skip }, async () => {
    assert.ok(existsSync(file), `${file} missing (cargo run -p yieldtok-cli --release -- conformance --out target/conformance)`);
    const vectors = JSON.parse(readFileSync(file, "utf8"));
    const tok = await loadFixture(yt, fixture);
    let nonNull = 0;
    for (const [k, v] of vectors.entries()) {
      const s = new yt.DecodeStream({ skipSpecialTokens: v.skip_special_tokens });
      assert.equal(s.skipSpecialTokens, v.skip_special_tokens);
      v.steps.forEach((want, i) => {
        const ids = chunkOf(v, i);
        const arg = v.chunk === 1 ? ids[0] : Uint32Array.from(ids);
        const what = `${fixture} vector ${k} step ${i} (${ids})`;
        if (want !== null && typeof want === "object") {
          assert.throws(() => s.step(tok, arg), { message: want.error }, what);
        } else {
          assert.equal(s.step(tok, arg), want, what);
          if (want !== null) nonNull++;
        }
      });
    }
    assert.ok(nonNull > 100, `${fixture}: ${nonNull} non-null steps`);
    const clean = vectors.filter((v) => v.steps.every((x) => x === null || typeof x === "string"));
    const streams = clean.map((v) => new yt.DecodeStream({ skipSpecialTokens: v.skip_special_tokens }));
    const longest = Math.max(...clean.map((v) => v.steps.length));
    for (let i = 0; i < longest; i++) {
      const live = clean.map((v, k) => [v, k]).filter(([v]) => i < v.steps.length);
      const got = yt.DecodeStream.stepMany(tok, live.map(([, k]) => streams[k]), live.map(([v]) => chunkOf(v, i)));
      assert.deepEqual(got, live.map(([v]) => v.steps[i]), `${fixture}: stepMany step ${i}`);
    }
  });
}

test("DecodeStream: arguments and errors", { skip: fixturePaths("qwen3").present ? false : "no qwen3" }, async () => {
  const tok = await loadFixture(yt, "qwen3");
  const ids = tok.encodeSync("Hello 東京 🙂");
  const a = new yt.DecodeStream();
  assert.equal(Array.from(ids).map((id) => a.step(tok, id) ?? "").join(""), tok.decode(ids));
  const b = new yt.DecodeStream({ skipSpecialTokens: true });
  assert.throws(() => yt.DecodeStream.stepMany(tok, [b, b], [1, 2]), /appears twice/);
  assert.throws(() => yt.DecodeStream.stepMany(tok, [b], [1, 2]), RangeError);
  assert.throws(() => yt.DecodeStream.stepMany(tok, [b, {}], [1, 2]), { name: "TypeError", message: /streams\[1\]/ });
  assert.throws(() => yt.DecodeStream.stepMany(tok, [b, { step: () => "x" }], [1, 2]), { name: "TypeError", message: /streams\[1\]/ });
  // a bad id anywhere is refused before any stream moves
  const [c, d, fresh] = [new yt.DecodeStream(), new yt.DecodeStream(), new yt.DecodeStream()];
  assert.throws(() => yt.DecodeStream.stepMany(tok, [c, d], [ids[0], -1]), RangeError);
  assert.equal(c.step(tok, ids[0]), fresh.step(tok, ids[0]));
  assert.deepEqual(yt.DecodeStream.stepMany(tok, [c, d], [ids[1], ids[0]]), [fresh.step(tok, ids[1]), new yt.DecodeStream().step(tok, ids[0])]);
  assert.throws(() => b.step(tok, -1), RangeError);
  assert.throws(() => b.step(tok, "x"), TypeError);
  assert.throws(() => new yt.DecodeStream({ skipSpecialTokens: "yes" }), TypeError);
  assert.deepEqual(yt.DecodeStream.stepMany(tok, [], []), []);
  const seeded = new yt.DecodeStream({ ids: Array.from(ids.slice(0, 2)) });
  // as tokenizers: a seeded window's first step returns the seed's text with the new id's
  assert.equal(seeded.step(tok, ids[2]), tok.decode(ids.slice(0, 3)));
});
