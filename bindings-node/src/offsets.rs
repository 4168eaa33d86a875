//! Byte offsets into a UTF-8 text -> UTF-16 code-unit offsets (what JS strings index by).
//!
//! Stopgap: the wasm binding needs exactly the same conversion, so it belongs in the core next
//! to `encoding::byte_to_char_offsets`; see the binding's report. Semantics match that function:
//! a position inside a char maps to the start of that char; positions past the end clamp.

/// Flat `[s0, e0, s1, e1, ...]` in UTF-16 code units.
pub fn utf16_flat(text: &str, offsets: &[(usize, usize)]) -> Vec<u32> {
    let mut out = Vec::with_capacity(offsets.len() * 2);
    utf16_extend(text, offsets, &mut out);
    out
}

pub fn utf16_extend(text: &str, offsets: &[(usize, usize)], out: &mut Vec<u32>) {
    out.reserve(offsets.len() * 2);
    let len = text.len();
    if text.is_ascii() {
        for &(s, e) in offsets {
            out.push(s.min(len) as u32);
            out.push(e.min(len) as u32);
        }
        return;
    }
    // UTF-16 index of every byte position (inside a char: that char's start), plus the end.
    let mut index = vec![0u32; len + 1];
    let mut units = 0u32;
    let mut pos = 0usize;
    for ch in text.chars() {
        let w = ch.len_utf8();
        for slot in &mut index[pos..pos + w] {
            *slot = units;
        }
        pos += w;
        units += ch.len_utf16() as u32;
    }
    index[len] = units;
    for &(s, e) in offsets {
        out.push(index[s.min(len)]);
        out.push(index[e.min(len)]);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn utf16() {
        let text = "aé😀b";
        let byte = [(0, 1), (1, 3), (3, 7), (7, 8), (0, 0), (4, 9)];
        assert_eq!(super::utf16_flat(text, &byte), vec![0, 1, 1, 2, 2, 4, 4, 5, 0, 0, 2, 5]);
    }
}
