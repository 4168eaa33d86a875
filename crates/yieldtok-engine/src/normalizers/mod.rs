//! Normalizers: NFC, NFD, NFKC, NFKD, Replace, Prepend, Lowercase, Strip, StripAccents,
//! BertNormalizer, Precompiled, ByteLevel, Sequence — each a transform of a
//! [`Normalized`](crate::normalized::Normalized) string with `tokenizers`' exact alignments.

use crate::error::EncodeError;
use crate::normalized::Normalized;

/// One normalizer step (or a sequence of them).
pub trait Normalize: Send + Sync {
    /// Normalize in place, keeping the alignments exact.
    fn normalize(&self, n: &mut Normalized) -> Result<(), EncodeError>;

    /// `true` when normalizing `text` would change nothing (e.g. an NFC quick check that
    /// passes): the engine then skips building a [`Normalized`] for it. `false` is always safe.
    fn is_identity_on(&self, text: &str) -> bool {
        let _ = text;
        false
    }
}
