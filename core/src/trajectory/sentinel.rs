//! The sentinel: ART's `max(set(range(tokenizer.vocab_size)) - set(original_token_ids))`, the
//! highest base-vocabulary id absent from the encoded chat.
//!
//! Computing it needs the ids of the whole chat — a second full encode per history, which is
//! most of what ART spends. A shortcut that is exact: for a byte-level BPE tokenizer (ByteLevel
//! pre-tokenizer without `add_prefix_space`, no normalizer or NFC), every base-vocabulary token
//! of an encoding is a byte substring of the text, once the text is in the normalizer's form
//! (NFC leaves it unchanged when it is already NFC, and substrings of an NFC string are NFC).
//! So if the top id's bytes do not occur in the chat (and it is not an added token), it is
//! absent and is the sentinel, with no encode. Otherwise the chat is encoded.

use serde_json::Value;

use crate::Tokenizer;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Norm {
    Identity,
    Nfc,
}

/// What the shortcut needs, derived once per tokenizer.
#[derive(Debug, Clone)]
pub(crate) struct SentinelFinder {
    /// Base vocabulary size (`vocab_size` without added tokens).
    pub vocab_size: u32,
    /// `(top id, its bytes, normalizer)` when the shortcut applies to this tokenizer.
    shortcut: Option<(u32, Vec<u8>, Norm)>,
}

impl SentinelFinder {
    pub fn new(tok: &Tokenizer) -> Self {
        let vocab_size = tok.vocab_size(false) as u32;
        SentinelFinder { vocab_size, shortcut: derive_shortcut(tok, vocab_size) }
    }

    /// Whether the shortcut is available for this tokenizer.
    pub fn has_shortcut(&self) -> bool {
        self.shortcut.is_some()
    }

    /// The sentinel if it can be decided from the text alone.
    pub fn shortcut(&self, tok: &Tokenizer, text: &str) -> Option<u32> {
        let (id, bytes, norm) = self.shortcut.as_ref()?;
        if norm_changes(tok, *norm, text) {
            return None;
        }
        if memchr::memmem::find(text.as_bytes(), bytes).is_some() {
            return None;
        }
        Some(*id)
    }

    /// The sentinel from the chat's ids (`None`: every base id occurs).
    pub fn highest_absent(&self, ids: &[u32]) -> Option<u32> {
        let n = self.vocab_size as usize;
        let mut seen = vec![0u64; n.div_ceil(64)];
        for &id in ids {
            let i = id as usize;
            if i < n {
                seen[i / 64] |= 1 << (i % 64);
            }
        }
        (0..n).rev().find(|&i| seen[i / 64] & (1 << (i % 64)) == 0).map(|i| i as u32)
    }
}

fn norm_changes(tok: &Tokenizer, norm: Norm, text: &str) -> bool {
    match norm {
        Norm::Identity => false,
        Norm::Nfc => {
            // ASCII, and texts whose NFC quick check says "yes" (the tables of the normalizer
            // `tokenizers` runs), are unchanged by NFC; only the rest needs the real check
            if text.is_ascii() {
                return false;
            }
            if unicode_normalization_alignments::is_nfc_quick(text.chars())
                == unicode_normalization_alignments::IsNormalized::Yes
            {
                return false;
            }
            let Some(n) = tok.hf().get_normalizer() else { return false };
            let mut s = tokenizers::NormalizedString::from(text);
            use tokenizers::Normalizer;
            if n.normalize(&mut s).is_err() {
                return true;
            }
            s.get() != text
        }
    }
}

fn derive_shortcut(tok: &Tokenizer, vocab_size: u32) -> Option<(u32, Vec<u8>, Norm)> {
    let hf = tok.hf();
    if !matches!(hf.get_model(), tokenizers::ModelWrapper::BPE(_)) {
        return None;
    }
    let norm = match hf.get_normalizer().map(serde_json::to_value) {
        None => Norm::Identity,
        Some(Ok(v)) => match v.get("type").and_then(Value::as_str) {
            Some("Sequence") if v.get("normalizers").and_then(Value::as_array).is_some_and(|a| a.is_empty()) => {
                Norm::Identity
            }
            Some("NFC") => Norm::Nfc,
            _ => return None,
        },
        Some(Err(_)) => return None,
    };
    let pre = serde_json::to_value(hf.get_pre_tokenizer()?).ok()?;
    let parts: Vec<&Value> = match pre.get("type").and_then(Value::as_str) {
        Some("Sequence") => pre.get("pretokenizers")?.as_array()?.iter().collect(),
        _ => vec![&pre],
    };
    let mut byte_level = false;
    for p in parts {
        match p.get("type").and_then(Value::as_str) {
            Some("ByteLevel") => {
                if p.get("add_prefix_space").and_then(Value::as_bool) != Some(false) {
                    return None;
                }
                byte_level = true;
            }
            Some("Split" | "Digits" | "Punctuation" | "WhitespaceSplit") => {}
            _ => return None,
        }
    }
    if !byte_level || vocab_size == 0 {
        return None;
    }
    let top = vocab_size - 1;
    if hf.get_added_tokens_decoder().contains_key(&top) {
        return None;
    }
    let bytes = byte_level_bytes(&tok.id_to_token(top)?)?;
    if bytes.is_empty() {
        return None;
    }
    Some((top, bytes, norm))
}

/// The bytes of a byte-level token string (GPT-2's `bytes_to_unicode` inverted).
fn byte_level_bytes(token: &str) -> Option<Vec<u8>> {
    let mut table = [u32::MAX; 512];
    let mut n = 0u32;
    for b in 0..=255u32 {
        let printable =
            (b'!' as u32..=b'~' as u32).contains(&b) || (0xA1..=0xAC).contains(&b) || (0xAE..=0xFF).contains(&b);
        let c = if printable {
            b
        } else {
            n += 1;
            255 + n
        };
        table[c as usize] = b;
    }
    token.chars().map(|c| table.get(c as usize).copied().filter(|&b| b != u32::MAX).map(|b| b as u8)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_level_table() {
        assert_eq!(byte_level_bytes("Ġhello").unwrap(), b" hello");
        assert_eq!(byte_level_bytes("Ċ").unwrap(), b"\n");
        assert_eq!(byte_level_bytes("é").unwrap(), vec![0xE9]);
        assert!(byte_level_bytes("⽗").is_none());
    }

    #[test]
    fn highest_absent_id() {
        let f = SentinelFinder { vocab_size: 130, shortcut: None };
        assert_eq!(f.highest_absent(&[129, 128, 5, 1000]), Some(127));
        assert_eq!(f.highest_absent(&[]), Some(129));
        let all: Vec<u32> = (0..130).collect();
        assert_eq!(f.highest_absent(&all), None);
    }
}
