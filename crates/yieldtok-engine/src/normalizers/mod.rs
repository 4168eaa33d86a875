//! Normalizers: NFC, NFD, NFKC, NFKD, Replace, Prepend, Lowercase, Strip, StripAccents,
//! BertNormalizer, Precompiled, ByteLevel, Sequence — each a transform of a
//! [`Normalized`](crate::normalized::Normalized) string with `tokenizers`' exact alignments —
//! and the dispatcher [`from_json`] that builds them from a `tokenizer.json`'s `normalizer`.

mod bert;
mod byte_level;
mod lowercase;
mod precompiled;
mod prepend;
mod replace;
mod strip;
pub(crate) mod unicode;

pub use bert::BertNormalizer;
pub(crate) use bert::Categories;
pub use byte_level::ByteLevel;
pub use lowercase::Lowercase;
pub use precompiled::Precompiled;
pub use prepend::Prepend;
pub use replace::Replace;
pub use strip::{Strip, StripAccents};
pub use unicode::{UnicodeForm, UnicodeNormalizer};

use crate::error::{EncodeError, LoadError};
use crate::normalized::Normalized;
use serde_json::Value;

/// One normalizer step (or a sequence of them).
pub trait Normalize: Send + Sync {
    /// Normalize in place, keeping the alignments exact.
    fn normalize(&self, n: &mut Normalized) -> Result<(), EncodeError>;

    /// `true` when normalizing `text` would change nothing (e.g. an NFC quick check that
    /// passes): the engine then skips building a [`Normalized`] for it. `false` is always safe.
    fn is_identity_on(&self, text: &str) -> bool {
        let _ = text;
        false
    }
}

/// Several normalizers, run in order on the same string (`tokenizers`' `Sequence`).
pub struct Sequence(pub Vec<Box<dyn Normalize>>);

impl Normalize for Sequence {
    fn normalize(&self, n: &mut Normalized) -> Result<(), EncodeError> {
        self.0.iter().try_for_each(|s| s.normalize(n))
    }

    /// Each step is the identity on the text the previous ones leave, which is `text` itself.
    fn is_identity_on(&self, text: &str) -> bool {
        self.0.iter().all(|s| s.is_identity_on(text))
    }
}

/// The normalizer of a `tokenizer.json` (its `"normalizer"` value): `None` for `null` or a
/// `Sequence` with nothing in it; [`LoadError::Unsupported`] for a normalizer the engine does
/// not implement, [`LoadError::Malformed`] for one whose fields have the wrong shape.
pub fn from_json(v: &Value) -> Result<Option<Box<dyn Normalize>>, LoadError> {
    build(v, false)
}

/// [`from_json`] for the first segment of a continuation piece (`PieceOptions::continuation`):
/// the same normalizer without its `Prepend` steps, which only act at the start of a segment.
pub fn from_json_continuation(v: &Value) -> Result<Option<Box<dyn Normalize>>, LoadError> {
    build(v, true)
}

/// Whether the normalizer has a `Prepend` step (so a continuation piece needs
/// [`from_json_continuation`]).
pub fn has_prepend(v: &Value) -> bool {
    match type_of(v) {
        Some("Prepend") => true,
        Some("Sequence") => v.get("normalizers").and_then(Value::as_array).is_some_and(|s| s.iter().any(has_prepend)),
        _ => false,
    }
}

fn type_of(v: &Value) -> Option<&str> {
    v.get("type").and_then(Value::as_str)
}

pub(crate) fn parse<T: serde::de::DeserializeOwned>(v: &Value) -> Result<T, LoadError> {
    T::deserialize(v).map_err(LoadError::Malformed)
}

fn build(v: &Value, skip_prepend: bool) -> Result<Option<Box<dyn Normalize>>, LoadError> {
    if v.is_null() {
        return Ok(None);
    }
    let Some(ty) = type_of(v) else {
        return Err(LoadError::Unsupported(format!("a normalizer without a \"type\": {}", short(v))));
    };
    let n: Box<dyn Normalize> = match ty {
        "Sequence" => {
            let Some(items) = v.get("normalizers").and_then(Value::as_array) else {
                return Err(LoadError::Unsupported("a normalizer Sequence without a \"normalizers\" list".into()));
            };
            let mut steps = Vec::with_capacity(items.len());
            for item in items {
                steps.extend(build(item, skip_prepend)?);
            }
            match steps.len() {
                0 => return Ok(None),
                1 => steps.pop().expect("one step"),
                _ => Box::new(Sequence(steps)),
            }
        }
        "NFC" => Box::new(UnicodeNormalizer(UnicodeForm::Nfc)),
        "NFD" => Box::new(UnicodeNormalizer(UnicodeForm::Nfd)),
        "NFKC" => Box::new(UnicodeNormalizer(UnicodeForm::Nfkc)),
        "NFKD" => Box::new(UnicodeNormalizer(UnicodeForm::Nfkd)),
        "Lowercase" => Box::new(Lowercase),
        "StripAccents" => Box::new(StripAccents),
        "Strip" => Box::new(Strip::from_json(v)?),
        "BertNormalizer" => Box::new(BertNormalizer::from_json(v)?),
        "Precompiled" => Box::new(Precompiled::from_json(v)?),
        "ByteLevel" => Box::new(ByteLevel),
        "Replace" => Box::new(Replace::from_json(v)?),
        "Prepend" if skip_prepend => return Ok(None),
        "Prepend" => Box::new(Prepend::from_json(v)?),
        other => return Err(LoadError::Unsupported(format!("normalizer {other}"))),
    };
    Ok(Some(n))
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}
