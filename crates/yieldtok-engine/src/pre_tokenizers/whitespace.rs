//! `Whitespace` (words `\w+` and runs of other non-space chars `[^\w\s]+`, the rest dropped —
//! with the same Unicode `\w`/`\s` as `tokenizers`' regex, through `fancy-regex`, which shares
//! its `regex-syntax` tables) and `WhitespaceSplit` (cut at `char::is_whitespace`, dropped).

use super::char_split;
use super::{split_each, PreTokenize, Splits};
use crate::error::EncodeError;
use crate::normalized::{find_matches_regex, split_ranges, SplitDelimiterBehavior};
use std::sync::LazyLock;

/// `tokenizers`' `Whitespace` pre-tokenizer.
#[derive(Debug, Clone, Copy)]
pub struct Whitespace;

static WORDS: LazyLock<fancy_regex::Regex> =
    LazyLock::new(|| fancy_regex::Regex::new(r"\w+|[^\w\s]+").expect("a valid regex"));

/// The match list of `Whitespace`, inverted (the words are kept, the gaps removed).
fn matches(text: &str) -> Vec<(std::ops::Range<usize>, bool)> {
    let mut m = find_matches_regex(text, &WORDS);
    m.iter_mut().for_each(|(_, is_match)| *is_match = !*is_match);
    m
}

impl Whitespace {
    /// Append the pre-tokens of `text` as byte ranges shifted by `base`.
    pub fn cut(&self, text: &str, base: u32, out: &mut Vec<(u32, u32)>) {
        out.extend(
            split_ranges(&matches(text), SplitDelimiterBehavior::Removed)
                .into_iter()
                .filter(|(r, removed)| !removed && !r.is_empty())
                .map(|(r, _)| (base + r.start as u32, base + r.end as u32)),
        );
    }
}

impl PreTokenize for Whitespace {
    fn pre_tokenize(&self, splits: &mut Splits) -> Result<(), EncodeError> {
        split_each(splits, |_, s| Ok(s.split_at_matches(&matches(s.get()), SplitDelimiterBehavior::Removed)))
    }
}

/// `tokenizers`' `WhitespaceSplit` pre-tokenizer.
#[derive(Debug, Clone, Copy)]
pub struct WhitespaceSplit;

impl WhitespaceSplit {
    /// Append the pre-tokens of `text` as byte ranges shifted by `base`.
    pub fn cut(&self, text: &str, base: u32, out: &mut Vec<(u32, u32)>) {
        char_split::cut(text, base, char::is_whitespace, SplitDelimiterBehavior::Removed, out)
    }
}

impl PreTokenize for WhitespaceSplit {
    fn pre_tokenize(&self, splits: &mut Splits) -> Result<(), EncodeError> {
        char_split::split_splits(splits, char::is_whitespace, SplitDelimiterBehavior::Removed)
    }
}
