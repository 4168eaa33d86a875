//! The compact form of a tokenizer: bytes that build a tokenizer served by the own engine
//! alone ([`CompactTokenizer`]), without parsing `tokenizer.json` and without the `tokenizers`
//! reference — so that a browser can cache a tokenizer (Cache API, IndexedDB) and build it on
//! the page without a long task (qwen3: the reference's parse alone is ~0.5 s in wasm).
//!
//! Written by [`Tokenizer::to_compact`] from a tokenizer whose own engine serves it with a
//! direct frame (its post-processor only adds fixed special tokens), without truncation or
//! padding. What it keeps is exactly what was verified at that tokenizer's load: the engine
//! (its own compact form, [`yieldtok_engine::compact`]), the cut rules and added-token matcher
//! that passed the chunking self-check, the special-token frame and sequence-range shapes read
//! off the post-processor — plus the self-check sample and the reference's whole-text results
//! on it (ids, offsets, type ids, special-tokens mask; with and without special tokens).
//! [`CompactTokenizer::from_bytes`] re-runs that sample (in 61-byte pieces without special
//! tokens, whole with them) and
//! refuses the form unless every result matches the recorded one.
//!
//! Layout (little-endian): magic `YTKTOKZR`, format version (`u32`), the length (`u64`) and
//! checksum (`u64`, [`yieldtok_engine::compact::checksum`]) of a JSON part (the crate version —
//! a form is read only by the version that wrote it —, origin, vocabulary sizes, rules,
//! matcher, frame, range shapes, the check), the JSON part, then the engine's bytes (with
//! their own header and checksum). Truncated, altered or foreign bytes give
//! [`Error::InvalidTokenizer`], never a panic.
//!
//! A compact tokenizer serves encodes (ids, offsets, masks, counts) in resumable jobs
//! ([`CompactJob`]); what needs the reference (decoding, chat templates, the string
//! vocabulary, pairs, truncation and padding) it does not have.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use web_time::Instant;
use yieldtok_engine::Engine;

use crate::encoding::Encoding;
use crate::engine::own::{OwnEngine, OwnPiece};
use crate::error::{Error, Result};
use crate::job::FAST_PIECE_BYTES;
use crate::job::{Budget, EncodeOptions, JobOutput, Output, Progress, MIN_SLICE_PIECE_BYTES};
use crate::post::RangeShape;
use crate::split::{added::AddedMatcher, CutRules, Planner, ZoneCursor};
use crate::Tokenizer;

const MAGIC: &[u8; 8] = b"YTKTOKZR";
/// Bumped whenever the layout or the JSON part changes.
pub const FORMAT_VERSION: u32 = 1;
const HEADER: usize = 8 + 4 + 8 + 8;
/// Piece sizes the load-time check encodes the sample in: without special tokens in small
/// pieces (every piece boundary of the planner), with them whole (the frame).
const CHECK_TARGETS: [usize; 2] = [61, usize::MAX];

fn flat(pairs: &[(usize, usize)]) -> Vec<usize> {
    pairs.iter().flat_map(|&(a, b)| [a, b]).collect()
}

