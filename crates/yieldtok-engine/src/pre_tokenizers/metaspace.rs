//! `Metaspace`: every `' '` replaced by the replacement char (`▁`), the replacement prepended
//! to a split per `prepend_scheme` (`always`; `first`: only to the split at offset 0 of the
//! text; `never`), then, with `split`, each split cut before every replacement char
//! (MergedWithNext). The replacements align with the space they replace, the prepended one
//! with the split's first char — `tokenizers`' `Metaspace` rule for rule.

use super::char_split::parse;
use super::{split_each, PreTokenize, Splits};
use crate::error::{EncodeError, LoadError};
use crate::normalized::{find_matches_char, Normalized, SplitDelimiterBehavior};

/// When the replacement is prepended to a split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrependScheme {
    First,
    Never,
    Always,
}

/// `tokenizers`' `Metaspace` pre-tokenizer.
#[derive(Debug, Clone)]
pub struct Metaspace {
    pub replacement: char,
    pub prepend_scheme: PrependScheme,
    pub split: bool,
    rep: String,
}

#[derive(serde::Deserialize)]
struct MetaspaceJson {
    replacement: char,
    add_prefix_space: Option<bool>,
    prepend_scheme: Option<PrependScheme>,
    split: Option<bool>,
}

impl Metaspace {
    pub fn new(replacement: char, prepend_scheme: PrependScheme, split: bool) -> Self {
        Metaspace { replacement, prepend_scheme, split, rep: replacement.to_string() }
    }

    /// From a `tokenizer.json` `Metaspace` (defaults: `prepend_scheme` always, `split` true; a
    /// legacy `add_prefix_space: false` means never, and is refused beside another scheme, as
    /// `tokenizers` refuses it).
    pub fn from_json(v: &serde_json::Value) -> Result<Self, LoadError> {
        let j: MetaspaceJson = parse(v)?;
        let mut scheme = j.prepend_scheme.unwrap_or(PrependScheme::Always);
        if j.add_prefix_space == Some(false) {
            if scheme != PrependScheme::Never {
                return Err(LoadError::Unsupported("Metaspace: add_prefix_space does not match prepend_scheme".into()));
            }
            scheme = PrependScheme::Never;
        }
        Ok(Self::new(j.replacement, scheme, j.split.unwrap_or(true)))
    }

    /// The same pre-tokenizer for the first segment of a continuation piece: it never prepends.
    pub fn continuation(&self) -> Metaspace {
        Metaspace { prepend_scheme: PrependScheme::Never, ..self.clone() }
    }

    /// The replacement as a string.
    pub fn replacement_str(&self) -> &str {
        &self.rep
    }
}

impl Metaspace {
    /// The pre-tokens of one split `n`: spaces replaced, the replacement prepended per the
    /// scheme (`at_text_start`: the split starts at offset 0 of the encoded text, which
    /// `first` asks; `continuation`: the first segment of a continuation piece, which never
    /// prepends), then cut before each replacement when `split`. Empty pre-tokens are dropped.
    pub fn transform(&self, mut n: Normalized, at_text_start: bool, continuation: bool) -> Vec<Normalized> {
        if n.get().contains(' ') {
            let matches = find_matches_char(n.get(), |c| c == ' ');
            n.replace_matches(&matches, &self.rep);
        }
        let prepend = !continuation
            && match self.prepend_scheme {
                PrependScheme::Always => !n.get().starts_with(self.replacement),
                PrependScheme::First => !n.get().starts_with(self.replacement) && at_text_start,
                PrependScheme::Never => false,
            };
        if prepend {
            n.prepend(&self.rep);
        }
        let mut out = if self.split {
            let r = self.replacement;
            n.split_by(|c| c == r, SplitDelimiterBehavior::MergedWithNext)
        } else {
            vec![n]
        };
        out.retain(|s| !s.get().is_empty());
        out
    }
}

/// How the bytes of one fast-path pre-token map back to its part: a leading replacement
/// (`lead_len` bytes, from `lead_src` — the space it replaced, a replacement char of the
/// text, or for the prepended one the part's first char), then bytes copied from `rest_src` on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetaMap {
    pub lead_len: u32,
    pub lead_src: (u32, u32),
    pub rest_src: u32,
}

impl MetaMap {
    /// The part's byte range of the pre-token's bytes `start..end` (non-empty) — what the
    /// general path's alignments give (first byte's start, last byte's end).
    #[inline]
    pub fn map(&self, start: u32, end: u32) -> (u32, u32) {
        let a = if start < self.lead_len { self.lead_src.0 } else { self.rest_src + start - self.lead_len };
        let b = if end <= self.lead_len { self.lead_src.1 } else { self.rest_src + end - self.lead_len };
        (a, b)
    }
}

impl Metaspace {
    /// The fast path of [`transform`](Self::transform) for `split: true` on an unnormalized
    /// part (identity alignments): calls `f` with each pre-token's text (built in `buf`) and
    /// its [`MetaMap`]. Returns `false` (calling nothing) when `split` is off.
    pub fn pre_tokens<E>(
        &self,
        part: &str,
        at_text_start: bool,
        continuation: bool,
        buf: &mut String,
        mut f: impl FnMut(&str, &MetaMap) -> Result<(), E>,
    ) -> Result<bool, E> {
        if !self.split {
            return Ok(false);
        }
        if part.is_empty() {
            return Ok(true);
        }
        let r = self.replacement;
        let rlen = r.len_utf8() as u32;
        let is_lead = |c: char| c == ' ' || c == r;
        let first = part.chars().next().expect("non-empty");
        let prepend = !continuation
            && !is_lead(first)
            && match self.prepend_scheme {
                PrependScheme::Always => true,
                PrependScheme::First => at_text_start,
                PrependScheme::Never => false,
            };
        // The pre-token before the first lead char: prepended, or a bare run.
        let mut leads = part.char_indices().filter(|&(_, c)| is_lead(c)).peekable();
        let first_end = leads.peek().map_or(part.len(), |&(p, _)| p);
        if first_end > 0 {
            buf.clear();
            let map = if prepend {
                buf.push(r);
                MetaMap { lead_len: rlen, lead_src: (0, first.len_utf8() as u32), rest_src: 0 }
            } else {
                MetaMap { lead_len: 0, lead_src: (0, 0), rest_src: 0 }
            };
            buf.push_str(&part[..first_end]);
            f(buf, &map)?;
        }
        while let Some((p, c)) = leads.next() {
            let src_len = c.len_utf8();
            let end = leads.peek().map_or(part.len(), |&(q, _)| q);
            buf.clear();
            buf.push(r);
            buf.push_str(&part[p + src_len..end]);
            let map =
                MetaMap { lead_len: rlen, lead_src: (p as u32, (p + src_len) as u32), rest_src: (p + src_len) as u32 };
            f(buf, &map)?;
        }
        Ok(true)
    }
}

impl PreTokenize for Metaspace {
    fn pre_tokenize(&self, splits: &mut Splits) -> Result<(), EncodeError> {
        split_each(splits, |_, n| {
            let at_start = n.original_shift == 0;
            Ok(self.transform(n, at_start, false))
        })
    }
}
