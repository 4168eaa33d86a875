// JS half of the yieldtok wasm binding (imported by the generated glue as a snippet).
//
// - drive(): the slice loop of the async methods. It calls task.step(ms) for about sliceMs,
//   then yields to the event loop with a *macrotask* (a MessageChannel post in browsers,
//   setImmediate in Node; scheduler.yield() on request, see yieldNow), so the page can render
//   and handle input between slices. Microtasks would not let it.
// - guard(): runs a wasm call on a later macrotask and turns a trap into a rejection.
// - A Rust panic is an `unreachable` trap on wasm32-unknown-unknown. The panic hook records its
//   message here and schedules a re-initialization of the instance; the failing call rejects
//   with a clear Error and later calls get a fresh instance.
// - inWorker(): the same API in a Web Worker, with a fair queue.

const now = typeof performance !== "undefined" && performance.now ? () => performance.now() : () => Date.now();

let lastPanic = null;
let resetInstance = null;

export function recordPanic(message) {
  lastPanic = String(message);
  if (typeof console !== "undefined") console.error(`yieldtok: panic: ${lastPanic}`);
}

export function registerReset(f) {
  resetInstance = f;
}

function isTrap(e) {
  return typeof WebAssembly !== "undefined" && e instanceof WebAssembly.RuntimeError;
}

function wrapError(e) {
  if (!isTrap(e) && lastPanic === null) return e;
  const message = lastPanic;
  lastPanic = null;
  if (message === null && resetInstance) {
    // A trap that was not a panic (stack overflow, out of memory): re-create the instance.
    try {
      resetInstance();
    } catch (_) {
      /* the instance may be too broken to even schedule; the glue still guards calls */
    }
  }
  const what = message !== null ? `internal panic: ${message}` : `wasm trap: ${e && e.message}`;
  return new Error(
    `yieldtok: ${what}. The wasm module was re-initialized; tokenizers loaded before must be loaded again.`,
    { cause: e },
  );
}

// ---- yielding ------------------------------------------------------------------------------

const isNode = typeof process !== "undefined" && process.versions != null && process.versions.node != null;
let channel = null;
const waiting = [];

function viaChannel() {
  if (channel === null) {
    channel = new MessageChannel();
    channel.port1.onmessage = () => {
      const resume = waiting.shift();
      if (resume) resume();
    };
  }
  return new Promise((resolve) => {
    waiting.push(resolve);
    channel.port2.postMessage(null);
  });
}

const YIELD_MODES = ["auto", "scheduler", "message", "immediate", "timeout"];

/** Resolve on a later macrotask. */
export function yieldNow(mode = "auto") {
  if (mode === "auto") {
    // Not scheduler.yield(): Chromium runs its continuations ahead of rendering, so a loop of
    // slices that yields with it gets a frame only every ~100 ms (the renderer's starvation
    // limit); measured in Chromium 156: 9 frames/s, 117 ms gaps, against 60 frames/s and
    // 17 ms with a MessageChannel post. It stays available as `yield: "scheduler"`.
    if (isNode && typeof setImmediate === "function") mode = "immediate";
    else if (typeof MessageChannel === "function") mode = "message";
    else mode = "timeout";
  }
  switch (mode) {
    case "scheduler":
      return globalThis.scheduler.yield();
    case "message":
      return viaChannel();
    case "immediate":
      return new Promise((r) => setImmediate(r));
    case "timeout":
      return new Promise((r) => setTimeout(r, 0));
    default:
      return Promise.reject(new TypeError(`options.yield must be "auto", "scheduler", "message", "immediate" or "timeout", not ${JSON.stringify(mode)}`));
  }
}

function abortReason(signal) {
  if (signal.reason !== undefined) return signal.reason;
  const e = new Error("The operation was aborted");
  e.name = "AbortError";
  return e;
}