impl Tokenizer {
    /// The compact form of this tokenizer (see [`crate::compact`]), which
    /// [`CompactTokenizer::from_bytes`] reads back. [`Error::InvalidArgument`] when there is
    /// none: the own engine does not serve this tokenizer, its post-processor does more than
    /// add fixed special tokens, truncation or padding is set, or the model has no compact
    /// form (WordPiece, Unigram).
    pub fn to_compact(&self) -> Result<Vec<u8>> {
        let inner = &*self.inner;
        let who = inner.origin.as_deref().unwrap_or("this tokenizer");
        let none = |why: &str| Error::InvalidArgument(format!("{who} has no compact form: {why}"));
        let own = match &inner.own {
            Ok(own) => own,
            Err(why) => return Err(none(&format!("the yieldtok engine does not serve it ({why})"))),
        };
        if !inner.settings.is_empty() {
            return Err(none("truncation or padding is set"));
        }
        let (prefix, suffix, content_type) =
            own.direct_frame().ok_or_else(|| none("its post-processor does more than add fixed special tokens"))?;
        let engine = own.engine().to_bytes().map_err(|e| none(&e.to_string()))?;
        let sample = crate::selfcheck::sample(&inner.tok);
        let mut results = Vec::new();
        for add in [false, true] {
            let want =
                Encoding::from_reference(inner.tok.encode(sample.as_str(), add).map_err(Error::tokenize)?, &inner.tok);
            results.push(json!({
                "add": add,
                "ids": want.ids,
                "offsets": flat(&want.offsets),
                "type_ids": want.type_ids,
                "special": want.special_tokens_mask,
            }));
        }
        let ranges: Vec<Value> =
            inner.range_shape.iter().map(|s| s.as_ref().map_or(Value::Null, |s| json!(s.parts()))).collect();
        let meta = json!({
            "version": env!("CARGO_PKG_VERSION"),
            "origin": inner.origin,
            "vocab_size": [inner.tok.get_vocab_size(false), inner.tok.get_vocab_size(true)],
            "rules": inner.planner.rules.to_json().map_err(|e| none(&e))?,
            "added": inner.planner.added.to_json(),
            "frame": { "prefix": prefix, "suffix": suffix, "content_type": content_type },
            "ranges": ranges,
            "check": { "text": sample, "results": results },
        });
        let meta = serde_json::to_vec(&meta).map_err(|e| none(&e.to_string()))?;
        let mut out = Vec::with_capacity(HEADER + meta.len() + engine.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&(meta.len() as u64).to_le_bytes());
        out.extend_from_slice(&yieldtok_engine::compact::checksum(&meta).to_le_bytes());
        out.extend_from_slice(&meta);
        out.extend_from_slice(&engine);
        Ok(out)
    }
}

/// A tokenizer built from its compact form ([`crate::compact`]), served by the own engine
/// alone. Cloning is cheap (shared); every method takes `&self`.
#[derive(Clone)]
pub struct CompactTokenizer {
    inner: Arc<Inner>,
}

struct Inner {
    own: OwnEngine,
    planner: Planner,
    range_shape: [Option<RangeShape>; 2],
    vocab_size: [usize; 2],
    origin: Option<String>,
}

impl std::fmt::Debug for CompactTokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompactTokenizer")
            .field("origin", &self.inner.origin)
            .field("vocab_size", &self.inner.vocab_size[1])
            .field("chunking", &self.inner.planner.rules.describe())
            .finish()
    }
}

fn read_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn read_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

impl CompactTokenizer {
    /// Build from the bytes of [`Tokenizer::to_compact`] (of the same yieldtok version).
    /// `origin` names the tokenizer in errors (default: the origin it was written with).
    pub fn from_bytes(bytes: &[u8], origin: Option<String>) -> Result<Self> {
        Self::read_engine(bytes, origin)?.finish()
    }

    /// The first half of [`from_bytes`](Self::from_bytes): the header, the JSON part and the
    /// engine's tables (most of the work). [`CompactLoad::finish`] does the rest (the cut rules,
    /// the added-token matcher, the check), so that a caller on an event loop can yield between
    /// the two.
    pub fn read_engine(bytes: &[u8], origin: Option<String>) -> Result<CompactLoad> {
        let bad = |message: String| bad_form(&origin, message);
        if bytes.len() < HEADER || &bytes[..8] != MAGIC {
            return Err(bad("not yieldtok's compact form of a tokenizer (wrong magic or too short)".into()));
        }
        let format = read_u32(bytes, 8);
        if format != FORMAT_VERSION {
            return Err(bad(format!("format version {format}, this yieldtok reads {FORMAT_VERSION}")));
        }
        let meta_len = read_u64(bytes, 12);
        let rest = &bytes[HEADER..];
        if meta_len > rest.len() as u64 {
            return Err(bad("truncated".into()));
        }
        let (meta, engine) = rest.split_at(meta_len as usize);
        if yieldtok_engine::compact::checksum(meta) != read_u64(bytes, 20) {
            return Err(bad("checksum mismatch (altered or truncated bytes)".into()));
        }
        let meta: Value = serde_json::from_slice(meta).map_err(|e| bad(e.to_string()))?;
        let version = meta["version"].as_str().unwrap_or("?");
        if version != env!("CARGO_PKG_VERSION") {
            return Err(bad(format!("written by yieldtok {version}, this is {}", env!("CARGO_PKG_VERSION"))));
        }
        let engine = Engine::from_bytes(engine).map_err(|e| bad(e.to_string()))?;
        Ok(CompactLoad { engine, meta, origin })
    }
}

