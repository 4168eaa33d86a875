// Tokenizer.load(pathOrDir, { signal }): the parse runs off the event loop (issue 17 item 4,
// issue 14: fromFile/fromDir block the loop 0.1-1.5 s). A loop-delay probe while loading qwen3
// keeps ticking; the sync form's stall is printed beside it for comparison only.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import path from 'node:path'
import { fixtureDir, yieldtok } from './helpers.mjs'

const { Tokenizer, AbortError } = yieldtok()

/** Run `f` (sync or async) while probing the loop; its result, wall ms, max loop delay ms. */
async function probe(f) {
  const h = monitorEventLoopDelay({ resolution: 1 })
  let last = performance.now()
  let maxGap = 0
  const iv = setInterval(() => {
    const now = performance.now()
    maxGap = Math.max(maxGap, now - last)
    last = now
  }, 2)
  h.enable()
  await new Promise((r) => setTimeout(r, 20))
  const t0 = performance.now()
  const value = await f()
  const wall = performance.now() - t0
  await new Promise((r) => setTimeout(r, 10))
  h.disable()
  clearInterval(iv)
  return { value, wall, maxGap, maxDelay: h.max / 1e6 }
}

test('load() parses off the event loop: the loop keeps ticking', async (t) => {
  const dir = fixtureDir('qwen3')
  Tokenizer.fromDir(dir) // warm: file cache, scheduler threads
  const sync = await probe(() => Tokenizer.fromDir(dir))
  const runs = []
  for (let i = 0; i < 3; i++) runs.push(await probe(() => Tokenizer.load(dir)))
  const best = runs.reduce((a, b) => (a.maxGap < b.maxGap ? a : b))
  const fmt = (r) => `wall ${r.wall.toFixed(0)} ms, max timer gap ${r.maxGap.toFixed(1)} ms, max loop delay ${r.maxDelay.toFixed(1)} ms`
  t.diagnostic(`fromDir (sync): ${fmt(sync)}`)
  for (const r of runs) t.diagnostic(`load (async):   ${fmt(r)}`)
  for (const r of runs) {
    assert.ok(r.value instanceof Tokenizer)
    assert.equal(r.value.origin, dir)
  }
  // Generous (2 noisy cores, debug builds); a load on the loop stalls for its whole wall time.
  assert.ok(best.maxGap < 100, `max timer gap ${best.maxGap.toFixed(1)} ms during load() (${fmt(best)})`)
  const tok = best.value
  const text = 'Hello world, this is a test of the async load.'
  assert.deepEqual(Array.from((await tok.encode(text)).ids), Array.from(Tokenizer.fromDir(dir).encodeSync(text).ids))
  // chat template from tokenizer_config.json came along (a folder load)
  assert.equal(typeof (await tok.applyChatTemplate([{ role: 'user', content: 'hi' }], { tokenize: false })), 'string')
})

test('load() takes a tokenizer.json file too, and rejects like the sync forms', async () => {
  const file = path.join(fixtureDir('qwen3'), 'tokenizer.json')
  const tok = await Tokenizer.load(file)
  assert.equal(tok.origin, file)
  assert.equal(await tok.count('hello world'), Tokenizer.fromFile(file).countSync('hello world'))
  await assert.rejects(Tokenizer.load('/nonexistent/tokenizer.json'), (e) => e instanceof Error && /\/nonexistent\/tokenizer\.json/.test(e.message))
  await assert.rejects(Tokenizer.load(42), TypeError)
  await assert.rejects(Tokenizer.load(file, { signal: 3 }), TypeError)
  await assert.rejects(Tokenizer.load(file, 'x'), TypeError)
})

test('load() with an AbortSignal rejects with an AbortError', async () => {
  const dir = fixtureDir('gemma3') // the slowest load
  const ac = new AbortController()
  ac.abort(new Error('before'))
  await assert.rejects(Tokenizer.load(dir, { signal: ac.signal }), (e) => e instanceof AbortError && e.name === 'AbortError' && e.cause?.message === 'before')
  const ac2 = new AbortController()
  const p = Tokenizer.load(dir, { signal: ac2.signal })
  setTimeout(() => ac2.abort(), 5)
  const t0 = performance.now()
  await assert.rejects(p, AbortError)
  assert.ok(performance.now() - t0 < 1000, 'the abort rejects at once, without waiting for the load')
  // an unaborted signal: loads
  const tok = await Tokenizer.load(dir, { signal: new AbortController().signal })
  assert.ok((await tok.count('hello')) > 0)
})
