/**
 * yieldtok for Node.js: exact, chunked, yield-cooperative tokenization of Hugging Face
 * `tokenizer.json` tokenizers.
 *
 * The async methods (`encode`, `encodeBatch`, `count`, ...) run on the yieldtok core's own thread
 * pool (one thread per core, `YIELDTOK_THREADS` to change it), never on libuv's pool, in small
 * pieces scheduled fairly across requests: the event loop stays free during a long encode and a
 * short request waits for about one piece, not for a whole long request. The result's arrays
 * are handed over without a per-token copy on the main thread. Ids, offsets and masks are
 * exactly those of Hugging Face `tokenizers` for the whole text. Long decodes, chat templates
 * (`applyChatTemplate`, byte-identical to transformers), trajectory tokenization
 * (`tokenizeTrajectories`, OpenPipe ART's results) and packing (`packTrajectories`) run on the
 * same pool, each as one unit of work.
 *
 * The `...Sync` twins block the calling thread (they use the pool for long texts); use them in
 * scripts and tools.
 *
 * Errors: bad argument types throw (sync) or reject (async) with a `TypeError` / `RangeError`;
 * errors from the core (missing file, corrupt `tokenizer.json`, id out of range, ...) are plain
 * `Error`s carrying the core's message, with `code` `'InvalidArg'` (bad input) or
 * `'GenericFailure'` (I/O and the like). No input crashes the process, and a tokenizer keeps
 * working after any error.
 */

/** Token ids: a `Uint32Array` (used as is), or any array / typed array of integers in 0..2^32-1. */
export type TokenIds = Uint32Array | ArrayLike<number>

export interface EncodeOptions {
  /** Add the post-processor's special tokens (e.g. BOS), like `tokenizers`. Default `true`. */
  addSpecialTokens?: boolean
  /**
   * Abort the call: the pieces not yet started are cancelled, the work stops, and the promise
   * rejects with an {@link AbortError} (its `cause` is `signal.reason`). Async methods only.
   * Any number of calls may share a signal.
   */
  signal?: AbortSignal | null
}

/** Options of `setTruncation`, as the `tokenizers` npm package's. */
export interface TruncationOptions {
  /** Tokens of the previous part repeated at the start of each overflowing part (default 0). */
  stride?: number
  /** Which sequence of a pair loses tokens (default `'LongestFirst'`; the snake_case names work too). */
  strategy?: 'LongestFirst' | 'OnlyFirst' | 'OnlySecond' | 'longest_first' | 'only_first' | 'only_second'
  /** Which end is cut (default `'right'`). */
  direction?: 'left' | 'right'
}

/** Options of `setPadding`, as the `tokenizers` npm package's. */
export interface PaddingOptions {
  /** Pad to this many tokens; absent: a batch to its longest item. */
  maxLength?: number
  /** Which side gets the padding (default `'right'`; `0`/`1` are the npm package's `PaddingDirection.Left`/`Right`). */
  direction?: 'left' | 'right' | 0 | 1
  /** Round the padded length up to a multiple of this. */
  padToMultipleOf?: number
  padId?: number
  padTypeId?: number
  /** Default `'[PAD]'`. */
  padToken?: string
}

/** Options of `new AddedToken`, as `tokenizers`' `AddedToken`. */
export interface AddedTokenOptions {
  /** Match only as a whole word (default false). */
  singleWord?: boolean
  /** Take in the whitespace on its left (default false). */
  leftStrip?: boolean
  /** Take in the whitespace on its right (default false). */
  rightStrip?: boolean
  /** Match in the normalized text (default: `!isSpecial`). */
  normalized?: boolean
}

/** A token to add to the vocabulary (`addTokens`, `addSpecialTokens`, `addAddedTokens`). */
export declare class AddedToken {
  constructor(token: string, isSpecial?: boolean, options?: AddedTokenOptions | null)
  readonly content: string
  readonly special: boolean
  readonly singleWord: boolean
  readonly leftStrip: boolean
  readonly rightStrip: boolean
  readonly normalized: boolean
  getContent(): string
}

