#!/usr/bin/env node
'use strict'
// Benchmark of issue 5, yieldtok side by side with Hugging Face's `tokenizers` npm package (napi,
// libuv pool) and `@huggingface/tokenizers` (pure JS), in the same process and run:
//
//   1. one ~160k-token qwen3 document awaited: max event-loop delay
//      (perf_hooks.monitorEventLoopDelay({ resolution: 1 }) and a 1 ms heartbeat)
//   2. while 4 long requests are in flight, 200 short (~100-token) requests arriving every 2 ms:
//      latency percentiles of the short ones (measured from their planned arrival time)
//   3. latency of crypto.pbkdf2 and fs.readFile (libuv's pool) alone, during 1 long encode and
//      during 4 long encodes
//   4. throughput: the document (time until its ids are JS values), and encodeBatch of 1000
//      medium texts
//
// Every number is a median over rounds; libraries alternate within each round.
//
//   node bench/bench.js [--rounds N] [--fixture qwen3] [--data FILE.jsonl] [--no-js] [--json OUT]
//
// The document comes from the tau-bench conversations in /work/shared/data when present (or
// --data), else from deterministic synthetic text. Needs `npm ci` (the two comparison packages are
// devDependencies) and a built addon.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const crypto = require('node:crypto')
const { monitorEventLoopDelay } = require('node:perf_hooks')

const PKG = path.resolve(__dirname, '..')
const ROOT = path.resolve(PKG, '..')

function arg(name, dflt) {
  const i = process.argv.indexOf(`--${name}`)
  if (i < 0) return dflt
  const v = process.argv[i + 1]
  return v === undefined || v.startsWith('--') ? true : v
}

const ROUNDS = Number(arg('rounds', 5))
const FIXTURE = arg('fixture', 'qwen3')
const WITH_JS = !process.argv.includes('--no-js')
const JSON_OUT = arg('json', null)
const DOC_TOKENS = Number(arg('doc-tokens', 160_000))

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const now = () => performance.now()
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]
}
const cpuMs = (since) => {
  const u = process.cpuUsage(since)
  return (u.user + u.system) / 1000
}

// ---- inputs --------------------------------------------------------------------------------

function fixtureDir(name) {
  const d = path.join(process.env.YIELDTOK_FIXTURES || path.join(ROOT, '.cache', 'fixtures'), name)
  if (!fs.existsSync(path.join(d, 'tokenizer.json'))) {
    require('node:child_process').execFileSync('bash', [path.join(ROOT, 'scripts', 'fetch-fixtures.sh'), name], { stdio: 'inherit' })
  }
  return d
}

function realTexts() {
  const candidates = [arg('data', null), path.join(ROOT, '..', 'shared', 'data', 'tau-airline-conversations.jsonl'), '/work/shared/data/tau-airline-conversations.jsonl']
  for (const f of candidates) {
    if (f && f !== true && fs.existsSync(f)) {
      const out = []
      for (const line of fs.readFileSync(f, 'utf8').split('\n')) {
        if (!line) continue
        for (const m of JSON.parse(line).messages) {
          out.push(typeof m.content === 'string' && m.content ? m.content : JSON.stringify(m.tool_calls ?? m))
        }
      }
      return { source: f, texts: out }
    }
  }
  return null
}

function syntheticTexts() {
  const words = 'the of and to in is was for on that with as by at from his her which an be this are have not had were it they their one all but can there been has more if will would who about into out up its so what them than some could other time these two may then do first any my now such like our over man me even most made after also did many before must through back years where much your way well down should because each just those people how too little state good very make world still own see men work long get here between both life being under never day same another know while last might us great old year off come since against go came right used take three'.split(' ')
  let seed = 7
  const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296)
  const texts = []
  for (let i = 0; i < 20000; i++) {
    const n = 20 + Math.floor(rnd() * 200)
    const ws = []
    for (let k = 0; k < n; k++) ws.push(words[Math.floor(rnd() * words.length)] + (rnd() < 0.08 ? (rnd() < 0.5 ? ',' : '.') : ''))
    texts.push(ws.join(' ') + (rnd() < 0.3 ? '\n\n{"id": ' + i + ', "ok": true}' : ''))
  }
  return { source: 'synthetic', texts }
}

