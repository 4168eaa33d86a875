//! The scanner of DeepSeek-V3's three chained Splits (each `Isolated`, each applied within the
//! pieces of the one before):
//!
//! ```text
//! 1. \p{N}{1,3}
//! 2. [一-龥぀-ゟ゠-ヿ]+                      (U+4E00–U+9FA5, U+3040–U+30FF)
//! 3. [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+
//!    | ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//! ```
//!
//! The first two cut the text into maximal runs of numbers (pieces of up to three), of the CJK
//! ranges, and of everything else (no range char is a number). The third leaves a number piece
//! whole (no alternative matches a number not before a letter) and runs within each other
//! piece, whose end is the end of the text for its look-ahead; its unmatched chars (controls,
//! format chars, private use, unassigned; not before a letter or mark) are pieces of their own.

use super::ascii_blocks::{self, MIN_ADVANCE, SCALAR_STRETCH};
use super::classes::{
    class_at, class_of_cp, decode_non_ascii, is, ClassSet, L, MARK, NEWLINE, NUMBER, PUNCT, SPACE, SYMBOL,
};
use super::runs::{bytes_in, newlines, numbers, run, run_swar, skip_ascii, whitespace, LETTERS_MARKS};
use super::Scanner;

/// DeepSeek-V3's first Split.
pub const DEEPSEEK_DIGITS_PATTERN: &str = r"\p{N}{1,3}";
/// DeepSeek-V3's second Split.
pub const DEEPSEEK_CJK_PATTERN: &str = "[一-龥぀-ゟ゠-ヿ]+";
/// DeepSeek-V3's third Split (with a literal `\r` and `\n` in two of its classes, as its
/// `tokenizer.json` has them).
pub const DEEPSEEK_MAIN_PATTERN: &str = concat!(
    r##"[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+"##,
    "|[^\r\n",
    r"\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+",
    "[\r\n]*",
    r"|\s*",
    "[\r\n]+",
    r"|\s+(?!\S)|\s+"
);

/// `[\p{L}\p{M}]`.
const LM: ClassSet = L | 1 << MARK;
/// `[\p{P}\p{S}]`.
const PS: ClassSet = 1 << PUNCT | 1 << SYMBOL;

/// The scanner of [`DEEPSEEK_DIGITS_PATTERN`], [`DEEPSEEK_CJK_PATTERN`],
/// [`DEEPSEEK_MAIN_PATTERN`] in that order.
pub struct DeepSeekV3;

impl DeepSeekV3 {
    /// The scanner without its ASCII fast path (the same pre-tokens; for tests and benches).
    #[doc(hidden)]
    pub fn scan_scalar(&self, text: &str, ends: &mut Vec<u32>) {
        scan::<false>(text.as_bytes(), ends)
    }
}

impl Scanner for DeepSeekV3 {
    fn scan(&self, text: &str, ends: &mut Vec<u32>) {
        scan::<true>(text.as_bytes(), ends)
    }

    fn name(&self) -> &'static str {
        "deepseek_v3"
    }
}

/// Which piece of the first two Splits a char belongs to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Piece {
    Number,
    Cjk,
    Other,
}

#[inline(always)]
fn piece_at(b: &[u8], i: usize) -> (Piece, usize) {
    let b0 = b[i];
    if b0 < 0x80 {
        return (if b0.is_ascii_digit() { Piece::Number } else { Piece::Other }, 1);
    }
    let (cp, l) = decode_non_ascii(b, i);
    let piece = if (0x3040..=0x30FF).contains(&cp) || (0x4E00..=0x9FA5).contains(&cp) {
        Piece::Cjk
    } else if class_of_cp(cp) == NUMBER {
        Piece::Number
    } else {
        Piece::Other
    };
    (piece, l)
}

fn scan<const FAST: bool>(b: &[u8], ends: &mut Vec<u32>) {
    let n = b.len();
    ends.reserve(n / 4);
    let mut i = 0;
    // The end of the current non-number piece (the pieces tile the text: `i` is in it while
    // `i < piece_end`), and whether an unmatched stretch of it is open.
    let mut piece_end = 0;
    let mut in_gap = false;
    let mut scalar_until = 0;
    while i < n {
        if FAST && ascii_blocks::AVAILABLE && !in_gap && i >= scalar_until && i + 64 <= n {
            let advance = ascii_blocks::block::<3, false>(ascii_blocks::Family::DeepSeek, b, i, ends);
            i += advance;
            if advance < MIN_ADVANCE {
                scalar_until = i + SCALAR_STRETCH;
            }
            if advance != 0 {
                continue;
            }
        }
        if i >= piece_end {
            let (piece, l) = piece_at(b, i);
            if piece == Piece::Number {
                i = numbers(b, i + l, 2);
                ends.push(i as u32);
                continue;
            }
            piece_end = if piece == Piece::Other { other_end(b, i + l) } else { cjk_end(b, i + l) };
        }
        match main_at(&b[..piece_end], i) {
            Ok(end) => {
                if in_gap {
                    ends.push(i as u32);
                    in_gap = false;
                }
                ends.push(end as u32);
                i = end;
            }
            Err(next) => {
                in_gap = true;
                i = next;
            }
        }
        if in_gap && i == piece_end {
            ends.push(i as u32);
            in_gap = false;
        }
    }
}

/// The end of a piece of neither numbers nor CJK chars that goes on at `i`.
#[inline(always)]
fn other_end(b: &[u8], mut i: usize) -> usize {
    loop {
        i = skip_ascii(b, i, |x| !bytes_in(x, b'0', b'9'), |c| !c.is_ascii_digit());
        if i >= b.len() || b[i] < 0x80 {
            return i;
        }
        let (p, l) = piece_at(b, i);
        if p != Piece::Other {
            return i;
        }
        i += l;
    }
}

/// The end of a piece of CJK chars that goes on at `i`.
fn cjk_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        let (p, l) = piece_at(b, i);
        if p != Piece::Cjk {
            break;
        }
        i += l;
    }
    i
}

/// The third Split at `i` in `b` (whose end is the end of the piece): `Ok(end)` of its match
/// there, or `Err(next)` (no match: the char up to `next` is unmatched).
#[inline(always)]
fn main_at(b: &[u8], i: usize) -> Result<usize, usize> {
    let n = b.len();
    let (c, l) = class_at(b, i);
    let b0 = b[i];
    if b0 < 0x80 && is(PS, c) && i + 1 < n && b[i + 1].is_ascii_alphabetic() {
        // `[!"#…~][A-Za-z]+` (the class is every ASCII punctuation and symbol char).
        let mut j = i + 2;
        while j < n && b[j].is_ascii_alphabetic() {
            j += 1;
        }
        Ok(j)
    } else if is(LM, c) {
        // `[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+`, with or without a mark as the prefix.
        Ok(run_swar(b, i + l, LETTERS_MARKS))
    } else if c == NEWLINE {
        Ok(whitespace(b, i))
    } else if is(PS, c) {
        Ok(newlines(b, run(b, i + l, PS)))
    } else {
        // White space or another char (numbers are pieces of their own): a possible prefix of a word.
        let next = if i + l < n { class_at(b, i + l) } else { (NEWLINE, 0) };
        if is(LM, next.0) {
            Ok(run_swar(b, i + l + next.1, LETTERS_MARKS))
        } else if c != SPACE {
            Err(i + l)
        } else if b0 == b' ' && is(PS, next.0) {
            Ok(newlines(b, run(b, i + 1, PS)))
        } else {
            Ok(whitespace(b, i))
        }
    }
}
