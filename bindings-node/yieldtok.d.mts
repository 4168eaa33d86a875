import yieldtok from './yieldtok.js'

export { Tokenizer, Encoding, AddedToken, DecodeStream, AbortError, TrajectoryError, packTrajectories, packTrajectoriesSync } from './yieldtok.js'
export type {
  EncodeOptions,
  TruncationOptions,
  PaddingOptions,
  AddedTokenOptions,
  DecodeOptions,
  DecodeStreamOptions,
  TokenIds,
  ChatMessage,
  ChatTemplateOptions,
  ChatTemplateDict,
  TokenLogprob,
  Choice,
  History,
  Trajectory,
  TrajectoryGroup,
  TrajectoryOptions,
  TokenizedResult,
  TrajectoryErrorInfo,
  PackOptions,
  PackableResult,
  PackedResult,
  PackedTensors,
} from './yieldtok.js'
export default yieldtok