export interface DecodeOptions {
  /** Leave out special tokens (BOS, EOS, chat markers...). Default `true`, like `tokenizers`. */
  skipSpecialTokens?: boolean
}

/**
 * An encoded text. `ids`, `attentionMask`, `typeIds` and `specialTokensMask` have one entry per
 * token. The arrays of the encodings of one `encodeBatch` call are views on one shared buffer;
 * treat them as read-only.
 */
export declare class Encoding {
  private constructor()
  /** Number of tokens. */
  readonly length: number
  /** Token ids. */
  readonly ids: Uint32Array
  /**
   * Offsets, flat, **in UTF-16 code units** (JavaScript string indices, as `String.prototype.slice`
   * takes them): token `i` came from `text.slice(offsets[2 * i], offsets[2 * i + 1])`. Length is
   * `2 * length`. Special tokens added by the post-processor have `[0, 0]`. (Python's binding
   * reports Unicode code points instead; the two differ only around characters outside the BMP,
   * such as emoji, which take two UTF-16 code units.)
   */
  readonly offsets: Uint32Array
  /** 1 for every token (no padding is applied). */
  readonly attentionMask: Uint32Array
  /** Segment (type) ids set by the post-processor. */
  readonly typeIds: Uint32Array
  /** 1 for special tokens added by the post-processor, else 0. */
  readonly specialTokensMask: Uint32Array
  /**
   * The word of each token (a pre-tokenizer split, counted over the whole text; added tokens in
   * the text are words too), `null` for special tokens added by the post-processor: `tokenizers`'
   * `getWordIds()`. A new plain array on each read.
   */
  readonly wordIds: Array<number | null>
  /** The sequence (0, or 1 for a pair's second text) of each token, `null` for added special tokens: `getSequenceIds()`. */
  readonly sequenceIds: Array<number | null>
  /** 1 for a single text, 2 for a pair: `getNSequences()`. */
  readonly nSequences: number
  /*
   * The alignment methods of `tokenizers`' `Encoding`, with its semantics; `null` where it has
   * no answer. Positions and spans are in UTF-16 code units, as {@link Encoding.offsets} (the
   * `tokenizers` npm package counts Unicode code points; the two differ only around characters
   * outside the BMP). Arguments must be non-negative integers (else a `RangeError`). Each call
   * scans the tokens, as there.
   */
  /** Token range `[start, end)` of word `word` of sequence `seqId`. */
  wordToTokens(word: number, seqId?: number): [number, number] | null
  /** Span `[start, end)` of word `word` of sequence `seqId`. */
  wordToChars(word: number, seqId?: number): [number, number] | null
  /** Span `[start, end)` of token `token`. */
  tokenToChars(token: number): [number, number] | null
  /** The word of token `token` within its sequence. */
  tokenToWord(token: number): number | null
  /** The sequence of token `token`. */
  tokenToSequence(token: number): number | null
  /** The first token of sequence `seqId` whose span holds position `pos`. */
  charToToken(pos: number, seqId?: number): number | null
  /** The word of the token whose span holds position `pos` in sequence `seqId`. */
  charToWord(pos: number, seqId?: number): number | null
  /** `[start, end)` of token `i`, in UTF-16 code units. Throws a `RangeError` for a bad index. */
  offsetAt(i: number): [number, number]
  /** All offsets as `[start, end)` pairs (allocates a small array per token). */
  offsetPairs(): Array<[number, number]>
  /** Plain arrays, for `JSON.stringify`. */
  toJSON(): {
    ids: number[]
    offsets: Array<[number, number]>
    attentionMask: number[]
    typeIds: number[]
    specialTokensMask: number[]
    wordIds: Array<number | null>
    sequenceIds: Array<number | null>
  }
}

