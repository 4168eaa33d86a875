// The calls a `tokenizers` npm user makes after encode/decode: pairs (`encode(sentence, pair)`,
// `[text, pair]` batch items), `setTruncation` / `disableTruncation`, `setPadding` /
// `disablePadding`, `getVocab`, `addTokens`, `addSpecialTokens`, `addAddedTokens` and
// `AddedToken` — against Hugging Face's `tokenizers` npm package (0.23) on real fixtures, with
// the same calls made on both. The reference counts offsets in code points, yieldtok in UTF-16
// code units (converted here); a pair's second sequence has offsets into the second text.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { fixtureDir, yieldtok, hfTokenizers, corpus, charToUtf16, mixedText } from './helpers.mjs'

const { Tokenizer, AddedToken } = yieldtok()
const HF = hfTokenizers()

// BERT (a pair template with type ids), byte-level BPE, SentencePiece BPE, Gemma's BPE.
const FIXTURES = ['minilm', 'qwen3', 'llama2', 'gemma3']

const orNull = (x) => (x === undefined ? null : x)

/** Both tokenizers of fixture `name`. */
function load(name) {
  const dir = fixtureDir(name)
  return [Tokenizer.fromDir(dir), HF.Tokenizer.fromFile(path.join(dir, 'tokenizer.json')), dir]
}

/**
 * `enc` equals the reference encoding `ref` of `texts` (one text, or a pair's two). With
 * `leftCut`, word ids are checked against `full` (the same input untruncated) instead: the npm
 * package renumbers a left-truncated text's words from 0, while the `tokenizers` crate and its
 * Python package (yieldtok's oracle) keep them, i.e. they are the untruncated encoding's.
 */
function same(enc, ref, texts, what, { leftCut = false, full = null } = {}) {
  assert.deepEqual(Array.from(enc.ids), ref.getIds(), `${what}: ids`)
  assert.deepEqual(Array.from(enc.typeIds), ref.getTypeIds(), `${what}: typeIds`)
  assert.deepEqual(Array.from(enc.attentionMask), ref.getAttentionMask(), `${what}: attentionMask`)
  assert.deepEqual(Array.from(enc.specialTokensMask), ref.getSpecialTokensMask(), `${what}: specialTokensMask`)
  const seqs = ref.getSequenceIds().map(orNull)
  assert.deepEqual(enc.sequenceIds, seqs, `${what}: sequenceIds`)
  assert.equal(enc.nSequences, ref.getNSequences(), `${what}: nSequences`)
  const want = ref.getOffsets().map((o, i) => charToUtf16(texts[seqs[i] ?? 0], [o])[0])
  assert.deepEqual(enc.offsetPairs(), want, `${what}: offsets`)
  if (!leftCut) {
    assert.deepEqual(enc.wordIds, ref.getWordIds().map(orNull), `${what}: wordIds`)
  } else {
    // per sequence: the word ids of the tokens kept are the last ones of the untruncated encoding
    const of = (e, s) => {
      const seqIds = e.sequenceIds // a getter that builds an array: read it once
      return e.wordIds.filter((w, i) => w !== null && seqIds[i] === s)
    }
    for (const s of [0, 1]) {
      const kept = of(enc, s)
      const all = of(full, s)
      assert.deepEqual(kept, all.slice(all.length - kept.length), `${what}: wordIds of sequence ${s} (the untruncated ones)`)
    }
  }
}

/** Pairs of corpus texts (each non-empty), and the texts themselves. */
function inputs(dir) {
  const texts = corpus(dir, { long: false })
    .map(([, t]) => t)
    .filter((t) => t.trim() !== '' && t.length < 2_000)
  const pairs = texts.slice(0, -1).map((t, i) => [t, texts[i + 1]])
  return { texts, pairs }
}

