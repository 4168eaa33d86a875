// tokenizeTrajectories and packTrajectories through the Node binding against what OpenPipe ART
// 0.5.18 itself produced for the committed fixture (tests/fixtures/trajectories-small.json and
// .art.json; see core/tests/trajectory_art.rs): every result field equal (ints exactly, floats
// to 1e-6, NaN = NaN, prompt ids as BigInts), ART's exception type where ART raised, every
// packed tensor, the row permutation and where each result went. Plus: the input forms (plain
// objects, JSON text, bytes), sync == async, per-trajectory errors that keep the rest, bad
// input, AbortSignal.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { ROOT, fixtureDir, yieldtok } from './helpers.mjs'

const { Tokenizer, AbortError, TrajectoryError, packTrajectories, packTrajectoriesSync } = yieldtok()

const CASES = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'fixtures', 'trajectories-small.json'), 'utf8')).cases
// ART's prompt and group ids are 64-bit: read long integer literals as strings (then BigInts).
const ART = JSON.parse(
  fs.readFileSync(path.join(ROOT, 'tests', 'fixtures', 'trajectories-small.art.json'), 'utf8').replace(/(?<=[:[,]\s*)(-?\d{16,})(?=\s*[,\]}])/g, '"$1"'),
).cases

const toks = new Map()
function tokFor(name) {
  if (!toks.has(name)) toks.set(name, Tokenizer.fromDir(fixtureDir(name)))
  return toks.get(name)
}

/** ART's options (snake_case) as tokenizeTrajectories options. */
function options(o, validate) {
  const out = { seed: o.seed ?? 0, validateSampledTokens: validate }
  const names = {
    allow_training_without_logprobs: 'allowTrainingWithoutLogprobs',
    scale_rewards: 'scaleRewards',
    shuffle_group_trajectories: 'shuffleGroupTrajectories',
    drop_zero_advantage_trajectories: 'dropZeroAdvantageTrajectories',
    chat_template_kwargs: 'chatTemplateKwargs',
    chat_template_tool_schema_format: 'chatTemplateToolSchemaFormat',
  }
  for (const [k, v] of Object.entries(names)) if (o[k] != null) out[v] = o[k]
  return out
}

function packOptions(p) {
  const out = { seqLen: p.seq_len, seed: p.seed ?? 0 }
  if (p.pad_token_id != null) out.padTokenId = p.pad_token_id
  if (p.truncate_long_results != null) out.truncateLongResults = p.truncate_long_results
  if (p.advantage_balance != null) out.advantageBalance = p.advantage_balance
  if (p.pack_results != null) out.packResults = p.pack_results
  return out
}

function float(v) {
  if (typeof v === 'number') return v
  if (typeof v === 'boolean') return Number(v)
  return { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity }[v]
}

function close(a, b) {
  return (Number.isNaN(a) && Number.isNaN(b)) || a === b || Math.abs(a - b) <= 1e-6 * Math.max(Math.abs(a), Math.abs(b), 1)
}

function sameInts(got, want) {
  return got.length === want.length && want.every((w, i) => BigInt(got[i]) === BigInt(w))
}

function sameFloats(got, want) {
  return got.length === want.length && want.every((w, i) => close(Number(got[i]), float(w)))
}

