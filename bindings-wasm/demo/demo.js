// The yieldtok browser demo. Everything the page measures is also exposed on window.__demo
// for tests/browser/demo.test.mjs.
import init, { Tokenizer } from "/pkg-web/yieldtok_wasm.js";
import { generateDocument, idsChecksum } from "/demo/gen-doc.js";

const $ = (id) => document.getElementById(id);
const ui = {
  status: $("status"), fixture: $("fixture"), generate: $("generate"), clear: $("clear"), slice: $("slice"),
  worker: $("worker"), count: $("count"), chars: $("chars"), time: $("time"), timeLabel: $("time-label"),
  gap: $("gap"), longtasks: $("longtasks"), keydelay: $("keydelay"), bar: $("bar"), progressLabel: $("progress-label"),
  doc: $("doc"), tokens: $("tokens"), windowLabel: $("window-label"), anim: $("anim"), probe: $("probe"),
};
const fmt = new Intl.NumberFormat("en-US");
const ms = (x) => (x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(0)} ms`);

const SAMPLE = `Paste a long text here, type, or press "Generate" for a ~160k-token document.

yieldtok encodes it in slices of a few milliseconds and gives the browser back its event loop between them, so this page keeps rendering and answering keys while the tokens are counted. Switch to "blocking" to see the same encode freeze the page.

Exact: the ids equal the native Rust encoder's, token for token — 分词器, トークナイザー, 토크나이저, مُرمِّز, emoji 🚀👩🏽‍💻 included.`;

const state = {
  tok: null, // main-thread Tokenizer
  worker: null, // WorkerTokenizer (when the switch is on)
  name: null,
  loading: null,
  controller: null,
  run: 0,
  result: null, // { text, ids, offsets }
  encoding: false,
  encodeStart: 0,
  maxGap: 0,
  progress: 0,
};

// Test hooks.
const demo = (window.__demo = {
  ready: false,
  fixture: null,
  encodes: [], // { mode, chars, count, checksum, ms, slices, maxGap, longTasks, start, end, fixture }
  keyDelays: [], // { at, delay, key }
  longTasks: [], // { start, duration }
  encoding: false,
  progress: 0,
  generate: () => generate(),
  setMode: (m) => {
    document.querySelector(`input[name=mode][value=${m}]`).checked = true;
  },
  loadFixture: (name) => loadFixture(name),
  encodeNow: () => encode(),
});

// ---- liveness: an animation drawn by JS on every frame, and a frame-gap chart ----------------

const ctx = ui.anim.getContext("2d");
const gaps = new Float32Array(160);
let gapIndex = 0;
let lastFrame = performance.now();
function frame() {
  // performance.now(), not the rAF timestamp: after a blocked main thread, the timestamp is
  // the (early) time the frame was begun, not when its callbacks could finally run.
  const now = performance.now();
  const gap = now - lastFrame;
  lastFrame = now;
  gaps[gapIndex++ % gaps.length] = gap;
  if (state.encoding) state.maxGap = Math.max(state.maxGap, gap);
  const w = ui.anim.width;
  const h = ui.anim.height;
  ctx.clearRect(0, 0, w, h);
  // frame-gap chart (right part)
  const chartX = 250;
  ctx.fillStyle = "#f1f3f7";
  ctx.fillRect(chartX, 8, w - chartX - 8, h - 16);
  const bw = (w - chartX - 8) / gaps.length;
  for (let i = 0; i < gaps.length; i++) {
    const g = gaps[(gapIndex + i) % gaps.length];
    const bh = Math.min(h - 16, (g / 100) * (h - 16));
    ctx.fillStyle = g > 50 ? "#e03131" : g > 20 ? "#f59f00" : "#37b24d";
    ctx.fillRect(chartX + i * bw, h - 8 - bh, Math.max(1, bw - 0.5), bh);
  }
  ctx.fillStyle = "#667085";
  ctx.font = "11px system-ui, sans-serif";
  ctx.fillText("frame gaps (0–100 ms)", chartX + 6, 20);
  ctx.strokeStyle = "#e03131";
  ctx.setLineDash([3, 3]);
  const y50 = h - 8 - 0.5 * (h - 16);
  ctx.beginPath();
  ctx.moveTo(chartX, y50);
  ctx.lineTo(w - 8, y50);
  ctx.stroke();
  ctx.setLineDash([]);
  // bouncing ball and spinner (left part)
  const t = now / 1000;
  const x = 20 + ((Math.sin(t * 2.2) + 1) / 2) * 150;
  const y = h - 22 - Math.abs(Math.sin(t * 4.4)) * 52;
  ctx.fillStyle = "#3b5bdb";
  ctx.beginPath();
  ctx.arc(x, y, 12, 0, Math.PI * 2);
  ctx.fill();
  ctx.save();
  ctx.translate(214, h / 2);
  ctx.rotate(t * 3);
  ctx.fillStyle = "#15aabf";
  ctx.fillRect(-13, -13, 26, 26);
  ctx.restore();
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);

