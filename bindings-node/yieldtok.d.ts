/**
 * yieldtok for Node.js: exact, chunked, yield-cooperative tokenization of Hugging Face
 * `tokenizer.json` tokenizers.
 *
 * The async methods (`encode`, `encodeBatch`, `count`) run on the yieldtok core's own thread
 * pool (one thread per core, `YIELDTOK_THREADS` to change it), never on libuv's pool, in small
 * pieces scheduled fairly across requests: the event loop stays free during a long encode and a
 * short request waits for about one piece, not for a whole long request. The result's arrays
 * are handed over without a per-token copy on the main thread. Ids, offsets and masks are
 * exactly those of Hugging Face `tokenizers` for the whole text.
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
   */
  signal?: AbortSignal | null
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
  }
}

export declare class Tokenizer {
  private constructor()

  /** Load a `tokenizer.json` file. Synchronous (a load takes a few hundred ms of CPU). */
  static fromFile(path: string): Tokenizer
  /**
   * Load a model folder: `tokenizer.json`, plus `tokenizer_config.json` and
   * `chat_template.jinja` when present. Synchronous.
   */
  static fromDir(path: string): Tokenizer
  /** Load from the text of a `tokenizer.json`, or its UTF-8 bytes (`Uint8Array`, `Buffer`, `ArrayBuffer`). */
  static fromJSON(json: string | Uint8Array | ArrayBuffer): Tokenizer

  /** The path the tokenizer was loaded from, or `null`. */
  readonly origin: string | null
  /** How texts are cut into pieces (the chunking family and rules), or why they are not. */
  readonly chunking: string

  /**
   * The engine serving ids-only work (`encodeIds`, `count`): `'fastokens'` once the fast engine
   * has loaded (in the background, after the tokenizer), else `'tokenizers'`. Results are
   * identical either way; only speed differs.
   */
  readonly engine: 'fastokens' | 'tokenizers'
  /** Why the fast engine does not serve this tokenizer (`null` while it loads, or once it does). */
  readonly engineUnavailableReason: string | null
  /** Resolves once the fast engine has loaded or been ruled out, to {@link engine}. */
  waitForEngine(): Promise<'fastokens' | 'tokenizers'>

  /** Vocabulary size, with the added tokens by default. */
  getVocabSize(withAddedTokens?: boolean): number
  tokenToId(token: string): number | undefined
  idToToken(id: number): string | undefined

  /** Encode `text` off the main thread. */
  encode(text: string, options?: EncodeOptions | null): Promise<Encoding>
  /** Ids only (no offsets or masks): the fastest way to tokenize. Same ids as `encode`. */
  encodeIds(text: string, options?: EncodeOptions | null): Promise<Uint32Array>
  /**
   * Encode many texts off the main thread (each its own job, interleaved fairly with other
   * requests). The first failure cancels the rest and rejects.
   */
  encodeBatch(texts: readonly string[], options?: EncodeOptions | null): Promise<Encoding[]>
  /** Number of tokens `encode(text, options)` would give (ids only; cheaper than `encode`). */
  count(text: string, options?: EncodeOptions | null): Promise<number>
  /** Decode ids to text. Ids the vocabulary lacks reject with an `Error` naming the id. */
  decode(ids: TokenIds, options?: DecodeOptions | null): Promise<string>
  decodeBatch(batch: ReadonlyArray<TokenIds>, options?: DecodeOptions | null): Promise<string[]>

  /** `encode`, blocking the calling thread. */
  encodeSync(text: string, options?: Omit<EncodeOptions, 'signal'> | null): Encoding
  encodeBatchSync(texts: readonly string[], options?: Omit<EncodeOptions, 'signal'> | null): Encoding[]
  encodeIdsSync(text: string, options?: Omit<EncodeOptions, 'signal'> | null): Uint32Array
  countSync(text: string, options?: Omit<EncodeOptions, 'signal'> | null): number
  decodeSync(ids: TokenIds, options?: DecodeOptions | null): string
  decodeBatchSync(batch: ReadonlyArray<TokenIds>, options?: DecodeOptions | null): string[]
}

/** What an aborted call rejects with: `name` `'AbortError'`, `code` `'ABORT_ERR'`, `cause` the signal's reason. */
export declare class AbortError extends Error {
  constructor(message?: string, options?: { cause?: unknown })
  readonly name: 'AbortError'
  readonly code: 'ABORT_ERR'
}
