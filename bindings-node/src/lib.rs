//! Node.js binding of yieldtok (napi-rs v3). This native layer is thin on purpose: the public,
//! documented API (option parsing, `AbortSignal`, the `Encoding` class) lives in `index.js` /
//! `index.d.ts`, and everything that is tokenization lives in the core.
//!
//! Async work never touches libuv's thread pool: an encode is a core [`yieldtok::EncodeFuture`],
//! which runs its pieces on the core scheduler's threads. This file drives that future with a
//! tiny "poll on wake" executor ([`exec`]): the worker that finishes the last piece wakes it;
//! the final poll (which assembles the result) and the conversion of the result (byte offsets
//! -> UTF-16 offsets, flattening) run on that worker for short texts and on the binding's
//! helper thread ([`helper`]) for long ones. Only the hand-over to JS (a `JsDeferred`, i.e. a
//! threadsafe function) touches the main thread, where the arrays become external
//! `ArrayBuffer`s without a copy.

#![deny(clippy::all)]

mod exec;
mod helper;
mod offsets;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use napi::bindgen_prelude::*;
use napi::{Env, JsDeferred};
use napi_derive::napi;
use yieldtok::{EncodeOptions, JobHandle, JobOutput, Output};

// ---- errors ------------------------------------------------------------------------------

fn status_of(e: &yieldtok::Error) -> Status {
    match e {
        yieldtok::Error::Cancelled => Status::Cancelled,
        e if e.is_invalid_input() => Status::InvalidArg,
        _ => Status::GenericFailure,
    }
}

/// A core error as a napi error: the core's message, verbatim.
fn js_err(e: yieldtok::Error) -> Error {
    Error::new(status_of(&e), e.to_string())
}

/// Run `f`, turning a panic into an error (a panic must never unwind into Node).
fn guard<T>(f: impl FnOnce() -> yieldtok::Result<T>) -> Result<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r.map_err(js_err),
        Err(p) => Err(Error::new(Status::GenericFailure, format!("internal panic: {}", panic_message(&p)))),
    }
}

fn panic_message(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic payload".into())
}

// ---- results -----------------------------------------------------------------------------

/// One or more encodings in flat, concatenated typed arrays. Encoding `i` covers tokens
/// `starts[i]..starts[i+1]`; its offsets are `offsets[2*starts[i]..2*starts[i+1]]`, in UTF-16
/// code units of its own text. Handed to JS as external `ArrayBuffer`s (no copy).
#[napi(object)]
pub struct EncodingBuffers {
    pub ids: Uint32Array,
    pub offsets: Uint32Array,
    pub attention_mask: Uint32Array,
    pub type_ids: Uint32Array,
    pub special_tokens_mask: Uint32Array,
    pub starts: Uint32Array,
}

/// The same as [`EncodingBuffers`], as plain vectors: built on a worker thread, `Send`.
#[derive(Default)]
struct Flat {
    ids: Vec<u32>,
    offsets: Vec<u32>,
    attention_mask: Vec<u32>,
    type_ids: Vec<u32>,
    special_tokens_mask: Vec<u32>,
    starts: Vec<u32>,
}

impl Flat {
    fn with_capacity(encodings: usize, tokens: usize) -> Self {
        let mut starts = Vec::with_capacity(encodings + 1);
        starts.push(0);
        Flat {
            ids: Vec::with_capacity(tokens),
            offsets: Vec::with_capacity(2 * tokens),
            attention_mask: Vec::with_capacity(tokens),
            type_ids: Vec::with_capacity(tokens),
            special_tokens_mask: Vec::with_capacity(tokens),
            starts,
        }
    }

    /// One encoding, moving its vectors when it is the only one (no copy).
    fn single(enc: yieldtok::Encoding, text: &str) -> Self {
        let n = enc.ids.len() as u32;
        let offsets = offsets::utf16_flat(text, &enc.offsets);
        Flat {
            ids: enc.ids,
            offsets,
            attention_mask: enc.attention_mask,
            type_ids: enc.type_ids,
            special_tokens_mask: enc.special_tokens_mask,
            starts: vec![0, n],
        }
    }

    fn push(&mut self, enc: &yieldtok::Encoding, text: &str) {
        self.ids.extend_from_slice(&enc.ids);
        offsets::utf16_extend(text, &enc.offsets, &mut self.offsets);
        self.attention_mask.extend_from_slice(&enc.attention_mask);
        self.type_ids.extend_from_slice(&enc.type_ids);
        self.special_tokens_mask.extend_from_slice(&enc.special_tokens_mask);
        self.starts.push(self.ids.len() as u32);
    }