// ---- libraries -----------------------------------------------------------------------------

function libraries(dir) {
  const json = fs.readFileSync(path.join(dir, 'tokenizer.json'), 'utf8')
  const cfgPath = path.join(dir, 'tokenizer_config.json')
  const config = fs.existsSync(cfgPath) ? JSON.parse(fs.readFileSync(cfgPath, 'utf8')) : {}
  const libs = []
  const { Tokenizer } = require(PKG)
  libs.push({
    name: 'yieldtok',
    tok: Tokenizer.fromDir(dir),
    async: true,
    encode: async (t, text) => (await t.encode(text)).ids,
    batch: async (t, texts) => (await t.encodeBatch(texts)).map((e) => e.ids),
    start: (t, text) => t.encode(text),
    ids: (r) => r.ids,
  })
  const HF = require(require.resolve('tokenizers', { paths: [PKG] })).Tokenizer
  libs.push({
    name: 'tokenizers (npm)',
    tok: HF.fromString(json),
    async: true,
    // getIds() copies the ids into a JS array on the main thread: part of getting the result.
    encode: async (t, text) => (await t.encode(text)).getIds(),
    batch: async (t, texts) => (await t.encodeBatch(texts)).map((e) => e.getIds()),
    start: (t, text) => t.encode(text),
    ids: (r) => r.getIds(),
  })
  if (WITH_JS) {
    const HFJS = require(require.resolve('@huggingface/tokenizers', { paths: [PKG] })).Tokenizer
    libs.push({
      name: '@huggingface/tokenizers',
      tok: new HFJS(JSON.parse(json), config),
      async: false,
      encode: async (t, text) => t.encode(text).ids,
      batch: async (t, texts) => texts.map((x) => t.encode(x).ids),
      start: async (t, text) => t.encode(text),
      ids: (r) => r.ids,
    })
  }
  return libs
}

// ---- measurements --------------------------------------------------------------------------

/** Max event-loop delay while `fn` runs: histogram max and largest 1-ms heartbeat gap (ms). */
async function loopDelay(fn) {
  const h = monitorEventLoopDelay({ resolution: 1 })
  let last = now()
  let maxGap = 0
  const iv = setInterval(() => {
    const t = now()
    maxGap = Math.max(maxGap, t - last)
    last = t
  }, 1)
  // The histogram records from its second tick on: enable it before the measured call.
  h.enable()
  await sleep(5)
  last = now()
  const c0 = process.cpuUsage()
  const t0 = now()
  const out = await fn()
  const wall = now() - t0
  const cpu = cpuMs(c0)
  // Let the timers that a blocked loop delayed fire, so the histogram records that delay.
  await sleep(3)
  maxGap = Math.max(maxGap, now() - last)
  h.disable()
  clearInterval(iv)
  return { out, maxDelay: h.max / 1e6, maxGap, wall, cpu }
}

/** Main-thread time spent in the library's calls: starting the encode, and getting the ids. */
async function mainThreadMs(lib, doc) {
  const t0 = now()
  const p = lib.start(lib.tok, doc)
  const call = now() - t0
  const r = await p
  const t1 = now()
  lib.ids(r)
  return call + (now() - t1)
}

/** 4 long requests in flight; 200 short ones arriving every 2 ms. Latencies of the short ones. */
async function shortWhileLong(lib, doc, shorts) {
  const t0 = now()
  // The long requests arrive first (each from its own timer, as requests would), then the short
  // ones every 2 ms from t0 + 5 ms. A blocking library runs each long one where it arrives.
  const longs = [0, 1, 2, 3].map(() => new Promise((resolve) => setTimeout(() => resolve(lib.encode(lib.tok, doc)), 0)))
  const lat = []
  const pending = []
  await new Promise((resolve) => {
    let i = 0
    const tick = () => {
      // Issue every request whose planned arrival time has come (the loop may have been blocked).
      while (i < shorts.length && now() - t0 >= 5 + i * 2) {
        const planned = t0 + 5 + i * 2
        const text = shorts[i++]
        pending.push(lib.encode(lib.tok, text).then(() => lat.push(now() - planned)))
      }
      if (i < shorts.length) setTimeout(tick, 1)
      else resolve()
    }
    setTimeout(tick, 0)
  })
  await Promise.all(pending)
  const shortsDone = now() - t0
  await Promise.all(longs)
  const longsDone = now() - t0
  return { p50: pct(lat, 50), p99: pct(lat, 99), max: Math.max(...lat), shortsDone, longsDone }
}

