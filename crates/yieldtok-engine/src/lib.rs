//! # yieldtok-engine
//!
//! yieldtok's own tokenization engine: the model side of a Hugging Face `tokenizer.json`
//! (normalizer, pre-tokenizer, model, added tokens) in pure Rust — the same code on native
//! targets and wasm32 — with exactly the ids, byte offsets and word indices of the
//! `tokenizers` crate 0.23.2 for one piece of text. What it cannot reproduce exactly it
//! refuses at load ([`LoadError::Unsupported`]). The design, stage by stage: `DESIGN.md`.
//!
//! Module map, by pipeline stage: [`load`] (`tokenizer.json` → pipeline), [`added`] (added
//! tokens), [`normalized`] (the alignment-tracking string), [`normalizers`] (and the fast
//! paths of the SentencePiece normalizer, `char_replace`, and of the Unicode forms,
//! `unicode_chunks`),
//! [`pre_tokenizers`] (with hand-written scanners in [`pre_tokenizers::scan`]), [`models`],
//! [`pipeline`] (the encode loop), [`error`].

pub mod added;
mod char_replace;
pub mod compact;
pub mod cuts;
pub mod error;
pub mod load;
pub mod models;
pub mod normalized;
pub mod normalizers;
pub mod pipeline;
pub mod pre_tokenizers;
mod unicode_chunks;

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
    /// Whether the first / the last word of the last encode into it is an added token (a
    /// caller joining pieces' words needs it: an added token is always a word of its own, so
    /// a piece boundary next to one never falls inside a word).
    pub first_added: bool,
    pub last_added: bool,
    /// The tokens that `tokenizers` names other than by their id's vocabulary entry, as
    /// `(index into ids, name)` in index order: a Unigram unknown piece (named by its
    /// normalized text), an added token matched as other text (the whitespace an
    /// `lstrip`/`rstrip` token takes in, a `normalized` token's normalized form). Usually empty.
    pub values: Vec<(u32, String)>,
}

impl Tokens {
    pub fn clear(&mut self) {
        self.ids.clear();
        self.offsets.clear();
        self.words.clear();
        self.n_words = 0;
        self.first_added = false;
        self.last_added = false;
        self.values.clear();
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
    /// What the compact form keeps of the file besides the model's tables.
    source: load::Source,
}

impl Engine {
    /// Build from the text of a `tokenizer.json`.
    pub fn from_json(json: &str) -> Result<Engine, LoadError> {
        Self::from_json_with(json, load::LoadOptions::default())
    }

    /// [`Engine::from_json`] with options (tests: the general components instead of the fast
    /// paths, to prove the fast paths against them).
    pub fn from_json_with(json: &str, options: load::LoadOptions) -> Result<Engine, LoadError> {
        let (pipeline, source) = load::load_with_source(json, options)?;
        Ok(Engine { pipeline, source })
    }

    /// The compact form of this engine ([`compact`]): bytes that [`Engine::from_bytes`] of the
    /// same engine version reads back into an engine with the same results, much faster than
    /// `tokenizer.json` loads. Engines with a WordPiece or Unigram model have none yet
    /// ([`LoadError::Unsupported`]).
    pub fn to_bytes(&self) -> Result<Vec<u8>, LoadError> {
        let mut w = compact::Writer::default();
        let s = &self.source;
        w.bytes(s.added_tokens.as_bytes());
        w.bytes(s.normalizer.as_bytes());
        w.bytes(s.pre_tokenizer.as_bytes());
        let ids: Vec<u32> = s.added_ids.iter().map(|id| id.unwrap_or(u32::MAX)).collect();
        w.u32s(&ids);
        w.u8(s.options.fast_paths as u8);
        self.pipeline.write_model(&mut w)?;
        Ok(w.finish())
    }

    /// Read the bytes of [`Engine::to_bytes`]. Truncated, corrupt or foreign bytes (another
    /// format or engine version) give [`LoadError::Compact`], never a panic.
    pub fn from_bytes(bytes: &[u8]) -> Result<Engine, LoadError> {
        let mut r = compact::Reader::open(bytes)?;
        let added_tokens = r.str()?.to_string();
        let normalizer = r.str()?.to_string();
        let pre_tokenizer = r.str()?.to_string();
        let added_ids = compact::le_u32s(r.u32s()?)
            .map(|id| match id {
                u32::MAX => Ok(None),
                id if id <= load::MAX_ID => Ok(Some(id)),
                id => Err(compact::corrupt(format!("added token id {id}"))),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let options = load::LoadOptions { fast_paths: r.bool()? };
        let model = pipeline::Pipeline::read_model(&mut r)?;
        r.end()?;
        let source = load::Source { added_tokens, normalizer, pre_tokenizer, added_ids, options };
        // The JSON parts were checked by the checksum; a malformed one is still refused here.
        let pipeline = load::from_source(&source, model).map_err(|e| match e {
            LoadError::Malformed(e) => compact::corrupt(format!("a JSON part: {e}")),
            e => e,
        })?;
        Ok(Engine { pipeline, source })
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

    /// Whether the model is a byte-level BPE (ByteLevel pre-tokenizer: units are bytes).
    pub fn byte_level(&self) -> bool {
        self.pipeline.byte_level()
    }

    /// What the engine runs, in one line (for logs).
    pub fn describe(&self) -> String {
        self.pipeline.describe()
    }
}
