//! `CharDelimiterSplit`: cut at one delimiter char, which is dropped.

use super::char_split::{self, parse};
use super::{PreTokenize, Splits};
use crate::error::{EncodeError, LoadError};
use crate::normalized::SplitDelimiterBehavior;

/// `tokenizers`' `CharDelimiterSplit` pre-tokenizer.
#[derive(Debug, Clone, Copy, serde::Deserialize)]
pub struct CharDelimiterSplit {
    pub delimiter: char,
}

impl CharDelimiterSplit {
    pub fn from_json(v: &serde_json::Value) -> Result<Self, LoadError> {
        parse(v)
    }

    /// Append the pre-tokens of `text` as byte ranges shifted by `base`.
    pub fn cut(&self, text: &str, base: u32, out: &mut Vec<(u32, u32)>) {
        let d = self.delimiter;
        char_split::cut(text, base, |c| c == d, SplitDelimiterBehavior::Removed, out)
    }
}

impl PreTokenize for CharDelimiterSplit {
    fn pre_tokenize(&self, splits: &mut Splits) -> Result<(), EncodeError> {
        let d = self.delimiter;
        char_split::split_splits(splits, move |c| c == d, SplitDelimiterBehavior::Removed)
    }
}
