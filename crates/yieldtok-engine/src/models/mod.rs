//! Models: turn one pre-token into tokens. BPE ([`bpe`], long words in [`bpe_long`], the
//! merge table in [`pair_map`]), WordPiece, Unigram.

pub mod bpe;
pub mod bpe_long;
pub mod pair_map;
pub mod unigram;
pub mod wordpiece;

/// One token produced by a model for its input (a pre-token): its id and its byte range in
/// that input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Token {
    pub id: u32,
    pub start: u32,
    pub end: u32,
}
