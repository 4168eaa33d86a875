//! What a [`Tokenizer`](crate::Tokenizer) holds ([`Inner`], shared by its clones and by the
//! jobs it starts), and the fast engine's loader (a build queued on first ids-only use, on one
//! loader thread per process). A module of its own below both `tokenizer` (which builds an
//! `Inner` at load and serves the API from it) and `job` (whose pieces run on its engines), so
//! that neither imports the other.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use crate::chat_template::ChatTemplate;
use crate::config::TokenizerConfig;
use crate::encoding::TextNamed;
use crate::engine::own::OwnEngine;
use crate::error::Result;
use crate::pipeline::SpecialFrame;
use crate::split::{Mode, Planner};

pub(crate) struct Inner {
    /// The reference tokenizer, with neither truncation nor padding: those are in `settings`.
    pub(crate) tok: Arc<tokenizers::Tokenizer>,
    /// Truncation and padding (see [`crate::post`]).
    pub(crate) settings: crate::post::Settings,
    /// Where the post-processor records a single text's sequence range, without and with
    /// special tokens (see [`crate::post::RangeShape`]).
    pub(crate) range_shape: [Option<crate::post::RangeShape>; 2],
    pub(crate) config: Option<TokenizerConfig>,
    pub(crate) planner: Planner,
    pub(crate) frame: Option<SpecialFrame>,
    /// The ids whose token strings `tokenizers` may take from the text (see [`TextNamed`]).
    pub(crate) named: TextNamed,
    pub(crate) default_piece_bytes: usize,
    pub(crate) origin: Option<String>,
    pub(crate) templates: TemplateCache,
    pub(crate) fast: Arc<crate::engine::FastSlot>,
    /// The own engine, verified at load, or why it does not serve.
    pub(crate) own: std::result::Result<Arc<OwnEngine>, String>,
    /// A weak handle on this `Inner`, so that a piece can queue the fast engine's build.
    pub(crate) me: std::sync::Weak<Inner>,
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) scheduler: crate::Scheduler,
}

impl Inner {
    /// The fast ids-only engine's result for a piece, when one serves this tokenizer. A
    /// continuation piece (llama2-style prepend removed) never goes to the fast engine, nor
    /// does one of [`MAX_SERIAL_BYTES`](crate::engine::fast::MAX_SERIAL_BYTES) or more (that
    /// could fan out over fastokens' own threads; the own engine serves it).
    pub(crate) fn fast_ids(&self, piece: &str, mode: Mode) -> Option<Result<Vec<u32>>> {
        cfg_if::cfg_if! {
            if #[cfg(target_arch = "wasm32")] {
                let _ = (piece, mode);
                None
            } else {
                if mode == Mode::Continuation {
                    return None;
                }
                match self.fast.ready() {
                    Some(_) if piece.len() >= crate::engine::fast::MAX_SERIAL_BYTES => None,
                    Some(f) => Some(f.encode_ids(piece).map_err(crate::Error::tokenize_message)),
                    None => {
                        if !self.fast.here().started.load(std::sync::atomic::Ordering::Acquire) {
                            if let Some(me) = self.me.upgrade() {
                                start_fast_engine(&me);
                            }
                        }
                        None
                    }
                }
            }
        }
    }

    /// The own engine, when it serves this tokenizer.
    pub(crate) fn own(&self) -> Option<&OwnEngine> {
        self.own.as_deref().ok()
    }
}

/// Queue the fast engine's build for `inner` (native): on first ids-only use, not at load, so
/// tokenizers that never do ids-only work never pay its load (3-4x the reference's). Builds
/// run one at a time on a single loader thread per process; until one is ready the reference
/// engine serves. The build serializes the loaded tokenizer back to JSON (no copy is kept),
/// builds fastokens, and checks it against the reference on the self-check sample.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn start_fast_engine(inner: &Arc<Inner>) {
    use std::sync::atomic::Ordering;

    let state = inner.fast.here();
    if state.started.swap(true, Ordering::AcqRel) {
        return;
    }
    if crate::engine::selected() != crate::engine::Selected::All {
        let _ = state.engine.set(Err("disabled by YIELDTOK_ENGINE".into()));
        return;
    }
    if inner.own().is_some_and(|own| !own.byte_level()) {
        // Measured (issue 13, crates/yieldtok-engine/DESIGN.md "Performance"): on the models
        // that are not byte-level BPE (gemma3, llama2: SentencePiece-style BPE) the own engine
        // is faster than fastokens, continuation pieces included, so it keeps serving ids.
        let _ = state.engine.set(Err("the yieldtok engine serves ids: faster than fastokens on this model".into()));
        return;
    }
    let loader = Loader::here();
    loader.begin();
    let sent = loader.queue.lock().unwrap_or_else(|e| e.into_inner()).send(inner.clone());
    if sent.is_err() {
        let _ = state.engine.set(Err("the engine loader thread is not running".into()));
        loader.end();
    }
}

