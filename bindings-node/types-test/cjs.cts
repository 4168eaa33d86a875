// Type-checked by `npm run typecheck`: a typical CommonJS program.
import yieldtok = require('yieldtok')

const { Tokenizer, AddedToken, packTrajectoriesSync, TrajectoryError } = yieldtok

export async function main(path: string): Promise<number[]> {
  const tok = Tokenizer.fromFile(path)
  const encs = tok.encodeBatchSync(['a', 'b'])
  const pairs: Array<[number, number]> = encs[0].offsetPairs()
  const json = encs[0].toJSON()
  const text: string = tok.applyChatTemplateSync([{ role: 'user', content: 'x' }], { tokenize: false })
  const results = tok.tokenizeTrajectoriesSync(new Uint8Array(2))
  const packed = packTrajectoriesSync(results, { seqLen: 8 })
  const isTrajectoryError = new Error() instanceof TrajectoryError
  tok.setTruncation(512, { strategy: 'OnlyFirst', direction: 'left', stride: 0 })
  tok.setPadding({ maxLength: 16, direction: 'left', padToken: '<pad>' })
  const added: number = tok.addTokens(['x', new AddedToken('<y>', true, { singleWord: true })])
  const vocab: Record<string, number> = tok.getVocab(false)
  const pair = await tok.encode('question', 'context', { addSpecialTokens: true })
  const mixed = tok.encodeBatchSync(['a', ['b', 'c']])
  tok.disableTruncation()
  tok.disablePadding()
  return [pairs.length, json.ids.length, (await tok.encode('x')).length, text.length, packed.nRows, Number(isTrajectoryError), added, Object.keys(vocab).length, pair.nSequences, mixed.length]
}
