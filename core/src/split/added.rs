//! Added-token matches, found the way the `tokenizers` pipeline finds them: leftmost-longest
//! over the raw text for the tokens with `normalized = false`. Each match becomes a *zone*:
//! its edges are exact cut points, and no cut may fall inside it. Matches the pipeline would
//! reshape or skip (`lstrip`/`rstrip`/`single_word` flags, special tokens when
//! `encode_special_tokens` is on) become *forbidden* zones only: no cut inside (widened over
//! the whitespace a strip flag could absorb), and their edges are not used.
//!
//! Tokens with `normalized = true` are matched by the pipeline inside the normalized text of
//! each segment; they are handled conservatively by [`AddedMatcher::blocks`]: a cut class is
//! switched off when such a token contains the char that class cuts next to.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, Input, MatchKind};
use tokenizers::{NormalizedString, Normalizer};

/// How a zone may be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ZoneKind {
    /// An exact added-token match: both edges are safe cuts.
    Edge,
    /// A region no cut may fall into; its edges are not known to be safe.
    Forbidden,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Zone {
    pub start: usize,
    pub end: usize,
    pub kind: ZoneKind,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct PatternInfo {
    pub(crate) exact: bool,
    pub(crate) lstrip: bool,
    pub(crate) rstrip: bool,
}

/// Which cut classes normalized added tokens rule out.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Blocks {
    pub before_space: bool,
    pub after_newline: bool,
}

#[derive(Clone)]
pub(crate) struct AddedMatcher {
    ac: Option<AhoCorasick>,
    /// The matched contents (what the compact form keeps, [`crate::compact`]).
    patterns: Vec<String>,
    info: Vec<PatternInfo>,
    pub(crate) blocks: Blocks,
}

impl AddedMatcher {
    pub(crate) fn new(tok: &tokenizers::Tokenizer) -> Result<Self, String> {
        let encode_special = tok.get_encode_special_tokens();
        let normalizer = tok.get_normalizer();
        let mut patterns = Vec::new();
        let mut info = Vec::new();
        let mut blocks = Blocks::default();
        let mut decoder: Vec<_> = tok.get_added_tokens_decoder().into_iter().collect();
        decoder.sort_by_key(|(id, _)| *id);
        for (_, t) in decoder {
            if t.content.is_empty() {
                continue;
            }
            if t.normalized {
                let mut forms = vec![t.content.clone()];
                if let Some(n) = normalizer {
                    let mut ns = NormalizedString::from(t.content.as_str());
                    if n.normalize(&mut ns).is_ok() {
                        forms.push(ns.get().to_string());
                    }
                }
                for f in forms {
                    if f.contains([' ', '\u{2581}']) || f.chars().any(char::is_whitespace) {
                        blocks.before_space = true;
                    }
                    if f.contains('\n') {
                        blocks.after_newline = true;
                    }
                }
                continue;
            }
            let skipped = encode_special && t.special;
            patterns.push(t.content.clone());
            info.push(PatternInfo {
                exact: !(skipped || t.single_word || t.lstrip || t.rstrip),
                lstrip: t.lstrip,
                rstrip: t.rstrip,
            });
        }
        Self::from_parts(patterns, info, blocks)
    }

    /// From the contents, their `(exact, lstrip, rstrip)` flags and the blocked cut classes
    /// (`new`'s results; what the compact form keeps).
    pub(crate) fn from_parts(patterns: Vec<String>, info: Vec<PatternInfo>, blocks: Blocks) -> Result<Self, String> {
        let ac = if patterns.is_empty() {
            None
        } else {
            Some(
                AhoCorasickBuilder::new()
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(&patterns)
                    .map_err(|e| format!("cannot build the added-token matcher: {e}"))?,
            )
        };
        Ok(AddedMatcher { ac, patterns, info, blocks })
    }

    /// The matcher as JSON (the compact form, [`crate::compact`]).
    pub(crate) fn to_json(&self) -> serde_json::Value {
        let info: Vec<[bool; 3]> = self.info.iter().map(|i| [i.exact, i.lstrip, i.rstrip]).collect();
        serde_json::json!({
            "patterns": self.patterns,
            "info": info,
            "blocks": [self.blocks.before_space, self.blocks.after_newline],
        })
    }

    /// [`to_json`](Self::to_json) read back.
    pub(crate) fn from_json(v: &serde_json::Value) -> Result<Self, String> {
        let patterns: Vec<String> = serde_json::from_value(v["patterns"].clone()).map_err(|e| e.to_string())?;
        let info: Vec<[bool; 3]> = serde_json::from_value(v["info"].clone()).map_err(|e| e.to_string())?;
        let [before_space, after_newline]: [bool; 2] =
            serde_json::from_value(v["blocks"].clone()).map_err(|e| e.to_string())?;
        if info.len() != patterns.len() || patterns.iter().any(String::is_empty) {
            return Err("added-token patterns and flags do not match".into());
        }
        let info = info.into_iter().map(|[exact, lstrip, rstrip]| PatternInfo { exact, lstrip, rstrip }).collect();
        Self::from_parts(patterns, info, Blocks { before_space, after_newline })
    }

    /// Whether some added token is matched in a way this module only approximates.
    pub(crate) fn has_inexact(&self) -> bool {
        self.info.iter().any(|i| !i.exact)
    }

    /// Whether some zone may start before its match (an `lstrip` token takes in the
    /// whitespace before it).
    pub(crate) fn strips_left(&self) -> bool {
        self.info.iter().any(|i| i.lstrip)
    }

    /// The next zone whose match starts at or after `from` and before `until`, if any: only
    /// `text[from..until]` and the longest token's length beyond it are searched. It is the
    /// zone of the next match in the whole text when that starts before `until`: such a match
    /// lies whole in what is searched, so the leftmost (then longest) one is found there.
    pub(crate) fn next_zone_within(&self, text: &str, from: usize, until: usize) -> Option<Zone> {
        let ac = self.ac.as_ref()?;
        let end = until.saturating_add(ac.max_pattern_len()).min(text.len());
        let m = ac.find(Input::new(text).range(from..end)).filter(|m| m.start() < until)?;
        let info = self.info[m.pattern().as_usize()];
        if info.exact {
            return Some(Zone { start: m.start(), end: m.end(), kind: ZoneKind::Edge });
        }
        let bytes = text.as_bytes();
        let mut start = m.start();
        let mut end = m.end();
        if info.lstrip {
            let trimmed = text[..start].trim_end();
            start = trimmed.len();
        }
        if info.rstrip {
            end += text[end..].len() - text[end..].trim_start().len();
        }
        debug_assert!(start <= bytes.len() && end <= bytes.len());
        Some(Zone { start, end, kind: ZoneKind::Forbidden })
    }
}
