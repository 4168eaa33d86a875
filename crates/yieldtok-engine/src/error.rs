//! The engine's errors: what it refuses to load (and why), and what can stop an encode.

/// Why a `tokenizer.json` cannot be served by the engine.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The JSON is not a tokenizer definition (or a field has the wrong shape).
    #[error("malformed tokenizer.json: {0}")]
    Malformed(#[source] serde_json::Error),
    /// A component, option or combination the engine does not reproduce exactly. The
    /// `yieldtok` crate serves such a tokenizer with the `tokenizers` crate instead.
    #[error("not supported by the yieldtok engine: {0}")]
    Unsupported(String),
    /// A limit that keeps hostile files from making the engine allocate without bound
    /// (e.g. a token id far above the vocabulary size).
    #[error("tokenizer.json exceeds a limit: {0}")]
    Limit(String),
    /// The bytes are not a compact engine image of this version.
    #[error("invalid compact engine image: {0}")]
    Compact(String),
}

/// Why an encode stopped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// The caller's cancel flag was set.
    #[error("cancelled")]
    Cancelled,
    /// The piece is longer than offsets in `u32` can describe.
    #[error("a piece of {len} bytes is longer than the engine's limit of {limit} bytes")]
    TooLong { len: usize, limit: usize },
    /// The model could not tokenize a pre-token (e.g. WordPiece/Unigram without an unknown
    /// token, on a char outside the vocabulary) — `tokenizers` fails the same way.
    #[error("{0}")]
    Model(String),
}