/// A compact form half read ([`CompactTokenizer::read_engine`]).
pub struct CompactLoad {
    engine: Engine,
    meta: Value,
    origin: Option<String>,
}

fn bad_form(origin: &Option<String>, message: String) -> Error {
    Error::invalid_tokenizer(origin.clone(), format!("not a usable compact form: {message}"))
}

impl CompactLoad {
    /// The second half of [`CompactTokenizer::from_bytes`].
    pub fn finish(self) -> Result<CompactTokenizer> {
        let CompactLoad { engine, meta, origin } = self;
        let bad = |message: String| bad_form(&origin, message);
        fn field<T: serde::de::DeserializeOwned>(v: &Value, what: &str) -> std::result::Result<T, String> {
            serde_json::from_value(v.clone()).map_err(|e| format!("{what}: {e}"))
        }
        let rules = CutRules::from_json(&meta["rules"]).map_err(|e| bad(format!("rules: {e}")))?;
        let added = AddedMatcher::from_json(&meta["added"]).map_err(|e| bad(format!("added tokens: {e}")))?;
        let frame = &meta["frame"];
        let prefix: Vec<(u32, u32)> = field(&frame["prefix"], "frame").map_err(bad)?;
        let suffix: Vec<(u32, u32)> = field(&frame["suffix"], "frame").map_err(bad)?;
        let content_type: u32 = field(&frame["content_type"], "frame").map_err(bad)?;
        let ranges: [Option<Vec<(usize, usize, usize)>>; 2] = field(&meta["ranges"], "ranges").map_err(bad)?;
        let vocab_size: [usize; 2] = field(&meta["vocab_size"], "vocab_size").map_err(bad)?;
        let origin = origin.clone().or_else(|| meta["origin"].as_str().map(str::to_string));
        let tok = CompactTokenizer {
            inner: Arc::new(Inner {
                own: OwnEngine::with_direct_frame(engine, prefix, suffix, content_type),
                planner: Planner { rules, added },
                range_shape: ranges.map(|r| r.map(RangeShape::from_parts)),
                vocab_size,
                origin,
            }),
        };
        tok.check(&meta["check"]).map_err(bad)?;
        Ok(tok)
    }
}

impl CompactTokenizer {
    /// Encode the recorded sample whole and in small pieces; every result must be the
    /// reference's recorded one.
    fn check(&self, check: &Value) -> std::result::Result<(), String> {
        let text: Arc<str> = check["text"].as_str().ok_or("no check sample")?.into();
        let results = check["results"].as_array().ok_or("no check results")?;
        if results.len() != 2 {
            return Err("check results missing".into());
        }
        for want in results {
            let add = want["add"].as_bool().ok_or("check results malformed")?;
            let get = |k: &str| -> std::result::Result<Vec<usize>, String> {
                serde_json::from_value(want[k].clone()).map_err(|e| format!("check results: {e}"))
            };
            let (ids, offsets, type_ids, special) = (get("ids")?, get("offsets")?, get("type_ids")?, get("special")?);
            {
                let target = CHECK_TARGETS[add as usize];
                let opts = EncodeOptions { add_special_tokens: add, piece_bytes: Some(target), ..Default::default() };
                let job = self.job(text.clone(), opts);
                job.step(Budget::UNLIMITED);
                let got = job.finish().map_err(|e| e.to_string())?.into_encoding().ok_or("no encoding")?;
                let same = got.ids.iter().map(|&i| i as usize).eq(ids.iter().copied())
                    && flat(&got.offsets) == offsets
                    && got.type_ids.iter().map(|&i| i as usize).eq(type_ids.iter().copied())
                    && got.special_tokens_mask.iter().map(|&i| i as usize).eq(special.iter().copied())
                    && got.attention_mask.iter().all(|&m| m == 1);
                if !same {
                    return Err(format!(
                        "the engine does not reproduce the reference's results on the check sample ({target}-byte pieces, add_special_tokens={add})"
                    ));
                }
            }
        }
        Ok(())
    }

