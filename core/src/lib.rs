//! # yieldtok
//!
//! Exact, chunked, yield-cooperative tokenization on top of Hugging Face
//! [`tokenizers`](https://docs.rs/tokenizers). A long text is encoded in small pieces cut only
//! where cutting provably changes nothing ([`split`] says where, per tokenizer family), so the
//! result equals the whole-text encode token for token, offsets included — while the pieces
//! can run in parallel, in time-boxed slices, or interleaved fairly with other requests by the
//! [`Scheduler`], and a host event loop never waits for a whole long encode.
//!
//! ```no_run
//! let tok = yieldtok::Tokenizer::from_dir("path/to/model")?;
//! let enc = tok.encode("Hello world", true)?;              // sync, like tokenizers
//! # #[cfg(not(target_arch = "wasm32"))]
//! let out = futures_lite_block_on(tok.encode_async("Hello world", Default::default()));
//! # fn futures_lite_block_on<F: std::future::Future>(_: F) {}
//! # Ok::<(), yieldtok::Error>(())
//! ```
//!
//! Module map: [`load`] (sources: files, folders, hub cache), [`chat_template`] (Hugging Face
//! chat templates, byte-identical to transformers), [`config`]
//! (`tokenizer_config.json`), [`split`] (cut rules), `pipeline` (one piece through the
//! `tokenizers` pipeline), [`job`] (resumable chunked jobs), [`compact`] (a tokenizer's compact
//! form, served by the own engine alone), `scheduler` (fair pool, native),
//! [`future`] (runtime-agnostic futures), [`encoding`] (results), [`trajectory`] (RL trajectory
//! tokenization and packing, ART-exact), [`error`].

pub mod batch;
mod cancel;
mod chat;
pub mod compact;
/// The chat-template engine: the [`yieldtok_chat`] crate, re-exported under its old path.
pub use yieldtok_chat as chat_template;
pub mod config;
pub mod encoding;
mod engine;
mod env;
pub mod error;
pub mod future;
mod inner;
pub mod job;
pub mod load;
mod pipeline;
pub mod post;
mod reference;
mod selfcheck;
pub mod split;
pub mod stream;
pub mod task;
mod tokenizer;
pub mod trajectory;

cfg_if::cfg_if! {
    if #[cfg(not(target_arch = "wasm32"))] {
        pub mod fork;
        mod scheduler;
        pub use scheduler::{Scheduler, DEFAULT_WORKER_NICE, SHORT_LANE_MAX_BYTES};
        pub use future::{block_on, wait_for};
        /// Pieces of the fast engine that benchmarks comparing against standalone `fastokens`
        /// need (the same vocabulary normalisation).
        #[doc(hidden)]
        pub mod engine_support {
            pub use crate::engine::fast::normalize_gapped_vocab;
        }
    }
}

pub use batch::{BatchFuture, BatchHandle};
pub use cancel::CancelFlag;
pub use chat::{ChatBatch, ChatCall, ChatOptions, ChatOutput, ChatReturn, ContinueFinalMessage};
pub use chat_template::{ChatRequest, ChatTemplate, ChatTemplateError, Rendered, TemplateSource};
pub use compact::{CompactJob, CompactLoad, CompactTokenizer};
pub use config::TokenizerConfig;
pub use encoding::Encoding;
pub use engine::{max_id_holes, DEFAULT_MAX_ID_HOLES};
pub use error::{catch, Error, ErrorClass, Result};
pub use future::{EncodeFuture, JobHandle};
#[cfg(not(target_arch = "wasm32"))]
pub use inner::wait_for_engine_loads;
pub use job::{Budget, EncodeJob, EncodeOptions, JobOutput, Output, Progress, FAST_PIECE_BYTES};
pub use load::{max_file_bytes, DEFAULT_MAX_FILE_BYTES};
pub use split::{CutRules, Family};
pub use stream::DecodeStream;
#[cfg(not(target_arch = "wasm32"))]
pub use task::spawn_detached;
pub use task::{spawn, TaskFuture};
pub use tokenizer::{Input, Tokenizer, PARALLEL_MIN_BYTES};
pub use tokenizers::utils::truncation::{TruncationDirection, TruncationParams, TruncationStrategy};
pub use tokenizers::{AddedToken, PaddingDirection, PaddingParams, PaddingStrategy};