if (typeof PerformanceObserver !== "undefined" && PerformanceObserver.supportedEntryTypes?.includes("longtask")) {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      demo.longTasks.push({ start: e.startTime, duration: e.duration });
      // Entries arrive after their task; one may belong to the encode that just ended.
      const last = demo.encodes.at(-1);
      if (last && e.startTime + e.duration > last.start && e.startTime < last.end) {
        last.longTasks.push(e.duration);
        showLongTasks(last);
      }
    }
  }).observe({ type: "longtask", buffered: true });
}

ui.probe.addEventListener("keydown", (e) => {
  const delay = performance.now() - e.timeStamp;
  demo.keyDelays.push({ at: e.timeStamp, delay, key: e.key, encoding: state.encoding });
  ui.keydelay.textContent = `${delay.toFixed(1)} ms`;
});

// ---- loading ------------------------------------------------------------------------------

function setStatus(text, error = false) {
  ui.status.textContent = text;
  ui.status.classList.toggle("error", error);
}

async function fetchText(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`cannot fetch ${url}: HTTP ${r.status}`);
  return r;
}

let fixtures = [];
async function loadFixture(name) {
  const info = fixtures.find((f) => f.name === name);
  if (!info) throw new Error(`unknown fixture ${name}`);
  demo.ready = false;
  state.controller?.abort();
  state.name = name;
  ui.fixture.value = name;
  const p = (async () => {
    setStatus(`Loading ${name} (${(info.bytes / 1e6).toFixed(1)} MB)…`);
    const base = `/fixtures/${name}/`;
    const config = info.config ? await (await fetchText(base + "tokenizer_config.json")).text() : undefined;
    const t0 = performance.now();
    if (ui.worker.checked) {
      state.worker?.terminate();
      state.worker = await Tokenizer.inWorker(new URL(base + "tokenizer.json", location.href), { name, config });
      state.tok?.free();
      state.tok = null;
      setStatus(`${name} · vocabulary ${fmt.format(state.worker.vocabSize)} · loaded in a Web Worker in ${ms(performance.now() - t0)}`);
    } else {
      const bytes = new Uint8Array(await (await fetchText(base + "tokenizer.json")).arrayBuffer());
      const t1 = performance.now();
      const tok = await Tokenizer.fromJSON(bytes, { name, config });
      state.tok?.free();
      state.tok = tok;
      state.worker?.terminate();
      state.worker = null;
      setStatus(`${name} · vocabulary ${fmt.format(tok.vocabSize)} · loaded in ${ms(performance.now() - t0)} (parse ${ms(performance.now() - t1)} on the main thread)`);
    }
    demo.fixture = name;
    demo.ready = true;
  })();
  state.loading = p;
  try {
    await p;
  } catch (e) {
    setStatus(`Cannot load ${name}: ${e.message}`, true);
    throw e;
  }
  return encode();
}

