//! NFC, NFD, NFKC, NFKD with `tokenizers`' own Unicode tables and alignments: the
//! `unicode-normalization-alignments` crate (Unicode 9.0) that `tokenizers` 0.23.2 calls, so
//! the forms agree by construction. A quick check that says "normalized" skips the work.
//!
//! The quick check skips ASCII: runs of ASCII bytes are passed over eight bytes at a time
//! ([`skip_ascii`]) and only the maximal non-ASCII runs go through the crate's char-by-char
//! check. This is the check of the whole text: an ASCII char is a starter (combining class 0)
//! and "Yes" in every form, and the check's state after it — the last combining class (0) and
//! the count of non-starters (0) — is its state at the start of a text. So the check of the
//! whole is "Yes" exactly when every non-ASCII run's own check is "Yes"; a combining mark right
//! after an ASCII char (`e` + U+0301) starts its run and is judged there as after any starter
//! (`tests::ascii_skip_equals_the_whole_check`).

use super::Normalize;
use crate::error::EncodeError;
use crate::normalized::Normalized;
use unicode_normalization_alignments::{is_nfc_quick, is_nfd_quick, is_nfkc_quick, is_nfkd_quick};
use unicode_normalization_alignments::{IsNormalized, UnicodeNormalization};

/// One of the four Unicode normalization forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnicodeForm {
    Nfc,
    Nfd,
    Nfkc,
    Nfkd,
}

/// `tokenizers`' `NFC` / `NFD` / `NFKC` / `NFKD` normalizers.
pub struct UnicodeNormalizer(pub UnicodeForm);

impl UnicodeNormalizer {
    /// The crate's quick check of `text` (char by char), unskipped.
    fn quick(&self, text: &str) -> IsNormalized {
        let chars = text.chars();
        match self.0 {
            UnicodeForm::Nfc => is_nfc_quick(chars),
            UnicodeForm::Nfd => is_nfd_quick(chars),
            UnicodeForm::Nfkc => is_nfkc_quick(chars),
            UnicodeForm::Nfkd => is_nfkd_quick(chars),
        }
    }
}

impl Normalize for UnicodeNormalizer {
    fn normalize(&self, n: &mut Normalized) -> Result<(), EncodeError> {
        if self.is_identity_on(n.get()) {
            return Ok(());
        }
        let text = n.normalized.clone(); // the transform reads the current text too
        let chars = text.chars();
        match self.0 {
            UnicodeForm::Nfc => n.transform(chars.nfc(), 0),
            UnicodeForm::Nfd => n.transform(chars.nfd(), 0),
            UnicodeForm::Nfkc => n.transform(chars.nfkc(), 0),
            UnicodeForm::Nfkd => n.transform(chars.nfkd(), 0),
        }
        Ok(())
    }

    /// The quick check says "Yes" on every maximal non-ASCII run (module docs: that is the
    /// check of the whole text).
    fn is_identity_on(&self, text: &str) -> bool {
        let b = text.as_bytes();
        let mut i = skip_ascii(b, 0);
        while i < b.len() {
            let end = skip_non_ascii(b, i);
            // `i` follows an ASCII byte (or is 0) and `end` is an ASCII byte (or the end): both
            // are char boundaries.
            if self.quick(&text[i..end]) != IsNormalized::Yes {
                return false;
            }
            i = skip_ascii(b, end);
        }
        true
    }
}

const HI: u64 = 0x8080_8080_8080_8080;

#[inline(always)]
fn word_at(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[i..i + 8].try_into().unwrap())
}

