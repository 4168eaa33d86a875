//! The engine seam: which encoder turns a piece of text into ids.
//!
//! * The **reference** engine is the `tokenizers` pipeline (`crate::pipeline`): every model,
//!   offsets, wasm32.
//! * The **fast** engine ([`fast`], native only) is `fastokens`: ids only, many times faster.
//!   It serves ids-only pieces (`encode_ids`, `count`, id batches, ids-only jobs and futures,
//!   chat-template ids) once it is ready. It is built on first ids-only use, on one
//!   process-wide loader thread (it costs 3–4x the reference's load time), then checked
//!   against the reference on the load-time self-check sample; until it is ready, or if it cannot serve
//!   the tokenizer or the check fails, the reference engine serves everything.
//!   [`Tokenizer::engine`](crate::Tokenizer::engine) says which engine serves ids right now,
//!   and a `log` line records each decision.

#[cfg(not(target_arch = "wasm32"))]
pub(crate) mod fast;

use std::sync::OnceLock;

/// The state of a tokenizer's fast engine.
#[derive(Default)]
pub(crate) struct FastSlot {
    /// Whether the build was queued (it is, on first ids-only use or `wait_for_engine`).
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    pub(crate) started: std::sync::atomic::AtomicBool,
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) engine: OnceLock<Result<fast::FastEngine, String>>,
    #[cfg(target_arch = "wasm32")]
    pub(crate) engine: OnceLock<Result<(), String>>,
}

impl FastSlot {
    /// The ready fast engine, if any.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn ready(&self) -> Option<&fast::FastEngine> {
        self.engine.get().and_then(|r| r.as_ref().ok())
    }

    /// `Some(reason)` once the fast engine was ruled out.
    pub(crate) fn unavailable(&self) -> Option<&str> {
        self.engine.get().and_then(|r| r.as_ref().err()).map(String::as_str)
    }
}