    /// A job over `text` to advance with [`CompactJob::step`]. Of `opts`, `add_special_tokens`,
    /// `piece_bytes` and `output` apply (there is no truncation or padding to apply).
    pub fn job(&self, text: impl Into<Arc<str>>, opts: EncodeOptions) -> CompactJob {
        CompactJob {
            tok: self.inner.clone(),
            text: text.into(),
            add: opts.add_special_tokens,
            output: opts.output,
            piece_bytes: opts.piece_bytes.unwrap_or(FAST_PIECE_BYTES).max(1),
            state: Mutex::new(State::default()),
            cancelled: crate::CancelFlag::new(),
        }
    }

    fn run(&self, text: &str, add_special_tokens: bool, output: Output) -> Result<JobOutput> {
        let job = self.job(text, EncodeOptions { add_special_tokens, output, ..Default::default() });
        job.step(Budget::UNLIMITED);
        job.finish()
    }

    /// The full encoding of `text`, as [`Tokenizer::encode`] gives it.
    pub fn encode(&self, text: &str, add_special_tokens: bool) -> Result<Encoding> {
        self.run(text, add_special_tokens, Output::Full)?
            .into_encoding()
            .ok_or_else(|| Error::Panic("no encoding".into()))
    }

    /// The ids of `text`.
    pub fn encode_ids(&self, text: &str, add_special_tokens: bool) -> Result<Vec<u32>> {
        Ok(self.run(text, add_special_tokens, Output::Ids)?.into_ids())
    }

    /// The number of tokens of `text`.
    pub fn count(&self, text: &str, add_special_tokens: bool) -> Result<usize> {
        Ok(self.run(text, add_special_tokens, Output::Ids)?.ids().len())
    }

    /// The vocabulary size (`tokenizers`' `get_vocab_size`), recorded when the form was written.
    pub fn vocab_size(&self, with_added_tokens: bool) -> usize {
        self.inner.vocab_size[with_added_tokens as usize]
    }

    /// The name the tokenizer was loaded or written with.
    pub fn origin(&self) -> Option<&str> {
        self.inner.origin.as_deref()
    }

    /// The cut rules in force (as [`Tokenizer::cut_rules`]).
    pub fn cut_rules(&self) -> &CutRules {
        &self.inner.planner.rules
    }

    /// What the engine runs (for logs).
    pub fn describe(&self) -> String {
        self.inner.own.describe()
    }
}

#[derive(Default)]
struct State {
    next: usize,
    cursor: ZoneCursor,
    pieces: Vec<OwnPiece>,
    ids: Vec<u32>,
    error: Option<Error>,
    /// Measured seconds per byte (0: not yet).
    cost: f64,
    finished: bool,
}

/// One text being encoded by a [`CompactTokenizer`], piece by piece on the calling thread, in
/// budgeted steps like [`EncodeJob::step`](crate::EncodeJob::step).
pub struct CompactJob {
    tok: Arc<Inner>,
    text: Arc<str>,
    add: bool,
    output: Output,
    piece_bytes: usize,
    state: Mutex<State>,
    cancelled: crate::CancelFlag,
}

