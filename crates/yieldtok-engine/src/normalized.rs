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
//!
//! Every method follows `tokenizers` 0.23.2's `NormalizedString` rule for rule, including its
//! odd corners (an empty normalized range converts to itself; a transform of the whole string
//! starts at the first normalized char with a non-empty alignment). Where `tokenizers` would
//! panic (an index past the alignments), this type does not: it falls back to a harmless value
//! (those inputs cannot come from the normalizers here).
//!
//! Also here: the match lists ([`find_matches_char`], [`find_matches_regex`],
//! [`find_matches_str`]) that `tokenizers`' `Pattern` produces, shared by `Replace` and the
//! splitting pre-tokenizers.

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

/// Identity alignments of `s`: every byte aligned to the char it belongs to.
pub(crate) fn identity_alignments(s: &str, out: &mut Vec<(u32, u32)>) {
    out.reserve(s.len());
    if s.is_ascii() {
        out.extend((0..s.len() as u32).map(|b| (b, b + 1)));
        return;
    }
    for (b, c) in s.char_indices() {
        let (b, e) = (b as u32, (b + c.len_utf8()) as u32);
        out.extend((b..e).map(|_| (b, e)));
    }
}

impl Normalized {
    /// The identity: `normalized == original`, each byte aligned to its char.
    pub fn new(original: &str, original_shift: u32) -> Self {
        let mut alignments = Vec::new();
        identity_alignments(original, &mut alignments);
        Normalized { original: original.to_owned(), normalized: original.to_owned(), alignments, original_shift }
    }

    /// The normalized text.
    pub fn get(&self) -> &str {
        &self.normalized
    }

    /// The original text.
    pub fn get_original(&self) -> &str {
        &self.original
    }

    /// `(start, end)` of this segment in the whole text.
    pub fn offsets_original(&self) -> (u32, u32) {
        (self.original_shift, self.original_shift + self.original.len() as u32)
    }

    /// The original range (relative to `original`) of a normalized byte range, with
    /// `tokenizers`' rules (`NormalizedString::convert_offsets(Range::Normalized(..))`): an
    /// empty range is returned as it is (in normalized coordinates, as `tokenizers` does), a
    /// reversed or out-of-bounds one gives `None`.
    pub fn convert_offsets(&self, normalized: Range<usize>) -> Option<Range<usize>> {
        if normalized.start == normalized.end {
            return Some(normalized);
        }
        if normalized.start > normalized.end {
            return None;
        }
        let a = self.alignments.get(normalized)?;
        Some(a[0].0 as usize..a[a.len() - 1].1 as usize)
    }

    /// The normalized range of an original byte range
    /// (`NormalizedString::convert_offsets(Range::Original(..))`), with its rules: an empty
    /// range is returned as it is; the result starts at the first normalized byte whose
    /// alignment is non-empty and starts at or after `original.start`.
    pub fn convert_offsets_original(&self, original: Range<usize>) -> Option<Range<usize>> {
        if original.start == original.end {
            return Some(original);
        }
        if original.start > original.end {
            return None;
        }
        let (mut start, mut end) = (None, None);
        for (i, &(a0, a1)) in self.alignments.iter().enumerate() {
            let (a0, a1) = (a0 as usize, a1 as usize);
            if original.end < a1 {
                break;
            }
            if start.is_none() && original.start <= a0 && a0 != a1 {
                start = Some(i);
            }
            end = Some(i + 1);
        }
        match (start, end) {
            (Some(s), None) => Some(s..s),
            (None, Some(e)) => Some(e..e),
            (Some(s), Some(e)) => Some(s..e),
            (None, None) => None,
        }
    }

    /// A sub-string by normalized byte range (`NormalizedString::slice(Range::Normalized)`):
    /// `None` when the range is not on char boundaries of the normalized text.
    pub fn slice(&self, normalized: Range<usize>) -> Option<Normalized> {
        if !(self.normalized.is_char_boundary(normalized.start) && self.normalized.is_char_boundary(normalized.end)) {
            return None;
        }
        let original_range = self.convert_offsets(normalized.clone())?;
        let n_shift = original_range.start as u32;
        let alignments = self.alignments.get(normalized.clone())?;
        Some(Normalized {
            original: self.original.get(original_range.clone()).unwrap_or_default().to_owned(),
            normalized: self.normalized.get(normalized).unwrap_or_default().to_owned(),
            // `tokenizers` subtracts unchecked; alignments never start before the slice's first.
            alignments: alignments
                .iter()
                .map(|&(s, e)| (s.saturating_sub(n_shift), e.saturating_sub(n_shift)))
                .collect(),
            original_shift: self.original_shift + n_shift,
        })
    }