/** A chat message: `role` and `content`, plus whatever else the template reads (`tool_calls`, `reasoning_content`, ...). */
export interface ChatMessage {
  role: string
  content?: unknown
  [key: string]: unknown
}

/**
 * Options of `applyChatTemplate`: transformers' `apply_chat_template` arguments, camelCased (the
 * same names as the browser binding's).
 */
export interface ChatTemplateOptions {
  /** Tool schemas (JSON schema objects, as transformers takes them). */
  tools?: object[] | null
  /** RAG documents (objects with e.g. `title` and `text`). */
  documents?: object[] | null
  /** End with the template's assistant header. Default `false`. */
  addGenerationPrompt?: boolean
  /**
   * Leave the final message open so that generation continues it. `true`: its `content`; a
   * string: that field of it (e.g. `'reasoning_content'`). Default `false`.
   */
  continueFinalMessage?: boolean | string | null
  /**
   * Return token ids (the rendered text encoded without special tokens, as transformers does)
   * instead of the text. Default `true`, like transformers.
   */
  tokenize?: boolean
  /** Return a {@link ChatTemplateDict}. Default `false`. */
  returnDict?: boolean
  /**
   * Compute transformers' `assistant_masks` (1 for tokens produced inside `{% generation %}`
   * blocks); returned in the dict (`returnDict: true`). Not compatible with `continueFinalMessage`.
   */
  returnAssistantTokensMask?: boolean
  /**
   * A template name (for tokenizers with named templates, e.g. `'tool_use'`) or a template
   * source. Default: the tokenizer's (`tokenizer_config.json` / `chat_template.jinja`; the
   * `tool_use` template when tools are given and there is one).
   */
  chatTemplate?: string | null
  /** Extra template variables (transformers' `**kwargs`), e.g. `{ enable_thinking: false }`. They override the special tokens. */
  kwargs?: Record<string, unknown> | null
  /** Abort the call (async only): rejects with an {@link AbortError}; a render not yet started never starts. */
  signal?: AbortSignal | null
}

/** What `applyChatTemplate` returns with `returnDict: true` (transformers' `BatchEncoding`, camelCased). */
export interface ChatTemplateDict {
  /** The rendered text; only with `tokenize: false`. */
  text?: string
  inputIds: Uint32Array
  /** All ones, one per token. */
  attentionMask: Uint32Array
  /** With `returnAssistantTokensMask`: 1 for assistant tokens (inside `{% generation %}`), else 0. */
  assistantMasks?: Uint32Array
}

type SyncChatTemplateOptions = Omit<ChatTemplateOptions, 'signal'>

/**
 * A sampled token of an assistant turn, as OpenAI's `logprobs.content` entries carry it:
 * `token` is `"token_id:<id>"` (vLLM's `return_tokens_as_token_ids`) or the token's string.
 */
export interface TokenLogprob {
  token: string
  logprob: number
  bytes?: number[] | null
  /** Other per-token values (e.g. a reference model's logprobs), by name. */
  extra_logprobs?: Record<string, number> | null
  [key: string]: unknown
}

/** An OpenAI `Choice` (what ART trains on): an object with `message` and no `role`. */
export interface Choice {
  message: { role?: string; content?: string | null; tool_calls?: object[] | null; [key: string]: unknown }
  logprobs?: { content?: TokenLogprob[] | null; refusal?: TokenLogprob[] | null } | null
  finish_reason?: string
  index?: number
  [key: string]: unknown
}

/** A history: messages (dicts) and Choices, with the tools the model saw. */
export interface History {
  messages_and_choices: Array<ChatMessage | Choice>
  tools?: object[] | null
}

/** An ART `Trajectory`, as plain data (snake_case, exactly ART's field names). */
export interface Trajectory extends History {
  additional_histories?: History[]
  /** Default 0. */
  reward?: number
  [key: string]: unknown
}

/** A trajectory group: a list of trajectories, or `{ trajectories: [...] }`. */
export type TrajectoryGroup = Trajectory[] | { trajectories: Trajectory[]; [key: string]: unknown }