function readOptions(options) {
  const o = options == null ? {} : options;
  const sliceMs = o.sliceMs === undefined ? 4 : o.sliceMs;
  if (typeof sliceMs !== "number" || !(sliceMs > 0) || !Number.isFinite(sliceMs)) {
    throw new TypeError("options.sliceMs must be a positive number of milliseconds");
  }
  if (o.onProgress !== undefined && typeof o.onProgress !== "function") throw new TypeError("options.onProgress must be a function");
  if (o.signal != null && typeof o.signal.aborted !== "boolean") throw new TypeError("options.signal must be an AbortSignal");
  const mode = o.yield === undefined ? "auto" : o.yield;
  if (!YIELD_MODES.includes(mode)) throw new TypeError(`options.yield must be one of ${YIELD_MODES.map((m) => `"${m}"`).join(", ")}, not ${JSON.stringify(mode)}`);
  return { sliceMs, signal: o.signal == null ? null : o.signal, onProgress: o.onProgress, mode };
}

function freeAll(tasks, from) {
  for (let i = from; i < tasks.length; i++) {
    try {
      tasks[i].free();
    } catch (_) {
      /* stale after a re-initialization */
    }
  }
}

/**
 * Advance `tasks` (EncodeTask objects) one after the other, about `sliceMs` per macrotask.
 * Resolves to the value of the single task, or to the array of values.
 */
export function drive(tasks, options, single) {
  let opts;
  try {
    opts = readOptions(options);
  } catch (e) {
    freeAll(tasks, 0);
    return Promise.reject(e);
  }
  const { sliceMs, signal, onProgress, mode } = opts;
  return new Promise((resolve, reject) => {
    let total = 0;
    for (const t of tasks) total += t.totalBytes;
    const out = [];
    let i = 0;
    let doneBefore = 0;
    let settled = false;
    // step(ms) stops after the piece that crosses ms, so a slice overshoots by up to one piece:
    // ask for less by the overshoot seen so far (a running estimate), to keep slices ~sliceMs.
    let overshoot = 0;
    const fail = (e) => {
      if (settled) return;
      settled = true;
      const err = wrapError(e);
      if (!isTrap(e)) {
        for (let k = i; k < tasks.length; k++) {
          try {
            tasks[k].cancel();
          } catch (_) {}
        }
      }
      freeAll(tasks, i);
      reject(err);
    };
    const run = () => {
      if (settled) return;
      try {
        if (signal !== null && signal.aborted) return fail(abortReason(signal));
        const deadline = now() + sliceMs;
        while (i < tasks.length) {
          const t = tasks[i];
          const before = now();
          const left = deadline - before;
          if (left <= 0 && t.totalBytes > 0) break;
          const ask = Math.max(0, left - overshoot);
          const finished = t.step(ask);
          const over = now() - before - ask;
          overshoot = over > overshoot ? over : overshoot * 0.9 + over * 0.1;
          if (overshoot < 0) overshoot = 0;
          if (!finished) break;
          out.push(t.finish());
          doneBefore += t.totalBytes;
          t.free();
          i++;
        }
        if (onProgress !== undefined) onProgress(i < tasks.length ? doneBefore + tasks[i].doneBytes : total, total);
        if (i >= tasks.length) {
          settled = true;
          resolve(single ? out[0] : out);
          return;
        }
        yieldNow(mode).then(run, fail);
      } catch (e) {
        fail(e);
      }
    };
    // The first slice too runs on a later macrotask: the caller's task pays only for copying
    // the text into wasm memory.
    yieldNow(mode).then(run, fail);
  });
}

/** Call `f()` (a wasm call) on a later macrotask; an `Error` return value rejects. */
export function guard(f) {
  return new Promise((resolve, reject) => {
    yieldNow().then(() => {
      try {
        const v = f();
        if (v instanceof Error) reject(v);
        else resolve(v);
      } catch (e) {
        reject(wrapError(e));
      }
    }, reject);
  });
}

// ---- worker mode ---------------------------------------------------------------------------

