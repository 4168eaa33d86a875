//! The building blocks the scanners share: runs of a class set, `\p{N}{1,k}`, the white-space
//! tail alternatives `\s*[\r\n]+|\s+(?!\S)|\s+`, and the contractions
//! `(?i:'s|'t|'re|'ve|'m|'ll|'d)`, each with the regex engine's (backtracking, leftmost-first)
//! semantics. Positions are byte offsets into valid UTF-8 at char boundaries; the end of the
//! slice is the end of the text (what a look-ahead sees).

use super::classes::{class_at, is, ClassSet, L, LETTER, LOWER, MARK, NEWLINE, NUMBER, SPACE};

/// A class set together with its ASCII members as one byte range (optionally case-folded), so
/// that [`run_swar`] tests 8 ASCII bytes at once. The unit test checks every ASCII byte.
#[derive(Clone, Copy)]
pub(super) struct AsciiRange {
    pub set: ClassSet,
    /// The ASCII members: `lo..=hi`, after `| 0x20` when `fold_case`.
    pub lo: u8,
    pub hi: u8,
    pub fold_case: bool,
}

/// `\p{L}`: ASCII `[A-Za-z]`.
pub(super) const LETTERS: AsciiRange = AsciiRange { set: L, lo: b'a', hi: b'z', fold_case: true };
/// `[\p{L}\p{M}]`: ASCII `[A-Za-z]`.
pub(super) const LETTERS_MARKS: AsciiRange = AsciiRange { set: L | 1 << MARK, lo: b'a', hi: b'z', fold_case: true };
/// `[\p{Ll}\p{Lm}\p{Lo}\p{M}]` (o200k's second letter class): ASCII `[a-z]`.
pub(super) const LOWER_LETTERS: AsciiRange =
    AsciiRange { set: 1 << LOWER | 1 << LETTER | 1 << MARK, lo: b'a', hi: b'z', fold_case: false };

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = ONES * 0x80;

/// For each byte of `x` below 0x80: its high bit set iff it is in `lo..=hi` (`hi < 0x80`). The
/// low 7 bits of each byte, and the bytes from 0x80, are garbage: callers mask them off.
#[inline(always)]
pub(super) fn bytes_in(x: u64, lo: u8, hi: u8) -> u64 {
    let low = x & !HIGH;
    // Per byte, high bit set: low >= lo, low > hi; the sums stay below 256.
    (low + ONES * (128 - lo as u64)) & !(low + ONES * (127 - hi as u64))
}

