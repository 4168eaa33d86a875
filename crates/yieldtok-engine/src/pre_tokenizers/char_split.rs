//! Splitting by a char predicate with a delimiter behavior — the one step that Whitespace­Split,
//! BertPreTokenizer, Punctuation, Digits and CharDelimiterSplit are made of — in two forms: on
//! [`Splits`] (the general path, with alignments) and as byte ranges of a text that needs no
//! alignments (the engine's fast path). Both reduce to `Normalized`'s match list and
//! `split_ranges`, so they cut identically.

use super::{split_each, Splits};
use crate::error::EncodeError;
use crate::normalized::{find_matches_char, split_ranges, SplitDelimiterBehavior};

/// Replace every split by its parts cut at the chars `is_delimiter` accepts.
pub fn split_splits(
    splits: &mut Splits,
    is_delimiter: impl Fn(char) -> bool + Copy,
    behavior: SplitDelimiterBehavior,
) -> Result<(), EncodeError> {
    split_each(splits, |_, s| Ok(s.split_by(is_delimiter, behavior)))
}

/// Append the non-empty parts of `text` cut at the chars `is_delimiter` accepts, as byte
/// ranges shifted by `base`.
pub fn cut(
    text: &str,
    base: u32,
    is_delimiter: impl Fn(char) -> bool,
    behavior: SplitDelimiterBehavior,
    out: &mut Vec<(u32, u32)>,
) {
    let matches = find_matches_char(text, is_delimiter);
    out.extend(
        split_ranges(&matches, behavior)
            .into_iter()
            .filter(|(r, removed)| !removed && !r.is_empty())
            .map(|(r, _)| (base + r.start as u32, base + r.end as u32)),
    );
}

/// Parse the fields of a pre-tokenizer's JSON.
pub(crate) fn parse<T: serde::de::DeserializeOwned>(v: &serde_json::Value) -> Result<T, crate::error::LoadError> {
    T::deserialize(v).map_err(crate::error::LoadError::Malformed)
}