    fn many<'a>(items: impl ExactSizeIterator<Item = (&'a yieldtok::Encoding, &'a str)> + Clone) -> Self {
        let tokens = items.clone().map(|(e, _)| e.ids.len()).sum();
        let mut flat = Flat::with_capacity(items.len(), tokens);
        for (e, t) in items {
            flat.push(e, t);
        }
        flat
    }

    /// `Uint32Array::new` shrinks each vector to fit, which may reallocate: do it here, on the
    /// worker, so that the main thread only wraps pointers.
    fn shrink(mut self) -> Self {
        for v in [&mut self.ids, &mut self.offsets, &mut self.attention_mask, &mut self.type_ids, &mut self.special_tokens_mask, &mut self.starts] {
            v.shrink_to_fit();
        }
        self
    }

    fn into_js(self) -> EncodingBuffers {
        EncodingBuffers {
            ids: Uint32Array::new(self.ids),
            offsets: Uint32Array::new(self.offsets),
            attention_mask: Uint32Array::new(self.attention_mask),
            type_ids: Uint32Array::new(self.type_ids),
            special_tokens_mask: Uint32Array::new(self.special_tokens_mask),
            starts: Uint32Array::new(self.starts),
        }
    }
}

// ---- cancellation ------------------------------------------------------------------------

/// Cancels the core jobs of one call (an `AbortSignal` in the JS layer calls `cancel()`).
#[napi]
#[derive(Default)]
pub struct CancelToken {
    inner: Arc<CancelInner>,
}

#[derive(Default)]
struct CancelInner {
    cancelled: AtomicBool,
    handles: Mutex<Vec<JobHandle>>,
}

impl CancelInner {
    /// Register a job; cancels it at once if the token already fired.
    fn register(&self, h: JobHandle) {
        let mut hs = self.handles.lock().unwrap_or_else(|e| e.into_inner());
        if self.cancelled.load(Ordering::Acquire) {
            h.cancel();
        } else {
            hs.push(h);
        }
    }

    fn cancel(&self) {
        let hs = {
            let mut hs = self.handles.lock().unwrap_or_else(|e| e.into_inner());
            self.cancelled.store(true, Ordering::Release);
            std::mem::take(&mut *hs)
        };
        for h in hs {
            h.cancel();
        }
    }
}

#[napi]
impl CancelToken {
    #[napi(constructor)]
    pub fn new() -> Self {
        Self::default()
    }

    /// Cancel every job started with this token: pieces not yet started will not run.
    #[napi]
    pub fn cancel(&self) {
        self.inner.cancel()
    }

    #[napi(getter)]
    pub fn cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::Acquire)
    }

    /// Bytes encoded so far and in total, over the jobs of this token (for tests and progress).
    #[napi]
    pub fn progress(&self) -> Vec<f64> {
        let hs = self.inner.handles.lock().unwrap_or_else(|e| e.into_inner());
        let (done, total) = hs.iter().map(|h| h.progress()).fold((0, 0), |(d, t), p| (d + p.done_bytes, t + p.total_bytes));
        vec![done as f64, total as f64]
    }
}

// ---- the tokenizer -----------------------------------------------------------------------

type Resolver<D> = Box<dyn FnOnce(Env) -> Result<D> + Send>;
type Deferred<D> = JsDeferred<D, Resolver<D>>;

fn settle<D: ToNapiValue + 'static, T: Send + 'static>(deferred: Deferred<D>, r: Result<T>, f: fn(T) -> D) {
    match r {
        Ok(v) => deferred.resolve(Box::new(move |_env| Ok(f(v)))),
        Err(e) => deferred.reject(e),
    }
}

/// Ids at or above this many are decoded off the main thread by the async `decode`.
const DECODE_OFFLOAD_IDS: usize = 4096;

/// Piece size of `encodeBatch` items: a typical batch text (a few KB) is then one piece, which
/// measured 15-20% less CPU than the core's default 2 KiB pieces (fewer pieces to assemble),
/// while one piece still takes only a few ms, so other requests keep their turn.
const BATCH_PIECE_BYTES: usize = 8 * 1024;

/// Texts (bytes) at or above this size are finished (assembled, converted) on the helper thread
/// instead of the scheduler worker that completes them.
const HEAVY_BYTES: usize = 64 * 1024;

