//! [`Normalized`]: a segment of text after normalization, with the way back to the original —
//! the role `tokenizers`' `NormalizedString` plays, with the same alignment rules, so offsets
//! computed through it are `tokenizers`' offsets.
//!
//! Alignments: for every byte of the normalized text, the byte range `(start, end)` of the
//! original text it came from (all bytes of one normalized char share one range). A split
//! (pre-token) is a [`Normalized`] too, sliced out of its segment, whose alignments still point
//! into the *whole* original text (`original_shift` + its own range).
//!
//! The engine's fast path does not build this type at all: when a segment needs no
//! normalization (no normalizer, or its quick check passes), offsets are `base + position`.

use std::ops::Range;

/// How a split keeps its delimiter (`tokenizers`' `SplitDelimiterBehavior`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
pub enum SplitDelimiterBehavior {
    Removed,
    Isolated,
    MergedWithPrevious,
    MergedWithNext,
    Contiguous,
}

/// A normalized string with alignments to the original (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Normalized {
    /// The original text of this segment.
    pub original: String,
    /// The normalized text.
    pub normalized: String,
    /// Per byte of `normalized`: the original byte range it came from (relative to `original`).
    pub alignments: Vec<(u32, u32)>,
    /// Where `original` starts in the whole text that was encoded.
    pub original_shift: u32,
}

impl Normalized {
    /// The identity: `normalized == original`, each byte aligned to its char.
    pub fn new(original: &str, original_shift: u32) -> Self {
        let _ = (original, original_shift);
        todo!("engine-text: Normalized::new")
    }

    /// The normalized text.
    pub fn get(&self) -> &str {
        &self.normalized
    }

    /// `(start, end)` of this segment in the whole text.
    pub fn offsets_original(&self) -> (u32, u32) {
        (self.original_shift, self.original_shift + self.original.len() as u32)
    }

    /// The original range (relative to `original`) of a normalized byte range, with
    /// `tokenizers`' rules (`NormalizedString::convert_offsets(Range::Normalized(..))`).
    pub fn convert_offsets(&self, normalized: Range<usize>) -> Option<Range<usize>> {
        let _ = normalized;
        todo!("engine-text: Normalized::convert_offsets")
    }

    /// A sub-string by normalized byte range (`NormalizedString::slice(Range::Normalized)`).
    pub fn slice(&self, normalized: Range<usize>) -> Option<Normalized> {
        let _ = normalized;
        todo!("engine-text: Normalized::slice")
    }

    /// Replace the normalized text by `dest`, given as `tokenizers`' transform does: each new
    /// char with its change (`1`: inserted, `0`: replaces one char, `-n`: replaces and removes
    /// `n` more), after removing `initial_offset` chars (`NormalizedString::transform`).
    pub fn transform(&mut self, dest: impl IntoIterator<Item = (char, isize)>, initial_offset: usize) {
        let _ = (dest.into_iter(), initial_offset);
        todo!("engine-text: Normalized::transform")
    }

    /// Split by a char predicate with a delimiter behavior (`NormalizedString::split`).
    pub fn split_by(&self, is_delimiter: impl Fn(char) -> bool, behavior: SplitDelimiterBehavior) -> Vec<Normalized> {
        let _ = (is_delimiter, behavior);
        todo!("engine-text: Normalized::split_by")
    }

    /// Split at given match ranges (normalized bytes; `true` = a delimiter match), with a
    /// delimiter behavior — what `split_by`, string and regex patterns reduce to.
    pub fn split_at_matches(
        &self,
        matches: &[(Range<usize>, bool)],
        behavior: SplitDelimiterBehavior,
    ) -> Vec<Normalized> {
        let _ = (matches, behavior);
        todo!("engine-text: Normalized::split_at_matches")
    }
}