impl CompactJob {
    /// The text being encoded.
    pub fn text(&self) -> &str {
        &self.text
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn progress(&self) -> Progress {
        Progress { done_bytes: self.lock().next, total_bytes: self.text.len() }
    }

    /// Stop: [`step`](Self::step) returns `true` at once, [`finish`](Self::finish) gives
    /// [`Error::Cancelled`].
    pub fn cancel(&self) {
        self.cancelled.cancel();
    }

    /// Whether every piece has been encoded (or the job failed or was cancelled).
    pub fn is_done(&self) -> bool {
        let s = self.lock();
        self.cancelled.is_cancelled() || s.error.is_some() || s.next >= self.text.len()
    }

    /// Run pieces until the budget is spent or the text is done (the first piece always
    /// runs; a time budget sizes pieces from the measured cost, as [`EncodeJob::step`] does).
    /// Returns whether the job is done.
    ///
    /// [`EncodeJob::step`]: crate::EncodeJob::step
    pub fn step(&self, budget: Budget) -> bool {
        let start = Instant::now();
        let mut st = self.lock();
        let (mut bytes, mut pieces) = (0usize, 0usize);
        let small = MIN_SLICE_PIECE_BYTES.min(self.piece_bytes);
        while !self.cancelled.is_cancelled() && st.error.is_none() && st.next < self.text.len() {
            if pieces > 0 && budget.bytes.is_some_and(|b| bytes >= b) {
                break;
            }
            let mut want = self.piece_bytes;
            if let Some(t) = budget.time {
                if st.cost > 0.0 {
                    let fit = (t.saturating_sub(start.elapsed()).as_secs_f64() * 0.75 / st.cost) as usize;
                    if pieces > 0 && fit < small {
                        break;
                    }
                    want = fit.clamp(small, self.piece_bytes);
                } else if pieces > 0 && start.elapsed() >= t {
                    break;
                } else {
                    want = small;
                }
            }
            let t0 = Instant::now();
            let n = self.run_piece(&mut st, want);
            if n > 0 {
                let now = t0.elapsed().as_secs_f64() / n as f64;
                st.cost = if st.cost > 0.0 { st.cost + (now - st.cost) * 0.25 } else { now };
            }
            bytes += n;
            pieces += 1;
        }
        drop(st);
        self.is_done()
    }

    /// Plan and encode the next piece; its length.
    fn run_piece(&self, st: &mut State, want: usize) -> usize {
        let (tok, text, start) = (&*self.tok, &*self.text, st.next);
        let State { cursor, pieces, ids, .. } = &mut *st;
        let cancel = Some(self.cancelled.as_atomic());
        let out = catch_unwind(AssertUnwindSafe(|| -> Result<usize> {
            let crate::split::Next { end, mode, joins_word } = tok.planner.next(text, start, want.max(1), cursor);
            let piece = &text[start..end];
            match self.output {
                Output::Ids => tok.own.encode_ids_into(piece, mode, cancel, ids)?,
                Output::Full => {
                    pieces.push(OwnPiece { start, tokens: tok.own.encode(piece, mode, cancel)?, joins_word })
                }
            }
            Ok(end)
        }))
        .unwrap_or_else(|p| Err(Error::from_panic(p)));
        match out {
            Ok(end) => {
                st.next = end;
                end - start
            }
            Err(e) => {
                st.error = Some(e);
                0
            }
        }
    }

    /// The result once [`step`](Self::step) returned `true` (once; later calls are an error).
    pub fn finish(&self) -> Result<JobOutput> {
        if self.cancelled.is_cancelled() {
            return Err(Error::Cancelled);
        }
        let mut st = self.lock();
        if let Some(e) = st.error.take() {
            return Err(e);
        }
        if st.next < self.text.len() || st.finished {
            return Err(Error::InvalidArgument(if st.finished {
                "finish() was already called".into()
            } else {
                "finish() called before the job was done".into()
            }));
        }
        st.finished = true;
        let own = &self.tok.own;
        match self.output {
            Output::Ids => {
                let mut ids = std::mem::take(&mut st.ids);
                if self.add {
                    if let Some((prefix, suffix, _)) = own.direct_frame() {
                        if !prefix.is_empty() {
                            ids.splice(0..0, prefix.iter().map(|p| p.0));
                        }
                        ids.extend(suffix.iter().map(|p| p.0));
                    }
                }
                Ok(JobOutput::Ids(ids))
            }
            Output::Full => {
                let pieces = std::mem::take(&mut st.pieces);
                let mut enc = own
                    .assemble_direct(&pieces, self.add, usize::MAX)
                    .ok_or_else(|| Error::Panic("no frame".into()))?;
                if let Some(shape) = &self.tok.range_shape[self.add as usize] {
                    enc.sequence_ranges = shape.ranges(enc.len());
                }
                Ok(JobOutput::Full(enc))
            }
        }
    }
}

#[allow(dead_code)]
fn _assert_send_sync() {
    fn is<T: Send + Sync>() {}
    is::<CompactTokenizer>();
    is::<CompactJob>();
}