/**
 * Options of `tokenizeTrajectories`: ART's `tokenize_trajectory_groups` arguments, camelCased,
 * with ART's defaults.
 */
export interface TrajectoryOptions {
  /** Train on plain-dict assistant messages too (their tokens get mask 1, logprobs NaN). Default `false`. */
  allowTrainingWithoutLogprobs?: boolean
  /** Divide advantages by the group's reward std (+1e-6). Default `true`. */
  scaleRewards?: boolean
  /** Shuffle each group's results (seeded by `seed`). Default `true`. */
  shuffleGroupTrajectories?: boolean
  /** Leave out trajectories whose advantage is 0. Default `true`. */
  dropZeroAdvantageTrajectories?: boolean
  /** Template variables; override ART's `enable_thinking: false` / `preserve_thinking: true`. */
  chatTemplateKwargs?: Record<string, unknown> | null
  /** ART's `chat_template_tool_schema_format`. Default `'default'`. */
  chatTemplateToolSchemaFormat?: 'default' | 'vllm_openai' | null
  /**
   * Seed of the prompt-id draws and the shuffles, as `random.seed(seed)` before ART's call (the
   * generator is CPython's, so the draws equal ART's). Default: fresh entropy.
   */
  seed?: number | bigint | null
  /**
   * Reject sampled ids outside the vocabulary, token strings that are not in it, and sampled ids
   * equal to the sentinel (ART splices them silently, giving wrong results). Default `true`;
   * `false` gives ART's output exactly.
   */
  validateSampledTokens?: boolean
  /** A chat template source to use instead of the tokenizer's. */
  chatTemplate?: string | null
  /** Abort the call (async only): rejects with an {@link AbortError}. */
  signal?: AbortSignal | null
}

/** One tokenized history: ART's `TokenizedResult`, with typed arrays. */
export interface TokenizedResult {
  /** The rendered chat's ids with every trainable turn's sampled ids spliced in. */
  tokenIds: Uint32Array
  /** 1 where the token was sampled (trained on), else 0. */
  assistantMask: Uint8Array
  /** The sampled tokens' logprobs, NaN elsewhere. */
  logprobs: Float64Array
  /** `0..length` (ART's `input_pos`). */
  inputPos: Uint32Array
  /** Start of each trained Choice's tokens in `tokenIds`. */
  choiceOffsets: Uint32Array
  /** Per name (first-seen order), the entries' `extra_logprobs`, NaN elsewhere. */
  extraLogprobs: Record<string, Float64Array>
  /** GRPO advantage of the trajectory. */
  advantage: number
  /** `1 / (trainable tokens of the trajectory + 1e-6)`. */
  weight: number
  /** Random 64-bit id shared by a group's results. */
  promptId: bigint
  /** Length of the group's shared prompt. */
  promptLength: number
  /** The rendered chat (`apply_chat_template(..., tokenize=False)`). */
  chat: string
  /** Where it came from: the group's index in the input. */
  groupIndex: number
  /** The trajectory's index in its group. */
  trajectoryIndex: number
  /** 0: the trajectory's `messages_and_choices`; k: `additional_histories[k - 1]`. */
  historyIndex: number
}

/** One failed trajectory (see {@link TrajectoryError}). */
export interface TrajectoryErrorInfo {
  /** Where and what, e.g. `group 1, trajectory 2, messages_and_choices, item 3: message has no 'role'`. */
  message: string
  /** What, without where. */
  reason: string
  /** A stable name of the kind of failure (`missing_role`, `token_id_out_of_vocabulary`, ...). */
  kind: string
  /** The exception ART 0.5.18 raises in the same situation (`'ValueError'`, ...), if any. */
  artException?: string | null
  group?: number | null
  trajectory?: number | null
  /** 0: `messages_and_choices`; k: `additional_histories[k - 1]`. */
  history?: number | null
  /** Index into that history's `messages_and_choices`. */
  item?: number | null
}

