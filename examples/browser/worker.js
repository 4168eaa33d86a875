// A Web Worker that owns one yieldtok tokenizer: it loads the wasm module and tokenizer.json
// here (so their parse, ~0.5 s of CPU for qwen3, never blocks the page) and encodes what the
// page posts. Messages in: { load: url } first, then { id, text } (encode) and { cancel: id }
// (abort that encode). Out: { loaded: url } or { loaded: null, error }, then { id, ids } or
// { id, error: { name, message } }.
//
// "/pkg-web/" is where the demo server (bindings-wasm/demo/serve.mjs) serves
// bindings-wasm/pkg-web; in an app, import yieldtok_wasm.js from wherever you ship pkg-web/.
import init, { Tokenizer } from "/pkg-web/yieldtok_wasm.js";

const pending = new Map(); // id -> AbortController of an encode still running
let ready = null; // the tokenizer, once { load } has arrived

async function load(url) {
  await init();
  return Tokenizer.fromURL(new URL(url, self.location.href));
}

self.onmessage = async ({ data }) => {
  if (data.load !== undefined) {
    ready = load(data.load);
    ready.then(
      () => self.postMessage({ loaded: data.load }),
      (e) => self.postMessage({ loaded: null, error: { name: e.name, message: e.message } }),
    );
    return;
  }
  if (data.cancel !== undefined) {
    pending.get(data.cancel)?.abort();
    return;
  }
  const { id, text } = data;
  const ac = new AbortController();
  pending.set(id, ac);
  try {
    if (!ready) throw new Error("post { load: url } first");
    const tok = await ready;
    // The async encode yields between slices, so a { cancel } that arrives meanwhile is
    // handled and rejects this promise with an AbortError.
    const ids = await tok.encode(text, { signal: ac.signal });
    self.postMessage({ id, ids }, [ids.buffer]); // transfer, do not copy
  } catch (e) {
    self.postMessage({ id, error: { name: e.name, message: e.message } });
  } finally {
    pending.delete(id);
  }
};