/// This process's engine loader: its thread's queue and the count of builds queued or running
/// on it (per process: a forked child starts its own thread, see [`crate::fork`]).
#[cfg(not(target_arch = "wasm32"))]
struct Loader {
    queue: std::sync::Mutex<std::sync::mpsc::Sender<Arc<Inner>>>,
    pending: std::sync::Mutex<usize>,
    idle: std::sync::Condvar,
}

#[cfg(not(target_arch = "wasm32"))]
static LOADER: crate::fork::PerProcess<Loader> = crate::fork::PerProcess::new();

#[cfg(not(target_arch = "wasm32"))]
impl Loader {
    fn here() -> &'static Loader {
        LOADER.get_or_init(|_| Loader::start())
    }

    fn start() -> Loader {
        let (tx, rx) = std::sync::mpsc::channel::<Arc<Inner>>();
        let spawned = std::thread::Builder::new().name("yieldtok-engine-load".into()).spawn(move || {
            // Items arrive only once this loader is published (they are sent through it).
            for inner in rx {
                let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| build_fast_engine(&inner)))
                    .unwrap_or_else(|_| Err("fast engine panicked while loading".into()));
                let who = inner.origin.as_deref().unwrap_or("tokenizer");
                match &built {
                    Ok(_) => log::info!("yieldtok: fast engine (fastokens) serves ids-only work for {who}"),
                    Err(why) => log::info!("yieldtok: reference engine only for {who}: {why}"),
                }
                let _ = inner.fast.here().engine.set(built.map(Arc::new));
                Loader::here().end();
            }
        });
        if let Err(e) = spawned {
            log::warn!("yieldtok: cannot start the engine loader thread: {e}");
        }
        Loader { queue: std::sync::Mutex::new(tx), pending: std::sync::Mutex::new(0), idle: std::sync::Condvar::new() }
    }

    fn begin(&self) {
        *self.pending.lock().unwrap_or_else(|e| e.into_inner()) += 1;
    }

    fn end(&self) {
        let mut n = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        *n = n.saturating_sub(1);
        if *n == 0 {
            self.idle.notify_all();
        }
    }
}

/// Block until no fast-engine build is queued or running in this process (native). Builds
/// start in the background on a tokenizer's first ids-only use; tests and benchmarks that
/// measure CPU call this first so a build does not count as their work.
#[cfg(not(target_arch = "wasm32"))]
pub fn wait_for_engine_loads() {
    let Some(loader) = LOADER.get() else { return };
    let mut n = loader.pending.lock().unwrap_or_else(|e| e.into_inner());
    while *n > 0 {
        n = loader.idle.wait(n).unwrap_or_else(|e| e.into_inner());
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn build_fast_engine(inner: &Inner) -> Result<crate::engine::fast::FastEngine, String> {
    // Before serializing: a sparse vocabulary would make that (and fastokens) allocate by id.
    crate::engine::check_id_range(inner.tok.get_vocab(true).into_values(), "vocabulary and added tokens")?;
    let json = inner.tok.to_string(false).map_err(|e| e.to_string())?;
    let engine = crate::engine::fast::FastEngine::from_json(&json)?;
    drop(json);
    let sample = crate::selfcheck::sample(&inner.tok);
    for text in [sample.as_str(), "", " ", "a"] {
        let want = inner.tok.encode(text, false).map_err(|e| e.to_string())?;
        if engine.encode_ids(text)? != want.get_ids() {
            return Err("fast engine gave different ids on the self-check sample".to_string());
        }
    }
    Ok(engine)
}

/// Compiled templates of one tokenizer, by source text. Never waits for its lock: a template
/// is compiled outside it, and when the lock is taken (a writer this instant, or — in a forked
/// child — a thread of the parent that held it at the fork and never will release it) the
/// template is compiled again instead of waiting.
#[derive(Default)]
pub(crate) struct TemplateCache(pub(crate) RwLock<HashMap<String, Arc<ChatTemplate>>>);