/**
 * Some trajectories failed (malformed input, a template error, a sampled token outside the
 * vocabulary, ...). Where ART aborts the whole call, nothing is lost here: `errors` lists every
 * failed trajectory (group by group) and `results` holds the results of all the others, exactly
 * as they would have been returned (a failed trajectory yields no results but its reward still
 * counts in its group's advantages, as in ART). `message` is the first error's.
 */
export declare class TrajectoryError extends Error {
  private constructor()
  readonly name: 'TrajectoryError'
  readonly code: 'TRAJECTORY_ERRORS'
  readonly errors: TrajectoryErrorInfo[]
  readonly results: TokenizedResult[]
}

/** Options of `packTrajectories`: ART's `packed_tensors_from_tokenized_results` arguments, camelCased. */
export interface PackOptions {
  /** Row length. Required. */
  seqLen: number
  /** Padding of `tokens`. Default `-100`. */
  padTokenId?: number | bigint
  /** Cut results longer than `seqLen` (else leave them out). Default `true`. */
  truncateLongResults?: boolean
  /** ART's `advantage_balance`. Default `0`. */
  advantageBalance?: number
  /** Put several results in a row (else one per row). Default `true`. */
  packResults?: boolean
  /** Seed of the group-id draws and the row shuffle (Python's `random`). Default: fresh entropy. */
  seed?: number | bigint | null
  /** Abort the call (async only): rejects with an {@link AbortError}. */
  signal?: AbortSignal | null
}

/** What packing reads of a result: a {@link TokenizedResult}, or the same fields as plain arrays. */
export interface PackableResult {
  tokenIds: TokenIds
  assistantMask: Uint8Array | ArrayLike<number>
  logprobs: Float64Array | ArrayLike<number>
  inputPos: Uint32Array | ArrayLike<number>
  advantage: number
  weight: number
  promptId: bigint | number
  promptLength: number
}

/** Where a packed result went. */
export interface PackedResult {
  /** Index in the input. */
  resultIndex: number
  /** Row before the shuffle (see `permutation`). */
  row: number
  /** Offset in that row. */
  offset: number
  groupId: bigint
  /** Its prompt was left out (shared with an earlier result in the row). */
  promptStripped: boolean
}

/**
 * ART's packed tensors, flat and row-major, shape `[nRows, seqLen]`; dtypes as ART's torch
 * tensors (int64 as `BigInt64Array`, bool as `Uint8Array`, float32 as `Float32Array`).
 */
export interface PackedTensors {
  nRows: number
  seqLen: number
  shape: [number, number]
  tokens: BigInt64Array
  groupIds: BigInt64Array
  parentIds: BigInt64Array
  inputPos: BigInt64Array
  assistantMask: Uint8Array
  logprobs: Float32Array
  advantages: Float32Array
  weights: Float32Array
  /** Output row `r` is row `permutation[r]` before the shuffle. */
  permutation: Uint32Array
  /** Per packed result, in packing order. */
  provenance: PackedResult[]
}

/**
 * Pack tokenized results into training tensors, as ART's
 * `packed_tensors_from_tokenized_results`, on the core's thread pool. The fields packing reads
 * are copied out of the results first (a memcpy on the calling thread). Bad options throw a
 * `TypeError` / `RangeError`; results whose arrays differ in length reject with an `Error`.
 */
export declare function packTrajectories(results: readonly PackableResult[], options: PackOptions): Promise<PackedTensors>
/** `packTrajectories`, on the calling thread. */
export declare function packTrajectoriesSync(results: readonly PackableResult[], options: Omit<PackOptions, 'signal'>): PackedTensors

/** Options of `new DecodeStream(options)`. */
export interface DecodeStreamOptions {
  /** Ids the stream's window starts with; as in `tokenizers`, the first step returns the text of these and the new ids together. */
  ids?: TokenIds
  /** Leave special tokens out of the text (default false, as `tokenizers`). */
  skipSpecialTokens?: boolean
}

