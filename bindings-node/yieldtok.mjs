// ESM entry: the same objects as the CommonJS entry (one native addon per process).
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const yieldtok = require('./yieldtok.js')

export const { Tokenizer, Encoding, AddedToken, DecodeStream, AbortError, TrajectoryError, packTrajectories, packTrajectoriesSync } = yieldtok
export default yieldtok
