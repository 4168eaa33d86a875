//! Node.js binding of yieldtok (napi-rs v3). This native layer is thin on purpose: the public,
//! documented API (option parsing, `AbortSignal`, the `Encoding` class, result shapes) lives in
//! `yieldtok.js` / `yieldtok.d.ts`, and everything that is tokenization lives in the core.
//!
//! Async work never touches libuv's thread pool. An encode is a core [`yieldtok::EncodeFuture`]
//! (a batch a [`yieldtok::BatchFuture`]) whose pieces run on the core scheduler's threads;
//! decodes, chat templates and trajectories are [`yieldtok::TaskFuture`]s on the same pool
//! (`Tokenizer::spawn`). The binding drives them with a tiny "poll on wake" executor
//! ([`exec`]): the worker that finishes the work wakes the future; the final poll (which
//! assembles an encode's result) and the conversion of the result (byte offsets -> UTF-16
//! offsets, flattening) run on that worker for short texts and in a task of their own on the
//! same pool for long ones. Only the hand-over to JS (a `JsDeferred`, i.e. a threadsafe
//! function) touches the main thread, where vectors become external `ArrayBuffer`s without a
//! copy.
//!
//! Files: `align` (the `Encoding` alignment methods), `buffers` (encodings as flat typed arrays), `cancel` (the `AbortSignal` token),
//! `chat` (`applyChatTemplate`), `trajectory` (`tokenizeTrajectories`, `packTrajectories`),
//! `errors`, `promise` (promises settled from other threads), `exec`, `offsets`, `settings`
//! (truncation, padding, vocabulary), `stream`
//! (`DecodeStream`), `text` (reading long strings off the JS thread).

#![deny(clippy::all)]
// napi registers `#[napi]` items only outside `cfg(test)`; in `cargo test` they look unused.
#![cfg_attr(test, allow(dead_code))]

mod align;
mod buffers;
mod cancel;
mod chat;
mod errors;
mod exec;
mod offsets;
mod promise;
mod settings;
mod stream;
mod text;
mod trajectory;

use std::sync::{Arc, Mutex, RwLock};

use napi::bindgen_prelude::*;
use napi::{Env, JsString};
use napi_derive::napi;
use yieldtok::{EncodeOptions, Input, JobOutput, Output};

use buffers::{EncodingBuffers, Flat};
pub use cancel::CancelToken;
use cancel::Target;
use errors::{guard, invalid_arg, js_err};
use promise::{run_task, settle, Resolver};
use text::Text;

/// Ids at or above this many are decoded on the core scheduler by the async `decode` (fewer
/// are decoded at once on the calling thread: microseconds).
const DECODE_OFFLOAD_IDS: usize = 4096;

/// Piece size of `encodeBatch` items: a typical batch text (a few KB) is then one piece, which
/// measured 15-20% less CPU than the core's default 2 KiB pieces (fewer pieces to assemble),
/// while one piece still takes only a few ms, so other requests keep their turn.
const BATCH_PIECE_BYTES: usize = 8 * 1024;

/// Texts (bytes) at or above this size are finished (assembled, converted) in a task of their
/// own on the core's pool instead of by the scheduler worker that completes them.
const HEAVY_BYTES: usize = 64 * 1024;

/// The strings the core's trajectory parser reads as NaN, +Infinity and -Infinity (JSON has no
/// such numbers; `yieldtok.js` writes these in their place when it serialises JS values).
#[napi]
pub fn non_finite_markers() -> Vec<&'static str> {
    use yieldtok::trajectory::lenient::{INFINITY_MARKER, NAN_MARKER, NEG_INFINITY_MARKER};
    vec![NAN_MARKER, INFINITY_MARKER, NEG_INFINITY_MARKER]
}

/// The native tokenizer. Its core [`yieldtok::Tokenizer`] is a cheap handle that each call
/// clones ([`tok`](Self::tok)); the vocabulary, truncation and padding setters swap it for a new
/// one, as the `tokenizers` npm package's setters change its tokenizer in place (calls already
/// running keep the handle they started with).
#[napi]
pub struct NativeTokenizer {
    tok: RwLock<yieldtok::Tokenizer>,
}