/** Differences between one of our results and ART's (empty: equal). */
function compareResult(ours, art) {
  const bad = []
  if (!(ours.tokenIds instanceof Uint32Array) || !(ours.assistantMask instanceof Uint8Array) || !(ours.logprobs instanceof Float64Array)) bad.push('types')
  if (!sameInts(ours.tokenIds, art.token_ids)) bad.push('tokenIds')
  if (!sameInts(ours.assistantMask, art.assistant_mask)) bad.push('assistantMask')
  if (!sameFloats(ours.logprobs, art.logprobs)) bad.push('logprobs')
  if (!sameInts(ours.inputPos, art.input_pos)) bad.push('inputPos')
  if (!sameInts(ours.choiceOffsets, art.choice_offsets)) bad.push('choiceOffsets')
  if (JSON.stringify(Object.keys(ours.extraLogprobs)) !== JSON.stringify(Object.keys(art.extra_logprobs))) bad.push('extraLogprobs keys')
  else for (const [k, v] of Object.entries(art.extra_logprobs)) if (!sameFloats(ours.extraLogprobs[k], v)) bad.push(`extraLogprobs.${k}`)
  if (!close(ours.advantage, float(art.advantage))) bad.push('advantage')
  if (!close(ours.weight, float(art.weight))) bad.push('weight')
  if (typeof ours.promptId !== 'bigint' || ours.promptId !== BigInt(art.prompt_id)) bad.push(`promptId ${ours.promptId} vs ${art.prompt_id}`)
  if (ours.promptLength !== art.prompt_length) bad.push('promptLength')
  if (typeof art.chat === 'string' && ours.chat !== art.chat) bad.push('chat')
  const prov = [ours.groupIndex, ours.trajectoryIndex, ours.historyIndex]
  if (JSON.stringify(prov) !== JSON.stringify([art.group_index, art.trajectory_index, art.history_index])) bad.push('provenance')
  return bad
}

/** A packed tensor's rows, re-padded where the fixture stores them trimmed. */
function rows(t) {
  const width = t.shape[1]
  return t.data.map((r) => {
    const row = r.slice()
    while ('pad' in t && row.length < width) row.push(t.pad)
    return row
  })
}

function comparePacked(ours, art) {
  const bad = []
  if (JSON.stringify(ours.shape) !== JSON.stringify(art.tokens.shape)) return [`shape ${ours.shape} vs ${art.tokens.shape}`]
  for (const name of ['tokens', 'groupIds', 'parentIds', 'inputPos']) {
    const key = name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
    if (!(ours[name] instanceof BigInt64Array)) bad.push(`${name} type`)
    if (!sameInts(ours[name], rows(art[key]).flat())) bad.push(name)
  }
  if (!(ours.assistantMask instanceof Uint8Array) || !sameInts(ours.assistantMask, rows(art.assistant_mask).flat().map(Number))) bad.push('assistantMask')
  for (const name of ['logprobs', 'advantages', 'weights']) {
    if (!(ours[name] instanceof Float32Array)) bad.push(`${name} type`)
    if (!sameFloats(ours[name], rows(art[name]).flat())) bad.push(name)
  }
  if (!sameInts(ours.permutation, art.permutation)) bad.push('permutation')
  const prov = ours.provenance.map((p) => [p.resultIndex, p.row, p.offset, String(p.groupId), p.promptStripped])
  const want = art.provenance.map((p) => [p.result_index, p.row, p.offset, String(p.group_id), p.prompt_stripped])
  if (JSON.stringify(prov) !== JSON.stringify(want)) bad.push('provenance')
  return bad
}

/** The first error in ART's order (group, trajectory, history). */
function firstError(errors) {
  const key = (e) => [e.group ?? 0, e.trajectory ?? 0, e.history ?? 0]
  return errors.slice().sort((a, b) => {
    const [x, y] = [key(a), key(b)]
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2]
  })[0]
}

function sameException(ours, art) {
  if (ours === 'TemplateError') return art.includes('Error') && !['ValueError', 'KeyError', 'AssertionError'].includes(art)
  return ours === art || (ours === 'ValueError' && art === 'UnicodeDecodeError')
}

