//! `Lowercase`: Rust's `char::to_lowercase` per char (as `tokenizers` does); the chars of one
//! char's lowercase form all align with it.

use super::Normalize;
use crate::error::EncodeError;
use crate::normalized::Normalized;

/// `tokenizers`' `Lowercase` normalizer.
pub struct Lowercase;

impl Normalize for Lowercase {
    fn normalize(&self, n: &mut Normalized) -> Result<(), EncodeError> {
        if !self.is_identity_on(n.get()) {
            n.lowercase();
        }
        Ok(())
    }

    fn is_identity_on(&self, text: &str) -> bool {
        if text.is_ascii() {
            return !text.bytes().any(|b| b.is_ascii_uppercase());
        }
        text.chars().all(|c| {
            let mut l = c.to_lowercase();
            l.next() == Some(c) && l.next().is_none()
        })
    }
}