// ---- encoding -----------------------------------------------------------------------------

function mode() {
  return document.querySelector("input[name=mode]:checked").value;
}

function setProgress(fraction) {
  state.progress = fraction;
  demo.progress = fraction;
  ui.bar.style.transform = `scaleX(${fraction})`;
  if (fraction === 0 || fraction === 1) ui.progressLabel.textContent = "";
}

async function encode() {
  if (state.loading) await state.loading.catch(() => {});
  if (!state.tok && !state.worker) return;
  state.controller?.abort();
  const controller = new AbortController();
  state.controller = controller;
  const run = ++state.run;
  const text = ui.doc.value;
  const m = state.worker ? "worker" : mode();
  const sliceMs = Math.max(1, Number(ui.slice.value) || 4);
  ui.chars.textContent = fmt.format(text.length);
  let slices = 0;
  let lastLabel = 0;
  const begin = () => {
    state.encoding = true;
    demo.encoding = true;
    state.maxGap = 0;
    state.encodeStart = performance.now();
    performance.mark(`yieldtok-encode-start-${run}`);
    ui.timeLabel.textContent = m === "blocking" ? "encoding (blocking)…" : "encoding…";
    window.dispatchEvent(new CustomEvent("yieldtok:encode-start", { detail: { run, mode: m } }));
  };
  let result;
  try {
    if (m === "blocking") {
      setProgress(0);
      ui.timeLabel.textContent = "encoding (blocking)…";
      // Let the label paint, then block.
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      if (run !== state.run) return;
      begin();
      result = state.tok.encodeSync(text);
      setProgress(1);
    } else {
      begin();
      const opts = {
        sliceMs,
        signal: controller.signal,
        onProgress: (done, total) => {
          slices++;
          if (run !== state.run) return;
          const fraction = total ? done / total : 1;
          setProgress(fraction);
          const percent = `${Math.floor(fraction * 100)}%`;
          if (ui.progressLabel.textContent !== percent) ui.progressLabel.textContent = percent;
          const t = performance.now();
          if (t - lastLabel > 100) {
            // Text changes cost a layout; the bar itself is a compositor-only transform.
            lastLabel = t;
            ui.time.textContent = ms(t - state.encodeStart);
          }
        },
      };
      result = await (state.worker ?? state.tok).encode(text, opts);
    }
  } catch (e) {
    if (e.name !== "AbortError") {
      setStatus(`Encode failed: ${e.message}`, true);
      state.encoding = false;
      demo.encoding = false;
    }
    return;
  }
  if (run !== state.run) return;
  const end = performance.now();
  performance.mark(`yieldtok-encode-end-${run}`);
  // One more frame, so the gap that follows the last slice is counted too.
  await new Promise((r) => requestAnimationFrame(() => r()));
  state.encoding = false;
  demo.encoding = false;
  const elapsed = end - state.encodeStart;
  const longTasks = demo.longTasks.filter((t) => t.start + t.duration > state.encodeStart && t.start < end);
  state.result = { text, ids: result };
  const entry = {
    run, mode: m, fixture: state.name, chars: text.length, count: result.length, checksum: idsChecksum(result),
    ms: elapsed, slices: m === "blocking" ? 1 : slices, maxGap: state.maxGap, longTasks: longTasks.map((t) => t.duration),
    start: state.encodeStart, end,
  };
  demo.encodes.push(entry);
  ui.count.textContent = fmt.format(entry.count);
  ui.time.textContent = ms(elapsed);
  ui.timeLabel.textContent = m === "blocking" ? "last encode (blocking)" : `last encode (${fmt.format(entry.slices)} slice${entry.slices === 1 ? "" : "s"}${m === "worker" ? ", worker" : ""})`;
  ui.gap.textContent = `${state.maxGap.toFixed(0)} ms`;
  ui.gap.style.color = state.maxGap > 50 ? "#e03131" : "";
  showLongTasks(entry);
  queueRender();
  window.dispatchEvent(new CustomEvent("yieldtok:encode-done", { detail: entry }));
}

