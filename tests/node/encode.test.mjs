// Ids, offsets and masks of the Node binding against Hugging Face's `tokenizers` npm package (the
// reference engine the core wraps) on the real fixture tokenizers; sync equals async; batch
// equals single; count and decode agree.
import { test, describe, before } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { NAMES, fixtureDir, yieldtok, hfTokenizers, corpus, charToUtf16, pairs } from './helpers.mjs'

const { Tokenizer, Encoding } = yieldtok()
const HF = hfTokenizers().Tokenizer

function sameArray(actual, expected, what) {
  assert.equal(actual.length, expected.length, `${what}: length ${actual.length} != ${expected.length}`)
  for (let i = 0; i < expected.length; i++) {
    if (actual[i] !== expected[i]) {
      assert.fail(`${what}: first difference at ${i}: ${actual[i]} != ${expected[i]} (context ${JSON.stringify(Array.from(actual.slice(Math.max(0, i - 3), i + 3)))} vs ${JSON.stringify(Array.from(expected.slice(Math.max(0, i - 3), i + 3)))})`)
    }
  }
}

function sameEncoding(a, b, what) {
  assert.ok(a instanceof Encoding && b instanceof Encoding)
  sameArray(a.ids, b.ids, `${what} ids`)
  sameArray(a.offsets, b.offsets, `${what} offsets`)
  sameArray(a.attentionMask, b.attentionMask, `${what} attentionMask`)
  sameArray(a.typeIds, b.typeIds, `${what} typeIds`)
  sameArray(a.specialTokensMask, b.specialTokensMask, `${what} specialTokensMask`)
  assert.equal(a.length, b.length)
}

for (const name of NAMES) {
  describe(name, () => {
  let dir, tok, hf
  before(async () => {
    dir = fixtureDir(name)
    tok = Tokenizer.fromDir(dir)
    hf = HF.fromFile(path.join(dir, 'tokenizer.json'))
    // Ids-only work (encodeIds, count) goes to the fast engine once it has loaded: test that path.
    await tok.waitForEngine()
  })
  test(`${name}: encode equals tokenizers (npm), sync equals async`, async (t) => {
    for (const [label, text] of corpus(dir)) {
      for (const addSpecialTokens of [true, false]) {
        const what = `${name}/${label}/add=${addSpecialTokens}`
        const ref = await hf.encode(text, null, { addSpecialTokens })
        const enc = await tok.encode(text, { addSpecialTokens })
        assert.ok(enc.ids instanceof Uint32Array, 'ids is a Uint32Array')
        assert.ok(enc.offsets instanceof Uint32Array, 'offsets is a Uint32Array')
        assert.equal(enc.offsets.length, 2 * enc.length)
        sameArray(enc.ids, ref.getIds(), `${what} ids vs tokenizers`)
        const refOffsets = charToUtf16(text, ref.getOffsets()).flat()
        sameArray(enc.offsets, refOffsets, `${what} offsets (UTF-16) vs tokenizers`)
        sameArray(enc.attentionMask, ref.getAttentionMask(), `${what} attentionMask`)
        sameArray(enc.typeIds, ref.getTypeIds(), `${what} typeIds`)
        sameArray(enc.specialTokensMask, ref.getSpecialTokensMask(), `${what} specialTokensMask`)
        sameEncoding(tok.encodeSync(text, { addSpecialTokens }), enc, `${what} sync vs async`)
        sameArray(await tok.encodeIds(text, { addSpecialTokens }), enc.ids, `${what} encodeIds (${tok.engine})`)
        sameArray(tok.encodeIdsSync(text, { addSpecialTokens }), enc.ids, `${what} encodeIdsSync (${tok.engine})`)
        assert.equal(await tok.count(text, { addSpecialTokens }), enc.length, `${what} count`)
        assert.equal(tok.countSync(text, { addSpecialTokens }), enc.length, `${what} countSync`)
      }
    }
  })

  test(`${name}: encodeBatch equals encode; decode equals tokenizers (npm)`, async () => {
    const texts = corpus(dir, { long: false }).map(([, text]) => text)
    const batch = await tok.encodeBatch(texts)
    const batchSync = tok.encodeBatchSync(texts)
    assert.equal(batch.length, texts.length)
    assert.equal(batchSync.length, texts.length)
    for (let i = 0; i < texts.length; i++) {
      const single = await tok.encode(texts[i])
      sameEncoding(batch[i], single, `${name} batch[${i}]`)
      sameEncoding(batchSync[i], single, `${name} batchSync[${i}]`)
    }
    const idLists = batch.map((e) => e.ids)
    for (const skipSpecialTokens of [true, false]) {
      const ours = await tok.decodeBatch(idLists, { skipSpecialTokens })
      assert.deepEqual(tok.decodeBatchSync(idLists.map((ids) => Array.from(ids)), { skipSpecialTokens }), ours)
      const ref = await hf.decodeBatch(idLists.map((ids) => Array.from(ids)), skipSpecialTokens)
      assert.deepEqual(ours, ref, `${name} decodeBatch skip=${skipSpecialTokens}`)
      for (let i = 0; i < idLists.length; i++) {
        assert.equal(await tok.decode(idLists[i], { skipSpecialTokens }), ref[i])
        assert.equal(tok.decodeSync(Array.from(idLists[i]), { skipSpecialTokens }), ref[i])
      }
    }
    // A long decode (off the main thread) equals the oracle too.
    const long = await tok.encode(corpus(dir).find(([l]) => l === 'long-mixed')[1])
    assert.equal(await tok.decode(long.ids, { skipSpecialTokens: false }), await hf.decode(Array.from(long.ids), false))
    assert.deepEqual(await tok.encodeBatch([]), [])
    assert.deepEqual(await tok.decodeBatch([]), [])
  })
  })
}

