//! A fast path for the Unicode normalization forms (NFC, NFD, NFKC, NFKD — qwen3's NFC): a
//! segment is normalized chunk by chunk, each chunk starting at an ASCII char, and only the
//! chunks whose quick check fails go through [`Normalized`]. The forms commute with such cuts:
//! an ASCII char has combining class 0 (no reordering crosses it) and is never the second char
//! of a composition, so nothing before it combines with it or with what follows. The offsets
//! map is piecewise: identity runs (widened to char boundaries) and the alignments of the
//! normalized chunks, which are `tokenizers`' (its transform is local to the chars it changes).

use serde_json::Value;

use crate::error::EncodeError;
use crate::normalized::Normalized;
use crate::normalizers::unicode::{skip_ascii, skip_non_ascii};
use crate::normalizers::Normalize;
use crate::pipeline::OffsetMap;

/// Whether `v` (a `normalizer` value) is one Unicode form alone.
pub fn is_unicode_form(v: &Value) -> bool {
    matches!(v.get("type").and_then(Value::as_str), Some("NFC" | "NFD" | "NFKC" | "NFKD"))
}

/// One piece of a chunk-normalized segment.
#[derive(Debug, Clone, Copy)]
struct MapPiece {
    /// Where the piece starts in the normalized text.
    norm_start: u32,
    /// Where it starts in the segment.
    orig_start: u32,
    /// For a normalized chunk: the start of its alignments in [`Chunked::alignments`]
    /// (relative to the chunk's original); `u32::MAX` for an identity run.
    align: u32,
}

/// A segment normalized by chunks (reused between segments).
#[derive(Default)]
pub struct Chunked {
    pub text: String,
    pieces: Vec<MapPiece>,
    alignments: Vec<(u32, u32)>,
}

impl Chunked {
    /// Normalize `seg` with `form` (a Unicode form) by chunks. Returns `false` when nothing
    /// changed (`text` is then not filled: the segment is its own normalization).
    pub fn normalize(&mut self, form: &dyn Normalize, seg: &str) -> Result<bool, EncodeError> {
        self.text.clear();
        self.pieces.clear();
        self.alignments.clear();
        let b = seg.as_bytes();
        let mut copied = 0; // seg[..copied] is in `text`
        let mut i = 0;
        let mut changed = false;
        while i < b.len() {
            // The next non-ASCII byte; its chunk starts at the ASCII char before it.
            i = skip_ascii(b, i);
            if i == b.len() {
                break;
            }
            let start = if i > 0 && b[i - 1] < 0x80 { i - 1 } else { i };
            let end = skip_non_ascii(b, i);
            let chunk = &seg[start..end];
            i = end;
            if form.is_identity_on(chunk) {
                continue;
            }
            let mut n = Normalized::new(chunk, 0);
            form.normalize(&mut n)?;
            if n.normalized == chunk {
                continue;
            }
            changed = true;
            if copied < start {
                self.pieces.push(MapPiece {
                    norm_start: self.text.len() as u32,
                    orig_start: copied as u32,
                    align: u32::MAX,
                });
                self.text.push_str(&seg[copied..start]);
            }
            self.pieces.push(MapPiece {
                norm_start: self.text.len() as u32,
                orig_start: start as u32,
                align: self.alignments.len() as u32,
            });
            self.text.push_str(&n.normalized);
            self.alignments.extend_from_slice(&n.alignments);
            copied = end;
        }
        if !changed {
            return Ok(false);
        }
        if copied < seg.len() {
            self.pieces.push(MapPiece {
                norm_start: self.text.len() as u32,
                orig_start: copied as u32,
                align: u32::MAX,
            });
            self.text.push_str(&seg[copied..]);
        }
        Ok(true)
    }

    /// The offset map of the last [`Self::normalize`] that changed something (`base`: where the
    /// segment starts in the encoded text).
    pub fn map(&self, base: u32) -> ChunkedMap<'_> {
        ChunkedMap { c: self, base }
    }
}

/// Offsets of a chunk-normalized segment.
pub struct ChunkedMap<'a> {
    c: &'a Chunked,
    base: u32,
}

impl ChunkedMap<'_> {
    /// The original range (in the segment) of the normalized byte `t`.
    #[inline]
    fn locate(&self, t: u32) -> (u32, u32) {
        let pieces = &self.c.pieces;
        let k = pieces.partition_point(|p| p.norm_start <= t) - 1;
        let p = pieces[k];
        let off = t - p.norm_start;
        if p.align == u32::MAX {
            // Identity: the char holding the byte (the run is its own original).
            let text = self.c.text.as_bytes();
            let (mut s, mut e) = (t as usize, t as usize + 1);
            while s > 0 && text[s] & 0xC0 == 0x80 {
                s -= 1;
            }
            while e < text.len() && text[e] & 0xC0 == 0x80 {
                e += 1;
            }
            let shift = p.orig_start as i64 - p.norm_start as i64;
            ((s as i64 + shift) as u32, (e as i64 + shift) as u32)
        } else {
            let (a, b) = self.c.alignments[(p.align + off) as usize];
            (p.orig_start + a, p.orig_start + b)
        }
    }
}

