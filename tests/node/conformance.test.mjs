// Cross-language conformance vectors written by the core:
//   cargo run -p yieldtok-cli --release -- conformance --out target/conformance
// target/conformance/<fixture>.json = [{name, text, add_special_tokens, ids, offsets (bytes), char_offsets}]
// Skipped when absent, unless YIELDTOK_REQUIRE_CONFORMANCE=1.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { ROOT, NAMES, fixtureDir, yieldtok, byteToUtf16, charToUtf16, pairs } from './helpers.mjs'

const { Tokenizer } = yieldtok()
const DIR = process.env.YIELDTOK_CONFORMANCE_DIR || path.join(ROOT, 'target', 'conformance')
const REQUIRED = process.env.YIELDTOK_REQUIRE_CONFORMANCE === '1'

const files = fs.existsSync(DIR) ? fs.readdirSync(DIR).filter((f) => f.endsWith('.json')).sort() : []

if (files.length === 0) {
  test('conformance vectors', (t) => {
    if (REQUIRED) assert.fail(`no conformance vectors in ${DIR} (YIELDTOK_REQUIRE_CONFORMANCE=1); run: cargo run -p yieldtok-cli --release -- conformance --out target/conformance`)
    t.skip(`no vectors in ${DIR}`)
  })
}

for (const file of files) {
  const fixture = path.basename(file, '.json')
  test(`conformance: ${fixture}`, async () => {
    const cases = JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8'))
    assert.ok(Array.isArray(cases) && cases.length > 0, `${file} holds no cases`)
    const dir = NAMES.includes(fixture) ? fixtureDir(fixture) : path.join(path.dirname(fixtureDir('qwen3')), fixture)
    const tok = Tokenizer.fromDir(dir)
    const texts = []
    for (const c of cases) {
      const what = `${fixture}/${c.name}/add=${c.add_special_tokens}`
      const enc = await tok.encode(c.text, { addSpecialTokens: c.add_special_tokens })
      assert.deepEqual(Array.from(enc.ids), c.ids, `${what}: ids`)
      const got = pairs(enc.offsets)
      if (c.offsets) assert.deepEqual(got, byteToUtf16(c.text, c.offsets), `${what}: offsets vs byte offsets`)
      if (c.char_offsets) assert.deepEqual(got, charToUtf16(c.text, c.char_offsets), `${what}: offsets vs char offsets`)
      assert.deepEqual(Array.from(tok.encodeSync(c.text, { addSpecialTokens: c.add_special_tokens }).ids), c.ids, `${what}: sync ids`)
      if (c.add_special_tokens) texts.push(c)
    }
    // The same through encodeBatch.
    const batch = await tok.encodeBatch(texts.map((c) => c.text))
    batch.forEach((e, i) => assert.deepEqual(Array.from(e.ids), texts[i].ids, `${fixture}/${texts[i].name}: batch ids`))
  })
}
