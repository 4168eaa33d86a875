//! An encode job: one text, encoded piece by piece. Pieces are planned lazily by the
//! [`Planner`](crate::split::Planner) and *claimed* one at a time, so the same job can be
//! advanced in slices on one thread ([`EncodeJob::step`]), spread over a thread pool
//! ([`EncodeJob::run_parallel`]), or interleaved with other jobs by the
//! [`Scheduler`](crate::Scheduler). Whatever the order the pieces ran in, [`EncodeJob::finish`]
//! assembles them in text order and applies the post-processor once, so the result equals the
//! whole-text encode.
//!
//! **Early stop.** With right truncation of a single text in force and no overflowing parts
//! wanted (ids-only output, or [`Tokenizer::with_overflowing(false)`]), a job stops claiming
//! pieces once the pieces finished *in a row from the start of the text* hold at least the
//! tokens truncation keeps (`max_length`, less the post-processor's special tokens when they
//! are added). Why that is certain: every cut is a safe cut, where the whole text's tokens are
//! the concatenation of the two sides' tokens (the property the planner's rules are proven
//! and self-checked for, and every differential test asserts), and a cut's safety is decided
//! from the text around it, never from what is encoded later. So the tokens of a finished
//! prefix of pieces are a prefix of the whole text's tokens, with the same ids, offsets and
//! word ids (word ids only count words before them), and right truncation keeps a prefix of
//! the whole text's tokens: once the finished prefix is long enough, the kept tokens are in
//! it, and post-processing it (truncate, special tokens, padding) gives `tokenizers`' result.
//! Only the overflowing parts, which come from the rest of the text, are lost, which is why
//! the early stop needs them unwanted. Pieces are capped near the bytes the kept tokens need,
//! so a 1 MB text truncated to 512 tokens encodes a few KB. Left truncation would need the
//! mirror image (pieces from the end), which the planner's forward cursor does not offer.
//!
//! [`Tokenizer::with_overflowing(false)`]: crate::Tokenizer::with_overflowing

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokenizers::Encoding as HfEncoding;
use web_time::{Duration, Instant};

use crate::encoding::Encoding;
use crate::engine::own::OwnPiece;
use crate::error::{Error, Result};
use crate::inner::Inner;
use crate::split::{Mode, ZoneCursor};

/// What a job produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// A full [`Encoding`] (ids, offsets, masks).
    Full,
    /// Ids only (cheaper; no offsets).
    Ids,
}

/// Options of one encode.
#[derive(Debug, Clone)]
pub struct EncodeOptions {
    /// Apply the post-processor's special tokens (e.g. BOS), like `tokenizers`' flag.
    pub add_special_tokens: bool,
    /// Wanted piece size in bytes; pieces grow to the next safe cut. `None`: the default.
    pub piece_bytes: Option<usize>,
    pub output: Output,
    /// Apply the tokenizer's truncation and padding ([`Tokenizer::with_truncation`],
    /// [`Tokenizer::with_padding`], or what `tokenizer.json` set), as `tokenizers`' `encode`
    /// does; default `true`. `count`, chat templates and trajectories run with `false`.
    ///
    /// [`Tokenizer::with_truncation`]: crate::Tokenizer::with_truncation
    /// [`Tokenizer::with_padding`]: crate::Tokenizer::with_padding
    pub truncate_and_pad: bool,
    /// Pairs and pre-tokenized input only ([`Tokenizer::encode_pair_with_cancel`],
    /// [`Input::Pair`], [`Input::Words`], [`Input::WordsPair`]): offsets in chars of their own
    /// text (each word's, for words) instead of bytes, converted per sequence before
    /// post-processing, as Python `tokenizers`' `encode_char_offsets` does (overflowing parts
    /// of a pair mix the two texts, so they cannot be converted afterwards). Default `false`.
    ///
    /// [`Tokenizer::encode_pair_with_cancel`]: crate::Tokenizer::encode_pair_with_cancel
    /// [`Input::Pair`]: crate::Input::Pair
    /// [`Input::Words`]: crate::Input::Words
    /// [`Input::WordsPair`]: crate::Input::WordsPair
    pub char_offsets: bool,
}

