//! The ByteLevel pre-tokenizer, without a byte-level string. `tokenizers` maps every byte of a
//! split to a printable char (GPT-2's alphabet, [`BYTE_CHARS`]) and runs BPE over those chars;
//! each of them aligns to the whole original char its byte came from. The engine instead keys
//! the BPE vocabulary by raw bytes ([`decode_str`] at load) and runs the model over the split's
//! bytes; a token's offsets are its byte range widened to the enclosing char boundaries.
//!
//! Options: `use_regex` adds GPT-2's split regex as one more `Split` (Isolated);
//! `add_prefix_space` is refused (not reproduced yet); `trim_offsets` only matters to the
//! post-processor.

use serde_json::Value;

use super::split::Split;
use crate::error::LoadError;

/// The regex `tokenizers`' ByteLevel splits with when `use_regex` is on.
pub const GPT2_PATTERN: &str = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+";

/// The byte-level char of each byte (`tokenizers`' `bytes_char`): printable ASCII and
/// Latin-1 bytes map to themselves, the 68 others to U+0100.. in byte order.
pub const BYTE_CHARS: [char; 256] = byte_chars();

const fn byte_chars() -> [char; 256] {
    let mut out = ['\0'; 256];
    let mut n = 0u32;
    let mut b = 0usize;
    while b < 256 {
        let printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
        out[b] = if printable {
            match char::from_u32(b as u32) {
                Some(c) => c,
                None => '\0',
            }
        } else {
            let c = match char::from_u32(256 + n) {
                Some(c) => c,
                None => '\0',
            };
            n += 1;
            c
        };
        b += 1;
    }
    out
}

/// The byte a byte-level char stands for.
pub fn char_byte(c: char) -> Option<u8> {
    let u = c as u32;
    match u {
        0x21..=0x7E | 0xA1..=0xAC | 0xAE..=0xFF => Some(u as u8),
        0x100..=0x143 => Some(NON_PRINTABLE[(u - 0x100) as usize]),
        _ => None,
    }
}

/// Decode a byte-level string into the raw bytes it stands for (`false` when some char is
/// outside the alphabet: such a vocabulary entry can never be produced from text).
pub fn decode_str(s: &str, out: &mut Vec<u8>) -> bool {
    out.clear();
    for c in s.chars() {
        match char_byte(c) {
            Some(b) => out.push(b),
            None => return false,
        }
    }
    true
}

/// The non-printable bytes in order: U+0100 + k stands for `NON_PRINTABLE[k]`.
const NON_PRINTABLE: [u8; 68] = non_printable();

const fn non_printable() -> [u8; 68] {
    let mut out = [0u8; 68];
    let mut n = 0;
    let mut b = 0usize;
    while b < 256 {
        let printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
        if !printable {
            out[n] = b as u8;
            n += 1;
        }
        b += 1;
    }
    out
}

/// A ByteLevel step of the pre-tokenizer: the Split it implies, if any.
pub fn from_json(v: &Value) -> Result<Option<Split>, LoadError> {
    let flag = |k: &str, default: bool| v.get(k).and_then(Value::as_bool).unwrap_or(default);
    if flag("add_prefix_space", true) {
        return Err(LoadError::Unsupported("ByteLevel add_prefix_space".into()));
    }
    if flag("use_regex", true) {
        Ok(Some(Split::regex(GPT2_PATTERN, crate::normalized::SplitDelimiterBehavior::Isolated, false)?))
    } else {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alphabet_is_gpt2s() {
        assert_eq!(BYTE_CHARS[b'!' as usize], '!');
        assert_eq!(BYTE_CHARS[b' ' as usize], 'Ġ');
        assert_eq!(BYTE_CHARS[b'\n' as usize], 'Ċ');
        assert_eq!(BYTE_CHARS[0], 'Ā');
        assert_eq!(BYTE_CHARS[0xAD], 'Ń');
        let mut raw = Vec::new();
        for b in 0..=255u8 {
            assert_eq!(char_byte(BYTE_CHARS[b as usize]), Some(b));
            assert!(decode_str(&BYTE_CHARS[b as usize].to_string(), &mut raw));
            assert_eq!(raw, [b]);
        }
        assert!(!decode_str("a b", &mut raw));
        assert!(decode_str("ĠhelloĊ", &mut raw));
        assert_eq!(raw, b" hello\n");
    }
}
