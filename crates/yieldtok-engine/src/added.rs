//! Added tokens (special and normal), as `tokenizers`' `AddedVocabulary` finds them: the ids
//! it assigns at load (the model's id when the content is in the vocabulary, else the next id
//! after it — the file's `id` is only a hint there too), then, per encode, the tokens that
//! are not `normalized` matched on the raw text and the `normalized` ones inside each
//! remaining segment after normalization — each set leftmost-longest, with the
//! `single_word`, `lstrip` and `rstrip` rules of `find_matches` (whose offsets an `rstrip`
//! may carry past the next match, as there).

use std::collections::HashMap;
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, MatchKind};

use crate::error::LoadError;

/// One entry of `added_tokens` in `tokenizer.json`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct AddedTokenJson {
    pub id: u32,
    pub content: String,
    #[serde(default)]
    pub single_word: bool,
    #[serde(default)]
    pub lstrip: bool,
    #[serde(default)]
    pub rstrip: bool,
    #[serde(default = "yes")]
    pub normalized: bool,
    #[serde(default)]
    pub special: bool,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Flags {
    single_word: bool,
    lstrip: bool,
    rstrip: bool,
}

/// A piece of a segment after matching added tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece {
    /// An added token (its id), covering `start..end`.
    Added { id: u32, start: u32, end: u32 },
    /// Text between added tokens.
    Text { start: u32, end: u32 },
}

/// One leftmost-longest matcher (the raw one or the normalized one).
pub struct Matcher {
    ac: AhoCorasick,
    ids: Vec<u32>,
    flags: Vec<Flags>,
    /// The patterns, for the cut planner and `describe`.
    patterns: Vec<String>,
}

/// The added vocabulary of a tokenizer (see the module docs).
pub struct AddedVocab {
    /// Tokens with `normalized: false`, matched on the raw text.
    pub raw: Option<Matcher>,
    /// Tokens with `normalized: true`, matched on each segment's normalized text.
    pub normalized: Option<Matcher>,
    /// Each added token's pattern (its content, normalized for a `normalized` token: what
    /// `tokenizers`' `id_to_token` gives), by id (sorted; see [`AddedVocab::entry`]).
    entries: Vec<(u32, Box<str>)>,
}

impl AddedVocab {
    /// `tokenizers`' `add_tokens` on the file's list: ids from the model's vocabulary
    /// (`model_id`) or counted up from its size, later entries overriding earlier ones.
    /// `normalize` gives the normalized form of a `normalized` token's content (the identity
    /// without a normalizer).
    pub fn new(
        tokens: &[AddedTokenJson],
        vocab_size: usize,
        model_id: impl Fn(&str) -> Option<u32>,
        normalize: impl Fn(&str) -> Result<String, LoadError>,
    ) -> Result<AddedVocab, LoadError> {
        let mut map: HashMap<&str, u32> = HashMap::new();
        let mut map_r: HashMap<u32, &AddedTokenJson> = HashMap::new();
        // `added_tokens_map_r` is empty before the first call: the next id is the vocab size.
        let mut next_id = vocab_size as u32;
        for t in tokens {
            if t.content.is_empty() {
                continue;
            }
            if let Some(id) = map.get(t.content.as_str()) {
                if map_r.get(id).is_some_and(|r| same_token(r, t)) {
                    continue;
                }
            }
            let id = match map.get(t.content.as_str()).copied().or_else(|| model_id(&t.content)) {
                Some(id) => id,
                None => {
                    let id = next_id;
                    next_id = next_id
                        .checked_add(1)
                        .filter(|&n| n <= crate::load::MAX_ID)
                        .ok_or_else(|| LoadError::Limit("too many added tokens".into()))?;
                    id
                }
            };
            map.insert(&t.content, id);
            map_r.insert(id, t);
        }
        let mut raw = Vec::new();
        let mut normalized = Vec::new();
        let mut entries: Vec<(&u32, &&AddedTokenJson)> = map_r.iter().collect();
        entries.sort_by_key(|e| *e.0);
        let mut patterns = Vec::with_capacity(entries.len());
        for (&id, &t) in entries {
            if t.normalized {
                let pattern = normalize(&t.content)?;
                patterns.push((id, pattern.as_str().into()));
                normalized.push((pattern, id, t));
            } else {
                patterns.push((id, t.content.as_str().into()));
                raw.push((t.content.clone(), id, t));
            }
        }
        Ok(AddedVocab { raw: Matcher::new(raw)?, normalized: Matcher::new(normalized)?, entries: patterns })
    }

    /// Added token `id`'s vocabulary entry, as `tokenizers`' `id_to_token` gives it: its
    /// content, normalized for a `normalized` token. `tokenizers` names a match by the text
    /// it covers (`Token::value`: the raw or normalized slice), which differs from the entry
    /// when an `lstrip`/`rstrip` token took whitespace in; the pipeline reports those names
    /// ([`crate::Tokens::values`]).
    pub fn entry(&self, id: u32) -> Option<&str> {
        self.entries.binary_search_by_key(&id, |(i, _)| *i).ok().map(|k| &*self.entries[k].1)
    }

    /// Contents of all added tokens that are matched (for tests and the cut planner).
    pub fn patterns(&self) -> impl Iterator<Item = &str> {
        self.raw.iter().chain(self.normalized.iter()).flat_map(|m| m.patterns.iter().map(String::as_str))
    }
}

/// `AddedToken`'s equality (all fields but the id).
fn same_token(a: &AddedTokenJson, b: &AddedTokenJson) -> bool {
    a.content == b.content
        && a.single_word == b.single_word
        && a.lstrip == b.lstrip
        && a.rstrip == b.rstrip
        && a.normalized == b.normalized
        && a.special == b.special
}