/**
 * Incremental decoding of ids as they are generated: `tokenizers`' `DecodeStream` (same results,
 * state and "Invalid prefix" errors). `step` returns the text the new ids complete, or `null`
 * while more ids are needed (a character whose bytes are split across tokens). A stream is not
 * tied to one tokenizer: each step names the tokenizer to use.
 */
export declare class DecodeStream {
  constructor(options?: DecodeStreamOptions)
  /** Whether special tokens are left out of the text. */
  readonly skipSpecialTokens: boolean
  /** Add the next id (or ids); the text they complete, or `null`. Throws on an invalid prefix. */
  step(tokenizer: Tokenizer, id: number | TokenIds): string | null
  /**
   * Step many streams in one call: `streams[i]` gets `ids[i]`; returns what each `step` would.
   * Large batches run in parallel on the core's pool. Throws for lengths that differ or a stream
   * listed twice, and the first stream's error if a step fails (every stream was stepped).
   */
  static stepMany(tokenizer: Tokenizer, streams: readonly DecodeStream[], ids: readonly (number | TokenIds)[]): (string | null)[]
}

export declare class Tokenizer {
  private constructor()

  /**
   * Load a `tokenizer.json` file or a model folder (`tokenizer.json` plus
   * `tokenizer_config.json` / `chat_template.jinja`), whichever `path` is, off the event loop:
   * the parse (0.1-1.5 s of CPU) runs on the core's thread pool. `signal` rejects with an
   * {@link AbortError}; a load not yet started then never starts, one already running finishes
   * and its result is dropped. Load errors reject with an `Error` carrying the core's message.
   */
  static load(path: string, options?: { signal?: AbortSignal | null } | null): Promise<Tokenizer>
  /** Load a `tokenizer.json` file. Synchronous: blocks the calling thread for the whole load (see {@link Tokenizer.load}). */
  static fromFile(path: string): Tokenizer
  /**
   * Load a model folder: `tokenizer.json`, plus `tokenizer_config.json` and
   * `chat_template.jinja` when present. Synchronous (see {@link Tokenizer.load}).
   */
  static fromDir(path: string): Tokenizer
  /** Load from the text of a `tokenizer.json`, or its UTF-8 bytes (`Uint8Array`, `Buffer`, `ArrayBuffer`). */
  static fromJSON(json: string | Uint8Array | ArrayBuffer): Tokenizer

  /** The path the tokenizer was loaded from, or `null`. */
  readonly origin: string | null
  /** How texts are cut into pieces (the chunking family and rules), or why they are not. */
  readonly chunking: string

  /**
   * The engine serving ids-only work (`encodeIds`, `count`): `'fastokens'` on byte-level BPE
   * models once the fast engine has loaded (in the background, after the tokenizer), else `'yieldtok'` (the own engine,
   * when it serves this tokenizer), else `'tokenizers'`. Results are identical either way;
   * only speed differs.
   */
  readonly engine: 'fastokens' | 'yieldtok' | 'tokenizers'
  /**
   * The engine serving full encodings (`encode`, `encodeBatch`: ids, offsets, masks):
   * `'yieldtok'` (the own engine, checked against `tokenizers` at load) or `'tokenizers'`
   * (when the own engine refused this tokenizer; see {@link encodingEngineUnavailableReason}).
   */
  readonly encodingEngine: 'yieldtok' | 'tokenizers'
  /** Why the own engine does not serve this tokenizer (`null` when it does). */
  readonly encodingEngineUnavailableReason: string | null
  /** Why the fast engine does not serve this tokenizer (`null` while it loads, or once it does). */
  readonly engineUnavailableReason: string | null
  /** Resolves once the fast engine has loaded or been ruled out, to {@link engine}. */
  waitForEngine(): Promise<'fastokens' | 'yieldtok' | 'tokenizers'>

