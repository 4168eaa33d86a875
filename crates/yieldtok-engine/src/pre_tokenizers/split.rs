//! The `Split` pre-tokenizer (`tokenizers`' `pre_tokenizers::split::Split`): a string or regex
//! pattern, a delimiter behavior (Removed, Isolated, MergedWithPrevious, MergedWithNext,
//! Contiguous) and `invert`. Regex patterns run through `fancy-regex` — the engine `tokenizers`
//! is built with here, same version — so the matches are the oracle's by construction
//! (including its stop at the first matching error, e.g. the backtrack limit). String patterns
//! (a regex of the escaped string in `tokenizers`) are found with `memchr::memmem`: the same
//! leftmost non-overlapping occurrences.
//!
//! A split works on ranges: [`Split::cut`] appends the pre-tokens of one piece of text as byte
//! ranges, without building any string.

use serde_json::Value;

use crate::error::LoadError;
use crate::normalized::SplitDelimiterBehavior;

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

    /// The pattern's matches in `text` tiled with the gaps between them, as `tokenizers`'
    /// `Pattern::find_matches` gives them: `(start, end, is_match)`, covering `text`.
    fn find_matches(&self, text: &str, out: &mut Vec<(u32, u32, bool)>) {
        out.clear();
        if text.is_empty() {
            out.push((0, 0, false));
            return;
        }
        let mut prev = 0usize;
        let mut push = |start: usize, end: usize, out: &mut Vec<(u32, u32, bool)>| {
            if prev != start {
                out.push((prev as u32, start as u32, false));
            }
            out.push((start as u32, end as u32, true));
            prev = end;
        };
        match &self.pattern {
            Pattern::Literal(f) => {
                let n = f.needle().len();
                for s in f.find_iter(text.as_bytes()) {
                    push(s, s + n, out);
                }
            }
            Pattern::Regex(re) => {
                for m in re.find_iter(text) {
                    match m {
                        Ok(m) => push(m.start(), m.end(), out),
                        Err(_) => break,
                    }
                }
            }
        }
        if prev != text.len() {
            out.push((prev as u32, text.len() as u32, false));
        }
    }

    /// Append the pre-tokens of `text` (which starts at byte `base` of the segment) to `out`
    /// as ranges: `tokenizers`' `NormalizedString::split` with this behavior, empty pieces
    /// dropped. `scratch` is reused between calls.
    pub fn cut(&self, text: &str, base: u32, scratch: &mut Vec<(u32, u32, bool)>, out: &mut Vec<(u32, u32)>) {
        self.find_matches(text, scratch);
        if self.invert {
            for m in scratch.iter_mut() {
                m.2 = !m.2;
            }
        }
        let mut emit = |s: u32, e: u32| {
            if s < e {
                out.push((base + s, base + e));
            }
        };
        use SplitDelimiterBehavior::*;
        match self.behavior {
            Isolated => scratch.iter().for_each(|&(s, e, _)| emit(s, e)),
            Removed => scratch.iter().filter(|m| !m.2).for_each(|&(s, e, _)| emit(s, e)),
            Contiguous | MergedWithPrevious | MergedWithNext => {
                let folded = fold(scratch, self.behavior);
                folded.into_iter().for_each(|(s, e)| emit(s, e));
            }
        }
    }
}

/// The behaviors that join pieces, exactly as `tokenizers`' folds do.
fn fold(matches: &[(u32, u32, bool)], behavior: SplitDelimiterBehavior) -> Vec<(u32, u32)> {
    let mut acc: Vec<(u32, u32)> = Vec::with_capacity(matches.len());
    let mut previous_match = false;
    match behavior {
        SplitDelimiterBehavior::Contiguous => {
            for &(s, e, m) in matches {
                match acc.last_mut() {
                    Some(last) if m == previous_match => last.1 = e,
                    _ => acc.push((s, e)),
                }
                previous_match = m;
            }
        }
        SplitDelimiterBehavior::MergedWithPrevious => {
            for &(s, e, m) in matches {
                match acc.last_mut() {
                    Some(last) if m && !previous_match => last.1 = e,
                    _ => acc.push((s, e)),
                }
                previous_match = m;
            }
        }
        SplitDelimiterBehavior::MergedWithNext => {
            for &(s, e, m) in matches.iter().rev() {
                match acc.last_mut() {
                    Some(last) if m && !previous_match => last.0 = s,
                    _ => acc.push((s, e)),
                }
                previous_match = m;
            }
            acc.reverse();
        }
        SplitDelimiterBehavior::Isolated | SplitDelimiterBehavior::Removed => unreachable!(),
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    use SplitDelimiterBehavior::*;

    fn cut<'t>(split: &Split, text: &'t str) -> Vec<&'t str> {
        let mut out = Vec::new();
        split.cut(text, 0, &mut Vec::new(), &mut out);
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
