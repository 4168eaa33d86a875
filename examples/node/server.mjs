// A tokenizer HTTP service on node:http, one event loop — the Node twin of
// examples/python/asgi_server.py (same endpoints, same answers).
//
//   node examples/node/server.mjs .cache/fixtures/qwen3 --port 8000 [--mode yieldtok|tokenizers]
//   curl -s localhost:8000/tokenize -d '{"text": "Hello, world!"}'       # {"ids": [...]}
//   curl -sN localhost:8000/stream  -d '{"ids": [9707, 11, 1879, 0]}'   # Server-Sent Events
//
// Endpoints (POST, JSON body): /tokenize {text, add_special_tokens?} → {ids}; /detokenize {ids,
// skip_special_tokens?} → {text}; /chat {messages, tools?, add_generation_prompt?} → {ids} (the
// chat template rendered and encoded, as transformers' apply_chat_template; the generation
// prompt is on unless false); /stream {ids, skip_special_tokens?} → text/event-stream: the text
// of the ids as a generating model would stream it, one id per step, each `data: {"text":
// delta}` as soon as a delta is complete text, then `data: [DONE]`. Every open stream is stepped
// by one `DecodeStream.stepMany` call per step (as an inference server detokenizes all its
// requests after each model step). A bad request gets a 400 with {error}.
//
// --mode yieldtok (default): yieldtok's promises; the work runs in exact pieces on yieldtok's
// threads, so a 160k-token prompt never stalls the loop. --mode tokenizers: Hugging Face's
// `tokenizers` npm package (its promises run on libuv's pool); it has no chat templates (yieldtok
// renders, `tokenizers` encodes) and no DecodeStream (its algorithm is below, on `decode`).
// The first line printed is `listening on HOST:PORT` (`--port 0` picks a free port);
// tests/node/examples.test.mjs starts the server in both modes and checks it against `tokenizers`.
// (From a checkout it loads bindings-node, built with `cd bindings-node && npm ci && npx napi
// build --platform --release`; an installed package is `import { Tokenizer } from 'yieldtok'`.)
import http from 'node:http'
import { createRequire } from 'node:module'
import path from 'node:path'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { parseArgs } from 'node:util'

const require = createRequire(new URL('../../bindings-node/package.json', import.meta.url))
const { Tokenizer, DecodeStream } = require('./yieldtok.js')

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: { mode: { type: 'string', default: 'yieldtok' }, host: { type: 'string', default: '127.0.0.1' }, port: { type: 'string', default: '8000' } },
})
if (positionals.length !== 1 || !['yieldtok', 'tokenizers'].includes(opts.mode)) {
  throw new Error('usage: node examples/node/server.mjs TOKENIZER_DIR [--mode yieldtok|tokenizers] [--host H] [--port P]')
}
const dir = positionals[0]
const tok = await Tokenizer.load(dir) // parsed off the loop

/** yieldtok's promises; the streams are yieldtok's DecodeStream. */
const yieldtokMode = {
  encode: async (text, addSpecialTokens) => Array.from(await tok.encodeIds(text, { addSpecialTokens })),
  decode: (ids, skipSpecialTokens) => tok.decode(ids, { skipSpecialTokens }),
  chat: async (messages, tools, addGenerationPrompt) => Array.from(await tok.applyChatTemplate(messages, { tools, addGenerationPrompt })),
  newStream: (skipSpecialTokens) => new DecodeStream({ skipSpecialTokens }),
  stepMany: async (streams, ids) => DecodeStream.stepMany(tok, streams, ids), // one call for all; microseconds per stream
}

