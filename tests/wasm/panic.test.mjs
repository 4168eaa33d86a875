// A Rust panic inside the wasm module (a trap on wasm32) rejects with a clear Error, and the
// module re-initializes itself: tokenizers loaded before throw a clear "stale" error, new ones
// work. Own file (own process): it invalidates every tokenizer of the module.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fixturePaths, loadFixture, loadNodePkg } from "./helpers.mjs";

const yt = loadNodePkg();
const skip = fixturePaths("gpt4o").present ? false : "gpt4o fixture not fetched";

test("a panic in an async encode rejects and the module recovers", { skip }, async () => {
  const errors = [];
  const orig = console.error;
  console.error = (...a) => errors.push(a.join(" "));
  try {
    const tok = await loadFixture(yt, "gpt4o");
    const expected = Array.from(tok.encodeSync("Hello world, again"));
    await assert.rejects(tok.__panicInEncode(), (e) => {
      assert.ok(e instanceof Error);
      assert.match(e.message, /^yieldtok: internal panic: .*test panic inside EncodeTask.step/);
      assert.match(e.message, /re-initialized/);
      return true;
    });
    assert.ok(errors.some((m) => m.includes("test panic inside EncodeTask.step")), "panic message logged");
    assert.throws(() => tok.encodeSync("x"), { message: /stale object/ });
    await assert.rejects(async () => tok.encode("x"), { message: /stale object/ });
    tok.free(); // a no-op on a stale object, not a free() in the new instance
    const fresh = await loadFixture(yt, "gpt4o");
    assert.deepEqual(Array.from(await fresh.encode("Hello world, again")), expected);

    assert.throws(() => yt.__panicForTests(), WebAssembly.RuntimeError);
    assert.throws(() => fresh.countSync("x"), { message: /stale object/ });
    const again = await loadFixture(yt, "gpt4o");
    assert.deepEqual(Array.from(again.encodeSync("Hello world, again")), expected);
  } finally {
    console.error = orig;
  }
});
