// AbortSignal: the promise rejects with an AbortError, the remaining pieces are cancelled (the
// process stops burning CPU), and the tokenizer keeps working.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { fixtureDir, yieldtok, mixedText, workerCpuMs } from './helpers.mjs'

const { Tokenizer, AbortError } = yieldtok()
let tok
let big
before(() => {
  tok = Tokenizer.fromDir(fixtureDir('qwen3'))
  big = mixedText(12_000_000, 3) // several CPU-seconds of work
})

/** CPU ms the work uses during `ms` from now: the core's workers' (Linux), else the process's. */
async function cpuDuring(ms) {
  const w0 = workerCpuMs()
  const c0 = process.cpuUsage()
  await sleep(ms)
  if (w0 !== null) return workerCpuMs() - w0
  const u = process.cpuUsage(c0)
  return (u.user + u.system) / 1000
}

function isAbort(e, reason) {
  assert.ok(e instanceof AbortError, `expected an AbortError, got ${e}`)
  assert.ok(e instanceof Error)
  assert.equal(e.name, 'AbortError')
  assert.equal(e.code, 'ABORT_ERR')
  if (reason !== undefined) assert.equal(e.cause, reason)
  return true
}

test('abort stops an encode in flight', async () => {
  const ac = new AbortController()
  const t0 = performance.now()
  const p = tok.encode(big, { signal: ac.signal })
  const running = await cpuDuring(200)
  assert.ok(running > 0, 'the encode is running')
  ac.abort()
  await assert.rejects(p, (e) => isAbort(e, ac.signal.reason))
  const rejectedAfter = performance.now() - t0
  // Pieces already running finish (about a millisecond each); nothing else runs afterwards.
  // Work that went on would burn about twice `running` in these 400 ms; what may remain is
  // noise (thread wake-ups, pieces finishing on a loaded machine), bounded by a quarter of that.
  await sleep(50)
  const burnt = await cpuDuring(400)
  assert.ok(burnt < Math.max(40, running / 2), `the workers used ${burnt.toFixed(1)} ms of CPU in the 400 ms after the abort (${running.toFixed(1)} ms in 200 ms before it)`)
  assert.ok(rejectedAfter < 5000, `rejected ${rejectedAfter.toFixed(0)} ms after the start`)
  // Still works, and gives the right answer.
  const small = 'Hello world, still working.'
  assert.deepEqual(Array.from((await tok.encode(small)).ids), Array.from(tok.encodeSync(small).ids))
})

test('abort with a reason; the reason is the cause', async () => {
  const ac = new AbortController()
  const p = tok.encode(big, { signal: ac.signal })
  setTimeout(() => ac.abort(new Error('enough')), 20)
  await assert.rejects(p, (e) => isAbort(e) && e.cause.message === 'enough')
})

test('an already aborted signal rejects at once, without work', async () => {
  const signal = AbortSignal.abort()
  await assert.rejects(tok.encode(big, { signal }), (e) => isAbort(e, signal.reason))
  await assert.rejects(tok.encodeBatch(['a', 'b'], { signal }), (e) => isAbort(e))
  await assert.rejects(tok.count('a', { signal }), (e) => isAbort(e))
  await assert.rejects(tok.encodeIds('a', { signal }), (e) => isAbort(e))
})

test('abort cancels encodeBatch and count', async () => {
  const texts = Array.from({ length: 200 }, (_, i) => mixedText(40_000, i))
  let ac = new AbortController()
  let p = tok.encodeBatch(texts, { signal: ac.signal })
  setTimeout(() => ac.abort(), 10)
  await assert.rejects(p, (e) => isAbort(e))
  ac = new AbortController()
  p = tok.count(big, { signal: ac.signal })
  setTimeout(() => ac.abort(), 10)
  await assert.rejects(p, (e) => isAbort(e))
  await sleep(50)
  const burnt = await cpuDuring(300)
  assert.ok(burnt < 40, `the workers used ${burnt.toFixed(1)} ms of CPU after the aborts`)
  assert.equal(await tok.count('one two three', { addSpecialTokens: false }), 3)
})

test('a signal that never fires changes nothing, and its listener is removed', async () => {
  const ac = new AbortController()
  const text = mixedText(50_000, 9)
  const enc = await tok.encode(text, { signal: ac.signal })
  assert.deepEqual(Array.from(enc.ids), Array.from(tok.encodeSync(text).ids))
  ac.abort() // after completion: no effect, no unhandled rejection
  await sleep(10)
})

test('aborting one request leaves concurrent ones intact', async () => {
  const ac = new AbortController()
  const text = mixedText(300_000, 11)
  const doomed = tok.encode(big, { signal: ac.signal })
  const kept = tok.encode(text)
  setTimeout(() => ac.abort(), 5)
  await assert.rejects(doomed, (e) => isAbort(e))
  assert.deepEqual(Array.from((await kept).ids), Array.from(tok.encodeSync(text).ids))
})

test('many calls share one signal: no MaxListenersExceededWarning, all abort, no listener left', async () => {
  const { getEventListeners } = await import('node:events')
  const warnings = []
  const onWarning = (w) => warnings.push(w)
  process.on('warning', onWarning)
  try {
    // Settled calls remove their share: the listener count goes back to zero.
    const ac0 = new AbortController()
    const done = await Promise.all(Array.from({ length: 50 }, (_, i) => tok.count(`short text ${i}`, { signal: ac0.signal })))
    assert.equal(done.length, 50)
    assert.equal(getEventListeners(ac0.signal, 'abort').length, 0, 'listeners left on a signal after its calls settled')

    // 50 calls pending on one signal: at most one listener, then all reject with AbortError.
    const ac = new AbortController()
    const calls = Array.from({ length: 50 }, (_, i) => tok.encode(big, { signal: ac.signal }))
    assert.ok(getEventListeners(ac.signal, 'abort').length <= 1, `${getEventListeners(ac.signal, 'abort').length} listeners for 50 calls`)
    ac.abort()
    const settled = await Promise.allSettled(calls)
    for (const s of settled) {
      assert.equal(s.status, 'rejected')
      isAbort(s.reason, ac.signal.reason)
    }
    assert.equal(getEventListeners(ac.signal, 'abort').length, 0)
    await sleep(10) // warnings are emitted on a later tick
    const bad = warnings.filter((w) => w.name === 'MaxListenersExceededWarning')
    assert.deepEqual(bad.map(String), [], 'no MaxListenersExceededWarning')
  } finally {
    process.off('warning', onWarning)
  }
})