for (const name of FIXTURES) {
  test(`${name}: pairs equal tokenizers (npm), async, sync and in batches`, async () => {
    const [tok, hf, dir] = load(name)
    const { texts, pairs } = inputs(dir)
    for (const [a, b] of pairs) {
      for (const addSpecialTokens of [true, false]) {
        const what = `${name} pair ${JSON.stringify(a.slice(0, 20))} add=${addSpecialTokens}`
        const ref = await hf.encode(a, b, { addSpecialTokens })
        same(await tok.encode(a, b, { addSpecialTokens }), ref, [a, b], what)
        same(tok.encodeSync(a, b, { addSpecialTokens }), ref, [a, b], `${what} (sync)`)
      }
    }
    // A batch mixing texts and pairs: each item as encode() gives it.
    const batch = [texts[0], pairs[1], texts[2], pairs[3]]
    const encs = await tok.encodeBatch(batch)
    const sync = tok.encodeBatchSync(batch)
    for (let i = 0; i < batch.length; i++) {
      const [a, b] = Array.isArray(batch[i]) ? batch[i] : [batch[i], null]
      const ref = await hf.encode(a, b)
      same(encs[i], ref, [a, b], `${name} batch item ${i}`)
      same(sync[i], ref, [a, b], `${name} batch item ${i} (sync)`)
    }
    // The older form: encode(text, options).
    assert.deepEqual(Array.from((await tok.encode(texts[0], { addSpecialTokens: false })).ids), (await hf.encode(texts[0], null, { addSpecialTokens: false })).getIds())
  })

  test(`${name}: setTruncation equals tokenizers (npm): strategies, stride, left, pairs, a long text`, async () => {
    const [tok, hf, dir] = load(name)
    const plain = Tokenizer.fromDir(dir) // the untruncated encodings (minilm's file truncates to 128)
    plain.disableTruncation()
    const { texts, pairs } = inputs(dir)
    const long = mixedText(120_000, 3)
    const cases = [
      [16, {}],
      [16, { stride: 3 }],
      [24, { strategy: 'LongestFirst', stride: 2 }],
      [20, { strategy: 'OnlyFirst' }],
      [20, { strategy: 'OnlySecond' }],
      [12, { direction: 'left' }],
      [20, { direction: 'left', strategy: 'LongestFirst' }],
    ]
    for (const [maxLength, options] of cases) {
      tok.setTruncation(maxLength, options)
      hf.setTruncation(maxLength, options)
      const what = `${name} setTruncation(${maxLength}, ${JSON.stringify(options)})`
      const leftCut = options.direction === 'left'
      for (const [a, b] of [...texts.slice(0, 6).map((t) => [t, null]), [long, null], ...pairs.slice(0, 6)]) {
        const label = `${what} ${JSON.stringify(a.slice(0, 20))}${b === null ? '' : ' + pair'}`
        // The npm package's `LongestFirst` splits a pair's budget otherwise than the
        // `tokenizers` crate and its Python package 0.23 do (yieldtok's oracle: the core runs
        // the crate's own truncation, core/tests/pairs.rs checks it), so it is no oracle there.
        if (b !== null && (options.strategy ?? 'LongestFirst') === 'LongestFirst') continue
        // The reference errors when the strategy's sequence is too short or absent
        // (`OnlySecond` on one text): so must yieldtok.
        let ref
        try {
          ref = await hf.encode(a, b)
        } catch (e) {
          await assert.rejects(tok.encode(a, b), `${label}: the reference failed (${e.message}), so must yieldtok`)
          continue
        }
        const full = leftCut ? await plain.encode(a, b) : null
        same(await tok.encode(a, b), ref, b === null ? [a] : [a, b], label, { leftCut, full })
        if (b === null) assert.deepEqual(Array.from(await tok.encodeIds(a)), ref.getIds(), `${label}: encodeIds`)
      }
    }
    tok.disableTruncation()
    hf.disableTruncation()
    assert.deepEqual(Array.from((await tok.encode(long)).ids), (await hf.encode(long)).getIds(), `${name}: disableTruncation`)
  })

  test(`${name}: setPadding equals tokenizers (npm): batch longest, fixed, left, multiple of, with truncation`, async () => {
    const [tok, hf, dir] = load(name)
    const { texts } = inputs(dir)
    const batch = texts.slice(0, 8)
    const cases = [
      {},
      { maxLength: 64 },
      { direction: 'left', padId: 3, padTypeId: 1, padToken: '<pad>' },
      { padToMultipleOf: 8 },
      { direction: 'left', maxLength: 40, padToMultipleOf: 16 },
    ]
    for (const options of cases) {
      tok.setPadding(options)
      hf.setPadding(options)
      const what = `${name} setPadding(${JSON.stringify(options)})`
      const refs = await hf.encodeBatch(batch)
      const encs = await tok.encodeBatch(batch)
      batch.forEach((t, i) => same(encs[i], refs[i], [t], `${what} batch item ${i}`))
      tok.encodeBatchSync(batch).forEach((e, i) => same(e, refs[i], [batch[i]], `${what} batch item ${i} (sync)`))
      same(await tok.encode(batch[1]), await hf.encode(batch[1]), [batch[1]], `${what} one text`)
      // with truncation below the padded length
      tok.setTruncation(10)
      hf.setTruncation(10)
      const cut = await tok.encodeBatch(batch)
      ;(await hf.encodeBatch(batch)).forEach((r, i) => same(cut[i], r, [batch[i]], `${what} + setTruncation(10) item ${i}`))
      tok.disableTruncation()
      hf.disableTruncation()
    }
    // A batch with pairs, padded: every item as long as the longest, its unpadded tokens first.
    tok.setPadding()
    const mixed = [batch[0], [batch[1], batch[2]], batch[3]]
    const padded = await tok.encodeBatch(mixed)
    tok.disablePadding()
    hf.disablePadding()
    const plain = await tok.encodeBatch(mixed)
    const longest = Math.max(...plain.map((e) => e.length))
    padded.forEach((e, i) => {
      assert.equal(e.length, longest, `${name} padded pair batch item ${i}: length`)
      assert.deepEqual(Array.from(e.ids.subarray(0, plain[i].length)), Array.from(plain[i].ids), `${name} padded pair batch item ${i}: ids`)
    })
  })

  test(`${name}: getVocab and added tokens equal tokenizers (npm)`, async () => {
    const [tok, hf] = load(name)
    assert.deepEqual(tok.getVocab(), hf.getVocab(), `${name}: getVocab()`)
    assert.deepEqual(tok.getVocab(false), hf.getVocab(false), `${name}: getVocab(false)`)
    assert.equal(tok.addTokens(['yt_alpha', 'yt_alpha', 'yt beta']), hf.addTokens(['yt_alpha', 'yt_alpha', 'yt beta']), `${name}: addTokens`)
    tok.addSpecialTokens(['<yt_special>'])
    hf.addSpecialTokens(['<yt_special>'])
    const flagged = (T) => [
      new T('yt_word', false, { singleWord: true }),
      new T('yt_left', false, { leftStrip: true }),
      new T('yt_right', false, { rightStrip: true }),
      new T('YT_Norm', false, { normalized: false }),
      new T('<yt_s2>', true),
    ]
    assert.equal(tok.addAddedTokens(flagged(AddedToken)), hf.addAddedTokens(flagged(HF.AddedToken)), `${name}: addAddedTokens`)
    assert.deepEqual(tok.getVocab(), hf.getVocab(), `${name}: getVocab() after adding`)
    assert.equal(tok.getVocabSize(), hf.getVocabSize(), `${name}: getVocabSize()`)
    for (const t of [
      'say yt_alpha and yt beta<yt_special>x',
      'ayt_word yt_word b  yt_left   yt_right  c',
      'YT_Norm yt_norm <yt_s2><yt_special> end',
    ]) {
      const ref = await hf.encode(t)
      same(await tok.encode(t), ref, [t], `${name}: encode after adding, ${JSON.stringify(t)}`)
      assert.equal(await tok.decode(ref.getIds()), await hf.decode(ref.getIds(), true), `${name}: decode ${JSON.stringify(t)}`)
      assert.equal(await tok.decode(ref.getIds(), { skipSpecialTokens: false }), await hf.decode(ref.getIds(), false), `${name}: decode with specials`)
    }
    assert.equal(new AddedToken('abc', true).getContent(), 'abc')
  })
}

