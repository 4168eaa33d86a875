//! A fast path for SentencePiece's normalizer shape — `Replace` of one char by a string,
//! optionally after a `Prepend` (gemma3: `Replace(" " → "▁")`; llama2: `Prepend("▁")` then
//! the same) — without building a [`crate::normalized::Normalized`]: the normalized text is
//! written in one pass (recording where the replaced chars are) and offsets are mapped back
//! arithmetically from the number of replacements before a byte, kept by a cursor that moves
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

    /// The normalized form of `seg` (non-empty) into `out`; with `reps`, the original
    /// positions of the replaced chars into it (what [`Self::map`] needs).
    pub fn normalize(&self, seg: &str, with_prepend: bool, out: &mut String, mut reps: Option<&mut Vec<u32>>) {
        out.clear();
        out.reserve(seg.len() + seg.len() / 4 + 8);
        if with_prepend && !seg.is_empty() {
            out.extend(self.prepend.as_deref());
        }
        if let Some(r) = reps.as_deref_mut() {
            r.clear();
        }
        if self.from.is_ascii() && (1..=4).contains(&self.to.len()) {
            let mut v = std::mem::take(out).into_bytes();
            replace_byte(seg.as_bytes(), self.from as u8, self.to.as_bytes(), &mut v, reps);
            // SAFETY: `v` is `out` (valid UTF-8) followed by the bytes of `seg` in order, each
            // `from` byte (an ASCII char: a whole char, never part of another) replaced by the
            // whole string `to`: valid UTF-8. (A panic in between leaves `out` empty.)
            *out = unsafe { String::from_utf8_unchecked(v) };
            return;
        }
        let mut last = 0;
        let mut push = |i: usize, out: &mut String| {
            out.push_str(&seg[last..i]);
            out.push_str(&self.to);
            if let Some(r) = reps.as_deref_mut() {
                r.push(i as u32);
            }
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

    /// The offset map of `seg` normalized by [`Self::normalize`] (`base`: where `seg` starts;
    /// `reps`: the replaced chars' positions it gave).
    pub fn map<'a>(&'a self, seg: &'a str, base: u32, with_prepend: bool, reps: &'a [u32]) -> CharReplaceMap<'a> {
        let plen = if with_prepend { self.prepend.as_ref().map_or(0, |p| p.len() as u32) } else { 0 };
        let m = CharReplaceMap {
            orig: seg.as_bytes(),
            base,
            reps,
            plen,
            from_len: self.from.len_utf8() as u32,
            to_len: self.to.len() as u32,
            cursor: Cell::new(Cursor { k: 0, next: 0, lo: 0, shift: 0 }),
            after: Cell::new((u32::MAX, 0)),
        };
        m.cursor.set(m.cursor_at(0));
        m
    }
}

/// Appends `b` to `v` with each byte `from` replaced by `to` (1..=4 bytes), and with `reps` the
/// positions of the replaced bytes: branch-free per byte (a 4-byte store of the byte or of
/// `to`, then a step of 1 or `to.len()`; the position is stored always and counted only on a
/// match), as a branch on the byte mispredicts on real text (a space every few bytes), in
/// blocks of 256 bytes with room reserved per block.
fn replace_byte(b: &[u8], from: u8, to: &[u8], v: &mut Vec<u8>, mut reps: Option<&mut Vec<u32>>) {
    const BLOCK: usize = 256;
    debug_assert!((1..=4).contains(&to.len()));
    let tl = to.len();
    let mut word = [0u8; 4];
    word[..tl].copy_from_slice(to);
    let to_word = u32::from_le_bytes(word);
    for (k, block) in b.chunks(BLOCK).enumerate() {
        let base = k * BLOCK;
        // Room for the block's worst case plus the last store's 3 bytes past it.
        v.reserve(block.len() * tl + 4);
        let mut len = v.len();
        let p = v.as_mut_ptr();
        match reps.as_deref_mut() {
            None => {
                for &c in block {
                    let hit = c == from;
                    let val = if hit { to_word } else { c as u32 };
                    // SAFETY: `len + 4 <= capacity`: the block adds at most `block.len() * tl`
                    // bytes and 4 more were reserved past them.
                    unsafe { p.add(len).cast::<u32>().write_unaligned(val.to_le()) };
                    len += if hit { tl } else { 1 };
                }
            }
            Some(r) => {
                r.reserve(block.len());
                let mut n = r.len();
                let q = r.as_mut_ptr();
                for (i, &c) in block.iter().enumerate() {
                    let hit = c == from;
                    let val = if hit { to_word } else { c as u32 };
                    // SAFETY: as above for `v`; `n < capacity` for `r`: at most one position
                    // per byte of the block was reserved.
                    unsafe {
                        p.add(len).cast::<u32>().write_unaligned(val.to_le());
                        q.add(n).write((base + i) as u32);
                    }
                    len += if hit { tl } else { 1 };
                    n += hit as usize;
                }
                // SAFETY: positions `..n` were written above (or before the block).
                unsafe { r.set_len(n) };
            }
        }
        // SAFETY: bytes `..len` were written (the 4-byte stores past `len` are overwritten by
        // the next or lie beyond the new length).
        unsafe { v.set_len(len) };
    }
}

