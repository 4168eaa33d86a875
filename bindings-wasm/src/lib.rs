//! Browser/wasm binding of yieldtok.
//!
//! The core's chunked encoder runs in time-boxed slices ([`EncodeTask::step`]). The loop that
//! advances a task and yields to the event loop between slices (a macrotask: a `MessageChannel`
//! post by default, not `scheduler.yield()`, whose continuations Chromium runs ahead of
//! rendering; see `yieldNow`) lives in `js/runtime.js`, so that a trap inside the wasm code (a
//! Rust panic is an `unreachable` trap on `wasm32-unknown-unknown`) is caught by plain JS and
//! turned into a rejected promise; the instance is re-initialized before the next call
//! (`wasm_bindgen::handler::schedule_reinit`).
//!
//! The whole binding is wasm32-only: on the host this crate is empty.
#![cfg(target_arch = "wasm32")]

mod settings;
mod stream;

use std::sync::Arc;
use std::time::Duration;

use js_sys::{Array, Function, Int32Array, Object, Promise, Reflect, Uint32Array, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use yieldtok::{
    Budget, ChatCall, CompactJob, CompactLoad, CompactTokenizer, ContinueFinalMessage, EncodeJob, EncodeOptions,
    JobOutput, Output, TokenizerConfig,
};

#[wasm_bindgen(module = "/js/runtime.js")]
extern "C" {
    /// Advance `tasks` in slices, yielding between them; resolves to the finished value(s).
    #[wasm_bindgen(js_name = drive)]
    fn js_drive(tasks: Array, options: &JsValue, single: bool) -> Promise;
    /// Call `f` on a later macrotask, catching traps; resolves to its value (rejects on `Error`).
    #[wasm_bindgen(js_name = guard)]
    fn js_guard(f: &JsValue) -> Promise;
    #[wasm_bindgen(js_name = recordPanic)]
    fn js_record_panic(message: &str);
    #[wasm_bindgen(js_name = registerReset)]
    fn js_register_reset(f: &JsValue);
    #[wasm_bindgen(js_name = inWorker)]
    fn js_in_worker(source: &JsValue, options: &JsValue) -> Promise;
}

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** Options of `new DecodeStream(options)`. */
export interface DecodeStreamOptions {
  /** Ids the stream's window starts with; as in `tokenizers`, the first step returns the text of these and the new ids together. */
  ids?: Uint32Array | number[];
  /** Leave special tokens out of the text (default false, as `tokenizers`). */
  skipSpecialTokens?: boolean;
}
/** Options of `Tokenizer.fromJSON` / `fromURL`. */
export interface LoadOptions {
  /** Text of the model's `tokenizer_config.json` (special tokens, chat template). */
  config?: string;
  /** A name for the tokenizer, used in error messages. */
  name?: string;
}

/** Options of `Tokenizer.fromCompact`. */
export interface CompactLoadOptions {
  /** A name for the tokenizer, used in error messages (default: the name it was written with). */
  name?: string;
}

/** How to yield to the event loop between slices. `auto`: a `MessageChannel` post in browsers,
 *  `setImmediate` in Node. `scheduler`: `scheduler.yield()`, whose continuations Chromium runs
 *  ahead of rendering (frames only every ~100 ms during a long encode). */
export type YieldMode = "auto" | "scheduler" | "message" | "immediate" | "timeout";

/** Options of the async (sliced) encode methods. */
export interface EncodeOptions {
  /** Add the post-processor's special tokens (e.g. BOS), like `tokenizers`. Default `true`. */
  addSpecialTokens?: boolean;
  /** Work for at most about this many milliseconds, then yield to the event loop. Default 4. */
  sliceMs?: number;
  /** Cancels the encode: the promise rejects with `signal.reason` (an `AbortError`). */
  signal?: AbortSignal;
  /** Called after every slice with the UTF-8 bytes done and the total. */
  onProgress?: (doneBytes: number, totalBytes: number) => void;
  /** How to yield between slices. Default `"auto"`. */
  yield?: YieldMode;
  /** Target piece size in bytes (pieces end at the next exact cut). Default: the core's. */
  pieceBytes?: number;
}

/** Options of `Tokenizer.createTask`. */
export interface TaskOptions extends EncodeOptions {
  /** What `finish()` returns: ids (`Uint32Array`), an `Encoding`, or the token count. */
  output?: "ids" | "offsets" | "count";
}

/** An encode with offsets. `offsets` and `byteOffsets` hold `[start, end)` pairs, flattened
 *  (`offsets[2*i]`, `offsets[2*i+1]` for token `i`): in UTF-16 code units of the JS string
 *  (what `text.slice` takes) and in UTF-8 bytes. Special tokens have `(0, 0)`. */
export interface Encoding {
  ids: Uint32Array;
  offsets: Uint32Array;
  byteOffsets: Uint32Array;
  /** Sequence of each token as `tokenizers` numbers them: 0, or 1 for a pair's second text. */
  typeIds: Uint32Array;
  /** 1 for a token, 0 for padding. */
  attentionMask: Uint32Array;
  /** 1 for a special token added by the post-processor or for padding. */
  specialTokensMask: Uint32Array;
  /** `tokenizers`' `word_ids`: the word each token came from, -1 for none (special tokens, padding). */
  wordIds: Int32Array;
  /** `tokenizers`' `sequence_ids`: 0 or 1 (a pair's second text), -1 for none. */
  sequenceIds: Int32Array;
  /** 1 for a text, 2 for a pair. */
  nSequences: number;
}

/** Options of `setTruncation`, as `tokenizers` npm's. */
export interface TruncationOptions {
  /** Tokens repeated between overflowing parts (checked against `maxLength` as `tokenizers` does). Default 0. */
  stride?: number;
  /** Default `"longest_first"`. */
  strategy?: "LongestFirst" | "OnlyFirst" | "OnlySecond" | "longest_first" | "only_first" | "only_second";
  /** Default `"right"`. */
  direction?: "left" | "right";
}

/** Options of `setPadding`, as `tokenizers` npm's: to `maxLength` tokens when given, else a batch to its longest item. */
export interface PaddingOptions {
  maxLength?: number;
  /** Default `"right"` (`tokenizers` npm's `PaddingDirection`: Left = 0, Right = 1). */
  direction?: "left" | "right" | 0 | 1;
  padToMultipleOf?: number;
  /** Default 0. */
  padId?: number;
  /** Default 0. */
  padTypeId?: number;
  /** Default `"[PAD]"`. */
  padToken?: string;
}

/** Options of `new AddedToken(token, isSpecial, options)`, as `tokenizers`'. */
export interface AddedTokenOptions {
  singleWord?: boolean;
  leftStrip?: boolean;
  rightStrip?: boolean;
  /** Default `!isSpecial`. */
  normalized?: boolean;
}

export interface DecodeOptions {
  /** Leave out special tokens. Default `false`. */
  skipSpecialTokens?: boolean;
}

/** A chat message: `role` and `content`, plus whatever else the template reads
 *  (`tool_calls`, `reasoning_content`, ...). */
export interface ChatMessage {
  role: string;
  content?: unknown;
  [key: string]: unknown;
}

/** Options of `applyChatTemplate`, as in transformers' `apply_chat_template`. */
export interface ChatTemplateOptions {
  addGenerationPrompt?: boolean;
  /** `true`: continue the final message's content; a string: continue that field. */
  continueFinalMessage?: boolean | string;
  /** A template name (for named templates) or a template source. Default: the model's. */
  chatTemplate?: string;
  tools?: object[];
  documents?: object[];
  /** Extra template variables, e.g. `{ enable_thinking: false }`. */
  kwargs?: Record<string, unknown>;
  /** Also return the ids of the text (encoded without special tokens, as transformers does). */
  tokenize?: boolean;
  /** Also return the assistant mask (`{% generation %}` blocks; implies ids). */
  returnAssistantTokensMask?: boolean;
}

export interface ChatResult {
  text: string;
  ids?: Uint32Array;
  assistantMask?: Uint32Array;
}

/** Options of `Tokenizer.inWorker`. */
export interface WorkerOptions {
  /** URL of the generated ES module (`yieldtok_wasm.js`); default: found next to this one. */
  moduleUrl?: string | URL;
  /** Default slice length inside the worker, between which new requests are let in. Default 4. */
  sliceMs?: number;
  /** Text of `tokenizer_config.json`. */
  config?: string;
  /** A name for the tokenizer, used in error messages. */
  name?: string;
}

/** The same API run in a Web Worker. Requests are served by a fair queue: a short request
 *  waits for at most about one slice of each running long request, not for its end. */
export interface WorkerTokenizer {
  readonly vocabSize: number;
  readonly chunking: string;
  /** The engine serving the worker's encodes: `"yieldtok"` (the own engine) or `"tokenizers"`. */
  readonly engine: "yieldtok" | "tokenizers";
  encode(text: string, pair?: string | null | EncodeOptions, options?: EncodeOptions): Promise<Uint32Array>;
  encodeWithOffsets(text: string, pair?: string | null | EncodeOptions, options?: EncodeOptions): Promise<Encoding>;
  count(text: string, options?: EncodeOptions): Promise<number>;
  encodeBatch(texts: (string | [string, string])[], options?: EncodeOptions): Promise<Uint32Array[]>;
  /** `Tokenizer.setTruncation` in the worker, for the requests sent after it. */
  setTruncation(maxLength: number, options?: TruncationOptions): Promise<void>;
  disableTruncation(): Promise<void>;
  setPadding(options?: PaddingOptions): Promise<void>;
  disablePadding(): Promise<void>;
  getVocab(withAddedTokens?: boolean): Promise<Record<string, number>>;
  /** Strings or `AddedToken`s (sent as their fields); resolves to how many were new. */
  addTokens(tokens: (string | AddedToken)[]): Promise<number>;
  addSpecialTokens(tokens: (string | AddedToken)[]): Promise<number>;
  decode(ids: Uint32Array | number[], options?: DecodeOptions): Promise<string>;
  applyChatTemplate(messages: ChatMessage[], options?: ChatTemplateOptions): Promise<ChatResult>;
  /** The compact form of the worker's tokenizer (`Tokenizer.toCompact`, computed in the
   *  worker), for `Tokenizer.fromCompact` on the page. */
  toCompact(): Promise<Uint8Array>;
  /** Requests waiting or running in the worker. */
  readonly pending: number;
  /** Stop the worker; pending requests reject. */
  terminate(): void;
}
"#;

fn type_error(msg: impl std::fmt::Display) -> JsValue {
    js_sys::TypeError::new(&msg.to_string()).into()
}

/// A core error as a JS `Error`: the core's message, and its stable code
/// ([`yieldtok::Error::code`]) as `error.code`.
fn core_error(e: yieldtok::Error) -> JsValue {
    let err: JsValue = JsError::new(&e.to_string()).into();
    let _ = Reflect::set(&err, &JsValue::from_str("code"), &JsValue::from_str(&e.code()));
    err
}

fn get(obj: &JsValue, key: &str) -> JsValue {
    if obj.is_object() {
        Reflect::get(obj, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
    } else {
        JsValue::UNDEFINED
    }
}

fn check_options(options: &JsValue) -> Result<(), JsValue> {
    if options.is_undefined() || options.is_null() || options.is_object() {
        Ok(())
    } else {
        Err(type_error("options must be an object"))
    }
}

fn opt_bool(options: &JsValue, key: &str, default: bool) -> Result<bool, JsValue> {
    let v = get(options, key);
    if v.is_undefined() || v.is_null() {
        return Ok(default);
    }
    v.as_bool().ok_or_else(|| type_error(format!("options.{key} must be a boolean")))
}

fn opt_string(options: &JsValue, key: &str) -> Result<Option<String>, JsValue> {
    let v = get(options, key);
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    v.as_string().map(Some).ok_or_else(|| type_error(format!("options.{key} must be a string")))
}

fn text_arg(text: &JsValue) -> Result<String, JsValue> {
    text.as_string().ok_or_else(|| type_error("text must be a string"))
}

/// The bytes or text of a `tokenizer.json` given as string, Uint8Array or ArrayBuffer.
fn json_arg(json: &JsValue) -> Result<String, JsValue> {
    if let Some(s) = json.as_string() {
        return Ok(s);
    }
    let bytes = if let Some(u8a) = json.dyn_ref::<Uint8Array>() {
        u8a.to_vec()
    } else if let Some(buf) = json.dyn_ref::<js_sys::ArrayBuffer>() {
        Uint8Array::new(buf).to_vec()
    } else {
        return Err(type_error("the tokenizer must be given as a string, Uint8Array or ArrayBuffer"));
    };
    String::from_utf8(bytes).map_err(|e| core_error(yieldtok::Error::NotUtf8 { offset: e.utf8_error().valid_up_to() }))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Want {
    Ids,
    Offsets,
    Count,
}

impl Want {
    /// What the core's job must produce for it.
    fn output(self) -> Output {
        if self == Want::Offsets {
            Output::Full
        } else {
            Output::Ids
        }
    }
}

/// One encode, advanced by hand: `step(ms)` runs pieces for about `ms` milliseconds (at least
/// one piece) and returns whether all are done; `finish()` then returns the result. The async
/// methods of `Tokenizer` and the worker are loops over this.
#[wasm_bindgen]
pub struct EncodeTask {
    job: Job,
    want: Want,
    panic_on_step: bool,
}

/// A job of a tokenizer from `tokenizer.json` or of one from its compact form, or a pair of
/// texts (encoded in one step: pairs are short, a query and a passage).
enum Job {
    Full(EncodeJob),
    Compact(CompactJob),
    Pair(PairJob),
}

struct PairJob {
    tok: yieldtok::Tokenizer,
    texts: [String; 2],
    opts: EncodeOptions,
    cancel: yieldtok::CancelFlag,
    out: std::cell::RefCell<Option<yieldtok::Result<yieldtok::Encoding>>>,
}

impl PairJob {
    fn step(&self) -> bool {
        let mut out = self.out.borrow_mut();
        if out.is_none() {
            let [a, b] = &self.texts;
            *out = Some(self.tok.encode_pair_with_cancel(a, b, &self.opts, &self.cancel));
        }
        true
    }
    fn finish(&self) -> yieldtok::Result<JobOutput> {
        if self.out.borrow().is_none() {
            self.step();
        }
        match self.out.borrow_mut().take().expect("stepped") {
            Ok(enc) => Ok(match self.opts.output {
                Output::Ids => JobOutput::Ids(enc.ids),
                _ => JobOutput::Full(enc),
            }),
            Err(e) => Err(e),
        }
    }
}

impl Job {
    fn step(&self, budget: Budget) -> bool {
        match self {
            Job::Full(j) => j.step(budget),
            Job::Compact(j) => j.step(budget),
            Job::Pair(j) => j.step(),
        }
    }
    fn progress(&self) -> yieldtok::Progress {
        match self {
            Job::Full(j) => j.progress(),
            Job::Compact(j) => j.progress(),
            Job::Pair(j) => {
                let total_bytes = j.texts[0].len() + j.texts[1].len();
                let done_bytes = if j.out.borrow().is_some() { total_bytes } else { 0 };
                yieldtok::Progress { done_bytes, total_bytes }
            }
        }
    }
    fn cancel(&self) {
        match self {
            Job::Full(j) => j.cancel(),
            Job::Compact(j) => j.cancel(),
            Job::Pair(j) => j.cancel.cancel(),
        }
    }
    fn finish(&self) -> yieldtok::Result<JobOutput> {
        match self {
            Job::Full(j) => j.finish(),
            Job::Compact(j) => j.finish(),
            Job::Pair(j) => j.finish(),
        }
    }
    /// The text(s) the offsets point into: one, or a pair's two.
    fn texts(&self) -> Vec<&str> {
        match self {
            Job::Full(j) => vec![j.text()],
            Job::Compact(j) => vec![j.text()],
            Job::Pair(j) => vec![&j.texts[0], &j.texts[1]],
        }
    }
}

#[wasm_bindgen]
impl EncodeTask {
    /// Run pieces for about `ms` milliseconds (at least one piece); `true` when all are done.
    pub fn step(&self, ms: f64) -> bool {
        if self.panic_on_step {
            panic!("test panic inside EncodeTask.step");
        }
        let ms = if ms.is_finite() { ms.max(0.0) } else { 0.0 };
        self.job.step(Budget::time(Duration::from_secs_f64(ms / 1000.0)))
    }

    /// UTF-8 bytes of the text encoded so far.
    #[wasm_bindgen(getter, js_name = doneBytes)]
    pub fn done_bytes(&self) -> f64 {
        self.job.progress().done_bytes as f64
    }

    /// UTF-8 bytes of the whole text.
    #[wasm_bindgen(getter, js_name = totalBytes)]
    pub fn total_bytes(&self) -> f64 {
        self.job.progress().total_bytes as f64
    }

    /// Stop: `step` returns `true` at once and `finish` throws "cancelled".
    pub fn cancel(&self) {
        self.job.cancel();
    }

    /// The result once `step` returned `true`: `Uint32Array` (ids), `Encoding` or a number,
    /// as the task's `output` option says.
    #[wasm_bindgen(unchecked_return_type = "Uint32Array | Encoding | number")]
    pub fn finish(&self) -> Result<JsValue, JsValue> {
        let out = self.job.finish().map_err(core_error)?;
        Ok(match (self.want, out) {
            (Want::Count, out) => JsValue::from_f64(out.ids().len() as f64),
            (Want::Ids, out) => Uint32Array::from(out.ids()).into(),
            (Want::Offsets, JobOutput::Full(enc)) => encoding_object(&self.job.texts(), &enc),
            (Want::Offsets, JobOutput::Ids(_)) => {
                return Err(JsError::new("internal: offsets requested, ids produced").into())
            }
        })
    }
}

/// An `Encoding` object of `enc`, whose sequence `i` has its offsets in `texts[i]` (one text,
/// or a pair's two).
impl EncodeTask {
    /// All pieces at once, then the result. (Chunked, not the whole text as one piece, which
    /// the core's sync `encode` does on wasm32: on the demo document that is about 1.6x slower.)
    fn run_blocking(self) -> Result<JsValue, JsValue> {
        self.job.step(Budget { bytes: None, time: None });
        self.finish()
    }
}

fn encoding_object(texts: &[&str], enc: &yieldtok::Encoding) -> JsValue {
    let flat =
        |pairs: &[(usize, usize)]| -> Vec<u32> { pairs.iter().flat_map(|&(s, e)| [s as u32, e as u32]).collect() };
    let or_minus_one = |v: &mut dyn Iterator<Item = Option<u32>>| -> Int32Array {
        let v: Vec<i32> = v.map(|x| x.map_or(-1, |x| x as i32)).collect();
        Int32Array::from(&v[..])
    };
    let bytes = flat(&enc.offsets);
    let utf16 = flat(&enc.utf16_offsets_in(texts));
    let obj = Object::new();
    let set = |k: &str, v: JsValue| {
        let _ = Reflect::set(&obj, &JsValue::from_str(k), &v);
    };
    set("ids", Uint32Array::from(&enc.ids[..]).into());
    set("offsets", Uint32Array::from(&utf16[..]).into());
    set("byteOffsets", Uint32Array::from(&bytes[..]).into());
    set("typeIds", Uint32Array::from(&enc.type_ids[..]).into());
    set("attentionMask", Uint32Array::from(&enc.attention_mask[..]).into());
    set("specialTokensMask", Uint32Array::from(&enc.special_tokens_mask[..]).into());
    set("wordIds", or_minus_one(&mut enc.word_ids.iter().copied()).into());
    set("sequenceIds", or_minus_one(&mut enc.sequence_ids().into_iter().map(|s| s.map(|s| s as u32))).into());
    set("nSequences", JsValue::from(enc.n_sequences() as u32));
    obj.into()
}

/// `ids` (the `Uint32Array`s of a finished batch) padded over the batch by `tok`'s padding.
fn pad_batch(tok: &yieldtok::Tokenizer, ids: &JsValue) -> Array {
    let mut outs: Vec<JobOutput> =
        Array::from(ids).iter().map(|ids| JobOutput::Ids(ids.unchecked_into::<Uint32Array>().to_vec())).collect();
    tok.pad_batch(&mut outs);
    outs.iter().map(|o| JsValue::from(Uint32Array::from(o.ids()))).collect()
}

/// `(pair, options)` of `encode(text, pair?, options?)`: a second argument that is an object
/// is the options (`encode(text, options)`, the older form); `null`/`undefined` is no pair.
fn pair_args(pair: JsValue, options: JsValue) -> Result<(Option<String>, JsValue), JsValue> {
    if pair.is_undefined() || pair.is_null() {
        return Ok((None, options));
    }
    if let Some(p) = pair.as_string() {
        return Ok((Some(p), options));
    }
    if options.is_undefined() || options.is_null() {
        // `encode(text, options)`: the older form's message for a bad second argument.
        check_options(&pair)?;
        if !Array::is_array(&pair) {
            return Ok((None, pair));
        }
    }
    Err(type_error("pair must be a string (or the options object, when no pair is given)"))
}

/// A tokenizer (a `tokenizer.json`, or its compact form), with exact sliced encoding.
#[wasm_bindgen]
pub struct Tokenizer {
    inner: Kind,
}

enum Kind {
    /// Loaded from `tokenizer.json`: the whole API.
    Full(yieldtok::Tokenizer),
    /// Built from its compact form: encodes only (served by the own engine alone).
    Compact(CompactTokenizer),
}

/// The bytes of a compact form given as Uint8Array or ArrayBuffer.
fn bytes_arg(bytes: &JsValue) -> Result<Vec<u8>, JsValue> {
    if let Some(u8a) = bytes.dyn_ref::<Uint8Array>() {
        Ok(u8a.to_vec())
    } else if let Some(buf) = bytes.dyn_ref::<js_sys::ArrayBuffer>() {
        Ok(Uint8Array::new(buf).to_vec())
    } else {
        Err(type_error("the compact form must be given as a Uint8Array or ArrayBuffer"))
    }
}

impl Tokenizer {
    fn load(json: &JsValue, options: &JsValue) -> Result<Tokenizer, JsValue> {
        check_options(options)?;
        let text = json_arg(json)?;
        let name = opt_string(options, "name")?;
        let config = match opt_string(options, "config")? {
            Some(c) => Some(TokenizerConfig::from_str(&c, name.as_deref()).map_err(core_error)?),
            None => None,
        };
        let inner = yieldtok::Tokenizer::from_json_str(&text, config, name).map_err(core_error)?;
        Ok(Tokenizer { inner: Kind::Full(inner) })
    }

    /// The first half of `fromCompact`: the bytes copied in, the engine's tables read.
    fn read_compact(bytes: &JsValue, options: &JsValue) -> Result<CompactLoad, JsValue> {
        check_options(options)?;
        let bytes = bytes_arg(bytes)?;
        let name = opt_string(options, "name")?;
        CompactTokenizer::read_engine(&bytes, name).map_err(core_error)
    }

    /// The tokenizer from `tokenizer.json`, or an error naming `what` for one from its
    /// compact form.
    fn full(&self, what: &str) -> Result<&yieldtok::Tokenizer, JsValue> {
        match &self.inner {
            Kind::Full(t) => Ok(t),
            Kind::Compact(_) => Err(JsError::new(&format!(
                "{what} is not available on a tokenizer built from its compact form (Tokenizer.fromCompact), which serves encodes only; load the tokenizer.json (Tokenizer.fromJSON, Tokenizer.inWorker) for {what}"
            ))
            .into()),
        }
    }

    /// [`full`](Self::full), to replace (the setters).
    fn full_mut(&mut self, what: &str) -> Result<&mut yieldtok::Tokenizer, JsValue> {
        self.full(what)?;
        match &mut self.inner {
            Kind::Full(t) => Ok(t),
            Kind::Compact(_) => unreachable!("checked by full()"),
        }
    }

    /// `encode(text, pair?, options?)` in one blocking call.
    fn run_blocking_pair(
        &self,
        text: &JsValue,
        pair: JsValue,
        options: JsValue,
        want: Want,
    ) -> Result<JsValue, JsValue> {
        let (pair, options) = pair_args(pair, options)?;
        self.make_pair_task(text, pair, &options, want)?.run_blocking()
    }

    /// `encode(text, pair?, options?)` as a promise (a text in slices, a pair in one).
    fn drive_pair(&self, text: &JsValue, pair: JsValue, options: JsValue, want: Want) -> Promise {
        match pair_args(pair, options) {
            Ok((pair, options)) => drive_single(self.make_pair_task(text, pair, &options, want), &options),
            Err(e) => Promise::reject(&e),
        }
    }

    /// The task of a text, or of a pair (as `tokenizers`' `encode(sentence, pair)`: the pair
    /// template, truncation and padding; served by a tokenizer from `tokenizer.json` only).
    fn make_pair_task(
        &self,
        text: &JsValue,
        pair: Option<String>,
        options: &JsValue,
        want: Want,
    ) -> Result<EncodeTask, JsValue> {
        let Some(pair) = pair else { return self.make_task(text, options, want) };
        check_options(options)?;
        let text = text_arg(text)?;
        let add_special_tokens = opt_bool(options, "addSpecialTokens", true)?;
        let job = PairJob {
            tok: self.full("a pair encode")?.clone(),
            texts: [text, pair],
            opts: EncodeOptions { add_special_tokens, output: want.output(), ..Default::default() },
            cancel: yieldtok::CancelFlag::new(),
            out: Default::default(),
        };
        Ok(EncodeTask { job: Job::Pair(job), want, panic_on_step: false })
    }

    /// The task of a batch item: a text, or a `[text, pair]`.
    fn item_task(&self, item: &JsValue, options: &JsValue, want: Want) -> Result<EncodeTask, JsValue> {
        if !Array::is_array(item) {
            return self.make_task(item, options, want);
        }
        let p = Array::from(item);
        let pair = p.get(1).as_string().filter(|_| p.length() == 2);
        let pair = pair.ok_or_else(|| type_error("a pair must be [text, pair], two strings"))?;
        self.make_pair_task(&p.get(0), Some(pair), options, want)
    }

    fn make_task(&self, text: &JsValue, options: &JsValue, want: Want) -> Result<EncodeTask, JsValue> {
        check_options(options)?;
        let text = text_arg(text)?;
        let add_special_tokens = opt_bool(options, "addSpecialTokens", true)?;
        let piece = get(options, "pieceBytes");
        let piece_bytes = if piece.is_undefined() || piece.is_null() {
            None
        } else {
            match piece.as_f64() {
                Some(n) if n.is_finite() && n >= 1.0 => Some(n as usize),
                _ => return Err(type_error("options.pieceBytes must be a number >= 1")),
            }
        };
        let opts = EncodeOptions { add_special_tokens, piece_bytes, output: want.output(), ..Default::default() };
        let text = Arc::<str>::from(text);
        let job = match &self.inner {
            Kind::Full(t) => Job::Full(t.job(text, opts)),
            Kind::Compact(t) => Job::Compact(t.job(text, opts)),
        };
        Ok(EncodeTask { job, want, panic_on_step: false })
    }

    fn run_blocking(&self, text: &JsValue, options: &JsValue, want: Want) -> Result<JsValue, JsValue> {
        self.make_task(text, options, want)?.run_blocking()
    }

    fn drive_one(&self, text: &JsValue, options: &JsValue, want: Want) -> Promise {
        drive_single(self.make_task(text, options, want), options)
    }
}

/// One task driven in slices: a promise of its result (rejected when it could not be made).
fn drive_single(task: Result<EncodeTask, JsValue>, options: &JsValue) -> Promise {
    match task {
        Ok(task) => js_drive(Array::of1(&task.into()), options, true),
        Err(e) => Promise::reject(&e),
    }
}

#[wasm_bindgen]
impl Tokenizer {
    /// Load a tokenizer from the text or bytes of a `tokenizer.json`. Parsing runs on the
    /// calling thread (about 1 s for a 150k-vocabulary BPE); use `inWorker` to keep it off, or
    /// `fromCompact` with bytes of `toCompact()` cached from an earlier load.
    #[wasm_bindgen(js_name = fromJSON, unchecked_return_type = "Promise<Tokenizer>")]
    pub fn from_json(
        #[wasm_bindgen(unchecked_param_type = "string | Uint8Array | ArrayBuffer")] json: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "LoadOptions")] options: JsValue,
    ) -> Promise {
        let f = Closure::once_into_js(move || -> JsValue {
            match Tokenizer::load(&json, &options) {
                Ok(t) => t.into(),
                Err(e) => e,
            }
        });
        js_guard(&f)
    }

    /// Build a tokenizer from its compact form (the bytes of `toCompact()`, of the same
    /// yieldtok version): no `tokenizer.json` parse, so it takes a few tens of milliseconds
    /// where `fromJSON` takes about a second for a 150k-vocabulary BPE, and can run on the page
    /// itself. It serves the encodes (`encode`, `encodeWithOffsets`, `count`, `encodeBatch`,
    /// `createTask` and their sync forms) with the same exact results; `decode`,
    /// `applyChatTemplate`, `tokenToId` and `idToToken` need the `tokenizer.json` and throw.
    /// Altered, truncated or foreign bytes are refused (the promise rejects), as is a form
    /// whose recorded check results the engine does not reproduce.
    #[wasm_bindgen(js_name = fromCompact, unchecked_return_type = "Promise<Tokenizer>")]
    pub fn from_compact(
        #[wasm_bindgen(unchecked_param_type = "Uint8Array | ArrayBuffer")] bytes: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "CompactLoadOptions")] options: JsValue,
    ) -> Promise {
        // Two tasks (each on its own macrotask, traps caught): the engine's tables, then the
        // rest and the check, so that the page runs in between.
        let loaded = std::rc::Rc::new(std::cell::RefCell::new(None::<CompactLoad>));
        let (into, from) = (loaded.clone(), loaded);
        let read = Closure::once_into_js(move || -> JsValue {
            match Tokenizer::read_compact(&bytes, &options) {
                Ok(load) => {
                    *into.borrow_mut() = Some(load);
                    JsValue::UNDEFINED
                }
                Err(e) => e,
            }
        });
        let finish = Closure::once_into_js(move || -> JsValue {
            let Some(load) = from.borrow_mut().take() else {
                return JsError::new("fromCompact: the first step did not finish").into();
            };
            match load.finish() {
                Ok(t) => Tokenizer { inner: Kind::Compact(t) }.into(),
                Err(e) => core_error(e),
            }
        });
        wasm_bindgen_futures::future_to_promise(async move {
            JsFuture::from(js_guard(&read)).await?;
            JsFuture::from(js_guard(&finish)).await
        })
    }

    /// The compact form of this tokenizer, for `Tokenizer.fromCompact` (cache it in IndexedDB
    /// or the Cache API). Throws when there is none: the own engine does not serve this
    /// tokenizer, its post-processor does more than add fixed special tokens, or its model is
    /// not BPE; and on a tokenizer that was itself built from its compact form.
    #[wasm_bindgen(js_name = toCompact)]
    pub fn to_compact(&self) -> Result<Uint8Array, JsValue> {
        let bytes = self.full("toCompact")?.to_compact().map_err(core_error)?;
        Ok(Uint8Array::from(&bytes[..]))
    }

    /// Whether this tokenizer was built from its compact form (it then serves encodes only).
    #[wasm_bindgen(getter)]
    pub fn compact(&self) -> bool {
        matches!(self.inner, Kind::Compact(_))
    }

    /// Fetch a `tokenizer.json` and load it.
    #[wasm_bindgen(js_name = fromURL, unchecked_return_type = "Promise<Tokenizer>")]
    pub fn from_url(
        #[wasm_bindgen(unchecked_param_type = "string | URL")] url: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "LoadOptions")] options: JsValue,
    ) -> Promise {
        wasm_bindgen_futures::future_to_promise(async move {
            check_options(&options)?;
            let url_str = js_sys::JsString::from(url.clone()).as_string().unwrap_or_default();
            let global = js_sys::global();
            let fetch: Function = Reflect::get(&global, &"fetch".into())?
                .dyn_into()
                .map_err(|_| JsValue::from(JsError::new("fetch is not available here")))?;
            let resp = JsFuture::from(fetch.call1(&global, &url)?.unchecked_into::<Promise>()).await?;
            if get(&resp, "ok").as_bool() != Some(true) {
                let status = get(&resp, "status").as_f64().unwrap_or(0.0);
                return Err(JsError::new(&format!("cannot fetch {url_str}: HTTP {status}")).into());
            }
            let array_buffer: Function = get(&resp, "arrayBuffer").unchecked_into();
            let buf = JsFuture::from(array_buffer.call0(&resp)?.unchecked_into::<Promise>()).await?;
            let opts = Object::new();
            if options.is_object() {
                Object::assign(&opts, options.unchecked_ref());
            }
            if get(&opts, "name").is_undefined() {
                Reflect::set(&opts, &"name".into(), &JsValue::from_str(&url_str))?;
            }
            JsFuture::from(Tokenizer::from_json(Uint8Array::new(&buf).into(), opts.into())).await
        })
    }

    /// Load the tokenizer in a Web Worker and talk to it there (browsers). The worker serves
    /// requests with a fair queue. `source` may be a `URL` object: the worker fetches it.
    #[wasm_bindgen(js_name = inWorker, unchecked_return_type = "Promise<WorkerTokenizer>")]
    pub fn in_worker(
        #[wasm_bindgen(unchecked_param_type = "string | Uint8Array | ArrayBuffer | URL")] source: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "WorkerOptions")] options: JsValue,
    ) -> Promise {
        js_in_worker(&source, &options)
    }

    /// Token ids of `text`, computed in slices of about `sliceMs` ms with the event loop let
    /// run in between. Identical to the blocking `encodeSync`. With `pair` (a second text), the
    /// ids of the pair, as `tokenizers`' `encode(sentence, pair)` (in one slice).
    #[wasm_bindgen(unchecked_return_type = "Promise<Uint32Array>")]
    pub fn encode(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "string | null | EncodeOptions")] pair: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "EncodeOptions")] options: JsValue,
    ) -> Promise {
        self.drive_pair(&text, pair, options, Want::Ids)
    }

    /// Ids with offsets (UTF-16 and UTF-8), masks, type, word and sequence ids, sliced like
    /// `encode`; with `pair`, of the pair (each sequence's offsets into its own text).
    #[wasm_bindgen(js_name = encodeWithOffsets, unchecked_return_type = "Promise<Encoding>")]
    pub fn encode_with_offsets(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "string | null | EncodeOptions")] pair: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "EncodeOptions")] options: JsValue,
    ) -> Promise {
        self.drive_pair(&text, pair, options, Want::Offsets)
    }

    /// Number of tokens of `text`, sliced like `encode`.
    #[wasm_bindgen(unchecked_return_type = "Promise<number>")]
    pub fn count(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "EncodeOptions")] options: JsValue,
    ) -> Promise {
        self.drive_one(&text, &options, Want::Count)
    }

    /// Ids of many texts (or `[text, pair]` pairs), one after the other in shared slices,
    /// padded over the batch when padding is set (as `tokenizers`' `encodeBatch`).
    #[wasm_bindgen(js_name = encodeBatch, unchecked_return_type = "Promise<Uint32Array[]>")]
    pub fn encode_batch(
        &self,
        #[wasm_bindgen(unchecked_param_type = "(string | [string, string])[]")] texts: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "EncodeOptions")] options: JsValue,
    ) -> Promise {
        let build = || -> Result<Array, JsValue> {
            if !Array::is_array(&texts) {
                return Err(type_error("texts must be an array of strings or [text, pair] pairs"));
            }
            let tasks = Array::new();
            for t in Array::from(&texts).iter() {
                tasks.push(&self.item_task(&t, &options, Want::Ids)?.into());
            }
            Ok(tasks)
        };
        let tasks = match build() {
            Ok(tasks) => tasks,
            Err(e) => return Promise::reject(&e),
        };
        let driven = js_drive(tasks, &options, false);
        // Padding over the batch (to its longest item), once every item is done.
        let tok = match &self.inner {
            Kind::Full(t) if t.padding().is_some() => t.clone(),
            _ => return driven,
        };
        wasm_bindgen_futures::future_to_promise(async move {
            let done = JsFuture::from(driven).await?;
            Ok(pad_batch(&tok, &done).into())
        })
    }

    /// For the worker: a finished `encodeBatch`'s ids padded over the batch as this
    /// tokenizer's padding says (the worker runs the batch's tasks in its own queue).
    #[wasm_bindgen(js_name = __padBatch, skip_typescript)]
    pub fn pad_batch_for_worker(&self, ids: JsValue) -> JsValue {
        match &self.inner {
            Kind::Full(t) if t.padding().is_some() => pad_batch(t, &ids).into(),
            _ => ids,
        }
    }

    /// A task to advance by hand (`step(ms)` / `finish()`) of a text or a `[text, pair]`; the
    /// async methods are loops over it.
    #[wasm_bindgen(js_name = createTask)]
    pub fn create_task(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string | [string, string]")] text: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "TaskOptions")] options: JsValue,
    ) -> Result<EncodeTask, JsValue> {
        let want = match opt_string(&options, "output")?.as_deref() {
            None | Some("ids") => Want::Ids,
            Some("offsets") => Want::Offsets,
            Some("count") => Want::Count,
            Some(other) => {
                return Err(type_error(format!(
                    "options.output must be \"ids\", \"offsets\" or \"count\", not {other:?}"
                )))
            }
        };
        self.item_task(&text, &options, want)
    }

    /// Token ids of `text` in one blocking call: the same pieces as `encode`, without yielding
    /// (for comparison and short texts).
    #[wasm_bindgen(js_name = encodeSync)]
    pub fn encode_sync(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "string | null | EncodeOptions")] pair: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "EncodeOptions")] options: JsValue,
    ) -> Result<Uint32Array, JsValue> {
        Ok(self.run_blocking_pair(&text, pair, options, Want::Ids)?.unchecked_into())
    }

    /// Ids and offsets of `text` in one blocking call.
    #[wasm_bindgen(js_name = encodeWithOffsetsSync, unchecked_return_type = "Encoding")]
    pub fn encode_with_offsets_sync(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "string | null | EncodeOptions")] pair: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "EncodeOptions")] options: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.run_blocking_pair(&text, pair, options, Want::Offsets)
    }

    /// Number of tokens of `text` in one blocking call.
    #[wasm_bindgen(js_name = countSync)]
    pub fn count_sync(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "EncodeOptions")] options: JsValue,
    ) -> Result<u32, JsValue> {
        Ok(self.run_blocking(&text, &options, Want::Count)?.as_f64().unwrap_or(0.0) as u32)
    }

    /// Text of `ids`, like `tokenizers`' decode. Ids outside the vocabulary are an error.
    pub fn decode(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Uint32Array | number[]")] ids: Vec<u32>,
        #[wasm_bindgen(unchecked_optional_param_type = "DecodeOptions")] options: JsValue,
    ) -> Result<String, JsValue> {
        check_options(&options)?;
        let skip = opt_bool(&options, "skipSpecialTokens", false)?;
        self.full("decode")?.decode(&ids, skip).map_err(core_error)
    }

    /// Render a conversation with the model's chat template, byte-identical to transformers'
    /// `apply_chat_template`. The template comes from the `config` given at load time
    /// (`tokenizer_config.json`) or from `options.chatTemplate`. Blocking (rendering is fast;
    /// with `tokenize`, the ids are computed in the same call: use `encode` for long texts).
    #[wasm_bindgen(js_name = applyChatTemplate, unchecked_return_type = "ChatResult")]
    pub fn apply_chat_template(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ChatMessage[]")] messages: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "ChatTemplateOptions")] options: JsValue,
    ) -> Result<JsValue, JsValue> {
        check_options(&options)?;
        let tok = self.full("applyChatTemplate")?;
        if !Array::is_array(&messages) {
            return Err(type_error("messages must be an array of message objects"));
        }
        let to_json = |v: &JsValue, what: &str| -> Result<serde_json::Value, JsValue> {
            let s =
                js_sys::JSON::stringify(v).map_err(|_| type_error(format!("{what} cannot be serialized to JSON")))?;
            serde_json::from_str(&String::from(s)).map_err(|e| type_error(format!("{what}: {e}")))
        };
        let optional = |key: &str| -> Result<Option<serde_json::Value>, JsValue> {
            let v = get(&options, key);
            if v.is_undefined() || v.is_null() {
                Ok(None)
            } else {
                to_json(&v, &format!("options.{key}")).map(Some)
            }
        };
        let messages = to_json(&messages, "messages")?;
        let tools = optional("tools")?;
        let documents = optional("documents")?;
        let add_generation_prompt = opt_bool(&options, "addGenerationPrompt", false)?;
        let continue_final_message = match get(&options, "continueFinalMessage") {
            c if c.is_undefined() || c.is_null() => ContinueFinalMessage::No,
            c if c.as_bool() == Some(true) => ContinueFinalMessage::Content,
            c if c.as_bool() == Some(false) => ContinueFinalMessage::No,
            c => match c.as_string() {
                Some(field) => ContinueFinalMessage::Field(field),
                None => return Err(type_error("options.continueFinalMessage must be a boolean or a field name")),
            },
        };
        let kwargs = match optional("kwargs")? {
            None => Default::default(),
            Some(serde_json::Value::Object(map)) => map,
            Some(_) => return Err(type_error("options.kwargs must be an object")),
        };
        // Unlike transformers (and the Python and Node bindings), `tokenize` is off by default here:
        // the result always carries the text, and the ids only when asked.
        let call = ChatCall {
            messages,
            tools,
            documents,
            kwargs,
            add_generation_prompt,
            continue_final_message,
            chat_template: opt_string(&options, "chatTemplate")?,
            tokenize: opt_bool(&options, "tokenize", false)?,
            return_assistant_tokens_mask: opt_bool(&options, "returnAssistantTokensMask", false)?,
            return_dict: false,
        };
        let (req, opts) = call.into_parts();
        let out = tok.apply_chat_template(&req, &opts).map_err(core_error)?;
        let obj = Object::new();
        Reflect::set(&obj, &"text".into(), &JsValue::from_str(&out.text))?;
        if let Some(ids) = &out.ids {
            Reflect::set(&obj, &"ids".into(), &Uint32Array::from(&ids[..]).into())?;
        }
        if let Some(mask) = &out.assistant_mask {
            Reflect::set(&obj, &"assistantMask".into(), &Uint32Array::from(&mask[..]).into())?;
        }
        Ok(obj.into())
    }

    /// Id of a token string, if the vocabulary has it.
    #[wasm_bindgen(js_name = tokenToId)]
    pub fn token_to_id(&self, token: &str) -> Result<Option<u32>, JsValue> {
        Ok(self.full("tokenToId")?.token_to_id(token))
    }

    /// Token string of an id, if the vocabulary has it.
    #[wasm_bindgen(js_name = idToToken)]
    pub fn id_to_token(&self, id: u32) -> Result<Option<String>, JsValue> {
        Ok(self.full("idToToken")?.id_to_token(id))
    }

    /// Vocabulary size, added tokens included.
    #[wasm_bindgen(getter, js_name = vocabSize)]
    pub fn vocab_size(&self) -> u32 {
        match &self.inner {
            Kind::Full(t) => t.vocab_size(true) as u32,
            Kind::Compact(t) => t.vocab_size(true) as u32,
        }
    }

    /// How this tokenizer is cut into pieces (or why it is encoded whole).
    #[wasm_bindgen(getter)]
    pub fn chunking(&self) -> String {
        match &self.inner {
            Kind::Full(t) => t.cut_rules().describe(),
            Kind::Compact(t) => t.cut_rules().describe(),
        }
    }

    /// The engine serving every encode here (ids and offsets): `"yieldtok"` (the own engine,
    /// checked against `tokenizers` at load) or `"tokenizers"` (when the own engine refused
    /// this tokenizer; see `engineUnavailableReason`).
    #[wasm_bindgen(getter)]
    pub fn engine(&self) -> String {
        match &self.inner {
            Kind::Full(t) => t.encoding_engine().to_string(),
            Kind::Compact(_) => "yieldtok".to_string(),
        }
    }

    /// Why the own engine does not serve this tokenizer (`undefined` when it does).
    #[wasm_bindgen(getter, js_name = engineUnavailableReason)]
    pub fn engine_unavailable_reason(&self) -> Option<String> {
        match &self.inner {
            Kind::Full(t) => t.encoding_engine_unavailable_reason().map(str::to_string),
            Kind::Compact(_) => None,
        }
    }

    /// The name given at load time (or the URL), if any.
    #[wasm_bindgen(getter)]
    pub fn name(&self) -> Option<String> {
        match &self.inner {
            Kind::Full(t) => t.origin().map(str::to_string),
            Kind::Compact(t) => t.origin().map(str::to_string),
        }
    }

    /// For tests only: a task whose `step` panics.
    #[wasm_bindgen(js_name = __panickingTask, skip_typescript)]
    pub fn panicking_task(&self) -> Result<EncodeTask, JsValue> {
        let mut t = self.make_task(&JsValue::from_str("x"), &JsValue::UNDEFINED, Want::Ids)?;
        t.panic_on_step = true;
        Ok(t)
    }

    /// For tests only: an async encode whose first slice panics.
    #[wasm_bindgen(js_name = __panicInEncode, skip_typescript)]
    pub fn panic_in_encode(&self) -> Promise {
        match self.panicking_task() {
            Ok(t) => js_drive(Array::of1(&t.into()), &JsValue::UNDEFINED, true),
            Err(e) => Promise::reject(&e),
        }
    }
}

/// For tests only: panic inside a synchronous export.
#[wasm_bindgen(js_name = __panicForTests, skip_typescript)]
pub fn panic_for_tests() {
    panic!("test panic inside a synchronous call");
}

/// The version of the binding.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

#[wasm_bindgen(start, skip_typescript)]
fn __yieldtok_start() {
    // A panic is an `unreachable` trap here (panic=abort). Record its message for the error
    // the JS side raises, and have the glue re-create the instance before the next call.
    std::panic::set_hook(Box::new(|info| {
        let what = info.payload_as_str().unwrap_or("(non-string panic payload)");
        let at = info.location().map(|l| format!(" (at {}:{})", l.file(), l.line())).unwrap_or_default();
        js_record_panic(&format!("{what}{at}"));
        wasm_bindgen::handler::schedule_reinit();
    }));
    // For traps that are not panics (stack overflow, out of memory): the JS side calls this.
    js_register_reset(&Closure::<dyn Fn()>::new(wasm_bindgen::handler::schedule_reinit).into_js_value());
}