    /// Replace the normalized text by `dest`, given as `tokenizers`' transform does: each new
    /// char with its change (`1`: inserted, `0`: replaces one char, `-n`: replaces and removes
    /// `n` more), after removing `initial_offset` chars (`NormalizedString::transform`, which
    /// transforms the normalized range of the whole original).
    pub fn transform(&mut self, dest: impl IntoIterator<Item = (char, isize)>, initial_offset: usize) {
        if let Some(range) = self.convert_offsets_original(0..self.original.len()) {
            self.transform_range(range, dest, initial_offset);
        }
    }

    /// [`transform`](Self::transform) restricted to a normalized byte range
    /// (`NormalizedString::transform_range(Range::Normalized(..))`).
    pub fn transform_range(
        &mut self,
        n_range: Range<usize>,
        dest: impl IntoIterator<Item = (char, isize)>,
        initial_offset: usize,
    ) {
        let Some(replaced) = self.normalized.get(n_range.clone()) else {
            return; // `tokenizers` panics here; no normalizer asks for it.
        };
        let mut replaced = replaced.chars();
        let initial_removed: usize = (&mut replaced).take(initial_offset).map(char::len_utf8).sum();
        let mut offset = initial_removed + n_range.start;
        let mut text = String::with_capacity(n_range.len());
        let mut alignments = Vec::with_capacity(n_range.len());
        let at = |i: usize| self.alignments.get(i).copied().unwrap_or((0, 0));
        for (c, changes) in dest {
            let align = if changes > 0 {
                if offset < 1 {
                    (0, 0)
                } else {
                    at(offset - 1)
                }
            } else {
                at(offset)
            };
            if changes <= 0 {
                offset += replaced.next().map_or(0, char::len_utf8);
            }
            if changes < 0 {
                offset += (&mut replaced).take(changes.unsigned_abs()).map(char::len_utf8).sum::<usize>();
            }
            alignments.extend(std::iter::repeat_n(align, c.len_utf8()));
            text.push(c);
        }
        self.alignments.splice(n_range.clone(), alignments);
        self.normalized.replace_range(n_range, &text);
    }

    /// Keep only the chars for which `keep` holds (`NormalizedString::filter`).
    pub fn filter(&mut self, keep: impl Fn(char) -> bool) {
        let mut removed: isize = 0;
        let mut removed_start = 0usize;
        let mut transforms = Vec::with_capacity(self.normalized.len());
        let mut last_c = None;
        for c in self.normalized.chars() {
            if keep(c) {
                match last_c {
                    Some(lc) => transforms.push((lc, -removed)),
                    None => removed_start = removed as usize,
                }
                last_c = Some(c);
                removed = 0;
            } else {
                removed += 1;
            }
        }
        if let Some(lc) = last_c {
            transforms.push((lc, -removed));
        }
        self.transform(transforms, removed_start);
    }

    /// Map every char to one char (`NormalizedString::map`).
    pub fn map(&mut self, f: impl Fn(char) -> char) {
        let t: Vec<(char, isize)> = self.normalized.chars().map(|c| (f(c), 0)).collect();
        self.transform(t, 0);
    }

    /// Prepend `s` (`NormalizedString::prepend`): the new chars align with the first char.
    pub fn prepend(&mut self, s: &str) {
        if let Some(next) = self.normalized.chars().next() {
            let t = s.chars().enumerate().map(|(i, c)| (c, isize::from(i != 0))).chain(std::iter::once((next, 1)));
            self.transform_range(0..next.len_utf8(), t, 0);
        }
    }

    /// Append `s` (`NormalizedString::append`): the new chars align with the last char.
    pub fn append(&mut self, s: &str) {
        if let Some((b, prev)) = self.normalized.char_indices().last() {
            let t = std::iter::once((prev, 0)).chain(s.chars().map(|c| (c, 1)));
            self.transform_range(b..self.normalized.len(), t, 0);
        } else {
            let len = self.normalized.len();
            self.transform_range(0..len, s.chars().map(|c| (c, 1)), 0);
        }
    }