impl OffsetMap for ChunkedMap<'_> {
    #[inline]
    fn map(&self, start: u32, end: u32) -> (u32, u32) {
        let (s, _) = self.locate(start);
        let (_, e) = self.locate(end - 1);
        (self.base + s, self.base + e)
    }
}

#[cfg(test)]
mod tests {
    //! The commutation argument checked over the Unicode tables themselves, and the chunked
    //! normalization checked against the whole-segment one (text and every byte's alignment).
    use super::*;
    use crate::normalizers::{UnicodeForm, UnicodeNormalizer};
    use unicode_normalization_alignments::char::{
        canonical_combining_class, compose, decompose_canonical, decompose_compatible,
    };

    const FORMS: [UnicodeForm; 4] = [UnicodeForm::Nfc, UnicodeForm::Nfd, UnicodeForm::Nfkc, UnicodeForm::Nfkd];

    /// Every ASCII char is a starter, decomposes to itself (canonically and compatibly), and
    /// no char composes with an ASCII char as the second element — over every code point.
    #[test]
    fn ascii_is_a_safe_cut_by_the_tables() {
        for b in 0u8..0x80 {
            let c = b as char;
            assert_eq!(canonical_combining_class(c), 0, "{c:?}");
            let mut d = Vec::new();
            decompose_canonical(c, |x| d.push(x));
            decompose_compatible(c, |x| d.push(x));
            assert_eq!(d, [c, c], "{c:?} decomposes");
        }
        let mut firsts = 0;
        for a in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            for b in 0u8..0x80 {
                assert_eq!(compose(a, b as char), None, "{a:?} + {:?} composes", b as char);
            }
            // Sanity: the table answers at all (ASCII first elements compose, e.g. e + U+0301).
            if a.is_ascii() && compose(a, '\u{301}').is_some() {
                firsts += 1;
            }
        }
        assert!(firsts > 10, "compose() found only {firsts} ASCII + U+0301 compositions");
    }

    /// Pieces chosen to sit at chunk edges: combining marks right after and before ASCII,
    /// Hangul jamo (L, V, T) and syllables (LV + T composes), compatibility chars that NFKC
    /// maps to ASCII, marks that reorder, `<` + U+0338 (an ASCII first element), CJK, emoji.
    const ALPHABET: &[&str] = &[
        "a", "e", "<", "=", " ", "\n", "1", "\u{301}", "\u{308}", "\u{323}", "\u{338}", "\u{327}", "\u{315}",
        "\u{1100}", "\u{1161}", "\u{11A8}", "\u{AC00}", "가", "각", "é", "e\u{301}", "Å", "\u{212B}", "ﬁ", "Ａ", "①",
        "½", "ｶ", "\u{FF9E}", "東", "ñ", "\u{FB01}", "👍🏽", "\u{0CC6}", "\u{0CD5}", "\u{0B47}", "\u{0B3E}", "ǆ",
        "\u{2126}", "\u{F900}", "\u{1E9B}", "\u{0344}", "\u{0F73}",
    ];

    fn random_text(seed: u64, len: usize) -> String {
        let mut x = seed | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                ALPHABET[(x % ALPHABET.len() as u64) as usize]
            })
            .collect()
    }

    fn check(form: UnicodeForm, seg: &str) {
        let n = UnicodeNormalizer(form);
        let mut whole = Normalized::new(seg, 0);
        n.normalize(&mut whole).unwrap();
        let mut c = Chunked::default();
        if !c.normalize(&n, seg).unwrap() {
            assert_eq!(whole.normalized, seg, "{form:?}: chunks unchanged, the whole changed: {seg:?}");
            return;
        }
        assert_eq!(c.text, whole.normalized, "{form:?}: {seg:?}");
        let map = c.map(0);
        for t in 0..c.text.len() as u32 {
            assert_eq!(map.locate(t), whole.alignments[t as usize], "{form:?}: byte {t} of {seg:?}");
        }
    }

    #[test]
    fn chunks_equal_the_whole_segment() {
        for form in FORMS {
            for seed in 0..3000u64 {
                check(form, &random_text(seed, (seed % 24) as usize));
            }
            for s in [
                "",
                "a",
                "\u{301}",
                "a\u{301}",
                "\u{301}a",
                "e\u{301}\u{323}x",
                "x\u{1100}\u{1161}\u{11A8}y",
                "각\u{11A8}",
            ] {
                check(form, s);
            }
        }
    }

    /// A long segment: mostly ASCII with rare changing chars (many chunks), and one long
    /// non-ASCII run (one chunk).
    #[test]
    fn long_segments() {
        for form in FORMS {
            let mut s = String::new();
            for k in 0..2000 {
                s.push_str("word ");
                s.push_str(ALPHABET[k % ALPHABET.len()]);
            }
            check(form, &s);
            check(form, &random_text(7, 5000).replace(|c: char| c.is_ascii(), ""));
        }
    }
}