/// Skip from `i` over the ASCII bytes `keep` holds for, 8 at a time (`keep8`: the same test on
/// the 8 bytes of a little-endian word, as the high bit of each): the first byte that is not
/// ASCII or not kept, or the end.
#[inline(always)]
pub(super) fn skip_ascii(b: &[u8], mut i: usize, keep8: impl Fn(u64) -> u64, keep: impl Fn(u8) -> bool) -> usize {
    while i + 8 <= b.len() {
        let x = u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        let stop = !(keep8(x) & !x) & HIGH;
        if stop != 0 {
            return i + (stop.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && b[i] < 0x80 && keep(b[i]) {
        i += 1;
    }
    i
}

/// The end of the maximal run of chars of `r.set` starting at `i`: 8 bytes at a time while they
/// are ASCII, char by char through the Unicode table otherwise.
#[inline(always)]
pub(super) fn run_swar(b: &[u8], mut i: usize, r: AsciiRange) -> usize {
    let fold8 = if r.fold_case { ONES * 0x20 } else { 0 };
    let fold = if r.fold_case { 0x20 } else { 0 };
    while i < b.len() {
        if b[i] < 0x80 {
            i = skip_ascii(b, i, |x| bytes_in(x | fold8, r.lo, r.hi), |c| (r.lo..=r.hi).contains(&(c | fold)));
            if i >= b.len() || b[i] < 0x80 {
                return i;
            }
        }
        let (c, l) = class_at(b, i);
        if !is(r.set, c) {
            return i;
        }
        i += l;
    }
    i
}

/// The end of the maximal run of chars of `set` starting at `i`.
#[inline(always)]
pub(super) fn run(b: &[u8], mut i: usize, set: ClassSet) -> usize {
    while i < b.len() {
        let (c, l) = class_at(b, i);
        if !is(set, c) {
            break;
        }
        i += l;
    }
    i
}

/// The end of a run of the bytes `\r` and `\n` starting at `i` (`[\r\n]*`).
#[inline(always)]
pub(super) fn newlines(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && (b[i] == b'\r' || b[i] == b'\n') {
        i += 1;
    }
    i
}

/// The end of at most `more` further numbers from `i` (the tail of `\p{N}{1,k}`, `more = k - 1`).
#[inline(always)]
pub(super) fn numbers(b: &[u8], mut i: usize, more: usize) -> usize {
    for _ in 0..more {
        if i >= b.len() {
            break;
        }
        let (c, l) = class_at(b, i);
        if c != NUMBER {
            break;
        }
        i += l;
    }
    i
}

/// The end of `\s*[\r\n]+|\s+(?!\S)|\s+` matched at `i` (a white-space char): up to and with the
/// last `\r`/`\n` of the white-space run if it has one; else the whole run if it reaches the end
/// of the text or is one char long; else the run but its last char (which the look-ahead leaves
/// for the next pre-token, where it prefixes a word).
#[inline(always)]
pub(super) fn whitespace(b: &[u8], i: usize) -> usize {
    let mut j = i;
    let mut last = i;
    let mut newline_end = 0;
    while j < b.len() {
        let (c, l) = class_at(b, j);
        if c == NEWLINE {
            newline_end = j + 1;
        } else if c != SPACE {
            break;
        } else if b[j] == b' ' {
            // A run of ASCII spaces (indentation), 8 bytes at a time.
            j = skip_ascii(b, j + 1, |x| bytes_in(x, b' ', b' '), |c| c == b' ');
            last = j - 1;
            continue;
        }
        last = j;
        j += l;
    }
    if newline_end != 0 {
        newline_end
    } else if j == b.len() || last == i {
        j
    } else {
        last
    }
}

/// The byte length of `(?i:'s|'t|'re|'ve|'m|'ll|'d)` at `i`, or 0. Case-insensitive as the
/// regex engine folds (`s` also matches `ſ` U+017F; `tests/scan_tables.rs` checks the sets).
#[inline]
pub(super) fn contraction(b: &[u8], i: usize) -> usize {
    if b.get(i) != Some(&b'\'') {
        return 0;
    }
    match b.get(i + 1) {
        Some(b's' | b'S' | b't' | b'T' | b'm' | b'M' | b'd' | b'D') => 2,
        Some(b'r' | b'R' | b'v' | b'V') if matches!(b.get(i + 2), Some(b'e' | b'E')) => 3,
        Some(b'l' | b'L') if matches!(b.get(i + 2), Some(b'l' | b'L')) => 3,
        Some(0xC5) if b.get(i + 2) == Some(&0xBF) => 3,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::super::classes::BYTE_CLASS;
    use super::*;

    #[test]
    fn ascii_ranges_are_their_sets_ascii_members() {
        for r in [LETTERS, LETTERS_MARKS, LOWER_LETTERS] {
            for byte in 0u8..128 {
                let folded = if r.fold_case { byte | 0x20 } else { byte };
                let in_range = (r.lo..=r.hi).contains(&folded);
                assert_eq!(in_range, is(r.set, BYTE_CLASS[byte as usize]), "byte {byte:#x}");
                // run_swar agrees at every offset of an 8-byte word and in the tail.
                for at in 0..12 {
                    let mut v = vec![b'a'; 12];
                    v[at] = byte;
                    let want = if in_range { 12 } else { at };
                    let text = std::str::from_utf8(&v).unwrap();
                    assert_eq!(run_swar(text.as_bytes(), 0, r), want, "byte {byte:#x} at {at}");
                }
            }
        }
    }
}
