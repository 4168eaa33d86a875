#!/usr/bin/env node
// Browser benchmark: the ~160k-token demo document encoded in headless Chromium (Debian's, via
// playwright-core) by yieldtok (sliced, scheduler.yield, blocking, worker) and by tiktoken,
// gpt-tokenizer and @huggingface/tokenizers. Per run: total encode time, longest main-thread
// task during the encode (from a Chrome trace: toplevel RunTask events between two
// performance marks), max gap between animation frames, delay of a key press sent ~60 ms into
// the encode. Medians over --runs runs; ratios of the sliced to the blocking yieldtok encode.
//
//   node bindings-wasm/bench/bench.mjs [--runs 5] [--only substring,...] [--key-at 60]
//                                      [--out artifacts/wasm-bench.json]
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { launch, root } from "../../tests/browser/chromium.mjs";
import { startServer } from "../demo/serve.mjs";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const RUNS = Number(arg("--runs", 5));
const KEY_AT = Number(arg("--key-at", 60));
const ONLY = arg("--only", "").split(",").filter(Boolean);
const OUT = resolve(arg("--out", join(root, "artifacts/wasm-bench.json")));

const median = (xs) => {
  const v = xs.filter((x) => x != null).sort((a, b) => a - b);
  if (!v.length) return null;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function traced(cdp, fn) {
  const events = [];
  const onData = (p) => events.push(...p.value);
  cdp.on("Tracing.dataCollected", onData);
  const complete = new Promise((r) => cdp.once("Tracing.tracingComplete", r));
  await cdp.send("Tracing.start", {
    traceConfig: { includedCategories: ["toplevel", "blink.user_timing"], recordMode: "recordContinuously" },
    transferMode: "ReportEvents",
  });
  let value;
  try {
    value = await fn();
  } finally {
    await cdp.send("Tracing.end");
    await complete;
    cdp.off("Tracing.dataCollected", onData);
  }
  return { value, events };
}

/** Longest toplevel task on the thread of the marks, overlapping [start mark, end mark]:
 *  { wall, cpu } in ms (cpu: the thread time of that task; far below wall = the renderer was
 *  descheduled, i.e. the machine was busy, not the page). */
function longestTask(events, id) {
  const mark = (name) => events.find((e) => e.name === name && (e.cat || "").includes("blink.user_timing"));
  const s = mark(`yt-start-${id}`);
  const e = mark(`yt-end-${id}`);
  if (!s || !e) return null;
  let wall = 0;
  let cpu = 0;
  for (const ev of events) {
    if (ev.ph !== "X" || ev.pid !== s.pid || ev.tid !== s.tid || !/RunTask/.test(ev.name)) continue;
    if (ev.ts + ev.dur < s.ts || ev.ts > e.ts) continue;
    wall = Math.max(wall, ev.dur / 1000);
    if (ev.tdur != null) cpu = Math.max(cpu, ev.tdur / 1000);
  }
  return { wall, cpu };
}

const { server, url } = await startServer({ port: 0 });
const browser = await launch({ viewport: { width: 900, height: 500 } });
const { page, context } = browser;
const results = [];
try {
  page.on("pageerror", (e) => console.error("page error:", e));
  await page.goto(url + "bench/");
  await page.waitForFunction(() => window.bench, null, { timeout: 60_000 });
  await page.focus("#probe");
  const meta = await page.evaluate(() => ({ contenders: window.bench.contenders, chars: window.bench.docChars, bytes: window.bench.docBytes, ua: navigator.userAgent }));
  const cdp = await context.newCDPSession(page);
  console.error(`document: ${meta.chars} chars, ${meta.bytes} bytes; ${meta.ua}`);
  let id = 0;
  for (const name of meta.contenders) {
    if (ONLY.length && !ONLY.some((o) => name.includes(o))) continue;
    const prep = await page.evaluate((n) => window.bench.prepare(n), name);
    const rows = [];
    for (let r = 0; r < RUNS; r++) {
      await sleep(300);
      const runId = ++id;
      const { value, events } = await traced(cdp, async () => {
        await page.evaluate(([n, i]) => window.bench.start(n, i), [name, runId]);
        await sleep(KEY_AT);
        await page.keyboard.press("x");
        return page.evaluate((i) => window.bench.result(i), runId);
      });
      if (value.error) throw new Error(`${name}: ${value.error}`);
      const lt = longestTask(events, runId);
      rows.push({ ...value, longestTask: lt?.wall ?? null, longestTaskCpu: lt?.cpu ?? null });
    }
    const row = {
      name,
      tokens: rows[0].count,
      loadMs: prep.loadMs,
      totalMs: median(rows.map((x) => x.ms)),
      longestTaskMs: median(rows.map((x) => x.longestTask)),
      longestTaskCpuMs: median(rows.map((x) => x.longestTaskCpu)),
      maxFrameGapMs: median(rows.map((x) => x.maxGap)),
      keyDelayMs: median(rows.map((x) => x.keyDelay)),
      runs: rows,
    };
    results.push(row);
    console.error(`${name}: total ${row.totalMs.toFixed(0)} ms, longest task ${row.longestTaskMs?.toFixed(1)} ms, frame gap ${row.maxFrameGapMs.toFixed(1)} ms, key ${row.keyDelayMs?.toFixed(1)} ms`);
  }
} finally {
  await browser.close();
  server.close();
}

const by = (n) => results.find((r) => r.name === n);
const ratios = {};
for (const vocab of ["qwen3", "gpt4o"]) {
  const s = by(`yieldtok sliced (${vocab})`);
  const b = by(`yieldtok blocking (${vocab})`);
  if (s && b) {
    ratios[vocab] = {
      medianOfTotals: s.totalMs / b.totalMs,
      medianOfPairs: median(s.runs.map((x, i) => x.ms / b.runs[i].ms)),
    };
  }
}
const f = (x, d = 1) => (x == null ? "–" : x.toFixed(d));
const lines = [
  `| contender | tokens | total ms | longest task ms (CPU) | max frame gap ms | key-press delay ms |`,
  `|---|---:|---:|---:|---:|---:|`,
  ...results.map((r) => `| ${r.name} | ${r.tokens} | ${f(r.totalMs, 0)} | ${f(r.longestTaskMs)} (${f(r.longestTaskCpuMs)}) | ${f(r.maxFrameGapMs)} | ${f(r.keyDelayMs)} |`),
];
for (const [vocab, r] of Object.entries(ratios)) lines.push(`\nsliced / blocking total time (${vocab}): ${r.medianOfTotals.toFixed(2)}x (median of per-run ratios ${r.medianOfPairs.toFixed(2)}x)`);
lines.push(`\nload average ${loadavg().map((x) => x.toFixed(1)).join(" ")} on ${cpus().length} CPUs; medians of ${RUNS} runs; goals: longest task <= 8 ms, frame gap <= 20 ms, key delay <= 8 ms, sliced/blocking <= 1.3x`);
console.log(lines.join("\n"));
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, JSON.stringify({ date: new Date().toISOString(), runs: RUNS, keyAtMs: KEY_AT, results, ratios }, null, 2));
console.error(`wrote ${OUT}`);