/** Hugging Face's tokenizers npm package (a devDependency of bindings-node). */
function tokenizersMode() {
  const hf = require('tokenizers').Tokenizer.fromFile(path.join(dir, 'tokenizer.json'))
  const encode = async (text, addSpecialTokens) => (await hf.encode(text, null, { addSpecialTokens })).getIds()
  // tokenizers' DecodeStream.step (tokenizers/src/tokenizer/mod.rs, step_decode_stream) on its `decode`.
  class Stream {
    constructor(skip) { Object.assign(this, { skip, ids: [], prefix: '', prefixIndex: 0 }) }
    async step(id) {
      this.ids.push(id)
      const text = await hf.decode(this.ids, this.skip)
      if (text.length <= this.prefix.length || text.endsWith('\uFFFD')) return null
      if (!text.startsWith(this.prefix)) throw new Error('Invalid prefix encountered')
      const delta = text.slice(this.prefix.length)
      const newPrefixIndex = this.ids.length - this.prefixIndex
      this.ids = this.ids.slice(this.prefixIndex)
      this.prefix = await hf.decode(this.ids, this.skip)
      this.prefixIndex = newPrefixIndex
      return delta
    }
  }
  return {
    encode,
    decode: (ids, skipSpecialTokens) => hf.decode(ids, skipSpecialTokens),
    chat: async (messages, tools, addGenerationPrompt) =>
      encode(await tok.applyChatTemplate(messages, { tools, addGenerationPrompt, tokenize: false }), false),
    newStream: (skip) => new Stream(skip),
    stepMany: (streams, ids) => Promise.all(streams.map((s, i) => s.step(ids[i]))),
  }
}

const mode = opts.mode === 'yieldtok' ? yieldtokMode : tokenizersMode()

/** Every open /stream response, stepped together: each step takes the next id of every stream. */
const open = new Map() // stream -> { rest: ids still to step (reversed), res }
let stepping = false
async function stepAll() {
  stepping = true
  while (open.size > 0) {
    const streams = [...open.keys()]
    const ids = streams.map((s) => open.get(s).rest.pop())
    let deltas
    try {
      deltas = await mode.stepMany(streams, ids)
    } catch (e) {
      deltas = streams.map(() => e) // a step that fails ends the streams of that call
    }
    streams.forEach((s, i) => {
      const { rest, res } = open.get(s)
      const d = deltas[i]
      if (d instanceof Error) res.write(`data: ${JSON.stringify({ error: `${d.name}: ${d.message}` })}\n\n`)
      else if (d) res.write(`data: ${JSON.stringify({ text: d })}\n\n`) // null: no complete text yet
      if (rest.length === 0 || d instanceof Error) {
        res.end('data: [DONE]\n\n')
        open.delete(s)
      }
    })
    await nextTurn() // let other requests run between steps
  }
  stepping = false
}

function respond(res, status, answer) {
  const body = JSON.stringify(answer)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body)
}

const checkIds = (ids) => {
  if (!Array.isArray(ids) || !ids.every((i) => Number.isInteger(i) && i >= 0 && i < 2 ** 32)) {
    throw new TypeError('ids must be a list of ints in 0..2**32')
  }
  return ids
}

const routes = {
  '/tokenize': async (req) => ({ ids: await mode.encode(req.text, req.add_special_tokens ?? true) }),
  '/detokenize': async (req) => ({ text: await mode.decode(checkIds(req.ids), req.skip_special_tokens ?? true) }),
  '/chat': async (req) => ({ ids: await mode.chat(req.messages, req.tools ?? null, req.add_generation_prompt ?? true) }),
}

const server = http.createServer(async (request, res) => {
  const chunks = []
  for await (const chunk of request) chunks.push(chunk)
  const route = request.url
  if (request.method !== 'POST' || !(route in routes || route === '/stream')) {
    return respond(res, 404, { error: `no ${request.method} ${route}` })
  }
  try {
    const req = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    if (typeof req !== 'object' || req === null) throw new TypeError('the body must be a JSON object')
    if (route !== '/stream') return respond(res, 200, await routes[route](req))
    const ids = checkIds(req.ids)
    const stream = mode.newStream(req.skip_special_tokens ?? false)
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    if (ids.length === 0) return res.end('data: [DONE]\n\n')
    open.set(stream, { rest: ids.toReversed(), res })
    if (!stepping) stepAll()
  } catch (e) {
    respond(res, 400, { error: `${e.name}: ${e.message}` }) // a bad request: say what was wrong
  }
})
server.listen(Number(opts.port), opts.host, () => {
  const { address, port } = server.address()
  console.log(`listening on ${address}:${port} (mode ${opts.mode})`)
})
