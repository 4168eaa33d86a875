#!/usr/bin/env node
// Truncation and padding, yieldtok against the `tokenizers` npm package in one run (issue 14's
// targets, measured from Node): (a) one long document (~1 MB of real conversation text) with
// `setTruncation(512)`, awaited `encode`; (b) 1000 texts of ~2 KB with `setTruncation(128)` and
// `setPadding({ maxLength: 128 })`, awaited `encodeBatch`. Ids, masks and offsets are checked
// equal first (offsets converted: the npm package counts code points, yieldtok UTF-16 units).
// Process CPU and wall time per call, medians of `--rounds` (default 5).
//
//   node bench/truncation.js [--fixture qwen3] [--rounds 5]
'use strict'
const fs = require('node:fs')
const path = require('node:path')

const PKG = path.resolve(__dirname, '..')
const ROOT = path.resolve(PKG, '..')
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`)
  return i < 0 ? dflt : process.argv[i + 1]
}
const ROUNDS = Number(arg('rounds', 5))
const FIXTURE = arg('fixture', 'qwen3')
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]

function texts() {
  const f = [path.join(ROOT, '..', 'shared', 'data', 'tau-airline-conversations.jsonl'), '/work/shared/data/tau-airline-conversations.jsonl'].find((p) => fs.existsSync(p))
  if (!f) throw new Error('no shared/data/tau-airline-conversations.jsonl: this bench measures real text only')
  const out = []
  for (const line of fs.readFileSync(f, 'utf8').split('\n')) {
    if (!line) continue
    for (const m of JSON.parse(line).messages) out.push(typeof m.content === 'string' && m.content ? m.content : JSON.stringify(m.tool_calls ?? m))
  }
  return out
}

/** CPU ms and wall ms of `await fn()`, medians over ROUNDS (after one warm-up call). */
async function measure(fn) {
  await fn()
  const cpu = []
  const wall = []
  for (let r = 0; r < ROUNDS; r++) {
    const c0 = process.cpuUsage()
    const t0 = performance.now()
    await fn()
    wall.push(performance.now() - t0)
    const c = process.cpuUsage(c0)
    cpu.push((c.user + c.system) / 1000)
  }
  return { cpu: median(cpu), wall: median(wall) }
}

function toUtf16(text, pairs) {
  const index = [0]
  for (const ch of text) index.push(index[index.length - 1] + ch.length)
  return pairs.map(([s, e]) => [index[s], index[e]])
}

function check(ours, ref, text, what) {
  const same = (a, b, f) => {
    if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`${what}: ${f} differ`)
  }
  same(Array.from(ours.ids), ref.getIds(), 'ids')
  same(Array.from(ours.attentionMask), ref.getAttentionMask(), 'attention masks')
  same(ours.offsetPairs(), toUtf16(text, ref.getOffsets()), 'offsets')
}

async function main() {
  const dir = path.join(process.env.YIELDTOK_FIXTURES || path.join(ROOT, '.cache', 'fixtures'), FIXTURE)
  const { Tokenizer } = require(PKG)
  const HF = require(require.resolve('tokenizers', { paths: [PKG] })).Tokenizer
  const ours = Tokenizer.fromFile(path.join(dir, 'tokenizer.json'))
  const hf = HF.fromFile(path.join(dir, 'tokenizer.json'))
  const all = texts()
  let doc = all.join('\n\n')
  while (doc.length < 1_000_000) doc += '\n\n' + doc
  doc = doc.slice(0, 1_000_000)
  const flat = all.join('\n')
  const batch = []
  for (let i = 0; batch.length < 1000; i += 1999) batch.push(flat.slice(i % (flat.length - 2500), (i % (flat.length - 2500)) + 2100))

  const rows = []
  // (a) one long document, truncated to 512
  ours.setTruncation(512)
  hf.setTruncation(512)
  check(await ours.encode(doc), await hf.encode(doc), doc, 'document, setTruncation(512)')
  rows.push(['1 MB document, setTruncation(512), encode', await measure(() => ours.encode(doc)), await measure(() => hf.encode(doc))])
  // (b) 1000 texts truncated and padded to 128
  ours.setTruncation(128)
  hf.setTruncation(128)
  ours.setPadding({ maxLength: 128 })
  hf.setPadding({ maxLength: 128 })
  const [a, b] = [await ours.encodeBatch(batch), await hf.encodeBatch(batch)]
  batch.forEach((t, i) => check(a[i], b[i], t, `batch item ${i}`))
  rows.push(['1000 x 2 KB, truncated + padded to 128, encodeBatch', await measure(() => ours.encodeBatch(batch)), await measure(() => hf.encodeBatch(batch))])

  console.log(`fixture ${FIXTURE}, ${ROUNDS} rounds, medians; ids, masks and offsets checked equal first`)
  for (const [name, y, h] of rows) {
    console.log(`${name}: yieldtok ${y.wall.toFixed(2)} ms wall / ${y.cpu.toFixed(1)} ms CPU; tokenizers (npm) ${h.wall.toFixed(2)} ms / ${h.cpu.toFixed(1)} ms CPU; ${(h.wall / y.wall).toFixed(1)}x wall, ${(h.cpu / y.cpu).toFixed(1)}x per CPU-s`)
  }
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