impl Matcher {
    fn new(list: Vec<(String, u32, &AddedTokenJson)>) -> Result<Option<Matcher>, LoadError> {
        if list.is_empty() {
            return Ok(None);
        }
        let mut seen = std::collections::HashSet::new();
        for (p, _, _) in &list {
            if !seen.insert(p.as_str()) {
                // daachorse refuses duplicate patterns, so `tokenizers` fails to load.
                return Err(LoadError::Unsupported(format!("added token {p:?} appears twice")));
            }
            if p.is_empty() {
                return Err(LoadError::Unsupported("an added token normalizes to nothing".into()));
            }
        }
        let patterns: Vec<String> = list.iter().map(|(p, _, _)| p.clone()).collect();
        let ac = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(&patterns)
            .map_err(|e| LoadError::Unsupported(format!("added tokens matcher: {e}")))?;
        Ok(Some(Matcher {
            ac,
            ids: list.iter().map(|(_, id, _)| *id).collect(),
            flags: list
                .iter()
                .map(|(_, _, t)| Flags { single_word: t.single_word, lstrip: t.lstrip, rstrip: t.rstrip })
                .collect(),
            patterns,
        }))
    }

    /// Append the pieces of `text` (at `base`) to `out`: `tokenizers`' `find_matches`
    /// (empty pieces left out, as its split drops them).
    pub fn split(&self, text: &str, base: u32, out: &mut Vec<Piece>) {
        let mut start_offset = 0usize;
        for m in self.ac.find_iter(text) {
            let (mut start, mut stop) = (m.start(), m.end());
            let p = m.pattern().as_usize();
            let flags = self.flags[p];
            if flags.single_word {
                let start_space = start == 0 || !ends_with_word(&text[..start]);
                let stop_space = stop == text.len() || !starts_with_word(&text[stop..]);
                if !stop_space || !start_space {
                    continue;
                }
            }
            if flags.lstrip {
                let new_start = text[..start].trim_end_matches(char::is_whitespace).len();
                start = new_start.max(start_offset);
            }
            if flags.rstrip {
                stop += text[stop..].len() - text[stop..].trim_start_matches(char::is_whitespace).len();
            }
            if start_offset < start {
                out.push(Piece::Text { start: base + start_offset as u32, end: base + start as u32 });
            }
            out.push(Piece::Added { id: self.ids[p], start: base + start as u32, end: base + stop as u32 });
            start_offset = stop;
        }
        if start_offset < text.len() {
            out.push(Piece::Text { start: base + start_offset as u32, end: base + text.len() as u32 });
        }
    }
}

/// `regex`'s `\w` (Unicode word chars), the class `tokenizers` tests `single_word` with.
fn word_char(c: char) -> bool {
    static WORD: OnceLock<fancy_regex::Regex> = OnceLock::new();
    let re = WORD.get_or_init(|| fancy_regex::Regex::new(r"^\w$").expect("static regex"));
    re.is_match(c.encode_utf8(&mut [0; 4])).unwrap_or(false)
}

fn ends_with_word(s: &str) -> bool {
    s.chars().next_back().is_some_and(word_char)
}

fn starts_with_word(s: &str) -> bool {
    s.chars().next().is_some_and(word_char)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tok(id: u32, content: &str) -> AddedTokenJson {
        AddedTokenJson {
            id,
            content: content.into(),
            single_word: false,
            lstrip: false,
            rstrip: false,
            normalized: false,
            special: true,
        }
    }

    fn pieces(m: &Matcher, text: &str) -> Vec<Piece> {
        let mut out = Vec::new();
        m.split(text, 0, &mut out);
        out
    }

    #[test]
    fn ids_as_tokenizers_assigns_them() {
        let toks = [tok(900, "<a>"), tok(901, "<b>"), tok(5, "known"), tok(902, "<a>")];
        let v = AddedVocab::new(&toks, 100, |s| (s == "known").then_some(7), |s| Ok(s.to_string())).unwrap();
        let m = v.raw.unwrap();
        // Not in the vocabulary: counted up from its size; "known" takes the model's id.
        let mut by_pattern: Vec<(String, u32)> = m.patterns.iter().cloned().zip(m.ids.iter().copied()).collect();
        by_pattern.sort();
        assert_eq!(by_pattern, [("<a>".into(), 100), ("<b>".into(), 101), ("known".into(), 7)]);
    }

    #[test]
    fn leftmost_longest_and_strip_flags() {
        let mut a = tok(0, "<x>");
        a.lstrip = true;
        a.rstrip = true;
        let b = tok(0, "<x><y>");
        let mut c = tok(0, "w");
        c.single_word = true;
        let v = AddedVocab::new(&[a, b, c], 10, |_| None, |s| Ok(s.to_string())).unwrap();
        let m = v.raw.unwrap();
        let id = |p: &str| m.ids[m.patterns.iter().position(|q| q == p).unwrap()];
        assert_eq!(
            pieces(&m, "a  <x>  b<x><y>c"),
            [
                Piece::Text { start: 0, end: 1 },
                Piece::Added { id: id("<x>"), start: 1, end: 8 },
                Piece::Text { start: 8, end: 9 },
                Piece::Added { id: id("<x><y>"), start: 9, end: 15 },
                Piece::Text { start: 15, end: 16 },
            ]
        );
        assert_eq!(
            pieces(&m, "aw w"),
            [Piece::Text { start: 0, end: 3 }, Piece::Added { id: id("w"), start: 3, end: 4 }]
        );
    }
}