#[napi]
pub struct NativeTokenizer {
    tok: yieldtok::Tokenizer,
}

#[napi]
impl NativeTokenizer {
    // -- loading (sync: a load is a one-off that takes a few hundred ms) --

    #[napi(factory)]
    pub fn from_file(path: String) -> Result<Self> {
        guard(|| yieldtok::Tokenizer::from_file(&path)).map(|tok| Self { tok })
    }

    #[napi(factory)]
    pub fn from_dir(path: String) -> Result<Self> {
        guard(|| yieldtok::Tokenizer::from_dir(&path)).map(|tok| Self { tok })
    }

    #[napi(factory, js_name = "fromJSON")]
    pub fn from_json(json: String) -> Result<Self> {
        guard(|| yieldtok::Tokenizer::from_str(&json)).map(|tok| Self { tok })
    }

    #[napi(factory)]
    pub fn from_bytes(bytes: Uint8Array) -> Result<Self> {
        guard(|| yieldtok::Tokenizer::from_bytes(&bytes)).map(|tok| Self { tok })
    }

    // -- info --

    #[napi]
    pub fn vocab_size(&self, with_added_tokens: bool) -> u32 {
        self.tok.vocab_size(with_added_tokens) as u32
    }

    #[napi]
    pub fn token_to_id(&self, token: String) -> Option<u32> {
        self.tok.token_to_id(&token)
    }

    #[napi]
    pub fn id_to_token(&self, id: u32) -> Option<String> {
        self.tok.id_to_token(id)
    }

    #[napi(getter)]
    pub fn origin(&self) -> Option<String> {
        self.tok.origin().map(str::to_string)
    }

    /// The chunking rules in force (or why the tokenizer is not chunked).
    #[napi(getter)]
    pub fn chunking(&self) -> String {
        self.tok.cut_rules().describe()
    }

    /// The engine that serves ids-only work right now: `"fastokens"` once the fast engine has
    /// loaded (in the background, after the tokenizer), else `"tokenizers"`.
    #[napi(getter)]
    pub fn engine(&self) -> String {
        self.tok.engine().to_string()
    }

    /// Why the fast engine does not serve this tokenizer (null while it loads or once ready).
    #[napi(getter)]
    pub fn engine_unavailable_reason(&self) -> Option<String> {
        self.tok.engine_unavailable_reason().map(str::to_string)
    }

    /// Resolves once the fast engine has loaded or been ruled out, to [`engine`](Self::engine).
    /// The wait happens on a short-lived thread of its own.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn wait_for_engine<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        let (deferred, promise) = env.create_deferred::<String, Resolver<String>>()?;
        let tok = self.tok.clone();
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

    #[napi]
    pub fn encode_sync(&self, text: String, add_special_tokens: bool) -> Result<EncodingBuffers> {
        let enc = guard(|| self.tok.encode(&text, add_special_tokens))?;
        Ok(Flat::single(enc, &text).into_js())
    }

    #[napi]
    pub fn encode_batch_sync(&self, texts: Vec<String>, add_special_tokens: bool) -> Result<EncodingBuffers> {
        let encs = guard(|| self.tok.encode_batch(&texts, add_special_tokens))?;
        Ok(Flat::many(encs.iter().zip(texts.iter().map(String::as_str))).into_js())
    }

    #[napi]
    pub fn encode_ids_sync(&self, text: String, add_special_tokens: bool) -> Result<Uint32Array> {
        guard(|| self.tok.encode_ids(&text, add_special_tokens)).map(Uint32Array::new)
    }

    #[napi]
    pub fn count_sync(&self, text: String, add_special_tokens: bool) -> Result<u32> {
        guard(|| self.tok.count(&text, add_special_tokens)).map(|n| n as u32)
    }

    #[napi]
    pub fn decode_sync(&self, ids: Uint32Array, skip_special_tokens: bool) -> Result<String> {
        guard(|| self.tok.decode(&ids, skip_special_tokens))
    }

    /// `ids` concatenated, sequence `i` being `ids[starts[i]..starts[i+1]]`.
    #[napi]
    pub fn decode_batch_sync(&self, ids: Uint32Array, starts: Uint32Array, skip_special_tokens: bool) -> Result<Vec<String>> {
        let seqs = split_batch(&ids, &starts)?;
        guard(|| self.tok.decode_batch(&seqs, skip_special_tokens))
    }

    // -- async --

