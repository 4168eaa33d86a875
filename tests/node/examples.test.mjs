// The Node example of examples/ runs as documented (examples/README.md): started as a user would
// start it, it must exit 0 (it asserts its own results) and print what it promises.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { ROOT, fixtureDir, yieldtok } from './helpers.mjs'

test('examples/node/encode.mjs runs and checks its results', () => {
  yieldtok() // a clear error when the addon is not built
  const run = spawnSync(process.execPath, [path.join(ROOT, 'examples', 'node', 'encode.mjs'), fixtureDir('qwen3')], {
    encoding: 'utf8',
    timeout: 120_000,
  })
  assert.equal(run.status, 0, `exit ${run.status}\n${run.stdout}\n${run.stderr}`)
  assert.match(run.stdout, /^short: +4 tokens {2}"Hello, world!"$/m)
  assert.match(run.stdout, /^long: +\d+ tokens from \d+ K chars in [\d.]+ ms; the loop's longest pause meanwhile: [\d.]+ ms$/m)
  assert.match(run.stdout, /^cancelled: AbortError \(ABORT_ERR\)$/m) // abort() runs before any piece can finish
})
