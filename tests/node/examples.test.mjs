// The Node examples of examples/ run as documented (examples/README.md): encode.mjs, started as
// a user would start it, must exit 0 (it asserts its own results) and print what it promises;
// server.mjs is started in each mode and asked over HTTP (below).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import path from 'node:path'
import readline from 'node:readline'
import { FRAGMENTS, ROOT, fixtureDir, hfTokenizers, mixedText, realText, yieldtok } from './helpers.mjs'

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

// examples/node/server.mjs started for real on a free loopback port in each mode and answered by
// fetch: every endpoint's answer equals `tokenizers` npm called directly (ids, text; /chat: the
// template rendered by yieldtok, encoded by `tokenizers`), every /stream's events equal
// yieldtok's DecodeStream steps (tested against tokenizers' own in decode_stream.test.mjs) and
// together the whole decode, for many streams at once; bad requests get a 400.
for (const mode of ['yieldtok', 'tokenizers']) {
  test(`examples/node/server.mjs --mode ${mode} answers like tokenizers`, async (t) => {
    const { Tokenizer, DecodeStream } = yieldtok()
    const dir = fixtureDir('qwen3')
    const hf = hfTokenizers().Tokenizer.fromFile(path.join(dir, 'tokenizer.json'))
    const tok = Tokenizer.fromDir(dir)
    const child = spawn(process.execPath, [path.join(ROOT, 'examples', 'node', 'server.mjs'), dir, '--mode', mode, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (d) => (stderr += d))
    t.after(() => child.kill())
    const [first] = await Promise.race([
      once(readline.createInterface({ input: child.stdout }), 'line'),
      once(child, 'exit').then(() => assert.fail(`the server exited: ${stderr}`)),
    ])
    assert.match(first, new RegExp(`^listening on 127\\.0\\.0\\.1:\\d+ \\(mode ${mode}\\)$`))
    const base = `http://${first.split(' ')[2]}`
    const post = (route, body) => fetch(base + route, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body) })
    const ask = async (route, body) => {
      const r = await post(route, body)
      assert.equal(r.status, 200, `${route}: ${r.status} ${await r.clone().text()}`)
      assert.equal(r.headers.get('content-type'), 'application/json')
      return r.json()
    }
    const events = async (body) => {
      const r = await post('/stream', body)
      assert.equal(r.status, 200)
      assert.equal(r.headers.get('content-type'), 'text/event-stream')
      const chunks = (await r.text()).split('\n\n')
      assert.deepEqual(chunks.slice(-2), ['data: [DONE]', ''])
      return chunks.slice(0, -2).map((c) => {
        assert.ok(c.startsWith('data: ') && !c.includes('\n'), c)
        const event = JSON.parse(c.slice(6))
        assert.deepEqual(Object.keys(event), ['text'], c)
        assert.ok(event.text)
        return event.text
      })
    }
    const real = realText(40_000) ?? mixedText(40_000, 3)
    const texts = [...FRAGMENTS, '<|im_start|>user\n東京 🙂<|im_end|>\n', real, mixedText(300_000, 9)]

    // /tokenize, all at once (a long one among them), and /detokenize
    const answers = await Promise.all(texts.flatMap((text) => [ask('/tokenize', { text }), ask('/tokenize', { text, add_special_tokens: false })]))
    for (const [i, text] of texts.entries()) {
      assert.deepEqual(answers[2 * i], { ids: (await hf.encode(text)).getIds() }, text.slice(0, 60))
      assert.deepEqual(answers[2 * i + 1], { ids: (await hf.encode(text, null, { addSpecialTokens: false })).getIds() })
    }
    for (const text of texts.slice(0, -1)) {
      const ids = (await hf.encode(text)).getIds()
      assert.deepEqual(await ask('/detokenize', { ids }), { text: await hf.decode(ids, true) })
      assert.deepEqual(await ask('/detokenize', { ids, skip_special_tokens: false }), { text: await hf.decode(ids, false) })
    }

    // /chat
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }]
    const convs = [
      [{ role: 'user', content: 'Hi' }],
      [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Ünïcode 東京 🙂?' }, { role: 'assistant', content: 'Yes.' }, { role: 'user', content: real.slice(0, 3000) }],
    ]
    for (const messages of convs) {
      for (const [gen, tl] of [[true, null], [false, null], [true, tools]]) {
        const text = tok.applyChatTemplateSync(messages, { tools: tl, addGenerationPrompt: gen, tokenize: false })
        assert.ok(text.startsWith('<|im_start|>') && text.includes('get_weather') === (tl !== null))
        const want = (await hf.encode(text, null, { addSpecialTokens: false })).getIds()
        assert.deepEqual(await ask('/chat', { messages, tools: tl, add_generation_prompt: gen }), { ids: want })
      }
    }
    const dflt = await ask('/chat', { messages: convs[0] })
    assert.deepEqual(dflt.ids.slice(-3), (await hf.encode('<|im_start|>assistant\n', null, { addSpecialTokens: false })).getIds())

    // /stream: many at once, so they share steps
    const cases = texts.slice(0, -1).flatMap((text) => [false, true].map((skip) => [text, skip]))
    const got = await Promise.all(cases.map(async ([text, skip]) => events({ ids: (await hf.encode(text)).getIds(), skip_special_tokens: skip })))
    for (const [k, [text, skip]] of cases.entries()) {
      const ids = (await hf.encode(text)).getIds()
      const s = new DecodeStream({ skipSpecialTokens: skip })
      assert.deepEqual(got[k], ids.map((id) => s.step(tok, id)).filter((d) => d), text.slice(0, 60))
      assert.equal(got[k].join(''), await hf.decode(ids, skip))
    }
    assert.deepEqual(await events({ ids: [] }), [])

    // bad requests: a 400 each, and the server keeps serving
    for (const [route, body] of [
      ['/tokenize', 'not json'],
      ['/tokenize', { nothing: 1 }],
      ['/tokenize', { text: 5 }],
      ['/detokenize', { ids: [10 ** 12] }],
      ['/chat', { messages: [] }],
      ['/stream', { ids: [1, 'a'] }],
      ['/stream', { ids: [-1] }],
    ]) {
      const r = await post(route, body)
      assert.equal(r.status, 400, `${route} ${JSON.stringify(body)}: ${r.status}`)
      assert.ok((await r.json()).error)
    }
    assert.equal((await fetch(base + '/tokenize')).status, 404)
    assert.equal((await post('/nowhere', {})).status, 404)
    assert.deepEqual(await ask('/tokenize', { text: 'still here' }), { ids: (await hf.encode('still here')).getIds() })
  })
}
