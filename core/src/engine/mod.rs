//! The engine seam: which encoder turns a piece of text into ids.
//!
//! * The **own** engine ([`own`], crate `yieldtok-engine`, pure Rust: native and wasm32) serves
//!   every piece — full `Encoding`s (ids, offsets, masks), and ids-only work while fastokens is
//!   not ready or cannot serve (always on wasm32) — once it has loaded (at tokenizer load,
//!   beside `tokenizers`' parse) and passed its check against the reference on the self-check
//!   sample. [`Tokenizer::encoding_engine`](crate::Tokenizer::encoding_engine) says whether it
//!   serves, and why not.
//! * The **reference** engine is the `tokenizers` pipeline (`crate::pipeline`): the fallback
//!   for every tokenizer the own engine refuses, and the post-processor where the own engine
//!   cannot frame an encoding itself.
//! * The **fast** engine ([`fast`], native only) is `fastokens`: ids only, many times faster.
//!   It serves ids-only pieces (`encode_ids`, `count`, id batches, ids-only jobs and futures,
//!   chat-template ids) once it is ready — for byte-level BPE models only: on the others
//!   (gemma3, llama2) the own engine measured faster and serves ids itself (issue 13). It is
//!   built on first ids-only use, on one
//!   process-wide loader thread (it costs 3–4x the reference's load time), then checked
//!   against the reference on the load-time self-check sample; until it is ready, or if it cannot serve
//!   the tokenizer or the check fails (and for llama2-style continuation pieces, which it
//!   cannot encode, and pieces of 64 KiB or more, which it would spread over threads of its
//!   own: see [`fast::MAX_SERIAL_BYTES`]), the own engine serves ids — or the reference, where the own engine
//!   does not serve.
//!   [`Tokenizer::engine`](crate::Tokenizer::engine) says which engine serves ids right now,
//!   and a `log` line records each decision.

#[cfg(not(target_arch = "wasm32"))]
pub(crate) mod fast;
pub(crate) mod own;

use std::sync::OnceLock;

/// Which engines may serve, from `YIELDTOK_ENGINE` (read at each load; the one place that
/// reads it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Selected {
    /// Unset (or any other value): fastokens, the own engine and the reference.
    All,
    /// `yieldtok`: no fastokens.
    OwnAndReference,
    /// `reference` or `tokenizers`: the reference engine only.
    ReferenceOnly,
}

pub(crate) fn selected() -> Selected {
    match std::env::var("YIELDTOK_ENGINE").as_deref() {
        Ok("reference" | "tokenizers") => Selected::ReferenceOnly,
        Ok("yieldtok") => Selected::OwnAndReference,
        _ => Selected::All,
    }
}

/// The state of a tokenizer's fast engine in one process (native: see [`FastSlot`]).
#[derive(Default)]
pub(crate) struct EngineState {
    /// Whether the build was queued (it is, on first ids-only use or `wait_for_engine`).
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    pub(crate) started: std::sync::atomic::AtomicBool,
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) engine: OnceLock<Result<std::sync::Arc<fast::FastEngine>, String>>,
    #[cfg(target_arch = "wasm32")]
    pub(crate) engine: OnceLock<Result<(), String>>,
}

/// A tokenizer's fast engine. Native: per process — a forked child keeps the parent's engine
/// (or the reason there is none) only if no parent thread was inside it at the fork (such a
/// thread may have held one of fastokens' cache locks, or been initialising one of its lazy
/// tables, forever in the child); otherwise, or if the parent's build had not finished, the
/// child builds its own on first ids-only use.
#[derive(Default)]
pub(crate) struct FastSlot {
    #[cfg(not(target_arch = "wasm32"))]
    state: crate::fork::PerProcess<EngineState>,
    #[cfg(target_arch = "wasm32")]
    state: EngineState,
}

impl FastSlot {
    /// A slot whose fast engine never serves, for the reason `why`.
    pub(crate) fn disabled(why: &str) -> FastSlot {
        let slot = FastSlot::default();
        let state = slot.here();
        state.started.store(true, std::sync::atomic::Ordering::Release);
        let _ = state.engine.set(Err(why.to_string()));
        slot
    }

    /// This process's state.
    pub(crate) fn here(&self) -> &EngineState {
        cfg_if::cfg_if! {
            if #[cfg(target_arch = "wasm32")] {
                &self.state
            } else {
                self.state.get_or_init(EngineState::inherit)
            }
        }
    }

    /// The ready fast engine, if any.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn ready(&self) -> Option<&fast::FastEngine> {
        self.here().engine.get().and_then(|r| r.as_ref().ok()).map(|e| &**e)
    }

    /// `Some(reason)` once the fast engine was ruled out.
    pub(crate) fn unavailable(&self) -> Option<&str> {
        self.here().engine.get().and_then(|r| r.as_ref().err()).map(String::as_str)
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl EngineState {
    /// A forked child's state from its parent's (see [`FastSlot`]); lock-free reads only.
    fn inherit(parent: Option<&EngineState>) -> EngineState {
        let state = EngineState::default();
        let kept = match parent.and_then(|p| p.engine.get()) {
            Some(Ok(engine)) if engine.idle() => Ok(engine.clone()),
            Some(Err(why)) => Err(why.clone()),
            _ => return state,
        };
        state.started.store(true, std::sync::atomic::Ordering::Release);
        let _ = state.engine.set(kept);
        state
    }
}

/// Default for `YIELDTOK_MAX_ID_HOLES`: see [`check_id_range`].
pub const DEFAULT_MAX_ID_HOLES: u64 = 1 << 20;

/// The limit on unused ids below a vocabulary's largest id: `YIELDTOK_MAX_ID_HOLES` (read at
/// each check) or [`DEFAULT_MAX_ID_HOLES`].
pub fn max_id_holes() -> u64 {
    crate::env::env_limit("YIELDTOK_MAX_ID_HOLES", DEFAULT_MAX_ID_HOLES)
}

/// The id-range limit for what sizes a table by the largest id: the ids of `vocab` may leave
/// at most [`max_id_holes`] unused ids below their largest one (the largest id is at most
/// the number of ids + that limit - 1). fastokens sizes tables by the largest model and
/// added-token id, and `tokenizers` writes a vocabulary back (`to_json`, `save`, the fast
/// engine's build) by walking every id up to the largest and listing each unused one; a
/// `"zzzz": 2000000000` entry would make either allocate gigabytes. `tokenizers` (hash maps)
/// and the own engine (hash maps; ids up to 2^28) serve such a vocabulary exactly.
pub(crate) fn check_id_range(ids: impl Iterator<Item = u32>, what: &str) -> Result<(), String> {
    let (mut n, mut max) = (0u64, None::<u32>);
    for id in ids {
        n += 1;
        max = max.max(Some(id));
    }
    let Some(max) = max else { return Ok(()) };
    let holes = (u64::from(max) + 1).saturating_sub(n);
    let limit = max_id_holes();
    if holes > limit {
        return Err(format!(
            "sparse token ids: the largest id of the {what} is {max} but it has {n} ids, which leaves {holes} unused ids below it (the limit is {limit}, YIELDTOK_MAX_ID_HOLES)"
        ));
    }
    Ok(())
}