test('bad truncation and padding arguments are errors, never a crash', async () => {
  const [tok] = load('minilm')
  tok.disablePadding() // its tokenizer.json pads to 128
  assert.throws(() => tok.setTruncation(8, { strategy: 'longest' }), RangeError)
  assert.throws(() => tok.setTruncation(8, { direction: 'Left' }), RangeError)
  assert.throws(() => tok.setTruncation(-1), RangeError)
  assert.throws(() => tok.setPadding({ direction: 'up' }), RangeError)
  assert.throws(() => tok.setPadding({ padToken: 3 }), TypeError)
  // a stride the effective length cannot hold: the npm package aborts the process here
  assert.throws(() => tok.setTruncation(4, { stride: 10 }), (e) => e.code === 'InvalidArg')
  tok.setTruncation(5, { stride: 1 })
  await assert.rejects(tok.encode('one two three four five six', 'seven eight nine ten'), (e) => e.code === 'InvalidArg')
  assert.equal((await tok.encode('one two three four five six')).length, 5, 'the tokenizer still works')
  await assert.rejects(tok.encode('a', 3), TypeError)
  await assert.rejects(tok.encode('a', null, { isPretokenized: true }), TypeError)
  await assert.rejects(tok.encodeBatch(['a', ['b']]), TypeError)
  assert.throws(() => tok.addTokens('abc'), TypeError)
  assert.throws(() => tok.addTokens([3]), TypeError)
})

test('an AbortSignal rejects pair encodes and mixed batches with an AbortError', async () => {
  const [tok] = load('qwen3')
  const text = mixedText(2_000_000, 5)
  for (const start of [(signal) => tok.encode(text, text, { signal }), (signal) => tok.encodeBatch([text, [text, 'x']], { signal })]) {
    const before = new AbortController()
    before.abort()
    await assert.rejects(start(before.signal), (e) => e.name === 'AbortError', 'aborted before the call')
    const during = new AbortController()
    const p = start(during.signal)
    setTimeout(() => during.abort(), 5)
    await assert.rejects(p, (e) => e.name === 'AbortError', 'aborted while running')
  }
  assert.equal((await tok.encode('a', 'b')).nSequences, 2, 'the tokenizer still works')
})
