//! Models: turn one pre-token into tokens. BPE ([`bpe`], long words in [`bpe_long`], the
//! merge table in [`pair_map`], the per-thread word cache in [`bpe_cache`]), WordPiece, Unigram.

pub mod bpe;
pub mod bpe_cache;
pub mod bpe_long;
pub mod pair_map;
pub mod unigram;
pub mod word_cache;
pub mod wordpiece;

use std::sync::atomic::AtomicBool;

use crate::error::EncodeError;

/// The model of a pipeline: one of the three kinds, each tokenizing one pre-token.
#[allow(clippy::large_enum_variant)] // one per pipeline; BPE, the common one, stays inline
pub enum Model {
    Bpe(bpe::Bpe),
    WordPiece(wordpiece::WordPiece),
    Unigram(unigram::Unigram),
}

impl Model {
    /// Tokenize one non-empty pre-token: tokens appended to `out` with byte ranges relative to
    /// `word` (`syms` is BPE's scratch space).
    #[inline]
    pub fn tokenize(
        &self,
        word: &str,
        syms: &mut Vec<(u32, u32)>,
        out: &mut Vec<Token>,
        cancel: Option<&AtomicBool>,
    ) -> Result<(), EncodeError> {
        match self {
            Model::Bpe(m) => m.tokenize(word, syms, out, cancel),
            Model::WordPiece(m) => m.tokenize(word, out),
            Model::Unigram(m) => m.tokenize(word, out),
        }
    }

    /// The unknown id of a model that names an unknown piece by its text, with the id's
    /// vocabulary entry (Unigram; BPE and WordPiece name it by the entry).
    #[inline]
    pub fn unk_named_by_text(&self) -> Option<(u32, &str)> {
        match self {
            Model::Unigram(m) => m.unk(),
            _ => None,
        }
    }

    /// A short description for logs.
    pub fn describe(&self) -> String {
        match self {
            Model::Bpe(m) => format!("BPE ({:?} units)", m.units()),
            Model::WordPiece(_) => "WordPiece".into(),
            Model::Unigram(_) => "Unigram".into(),
        }
    }
}

/// One token produced by a model for its input (a pre-token): its id and its byte range in
/// that input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Token {
    pub id: u32,
    pub start: u32,
    pub end: u32,
}