/// Offsets of a [`CharReplace`]-normalized segment (see the module docs). The normalized
/// text is the original with the prepend string first and each replaced char (at `reps`)
/// `to_len` bytes long instead of `from_len`: a normalized byte past `k` replacements that is
/// not in one lies in an unchanged char at original byte `t - (plen + k * (to_len -
/// from_len))`, so a lookup only has to know how many replacements lie before it — a
/// cursor, carried from the previous lookup (tokens come in order), so that mapping a
/// segment's tokens costs a few comparisons per token and one step per replacement, with no
/// walk over the chars.
pub struct CharReplaceMap<'a> {
    orig: &'a [u8],
    base: u32,
    /// Original starts of the replaced chars, ascending.
    reps: &'a [u32],
    plen: u32,
    from_len: u32,
    to_len: u32,
    cursor: Cell<Cursor>,
    /// (normalized byte, original char start) right after the last token's last char.
    after: Cell<(u32, u32)>,
}

/// Where the last lookup left off: replacements `..k` end at or before it.
#[derive(Clone, Copy)]
struct Cursor {
    k: u32,
    /// Normalized start of replacement `k` (`u32::MAX` past the last).
    next: u32,
    /// Normalized end of replacement `k - 1` (or of the prepend string): the cursor holds
    /// for bytes from here on.
    lo: u32,
    /// Normalized minus original position of the unchanged chars after replacement `k - 1`
    /// (wrapping: a replacement may be shorter than its char).
    shift: u32,
}