  /** Vocabulary size, with the added tokens by default. */
  getVocabSize(withAddedTokens?: boolean): number
  tokenToId(token: string): number | undefined
  idToToken(id: number): string | undefined
  /** Token -> id for the whole vocabulary, with the added tokens unless `withAddedTokens` is false (`tokenizers`' `getVocab`). */
  getVocab(withAddedTokens?: boolean): Record<string, number>

  /**
   * Add tokens to the vocabulary (a string is a non-special token), as `tokenizers`' `addTokens`;
   * returns how many were new. The tokenizer changes for every call that starts afterwards.
   */
  addTokens(tokens: ReadonlyArray<string | AddedToken>): number
  /** Add tokens as special tokens (skipped by `decode` with `skipSpecialTokens`); returns how many were new. */
  addSpecialTokens(tokens: ReadonlyArray<string | AddedToken>): number
  /** Add `AddedToken`s, each special or not as it says (`tokenizers`' `addAddedTokens`); returns how many were new. */
  addAddedTokens(tokens: ReadonlyArray<AddedToken>): number

  /**
   * Truncate every `encode`, `encodeIds` and batch to `maxLength` tokens (special tokens
   * included), exactly as `tokenizers`' `setTruncation`. `count`, chat templates and
   * trajectories never truncate. Encodings carry no overflowing parts, so right truncation of a
   * long text stops encoding once the kept tokens are certain. A stride the effective length
   * cannot hold throws (`code` `'InvalidArg'`).
   */
  setTruncation(maxLength: number, options?: TruncationOptions | null): void
  disableTruncation(): void
  /** Pad every encode as `tokenizers`' `setPadding`: to `maxLength`, else a batch to its longest item. */
  setPadding(options?: PaddingOptions | null): void
  disablePadding(): void

  /**
   * Encode `text`, or the pair `text` + `pair` (the post-processor's pair template; the offsets
   * of the second sequence are into `pair`), off the main thread — `tokenizers`' `encode(sentence,
   * pair, options)`. `encode(text, options)` works too.
   */
  encode(text: string, pair?: string | null, options?: EncodeOptions | null): Promise<Encoding>
  encode(text: string, options?: EncodeOptions | null): Promise<Encoding>
  /** Ids only (no offsets or masks): the fastest way to tokenize. Same ids as `encode`. */
  encodeIds(text: string, options?: EncodeOptions | null): Promise<Uint32Array>
  /**
   * Encode many texts off the main thread (each its own job, interleaved fairly with other
   * requests). The first failure cancels the rest and rejects.
   */
  encodeBatch(texts: ReadonlyArray<string | readonly [string, string]>, options?: EncodeOptions | null): Promise<Encoding[]>
  /** Number of tokens `encode(text, options)` gives without truncation and padding (ids only; cheaper than `encode`). */
  count(text: string, options?: EncodeOptions | null): Promise<number>
  /**
   * Decode ids to text (a long list on the core's thread pool, a short one at once). Ids the
   * vocabulary lacks are skipped, as `tokenizers` does.
   */
  decode(ids: TokenIds, options?: DecodeOptions | null): Promise<string>
  decodeBatch(batch: ReadonlyArray<TokenIds>, options?: DecodeOptions | null): Promise<string[]>

  /**
   * Render a conversation with the tokenizer's chat template, byte-identical to transformers'
   * `apply_chat_template` (transformers 5.x: message keys whose value is `null` are dropped),
   * on the core's thread pool. Returns what transformers returns: the ids (default), the text
   * (`tokenize: false`) or a dict (`returnDict: true`).
   *
   * JS numbers do not tell `1` from `1.0`: a float with an integral value reaches the template
   * as an int and renders as `1` where Python prints `1.0`. Templates are untrusted input: a
   * template that loops, recurses or grows without end stops with an `Error`, as does one that
   * calls `raise_exception`; bad argument types throw a `TypeError`, and so does a value JSON
   * cannot carry faithfully in `messages`, `tools`, `documents` or `kwargs` (a NaN or infinite
   * number, a string with a lone surrogate), naming it and where it is (`messages[1].content`).
   */
  applyChatTemplate(messages: readonly ChatMessage[], options: ChatTemplateOptions & { returnDict: true }): Promise<ChatTemplateDict>
  applyChatTemplate(messages: readonly ChatMessage[], options: ChatTemplateOptions & { tokenize: false; returnDict?: false }): Promise<string>
  applyChatTemplate(messages: readonly ChatMessage[], options?: (ChatTemplateOptions & { tokenize?: true; returnDict?: false }) | null): Promise<Uint32Array>
  applyChatTemplate(messages: readonly ChatMessage[], options?: ChatTemplateOptions | null): Promise<Uint32Array | string | ChatTemplateDict>

