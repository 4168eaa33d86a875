//! `Prepend`: a fixed string before a non-empty segment (llama2's legacy `"▁"`), aligned with
//! the segment's first char.

use super::{parse, Normalize};
use crate::error::{EncodeError, LoadError};
use crate::normalized::Normalized;

/// `tokenizers`' `Prepend` normalizer.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct Prepend {
    pub prepend: String,
}

impl Prepend {
    pub(crate) fn from_json(v: &serde_json::Value) -> Result<Self, LoadError> {
        parse(v)
    }
}

impl Normalize for Prepend {
    fn normalize(&self, n: &mut Normalized) -> Result<(), EncodeError> {
        if !n.get().is_empty() {
            n.prepend(&self.prepend);
        }
        Ok(())
    }

    fn is_identity_on(&self, text: &str) -> bool {
        text.is_empty() || self.prepend.is_empty()
    }
}
