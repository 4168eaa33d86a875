// Encoding.wordIds, sequenceIds, nSequences and the alignment methods (wordToTokens, wordToChars,
// tokenToChars, tokenToWord, tokenToSequence, charToToken, charToWord) against Hugging Face's
// `tokenizers` npm package on the real fixtures, over the varied corpus and a long mixed text
// (encoded in chunks, so word ids cross piece cuts). The reference counts positions in Unicode
// code points, yieldtok in UTF-16 code units: positions are converted between the two.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { NAMES, fixtureDir, yieldtok, hfTokenizers, corpus, charToUtf16 } from './helpers.mjs'

const { Tokenizer } = yieldtok()
const HF = hfTokenizers().Tokenizer

/** `0..n` when short; else its first and last `ends` and about `spread` in between. */
function indices(n, ends = 30, spread = 100) {
  const step = Math.max(1, Math.floor((n - 2 * ends) / spread))
  const out = []
  for (let i = 0; i < n; i++) if (n <= 160 || i < ends || i + ends >= n || i % step === 0) out.push(i)
  return out
}

const orNull = (x) => (x === undefined ? null : x)

for (const name of NAMES) {
  test(`${name}: word ids and alignment methods equal tokenizers (npm)`, async () => {
    const dir = fixtureDir(name)
    const tok = Tokenizer.fromDir(dir)
    const hf = HF.fromFile(path.join(dir, 'tokenizer.json'))
    for (const [label, text] of corpus(dir)) {
      for (const addSpecialTokens of [true, false]) {
        const what = `${name}/${label}/add=${addSpecialTokens}`
        // each call scans the tokens: few calls on the long text
        const at = (n) => (text.length > 50_000 ? indices(n, 5, 10) : indices(n))
        const ref = await hf.encode(text, null, { addSpecialTokens })
        const enc = await tok.encode(text, { addSpecialTokens })
        assert.deepEqual(enc.wordIds, ref.getWordIds().map(orNull), `${what} wordIds`)
        assert.deepEqual(enc.sequenceIds, ref.getSequenceIds().map(orNull), `${what} sequenceIds`)
        assert.equal(enc.nSequences, ref.getNSequences(), `${what} nSequences`)
        assert.deepEqual(enc.toJSON().wordIds, enc.wordIds, `${what} toJSON`)
        // code point -> UTF-16 position, and the reference's spans in UTF-16
        const u16 = [0]
        for (const ch of text) u16.push(u16[u16.length - 1] + ch.length)
        const span = (s) => (s == null ? null : charToUtf16(text, [s])[0])
        const nWords = Math.max(-1, ...ref.getWordIds().filter((w) => w != null)) + 1
        for (const seq of [0, 1]) {
          for (const w of at(nWords + 2)) {
            assert.deepEqual(enc.wordToTokens(w, seq), orNull(ref.wordToTokens(w, seq)), `${what} wordToTokens(${w}, ${seq})`)
            assert.deepEqual(enc.wordToChars(w, seq), span(ref.wordToChars(w, seq)), `${what} wordToChars(${w}, ${seq})`)
          }
          for (const p of at(u16.length + 1)) {
            const pos = p < u16.length ? u16[p] : u16[u16.length - 1] + 1
            assert.equal(enc.charToToken(pos, seq), orNull(ref.charToToken(p, seq)), `${what} charToToken(${p}, ${seq})`)
            assert.equal(enc.charToWord(pos, seq), orNull(ref.charToWord(p, seq)), `${what} charToWord(${p}, ${seq})`)
          }
        }
        for (const t of at(enc.length + 2)) {
          assert.deepEqual(enc.tokenToChars(t), span(ref.tokenToChars(t)), `${what} tokenToChars(${t})`)
          assert.equal(enc.tokenToWord(t), orNull(ref.tokenToWord(t)), `${what} tokenToWord(${t})`)
          assert.equal(enc.tokenToSequence(t), orNull(ref.tokenToSequence(t)), `${what} tokenToSequence(${t})`)
        }
      }
    }
    // Batches: each encoding reads its own slice of the shared buffer.
    const texts = ['Hello world', 'a b c d e', '']
    const batch = await tok.encodeBatch(texts)
    for (const [i, t] of texts.entries()) {
      assert.deepEqual(batch[i].wordIds, (await tok.encode(t)).wordIds, `${name} batch item ${i}`)
      assert.deepEqual(batch[i].wordToTokens(0), (await tok.encode(t)).wordToTokens(0))
    }
  })
}

test('alignment arguments are checked', () => {
  const tok = Tokenizer.fromDir(fixtureDir('qwen3'))
  const enc = tok.encodeSync('Hello world')
  for (const bad of [-1, 1.5, NaN, '0', 2 ** 32]) {
    assert.throws(() => enc.charToToken(bad), RangeError, String(bad))
    assert.throws(() => enc.wordToTokens(0, bad), RangeError, String(bad))
  }
  assert.equal(enc.tokenToWord(enc.length + 5), null)
})