  /**
   * OpenPipe ART's `tokenize_trajectory_groups` (0.5.18, quirks included), on the core's thread
   * pool with the histories in parallel: one {@link TokenizedResult} per trainable history, in
   * ART's order. `groups` is ART's input as plain data (`Trajectory` objects in snake_case, as
   * ART dumps them), or its JSON as a string or UTF-8 bytes (parsed in Rust; the fastest way).
   * In objects, `NaN` and `±Infinity` stay those values (a `-Infinity` logprob is kept, as in
   * ART; a non-finite `reward` fails its trajectory unless `validateSampledTokens` is `false`).
   * When some trajectories fail, rejects with a {@link TrajectoryError} carrying every error
   * and every other result. Input that is not a list of groups, or a tokenizer without a chat
   * template, rejects with an `Error`.
   */
  tokenizeTrajectories(groups: readonly TrajectoryGroup[] | string | Uint8Array | ArrayBuffer, options?: TrajectoryOptions | null): Promise<TokenizedResult[]>

  /** `encode`, blocking the calling thread. */
  encodeSync(text: string, pair?: string | null, options?: Omit<EncodeOptions, 'signal'> | null): Encoding
  encodeSync(text: string, options?: Omit<EncodeOptions, 'signal'> | null): Encoding
  encodeBatchSync(texts: ReadonlyArray<string | readonly [string, string]>, options?: Omit<EncodeOptions, 'signal'> | null): Encoding[]
  encodeIdsSync(text: string, options?: Omit<EncodeOptions, 'signal'> | null): Uint32Array
  countSync(text: string, options?: Omit<EncodeOptions, 'signal'> | null): number
  decodeSync(ids: TokenIds, options?: DecodeOptions | null): string
  decodeBatchSync(batch: ReadonlyArray<TokenIds>, options?: DecodeOptions | null): string[]
  /** `applyChatTemplate`, blocking the calling thread. */
  applyChatTemplateSync(messages: readonly ChatMessage[], options: SyncChatTemplateOptions & { returnDict: true }): ChatTemplateDict
  applyChatTemplateSync(messages: readonly ChatMessage[], options: SyncChatTemplateOptions & { tokenize: false; returnDict?: false }): string
  applyChatTemplateSync(messages: readonly ChatMessage[], options?: (SyncChatTemplateOptions & { tokenize?: true; returnDict?: false }) | null): Uint32Array
  applyChatTemplateSync(messages: readonly ChatMessage[], options?: SyncChatTemplateOptions | null): Uint32Array | string | ChatTemplateDict
  /** `tokenizeTrajectories`, blocking the calling thread (histories still in parallel); throws a {@link TrajectoryError}. */
  tokenizeTrajectoriesSync(groups: readonly TrajectoryGroup[] | string | Uint8Array | ArrayBuffer, options?: Omit<TrajectoryOptions, 'signal'> | null): TokenizedResult[]
}

/** What an aborted call rejects with: `name` `'AbortError'`, `code` `'ABORT_ERR'`, `cause` the signal's reason. */
export declare class AbortError extends Error {
  constructor(message?: string, options?: { cause?: unknown })
  readonly name: 'AbortError'
  readonly code: 'ABORT_ERR'
}