impl Default for EncodeOptions {
    fn default() -> Self {
        EncodeOptions {
            add_special_tokens: true,
            piece_bytes: None,
            output: Output::Full,
            truncate_and_pad: true,
            char_offsets: false,
        }
    }
}

/// Default piece size: about a millisecond of work for the reference engine on one core.
pub const DEFAULT_PIECE_BYTES: usize = 2048;

/// Default piece size of jobs served by the fast or the own engine (~0.3 ms of their work).
pub const FAST_PIECE_BYTES: usize = 32 * 1024;

impl Inner {
    /// Whether the fast engine serves pieces of a job with this output now (native, ready,
    /// ids only, with the special-token frame the core adds itself).
    pub(crate) fn fast_serves(&self, output: Output) -> bool {
        cfg_if::cfg_if! {
            if #[cfg(target_arch = "wasm32")] {
                let _ = output;
                false
            } else {
                output == Output::Ids && self.frame.is_some() && self.fast.ready().is_some()
            }
        }
    }

    /// The piece size a job uses when its options name none: [`DEFAULT_PIECE_BYTES`] (or the
    /// tokenizer's own default, see [`Tokenizer::with_piece_bytes`](crate::Tokenizer::with_piece_bytes)) for the reference engine,
    /// [`FAST_PIECE_BYTES`] for pieces the fast or the own engine serve (unless a default
    /// other than [`DEFAULT_PIECE_BYTES`] was set).
    pub(crate) fn piece_bytes_for(&self, output: Output) -> usize {
        if self.fast_serves(output) {
            return self.default_piece_bytes.max(FAST_PIECE_BYTES);
        }
        if self.own().is_some() && self.default_piece_bytes == DEFAULT_PIECE_BYTES {
            return FAST_PIECE_BYTES;
        }
        self.default_piece_bytes
    }
}

/// [`pad_batch`](crate::post::pad_batch) over job outputs (all full or all ids-only, as one batch's options make them).
pub(crate) fn pad_outputs(outs: &mut [JobOutput], params: &tokenizers::PaddingParams) {
    use crate::post::{pad_ids, pad_target};
    let longest = outs.iter().map(|o| o.ids().len()).max().unwrap_or(0);
    let target = pad_target(params, longest);
    let left = matches!(params.direction, tokenizers::PaddingDirection::Left);
    for o in outs {
        match o {
            JobOutput::Full(e) => e.pad(target, params.pad_id, params.pad_type_id, left),
            JobOutput::Ids(v) => pad_ids(v, target, params),
        }
    }
}

/// The result of a finished job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobOutput {
    Full(Encoding),
    Ids(Vec<u32>),
}

impl JobOutput {
    pub fn ids(&self) -> &[u32] {
        match self {
            JobOutput::Full(e) => &e.ids,
            JobOutput::Ids(ids) => ids,
        }
    }
    pub fn into_encoding(self) -> Option<Encoding> {
        match self {
            JobOutput::Full(e) => Some(e),
            JobOutput::Ids(_) => None,
        }
    }
    pub fn into_ids(self) -> Vec<u32> {
        match self {
            JobOutput::Full(e) => e.ids,
            JobOutput::Ids(ids) => ids,
        }
    }
}

/// How much work one [`EncodeJob::step`] may do. A piece is never interrupted, so a byte budget
/// stops after the piece that crosses it. A time budget is kept by sizing: the job measures
/// its own cost per byte, and a time-budgeted step cuts each piece to fit about three quarters
/// of the time left (never below [`MIN_SLICE_PIECE_BYTES`], never above the job's piece size),
/// and starts no piece that would not fit.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    pub bytes: Option<usize>,
    pub time: Option<Duration>,
}

impl Budget {
    /// The default slice: 1 ms of work.
    pub const DEFAULT: Budget = Budget { bytes: None, time: Some(Duration::from_millis(1)) };
    /// No limit: run to the end.
    pub const UNLIMITED: Budget = Budget { bytes: None, time: None };

    pub fn time(d: Duration) -> Self {
        Budget { bytes: None, time: Some(d) }
    }
    pub fn bytes(n: usize) -> Self {
        Budget { bytes: Some(n), time: None }
    }
}

/// Smallest piece a time-budgeted [`EncodeJob::step`] asks the planner for.
pub const MIN_SLICE_PIECE_BYTES: usize = 512;

