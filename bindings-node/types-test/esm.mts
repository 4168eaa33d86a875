// Type-checked by `npm run typecheck` (and tests/node/loop.test.mjs): a typical ESM program.
import {
  Tokenizer,
  Encoding,
  AbortError,
  TrajectoryError,
  packTrajectories,
  packTrajectoriesSync,
  type EncodeOptions,
  type TokenIds,
  type ChatMessage,
  type ChatTemplateDict,
  type Trajectory,
  type TokenizedResult,
  type PackedTensors,
} from 'yieldtok'
import yieldtok from 'yieldtok'

export async function main(path: string): Promise<number> {
  const tok: Tokenizer = Tokenizer.fromDir(path)
  const ac = new AbortController()
  const loaded: Tokenizer = await Tokenizer.load(path, { signal: ac.signal })
  void loaded
  const opts: EncodeOptions = { addSpecialTokens: false, signal: ac.signal }
  const enc: Encoding = await tok.encode('hello', opts)
  const ids: Uint32Array = enc.ids
  const offsets: Uint32Array = enc.offsets
  const [s, e]: [number, number] = enc.offsetAt(0)
  const words: Array<number | null> = enc.wordIds
  const seqs: Array<number | null> = enc.sequenceIds
  const nSeq: number = enc.nSequences
  const span: [number, number] | null = enc.wordToTokens(0, 0) ?? enc.wordToChars(0) ?? enc.tokenToChars(0)
  const at: number | null = enc.charToToken(0) ?? enc.charToWord(0, 0) ?? enc.tokenToWord(0) ?? enc.tokenToSequence(0)
  void [words, seqs, nSeq, span, at]
  const n: number = enc.length + enc.attentionMask.length + enc.typeIds.length + enc.specialTokensMask.length
  const batch: Encoding[] = await tok.encodeBatch(['a', 'b'], { signal: null })
  const text: string = await tok.decode(ids, { skipSpecialTokens: false })
  const texts: string[] = await tok.decodeBatch([ids, [1, 2, 3]])
  const count: number = await tok.count('hello')
  const fast: Uint32Array = await tok.encodeIds('hello', { signal: ac.signal })
  const fastSync: Uint32Array = tok.encodeIdsSync('hello')
  const engine: 'fastokens' | 'yieldtok' | 'tokenizers' = await tok.waitForEngine()
  const why: string | null = tok.engineUnavailableReason
  void [fast, fastSync, engine, why, tok.engine]
  const sync: Encoding = tok.encodeSync('hello')
  const back: string = tok.decodeSync(Array.from(sync.ids))
  const maybe: number | undefined = tok.tokenToId('hello')
  const some: TokenIds = new Int32Array(2)
  try {
    await tok.encode('x', { signal: AbortSignal.abort() })
  } catch (err) {
    if (err instanceof AbortError) console.log(err.code, err.cause)
  }
  const messages: ChatMessage[] = [{ role: 'user', content: 'hi' }]
  const chatIds: Uint32Array = await tok.applyChatTemplate(messages, { addGenerationPrompt: true, signal: ac.signal })
  const chatText: string = await tok.applyChatTemplate(messages, { tokenize: false, kwargs: { enable_thinking: false } })
  const chatDict: ChatTemplateDict = tok.applyChatTemplateSync(messages, { returnDict: true, returnAssistantTokensMask: true })
  const mask: Uint32Array | undefined = chatDict.assistantMasks
  const trajectory: Trajectory = {
    messages_and_choices: [messages[0], { message: { role: 'assistant', content: 'yo' }, logprobs: { content: [{ token: 'token_id:1', logprob: -1 }] } }],
    reward: 1,
  }
  let results: TokenizedResult[] = []
  try {
    results = await tok.tokenizeTrajectories([[trajectory, trajectory]], { seed: 1n, scaleRewards: false, signal: ac.signal })
  } catch (err) {
    if (err instanceof TrajectoryError) results = err.results.filter(() => err.errors[0].group !== 0)
  }
  const fromJson: TokenizedResult[] = tok.tokenizeTrajectoriesSync('[]', { chatTemplateToolSchemaFormat: 'vllm_openai' })
  const promptId: bigint = results[0].promptId
  const packed: PackedTensors = await packTrajectories(results, { seqLen: 2048, seed: 0, signal: ac.signal })
  const tokens: BigInt64Array = packTrajectoriesSync(fromJson, { seqLen: 16, padTokenId: 0 }).tokens
  void [chatIds, chatText, mask, promptId, packed.logprobs, tokens]
  // @ts-expect-error seqLen is required
  void packTrajectoriesSync(results, {})
  // @ts-expect-error the sync API takes no signal
  tok.applyChatTemplateSync(messages, { signal: ac.signal })
  // @ts-expect-error the sync API takes no signal
  tok.encodeSync('x', { signal: ac.signal })
  // @ts-expect-error text must be a string
  await tok.encode(42)
  void yieldtok.Tokenizer
  return ids.length + offsets.length + s + e + n + batch.length + text.length + texts.length + count + back.length + (maybe ?? 0) + some.length + tok.getVocabSize() + tok.chunking.length + (tok.origin?.length ?? 0) + Tokenizer.fromJSON(new Uint8Array()).getVocabSize(false)
}