// Runs inside the worker (stringified). `glueUrl` is the generated ES module.
function workerMain(glueUrl) {
  const SETTINGS = ["setTruncation", "disableTruncation", "setPadding", "disablePadding", "getVocab", "addTokens", "addSpecialTokens"];
  let tok = null;
  let ready = null;
  const queue = []; // requests: { id, tasks, i, out, single, service, seq, progress }
  let clock = 0;
  let seq = 0;
  let running = false;
  const ch = new MessageChannel();
  let wake = null;
  ch.port1.onmessage = () => {
    const w = wake;
    wake = null;
    if (w) w();
  };
  const yieldNow = () => new Promise((r) => {
    wake = r;
    ch.port2.postMessage(null);
  });
  const errorOf = (e) => ({ name: (e && e.name) || "Error", message: (e && e.message) || String(e) });
  const reply = (id, ok, value, transfer) => self.postMessage(ok ? { id, ok, value } : { id, ok, error: value }, transfer || []);
  const freeFrom = (r) => {
    for (let k = r.i; k < r.tasks.length; k++) {
      try {
        r.tasks[k].free();
      } catch (_) {}
    }
  };
  const remaining = (r) => {
    let n = 0;
    for (let k = r.i; k < r.tasks.length; k++) n += r.tasks[k].totalBytes - r.tasks[k].doneBytes;
    return n;
  };
  const pick = () => {
    let best = -1;
    for (let k = 0; k < queue.length; k++) {
      const r = queue[k];
      if (best < 0) {
        best = k;
        continue;
      }
      const b = queue[best];
      if (r.service < b.service || (r.service === b.service && (r.left < b.left || (r.left === b.left && r.seq < b.seq)))) best = k;
    }
    return best;
  };
  async function loop() {
    if (running) return;
    running = true;
    try {
      while (queue.length > 0) {
        const k = pick();
        const r = queue[k];
        clock = Math.max(clock, r.service);
        const t0 = performance.now();
        const deadline = t0 + r.sliceMs;
        let bytes = 0;
        try {
          while (r.i < r.tasks.length) {
            const t = r.tasks[r.i];
            const before = t.doneBytes;
            const left = deadline - performance.now();
            if (left <= 0 && t.totalBytes > 0) break;
            const done = t.step(left);
            bytes += t.doneBytes - before;
            if (!done) break;
            r.out.push(t.finish());
            t.free();
            r.i++;
          }
        } catch (e) {
          queue.splice(k, 1);
          freeFrom(r);
          reply(r.id, false, errorOf(e));
          await yieldNow();
          continue;
        }
        r.service += Math.max(bytes, 1);
        r.left = remaining(r);
        if (r.i >= r.tasks.length) {
          queue.splice(k, 1);
          // A batch is padded over the batch (to its longest item) as the tokenizer pads now
          // (a setter between its start and its end counts: tasks keep theirs, this step not).
          const value = r.single ? r.out[0] : tok.__padBatch(r.out);
          const transfer = [];
          for (const v of r.single ? [value] : value) {
            if (v instanceof Uint32Array) transfer.push(v.buffer);
            else if (v && v.ids) for (const x of Object.values(v)) if (ArrayBuffer.isView(x)) transfer.push(x.buffer);
          }
          reply(r.id, true, value, transfer);
        } else if (r.progress) {
          self.postMessage({ id: r.id, progress: [r.total - r.left, r.total] });
        }
        await yieldNow();
      }
    } finally {
      running = false;
    }
  }
  self.onmessage = async (ev) => {
    const m = ev.data;
    try {
      if (m.op === "load") {
        ready = (async () => {
          const yt = await import(glueUrl);
          await yt.default();
          let src = m.source;
          if (m.url) {
            const resp = await fetch(m.url);
            if (!resp.ok) throw new Error(`cannot fetch ${m.url}: HTTP ${resp.status}`);
            src = new Uint8Array(await resp.arrayBuffer());
          }
          tok = await yt.Tokenizer.fromJSON(src, { config: m.config, name: m.name || m.url || undefined });
        })();
        await ready;
        reply(m.id, true, { vocabSize: tok.vocabSize, chunking: tok.chunking, engine: tok.engine });
        return;
      }
      if (m.op === "cancel") {
        const k = queue.findIndex((r) => r.id === m.target);
        if (k >= 0) {
          const r = queue.splice(k, 1)[0];
          freeFrom(r);
        }
        return;
      }
      await ready;
      if (m.op === "decode") {
        reply(m.id, true, tok.decode(m.ids, m.opts));
        return;
      }
      if (m.op === "applyChatTemplate") {
        reply(m.id, true, tok.applyChatTemplate(m.messages, m.opts));
        return;
      }
      if (SETTINGS.includes(m.op)) {
        // On the worker's tokenizer, for the requests after this one (tasks already made keep theirs).
        reply(m.id, true, tok[m.op](...m.args));
        return;
      }
      if (m.op === "toCompact") {
        const bytes = tok.toCompact();
        reply(m.id, true, bytes, [bytes.buffer]);
        return;
      }
      const output = m.op === "count" ? "count" : m.op === "encodeWithOffsets" ? "offsets" : "ids";
      const texts = m.op === "encodeBatch" ? m.texts : [m.text];
      if (!Array.isArray(texts)) throw new TypeError("texts must be an array of strings or [text, pair] pairs");
      const tasks = [];
      try {
        for (const t of texts) tasks.push(tok.createTask(t, { ...m.opts, output }));
      } catch (e) {
        for (const t of tasks) t.free();
        throw e;
      }
      let total = 0;
      for (const t of tasks) total += t.totalBytes;
      const sliceMs = m.opts && m.opts.sliceMs > 0 ? m.opts.sliceMs : m.sliceMs;
      queue.push({ id: m.id, tasks, i: 0, out: [], single: m.op !== "encodeBatch", service: clock, left: total, total, seq: seq++, progress: m.progress, sliceMs });
      loop();
    } catch (e) {
      reply(m.id, false, errorOf(e));
    }
  };
}