/// Bytes done out of the total.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub done_bytes: usize,
    pub total_bytes: usize,
}

enum PieceOut {
    /// From the reference engine.
    Full(crate::pipeline::RefPiece),
    /// From the own engine.
    Own(OwnPiece),
    Ids(Vec<u32>),
}

impl PieceOut {
    fn tokens(&self) -> usize {
        match self {
            PieceOut::Full(e) => e.enc.len(),
            PieceOut::Own(p) => p.tokens.ids.len(),
            PieceOut::Ids(v) => v.len(),
        }
    }
}

struct Plan {
    next_start: usize,
    cursor: ZoneCursor,
    claimed: usize,
    completed: usize,
    results: Vec<Option<PieceOut>>,
    error: Option<Error>,
    /// Pieces finished in a row from the text's start, and their tokens (kept only for an
    /// early stop: see the module docs).
    prefix_pieces: usize,
    prefix_tokens: usize,
    /// Set once `prefix_tokens` reached the job's `stop_after`: no more pieces are claimed.
    stopped: bool,
}

/// Bytes a piece of an early-stopping job is capped at per token still needed (generous: text
/// averages 3-5 bytes per token; a short piece only means one more piece).
const EARLY_STOP_BYTES_PER_TOKEN: usize = 8;

/// A claimed piece: its index, byte range and mode.
pub(crate) struct Claim {
    index: usize,
    start: usize,
    end: usize,
    mode: Mode,
    joins_word: bool,
}

impl Claim {
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))] // used by the native scheduler
    pub(crate) fn len(&self) -> usize {
        self.end - self.start
    }
}

/// One text being encoded in pieces. Cheap to share (`Arc`); every method takes `&self`.
pub struct EncodeJob {
    inner: Arc<Inner>,
    text: Arc<str>,
    opts: EncodeOptions,
    piece_bytes: usize,
    plan: Mutex<Plan>,
    done_bytes: AtomicUsize,
    /// Set by [`cancel`](Self::cancel), or the caller's flag (`Tokenizer::encode_with_cancel`):
    /// read between pieces and, on the own engine, inside a running piece.
    cancelled: crate::CancelFlag,
    /// Measured encode cost, seconds per byte (an `f64`'s bits; 0: not measured yet), a moving
    /// average over the pieces run by [`step`](Self::step).
    cost: AtomicU64,
    /// The result, assembled ahead of [`finish`](Self::finish) by [`prepare`](Self::prepare).
    prepared: Mutex<Option<Result<JobOutput>>>,
    /// Content tokens after which the job stops early (see the module docs), if it may.
    stop_after: Option<usize>,
}

/// The content tokens right truncation keeps, when a job with `opts` may stop once it has them:
/// a single text (pairs run their halves with `truncate_and_pad: false`), right truncation,
/// and no overflowing parts wanted.
fn early_stop(inner: &Inner, opts: &EncodeOptions) -> Option<usize> {
    let trunc = inner.settings.truncation.as_ref().filter(|_| opts.truncate_and_pad)?;
    if trunc.direction != crate::TruncationDirection::Right
        || (opts.output == Output::Full && !inner.settings.drop_overflowing)
    {
        return None;
    }
    // As `post::post_process` computes it (wrapping like `tokenizers`: a `max_length` below
    // the special tokens' count truncates nothing, and a wrapped bound never stops).
    let n = crate::post::n_added_tokens(&inner.tok, false);
    Some(if opts.add_special_tokens && n > 0 { trunc.max_length.wrapping_sub(n) } else { trunc.max_length })
}

/// Jobs over this many bytes run by the scheduler have their result assembled by one more
/// task on the scheduler's pool, instead of in the consumer's `poll` (which may be a host's
/// bridge or event-loop thread): assembling 100k+ tokens takes milliseconds.
pub const POOL_ASSEMBLY_MIN_BYTES: usize = 64 * 1024;

impl EncodeJob {
    pub(crate) fn new(inner: Arc<Inner>, text: Arc<str>, opts: EncodeOptions) -> Self {
        Self::with_cancel(inner, text, opts, crate::CancelFlag::new())
    }