    /// Encode on the core scheduler; resolves to [`EncodingBuffers`] for one encoding.
    #[napi(ts_return_type = "Promise<EncodingBuffers>")]
    pub fn encode<'env>(&self, env: &'env Env, text: String, add_special_tokens: bool, token: Option<&CancelToken>) -> Result<Object<'env>> {
        let (deferred, promise) = env.create_deferred::<EncodingBuffers, Resolver<EncodingBuffers>>()?;
        let text: Arc<str> = Arc::from(text);
        let opts = EncodeOptions { add_special_tokens, ..Default::default() };
        let fut = self.tok.encode_async(text.clone(), opts);
        if let Some(t) = token {
            t.inner.register(fut.handle());
        }
        let heavy = text.len() >= HEAVY_BYTES;
        exec::spawn(fut, heavy, move |r| {
            let r = r.map_err(js_err).and_then(|out| match out {
                JobOutput::Full(enc) => Ok(Flat::single(enc, &text).shrink()),
                JobOutput::Ids(_) => Err(Error::from_reason("internal: ids-only output for a full encode")),
            });
            settle(deferred, r, Flat::into_js);
        });
        Ok(promise)
    }

    /// Ids only (no offsets; served by the fast engine once it has loaded), on the core scheduler.
    #[napi(ts_return_type = "Promise<Uint32Array>")]
    pub fn encode_ids<'env>(&self, env: &'env Env, text: String, add_special_tokens: bool, token: Option<&CancelToken>) -> Result<Object<'env>> {
        let (deferred, promise) = env.create_deferred::<Uint32Array, Resolver<Uint32Array>>()?;
        let opts = EncodeOptions { add_special_tokens, output: Output::Ids, ..Default::default() };
        let heavy = text.len() >= HEAVY_BYTES;
        let fut = self.tok.encode_async(text, opts);
        if let Some(t) = token {
            t.inner.register(fut.handle());
        }
        exec::spawn(fut, heavy, move |r| {
            let r = r.map_err(js_err).map(|o| {
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
    pub fn count<'env>(&self, env: &'env Env, text: String, add_special_tokens: bool, token: Option<&CancelToken>) -> Result<Object<'env>> {
        let (deferred, promise) = env.create_deferred::<u32, Resolver<u32>>()?;
        let opts = EncodeOptions { add_special_tokens, output: Output::Ids, ..Default::default() };
        let heavy = text.len() >= HEAVY_BYTES;
        let fut = self.tok.encode_async(text, opts);
        if let Some(t) = token {
            t.inner.register(fut.handle());
        }
        exec::spawn(fut, heavy, move |r| settle(deferred, r.map_err(js_err).map(|o| o.ids().len() as u32), |n| n));
        Ok(promise)
    }

    /// Encode many texts, each its own job on the core scheduler (so they interleave fairly
    /// with other requests); resolves once all are done, to one [`EncodingBuffers`]. The first
    /// error cancels the rest and rejects.
    #[napi(ts_return_type = "Promise<EncodingBuffers>")]
    pub fn encode_batch<'env>(&self, env: &'env Env, texts: Vec<String>, add_special_tokens: bool, token: Option<&CancelToken>) -> Result<Object<'env>> {
        let (deferred, promise) = env.create_deferred::<EncodingBuffers, Resolver<EncodingBuffers>>()?;
        if texts.is_empty() {
            deferred.resolve(Box::new(|_| Ok(Flat::with_capacity(0, 0).into_js())));
            return Ok(promise);
        }
        let texts: Vec<Arc<str>> = texts.into_iter().map(Arc::from).collect();
        let total: usize = texts.iter().map(|t| t.len()).sum();
        let batch = Arc::new(Batch {
            heavy: total >= HEAVY_BYTES,
            slots: Mutex::new((0..texts.len()).map(|_| None).collect()),
            remaining: AtomicUsize::new(texts.len()),
            deferred: Mutex::new(Some(deferred)),
            cancel: token.map(|t| t.inner.clone()).unwrap_or_default(),
            texts: texts.clone(),
        });
        for (i, text) in texts.into_iter().enumerate() {
            let opts = EncodeOptions { add_special_tokens, piece_bytes: Some(BATCH_PIECE_BYTES), ..Default::default() };
            let heavy = text.len() >= HEAVY_BYTES;
            let fut = self.tok.encode_async(text, opts);
            batch.cancel.register(fut.handle());
            let b = batch.clone();
            exec::spawn(fut, heavy, move |r| b.done(i, r));
        }
        Ok(promise)
    }

    /// Decode. Short id lists are decoded at once (microseconds); long ones on a helper thread.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn decode<'env>(&self, env: &'env Env, ids: Uint32Array, skip_special_tokens: bool) -> Result<Object<'env>> {
        let (deferred, promise) = env.create_deferred::<String, Resolver<String>>()?;
        if ids.len() < DECODE_OFFLOAD_IDS {
            settle(deferred, guard(|| self.tok.decode(&ids, skip_special_tokens)), |s| s);
        } else {
            let ids = ids.to_vec();
            let tok = self.tok.clone();
            offload(move || settle(deferred, guard(|| tok.decode(&ids, skip_special_tokens)), |s| s));
        }
        Ok(promise)
    }

    #[napi(ts_return_type = "Promise<string[]>")]
    pub fn decode_batch<'env>(&self, env: &'env Env, ids: Uint32Array, starts: Uint32Array, skip_special_tokens: bool) -> Result<Object<'env>> {
        let (deferred, promise) = env.create_deferred::<Vec<String>, Resolver<Vec<String>>>()?;
        let seqs = match split_batch(&ids, &starts) {
            Ok(s) => s,
            Err(e) => {
                deferred.reject(e);
                return Ok(promise);
            }
        };
        if ids.len() < DECODE_OFFLOAD_IDS {
            settle(deferred, guard(|| self.tok.decode_batch(&seqs, skip_special_tokens)), |s| s);
        } else {
            let tok = self.tok.clone();
            let seqs: Vec<Vec<u32>> = seqs.into_iter().map(<[u32]>::to_vec).collect();
            offload(move || settle(deferred, guard(|| tok.decode_batch(&seqs, skip_special_tokens)), |s| s));
        }
        Ok(promise)
    }
}

