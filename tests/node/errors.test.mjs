// Bad inputs reject (async) or throw (sync) with clear errors; nothing crashes the process, and
// the tokenizer keeps working afterwards.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fixtureDir, yieldtok } from './helpers.mjs'

const { Tokenizer } = yieldtok()
let tok
let dir
let tmp
const HELLO = 'Hello world'
let helloIds

before(() => {
  dir = fixtureDir('qwen3')
  tok = Tokenizer.fromDir(dir)
  helloIds = Array.from(tok.encodeSync(HELLO).ids)
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'yieldtok-node-'))
})
after(() => fs.rmSync(tmp, { recursive: true, force: true }))

async function stillWorks() {
  assert.deepEqual(Array.from((await tok.encode(HELLO)).ids), helloIds)
  assert.deepEqual(Array.from(tok.encodeSync(HELLO).ids), helloIds)
  assert.equal(await tok.decode(helloIds), HELLO)
}

test('missing file or folder', async () => {
  const missing = path.join(tmp, 'nope', 'tokenizer.json')
  assert.throws(() => Tokenizer.fromFile(missing), (e) => e instanceof Error && e.message.includes(missing) && /cannot read/.test(e.message))
  assert.throws(() => Tokenizer.fromDir(tmp), (e) => e instanceof Error && /tokenizer\.json/.test(e.message) && e.message.includes(tmp))
  assert.throws(() => Tokenizer.fromFile(tmp), (e) => e instanceof Error && e.message.includes(tmp))
  await stillWorks()
})

test('corrupt tokenizer.json', async () => {
  const bad = path.join(tmp, 'bad.json')
  const cases = [
    '',
    '{',
    'null',
    '[]',
    '{"model": 3}',
    '{"version": "1.0", "model": {"type": "BPE", "vocab": {"a": "x"}, "merges": []}}',
    fs.readFileSync(path.join(dir, 'tokenizer.json'), 'utf8').slice(0, 5000),
  ]
  for (const json of cases) {
    assert.throws(() => Tokenizer.fromJSON(json), (e) => e instanceof Error && /invalid tokenizer definition/.test(e.message), JSON.stringify(json.slice(0, 40)))
    fs.writeFileSync(bad, json)
    assert.throws(() => Tokenizer.fromFile(bad), (e) => e instanceof Error && /invalid tokenizer definition/.test(e.message) && e.message.includes(bad))
  }
  assert.throws(() => Tokenizer.fromJSON(new Uint8Array([0x7b, 0xff, 0xfe])), /not valid UTF-8/)
  assert.throws(() => Tokenizer.fromJSON(Buffer.from('{"nope": 1}')), /invalid tokenizer definition/)
  const sub = path.join(tmp, 'model')
  fs.mkdirSync(sub)
  fs.copyFileSync(path.join(dir, 'tokenizer.json'), path.join(sub, 'tokenizer.json'))
  fs.writeFileSync(path.join(sub, 'tokenizer_config.json'), '{broken')
  assert.throws(() => Tokenizer.fromDir(sub), /tokenizer_config\.json/)
  await stillWorks()
})

test('fromJSON accepts a string, a Uint8Array, a Buffer and an ArrayBuffer', async () => {
  const text = fs.readFileSync(path.join(dir, 'tokenizer.json'), 'utf8')
  const bytes = fs.readFileSync(path.join(dir, 'tokenizer.json'))
  for (const src of [text, bytes, new Uint8Array(bytes), bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)]) {
    const t = Tokenizer.fromJSON(src)
    assert.deepEqual(Array.from(t.encodeSync(HELLO).ids), helloIds)
    assert.equal(t.origin, null)
  }
})

const NOT_STRINGS = [undefined, null, 42, 1n, true, {}, [], ['a'], Symbol('s'), () => 'x', new String('boxed'), Buffer.from('x'), new Uint8Array(2)]

test('non-string text rejects (async) / throws (sync) a TypeError', async () => {
  for (const v of NOT_STRINGS) {
    const label = typeof v === 'symbol' ? 'symbol' : typeof v
    // async methods never throw synchronously
    let p
    assert.doesNotThrow(() => {
      p = tok.encode(v)
    })
    await assert.rejects(p, TypeError, label)
    await assert.rejects(tok.count(v), TypeError)
    await assert.rejects(tok.encodeIds(v), TypeError)
    assert.throws(() => tok.encodeIdsSync(v), TypeError)
    await assert.rejects(tok.encodeBatch([HELLO, v]), (e) => e instanceof TypeError && /texts\[1\]/.test(e.message))
    assert.throws(() => tok.encodeSync(v), TypeError)
    assert.throws(() => tok.countSync(v), TypeError)
    assert.throws(() => tok.encodeBatchSync([v]), TypeError)
  }
  for (const v of [undefined, null, 'abc', 42, {}, { length: 2 }]) {
    await assert.rejects(tok.encodeBatch(v), TypeError)
    assert.throws(() => tok.encodeBatchSync(v), TypeError)
  }
  for (const v of [42, null, {}, true]) assert.throws(() => Tokenizer.fromJSON(v), TypeError)
  for (const v of [42, null, {}]) {
    assert.throws(() => Tokenizer.fromFile(v), TypeError)
    assert.throws(() => Tokenizer.fromDir(v), TypeError)
  }
  assert.throws(() => new Tokenizer({}), TypeError)
  await stillWorks()
})

