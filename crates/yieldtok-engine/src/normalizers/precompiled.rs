//! `Precompiled`: SentencePiece's compiled normalization rules (`precompiled_charsmap`, e.g.
//! `nmt_nfkc` in T5 / XLM-R / ALBERT tokenizers), read and applied as `tokenizers` does through
//! its `spm_precompiled` crate — in pure Rust here, rule for rule: the charsmap is a
//! little-endian `u32` trie size, a double-array trie over UTF-8 bytes, then NUL-terminated
//! replacement strings. Text is walked by extended grapheme clusters (`unicode-segmentation`,
//! the crate and tables `tokenizers` uses): a cluster shorter than 6 bytes whose *shortest*
//! prefix in the trie has a replacement is replaced whole; otherwise each char is looked up
//! on its own. The changes are handed to the transform the way `tokenizers` builds them.

use super::Normalize;
use crate::error::{EncodeError, LoadError};
use crate::normalized::Normalized;
use unicode_segmentation::UnicodeSegmentation;

/// `tokenizers`' `Precompiled` normalizer.
pub struct Precompiled {
    /// The double-array trie units.
    trie: Vec<u32>,
    /// The replacement strings, NUL-terminated, indexed by the trie's values.
    normalized: String,
    /// Per ASCII byte: whether it has a rule of its own.
    ascii_rule: [bool; 128],
    /// Whether the cluster `"\r\n"` has a rule.
    crlf_rule: bool,
}

#[derive(serde::Deserialize)]
struct PrecompiledJson {
    precompiled_charsmap: String,
}

impl Precompiled {
    pub(crate) fn from_json(v: &serde_json::Value) -> Result<Self, LoadError> {
        let j: PrecompiledJson = super::parse(v)?;
        let bytes = base64_decode(&j.precompiled_charsmap)
            .ok_or_else(|| LoadError::Unsupported("Precompiled: precompiled_charsmap is not base64".into()))?;
        Self::from_charsmap(&bytes)
    }

    /// Read a compiled charsmap (the bytes of `precompiled_charsmap`).
    pub fn from_charsmap(bytes: &[u8]) -> Result<Self, LoadError> {
        let bad = |what: &str| LoadError::Unsupported(format!("Precompiled: {what}"));
        let size = bytes.get(..4).ok_or_else(|| bad("charsmap shorter than its header"))?;
        let trie_bytes = u32::from_le_bytes(size.try_into().expect("4 bytes")) as usize / 4 * 4;
        let trie_blob = bytes.get(4..4 + trie_bytes).ok_or_else(|| bad("trie larger than the charsmap"))?;
        let trie = trie_blob.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes"))).collect();
        let normalized = String::from_utf8(bytes[4 + trie_bytes..].to_vec())
            .map_err(|_| bad("replacement strings are not UTF-8"))?;
        let mut p = Precompiled { trie, normalized, ascii_rule: [false; 128], crlf_rule: false };
        for b in 0..128u8 {
            p.ascii_rule[b as usize] = p.first_prefix_value(&[b]).is_some();
        }
        p.crlf_rule = p.transform("\r\n").is_some();
        Ok(p)
    }

    /// Whether an ASCII byte has a rule of its own (`false` for non-ASCII bytes).
    pub fn ascii_has_rule(&self, b: u8) -> bool {
        self.ascii_rule.get(b as usize).copied().unwrap_or(false)
    }

    /// The replacement of the shortest prefix of `chunk` that the trie holds
    /// (`spm_precompiled::Precompiled::transform`).
    pub fn transform(&self, chunk: &str) -> Option<&str> {
        let index = self.first_prefix_value(chunk.as_bytes())? as usize;
        let rest = self.normalized.as_bytes().get(index..)?;
        let len = memchr::memchr(0, rest).unwrap_or(rest.len());
        self.normalized.get(index..index + len)
    }

    /// The value of the first (shortest) prefix of `key` with a leaf in the double array.
    fn first_prefix_value(&self, key: &[u8]) -> Option<u32> {
        let offset = |u: u32| ((u >> 10) << ((u & (1 << 9)) >> 6)) as usize;
        let label = |u: u32| u & ((1 << 31) | 0xFF);
        let has_leaf = |u: u32| (u >> 8) & 1 == 1;
        let mut pos = 0usize;
        let unit = *self.trie.get(pos)?;
        pos ^= offset(unit);
        for &c in key {
            if c == 0 {
                break;
            }
            pos ^= c as usize;
            let unit = *self.trie.get(pos)?;
            if label(unit) != c as u32 {
                return None;
            }
            pos ^= offset(unit);
            if has_leaf(unit) {
                return Some(*self.trie.get(pos)? & ((1 << 31) - 1));
            }
        }
        None
    }
}

/// `tokenizers`' `replace` helper of `Precompiled`: the changes for replacing `old` by `new`.
fn push_replacement(t: &mut Vec<(char, isize)>, old: &str, new: &str) {
    let diff = new.chars().count() as isize - old.chars().count() as isize;
    t.extend(new.chars().map(|c| (c, 0)));
    if diff > 0 {
        t.iter_mut().rev().take(diff as usize).for_each(|(_, cs)| *cs = 1);
    } else if diff < 0 {
        if let Some((_, cs)) = t.last_mut() {
            *cs += diff;
        }
    }
}

impl Normalize for Precompiled {
    fn normalize(&self, n: &mut Normalized) -> Result<(), EncodeError> {
        if n.get().is_ascii() && self.is_identity_on(n.get()) {
            return Ok(());
        }
        let mut t = Vec::with_capacity(n.get().len());
        let mut modified = false;
        for grapheme in n.get().graphemes(true) {
            if grapheme.len() < 6 {
                if let Some(norm) = self.transform(grapheme) {
                    modified = true;
                    push_replacement(&mut t, grapheme, norm);
                    continue;
                }
            }
            for (i, c) in grapheme.char_indices() {
                let part = &grapheme[i..i + c.len_utf8()];
                match self.transform(part) {
                    Some(norm) => {
                        modified = true;
                        push_replacement(&mut t, part, norm);
                    }
                    None => t.push((c, 0)),
                }
            }
        }
        if modified {
            n.transform(t, 0);
        }
        Ok(())
    }

    /// No rule fires: for ASCII, no byte has a rule (ASCII clusters are single chars, except
    /// `"\r\n"`); otherwise the walk of `normalize` without its output.
    fn is_identity_on(&self, text: &str) -> bool {
        if text.is_ascii() {
            let rule = text.bytes().any(|b| self.ascii_rule[b as usize]);
            let crlf = self.crlf_rule && memchr::memmem::find(text.as_bytes(), b"\r\n").is_some();
            return !(rule || crlf);
        }
        text.graphemes(true).all(|g| {
            (g.len() >= 6 || self.transform(g).is_none())
                && g.char_indices().all(|(i, c)| self.transform(&g[i..i + c.len_utf8()]).is_none())
        })
    }
}

/// Standard base64 (with or without padding) to bytes; `None` on any other char.
pub(crate) fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let s = s.trim_end_matches('=').as_bytes();
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    for chunk in s.chunks(4) {
        let mut acc = 0u32;
        for &c in chunk {
            acc = acc << 6 | val(c)?;
        }
        match chunk.len() {
            4 => out.extend_from_slice(&acc.to_be_bytes()[1..]),
            3 => out.extend_from_slice(&(acc << 6).to_be_bytes()[1..3]),
            2 => out.push((acc >> 4) as u8),
            _ => return None,
        }
    }
    Some(out)
}