/// The first `j >= i` with `b[j] >= 0x80` (a non-ASCII byte), or `b.len()`: 16 then 8 bytes at
/// a time (SWAR on `u64`, the same code on every target), then byte by byte.
#[inline]
pub(crate) fn skip_ascii(b: &[u8], mut i: usize) -> usize {
    while i + 16 <= b.len() {
        let (x, y) = (word_at(b, i) & HI, word_at(b, i + 8) & HI);
        if x | y != 0 {
            return if x != 0 {
                i + (x.trailing_zeros() / 8) as usize
            } else {
                i + 8 + (y.trailing_zeros() / 8) as usize
            };
        }
        i += 16;
    }
    if i + 8 <= b.len() {
        let x = word_at(b, i) & HI;
        if x != 0 {
            return i + (x.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && b[i] < 0x80 {
        i += 1;
    }
    i
}

/// The first `j >= i` with `b[j] < 0x80` (an ASCII byte), or `b.len()`: 8 bytes at a time.
#[inline]
pub(crate) fn skip_non_ascii(b: &[u8], mut i: usize) -> usize {
    while i + 8 <= b.len() {
        let x = !word_at(b, i) & HI;
        if x != 0 {
            return i + (x.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && b[i] >= 0x80 {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const FORMS: [UnicodeForm; 4] = [UnicodeForm::Nfc, UnicodeForm::Nfd, UnicodeForm::Nfkc, UnicodeForm::Nfkd];

    /// The skipping check against the crate's quick check of the whole text, and against the
    /// normalization itself where the skip says "identity".
    fn check(text: &str) {
        for form in FORMS {
            let n = UnicodeNormalizer(form);
            let whole = n.quick(text) == IsNormalized::Yes;
            assert_eq!(n.is_identity_on(text), whole, "{form:?} on {text:?}");
            if whole {
                let c = text.chars();
                let normal: String = match form {
                    UnicodeForm::Nfc => c.nfc().map(|(c, _)| c).collect(),
                    UnicodeForm::Nfd => c.nfd().map(|(c, _)| c).collect(),
                    UnicodeForm::Nfkc => c.nfkc().map(|(c, _)| c).collect(),
                    UnicodeForm::Nfkd => c.nfkd().map(|(c, _)| c).collect(),
                };
                assert_eq!(normal, text, "{form:?} said identity on {text:?}");
            }
        }
    }

    #[test]
    fn ascii_then_combining_mark_at_every_block_offset() {
        // A combining mark (or a reordering pair, a composing jamo, a compatibility char) right
        // after ASCII, at every offset of the 8- and 16-byte blocks and across their edges.
        let marks = [
            "\u{0301}",         // NFC Maybe, NFD Yes: `e` + U+0301 composes
            "\u{0338}",         // `<` + U+0338 composes to U+226E
            "\u{0323}\u{0301}", // in order (220 < 230)
            "\u{0301}\u{0323}", // out of order: No in every form
            "\u{0316}\u{0300}", // 220, 230
            "\u{1161}",         // Hangul V after ASCII (Maybe in NFC)
            "\u{1100}\u{1161}", // L + V: composes
            "\u{AC00}\u{11A8}", // LV + T: composes
            "\u{00E9}",         // precomposed: No in NFD/NFKD
            "\u{FB01}",         // ﬁ: No in NFKC/NFKD
            "\u{2126}",         // Ω (ohm): a singleton, No in every form
            "\u{0B47}\u{0B3E}", // Oriya two-starter composition
            "\u{4E2D}\u{6587}", // CJK: Yes
            "\u{1F600}",        // emoji: Yes
        ];
        for m in marks {
            for pre in 0..40 {
                for post in ["", "x", "abcdefghijklmnopq", "\u{0301}", " \u{0301}"] {
                    let ascii: String = (0..pre).map(|k| (b'a' + (k % 26) as u8) as char).collect();
                    check(&format!("{ascii}{m}{post}"));
                    check(&format!("\u{4E2D}{ascii}{m}{post}"));
                    check(&format!("{m}{ascii}{m}{post}"));
                }
            }
        }
    }

    #[test]
    fn skips_find_the_first_byte_of_the_other_kind() {
        for len in 0..40 {
            for at in 0..=len {
                let mut b = vec![b'a'; len];
                if at < len {
                    b[at] = 0xC3;
                }
                assert_eq!(skip_ascii(&b, 0), at, "len {len} at {at}");
                let mut c = vec![0x80u8; len];
                if at < len {
                    c[at] = b'a';
                }
                assert_eq!(skip_non_ascii(&c, 0), at, "len {len} at {at}");
                for from in 0..=len {
                    assert_eq!(skip_ascii(&b, from), if from <= at { at } else { len });
                }
            }
        }
    }

    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z <]{0,20}".prop_map(String::from),
            Just("e\u{0301}".to_string()),
            Just("\u{0301}".to_string()),
            Just("\u{0323}".to_string()),
            Just("\u{0300}\u{0316}".to_string()),
            Just("\u{1100}".to_string()),
            Just("\u{1161}".to_string()),
            Just("\u{11A8}".to_string()),
            Just("\u{AC00}".to_string()),
            Just("\u{00E9}".to_string()),
            Just("\u{FB01}".to_string()),
            Just("\u{FF21}".to_string()),
            Just("\u{2126}".to_string()),
            Just("\u{0B47}\u{0B3E}".to_string()),
            Just("\u{0CC6}\u{0CC2}\u{0CD5}".to_string()),
            Just("\u{4E2D}\u{6587}".to_string()),
            Just("\u{1F44D}\u{1F3FD}".to_string()),
            Just("\u{00A0}".to_string()),
            Just("\u{0338}".to_string()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn ascii_skip_equals_the_whole_check(parts in proptest::collection::vec(piece(), 0..12)) {
            check(&parts.concat());
        }
    }
}
