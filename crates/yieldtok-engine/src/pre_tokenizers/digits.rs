//! `Digits`: cut around numeric chars (`char::is_numeric`): each alone
//! (`individual_digits`) or runs of them together (Contiguous).

use super::char_split::{self, parse};
use super::{PreTokenize, Splits};
use crate::error::{EncodeError, LoadError};
use crate::normalized::SplitDelimiterBehavior;

/// `tokenizers`' `Digits` pre-tokenizer.
#[derive(Debug, Clone, Copy, serde::Deserialize)]
pub struct Digits {
    #[serde(default)]
    pub individual_digits: bool,
}

impl Digits {
    pub fn from_json(v: &serde_json::Value) -> Result<Self, LoadError> {
        parse(v)
    }

    fn behavior(&self) -> SplitDelimiterBehavior {
        if self.individual_digits {
            SplitDelimiterBehavior::Isolated
        } else {
            SplitDelimiterBehavior::Contiguous
        }
    }

    /// Append the pre-tokens of `text` as byte ranges shifted by `base`.
    pub fn cut(&self, text: &str, base: u32, out: &mut Vec<(u32, u32)>) {
        char_split::cut(text, base, char::is_numeric, self.behavior(), out)
    }
}

impl PreTokenize for Digits {
    fn pre_tokenize(&self, splits: &mut Splits) -> Result<(), EncodeError> {
        char_split::split_splits(splits, char::is_numeric, self.behavior())
    }
}