    /// Lowercase (`NormalizedString::lowercase`): the chars of one char's lowercase all align
    /// with it.
    pub fn lowercase(&mut self) {
        let mut t: Vec<(char, isize)> = Vec::with_capacity(self.normalized.len());
        for c in self.normalized.chars() {
            t.extend(c.to_lowercase().enumerate().map(|(i, c)| (c, isize::from(i > 0))));
        }
        self.transform(t, 0);
    }

    /// Remove leading and/or trailing whitespace (`NormalizedString::lrstrip`).
    pub fn lrstrip(&mut self, left: bool, right: bool) {
        let leading = if left { self.normalized.chars().take_while(|c| c.is_whitespace()).count() } else { 0 };
        let trailing = if right { self.normalized.chars().rev().take_while(|c| c.is_whitespace()).count() } else { 0 };
        if leading == 0 && trailing == 0 {
            return;
        }
        let count = self.normalized.chars().count();
        let len = self.normalized.len();
        // `tokenizers` compares a char index with a byte length here; kept as it is (the
        // change it attaches only matters for the chars after the last one kept).
        let t: Vec<(char, isize)> = self
            .normalized
            .chars()
            .enumerate()
            .filter_map(|(i, c)| {
                if i < leading || i >= count - trailing {
                    None
                } else if i == len - trailing - 1 {
                    Some((c, -(trailing as isize)))
                } else {
                    Some((c, 0))
                }
            })
            .collect();
        self.transform(t, leading);
    }

    /// Replace every match of `matches` (from one of the `find_matches_*` functions) by
    /// `content` (`NormalizedString::replace`): the new chars align with the last byte before
    /// the end of the match (an empty match at 0: the empty range `(0, 0)`).
    pub fn replace_matches(&mut self, matches: &[(Range<usize>, bool)], content: &str) {
        let mut text = String::with_capacity(self.normalized.len());
        let mut alignments = Vec::with_capacity(self.alignments.len());
        let mut last_end = 0;
        for (r, is_match) in matches {
            if !is_match {
                continue;
            }
            text.push_str(&self.normalized[last_end..r.start]);
            alignments.extend_from_slice(&self.alignments[last_end..r.start]);
            let align = if r.end < 1 { (0, 0) } else { self.alignments[r.end - 1] };
            text.push_str(content);
            alignments.extend(std::iter::repeat_n(align, content.len()));
            last_end = r.end;
        }
        text.push_str(&self.normalized[last_end..]);
        alignments.extend_from_slice(&self.alignments[last_end..]);
        self.normalized = text;
        self.alignments = alignments;
    }

    /// Split by a char predicate with a delimiter behavior (`NormalizedString::split`).
    pub fn split_by(&self, is_delimiter: impl Fn(char) -> bool, behavior: SplitDelimiterBehavior) -> Vec<Normalized> {
        self.split_at_matches(&find_matches_char(&self.normalized, is_delimiter), behavior)
    }

    /// Split at given match ranges (normalized bytes; `true` = a delimiter match), with a
    /// delimiter behavior — what `split_by`, string and regex patterns reduce to. The ranges
    /// must cover the text in order (as the `find_matches_*` functions give them).
    pub fn split_at_matches(
        &self,
        matches: &[(Range<usize>, bool)],
        behavior: SplitDelimiterBehavior,
    ) -> Vec<Normalized> {
        split_ranges(matches, behavior)
            .into_iter()
            .filter_map(|(r, remove)| if remove { None } else { self.slice(r) })
            .collect()
    }
}

/// The ranges a split keeps (`false`) or removes (`true`) for a delimiter behavior, from a
/// match list (`NormalizedString::split`'s fold over the matches).
pub fn split_ranges(matches: &[(Range<usize>, bool)], behavior: SplitDelimiterBehavior) -> Vec<(Range<usize>, bool)> {
    use SplitDelimiterBehavior::*;
    let mut acc: Vec<(Range<usize>, bool)> = Vec::with_capacity(matches.len());
    match behavior {
        Isolated => acc.extend(matches.iter().map(|(r, _)| (r.clone(), false))),
        Removed => acc.extend(matches.iter().cloned()),
        Contiguous => {
            let mut previous = false;
            for (r, is_match) in matches {
                match acc.last_mut() {
                    Some((last, _)) if *is_match == previous => last.end = r.end,
                    _ => acc.push((r.clone(), false)),
                }
                previous = *is_match;
            }
        }
        MergedWithPrevious => {
            let mut previous = false;
            for (r, is_match) in matches {
                match acc.last_mut() {
                    Some((last, _)) if *is_match && !previous => last.end = r.end,
                    _ => acc.push((r.clone(), false)),
                }
                previous = *is_match;
            }
        }
        MergedWithNext => {
            let mut previous = false;
            for (r, is_match) in matches.iter().rev() {
                match acc.last_mut() {
                    Some((last, _)) if *is_match && !previous => last.start = r.start,
                    _ => acc.push((r.clone(), false)),
                }
                previous = *is_match;
            }
            acc.reverse();
        }
    }
    acc
}