    /// A job whose cancel flag is `cancelled`, shared with the caller: setting it stops the job
    /// like [`cancel`](Self::cancel) does, a running own-engine piece included.
    pub(crate) fn with_cancel(
        inner: Arc<Inner>,
        text: Arc<str>,
        opts: EncodeOptions,
        cancelled: crate::CancelFlag,
    ) -> Self {
        let piece_bytes = opts.piece_bytes.unwrap_or_else(|| inner.piece_bytes_for(opts.output)).max(1);
        let stop_after = early_stop(&inner, &opts);
        EncodeJob {
            inner,
            text,
            opts,
            piece_bytes,
            plan: Mutex::new(Plan {
                next_start: 0,
                cursor: ZoneCursor::default(),
                claimed: 0,
                completed: 0,
                results: Vec::new(),
                error: None,
                prefix_pieces: 0,
                prefix_tokens: 0,
                stopped: stop_after == Some(0),
            }),
            done_bytes: AtomicUsize::new(0),
            cancelled,
            cost: AtomicU64::new(0),
            prepared: Mutex::new(None),
            stop_after,
        }
    }

    /// The text being encoded.
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn progress(&self) -> Progress {
        Progress { done_bytes: self.done_bytes.load(Ordering::Relaxed), total_bytes: self.text.len() }
    }

