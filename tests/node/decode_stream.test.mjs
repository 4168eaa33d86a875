// DecodeStream against `tokenizers`' own stream state machine: the core writes, per fixture,
// target/conformance/decode_stream/<fixture>.json — the ids of every conformance text stepped
// through `tokenizers::tokenizer::step_decode_stream` one id (with and without special tokens) or
// three ids at a time, and what each step returned (or its error). Every stream is replayed
// here, step by step and through `stepMany` (all streams of a fixture at once, one call per
// step). Skipped when absent, unless YIELDTOK_REQUIRE_CONFORMANCE=1.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { ROOT, NAMES, fixtureDir, yieldtok } from './helpers.mjs'

const { Tokenizer, DecodeStream } = yieldtok()
const DIR = path.join(process.env.YIELDTOK_CONFORMANCE_DIR || path.join(ROOT, 'target', 'conformance'), 'decode_stream')
const REQUIRED = process.env.YIELDTOK_REQUIRE_CONFORMANCE === '1'
const files = fs.existsSync(DIR) ? fs.readdirSync(DIR).filter((f) => f.endsWith('.json')).sort() : []

test('decode-stream vectors', (t) => {
  if (files.length > 0) return
  if (REQUIRED) assert.fail(`no decode-stream vectors in ${DIR} (cargo run -p yieldtok-cli --release -- conformance --out target/conformance)`)
  t.skip(`no vectors in ${DIR}`)
})

/** What step `i` of vector `v` is given. */
const chunkOf = (v, i) => v.ids.slice(i * v.chunk, (i + 1) * v.chunk)

for (const file of files) {
  const fixture = path.basename(file, '.json')
  test(`DecodeStream equals tokenizers: ${fixture}`, () => {
    const vectors = JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8'))
    assert.ok(vectors.length > 0)
    const dir = NAMES.includes(fixture) ? fixtureDir(fixture) : path.join(path.dirname(fixtureDir('qwen3')), fixture)
    const tok = Tokenizer.fromDir(dir)
    let nonNull = 0
    for (const [k, v] of vectors.entries()) {
      const s = new DecodeStream({ skipSpecialTokens: v.skip_special_tokens })
      assert.equal(s.skipSpecialTokens, v.skip_special_tokens)
      v.steps.forEach((want, i) => {
        const ids = chunkOf(v, i)
        const what = `${fixture} vector ${k} step ${i} (${ids})`
        if (want !== null && typeof want === 'object') {
          assert.throws(() => s.step(tok, v.chunk === 1 ? ids[0] : ids), { message: want.error }, what)
        } else {
          assert.equal(s.step(tok, v.chunk === 1 ? ids[0] : Uint32Array.from(ids)), want, what)
          if (want !== null) nonNull++
        }
      })
    }
    assert.ok(nonNull > 100, `${fixture}: the vectors return text (${nonNull} non-null steps)`)

    // stepMany: every vector's stream at once, one call per step, equals the steps above.
    const clean = vectors.filter((v) => v.steps.every((x) => x === null || typeof x === 'string'))
    const streams = clean.map((v) => new DecodeStream({ skipSpecialTokens: v.skip_special_tokens }))
    const longest = Math.max(...clean.map((v) => v.steps.length))
    for (let i = 0; i < longest; i++) {
      const live = clean.map((v, k) => [v, k]).filter(([v]) => i < v.steps.length)
      const got = DecodeStream.stepMany(tok, live.map(([, k]) => streams[k]), live.map(([v]) => chunkOf(v, i)))
      assert.deepEqual(got, live.map(([v]) => v.steps[i]), `${fixture}: stepMany step ${i}`)
    }
  })
}

test('DecodeStream: arguments and errors', () => {
  const tok = Tokenizer.fromDir(fixtureDir('qwen3'))
  const ids = tok.encodeSync('Hello 東京 🙂').ids
  const a = new DecodeStream()
  const b = new DecodeStream({ skipSpecialTokens: true })
  assert.equal(Array.from(ids).map((id) => a.step(tok, id) ?? '').join(''), tok.decodeSync(ids, { skipSpecialTokens: false }))
  assert.throws(() => DecodeStream.stepMany(tok, [b, b], [1, 2]), /appears twice/)
  assert.throws(() => DecodeStream.stepMany(tok, [b], [1, 2]), RangeError)
  assert.throws(() => DecodeStream.stepMany(tok, [b, {}], [1, 2]), { name: 'TypeError', message: /streams\[1\]/ })
  // a bad id anywhere is refused before any stream moves
  const [c, d, fresh] = [new DecodeStream(), new DecodeStream(), new DecodeStream()]
  assert.throws(() => DecodeStream.stepMany(tok, [c, d], [ids[0], -1]), RangeError)
  assert.equal(c.step(tok, ids[0]), fresh.step(tok, ids[0]))
  assert.throws(() => b.step(tok, -1), RangeError)
  assert.throws(() => b.step({}, 1), TypeError)
  assert.throws(() => new DecodeStream({ skipSpecialTokens: 'yes' }), TypeError)
  assert.deepEqual(DecodeStream.stepMany(tok, [], []), [])
  // as tokenizers: a seeded window's first step returns the seed's text with the new id's
  const seeded = new DecodeStream({ ids: ids.slice(0, 2) })
  assert.equal(seeded.step(tok, ids[2]), tok.decodeSync(ids.slice(0, 3), { skipSpecialTokens: false }))
})