impl From<yieldtok::Tokenizer> for NativeTokenizer {
    fn from(tok: yieldtok::Tokenizer) -> Self {
        NativeTokenizer { tok: RwLock::new(tok) }
    }
}

#[napi]
impl NativeTokenizer {
    // -- loading (sync: a load is a one-off that takes a few hundred ms) --

    #[napi(factory)]
    pub fn from_file(path: String) -> Result<Self> {
        guard(|| yieldtok::Tokenizer::from_file(&path)).map(Self::from)
    }

    #[napi(factory)]
    pub fn from_dir(path: String) -> Result<Self> {
        guard(|| yieldtok::Tokenizer::from_dir(&path)).map(Self::from)
    }

    /// Load a `tokenizer.json` file or a model folder (whichever `path` is) on the core
    /// scheduler, off the JS thread (a load takes 0.1-1.5 s of CPU); resolves to the tokenizer.
    /// Aborting `token` before the load starts means it never starts; one already running
    /// finishes and its result is dropped.
    #[napi(ts_return_type = "Promise<NativeTokenizer>")]
    pub fn load<'env>(env: &'env Env, path: String, token: Option<&CancelToken>) -> Result<Object<'env>> {
        let fut = yieldtok::spawn(move || {
            if std::path::Path::new(&path).is_dir() {
                yieldtok::Tokenizer::from_dir(&path)
            } else {
                yieldtok::Tokenizer::from_file(&path)
            }
        });
        run_task(env, fut, token, |tok| Ok(NativeTokenizer::from(tok)))
    }

    #[napi(factory, js_name = "fromJSON")]
    pub fn from_json(json: String) -> Result<Self> {
        guard(|| yieldtok::Tokenizer::from_str(&json)).map(Self::from)
    }

    #[napi(factory)]
    pub fn from_bytes(bytes: Uint8Array) -> Result<Self> {
        guard(|| yieldtok::Tokenizer::from_bytes(&bytes)).map(Self::from)
    }

    // -- info --

    #[napi]
    pub fn vocab_size(&self, with_added_tokens: bool) -> u32 {
        self.tok().vocab_size(with_added_tokens) as u32
    }

    #[napi]
    pub fn token_to_id(&self, token: String) -> Option<u32> {
        self.tok().token_to_id(&token)
    }

    #[napi]
    pub fn id_to_token(&self, id: u32) -> Option<String> {
        self.tok().id_to_token(id)
    }

    #[napi(getter)]
    pub fn origin(&self) -> Option<String> {
        self.tok().origin().map(str::to_string)
    }

    /// The chunking rules in force (or why the tokenizer is not chunked).
    #[napi(getter)]
    pub fn chunking(&self) -> String {
        self.tok().cut_rules().describe()
    }

    /// The engine that serves ids-only work right now: `"fastokens"` on byte-level BPE models
    /// once the fast engine has loaded (in the background, after the tokenizer), else `"yieldtok"` (the own engine,
    /// when it serves this tokenizer), else `"tokenizers"`.
    #[napi(getter)]
    pub fn engine(&self) -> String {
        self.tok().engine().to_string()
    }

    /// The engine that serves full encodings: `"yieldtok"` or `"tokenizers"`.
    #[napi(getter)]
    pub fn encoding_engine(&self) -> String {
        self.tok().encoding_engine().to_string()
    }

    /// Why the own engine does not serve this tokenizer (null when it does).
    #[napi(getter)]
    pub fn encoding_engine_unavailable_reason(&self) -> Option<String> {
        self.tok().encoding_engine_unavailable_reason().map(str::to_string)
    }

    /// Why the fast engine does not serve this tokenizer (null while it loads or once ready).
    #[napi(getter)]
    pub fn engine_unavailable_reason(&self) -> Option<String> {
        self.tok().engine_unavailable_reason().map(str::to_string)
    }

    /// Resolves once the fast engine has loaded or been ruled out, to [`engine`](Self::engine).
    /// The wait happens on a short-lived thread of its own.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn wait_for_engine<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        let (deferred, promise) = env.create_deferred::<String, Resolver<String>>()?;
        let tok = self.tok();
        let wait = move || settle(deferred, guard(|| Ok(tok.wait_for_engine().to_string())), |s| s);
        let wait = Arc::new(Mutex::new(Some(wait)));
        let w2 = wait.clone();
        let spawned = std::thread::Builder::new().name("yieldtok-node-wait".into()).spawn(move || {
            if let Some(f) = w2.lock().unwrap_or_else(|e| e.into_inner()).take() {
                f()
            }
        });
        if spawned.is_err() {
            if let Some(f) = wait.lock().unwrap_or_else(|e| e.into_inner()).take() {
                f()
            }
        }
        Ok(promise)
    }

    // -- sync --

    #[napi(ts_return_type = "Uint32Array")]
    pub fn encode_sync(&self, text: String, add_special_tokens: bool) -> Result<EncodingBuffers> {
        let enc = guard(|| self.tok().encode(&text, add_special_tokens))?;
        Ok(Flat::single(enc, &text).into_js())
    }

    #[napi(ts_return_type = "Uint32Array")]
    pub fn encode_batch_sync(&self, texts: Vec<String>, add_special_tokens: bool) -> Result<EncodingBuffers> {
        let encs = guard(|| self.tok().encode_batch(&texts, add_special_tokens))?;
        Ok(Flat::many(encs.iter().zip(texts.iter().map(String::as_str))).into_js())
    }

    #[napi]
    pub fn encode_ids_sync(&self, text: String, add_special_tokens: bool) -> Result<Uint32Array> {
        guard(|| self.tok().encode_ids(&text, add_special_tokens)).map(Uint32Array::new)
    }

    #[napi]
    pub fn count_sync(&self, text: String, add_special_tokens: bool) -> Result<u32> {
        guard(|| self.tok().count(&text, add_special_tokens)).map(|n| n as u32)
    }

    #[napi]
    pub fn decode_sync(&self, ids: Uint32Array, skip_special_tokens: bool) -> Result<String> {
        guard(|| self.tok().decode(&ids, skip_special_tokens))
    }

    /// `ids` concatenated, sequence `i` being `ids[starts[i]..starts[i+1]]`.
    #[napi]
    pub fn decode_batch_sync(
        &self,
        ids: Uint32Array,
        starts: Uint32Array,
        skip_special_tokens: bool,
    ) -> Result<Vec<String>> {
        let seqs = split_batch(&ids, &starts)?;
        guard(|| self.tok().decode_batch(&seqs, skip_special_tokens))
    }

    /// A pair of texts (`tokenizers`' `encode(sentence, pair)`): the post-processor's pair
    /// template, truncation and padding; offsets of the second sequence are into `pair`.
    #[napi(ts_return_type = "Uint32Array")]
    pub fn encode_pair_sync(&self, text: String, pair: String, add_special_tokens: bool) -> Result<EncodingBuffers> {
        let inputs = [Input::Pair(Arc::from(text), Arc::from(pair))];
        let opts = EncodeOptions { add_special_tokens, ..Default::default() };
        guard(|| encode_inputs(&self.tok(), &inputs, &opts, &yieldtok::CancelFlag::new()))
    }

    /// A batch of texts and pairs (`pairs[i]`: the second text of item `i`, or null).
    #[napi(ts_return_type = "Uint32Array")]
    pub fn encode_inputs_sync(
        &self,
        texts: Vec<String>,
        pairs: Vec<Option<String>>,
        add_special_tokens: bool,
    ) -> Result<EncodingBuffers> {
        let inputs = inputs(texts, pairs)?;
        let opts = EncodeOptions { add_special_tokens, ..Default::default() };
        guard(|| encode_inputs(&self.tok(), &inputs, &opts, &yieldtok::CancelFlag::new()))
    }

    // -- async --

    /// Encode on the core scheduler; resolves to [`EncodingBuffers`] for one encoding.
    #[napi(ts_return_type = "Promise<Uint32Array>")]
    pub fn encode<'env>(
        &self,
        env: &'env Env,
        text: JsString,
        add_special_tokens: bool,
        token: Option<&CancelToken>,
    ) -> Result<Object<'env>> {
        let (deferred, promise) = env.create_deferred::<EncodingBuffers, Resolver<EncodingBuffers>>()?;
        let text = Text::read(text)?;
        let opts = EncodeOptions { add_special_tokens, ..Default::default() };
        self.run_encode(env, text, opts, token, move |r| {
            let r = r.map_err(js_err).and_then(|(out, text): (JobOutput, Arc<str>)| match out {
                JobOutput::Full(enc) => Ok(Flat::single(enc, &text).into_js()),
                JobOutput::Ids(_) => Err(Error::from_reason("internal: ids-only output for a full encode")),
            });
            settle(deferred, r, std::convert::identity)
        });
        Ok(promise)
    }

    /// Ids only (no offsets; served by the fast engine once it has loaded), on the core scheduler.
    #[napi(ts_return_type = "Promise<Uint32Array>")]
    pub fn encode_ids<'env>(
        &self,
        env: &'env Env,
        text: JsString,
        add_special_tokens: bool,
        token: Option<&CancelToken>,
    ) -> Result<Object<'env>> {
        let (deferred, promise) = env.create_deferred::<Uint32Array, Resolver<Uint32Array>>()?;
        let opts = EncodeOptions { add_special_tokens, output: Output::Ids, ..Default::default() };
        self.run_encode(env, Text::read(text)?, opts, token, move |r| {
            let r = r.map_err(js_err).map(|(o, _)| {
                let mut ids = o.into_ids();
                ids.shrink_to_fit();
                ids
            });
            settle(deferred, r, Uint32Array::new)
        });
        Ok(promise)
    }

    /// Number of tokens, on the core scheduler (ids only, no offsets).
    #[napi(ts_return_type = "Promise<number>")]
    pub fn count<'env>(
        &self,
        env: &'env Env,
        text: JsString,
        add_special_tokens: bool,
        token: Option<&CancelToken>,
    ) -> Result<Object<'env>> {
        let (deferred, promise) = env.create_deferred::<u32, Resolver<u32>>()?;
        let opts = EncodeOptions { add_special_tokens, output: Output::Ids, ..Default::default() };
        self.run_encode(env, Text::read(text)?, opts, token, move |r| {
            settle(deferred, r.map_err(js_err).map(|(o, _)| o.ids().len() as u32), |n| n)
        });
        Ok(promise)
    }

    /// Encode many texts as one core batch ([`yieldtok::BatchFuture`]): each text is its own
    /// job on the core scheduler, so they interleave fairly with other requests; resolves once
    /// all are done, in order, to one [`EncodingBuffers`]. The first error cancels the rest and
    /// rejects.
    #[napi(ts_return_type = "Promise<Uint32Array>")]
    pub fn encode_batch<'env>(
        &self,
        env: &'env Env,
        texts: Vec<String>,
        add_special_tokens: bool,
        token: Option<&CancelToken>,
    ) -> Result<Object<'env>> {
        let (deferred, promise) = env.create_deferred::<EncodingBuffers, Resolver<EncodingBuffers>>()?;
        let texts: Arc<[Arc<str>]> = texts.into_iter().map(Arc::from).collect();
        // A long text is assembled in the batch's poll: poll in a task of its own then. Many
        // short texts are assembled on the workers, and only flattened in a task of its own.
        let long_text = texts.iter().any(|t| t.len() >= HEAVY_BYTES);
        let heavy_total = texts.iter().map(|t| t.len()).sum::<usize>() >= HEAVY_BYTES;
        let opts = EncodeOptions { add_special_tokens, piece_bytes: Some(BATCH_PIECE_BYTES), ..Default::default() };
        let fut = self.tok().encode_batch_async(texts.iter().cloned(), opts);
        CancelToken::register(token, || Target::Batch(fut.handle()));
        exec::spawn(env, fut, long_text, move |r| {
            let finish = move || {
                let r = guard(|| {
                    let encs = r?
                        .into_iter()
                        .map(|o| match o {
                            JobOutput::Full(enc) => Ok(enc),
                            JobOutput::Ids(_) => {
                                Err(yieldtok::Error::Panic("ids-only output for a full encode".into()))
                            }
                        })
                        .collect::<yieldtok::Result<Vec<_>>>()?;
                    Ok(Flat::many(encs.iter().zip(texts.iter().map(|t| &**t))).into_js())
                });
                settle(deferred, r, std::convert::identity);
            };
            if heavy_total && !long_text {
                yieldtok::spawn_detached(finish)
            } else {
                finish()
            }
        });
        Ok(promise)
    }

    /// [`encode_pair_sync`](Self::encode_pair_sync) as one task on the core scheduler
    /// (flattened there too); aborting `token` cancels it.
    #[napi(ts_return_type = "Promise<Uint32Array>")]
    pub fn encode_pair<'env>(
        &self,
        env: &'env Env,
        text: String,
        pair: String,
        add_special_tokens: bool,
        token: Option<&CancelToken>,
    ) -> Result<Object<'env>> {
        let inputs = vec![Input::Pair(Arc::from(text), Arc::from(pair))];
        let opts = EncodeOptions { add_special_tokens, ..Default::default() };
        let fut = self.tok().spawn_cancellable(move |tok, cancel| encode_inputs(tok, &inputs, &opts, cancel));
        run_task(env, fut, token, Ok)
    }

    /// [`encode_inputs_sync`](Self::encode_inputs_sync) as one task on the core scheduler (the
    /// items in parallel on its pool).
    #[napi(ts_return_type = "Promise<Uint32Array>")]
    pub fn encode_inputs<'env>(
        &self,
        env: &'env Env,
        texts: Vec<String>,
        pairs: Vec<Option<String>>,
        add_special_tokens: bool,
        token: Option<&CancelToken>,
    ) -> Result<Object<'env>> {
        let inputs = inputs(texts, pairs)?;
        let opts = EncodeOptions { add_special_tokens, piece_bytes: Some(BATCH_PIECE_BYTES), ..Default::default() };
        let fut = self.tok().spawn_cancellable(move |tok, cancel| encode_inputs(tok, &inputs, &opts, cancel));
        run_task(env, fut, token, Ok)
    }

    /// Decode. Short id lists are decoded at once (microseconds); long ones on the core
    /// scheduler (`Tokenizer::decode_async`).
    #[napi(ts_return_type = "Promise<string>")]
    pub fn decode<'env>(&self, env: &'env Env, ids: Uint32Array, skip_special_tokens: bool) -> Result<Object<'env>> {
        if ids.len() >= DECODE_OFFLOAD_IDS {
            return run_task(env, self.tok().decode_async(ids.to_vec(), skip_special_tokens), None, Ok);
        }
        let (deferred, promise) = env.create_deferred::<String, Resolver<String>>()?;
        settle(deferred, guard(|| self.tok().decode(&ids, skip_special_tokens)), |s| s);
        Ok(promise)
    }

    /// `ids` concatenated, sequence `i` being `ids[starts[i]..starts[i+1]]`. Short batches are
    /// decoded at once, long ones on the core scheduler (`Tokenizer::decode_batch_async`).
    #[napi(ts_return_type = "Promise<string[]>")]
    pub fn decode_batch<'env>(
        &self,
        env: &'env Env,
        ids: Uint32Array,
        starts: Uint32Array,
        skip_special_tokens: bool,
    ) -> Result<Object<'env>> {
        let seqs = split_batch(&ids, &starts);
        if ids.len() >= DECODE_OFFLOAD_IDS {
            if let Ok(seqs) = seqs {
                let seqs: Vec<Vec<u32>> = seqs.into_iter().map(<[u32]>::to_vec).collect();
                return run_task(env, self.tok().decode_batch_async(seqs, skip_special_tokens), None, Ok);
            }
        }
        let (deferred, promise) = env.create_deferred::<Vec<String>, Resolver<Vec<String>>>()?;
        settle(deferred, seqs.and_then(|seqs| guard(|| self.tok().decode_batch(&seqs, skip_special_tokens))), |s| s);
        Ok(promise)
    }
}

