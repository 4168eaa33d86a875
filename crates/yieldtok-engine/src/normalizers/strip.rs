//! `Strip` (leading / trailing whitespace, `char::is_whitespace`) and `StripAccents`
//! (combining marks removed, with the Unicode 9 tables `tokenizers` uses).

use super::{parse, Normalize};
use crate::error::{EncodeError, LoadError};
use crate::normalized::Normalized;
use unicode_normalization_alignments::char::is_combining_mark;

/// `tokenizers`' `Strip` normalizer.
#[derive(Debug, Clone, Copy, serde::Deserialize)]
pub struct Strip {
    pub strip_left: bool,
    pub strip_right: bool,
}

impl Strip {
    pub(crate) fn from_json(v: &serde_json::Value) -> Result<Self, LoadError> {
        parse(v)
    }
}

impl Normalize for Strip {
    fn normalize(&self, n: &mut Normalized) -> Result<(), EncodeError> {
        if self.strip_left && self.strip_right {
            n.lrstrip(true, true);
        } else {
            if self.strip_left {
                n.lrstrip(true, false);
            }
            if self.strip_right {
                n.lrstrip(false, true);
            }
        }
        Ok(())
    }

    fn is_identity_on(&self, text: &str) -> bool {
        let (first, last) = (text.chars().next(), text.chars().next_back());
        !(self.strip_left && first.is_some_and(char::is_whitespace)
            || self.strip_right && last.is_some_and(char::is_whitespace))
    }
}

/// `tokenizers`' `StripAccents` normalizer: removes every combining mark.
pub struct StripAccents;

impl Normalize for StripAccents {
    fn normalize(&self, n: &mut Normalized) -> Result<(), EncodeError> {
        if !self.is_identity_on(n.get()) {
            n.filter(|c| !is_combining_mark(c));
        }
        Ok(())
    }

    fn is_identity_on(&self, text: &str) -> bool {
        text.is_ascii() || !text.chars().any(is_combining_mark)
    }
}