function showLongTasks(entry) {
  const n = entry.longTasks.length;
  ui.longtasks.textContent = n ? `${n} (max ${ms(Math.max(...entry.longTasks))})` : "0";
  ui.longtasks.style.color = n ? "#e03131" : "";
}

// ---- the coloured token view (a window around the caret) ------------------------------------
//
// The main encode returns ids only (its last step stays cheap at 160k tokens). The view encodes
// a window of the text around the caret with offsets, cut at line starts, and colours only the
// run of tokens that is found, id for id, in the full encode: what is shown is exact.

const COLORS = ["#d0ebff", "#d3f9d8", "#ffe8cc", "#f3d9fa", "#fff3bf", "#c5f6fa", "#ffdeeb"];
const BEFORE = 1500;
const AFTER = 3000;
let renderQueued = false;
let renderSeq = 0;

function lineStartBefore(text, pos) {
  if (pos <= 0) return 0;
  let i = text.lastIndexOf("\n", pos);
  while (i > 0 && /\s/.test(text[i + 1] ?? "")) i = text.lastIndexOf("\n", i - 1);
  return i <= 0 ? 0 : i + 1;
}

function lineStartAfter(text, pos) {
  if (pos >= text.length) return text.length;
  let i = text.indexOf("\n", pos);
  while (i >= 0 && /\s/.test(text[i + 1] ?? "")) i = text.indexOf("\n", i + 1);
  return i < 0 ? text.length : i + 1;
}

/** Where `probe` (ids of the window, from `from`) occurs in `ids`, searching outward from `near`. */
function findRun(ids, probe, near) {
  const m = probe.length;
  const matches = (k) => {
    for (let j = 0; j < m; j++) if (ids[k + j] !== probe[j]) return false;
    return true;
  };
  const limit = ids.length - m;
  for (let d = 0; d <= ids.length; d++) {
    const lo = near - d;
    const hi = near + d;
    if (lo < 0 && hi > limit) break;
    if (lo >= 0 && lo <= limit && matches(lo)) return lo;
    if (d > 0 && hi >= 0 && hi <= limit && matches(hi)) return hi;
  }
  return -1;
}

