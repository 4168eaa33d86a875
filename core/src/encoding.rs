//! The result of an encode: ids with their byte offsets into the input, the attention mask,
//! the special-tokens mask and type ids — the fields of `tokenizers::Encoding` that a chunked
//! encode reproduces exactly. Char offsets are derived on demand.

/// An encoded text. `offsets[i]` is the byte range of the input that token `i` came from
/// (`(0, 0)` for special tokens added by the post-processor).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Encoding {
    pub ids: Vec<u32>,
    pub offsets: Vec<(usize, usize)>,
    pub type_ids: Vec<u32>,
    pub special_tokens_mask: Vec<u32>,
    pub attention_mask: Vec<u32>,
}

impl From<tokenizers::Encoding> for Encoding {
    fn from(enc: tokenizers::Encoding) -> Self {
        Encoding {
            ids: enc.get_ids().to_vec(),
            offsets: enc.get_offsets().to_vec(),
            type_ids: enc.get_type_ids().to_vec(),
            special_tokens_mask: enc.get_special_tokens_mask().to_vec(),
            attention_mask: enc.get_attention_mask().to_vec(),
        }
    }
}

impl Encoding {

    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Offsets in chars (Unicode scalar values) instead of bytes, for the `text` that was
    /// encoded — what Python's `tokenizers` reports. One pass over the text.
    pub fn char_offsets(&self, text: &str) -> Vec<(usize, usize)> {
        byte_to_char_offsets(text, &self.offsets)
    }

    /// Offsets in UTF-16 code units (JavaScript string indices) for the `text` that was encoded.
    pub fn utf16_offsets(&self, text: &str) -> Vec<(usize, usize)> {
        byte_to_utf16_offsets(text, &self.offsets)
    }
}

/// Convert byte offsets into `text` to char offsets (Unicode scalar values, what Python
/// indexes by). A position inside a char maps to that char's start; positions past the end
/// clamp. Offsets need not be sorted.
pub fn byte_to_char_offsets(text: &str, offsets: &[(usize, usize)]) -> Vec<(usize, usize)> {
    convert_offsets(text, offsets, |_| 1)
}

/// Convert byte offsets into `text` to UTF-16 code-unit offsets (what JavaScript strings index
/// by), with the same rules as [`byte_to_char_offsets`].
pub fn byte_to_utf16_offsets(text: &str, offsets: &[(usize, usize)]) -> Vec<(usize, usize)> {
    convert_offsets(text, offsets, char::len_utf16)
}

/// Map every byte position to the units counted before the char that contains it.
fn convert_offsets(text: &str, offsets: &[(usize, usize)], units_of: impl Fn(char) -> usize) -> Vec<(usize, usize)> {
    let len = text.len();
    if text.is_ascii() {
        return offsets.iter().map(|&(s, e)| (s.min(len), e.min(len))).collect();
    }
    let mut index = vec![0u32; len + 1];
    let mut units = 0u32;
    let mut pos = 0usize;
    for ch in text.chars() {
        let w = ch.len_utf8();
        index[pos..pos + w].fill(units);
        pos += w;
        units += units_of(ch) as u32;
    }
    index[len] = units;
    offsets.iter().map(|&(s, e)| (index[s.min(len)] as usize, index[e.min(len)] as usize)).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn char_offsets() {
        let text = "aé😀b";
        let byte = [(0, 1), (1, 3), (3, 7), (7, 8), (0, 0)];
        assert_eq!(super::byte_to_char_offsets(text, &byte), vec![(0, 1), (1, 2), (2, 3), (3, 4), (0, 0)]);
        assert_eq!(super::byte_to_utf16_offsets(text, &byte), vec![(0, 1), (1, 2), (2, 4), (4, 5), (0, 0)]);
        // Inside a char -> its start; past the end -> the end.
        assert_eq!(super::byte_to_utf16_offsets(text, &[(4, 99)]), vec![(2, 5)]);
    }
}
