//! `BertNormalizer`: BERT's basic cleaning (control chars removed, whitespace to `' '`), spaces
//! around CJK ideographs, accents stripped (NFD, then nonspacing marks removed) and lowercase —
//! each step exactly as `tokenizers` runs it, with the Unicode category tables it uses
//! (`unicode_categories` 0.1.1).

use super::unicode::{UnicodeForm, UnicodeNormalizer};
use super::{parse, Normalize};
use crate::error::{EncodeError, LoadError};
use crate::normalized::Normalized;
use unicode_categories::UnicodeCategories;

/// `tokenizers`' `BertNormalizer`.
#[derive(Debug, Clone, Copy, serde::Deserialize)]
pub struct BertNormalizer {
    #[serde(default = "yes")]
    pub clean_text: bool,
    #[serde(default = "yes")]
    pub handle_chinese_chars: bool,
    #[serde(default)]
    pub strip_accents: Option<bool>,
    #[serde(default = "yes")]
    pub lowercase: bool,
}

fn yes() -> bool {
    true
}

/// BERT's whitespace: `\t`, `\n`, `\r` and `char::is_whitespace`.
pub fn is_bert_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || c.is_whitespace()
}

/// BERT's control chars: categories Cc, Cf, Co except `\t`, `\n`, `\r`.
pub fn is_bert_control(c: char) -> bool {
    if c.is_ascii() {
        return (c < ' ' && !matches!(c, '\t' | '\n' | '\r')) || c == '\x7f';
    }
    c.is_other()
}

/// Nonspacing marks (Mn), with an ASCII shortcut.
fn is_mn(c: char) -> bool {
    !c.is_ascii() && c.is_mark_nonspacing()
}

/// A memo of the Unicode category lookups of non-ASCII chars (each a binary search over
/// `unicode_categories`' lists of chars), direct-mapped over 1024 entries, for one pass.
pub(crate) struct Categories {
    keys: [u32; 1024],
    flags: [u8; 1024],
}

impl Categories {
    /// Cc / Cf / Co (`is_other`).
    pub const CONTROL: u8 = 1;
    /// Mn.
    pub const MN: u8 = 2;
    /// P* (`is_punctuation`).
    pub const PUNCT: u8 = 4;

    pub fn new() -> Self {
        Categories { keys: [u32::MAX; 1024], flags: [0; 1024] }
    }

    #[inline]
    pub fn get(&mut self, c: char) -> u8 {
        let u = c as u32;
        let i = ((u ^ (u >> 10)) & 1023) as usize;
        if self.keys[i] == u {
            return self.flags[i];
        }
        let f = if c.is_other() { Self::CONTROL } else { 0 }
            | if c.is_mark_nonspacing() { Self::MN } else { 0 }
            | if c.is_punctuation() { Self::PUNCT } else { 0 };
        self.keys[i] = u;
        self.flags[i] = f;
        f
    }
}

/// The CJK ideograph blocks BERT puts spaces around.
pub fn is_chinese_char(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F | 0x2B740..=0x2B81F
        | 0x2B920..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

impl BertNormalizer {
    pub(crate) fn from_json(v: &serde_json::Value) -> Result<Self, LoadError> {
        parse(v)
    }

    fn strip_accents(&self) -> bool {
        self.strip_accents.unwrap_or(self.lowercase)
    }
}

impl BertNormalizer {
    /// All steps in one pass over the chars. Each step is char-local (every output char aligns
    /// with the char it came from), except NFD's canonical reordering, which moves marks while
    /// `tokenizers`' transform assigns alignments by position: so when the decomposed stream
    /// has a run of non-starters out of order, this gives up (`false`, `n` untouched) and the
    /// steps run one by one.
    fn fused(&self, n: &mut Normalized) -> bool {
        let src = n.get();
        let mut text = String::with_capacity(src.len());
        let mut aligns = Vec::with_capacity(n.alignments.len());
        let strip = self.strip_accents();
        let mut last_ccc = 0u8;
        let mut reordered = false;
        let mut cats = Categories::new();
        let mut emit =
            |x: char, a: (u32, u32), cats: &mut Categories, text: &mut String, aligns: &mut Vec<(u32, u32)>| {
                let mut push = |y: char| {
                    if self.lowercase {
                        for l in y.to_lowercase() {
                            text.push(l);
                            aligns.extend(std::iter::repeat_n(a, l.len_utf8()));
                        }
                    } else {
                        text.push(y);
                        aligns.extend(std::iter::repeat_n(a, y.len_utf8()));
                    }
                };
                if !strip {
                    push(x);
                } else if x.is_ascii() {
                    last_ccc = 0;
                    push(x);
                } else {
                    unicode_normalization_alignments::char::decompose_canonical(x, |d| {
                        let ccc = unicode_normalization_alignments::char::canonical_combining_class(d);
                        if ccc != 0 && last_ccc > ccc {
                            reordered = true;
                        }
                        last_ccc = ccc;
                        if d.is_ascii() || cats.get(d) & Categories::MN == 0 {
                            push(d);
                        }
                    });
                }
            };
        for (i, c) in src.char_indices() {
            let a = n.alignments[i];
            let c = if self.clean_text {
                let control = if c.is_ascii() { is_bert_control(c) } else { cats.get(c) & Categories::CONTROL != 0 };
                if c == '\0' || c == '\u{fffd}' || control {
                    continue;
                }
                if is_bert_whitespace(c) {
                    ' '
                } else {
                    c
                }
            } else {
                c
            };
            if self.handle_chinese_chars && is_chinese_char(c) {
                emit(' ', a, &mut cats, &mut text, &mut aligns);
                emit(c, a, &mut cats, &mut text, &mut aligns);
                emit(' ', a, &mut cats, &mut text, &mut aligns);
            } else {
                emit(c, a, &mut cats, &mut text, &mut aligns);
            }
        }
        if reordered {
            return false;
        }
        n.normalized = text;
        n.alignments = aligns;
        true
    }
}

impl Normalize for BertNormalizer {
    fn normalize(&self, n: &mut Normalized) -> Result<(), EncodeError> {
        if self.fused(n) {
            return Ok(());
        }
        if self.clean_text {
            n.filter(|c| !(c == '\0' || c == '\u{fffd}' || is_bert_control(c)));
            n.map(|c| if is_bert_whitespace(c) { ' ' } else { c });
        }
        if self.handle_chinese_chars && n.get().chars().any(is_chinese_char) {
            let mut t: Vec<(char, isize)> = Vec::with_capacity(n.get().len() + 16);
            for c in n.get().chars() {
                if is_chinese_char(c) {
                    t.extend([(' ', 0), (c, 1), (' ', 1)]);
                } else {
                    t.push((c, 0));
                }
            }
            n.transform(t, 0);
        }
        if self.strip_accents() {
            UnicodeNormalizer(UnicodeForm::Nfd).normalize(n)?;
            n.filter(|c| !is_mn(c));
        }
        if self.lowercase {
            n.lowercase();
        }
        Ok(())
    }

    /// ASCII without control chars (when cleaning) and without capitals (when lowercasing):
    /// every step leaves it as it is.
    fn is_identity_on(&self, text: &str) -> bool {
        text.is_ascii()
            && text
                .bytes()
                .all(|b| !(self.clean_text && (b < 0x20 || b == 0x7f)) && !(self.lowercase && b.is_ascii_uppercase()))
    }
}