/// Texts and their optional second texts as core inputs.
fn inputs(texts: Vec<String>, pairs: Vec<Option<String>>) -> Result<Vec<Input>> {
    if texts.len() != pairs.len() {
        return Err(invalid_arg(format!("{} texts but {} pair entries", texts.len(), pairs.len())));
    }
    Ok(texts
        .into_iter()
        .zip(pairs)
        .map(|(a, b)| match b {
            Some(b) => Input::Pair(Arc::from(a), Arc::from(b)),
            None => Input::Single(Arc::from(a)),
        })
        .collect())
}

/// Encode `inputs` as one batch (truncation, padding over the batch) and flatten the
/// encodings, each pair's offsets into its own two texts.
fn encode_inputs(
    tok: &yieldtok::Tokenizer,
    inputs: &[Input],
    opts: &EncodeOptions,
    cancel: &yieldtok::CancelFlag,
) -> yieldtok::Result<EncodingBuffers> {
    let outs = tok.encode_inputs_with_cancel(inputs, opts, cancel)?;
    let encs = outs
        .into_iter()
        .map(|o| o.into_encoding().ok_or_else(|| yieldtok::Error::Panic("ids-only output for a full encode".into())))
        .collect::<yieldtok::Result<Vec<_>>>()?;
    let mut flat = Flat::with_capacity(encs.len(), encs.iter().map(|e| e.len()).sum());
    for (enc, input) in encs.iter().zip(inputs) {
        match input {
            Input::Pair(a, b) => flat.push_seqs(enc, &[a, b]),
            Input::Single(a) => flat.push(enc, a),
            Input::Words(_) | Input::WordsPair(..) => {
                return Err(yieldtok::Error::Panic("the binding makes no pre-tokenized inputs".into()))
            }
        }
    }
    Ok(flat.into_js())
}