function errorFrom(e) {
  const err = new (e.name === "TypeError" ? TypeError : Error)(e.message);
  if (e.name !== "TypeError") err.name = e.name;
  return err;
}

/** `(item, options)` of `encode(text, pair?, options?)` on the worker: the text, or `[text, pair]`. */
function pairItem(text, pair, options) {
  if (pair === undefined || pair === null) return [text, options];
  // `encode(text, options)`, the older form (a second argument that is no string is the options).
  if (typeof pair !== "string" && (options === undefined || options === null)) return [text, pair];
  return [[text, pair], options];
}

/** Added tokens as plain objects (an `AddedToken` is a wasm object: its fields are getters). */
function tokenFields(tokens) {
  if (!Array.isArray(tokens)) return tokens;
  return tokens.map((t) => (t !== null && typeof t === "object" && "content" in t ? { content: t.content, special: t.special, singleWord: t.singleWord, leftStrip: t.leftStrip, rightStrip: t.rightStrip, normalized: t.normalized } : t));
}

class WorkerTokenizer {
  #worker;
  #pending = new Map();
  #next = 1;
  #sliceMs;
  #dead = null;

  constructor(worker, sliceMs) {
    this.#worker = worker;
    this.#sliceMs = sliceMs;
    this.vocabSize = 0;
    this.chunking = "";
    this.engine = "";
    worker.onmessage = (ev) => {
      const m = ev.data;
      const p = this.#pending.get(m.id);
      if (!p) return;
      if (m.progress) {
        if (p.onProgress) p.onProgress(m.progress[0], m.progress[1]);
        return;
      }
      this.#pending.delete(m.id);
      if (p.cleanup) p.cleanup();
      if (m.ok) p.resolve(m.value);
      else p.reject(errorFrom(m.error));
    };
    worker.onerror = (ev) => {
      ev.preventDefault && ev.preventDefault();
      this.#fail(new Error(`yieldtok worker failed: ${ev.message || "error"}`));
    };
  }

