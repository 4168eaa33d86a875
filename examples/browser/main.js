// The page's side: one worker, requests matched to answers by id. Nothing here touches wasm, so
// the page stays free while the worker loads and encodes (the clock below keeps ticking).
const tokenizerURL = new URLSearchParams(location.search).get("tokenizer") || "/fixtures/qwen3/tokenizer.json";
const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
worker.postMessage({ load: tokenizerURL });

let nextId = 0;
const waiting = new Map(); // id -> { resolve, reject }
const loaded = new Promise((resolve, reject) => {
  worker.addEventListener("message", function first({ data }) {
    if (!("loaded" in data)) return;
    worker.removeEventListener("message", first);
    data.loaded ? resolve(data.loaded) : reject(Object.assign(new Error(data.error.message), { name: data.error.name }));
  });
});
worker.addEventListener("message", ({ data }) => {
  const w = waiting.get(data.id);
  if (!w) return;
  waiting.delete(data.id);
  if (data.error) w.reject(Object.assign(new Error(data.error.message), { name: data.error.name }));
  else w.resolve(data.ids);
});

/** Encode `text` in the worker: a promise of a Uint32Array; `signal` cancels it. */
export function encode(text, { signal } = {}) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    signal?.addEventListener("abort", () => worker.postMessage({ cancel: id }), { once: true });
    worker.postMessage({ id, text });
  });
}

// ---- the page: encode as you type; each key cancels the encode still running ----
const input = document.getElementById("text");
const out = document.getElementById("out");
const clock = document.getElementById("clock");
let ticks = 0;
setInterval(() => (clock.textContent = `main thread ticks: ${++ticks}`), 16);

let current = null;
async function update() {
  current?.abort();
  const ac = (current = new AbortController());
  const t0 = performance.now();
  try {
    const ids = await encode(input.value, { signal: ac.signal });
    out.textContent = `${ids.length} tokens in ${(performance.now() - t0).toFixed(1)} ms: ${Array.from(ids.slice(0, 24)).join(" ")}${ids.length > 24 ? " …" : ""}`;
  } catch (e) {
    if (e.name !== "AbortError") out.textContent = `error: ${e.message}`;
  }
}
input.addEventListener("input", update);
document.getElementById("big").addEventListener("click", () => {
  input.value = input.value.repeat(2000);
  update();
});

// For the test (tests/browser/examples.test.mjs) and the console.
window.example = { encode, loaded, ticks: () => ticks };
loaded.then((name) => {
  document.getElementById("status").textContent = `loaded ${name} in a worker`;
  update();
});
