//! A fast path for SentencePiece's normalizer shape — `Replace` of one char by a string,
//! optionally after a `Prepend` (gemma3: `Replace(" " → "▁")`; llama2: `Prepend("▁")` then
//! the same) — without building a [`crate::normalized::Normalized`]: the normalized text is
//! written in one pass and offsets are mapped back by a cursor that walks the original text
//! along the tokens (which come in order). The alignments are `tokenizers`': each char of the
//! replacement aligns with the replaced char, the prepended chars with the first char.

use std::cell::Cell;

use serde_json::Value;

use crate::models::bpe::utf8_len;
use crate::pipeline::OffsetMap;

/// The recognised normalizer (see the module docs).
pub struct CharReplace {
    /// The `Prepend` string, after the replacement (which `tokenizers` applies to it too).
    prepend: Option<String>,
    from: char,
    to: String,
}

fn replace_json(v: &Value) -> Option<(char, String)> {
    if v.get("type")?.as_str()? != "Replace" {
        return None;
    }
    let pattern = v.get("pattern")?.get("String")?.as_str()?;
    let content = v.get("content")?.as_str()?;
    let mut chars = pattern.chars();
    match (chars.next(), chars.next()) {
        (Some(from), None) if !content.is_empty() => Some((from, content.to_string())),
        _ => None,
    }
}

impl CharReplace {
    /// The shape, if `v` (a `normalizer` value) is exactly it.
    pub fn from_json(v: &Value) -> Option<CharReplace> {
        let (prepend, (from, to)) = match v.get("type")?.as_str()? {
            "Replace" => (None, replace_json(v)?),
            "Sequence" => match v.get("normalizers")?.as_array()?.as_slice() {
                [r] => (None, replace_json(r)?),
                [p, r] if p.get("type")?.as_str()? == "Prepend" => {
                    (Some(p.get("prepend")?.as_str()?.to_string()), replace_json(r)?)
                }
                _ => return None,
            },
            _ => return None,
        };
        let prepend = prepend.filter(|p| !p.is_empty()).map(|p| p.replace(from, &to));
        Some(CharReplace { prepend, from, to })
    }

    /// Whether there is a `Prepend` (a continuation piece skips it).
    pub fn has_prepend(&self) -> bool {
        self.prepend.is_some()
    }

    /// The normalized form of `seg` (non-empty) into `out`.
    pub fn normalize(&self, seg: &str, with_prepend: bool, out: &mut String) {
        out.clear();
        out.reserve(seg.len() + seg.len() / 4 + 8);
        if with_prepend && !seg.is_empty() {
            out.extend(self.prepend.as_deref());
        }
        let mut last = 0;
        let mut push = |i: usize, out: &mut String| {
            out.push_str(&seg[last..i]);
            out.push_str(&self.to);
            last = i + self.from.len_utf8();
        };
        if self.from.is_ascii() {
            for i in memchr::memchr_iter(self.from as u8, seg.as_bytes()) {
                push(i, out);
            }
        } else {
            let mut buf = [0; 4];
            for i in memchr::memmem::find_iter(seg.as_bytes(), self.from.encode_utf8(&mut buf).as_bytes()) {
                push(i, out);
            }
        }
        out.push_str(&seg[last..]);
    }

    /// The offset map of `seg` normalized by [`Self::normalize`] (`base`: where `seg` starts).
    pub fn map<'a>(&'a self, seg: &'a str, base: u32, with_prepend: bool) -> CharReplaceMap<'a> {
        let plen = if with_prepend { self.prepend.as_ref().map_or(0, |p| p.len() as u32) } else { 0 };
        CharReplaceMap { orig: seg.as_bytes(), base, from: self, plen, cursor: Cell::new((0, 0)) }
    }
}

/// Offsets of a [`CharReplace`]-normalized segment (see the module docs).
pub struct CharReplaceMap<'a> {
    orig: &'a [u8],
    base: u32,
    from: &'a CharReplace,
    plen: u32,
    /// (normalized start of the span of the original char at, that original char's start).
    cursor: Cell<(u32, u32)>,
}

impl CharReplaceMap<'_> {
    /// The original char (start, length) whose normalized span holds byte `t`.
    #[inline]
    fn locate(&self, t: u32) -> (u32, u32) {
        let (mut np, mut op) = self.cursor.get();
        if t < np {
            (np, op) = (0, 0);
        }
        let mut from_buf = [0; 4];
        let from = self.from.from.encode_utf8(&mut from_buf).as_bytes();
        // A one-byte `from` (gemma3's and llama2's space); any other never starts with ASCII.
        let from_ascii = if from.len() == 1 { from[0] } else { 0x80 };
        loop {
            if op != 0 && t > np {
                // ASCII bytes other than `from` span one normalized byte each: skip them at once
                // (as many as lie before `t`).
                let rest = &self.orig[(op as usize).min(self.orig.len())..];
                let lim = ((t - np) as usize).min(rest.len());
                let k = rest[..lim].iter().position(|&b| b >= 0x80 || b == from_ascii).unwrap_or(lim) as u32;
                np += k;
                op += k;
            }
            let Some(&b0) = self.orig.get(op as usize) else {
                // Past the end (cannot happen for a token of the segment): the last char.
                return (op, 0);
            };
            let len = utf8_len(b0) as u32;
            // (One byte compared directly: `starts_with` calls `memcmp`.)
            let is_from = if from.len() == 1 { b0 == from_ascii } else { self.orig[op as usize..].starts_with(from) };
            let span = if op == 0 { self.plen } else { 0 } + if is_from { self.from.to.len() as u32 } else { len };
            if t < np + span {
                self.cursor.set((np, op));
                return (op, len);
            }
            np += span;
            op += len;
        }
    }
}

impl OffsetMap for CharReplaceMap<'_> {
    #[inline]
    fn map(&self, start: u32, end: u32) -> (u32, u32) {
        let (s, _) = self.locate(start);
        let (e, len) = self.locate(end - 1);
        (self.base + s, self.base + e + len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_normalize_and_offsets() {
        let llama2: Value = serde_json::from_str(
            r#"{"type":"Sequence","normalizers":[{"type":"Prepend","prepend":"▁"},{"type":"Replace","pattern":{"String":" "},"content":"▁"}]}"#,
        )
        .unwrap();
        let cr = CharReplace::from_json(&llama2).unwrap();
        assert!(cr.has_prepend());
        let mut out = String::new();
        cr.normalize("é a  b", true, &mut out);
        assert_eq!(out, "▁é▁a▁▁b");
        let m = cr.map("é a  b", 10, true);
        // "▁é" → the é; "▁" (3 bytes at 5) → the space at 2; "▁b" → the space at 5 .. the b.
        assert_eq!(m.map(0, 5), (10, 12));
        assert_eq!(m.map(5, 8), (12, 13));
        assert_eq!(m.map(12, 16), (15, 17));
        assert_eq!(m.map(0, 3), (10, 12));
        cr.normalize("a b", false, &mut out);
        assert_eq!(out, "a▁b");
        let nfc: Value = serde_json::from_str(r#"{"type":"NFC"}"#).unwrap();
        assert!(CharReplace::from_json(&nfc).is_none());
    }
}