test('tokenizeTrajectories and packTrajectories equal ART 0.5.18 on the fixture', async (t) => {
  let results = 0
  let packed = 0
  let errors = 0
  const failures = []
  for (const out of ART) {
    const input = CASES.find((c) => c.name === out.name)
    const tok = tokFor(input.tokenizer)
    const opts = options(out.options ?? input.options, false)
    if (!out.ok) {
      const err = await tok.tokenizeTrajectories(input.groups, opts).then(
        () => null,
        (e) => e,
      )
      if (!(err instanceof TrajectoryError)) failures.push(`${out.name}: ART raised ${out.error.type}, we gave ${err}`)
      else if (!sameException(firstError(err.errors).artException, out.error.type)) failures.push(`${out.name}: ${firstError(err.errors).message} vs ART's ${out.error.type}`)
      else errors++
      continue
    }
    let ours
    try {
      ours = await tok.tokenizeTrajectories(input.groups, opts)
    } catch (e) {
      failures.push(`${out.name}: ART succeeded, we report ${e.message}`)
      continue
    }
    if (ours.length !== out.results.length) {
      failures.push(`${out.name}: ${ours.length} results vs ART's ${out.results.length}`)
      continue
    }
    ours.forEach((r, i) => {
      const bad = compareResult(r, out.results[i])
      if (bad.length) failures.push(`${out.name} result ${i}: ${bad.join(', ')}`)
    })
    results += ours.length
    if (out.pack_options && out.packed?.ok) {
      const p = await packTrajectories(ours, packOptions(out.pack_options))
      const bad = comparePacked(p, out.packed)
      if (bad.length) failures.push(`${out.name} packed: ${bad.join(', ')}`)
      assert.deepEqual(packTrajectoriesSync(ours, packOptions(out.pack_options)), p, `${out.name}: packTrajectoriesSync`)
      packed++
    }
  }
  t.diagnostic(`${results} results, ${packed} packed cases, ${errors} errors equal ART's`)
  assert.deepEqual(failures, [])
  assert.ok(results > 10 && packed >= 5 && errors >= 1, `${results} results, ${packed} packed, ${errors} errors`)
})

test('input as objects, JSON text or bytes; sync equals async; validation on by default', async () => {
  for (const input of CASES.filter((c) => c.name.endsWith('-basic'))) {
    const tok = tokFor(input.tokenizer)
    const opts = options(input.options, false)
    const fromObjects = await tok.tokenizeTrajectories(input.groups, opts)
    const text = JSON.stringify(input.groups)
    assert.deepEqual(await tok.tokenizeTrajectories(text, opts), fromObjects)
    assert.deepEqual(await tok.tokenizeTrajectories(Buffer.from(text), opts), fromObjects)
    assert.deepEqual(await tok.tokenizeTrajectories(new TextEncoder().encode(text).buffer, opts), fromObjects)
    assert.deepEqual(tok.tokenizeTrajectoriesSync(input.groups, opts), fromObjects)
    // the default (validating) mode gives the same results on valid input
    assert.deepEqual(await tok.tokenizeTrajectories(input.groups, { ...opts, validateSampledTokens: undefined }), fromObjects)
    // the same seed, the same draws; BigInt seeds are seeds too
    assert.deepEqual(await tok.tokenizeTrajectories(input.groups, { ...opts, seed: BigInt(opts.seed) }), fromObjects)
  }
})

/** A short valid trajectory for qwen3 (the answer "Sunny." sampled token by token). */
function trajectory(reward, token = 'token_id:50') {
  return {
    reward,
    messages_and_choices: [
      { role: 'user', content: 'Weather?' },
      { finish_reason: 'stop', index: 0, message: { role: 'assistant', content: 'Sunny.' }, logprobs: { content: [{ token, logprob: -0.5 }, { token: 'token_id:151645', logprob: -0.1 }] } },
    ],
  }
}

test('per-trajectory errors reject with a TrajectoryError that keeps every other result', async () => {
  const tok = tokFor('qwen3')
  const groups = [
    [trajectory(1), trajectory(0)],
    [trajectory(1), { reward: 0, messages_and_choices: [{ content: 'no role' }] }, trajectory(0, 'token_id:999999999'), trajectory(0.5)],
  ]
  const good = await tok.tokenizeTrajectories([groups[0]], { seed: 1 })
  assert.equal(good.length, 2)
  const err = await tok.tokenizeTrajectories(groups, { seed: 1 }).then(() => null, (e) => e)
  assert.ok(err instanceof TrajectoryError && err instanceof Error, String(err))
  assert.equal(err.name, 'TrajectoryError')
  assert.equal(err.code, 'TRAJECTORY_ERRORS')
  assert.equal(err.errors.length, 2)
  assert.match(err.message, /group 1, trajectory (1|2)/)
  assert.match(err.message, /and 1 more failed trajector/)
  const locs = err.errors.map((e) => [e.group, e.trajectory]).sort()
  assert.deepEqual(locs, [[1, 1], [1, 2]])
  for (const e of err.errors) assert.ok(typeof e.message === 'string' && typeof e.reason === 'string' && e.message.endsWith(e.reason))
  assert.ok(err.errors.some((e) => /out of the vocabulary/.test(e.reason) && e.kind === 'token_id_out_of_vocabulary'))
  // the rest: group 0 whole, and group 1's good trajectories
  assert.deepEqual(err.results.map((r) => r.groupIndex).sort(), [0, 0, 1, 1])
  assert.deepEqual(err.results.filter((r) => r.groupIndex === 0), good, 'group 0 is unaffected')
  assert.throws(() => tok.tokenizeTrajectoriesSync(groups, { seed: 1 }), (e) => e instanceof TrajectoryError && e.results.length === 4)
  // ART's behaviour: the bad sampled id is spliced without validation
  const lenient = await tok.tokenizeTrajectories([[trajectory(1, 'token_id:999999999'), trajectory(0)]], { validateSampledTokens: false, seed: 1 })
  assert.ok(lenient.some((r) => r.tokenIds.includes(999999999)))
})

