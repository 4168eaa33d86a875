//! `Punctuation`: cut at punctuation chars (ASCII punctuation or Unicode P*, with the
//! `unicode_categories` tables `tokenizers` uses) with a delimiter behavior (default Isolated).

use super::char_split::{self, parse};
use super::{PreTokenize, Splits};
use crate::error::{EncodeError, LoadError};
use crate::normalized::SplitDelimiterBehavior;
use unicode_categories::UnicodeCategories;

/// BERT's punctuation: ASCII punctuation (which includes `$+<=>^`|~`) or Unicode category P*.
pub fn is_punctuation(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_punctuation()
    } else {
        c.is_punctuation()
    }
}

/// `tokenizers`' `Punctuation` pre-tokenizer.
#[derive(Debug, Clone, Copy, serde::Deserialize)]
pub struct Punctuation {
    #[serde(default = "isolated")]
    pub behavior: SplitDelimiterBehavior,
}

fn isolated() -> SplitDelimiterBehavior {
    SplitDelimiterBehavior::Isolated
}

impl Punctuation {
    pub fn from_json(v: &serde_json::Value) -> Result<Self, LoadError> {
        parse(v)
    }

    /// Append the pre-tokens of `text` as byte ranges shifted by `base`.
    pub fn cut(&self, text: &str, base: u32, out: &mut Vec<(u32, u32)>) {
        char_split::cut(text, base, is_punctuation, self.behavior, out)
    }
}

impl PreTokenize for Punctuation {
    fn pre_tokenize(&self, splits: &mut Splits) -> Result<(), EncodeError> {
        char_split::split_splits(splits, is_punctuation, self.behavior)
    }
}
