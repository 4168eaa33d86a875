// Smoke test of the installed npm packages (yieldtok + yieldtok-linux-x64-gnu), run by
// scripts/test-packages.sh inside a fresh npm project outside the repository.
//   node smoke.cjs <model dir> <expected.json>
'use strict'
const assert = require('node:assert/strict')
const { readFileSync } = require('node:fs')
const [model, expectedPath] = process.argv.slice(2)
const expected = JSON.parse(readFileSync(expectedPath, 'utf8'))
const resolved = require.resolve('yieldtok')
assert.match(resolved, /node_modules[\\/]yieldtok[\\/]/, `yieldtok resolved to ${resolved}`)
const { Tokenizer } = require('yieldtok')

async function main() {
  const tok = await Tokenizer.load(model)
  for (let i = 0; i < expected.texts.length; i++) {
    const enc = await tok.encode(expected.texts[i])
    assert.deepEqual(Array.from(enc.ids), expected.ids[i], expected.texts[i].slice(0, 40))
  }
  const prompt = await tok.applyChatTemplate([{ role: 'user', content: 'Hi there' }], { tokenize: false, addGenerationPrompt: true })
  assert.ok(prompt.includes('Hi there') && prompt !== 'Hi there', prompt)
  const esm = await import('yieldtok')
  assert.equal(typeof esm.Tokenizer.fromDir, 'function')
  console.log(`npm packages OK: ${resolved} (${expected.texts.length} texts, chat prompt of ${prompt.length} chars)`)
}
main().catch((e) => { console.error(e); process.exit(1) })
