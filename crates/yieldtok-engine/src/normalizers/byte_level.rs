//! The `ByteLevel` normalizer: every byte of the text replaced by its byte-level char (GPT-2's
//! alphabet, the pre-tokenizer's [`BYTE_CHARS`]); the chars of one original char's bytes all
//! align with that char.

use super::Normalize;
use crate::error::EncodeError;
use crate::normalized::Normalized;
use crate::pre_tokenizers::byte_level::BYTE_CHARS;

/// `tokenizers`' `ByteLevel` normalizer.
pub struct ByteLevel;

impl Normalize for ByteLevel {
    fn normalize(&self, n: &mut Normalized) -> Result<(), EncodeError> {
        if n.get().is_empty() {
            return Ok(());
        }
        let s = n.get();
        let mut t: Vec<(char, isize)> = Vec::with_capacity(s.len());
        for (i, c) in s.char_indices() {
            let bytes = &s.as_bytes()[i..i + c.len_utf8()];
            t.extend(bytes.iter().enumerate().map(|(j, &b)| (BYTE_CHARS[b as usize], isize::from(j > 0))));
        }
        n.transform(t, 0);
        Ok(())
    }

    /// Only bytes that map to themselves: printable ASCII except the space.
    fn is_identity_on(&self, text: &str) -> bool {
        text.bytes().all(|b| (0x21..=0x7e).contains(&b))
    }
}
