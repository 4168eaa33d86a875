//! Byte offsets into a UTF-8 text -> UTF-16 code-unit offsets (what JS strings index by).
//!
//! The conversion itself is the core's `encoding::byte_to_utf16_offsets` (shared with the wasm
//! binding); this module only lays the pairs out flat for a `Uint32Array`.

/// Append `[s0, e0, s1, e1, ...]` in UTF-16 code units to `out`.
pub fn utf16_extend(text: &str, offsets: &[(usize, usize)], out: &mut Vec<u32>) {
    out.reserve(offsets.len() * 2);
    for (s, e) in yieldtok::encoding::byte_to_utf16_offsets(text, offsets) {
        out.push(s as u32);
        out.push(e as u32);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn utf16() {
        let text = "aé😀b";
        let byte = [(0, 1), (1, 3), (3, 7), (7, 8), (0, 0), (4, 9)];
        let mut out = Vec::new();
        super::utf16_extend(text, &byte, &mut out);
        assert_eq!(out, vec![0, 1, 1, 2, 2, 4, 4, 5, 0, 0, 2, 5]);
    }
}