test('bad input and options reject with clear errors; the tokenizer keeps working', async () => {
  const tok = tokFor('qwen3')
  for (const v of [undefined, null, 42, {}, new Uint16Array(3)]) {
    await assert.rejects(tok.tokenizeTrajectories(v), (e) => e instanceof TypeError && /groups must be/.test(e.message))
    assert.throws(() => tok.tokenizeTrajectoriesSync(v), TypeError)
  }
  await assert.rejects(tok.tokenizeTrajectories('[[{'), (e) => e instanceof Error && e.code === 'InvalidArg' && /not valid JSON at line 1 column \d+/.test(e.message))
  await assert.rejects(tok.tokenizeTrajectories('{"a": 1}'), /expected a list of trajectory groups/)
  await assert.rejects(tok.tokenizeTrajectories(new Uint8Array([0x5b, 0xff, 0x5d])), /UTF-8/)
  await assert.rejects(tok.tokenizeTrajectories([], { seed: 1.5 }), (e) => e instanceof TypeError && /seed must be an integer/.test(e.message))
  await assert.rejects(tok.tokenizeTrajectories([], { scaleRewards: 'no' }), /scaleRewards must be a boolean/)
  await assert.rejects(tok.tokenizeTrajectories([], { chatTemplateKwargs: [] }), /chatTemplateKwargs must be an object/)
  await assert.rejects(tok.tokenizeTrajectories([], { chatTemplateToolSchemaFormat: 'x' }), /'default' or 'vllm_openai'/)
  assert.deepEqual(await tok.tokenizeTrajectories([]), [])
  assert.deepEqual(await tok.tokenizeTrajectories([[]]), [])
  // a tokenizer without a chat template
  const bare = Tokenizer.fromFile(path.join(fixtureDir('qwen3'), 'tokenizer.json'))
  await assert.rejects(bare.tokenizeTrajectories([[trajectory(1), trajectory(0)]]), (e) => !(e instanceof TrajectoryError) && /chat template/.test(e.message))
  // packing
  const results = await tok.tokenizeTrajectories([[trajectory(1), trajectory(0)]], { seed: 2 })
  await assert.rejects(packTrajectories(results), /seqLen is required/)
  await assert.rejects(packTrajectories(results, { seqLen: 0 }), RangeError)
  await assert.rejects(packTrajectories('x', { seqLen: 8 }), TypeError)
  await assert.rejects(packTrajectories([{}], { seqLen: 8 }), /results\[0\]\.promptId/)
  await assert.rejects(packTrajectories(results, { seqLen: 64, seed: 'x' }), /seed must be an integer/)
  const broken = { ...results[0], logprobs: results[0].logprobs.subarray(1) }
  await assert.rejects(packTrajectories([broken], { seqLen: 64 }), (e) => e instanceof Error && /differ in length/.test(e.message))
  assert.throws(() => packTrajectoriesSync([broken], { seqLen: 64 }), /differ in length/)
  // plain arrays are accepted too (results rebuilt from JSON, say)
  const plain = results.map((r) => ({ ...r, tokenIds: Array.from(r.tokenIds), logprobs: Array.from(r.logprobs), promptId: r.promptId }))
  assert.deepEqual(packTrajectoriesSync(plain, { seqLen: 64, seed: 0 }), packTrajectoriesSync(results, { seqLen: 64, seed: 0 }))
  // still works
  assert.deepEqual(await tok.tokenizeTrajectories([[trajectory(1), trajectory(0)]], { seed: 2 }), results)
})

