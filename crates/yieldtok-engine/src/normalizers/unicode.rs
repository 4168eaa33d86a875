//! NFC, NFD, NFKC, NFKD with `tokenizers`' own Unicode tables and alignments: the
//! `unicode-normalization-alignments` crate (Unicode 9.0) that `tokenizers` 0.23.2 calls, so
//! the forms agree by construction. A quick check that says "normalized" skips the work.

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

    fn is_identity_on(&self, text: &str) -> bool {
        if text.is_ascii() {
            return true;
        }
        let chars = text.chars();
        let quick = match self.0 {
            UnicodeForm::Nfc => is_nfc_quick(chars),
            UnicodeForm::Nfd => is_nfd_quick(chars),
            UnicodeForm::Nfkc => is_nfkc_quick(chars),
            UnicodeForm::Nfkd => is_nfkd_quick(chars),
        };
        quick == IsNormalized::Yes
    }
}