  #fail(err) {
    this.#dead = err;
    for (const p of this.#pending.values()) {
      if (p.cleanup) p.cleanup();
      p.reject(err);
    }
    this.#pending.clear();
  }

  /** Requests waiting or running in the worker. */
  get pending() {
    return this.#pending.size;
  }

  _call(message, options, transfer) {
    if (this.#dead) return Promise.reject(this.#dead);
    const o = options == null ? {} : options;
    if (typeof o !== "object") return Promise.reject(new TypeError("options must be an object"));
    const { signal, onProgress, ...rest } = o;
    if (signal && signal.aborted) return Promise.reject(abortReason(signal));
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      const entry = { resolve, reject, onProgress, cleanup: null };
      if (signal) {
        const onAbort = () => {
          this.#pending.delete(id);
          this.#worker.postMessage({ op: "cancel", target: id });
          reject(abortReason(signal));
        };
        signal.addEventListener("abort", onAbort, { once: true });
        entry.cleanup = () => signal.removeEventListener("abort", onAbort);
      }
      this.#pending.set(id, entry);
      this.#worker.postMessage({ ...message, id, opts: rest, progress: typeof onProgress === "function", sliceMs: this.#sliceMs }, transfer || []);
    });
  }

  // `encode(text, pair?, options?)`: a pair crosses as `[text, pair]` (`Tokenizer.createTask`
  // takes either); a second argument that is an object is the options, as on the page.
  encode(text, pair, options) {
    [text, options] = pairItem(text, pair, options);
    return this._call({ op: "encode", text }, options);
  }
  encodeWithOffsets(text, pair, options) {
    [text, options] = pairItem(text, pair, options);
    return this._call({ op: "encodeWithOffsets", text }, options);
  }
  count(text, options) {
    return this._call({ op: "count", text }, options);
  }
  encodeBatch(texts, options) {
    return this._call({ op: "encodeBatch", texts }, options);
  }
  decode(ids, options) {
    return this._call({ op: "decode", ids: Array.isArray(ids) ? Uint32Array.from(ids) : ids }, options);
  }
  applyChatTemplate(messages, options) {
    return this._call({ op: "applyChatTemplate", messages }, options);
  }
  toCompact() {
    return this._call({ op: "toCompact" }, {});
  }
  setTruncation(maxLength, options) {
    return this._call({ op: "setTruncation", args: [maxLength, options] }, {});
  }
  disableTruncation() {
    return this._call({ op: "disableTruncation", args: [] }, {});
  }
  setPadding(options) {
    return this._call({ op: "setPadding", args: [options] }, {});
  }
  disablePadding() {
    return this._call({ op: "disablePadding", args: [] }, {});
  }
  getVocab(withAddedTokens) {
    return this._call({ op: "getVocab", args: [withAddedTokens] }, {});
  }
  addTokens(tokens) {
    return this._call({ op: "addTokens", args: [tokenFields(tokens)] }, {});
  }
  addSpecialTokens(tokens) {
    return this._call({ op: "addSpecialTokens", args: [tokenFields(tokens)] }, {});
  }
  terminate() {
    this.#worker.terminate();
    this.#fail(new Error("yieldtok worker terminated"));
  }
}

/** Start a worker that loads `source` (JSON text/bytes, or a URL object it fetches itself). */
export function inWorker(source, options) {
  try {
    if (typeof Worker !== "function" || typeof Blob !== "function" || typeof URL === "undefined" || !URL.createObjectURL) {
      throw new Error("Tokenizer.inWorker needs Web Workers (a browser); in Node use the async methods directly");
    }
    const o = options == null ? {} : options;
    const glueUrl = String(o.moduleUrl || new URL("../../../yieldtok_wasm.js", import.meta.url));
    const sliceMs = o.sliceMs > 0 ? o.sliceMs : 4;
    const src = `(${workerMain.toString()})(${JSON.stringify(new URL(glueUrl, import.meta.url).href)});`;
    const blobUrl = URL.createObjectURL(new Blob([src], { type: "text/javascript" }));
    const worker = new Worker(blobUrl, { type: "module", name: "yieldtok" });
    const wt = new WorkerTokenizer(worker, sliceMs);
    const message = { op: "load", config: o.config, name: o.name };
    if (source instanceof URL) message.url = source.href;
    else if (typeof source === "string") message.source = source;
    // `new Uint8Array(view)` always copies (a Buffer's `slice()` is a view of its pool, which the
    // transfer below would detach from the caller).
    else if (source instanceof Uint8Array) message.source = new Uint8Array(source);
    else if (source instanceof ArrayBuffer) message.source = new Uint8Array(source.slice(0));
    else throw new TypeError("the tokenizer must be given as a string, Uint8Array, ArrayBuffer or URL");
    // A copy of the bytes is moved to the worker, not cloned a second time (11 MB for qwen3).
    const transfer = message.source instanceof Uint8Array ? [message.source.buffer] : [];
    return wt._call(message, {}, transfer).then((info) => {
      URL.revokeObjectURL(blobUrl);
      wt.vocabSize = info.vocabSize;
      wt.chunking = info.chunking;
      wt.engine = info.engine;
      return wt;
    }, (e) => {
      URL.revokeObjectURL(blobUrl);
      worker.terminate();
      throw e;
    });
  } catch (e) {
    return Promise.reject(e);
  }
}