function pbkdf2Once() {
  const t0 = now()
  return new Promise((resolve, reject) => crypto.pbkdf2('password', 'salt', 50_000, 32, 'sha256', (e) => (e ? reject(e) : resolve(now() - t0))))
}

async function readOnce(file) {
  const t0 = now()
  await fs.promises.readFile(file)
  return now() - t0
}

/** pbkdf2 and readFile latency while `longs` long encodes run (0: alone). */
async function poolLatency(lib, doc, longs, file) {
  const running = Array.from({ length: longs }, () => lib.encode(lib.tok, doc))
  await sleep(longs ? 20 : 0)
  const [pb, rd] = await Promise.all([pbkdf2Once(), readOnce(file)])
  await Promise.all(running)
  return { pbkdf2: pb, readFile: rd }
}

// ---- main ----------------------------------------------------------------------------------

async function main() {
  const dir = fixtureDir(FIXTURE)
  const src = realTexts() ?? syntheticTexts()
  const libs = libraries(dir)
  const ours = libs[0]
  // The fast engine (ids-only work) loads in the background after the tokenizer: let it finish
  // so that it neither competes for the CPU during the measurements nor is missing from them.
  const engine = await ours.tok.waitForEngine()

  // The document: texts joined until ~DOC_TOKENS tokens.
  const joined = []
  let acc = ''
  for (const t of src.texts) {
    joined.push(t)
    if (joined.length % 50 === 0) {
      acc = joined.join('\n\n')
      if (ours.tok.countSync(acc) >= DOC_TOKENS) break
    }
  }
  let doc = joined.join('\n\n')
  if (ours.tok.countSync(doc) < DOC_TOKENS) {
    while (ours.tok.countSync(doc) < DOC_TOKENS) doc += '\n\n' + doc
  }
  const docTokens = ours.tok.countSync(doc)
  // Short (~100 tokens) and medium (~500 tokens) texts: slices of the source texts.
  const flat = src.texts.join('\n')
  const shorts = []
  for (let i = 0; shorts.length < 200; i += 997) shorts.push(flat.slice(i % (flat.length - 500), (i % (flat.length - 500)) + 420))
  const mediums = []
  for (let i = 0; mediums.length < 1000; i += 1999) mediums.push(flat.slice(i % (flat.length - 2500), (i % (flat.length - 2500)) + 2100))
  const shortTokens = median(shorts.map((s) => ours.tok.countSync(s)))
  const mediumTokens = median(mediums.map((s) => ours.tok.countSync(s)))
  const tmpFile = path.join(os.tmpdir(), `yieldtok-bench-${process.pid}`)
  fs.writeFileSync(tmpFile, crypto.randomBytes(64 * 1024))

  // Sanity: all libraries agree on the document's ids.
  const ref = Array.from(await ours.encode(ours.tok, doc))
  for (const lib of libs.slice(1)) {
    const ids = Array.from(await lib.encode(lib.tok, doc))
    const same = ids.length === ref.length && ids.every((x, i) => x === ref[i])
    if (!same) console.error(`warning: ${lib.name} ids differ from yieldtok's on the document (${ids.length} vs ${ref.length} tokens)`)
  }
  // Warm up.
  for (const lib of libs) {
    await lib.batch(lib.tok, mediums.slice(0, 50))
    await lib.encode(lib.tok, shorts[0])
  }

  const env = {
    node: process.version,
    cpus: os.cpus().length,
    loadavg: os.loadavg().map((x) => x.toFixed(2)).join(' '),
    uvThreadpool: process.env.UV_THREADPOOL_SIZE ?? '4 (default)',
    yieldtokThreads: process.env.YIELDTOK_THREADS ?? 'one per core',
    fixture: FIXTURE,
    engine,
    source: src.source,
    docTokens,
    docChars: doc.length,
    shortTokens,
    mediumTokens,
    rounds: ROUNDS,
  }
  console.log(JSON.stringify(env))

  const R = {}
  for (const lib of libs) R[lib.name] = { item1: [], wall: [], cpu: [], gap: [], main: [], idsWall: [], idsCpu: [], item2: [], item3: { 0: [], 1: [], 4: [] }, batch: [] }
  const control = { maxDelay: [], maxGap: [] }
  const slowRounds = Math.max(1, Math.ceil(ROUNDS / 2)) // the pure-JS library takes seconds a call

  for (let r = 0; r < ROUNDS; r++) {
    // Control: the same measurement with nothing running (the machine's own noise).
    const idle = await loopDelay(() => sleep(300))
    control.maxDelay.push(idle.maxDelay)
    control.maxGap.push(idle.maxGap)
    for (const lib of libs) {
      if (!lib.async && r >= slowRounds) continue
      const x = R[lib.name]
      // 1 + 4a: the document, awaited.
      const m = await loopDelay(() => lib.encode(lib.tok, doc))
      x.item1.push(m.maxDelay)
      x.gap.push(m.maxGap)
      x.wall.push(m.wall)
      x.cpu.push(m.cpu)
      await sleep(20)
      x.main.push(await mainThreadMs(lib, doc))
      await sleep(20)
      if (lib === ours) {
        // 4a': ids only (encodeIds, the fast engine).
        const c0 = process.cpuUsage()
        const t0 = now()
        await ours.tok.encodeIds(doc)
        x.idsWall.push(now() - t0)
        x.idsCpu.push(cpuMs(c0))
        await sleep(20)
      }
      // 4b: batch of 1000 medium texts.
      const t0 = now()
      await lib.batch(lib.tok, mediums)
      x.batch.push(now() - t0)
      await sleep(20)
      // 2: short requests while 4 long ones are in flight.
      x.item2.push(await shortWhileLong(lib, doc, shorts))
      await sleep(20)
      // 3: libuv pool latency alone, with 1 and with 4 long encodes.
      for (const n of [0, 1, 4]) x.item3[n].push(await poolLatency(lib, doc, n, tmpFile))
      await sleep(20)
    }
    process.stderr.write(`round ${r + 1}/${ROUNDS} done\n`)
  }
  fs.rmSync(tmpFile, { force: true })

  // ---- report ----
  const f = (x) => (x === undefined ? '-' : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2))
  const S = {}
  for (const lib of libs) {
    const x = R[lib.name]
    S[lib.name] = {
      maxDelay: median(x.item1),
      maxGap: median(x.gap),
      docWall: median(x.wall),
      docCpu: median(x.cpu),
      main: median(x.main),
      idsWall: x.idsWall.length ? median(x.idsWall) : undefined,
      idsCpu: x.idsCpu.length ? median(x.idsCpu) : undefined,
      batchWall: median(x.batch),
      shortP50: median(x.item2.map((y) => y.p50)),
      shortP99: median(x.item2.map((y) => y.p99)),
      shortMax: median(x.item2.map((y) => y.max)),
      longsDone: median(x.item2.map((y) => y.longsDone)),
      pbkdf2: [0, 1, 4].map((n) => median(x.item3[n].map((y) => y.pbkdf2))),
      readFile: [0, 1, 4].map((n) => median(x.item3[n].map((y) => y.readFile))),
      rounds: x.item1.length,
    }
  }
  const names = libs.map((l) => l.name)
  const Y = S.yieldtok
  const rows = [
    ['1. doc awaited: max loop delay (ms, histogram)', (s) => s.maxDelay, 'lower'],
    ['1. doc awaited: max 1-ms heartbeat gap (ms)', (s) => s.maxGap, 'lower'],
    ['1. main-thread time in the call + getting the ids (ms)', (s) => s.main, 'lower'],
    ['2. short p50 latency (ms), 4 long in flight', (s) => s.shortP50, 'lower'],
    ['2. short p99 latency (ms), 4 long in flight', (s) => s.shortP99, 'lower'],
    ['2. short max latency (ms)', (s) => s.shortMax, 'lower'],
    ['2. the 4 long done after (ms)', (s) => s.longsDone, 'lower'],
    ['3. pbkdf2 latency alone (ms)', (s) => s.pbkdf2[0], 'lower'],
    ['3. pbkdf2 latency, 1 long encode running (ms)', (s) => s.pbkdf2[1], 'lower'],
    ['3. pbkdf2 latency, 4 long encodes running (ms)', (s) => s.pbkdf2[2], 'lower'],
    ['3. readFile latency alone (ms)', (s) => s.readFile[0], 'lower'],
    ['3. readFile latency, 1 long encode running (ms)', (s) => s.readFile[1], 'lower'],
    ['3. readFile latency, 4 long encodes running (ms)', (s) => s.readFile[2], 'lower'],
    [`4. doc (${docTokens} tokens) until ids in JS: wall (ms)`, (s) => s.docWall, 'lower'],
    ['4. doc: process CPU (ms)', (s) => s.docCpu, 'lower'],
    [`4. doc, ids only (yieldtok encodeIds, ${engine}): wall (ms)`, (s) => s.idsWall ?? s.docWall, 'lower'],
    ['4. doc, ids only: process CPU (ms)', (s) => s.idsCpu ?? s.docCpu, 'lower'],
    [`4. encodeBatch 1000 x ~${mediumTokens} tokens: wall (ms)`, (s) => s.batchWall, 'lower'],
  ]
  const head = ['measure (median)', ...names, ...names.slice(1).map((n) => `${n} / yieldtok`)]
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`]
  for (const [label, get] of rows) {
    const vals = names.map((n) => get(S[n]))
    const ratios = names.slice(1).map((n) => {
      const a = get(S[n])
      const b = get(Y)
      return b > 0 ? `${(a / b).toFixed(2)}x` : '-'
    })
    lines.push(`| ${label} | ${vals.map(f).join(' | ')} | ${ratios.join(' | ')} |`)
  }
  console.log(lines.join('\n'))
  const ctl = { maxDelay: median(control.maxDelay), maxGap: median(control.maxGap) }
  console.log(`control, nothing running for 300 ms: max loop delay ${f(ctl.maxDelay)} ms, max heartbeat gap ${f(ctl.maxGap)} ms (the machine's noise floor)`)

  const hf = S['tokenizers (npm)']
  const checks = [
    ['1. max loop delay <= 5 ms', Y.maxDelay <= 5, `${f(Y.maxDelay)} ms (tokenizers npm ${f(hf.maxDelay)} ms)`],
    ['2. short p99 <= 5 ms', Y.shortP99 <= 5, `${f(Y.shortP99)} ms (tokenizers npm ${f(hf.shortP99)} ms)`],
    ['3. pbkdf2 not delayed by 4 long encodes (<= 2x alone)', Y.pbkdf2[2] <= 2 * Y.pbkdf2[0], `${f(Y.pbkdf2[2])} vs ${f(Y.pbkdf2[0])} ms alone (tokenizers npm ${f(hf.pbkdf2[2])} ms)`],
    ['4a. doc >= 1.7x faster than tokenizers npm', hf.docWall / Y.docWall >= 1.7, `${(hf.docWall / Y.docWall).toFixed(2)}x with encode (offsets too), ${(hf.docWall / Y.idsWall).toFixed(2)}x with encodeIds`],
    ['4b. encodeBatch at least as fast as tokenizers npm', hf.batchWall / Y.batchWall >= 1, `${(hf.batchWall / Y.batchWall).toFixed(2)}x`],
  ]
  for (const [what, ok, detail] of checks) console.log(`${ok ? 'PASS' : 'MISS'} ${what}: ${detail}`)
  console.log(`loadavg after: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`)
  if (JSON_OUT && JSON_OUT !== true) fs.writeFileSync(JSON_OUT, JSON.stringify({ env, summary: S, control, raw: R, checks }, null, 1))
  process.exit(0)
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
