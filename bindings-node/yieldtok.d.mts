import yieldtok from './yieldtok.js'

export { Tokenizer, Encoding, AbortError } from './yieldtok.js'
export type { EncodeOptions, DecodeOptions, TokenIds } from './yieldtok.js'
export default yieldtok
