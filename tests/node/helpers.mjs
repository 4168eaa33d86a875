// Shared helpers of the Node binding tests (not a test file itself).
import { createRequire } from 'node:module'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
export const PKG = path.join(ROOT, 'bindings-node')
export const FIXTURES = process.env.YIELDTOK_FIXTURES || path.join(ROOT, '.cache', 'fixtures')
export const NAMES = ['qwen3', 'llama3_1', 'gemma3', 'deepseek_v3', 'gpt4o', 'gptoss', 'llama2']

const pkgRequire = createRequire(path.join(PKG, 'package.json'))

/** The package under test (CommonJS entry); fails with a hint when the addon is not built. */
export function yieldtok() {
  try {
    return pkgRequire('./yieldtok.js')
  } catch (e) {
    throw new Error(`cannot load bindings-node (build it: cd bindings-node && npm ci && npx napi build --platform --release): ${e.message}`)
  }
}

/** Hugging Face's `tokenizers` npm package, the oracle (a devDependency of bindings-node). */
export function hfTokenizers() {
  return pkgRequire('tokenizers')
}

/** The folder of fixture `name`, fetched with scripts/fetch-fixtures.sh if missing. */
export function fixtureDir(name) {
  const dir = path.join(FIXTURES, name)
  if (!fs.existsSync(path.join(dir, 'tokenizer.json'))) {
    execFileSync('bash', [path.join(ROOT, 'scripts', 'fetch-fixtures.sh'), name], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, YIELDTOK_FIXTURES: FIXTURES },
    })
  }
  return dir
}