impl CharReplaceMap<'_> {
    /// The cursor with replacements `..k` behind it.
    fn cursor_at(&self, k: usize) -> Cursor {
        let k32 = k as u32;
        let shift = self.plen.wrapping_add(k32.wrapping_mul(self.to_len.wrapping_sub(self.from_len)));
        let next = self.reps.get(k).map_or(u32::MAX, |&r| r.wrapping_add(shift));
        let lo = match k {
            0 => self.plen,
            _ => self.reps[k - 1].wrapping_add(shift).wrapping_add(self.from_len),
        };
        Cursor { k: k32, next, lo, shift }
    }

    /// A lookup before the cursor (the prepend string, or going back): the cursor is set
    /// again by binary search.
    #[cold]
    #[inline(never)]
    fn locate_back(&self, t: u32) -> (u32, u32, u32) {
        if t < self.plen {
            // The prepended chars align with the first char.
            let len = self.orig.first().map_or(0, |&b| utf8_len(b) as u32);
            let span = if self.reps.first() == Some(&0) { self.to_len } else { len };
            return (0, len, self.plen + span);
        }
        // The first replacement whose normalized span does not end at or before `t`.
        let end_of = |k: usize| self.cursor_at(k).next.wrapping_add(self.to_len);
        let (mut lo, mut hi) = (0, self.reps.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if end_of(mid) <= t {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        self.cursor.set(self.cursor_at(lo));
        self.locate(t)
    }

    /// The original char (start, length) whose normalized span holds byte `t`, and the
    /// normalized end of that span.
    #[inline(always)]
    fn locate(&self, t: u32) -> (u32, u32, u32) {
        let mut c = self.cursor.get();
        if t < c.lo {
            return self.locate_back(t);
        }
        while t >= c.next {
            if t - c.next < self.to_len {
                self.cursor.set(c);
                return (self.reps[c.k as usize], self.from_len, c.next + self.to_len);
            }
            c.lo = c.next + self.to_len;
            c.k += 1;
            c.shift = c.shift.wrapping_add(self.to_len).wrapping_sub(self.from_len);
            c.next = self.reps.get(c.k as usize).map_or(u32::MAX, |&r| r.wrapping_add(c.shift));
        }
        self.cursor.set(c);
        let o = t.wrapping_sub(c.shift) as usize;
        let orig = self.orig;
        if o >= orig.len() {
            // Past the end (cannot happen for a token of the segment).
            return (orig.len() as u32, 0, u32::MAX);
        }
        if orig[o] < 0x80 {
            // An ASCII char (most): one byte, here and in the normalized text.
            return (o as u32, 1, t + 1);
        }
        let mut s = o;
        while s > 0 && orig[s] & 0xC0 == 0x80 {
            s -= 1;
        }
        let end = s as u32 + utf8_len(orig[s]) as u32;
        (s as u32, end - s as u32, end.wrapping_add(c.shift))
    }
}

impl OffsetMap for CharReplaceMap<'_> {
    #[inline(always)]
    fn map(&self, start: u32, end: u32) -> (u32, u32) {
        let (after_t, after_o) = self.after.get();
        // A token starting where the previous one's last char ended (most do) starts at the
        // original char after that char.
        let s = if start == after_t { after_o } else { self.locate(start).0 };
        let (e, len, span_end) = self.locate(end - 1);
        self.after.set((span_end, e + len));
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
        let mut reps = Vec::new();
        cr.normalize("é a  b", true, &mut out, Some(&mut reps));
        assert_eq!(out, "▁é▁a▁▁b");
        assert_eq!(reps, [2, 4, 5]);
        let m = cr.map("é a  b", 10, true, &reps);
        // "▁é" → the é; "▁" (3 bytes at 5) → the space at 2; "▁b" → the space at 5 .. the b.
        assert_eq!(m.map(0, 5), (10, 12));
        assert_eq!(m.map(5, 8), (12, 13));
        assert_eq!(m.map(12, 16), (15, 17));
        assert_eq!(m.map(0, 3), (10, 12));
        cr.normalize("a b", false, &mut out, None);
        assert_eq!(out, "a▁b");
        let nfc: Value = serde_json::from_str(r#"{"type":"NFC"}"#).unwrap();
        assert!(CharReplace::from_json(&nfc).is_none());
    }

    /// `tokenizers`' alignments of the normalized text, built char by char: every byte of the
    /// prepend string and of a char's normalized form aligns with that original char.
    fn reference_alignments(cr: &CharReplace, seg: &str, with_prepend: bool) -> Vec<(u32, u32)> {
        let mut al = Vec::new();
        for (i, c) in seg.char_indices() {
            let span = (i as u32, (i + c.len_utf8()) as u32);
            if i == 0 && with_prepend {
                al.extend(std::iter::repeat_n(span, cr.prepend.as_ref().map_or(0, String::len)));
            }
            let n = if c == cr.from { cr.to.len() } else { c.len_utf8() };
            al.extend(std::iter::repeat_n(span, n));
        }
        al
    }

    /// The arithmetic map against the char-by-char alignments, for every normalizer shape the
    /// fast path takes (one-byte and multi-byte replaced chars, growing and shrinking, with and
    /// without a prepend): random texts over multi-byte chars, odd whitespace and the
    /// replacement itself as a literal; tokens cut at any byte (byte fallback splits chars),
    /// looked up in order as the pipeline does, then at random (the cursor going back).
    #[test]
    fn map_equals_char_by_char_alignments() {
        let shapes = [
            r#"{"type":"Sequence","normalizers":[{"type":"Prepend","prepend":"▁"},{"type":"Replace","pattern":{"String":" "},"content":"▁"}]}"#,
            r#"{"type":"Replace","pattern":{"String":" "},"content":"▁"}"#,
            r#"{"type":"Replace","pattern":{"String":"▁"},"content":" "}"#,
            r#"{"type":"Sequence","normalizers":[{"type":"Prepend","prepend":"ab"},{"type":"Replace","pattern":{"String":"é"},"content":"xyz"}]}"#,
            r#"{"type":"Sequence","normalizers":[{"type":"Prepend","prepend":" é"},{"type":"Replace","pattern":{"String":"\n"},"content":"\n"}]}"#,
        ];
        let alphabet = [
            " ", " ", "  ", "a", "bc", "é", "▁", "\u{a0}", "\u{3000}", "\t", "\n", "\r\n", "東京", "👍🏽", "e\u{301}",
            "\u{200d}", "ß",
        ];
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: usize| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % n as u64) as usize
        };
        let (mut out, mut reps) = (String::new(), Vec::new());
        for shape in shapes {
            let cr = CharReplace::from_json(&serde_json::from_str(shape).unwrap()).unwrap();
            for case in 0..400 {
                // Every tenth text long: `replace_byte` works in 256-byte blocks.
                let pieces = if case % 10 == 0 { 100 + next(300) } else { 1 + next(24) };
                let seg: String = (0..pieces).map(|_| alphabet[next(alphabet.len())]).collect();
                let with_prepend = case % 3 != 0;
                cr.normalize(&seg, with_prepend, &mut out, Some(&mut reps));
                let al = reference_alignments(&cr, &seg, with_prepend);
                assert_eq!(out.len(), al.len(), "{shape}: {seg:?}");
                let want = |a: usize, b: usize| (7 + al[a].0, 7 + al[b - 1].1);
                let m = cr.map(&seg, 7, with_prepend, &reps);
                let mut a = 0;
                while a < out.len() {
                    let b = (a + 1 + next(5)).min(out.len());
                    assert_eq!(m.map(a as u32, b as u32), want(a, b), "{shape}: {seg:?} {with_prepend} [{a}, {b})");
                    a = b;
                }
                for _ in 0..8 {
                    let a = next(out.len());
                    let b = a + 1 + next(out.len() - a);
                    assert_eq!(m.map(a as u32, b as u32), want(a, b), "{shape}: {seg:?} {with_prepend} [{a}, {b})");
                }
            }
        }
    }
}