    /// Stop: pieces not yet claimed will not run, and [`finish`](Self::finish) returns
    /// [`Error::Cancelled`].
    pub fn cancel(&self) {
        self.cancelled.cancel();
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled.is_cancelled()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Plan> {
        // A poisoned lock only means another piece panicked while holding it; the plan itself
        // is still consistent (every update is a single assignment), so keep going.
        self.plan.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether every piece has been encoded (or the job failed or was cancelled).
    pub fn is_done(&self) -> bool {
        let p = self.lock();
        self.is_cancelled()
            || p.error.is_some()
            || ((p.next_start >= self.text.len() || p.stopped) && p.completed == p.claimed)
    }

    /// Whether the job stopped early, before the end of its text (see the module docs).
    pub fn stopped_early(&self) -> bool {
        let p = self.lock();
        p.stopped && p.next_start < self.text.len()
    }

    /// Whether unclaimed text remains (and the job is still live).
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))] // used by the native scheduler
    pub(crate) fn has_unclaimed(&self) -> bool {
        let p = self.lock();
        !self.is_cancelled() && p.error.is_none() && !p.stopped && p.next_start < self.text.len()
    }

    /// Bytes not yet claimed.
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))] // used by the native scheduler
    pub(crate) fn remaining_bytes(&self) -> usize {
        let p = self.lock();
        if p.stopped {
            0
        } else {
            self.text.len() - p.next_start
        }
    }

    /// Claim the next piece, if any.
    pub(crate) fn claim(&self) -> Option<Claim> {
        self.claim_sized(self.piece_bytes)
    }

    /// Claim the next piece, asking the planner for about `want` bytes.
    fn claim_sized(&self, want: usize) -> Option<Claim> {
        if self.is_cancelled() {
            return None;
        }
        let mut p = self.lock();
        if p.error.is_some() || p.stopped || p.next_start >= self.text.len() {
            return None;
        }
        let want = match self.stop_after {
            Some(n) => want.min(
                n.saturating_sub(p.prefix_tokens).saturating_mul(EARLY_STOP_BYTES_PER_TOKEN).max(MIN_SLICE_PIECE_BYTES),
            ),
            None => want,
        };
        let start = p.next_start;
        let planned =
            catch_unwind(AssertUnwindSafe(|| self.inner.planner.next(&self.text, start, want.max(1), &mut p.cursor)));
        let crate::split::Next { end, mode, joins_word } = match planned {
            Ok(x) => x,
            Err(payload) => {
                p.error = Some(Error::from_panic(payload));
                return None;
            }
        };
        let index = p.claimed;
        p.claimed += 1;
        p.next_start = end;
        p.results.push(None);
        Some(Claim { index, start, end, mode, joins_word })
    }

    /// Encode a claimed piece and record its result. Returns the piece's byte length.
    pub(crate) fn run(&self, claim: Claim) -> usize {
        let len = claim.end - claim.start;
        let out = if self.is_cancelled() {
            Err(Error::Cancelled)
        } else {
            catch_unwind(AssertUnwindSafe(|| self.encode_claim(&claim))).unwrap_or_else(|p| Err(Error::from_panic(p)))
        };
        let mut p = self.lock();
        match out {
            Ok(piece) => {
                p.results[claim.index] = Some(piece);
                if let Some(n) = self.stop_after {
                    while let Some(Some(r)) = p.results.get(p.prefix_pieces) {
                        p.prefix_tokens += r.tokens();
                        p.prefix_pieces += 1;
                    }
                    p.stopped |= p.prefix_tokens >= n;
                }
            }
            Err(e) => {
                if p.error.is_none() {
                    p.error = Some(e);
                }
            }
        }
        p.completed += 1;
        self.done_bytes.fetch_add(len, Ordering::Relaxed);
        len
    }

    fn encode_claim(&self, c: &Claim) -> Result<PieceOut> {
        let inner = &*self.inner;
        let ids_only = self.opts.output == Output::Ids && inner.frame.is_some();
        let piece = &self.text[c.start..c.end];
        if ids_only {
            if let Some(fast) = inner.fast_ids(piece, c.mode) {
                return fast.map(PieceOut::Ids);
            }
        }
        // The job's cancel flag reaches inside the own engine: a cancelled job stops a
        // running piece too (a piece without a safe cut can be the whole text).
        if let Some(own) = inner.own() {
            return if ids_only {
                own.encode_ids(piece, c.mode, Some(self.cancelled.as_atomic())).map(PieceOut::Ids)
            } else {
                own.encode(piece, c.mode, Some(self.cancelled.as_atomic()))
                    .map(|tokens| PieceOut::Own(OwnPiece { start: c.start, tokens, joins_word: c.joins_word }))
            };
        }
        let enc = crate::pipeline::encode_piece(
            &inner.tok,
            inner.planner.rules.continuation.as_ref(),
            &self.text,
            c.start..c.end,
            c.mode,
            !ids_only,
        )?;
        let enc = crate::pipeline::RefPiece { joins_word: c.joins_word, ..enc };
        Ok(if ids_only { PieceOut::Ids(enc.enc.get_ids().to_vec()) } else { PieceOut::Full(enc) })
    }

    /// Claim and run one piece. `false` when nothing was left to claim.
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))] // used by the native scheduler
    pub(crate) fn run_one(&self) -> bool {
        match self.claim() {
            Some(c) => {
                self.run(c);
                true
            }
            None => false,
        }
    }

    /// Run pieces on the current thread until the budget is spent or the job is done.
    /// Returns whether the job is done. A time budget is kept by sizing each piece from the
    /// measured cost of the previous ones (see [`Budget`]); the first piece always runs.
    pub fn step(&self, budget: Budget) -> bool {
        let start = Instant::now();
        let mut bytes = 0usize;
        let mut pieces = 0usize;
        loop {
            let mut want = self.piece_bytes;
            if pieces > 0 && budget.bytes.is_some_and(|b| bytes >= b) {
                break;
            }
            if let Some(t) = budget.time {
                if let Some(cost) = self.cost_per_byte() {
                    let left = t.saturating_sub(start.elapsed()).as_secs_f64();
                    let fit = (left * 0.75 / cost) as usize;
                    if pieces > 0 && fit < MIN_SLICE_PIECE_BYTES.min(self.piece_bytes) {
                        break;
                    }
                    want = fit.clamp(MIN_SLICE_PIECE_BYTES.min(self.piece_bytes), self.piece_bytes);
                } else if pieces > 0 && start.elapsed() >= t {
                    break;
                } else {
                    // Cost unknown (the job's first piece): a small piece to measure it.
                    want = MIN_SLICE_PIECE_BYTES.min(self.piece_bytes);
                }
            }
            let Some(c) = self.claim_sized(want) else { break };
            let t0 = Instant::now();
            let n = self.run(c);
            self.observe(n, t0.elapsed());
            bytes += n;
            pieces += 1;
        }
        self.is_done()
    }

    fn cost_per_byte(&self) -> Option<f64> {
        let c = f64::from_bits(self.cost.load(Ordering::Relaxed));
        (c > 0.0).then_some(c)
    }

    /// Fold one piece's measured time into the cost average (weight 1/4: follows a change of
    /// text within a few pieces without jumping at one outlier).
    fn observe(&self, bytes: usize, took: Duration) {
        if bytes == 0 {
            return;
        }
        let now = took.as_secs_f64() / bytes as f64;
        let avg = match self.cost_per_byte() {
            Some(c) => c + (now - c) * 0.25,
            None => now,
        };
        self.cost.store(avg.to_bits(), Ordering::Relaxed);
    }

    /// Run every remaining piece on the scheduler's thread pool and wait for them (native).
    /// Stops claiming pieces once the job's flag is set ([`cancel`](Self::cancel), or the
    /// caller's flag it was made with); [`finish`](Self::finish) then returns `Error::Cancelled`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn run_parallel(&self) {
        let workers = self.inner.scheduler.threads().max(1);
        self.inner.scheduler.pool().install(|| {
            rayon::scope(|s| {
                for _ in 1..workers {
                    s.spawn(|_| while self.run_one() {});
                }
                while self.run_one() {}
            })
        });
    }

    /// Whether the scheduler should assemble this job's result on its pool (see
    /// [`POOL_ASSEMBLY_MIN_BYTES`]).
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))] // used by the native scheduler
    pub(crate) fn wants_pool_assembly(&self) -> bool {
        self.text.len() >= POOL_ASSEMBLY_MIN_BYTES && !self.is_cancelled()
    }

    /// Assemble the result now and keep it for [`finish`](Self::finish).
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))] // used by the native scheduler
    pub(crate) fn prepare(&self) {
        let r = self.assemble();
        *self.prepared.lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
    }

    /// Assemble the result. Errors if a piece failed, the job was cancelled, or pieces remain.
    pub fn finish(&self) -> Result<JobOutput> {
        if let Some(r) = self.prepared.lock().unwrap_or_else(|e| e.into_inner()).take() {
            return r;
        }
        self.assemble()
    }

    /// Take the pieces' results, in text order. Errors if a piece failed, the job was
    /// cancelled, or pieces remain.
    fn take_results(&self) -> Result<Vec<Option<PieceOut>>> {
        if self.is_cancelled() {
            return Err(Error::Cancelled);
        }
        let mut p = self.lock();
        if let Some(e) = p.error.take() {
            return Err(e);
        }
        if (p.next_start < self.text.len() && !p.stopped) || p.completed != p.claimed {
            return Err(Error::InvalidArgument("finish() called before the job was done".into()));
        }
        Ok(std::mem::take(&mut p.results))
    }

    /// The finished job as the `tokenizers::Encoding` the reference pipeline gives for the
    /// whole text before post-processing (`encode_single_sequence` with `type_id`): what
    /// pairs, truncation and padding start from (see [`crate::post`]). The job must have
    /// asked for full output.
    pub(crate) fn finish_raw(&self, type_id: u32) -> Result<HfEncoding> {
        let results = self.take_results()?;
        catch_unwind(AssertUnwindSafe(|| {
            let (full, own, ids) = split_results(results)?;
            let mut raw = raw_encoding(&self.inner, full, own, ids);
            if type_id != 0 {
                raw.set_type_ids(vec![type_id; raw.len()]);
            }
            Ok(raw)
        }))
        .unwrap_or_else(|p| Err(Error::from_panic(p)))
    }

    fn assemble(&self) -> Result<JobOutput> {
        let results = self.take_results()?;
        let inner = &*self.inner;
        let add = self.opts.add_special_tokens;
        let settings = (self.opts.truncate_and_pad && !inner.settings.is_empty()).then_some(&inner.settings);
        catch_unwind(AssertUnwindSafe(|| {
            // Full pieces come from one engine per tokenizer (`encode_claim` sends every piece
            // to the own engine when it serves), so `full` and `own` are never both non-empty.
            let (full, own, ids) = split_results(results)?;
            if let Some(settings) = settings {
                if self.opts.output == Output::Ids && full.is_empty() && own.is_empty() {
                    if let Some(frame) = &inner.frame {
                        if frame.prefix.len() + frame.suffix.len() == crate::post::n_added_tokens(&inner.tok, false) {
                            return crate::post::ids_single(settings, &frame.prefix, &frame.suffix, ids, add)
                                .map(JobOutput::Ids);
                        }
                    }
                }
                if self.opts.output == Output::Full && full.is_empty() {
                    if let Some(enc) = direct_single(inner, settings, &own, add) {
                        return Ok(JobOutput::Full(enc));
                    }
                }
                let raw = raw_encoding(inner, full, own, ids);
                let enc = crate::post::finish(&inner.tok, settings, raw, None, add, &inner.named)?;
                return Ok(match self.opts.output {
                    Output::Ids => JobOutput::Ids(enc.ids),
                    Output::Full => JobOutput::Full(enc),
                });
            }
            let encoding = |full: Vec<crate::pipeline::RefPiece>, own: Vec<OwnPiece>| -> Result<Encoding> {
                let mut enc = match inner.own() {
                    Some(engine) => engine.assemble(&inner.tok, &inner.named, own, add)?,
                    None => crate::pipeline::assemble(&inner.tok, &inner.named, full, add)?,
                };
                // The own engine's direct assembly records no sequence ranges: the ones the
                // post-processor gives (probed at load), as `tokenizers` reports them.
                if let Some(shape) = &inner.range_shape[add as usize] {
                    enc.sequence_ranges = shape.ranges(enc.len());
                }
                Ok(enc)
            };
            match (self.opts.output, &inner.frame) {
                (Output::Ids, Some(frame)) if full.is_empty() && own.is_empty() => {
                    Ok(JobOutput::Ids(if add { frame.wrap(ids) } else { ids }))
                }
                (Output::Ids, _) => Ok(JobOutput::Ids(encoding(full, own)?.ids)),
                (Output::Full, _) => Ok(JobOutput::Full(encoding(full, own)?)),
            }
        }))
        .unwrap_or_else(|p| Err(Error::from_panic(p)))
    }
}