/** Seeded PRNG (mulberry32). */
export function rng(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export const FRAGMENTS = [
  "Hello world! How's it going? I'm fine, we've done it; they'll see. THE END.",
  'The quick brown fox jumps over the lazy dog. 1234567890 3.14159 1,000,000 2024-01-01 0x1F',
  'def encode(self, text: str) -> list[int]:\n    """Encode."""\n    return [t.id for t in self.tok(text)]\n',
  'function f(a, b) {\n\treturn a + b; // sum\n}\n\n\n',
  '{"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function"}]}',
  '  leading spaces\n\n\ttabs   and   runs of spaces  \n \n   trailing   ',
  '中文字符测试，日本語のテキスト、한국어 텍스트입니다.',
  'مرحبا بالعالم، هذا نص عربي. שלום עולם',
  'ภาษาไทยไม่มีช่องว่าง हिन्दी पाठ Русский текст Ελληνικά',
  'emoji 😀👍🏽👨‍👩‍👧‍👦🇫🇷 ✨ and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝟘𝟙𝟚',
  'combining: e\u0301 a\u0308 n\u0303 \u1100\u1161\u11a8; nbsp:\u00a0x; ls:\u2028; ideographic space:\u3000; zwsp:\u200b; bom:\ufeff',
  "I'VE DONE IT, 'S 'Re 'll 'd 's don't won't",
  '\r\n\r\nCRLF line\r\nend\n',
  '    indented code block\n        more\n',
  'URL https://example.com/a/b?c=d&e=f#g and email a.b@example.org',
]

/** A deterministic mixed text of about `bytes` UTF-16 units. */
export function mixedText(bytes, seed = 1) {
  const r = rng(seed)
  const parts = []
  let n = 0
  while (n < bytes) {
    const f = FRAGMENTS[Math.floor(r() * FRAGMENTS.length)]
    const sep = [' ', '\n', '', '\n\n', '  ', '\t'][Math.floor(r() * 6)]
    parts.push(f, sep)
    n += f.length + sep.length
  }
  return parts.join('')
}

/** Real text from /work/shared/data when present (optional), else null. */
export function realText(maxChars = 400_000) {
  const candidates = [process.env.YIELDTOK_DATA, path.join(ROOT, '..', 'shared', 'data'), '/work/shared/data'].filter(Boolean)
  for (const d of candidates) {
    const f = path.join(d, 'tau-airline-conversations.jsonl')
    if (fs.existsSync(f)) {
      const lines = fs.readFileSync(f, 'utf8').split('\n').filter(Boolean)
      const texts = []
      let n = 0
      for (const line of lines) {
        for (const m of JSON.parse(line).messages) {
          const t = typeof m.content === 'string' ? m.content : JSON.stringify(m.tool_calls ?? '')
          texts.push(t)
          n += t.length
        }
        if (n > maxChars) break
      }
      return texts.join('\n\n')
    }
  }
  return null
}

/** Added (special) tokens of a fixture, from its tokenizer.json. */
export function addedTokens(dir) {
  const j = JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer.json'), 'utf8'))
  return (j.added_tokens ?? []).map((t) => t.content)
}

/** Texts to test a fixture on: short edge cases, its special tokens, long mixed text. */
export function corpus(dir, { long = true } = {}) {
  const specials = addedTokens(dir).slice(0, 12)
  const texts = [
    ['empty', ''],
    ['space', ' '],
    ['newlines', '\n\n\n'],
    ...FRAGMENTS.map((f, i) => [`fragment-${i}`, f]),
    ['specials', specials.map((s, i) => `${s}text ${i}\n${s}`).join(' ') + ' tail'],
    ['lone-surrogates', 'a\ud800b\udfffc \udbff'],
    ['medium-mixed', mixedText(6_000, 7)],
  ]
  if (long) {
    texts.push(['long-mixed', mixedText(150_000, 42) + specials.slice(0, 3).join(' ')])
    // Long strings are read as UTF-16 and transcoded off the JS thread: lone surrogates in one.
    const m = mixedText(40_000, 5)
    texts.push(['long-lone-surrogates', m.slice(0, 20_000) + 'a\ud800b\udfffc \udbff' + m.slice(20_000) + '\ud83d'])
    const real = realText(200_000)
    if (real) texts.push(['long-real', real])
  }
  return texts
}

/** Char (code point) offsets -> UTF-16 offsets, for `text`. Lone surrogates count as one char. */
export function charToUtf16(text, pairs) {
  const index = [0]
  let u = 0
  for (const ch of text) {
    u += ch.length
    index.push(u)
  }
  return pairs.map(([s, e]) => [index[s], index[e]])
}

/** UTF-8 byte offsets -> UTF-16 offsets, for `text` (positions inside a char map to its start). */
export function byteToUtf16(text, pairs) {
  const buf = Buffer.from(text, 'utf8')
  const index = new Uint32Array(buf.length + 1)
  let b = 0
  let u = 0
  for (const ch of text) {
    const w = Buffer.byteLength(ch, 'utf8')
    for (let k = 0; k < w; k++) index[b + k] = u
    b += w
    u += ch.length
  }
  index[buf.length] = u
  return pairs.map(([s, e]) => [index[Math.min(s, buf.length)], index[Math.min(e, buf.length)]])
}

export function pairs(flat) {
  const out = []
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i], flat[i + 1]])
  return out
}

/**
 * CPU time (ms) used so far by the core scheduler's worker threads (named `yieldtok-<N>`), from
 * /proc (Linux). Unlike process.cpuUsage it is not blurred by other threads, and unlike wall time
 * it does not depend on how loaded the machine is. null where /proc is not available.
 */
export function workerCpuMs() {
  const dir = '/proc/self/task'
  if (!fs.existsSync(dir)) return null
  let ns = 0
  let found = 0
  for (const tid of fs.readdirSync(dir)) {
    try {
      const comm = fs.readFileSync(path.join(dir, tid, 'comm'), 'utf8').trim()
      if (!/^yieldtok-\d+$/.test(comm)) continue // the scheduler's workers, not e.g. yieldtok-engine-load
      ns += Number(fs.readFileSync(path.join(dir, tid, 'schedstat'), 'utf8').split(' ')[0])
      found++
    } catch {
      // the thread went away
    }
  }
  return found ? ns / 1e6 : null
}
