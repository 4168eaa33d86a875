//! The building blocks the scanners share: runs of a class set, `\p{N}{1,k}`, the white-space
//! tail alternatives `\s*[\r\n]+|\s+(?!\S)|\s+`, and the contractions
//! `(?i:'s|'t|'re|'ve|'m|'ll|'d)`, each with the regex engine's (backtracking, leftmost-first)
//! semantics. Positions are byte offsets into valid UTF-8 at char boundaries; the end of the
//! slice is the end of the text (what a look-ahead sees).

use super::classes::{class_at, is, ClassSet, NEWLINE, NUMBER, SPACE};

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
#[inline]
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
