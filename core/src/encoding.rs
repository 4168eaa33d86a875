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
}

/// Convert byte offsets into `text` to char offsets. Offsets need not be sorted.
pub fn byte_to_char_offsets(text: &str, offsets: &[(usize, usize)]) -> Vec<(usize, usize)> {
    if text.is_ascii() {
        return offsets.to_vec();
    }
    // char index of every byte position that starts a char, plus the end.
    let mut index = vec![0u32; text.len() + 1];
    let mut chars = 0u32;
    for (b, _) in text.char_indices() {
        index[b] = chars;
        chars += 1;
    }
    index[text.len()] = chars;
    // Positions inside a char map to the char that contains them.
    let mut last = 0u32;
    for (b, slot) in index.iter_mut().enumerate() {
        if b < text.len() && !text.is_char_boundary(b) {
            *slot = last;
        } else {
            last = *slot;
        }
    }
    offsets.iter().map(|&(s, e)| (index[s.min(text.len())] as usize, index[e.min(text.len())] as usize)).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn char_offsets() {
        let text = "aé😀b";
        let byte = [(0, 1), (1, 3), (3, 7), (7, 8), (0, 0)];
        assert_eq!(super::byte_to_char_offsets(text, &byte), vec![(0, 1), (1, 2), (2, 3), (3, 4), (0, 0)]);
    }
}