/// Run `f` off the main thread and off libuv's pool: on the helper thread. Stopgap until the
/// core offers async decode on its scheduler (see the binding's report).
fn offload(f: impl FnOnce() + Send + 'static) {
    helper::run(f)
}

fn split_batch<'a>(ids: &'a [u32], starts: &[u32]) -> Result<Vec<&'a [u32]>> {
    let bad = || Error::new(Status::InvalidArg, "invalid batch layout".to_string());
    if starts.first().copied().unwrap_or(0) != 0 || starts.last().map(|&s| s as usize) != Some(ids.len()) {
        return Err(bad());
    }
    starts
        .windows(2)
        .map(|w| if w[0] <= w[1] { Ok(&ids[w[0] as usize..w[1] as usize]) } else { Err(bad()) })
        .collect()
}

/// The shared state of one `encodeBatch` call.
struct Batch {
    /// Flatten the results on the helper thread (large batches).
    heavy: bool,
    slots: Mutex<Vec<Option<yieldtok::Encoding>>>,
    remaining: AtomicUsize,
    deferred: Mutex<Option<Deferred<EncodingBuffers>>>,
    cancel: Arc<CancelInner>,
    texts: Vec<Arc<str>>,
}

impl Batch {
    fn take_deferred(&self) -> Option<Deferred<EncodingBuffers>> {
        self.deferred.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    fn done(self: &Arc<Self>, i: usize, r: yieldtok::Result<JobOutput>) {
        match r {
            Ok(JobOutput::Full(enc)) => self.slots.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(enc),
            Ok(JobOutput::Ids(_)) => {
                if let Some(d) = self.take_deferred() {
                    d.reject(Error::from_reason("internal: ids-only output for a full encode"));
                }
            }
            Err(e) => {
                // First failure wins; stop the rest of the batch.
                if let Some(d) = self.take_deferred() {
                    self.cancel.cancel();
                    d.reject(js_err(e));
                }
            }
        }
        if self.remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
            if let Some(d) = self.take_deferred() {
                let me = self.clone();
                let finish = move || {
                    let slots = std::mem::take(&mut *me.slots.lock().unwrap_or_else(|e| e.into_inner()));
                    let r = catch_unwind(AssertUnwindSafe(|| {
                        let encs: Vec<&yieldtok::Encoding> = slots.iter().map(|s| s.as_ref().expect("every slot filled")).collect();
                        Flat::many(encs.into_iter().zip(me.texts.iter().map(|t| &**t))).shrink()
                    }))
                    .map_err(|p| Error::from_reason(format!("internal panic: {}", panic_message(&p))));
                    settle(d, r, Flat::into_js);
                };
                if self.heavy {
                    helper::run(finish)
                } else {
                    finish()
                }
            }
        }
    }
}