test('offsets index the JS string (UTF-16 code units)', async () => {
  const tok = Tokenizer.fromDir(fixtureDir('qwen3'))
  const text = 'a😀b 中文 é 👨‍👩‍👧 end\u3000x'
  const enc = await tok.encode(text, { addSpecialTokens: false })
  const pieces = pairs(enc.offsets).map(([s, e]) => text.slice(s, e))
  // Byte-level tokens may cover parts of one char; their spans then repeat that char. Dropping
  // the repeats, the spans tile the text.
  let rebuilt = ''
  let last = -1
  for (const [s, e] of pairs(enc.offsets)) {
    if (s >= last) rebuilt += text.slice(Math.max(s, last), e)
    last = Math.max(last, e)
  }
  assert.equal(rebuilt, text, JSON.stringify(pieces))
  assert.deepEqual(enc.offsetAt(0), [enc.offsets[0], enc.offsets[1]])
  assert.throws(() => enc.offsetAt(enc.length), RangeError)
  assert.equal(JSON.parse(JSON.stringify(enc)).ids.length, enc.length)
})

test('tokenizer info', async () => {
  const dir = fixtureDir('qwen3')
  const tok = Tokenizer.fromDir(dir)
  assert.equal(tok.origin, dir)
  assert.match(tok.chunking, /\S/)
  assert.ok(tok.getVocabSize() >= tok.getVocabSize(false))
  const id = tok.tokenToId('hello')
  assert.equal(typeof id, 'number')
  assert.equal(tok.idToToken(id), 'hello')
  assert.equal(tok.tokenToId('definitely not a token \u0000'), undefined)
  assert.equal(tok.idToToken(-1), undefined)
  assert.equal(tok.idToToken(4e9), undefined)
  const engine = await tok.waitForEngine()
  assert.ok(['fastokens', 'yieldtok', 'tokenizers'].includes(engine))
  assert.equal(tok.engine, engine)
  if (engine !== 'fastokens') assert.equal(typeof tok.engineUnavailableReason, 'string')
  else assert.equal(tok.engineUnavailableReason, null)
  // The own engine serves every fixture's full encodings (checked against tokenizers at load).
  assert.equal(tok.encodingEngine, 'yieldtok', tok.encodingEngineUnavailableReason)
  assert.equal(tok.encodingEngineUnavailableReason, null)
})
