//! # yieldtok-engine
//!
//! yieldtok's own tokenization engine: the model side of a Hugging Face `tokenizer.json`
//! (normalizer, pre-tokenizer, model, added tokens) in pure Rust — the same code on native
//! targets and wasm32 — with exactly the ids, byte offsets and word indices of the
//! `tokenizers` crate 0.23.2 for one piece of text. What it cannot reproduce exactly it
//! refuses at load ([`LoadError::Unsupported`]). The design, stage by stage: `DESIGN.md`.
//!
//! Module map, by pipeline stage: [`load`] (`tokenizer.json` → pipeline), [`added`] (added
//! tokens), [`normalized`] (the alignment-tracking string), [`normalizers`] (and the
//! SentencePiece normalizer's fast path, `char_replace`),
//! [`pre_tokenizers`] (with hand-written scanners in [`pre_tokenizers::scan`]), [`models`],
//! [`pipeline`] (the encode loop), [`error`].

pub mod added;
mod char_replace;
pub mod cuts;
pub mod error;
pub mod load;
pub mod models;
pub mod normalized;
pub mod normalizers;
pub mod pipeline;
pub mod pre_tokenizers;

use std::sync::atomic::AtomicBool;

pub use error::{EncodeError, LoadError};
pub use models::Token;

/// The output of one encode (appended to, so that a caller can reuse the buffers).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tokens {
    pub ids: Vec<u32>,
    /// Byte offsets of each token in the encoded text.
    pub offsets: Vec<(u32, u32)>,
    /// Word index of each token: the index of the pre-token split it came from, counted over
    /// the encoded text (added tokens found in the text are words too). An encode appended to
    /// a non-empty `Tokens` numbers its words from `n_words` on.
    pub words: Vec<u32>,
    /// Number of words (splits) of the encoded text(s), tokenized or not.
    pub n_words: u32,
}

impl Tokens {
    pub fn clear(&mut self) {
        self.ids.clear();
        self.offsets.clear();
        self.words.clear();
        self.n_words = 0;
    }
}

/// Options of one encode.
#[derive(Debug, Clone, Copy, Default)]
pub struct PieceOptions<'a> {
    /// The piece continues a segment (see `DESIGN.md`): its first segment skips the
    /// normalizer's leading `Prepend` step and Metaspace's prepend.
    pub continuation: bool,
    /// Checked inside long work; when set, the encode returns [`EncodeError::Cancelled`].
    pub cancel: Option<&'a AtomicBool>,
}

/// A loaded engine. `Send + Sync`: share it by `Arc` across threads.
pub struct Engine {
    pipeline: pipeline::Pipeline,
}

impl Engine {
    /// Build from the text of a `tokenizer.json`.
    pub fn from_json(json: &str) -> Result<Engine, LoadError> {
        Self::from_json_with(json, load::LoadOptions::default())
    }

    /// [`Engine::from_json`] with options (tests: the general components instead of the fast
    /// paths, to prove the fast paths against them).
    pub fn from_json_with(json: &str, options: load::LoadOptions) -> Result<Engine, LoadError> {
        Ok(Engine { pipeline: load::load(json, options)? })
    }

    /// Encode one piece: `tokenizers`' `encode(text, add_special_tokens = false)` without
    /// truncation or padding; results are appended to `out`.
    pub fn encode(&self, text: &str, opts: &PieceOptions<'_>, out: &mut Tokens) -> Result<(), EncodeError> {
        self.pipeline.encode(text, opts, out)
    }

    /// Ids only (no offsets, no words), appended to `out`.
    pub fn encode_ids(&self, text: &str, opts: &PieceOptions<'_>, out: &mut Vec<u32>) -> Result<(), EncodeError> {
        self.pipeline.encode_ids(text, opts, out)
    }

    /// The number of tokens `encode` would give.
    pub fn count(&self, text: &str, opts: &PieceOptions<'_>) -> Result<usize, EncodeError> {
        self.pipeline.count(text, opts)
    }

    /// The contents of the added tokens the engine matches in text.
    pub fn added_tokens(&self) -> impl Iterator<Item = &str> {
        self.pipeline.added().patterns()
    }

    /// What the engine runs, in one line (for logs).
    pub fn describe(&self) -> String {
        self.pipeline.describe()
    }
}
