// Type-checked by `npm run typecheck`: a typical CommonJS program.
import yieldtok = require('yieldtok')

const { Tokenizer, packTrajectoriesSync, TrajectoryError } = yieldtok

export async function main(path: string): Promise<number[]> {
  const tok = Tokenizer.fromFile(path)
  const encs = tok.encodeBatchSync(['a', 'b'])
  const pairs: Array<[number, number]> = encs[0].offsetPairs()
  const json = encs[0].toJSON()
  const text: string = tok.applyChatTemplateSync([{ role: 'user', content: 'x' }], { tokenize: false })
  const results = tok.tokenizeTrajectoriesSync(new Uint8Array(2))
  const packed = packTrajectoriesSync(results, { seqLen: 8 })
  const isTrajectoryError = new Error() instanceof TrajectoryError
  return [pairs.length, json.ids.length, (await tok.encode('x')).length, text.length, packed.nRows, Number(isTrajectoryError)]
}
