// Encode a long prompt on Node's event loop without blocking it, next to short requests, then
// cancel an encode with an AbortSignal.
//
//   node examples/node/encode.mjs .cache/fixtures/qwen3
//
// `await tok.encode(...)` runs the text in exact pieces on yieldtok's own threads (not libuv's),
// so timers and other requests keep running meanwhile; the ids equal the blocking
// `encodeSync`'s. The program checks that and exits non-zero otherwise. (From a checkout it loads
// bindings-node, built with `cd bindings-node && npm ci && npx napi build --platform --release`;
// an installed package is `import { Tokenizer } from 'yieldtok'`.)
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { Tokenizer } = require('../../bindings-node/yieldtok.js')

const dir = process.argv[2]
if (!dir) throw new Error('usage: node examples/node/encode.mjs TOKENIZER_DIR')
const tok = await Tokenizer.load(dir) // parsed off the loop

const long = 'The quick brown fox jumps over the lazy dog. Ünïcode, 東京, 🙂.\n'.repeat(8000)
const shorts = ['Hello, world!', 'How many tokens is this?', 'def f(x):\n    return x + 1\n']

// A 1 ms ticker on the same loop: its longest gap shows whether anything blocked the loop.
let last = performance.now()
let worst = 0
const ticker = setInterval(() => {
  const now = performance.now()
  worst = Math.max(worst, now - last)
  last = now
}, 1)

const started = performance.now()
const [longEnc, ...shortEncs] = await Promise.all([tok.encode(long), ...shorts.map((s) => tok.encode(s))])
const elapsed = performance.now() - started
clearInterval(ticker)

assert.deepEqual(longEnc.ids, tok.encodeSync(long).ids, 'async ids must equal the blocking encode')
shorts.forEach((s, i) => {
  assert.deepEqual(shortEncs[i].ids, tok.encodeSync(s).ids)
  console.log(`short: ${String(shortEncs[i].length).padStart(3)} tokens  ${JSON.stringify(s)}`)
})
console.log(
  `long:  ${longEnc.length} tokens from ${Math.round(long.length / 1024)} K chars in ${elapsed.toFixed(1)} ms; ` +
    `the loop's longest pause meanwhile: ${worst.toFixed(1)} ms`,
)

// Cancellation: aborting the signal stops the pieces not yet started and rejects with AbortError.
const controller = new AbortController()
const huge = tok.encode(long.repeat(20), { signal: controller.signal })
controller.abort()
try {
  await huge
  console.log('finished before the abort')
} catch (e) {
  assert.equal(e.name, 'AbortError')
  console.log(`cancelled: ${e.name} (${e.code})`)
}