pub(crate) fn split_batch<'a>(ids: &'a [u32], starts: &[u32]) -> Result<Vec<&'a [u32]>> {
    let bad = || invalid_arg("invalid batch layout");
    if starts.first().copied().unwrap_or(0) != 0 || starts.last().map(|&s| s as usize) != Some(ids.len()) {
        return Err(bad());
    }
    starts.windows(2).map(|w| if w[0] <= w[1] { Ok(&ids[w[0] as usize..w[1] as usize]) } else { Err(bad()) }).collect()
}

impl NativeTokenizer {
    /// The core tokenizer in force now (a clone of the handle: an `Arc`).
    pub(crate) fn tok(&self) -> yieldtok::Tokenizer {
        self.tok.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Put `tok` in force for the calls that start from now on.
    fn set_tok(&self, tok: yieldtok::Tokenizer) {
        *self.tok.write().unwrap_or_else(|e| e.into_inner()) = tok;
    }

    /// Encode `text` on the core scheduler (a long text is first transcoded there, see
    /// [`text`]) and hand the output and the UTF-8 text to `on_done`, on the thread that
    /// completes it (see [`exec`]). Aborting `token` drops the work: remaining pieces never run.
    fn run_encode(
        &self,
        env: &Env,
        text: Text,
        opts: EncodeOptions,
        token: Option<&CancelToken>,
        on_done: impl FnOnce(yieldtok::Result<(JobOutput, Arc<str>)>) + Send + 'static,
    ) {
        let heavy = text.is_long();
        let tok = self.tok().clone();
        let fut = async move {
            let text = text.utf8().await?;
            let out = tok.encode_async(text.clone(), opts).await?;
            Ok((out, text))
        };
        let abort = exec::spawn(env, fut, heavy, on_done);
        CancelToken::register(token, || Target::Task(abort));
    }
}