test('AbortSignal: tokenizeTrajectories and packTrajectories reject with an AbortError', async () => {
  const tok = tokFor('qwen3')
  const groups = [[trajectory(1), trajectory(0)]]
  const signal = AbortSignal.abort()
  await assert.rejects(tok.tokenizeTrajectories(groups, { signal }), (e) => e instanceof AbortError && e.cause === signal.reason)
  const ac = new AbortController()
  const p = tok.tokenizeTrajectories(groups, { signal: ac.signal })
  ac.abort()
  await assert.rejects(p, AbortError)
  const results = await tok.tokenizeTrajectories(groups, { seed: 0 })
  await assert.rejects(packTrajectories(results, { seqLen: 64, signal }), AbortError)
  assert.equal((await packTrajectories(results, { seqLen: 64, seed: 0 })).nRows, 1)
})

test('non-finite numbers in objects: a -Infinity logprob is kept (as ART keeps it), a NaN or infinite reward fails only its trajectory', async () => {
  // (issue 17, item 3; the same batch as tests/python/test_trajectory_bad_values.py.)
  // JSON.stringify would turn these into null silently; they reach the core as the values.
  const tok = tokFor('qwen3')
  const negInf = (reward) => {
    const t = trajectory(reward)
    t.messages_and_choices[1].logprobs.content[1].logprob = -Infinity
    return t
  }
  const groups = [
    [trajectory(1), trajectory(NaN), negInf(0)],
    [trajectory(1), trajectory(0)],
    [trajectory(Infinity), trajectory(1), trajectory(0)],
  ]
  const check = (e) => {
    assert.ok(e instanceof TrajectoryError, String(e))
    assert.deepEqual(e.errors.map((f) => [f.group, f.trajectory]), [[0, 1], [2, 0]])
    assert.ok(e.errors.every((f) => f.kind === 'invalid_input'), JSON.stringify(e.errors))
    assert.match(e.errors[0].message, /reward/)
    assert.match(e.errors[0].message, /NaN/)
    assert.match(e.errors[1].message, /reward/)
    assert.match(e.errors[1].message, /inf/i)
    const kept = e.results.map((r) => [r.groupIndex, r.trajectoryIndex]).sort()
    assert.deepEqual(kept, [[0, 0], [0, 2], [1, 0], [1, 1], [2, 1], [2, 2]])
    // each group's statistics without its bad trajectory
    for (const r of e.results) assert.ok(Math.abs(Math.abs(r.advantage) - 1) < 1e-5, String(r.advantage))
    const [kept02] = e.results.filter((r) => r.groupIndex === 0 && r.trajectoryIndex === 2)
    assert.ok(Array.from(kept02.logprobs).includes(-Infinity), 'the -Infinity logprob is kept')
    return true
  }
  await assert.rejects(tok.tokenizeTrajectories(groups, { seed: 5 }), check)
  assert.throws(() => tok.tokenizeTrajectoriesSync(groups, { seed: 5 }), check)
  // ART's behaviour (validateSampledTokens: false): a NaN or infinite reward makes its group's advantages NaN.
  const art = await tok.tokenizeTrajectories(groups, { seed: 5, validateSampledTokens: false })
  for (const g of [0, 2]) {
    const adv = art.filter((r) => r.groupIndex === g).map((r) => r.advantage)
    assert.ok(adv.length === 3 && adv.every(Number.isNaN), `group ${g}: ${adv}`)
  }
  // Strings that look like the numbers are strings still, not the values.
  const asText = [[{ ...trajectory(1), messages_and_choices: [{ role: 'user', content: 'NaN Infinity -Infinity' }, trajectory(1).messages_and_choices[1]] }, trajectory(0)]]
  const out = await tok.tokenizeTrajectories(asText, { seed: 5 })
  assert.match(out.find((r) => r.trajectoryIndex === 0).chat, /NaN Infinity -Infinity/)
})