test('bad options', async () => {
  await assert.rejects(tok.encode(HELLO, 5), TypeError)
  await assert.rejects(tok.encode(HELLO, { addSpecialTokens: 'yes' }), /addSpecialTokens must be a boolean/)
  await assert.rejects(tok.encode(HELLO, { signal: {} }), /signal must be an AbortSignal/)
  await assert.rejects(tok.decode(helloIds, { skipSpecialTokens: 1 }), TypeError)
  assert.throws(() => tok.encodeSync(HELLO, 5), TypeError)
  // a string second argument is a pair, as in the tokenizers npm package
  assert.equal(tok.encodeSync(HELLO, 'x').nSequences, 2)
  // null / undefined options are the defaults
  assert.deepEqual(Array.from((await tok.encode(HELLO, null)).ids), helloIds)
  assert.deepEqual(Array.from(tok.encodeSync(HELLO, undefined).ids), helloIds)
})

test('ids the vocabulary lacks are skipped (as tokenizers does); values that are not ids are errors', async () => {
  const vocab = tok.getVocabSize()
  const hello = tok.decodeSync(helloIds)
  for (const [ids, known] of [[[vocab], []], [[1, 2, 4294967295], [1, 2]], [new Uint32Array([0, vocab + 10]), [0]]]) {
    const want = tok.decodeSync(known)
    assert.equal(await tok.decode(ids), want)
    assert.equal(tok.decodeSync(ids), want)
    assert.deepEqual(await tok.decodeBatch([helloIds, ids]), [hello, want])
    assert.deepEqual(tok.decodeBatchSync([ids]), [want])
  }
  // A long list with one unknown id (decoded off the main thread) skips it too.
  const long = new Uint32Array(100_000).fill(helloIds[0])
  long[77_777] = vocab + 1
  assert.equal(await tok.decode(long), tok.decodeSync(new Uint32Array(99_999).fill(helloIds[0])))
  for (const ids of [[-1], [1.5], [NaN], [Infinity], [2 ** 32], ['1'], [null], [1n], [{}]]) {
    await assert.rejects(tok.decode(ids), RangeError, String(ids[0]))
    assert.throws(() => tok.decodeSync(ids), RangeError)
    await assert.rejects(tok.decodeBatch([ids]), (e) => e instanceof RangeError && /batch\[0\]\[0\]/.test(e.message))
  }
  for (const v of [undefined, null, 'abc', 12, {}, new DataView(new ArrayBuffer(4))]) {
    await assert.rejects(tok.decode(v), TypeError)
    assert.throws(() => tok.decodeSync(v), TypeError)
  }
  await assert.rejects(tok.decodeBatch('x'), TypeError)
  // Other typed arrays are accepted when their values are ids.
  assert.equal(await tok.decode(Int32Array.from(helloIds)), HELLO)
  assert.equal(await tok.decode(Float64Array.from(helloIds)), HELLO)
  assert.equal(await tok.decode([]), '')
  await stillWorks()
})

test('odd strings: lone surrogates, NUL, huge runs, control chars', async () => {
  const texts = ['\ud800', 'a\udc00b', '\u0000\u0001\u001f', ' '.repeat(100_000), 'x'.repeat(200_000), '\n'.repeat(50_000), '😀'.repeat(20_000), '\u0301'.repeat(1000)]
  for (const text of texts) {
    const enc = await tok.encode(text)
    assert.deepEqual(Array.from(enc.ids), Array.from(tok.encodeSync(text).ids))
    assert.equal(enc.offsets.length, 2 * enc.length)
    for (const o of enc.offsets) assert.ok(o <= text.length)
  }
  await stillWorks()
})

test('a burst of mixed good and bad calls leaves everything consistent', async () => {
  const calls = []
  for (let i = 0; i < 200; i++) {
    const v = i % 3 === 0 ? NOT_STRINGS[i % NOT_STRINGS.length] : `${HELLO} ${i}`
    calls.push(tok.encode(v).then((e) => e.length, (e) => e.name))
  }
  const results = await Promise.all(calls)
  assert.ok(results.every((r) => r === 'TypeError' || typeof r === 'number'))
  await stillWorks()
})