/// A single text's own-engine pieces truncated, framed and padded as [`crate::post::finish`]
/// would, without its round trip through a `tokenizers::Encoding` (which names every token by
/// a `String`, and builds the overflowing parts to drop them), when the engine frames special
/// tokens directly and `settings` ask nothing more than [`crate::post::kept_single`] allows;
/// else `None`. The result is `post::finish`'s: the frame is the post-processor's (probed at
/// load), and a right cut keeps a prefix of the tokens, which the frame does not look into.
fn direct_single(inner: &Inner, settings: &crate::post::Settings, own: &[OwnPiece], add: bool) -> Option<Encoding> {
    let engine = inner.own()?;
    let content = own.iter().map(|p| p.tokens.ids.len()).sum();
    let keep = crate::post::kept_single(settings, content, crate::post::n_added_tokens(&inner.tok, false), add)?;
    let mut enc = engine.assemble_direct(own, add, keep)?;
    if let Some(shape) = &inner.range_shape[add as usize] {
        enc.sequence_ranges = shape.ranges(enc.len());
    }
    if let Some(params) = &settings.padding {
        crate::post::pad_single(&mut enc, params);
    }
    Some(enc)
}

type Split = (Vec<crate::pipeline::RefPiece>, Vec<OwnPiece>, Vec<u32>);

fn split_results(results: Vec<Option<PieceOut>>) -> Result<Split> {
    let mut full = Vec::with_capacity(results.len());
    let mut own = Vec::new();
    let mut ids = Vec::new();
    for r in results {
        match r {
            Some(PieceOut::Full(e)) => full.push(e),
            Some(PieceOut::Own(p)) => own.push(p),
            Some(PieceOut::Ids(v)) => ids.extend_from_slice(&v),
            None => return Err(Error::Panic("a piece finished without a result".into())),
        }
    }
    Ok((full, own, ids))
}

/// The pieces as one unprocessed `tokenizers::Encoding`. Ids-only pieces (fast engine) carry
/// no offsets or token strings: what the post-processor does with ids does not read them.
fn raw_encoding(inner: &Inner, full: Vec<crate::pipeline::RefPiece>, own: Vec<OwnPiece>, ids: Vec<u32>) -> HfEncoding {
    if !own.is_empty() {
        return crate::engine::own::to_hf(&inner.tok, &own);
    }
    if !ids.is_empty() || full.is_empty() {
        return crate::post::ids_encoding(ids);
    }
    crate::pipeline::merge(full)
}
