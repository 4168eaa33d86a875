// Type-checked by `npm run typecheck`: a typical CommonJS program.
import yieldtok = require('yieldtok')

const { Tokenizer } = yieldtok

export async function main(path: string): Promise<number[]> {
  const tok = Tokenizer.fromFile(path)
  const encs = tok.encodeBatchSync(['a', 'b'])
  const pairs: Array<[number, number]> = encs[0].offsetPairs()
  const json = encs[0].toJSON()
  return [pairs.length, json.ids.length, (await tok.encode('x')).length]
}
