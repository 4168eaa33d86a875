// In-page half of the browser benchmark (bench.mjs drives it with playwright-core). Each
// contender encodes the same document; the page records its frames (rAF), key presses and
// the encode's start/end as performance marks (bench.mjs reads long tasks from a trace).
import { generateDocument } from "/demo/gen-doc.js";

const doc = generateDocument();
const enc = new TextEncoder();

async function fixture(name) {
  const base = `/fixtures/${name}/`;
  const bytes = new Uint8Array(await (await fetch(base + "tokenizer.json")).arrayBuffer());
  const cfgResp = await fetch(base + "tokenizer_config.json");
  const config = cfgResp.ok ? await cfgResp.text() : undefined;
  return { bytes, config };
}

let yieldtok = null;
async function yt() {
  if (!yieldtok) {
    yieldtok = await import("/pkg-web/yieldtok_wasm.js");
    await yieldtok.default();
  }
  return yieldtok;
}

const tokCache = new Map();
const compactBytes = {};
async function ytTokenizer(name) {
  if (!tokCache.has(name)) {
    const { Tokenizer } = await yt();
    const f = await fixture(name);
    tokCache.set(name, await Tokenizer.fromJSON(f.bytes, { name, config: f.config }));
  }
  return tokCache.get(name);
}

let tiktokenEnc = null;
async function tiktoken() {
  if (!tiktokenEnc) {
    const { init, Tiktoken } = await import("/node_modules/tiktoken/lite/init.js");
    const wasm = await (await fetch("/node_modules/tiktoken/lite/tiktoken_bg.wasm")).arrayBuffer();
    await init((imports) => WebAssembly.instantiate(wasm, imports));
    const model = await (await fetch("/node_modules/tiktoken/encoders/o200k_base.json")).json();
    tiktokenEnc = new Tiktoken(model.bpe_ranks, model.special_tokens, model.pat_str);
  }
  return tiktokenEnc;
}

/** name -> async () => (text) => ids (or a promise of ids) */
const CONTENDERS = {
  "yieldtok sliced (qwen3)": async () => {
    const tok = await ytTokenizer("qwen3");
    return (text) => tok.encode(text, { sliceMs: 4 });
  },
  "yieldtok sliced, scheduler.yield (qwen3)": async () => {
    const tok = await ytTokenizer("qwen3");
    return (text) => tok.encode(text, { sliceMs: 4, yield: "scheduler" });
  },
  "yieldtok blocking (qwen3)": async () => {
    const tok = await ytTokenizer("qwen3");
    return (text) => tok.encodeSync(text);
  },
  "yieldtok worker (qwen3)": async () => {
    const { Tokenizer } = await yt();
    const f = await fixture("qwen3");
    const wt = await Tokenizer.inWorker(f.bytes, { name: "qwen3", config: f.config });
    return (text) => wt.encode(text);
  },
  "yieldtok sliced (gpt4o)": async () => {
    const tok = await ytTokenizer("gpt4o");
    return (text) => tok.encode(text, { sliceMs: 4 });
  },
  "yieldtok blocking (gpt4o)": async () => {
    const tok = await ytTokenizer("gpt4o");
    return (text) => tok.encodeSync(text);
  },
  // Load rows: each run builds a fresh tokenizer and encodes the document (sliced, 4 ms) with
  // it, so "total" is the time to the first result and "longest task" covers load and encode.
  "yieldtok load: fromJSON + sliced encode (qwen3)": async () => {
    const { Tokenizer } = await yt();
    const f = await fixture("qwen3");
    return async (text) => {
      const tok = await Tokenizer.fromJSON(f.bytes, { name: "qwen3" });
      const ids = await tok.encode(text, { sliceMs: 4 });
      tok.free();
      return ids;
    };
  },
  "yieldtok load: fromCompact + sliced encode (qwen3)": async () => {
    const { Tokenizer } = await yt();
    const bytes = (await ytTokenizer("qwen3")).toCompact();
    compactBytes.qwen3 = bytes.length;
    return async (text) => {
      const tok = await Tokenizer.fromCompact(bytes, { name: "qwen3" });
      const ids = await tok.encode(text, { sliceMs: 4 });
      tok.free();
      return ids;
    };
  },
  "yieldtok load: inWorker + worker encode (qwen3)": async () => {
    const { Tokenizer } = await yt();
    const f = await fixture("qwen3");
    return async (text) => {
      const wt = await Tokenizer.inWorker(f.bytes, { name: "qwen3" });
      const ids = await wt.encode(text);
      wt.terminate();
      return ids;
    };
  },
  "tiktoken wasm (o200k)": async () => {
    const t = await tiktoken();
    return (text) => t.encode_ordinary(text);
  },
  "gpt-tokenizer (o200k)": async () => {
    const m = await import("/node_modules/gpt-tokenizer/esm/encoding/o200k_base.js");
    return (text) => m.encode(text);
  },
  "@huggingface/tokenizers (qwen3)": async () => {
    const { Tokenizer } = await import("/node_modules/@huggingface/tokenizers/dist/tokenizers.mjs");
    const f = await fixture("qwen3");
    const tok = new Tokenizer(JSON.parse(new TextDecoder().decode(f.bytes)), f.config ? JSON.parse(f.config) : {});
    return (text) => tok.encode(text).ids;
  },
};

const ready = new Map();
const runs = new Map();
const frames = [];
const keys = [];
(function loop() {
  // performance.now(), not the rAF timestamp (the early begin-frame time after a block).
  const now = performance.now();
  frames.push(now);
  if (frames.length > 20000) frames.splice(0, 10000);
  const ball = document.getElementById("ball");
  ball.style.transform = `translateX(${(Math.sin(now / 300) + 1) * 200}px)`;
  requestAnimationFrame(loop);
})();
document.getElementById("probe").addEventListener("keydown", (e) => {
  keys.push({ at: e.timeStamp, delay: performance.now() - e.timeStamp });
});

window.bench = {
  contenders: Object.keys(CONTENDERS),
  docChars: doc.length,
  docBytes: enc.encode(doc).length,
  compactBytes,
  async prepare(name) {
    const t0 = performance.now();
    const fn = await CONTENDERS[name]();
    const warm = await fn(doc.slice(0, 20000));
    ready.set(name, fn);
    return { loadMs: performance.now() - t0, warmTokens: warm.length };
  },
  start(name, id) {
    const fn = ready.get(name);
    const r = { done: false };
    runs.set(id, r);
    setTimeout(async () => {
      performance.mark(`yt-start-${id}`);
      r.start = performance.now();
      try {
        const ids = await fn(doc);
        r.count = ids.length;
      } catch (e) {
        r.error = String(e && e.message);
      }
      r.end = performance.now();
      performance.mark(`yt-end-${id}`);
      // One more frame after the end, so the gap that straddles it counts.
      requestAnimationFrame(() => setTimeout(() => (r.done = true), 0));
    }, 0);
  },
  async result(id) {
    const r = runs.get(id);
    while (!r.done) await new Promise((res) => setTimeout(res, 20));
    const f = frames.filter((t) => t >= r.start - 20 && t <= r.end + 40);
    let maxGap = 0;
    for (let i = 1; i < f.length; i++) maxGap = Math.max(maxGap, f[i] - f[i - 1]);
    const k = keys.filter((x) => x.at >= r.start - 5 && x.at <= r.end + 5);
    return { ms: r.end - r.start, count: r.count, error: r.error, maxGap, frames: f.length, keyDelay: k.length ? Math.max(...k.map((x) => x.delay)) : null };
  },
};