async function renderTokens() {
  const r = state.result;
  if (!r) return;
  const seq = ++renderSeq;
  const tok = state.worker ?? state.tok;
  const n = r.ids.length;
  const caret = Math.min(ui.doc.selectionStart ?? 0, r.text.length);
  const a = lineStartBefore(r.text, caret - BEFORE);
  const b = lineStartAfter(r.text, caret + AFTER);
  const whole = a === 0 && b === r.text.length;
  let w;
  try {
    w = await tok.encodeWithOffsets(r.text.slice(a, b), { addSpecialTokens: whole });
  } catch {
    return;
  }
  if (seq !== renderSeq || r !== state.result) return;
  // The window's tokens that are also, in the same order, tokens of the full encode.
  let i0 = 0;
  let i1 = w.ids.length;
  let k0 = 0;
  if (!whole && w.ids.length > 0) {
    const skip = Math.min(2, w.ids.length - 1); // the first token at a cut may differ
    const probe = w.ids.subarray(skip, Math.min(w.ids.length, skip + 24));
    const near = Math.max(0, Math.round((a / r.text.length) * n));
    const at = findRun(r.ids, probe, near);
    if (at < 0) {
      i1 = 0;
    } else {
      i0 = skip;
      k0 = at;
      while (i0 > 0 && k0 > 0 && w.ids[i0 - 1] === r.ids[k0 - 1]) (i0--, k0--);
      // Leave out the window's last token and any that differ near the end cut.
      i1 = i0;
      while (i1 < w.ids.length - 1 && k0 + (i1 - i0) < n && w.ids[i1] === r.ids[k0 + (i1 - i0)]) i1++;
    }
  }
  const frag = document.createDocumentFragment();
  const text = r.text.slice(a, b);
  let pos = 0;
  const plain = (s) => {
    if (s) frag.append(s);
  };
  let caretToken = -1;
  for (let i = i0; i < i1; i++) {
    const s = w.offsets[2 * i];
    const e = w.offsets[2 * i + 1];
    if (s > pos) plain(text.slice(pos, s));
    const span = document.createElement("span");
    span.style.background = COLORS[(k0 + i - i0) % COLORS.length];
    if (s === e) {
      span.textContent = state.tok?.idToToken(w.ids[i]) ?? `⟨${w.ids[i]}⟩`;
      span.style.outline = "1px dashed #868e96";
    } else {
      span.textContent = text.slice(s, e);
    }
    span.title = `#${k0 + i - i0} id ${w.ids[i]}`;
    if (caretToken < 0 && a + e > caret) {
      caretToken = i;
      span.className = "caret";
    }
    frag.append(span);
    pos = Math.max(pos, e);
  }
  plain(text.slice(pos));
  ui.tokens.replaceChildren(frag);
  ui.windowLabel.textContent =
    i1 > i0 ? `tokens ${fmt.format(k0 + 1)}–${fmt.format(k0 + i1 - i0)} of ${fmt.format(n)}, around the caret` : n === 0 ? "(no tokens)" : "";
  const caretEl = ui.tokens.querySelector(".caret");
  if (caretEl) ui.tokens.scrollTop = Math.max(0, caretEl.offsetTop - ui.tokens.offsetTop - 80);
  demo.view = { from: k0, count: i1 - i0, windowIds: Array.from(w.ids.subarray(i0, i1)) };
}

function queueRender() {
  if (renderQueued) return;
  renderQueued = true;
  requestAnimationFrame(() => {
    renderQueued = false;
    renderTokens();
  });
}

// ---- wiring -------------------------------------------------------------------------------

async function generate() {
  state.controller?.abort();
  state.run++;
  ui.doc.value = generateDocument();
  ui.doc.setSelectionRange(0, 0);
  ui.doc.scrollTop = 0;
  ui.chars.textContent = fmt.format(ui.doc.value.length);
  // Let the browser lay out the new text first (one long task, before the encode starts).
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0))));
  return encode();
}

ui.doc.addEventListener("input", () => encode());
for (const ev of ["click", "keyup", "select"]) ui.doc.addEventListener(ev, queueRender);
ui.generate.addEventListener("click", () => generate());
ui.clear.addEventListener("click", () => {
  ui.doc.value = "";
  encode();
});
ui.fixture.addEventListener("change", () => loadFixture(ui.fixture.value).catch(() => {}));
ui.worker.addEventListener("change", () => {
  document.querySelector("input[name=mode][value=blocking]").disabled = ui.worker.checked;
  if (ui.worker.checked) demo.setMode("sliced");
  loadFixture(state.name).catch(() => {});
});
for (const r of document.querySelectorAll("input[name=mode]")) r.addEventListener("change", () => encode());

async function main() {
  ui.doc.value = SAMPLE;
  await init();
  fixtures = await (await fetchText("/fixtures/")).json();
  if (fixtures.length === 0) {
    setStatus("No tokenizers in the fixture cache: run scripts/fetch-fixtures.sh", true);
    return;
  }
  for (const f of fixtures) ui.fixture.append(new Option(f.name, f.name));
  const wanted = new URLSearchParams(location.search).get("fixture");
  const name = fixtures.some((f) => f.name === wanted) ? wanted : fixtures.some((f) => f.name === "qwen3") ? "qwen3" : fixtures[0].name;
  await loadFixture(name);
}
main().catch((e) => setStatus(`Error: ${e.message}`, true));
