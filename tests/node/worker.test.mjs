// worker_threads terminated in the middle of long encodes (issue 17, item 5): the work they
// started is aborted when their environment tears down, so RSS levels off over rounds. Before,
// each terminated worker's encodes ran to the end on the core's pool, holding the job, the text,
// the result and the worker's tokenizer, and RSS grew ~130-150 MB per round of four workers with
// two 1 MB uncuttable encodes each, without levelling off (release: 336 -> 1503 MB in 8 rounds;
// 193 -> 245 MB with the fix).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import path from 'node:path'
import { PKG, fixtureDir } from './helpers.mjs'

const ROUNDS = 7

const script = `
const { Worker } = require('node:worker_threads')
const src = \`
const { parentPort, workerData } = require('node:worker_threads')
const { Tokenizer } = require(workerData.pkg)
const tok = Tokenizer.fromDir(workerData.dir)
const text = 'a'.repeat(workerData.bytes) // uncuttable: one long piece, seconds of work left at terminate()
tok.encode(text)
tok.encode(text)
parentPort.postMessage('started')
\`
const workerData = { pkg: ${JSON.stringify(path.join(PKG, 'yieldtok.js'))}, dir: ${JSON.stringify(fixtureDir('qwen3'))}, bytes: 1 << 20 }
;(async () => {
  const rss = []
  for (let r = 0; r < ${ROUNDS}; r++) {
    const ws = []
    for (let i = 0; i < 4; i++) {
      const w = new Worker(src, { eval: true, workerData })
      ws.push(new Promise((res, rej) => { w.once('message', () => res(w)); w.once('error', rej) }))
    }
    const started = await Promise.all(ws)
    await Promise.all(started.map((w) => w.terminate()))
    await new Promise((r) => setTimeout(r, 200))
    globalThis.gc()
    rss.push(Math.round(process.memoryUsage().rss / 1048576))
  }
  console.log(JSON.stringify(rss))
})()
`

test('terminating workers mid-encode: RSS levels off over rounds', () => {
  const out = execFileSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8', timeout: 600_000 })
  const rss = JSON.parse(out.trim().split('\n').pop())
  // The lower of the last two rounds (one round's allocator spike is not growth) against round 3.
  const growth = Math.min(rss[ROUNDS - 1], rss[ROUNDS - 2]) - rss[2]
  console.log(`RSS (MB) after each of ${ROUNDS} rounds of 4 workers x two 1 MB encodes terminated in flight: ${rss.join(', ')}; growth since round 3: ${growth} MB`)
  // Generous: allocator and V8 noise is tens of MB; the leak was 130-150 MB per round.
  assert.ok(growth < 60 * (ROUNDS - 3), `RSS grew ${growth} MB since round 3: ${rss.join(', ')}`)
})
