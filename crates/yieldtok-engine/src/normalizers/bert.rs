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
    !matches!(c, '\t' | '\n' | '\r') && c.is_other()
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

impl Normalize for BertNormalizer {
    fn normalize(&self, n: &mut Normalized) -> Result<(), EncodeError> {
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
            n.filter(|c| !c.is_mark_nonspacing());
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