/// The match list of a char predicate over `text` (`tokenizers`' `Pattern for Fn(char) -> bool`):
/// each matching char alone, and the runs between them; `[(0..0, false)]` for an empty text.
pub fn find_matches_char(text: &str, is_match: impl Fn(char) -> bool) -> Vec<(Range<usize>, bool)> {
    if text.is_empty() {
        return vec![(0..0, false)];
    }
    let mut out = Vec::new();
    let mut last = 0;
    for (b, c) in text.char_indices() {
        if is_match(c) {
            if last < b {
                out.push((last..b, false));
            }
            let e = b + c.len_utf8();
            out.push((b..e, true));
            last = e;
        }
    }
    if text.len() > last {
        out.push((last..text.len(), false));
    }
    out
}

/// The match list of a `fancy-regex` over `text` (`tokenizers`' `Pattern for &SysRegex`):
/// matches and the gaps between them; an empty text gives `[(0..0, false)]`. A regex error
/// (backtrack limit) ends the matches there, as `SysRegex::find_iter` does.
pub fn find_matches_regex(text: &str, re: &fancy_regex::Regex) -> Vec<(Range<usize>, bool)> {
    if text.is_empty() {
        return vec![(0..0, false)];
    }
    let mut out = Vec::new();
    let mut prev = 0;
    for m in re.find_iter(text) {
        let Ok(m) = m else { break };
        if prev != m.start() {
            out.push((prev..m.start(), false));
        }
        out.push((m.start()..m.end(), true));
        prev = m.end();
    }
    if prev != text.len() {
        out.push((prev..text.len(), false));
    }
    out
}

/// The match list of a non-empty literal over `text`: the same as [`find_matches_regex`] with
/// the escaped literal as the pattern (leftmost, non-overlapping), without a regex.
pub fn find_matches_str(text: &str, finder: &memchr::memmem::Finder<'_>) -> Vec<(Range<usize>, bool)> {
    debug_assert!(!finder.needle().is_empty());
    if text.is_empty() {
        return vec![(0..0, false)];
    }
    let mut out = Vec::new();
    let mut prev = 0;
    let n = finder.needle().len();
    for start in finder.find_iter(text.as_bytes()) {
        if prev != start {
            out.push((prev..start, false));
        }
        out.push((start..start + n, true));
        prev = start + n;
    }
    if prev != text.len() {
        out.push((prev..text.len(), false));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_and_slices() {
        let n = Normalized::new("aé b", 10);
        assert_eq!(n.alignments, vec![(0, 1), (1, 3), (1, 3), (3, 4), (4, 5)]);
        assert_eq!(n.convert_offsets(1..3), Some(1..3));
        assert_eq!(n.convert_offsets(2..2), Some(2..2));
        #[allow(clippy::reversed_empty_ranges)]
        let reversed = 3..1;
        assert_eq!(n.convert_offsets(reversed), None);
        assert_eq!(n.convert_offsets(4..9), None);
        assert_eq!(n.slice(1..2), None);
        let s = n.slice(1..4).unwrap();
        assert_eq!((s.get(), s.get_original(), s.original_shift), ("é ", "é ", 11));
        assert_eq!(s.alignments, vec![(0, 2), (0, 2), (2, 3)]);
    }

    #[test]
    fn split_behaviors() {
        use SplitDelimiterBehavior::*;
        let n = Normalized::new("the-final--countdown", 0);
        let parts = |b| n.split_by(|c| c == '-', b).iter().map(|s| s.get().to_owned()).collect::<Vec<_>>();
        assert_eq!(parts(Removed), ["the", "final", "countdown"]);
        assert_eq!(parts(Isolated), ["the", "-", "final", "-", "-", "countdown"]);
        assert_eq!(parts(MergedWithPrevious), ["the-", "final-", "-", "countdown"]);
        assert_eq!(parts(MergedWithNext), ["the", "-final", "-", "-countdown"]);
        assert_eq!(parts(Contiguous), ["the", "-", "final", "--", "countdown"]);
    }
}
