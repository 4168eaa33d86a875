//! The `Split` pre-tokenizer (`tokenizers`' `pre_tokenizers::split::Split`): a string or regex
//! pattern, a delimiter behavior (Removed, Isolated, MergedWithPrevious, MergedWithNext,
//! Contiguous) and `invert`. Regex patterns run through `fancy-regex` — the engine `tokenizers`
//! is built with here, same version — so the matches are the oracle's by construction
//! (including its stop at the first matching error, e.g. the backtrack limit). String patterns
//! (a regex of the escaped string in `tokenizers`) are found with `memchr::memmem`: the same
//! leftmost non-overlapping occurrences (an empty string goes through the regex).
//!
//! A split works on ranges: [`Split::cut`] appends the pre-tokens of one piece of text as byte
//! ranges, without building any string.

use serde_json::Value;

use crate::error::LoadError;
use crate::normalized::{find_matches_regex, find_matches_str, split_ranges, SplitDelimiterBehavior};

enum Pattern {
    Literal(memchr::memmem::Finder<'static>),
    Regex(fancy_regex::Regex),
}

/// One `Split` step (see the module docs).
pub struct Split {
    /// The pattern as written in the file (`Regex` or `String`).
    pub source: PatternSource,
    pattern: Pattern,
    pub behavior: SplitDelimiterBehavior,
    pub invert: bool,
}

/// A Split pattern as written in `tokenizer.json`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub enum PatternSource {
    String(String),
    Regex(String),
}

#[derive(serde::Deserialize)]
struct SplitJson {
    pattern: PatternSource,
    behavior: SplitDelimiterBehavior,
    invert: bool,
}

impl Split {
    /// From a `{"type": "Split", …}` object.
    pub fn from_json(v: &Value) -> Result<Split, LoadError> {
        let j: SplitJson = serde_json::from_value(v.clone()).map_err(LoadError::Malformed)?;
        Split::new(j.pattern, j.behavior, j.invert)
    }

    /// A regex split.
    pub fn regex(pattern: &str, behavior: SplitDelimiterBehavior, invert: bool) -> Result<Split, LoadError> {
        Split::new(PatternSource::Regex(pattern.to_string()), behavior, invert)
    }

    pub fn new(source: PatternSource, behavior: SplitDelimiterBehavior, invert: bool) -> Result<Split, LoadError> {
        let compile = |re: &str| {
            fancy_regex::Regex::new(re)
                .map_err(|e| LoadError::Unsupported(format!("Split regex {re:?} does not compile: {e}")))
        };
        let pattern = match &source {
            PatternSource::String(s) if !s.is_empty() => {
                Pattern::Literal(memchr::memmem::Finder::new(s.as_bytes()).into_owned())
            }
            PatternSource::String(s) => Pattern::Regex(compile(&fancy_regex::escape(s))?),
            PatternSource::Regex(r) => Pattern::Regex(compile(r)?),
        };
        Ok(Split { source, pattern, behavior, invert })
    }

    /// The regex source, when the pattern is a regex.
    pub fn regex_source(&self) -> Option<&str> {
        match &self.source {
            PatternSource::Regex(r) => Some(r),
            PatternSource::String(_) => None,
        }
    }

    /// Append the pre-tokens of `text` (which starts at byte `base` of the segment) to `out`
    /// as ranges: `tokenizers`' `NormalizedString::split` with this behavior (the match list
    /// and the fold are [`crate::normalized`]'s, shared with the normalizers), empty pieces
    /// dropped.
    pub fn cut(&self, text: &str, base: u32, out: &mut Vec<(u32, u32)>) {
        let mut matches = match &self.pattern {
            Pattern::Literal(f) => find_matches_str(text, f),
            Pattern::Regex(re) => find_matches_regex(text, re),
        };
        if self.invert {
            for m in matches.iter_mut() {
                m.1 = !m.1;
            }
        }
        for (r, remove) in split_ranges(&matches, self.behavior) {
            if !remove && r.start < r.end {
                out.push((base + r.start as u32, base + r.end as u32));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use SplitDelimiterBehavior::*;

    fn cut<'t>(split: &Split, text: &'t str) -> Vec<&'t str> {
        let mut out = Vec::new();
        split.cut(text, 0, &mut out);
        out.iter().map(|&(s, e)| &text[s as usize..e as usize]).collect()
    }

    #[test]
    fn behaviors_as_tokenizers_documents_them() {
        let text = "How are you doing?";
        let s = |b| Split::new(PatternSource::String(" ".into()), b, false).unwrap();
        assert_eq!(cut(&s(Removed), text), ["How", "are", "you", "doing?"]);
        assert_eq!(cut(&s(Isolated), text), ["How", " ", "are", " ", "you", " ", "doing?"]);
        assert_eq!(cut(&s(MergedWithPrevious), text), ["How ", "are ", "you ", "doing?"]);
        assert_eq!(cut(&s(MergedWithNext), text), ["How", " are", " you", " doing?"]);
        assert_eq!(cut(&s(Contiguous), "How  are"), ["How", "  ", "are"]);
        let inv = Split::regex(r"\w+", Removed, true).unwrap();
        assert_eq!(cut(&inv, "Hey man!"), ["Hey", "man"]);
    }
}
