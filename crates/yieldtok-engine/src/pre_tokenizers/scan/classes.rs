//! The character classes the scanners work with: each Unicode code point's general-category
//! group (as `\p{Lu}`, `\p{L}`, `\p{N}`, … and `\s` of the regex engine define them), looked up
//! in a table generated from `regex-syntax`'s own Unicode tables — the ones `fancy-regex`, and
//! so `tokenizers`, matches with (`tests/scan_tables.rs` checks every code point and rewrites
//! `tables.rs` with `YIELDTOK_REGEN_SCAN_TABLES=1`).
//!
//! The groups are disjoint: every code point is in exactly one.

#[rustfmt::skip]
#[path = "tables.rs"]
mod tables;

/// A character class (one of the constants below).
pub type Class = u8;

/// `\p{Lu}` or `\p{Lt}` (upper- and title-case letters).
pub const UPPER: Class = 0;
/// `\p{Ll}` (lower-case letters).
pub const LOWER: Class = 1;
/// `\p{Lm}` or `\p{Lo}` (modifier and other letters: in both of o200k's letter classes).
pub const LETTER: Class = 2;
/// `\p{M}` (combining marks).
pub const MARK: Class = 3;
/// `\p{N}` (numbers of every kind: decimal digits, letter numbers such as Roman numerals, others).
pub const NUMBER: Class = 4;
/// `\s` (Unicode `White_Space`) except `\r` and `\n`.
pub const SPACE: Class = 5;
/// `\r` or `\n`.
pub const NEWLINE: Class = 6;
/// `\p{P}` (punctuation).
pub const PUNCT: Class = 7;
/// `\p{S}` (symbols, emoji among them).
pub const SYMBOL: Class = 8;
/// Everything else: controls that are not white space, format characters (ZWJ, ZWSP, BOM),
/// private use, unassigned.
pub const OTHER: Class = 9;
/// Only in [`BYTE_CLASS`]: the byte starts (or continues) a multi-byte UTF-8 sequence.
pub const NON_ASCII: Class = 10;

/// A set of classes, as a bit mask (`1 << class`).
pub type ClassSet = u16;

/// `\p{L}`.
pub const L: ClassSet = 1 << UPPER | 1 << LOWER | 1 << LETTER;
/// `\s` (white space, `\r` and `\n` included).
pub const WS: ClassSet = 1 << SPACE | 1 << NEWLINE;
/// `[^\s\p{L}\p{N}]`: neither white space, a letter nor a number.
pub const NOT_WS_L_N: ClassSet = 1 << MARK | 1 << PUNCT | 1 << SYMBOL | 1 << OTHER;

/// Whether `class` is in `set`.
#[inline(always)]
pub fn is(set: ClassSet, class: Class) -> bool {
    set & (1 << class) != 0
}

/// The class of each byte as a first byte: the class of the ASCII char, or [`NON_ASCII`].
pub static BYTE_CLASS: [Class; 256] = {
    let mut t = [NON_ASCII; 256];
    let mut i = 0;
    while i < 128 {
        t[i] = tables::ASCII[i];
        i += 1;
    }
    t
};

/// The class of a code point.
#[inline]
pub fn class_of_cp(cp: u32) -> Class {
    if cp < 0x80 {
        return tables::ASCII[cp as usize];
    }
    match tables::INDEX.get((cp >> tables::SHIFT) as usize) {
        Some(&block) => {
            tables::BLOCKS[((block as usize) << tables::SHIFT) | (cp as usize & ((1 << tables::SHIFT) - 1))]
        }
        None => OTHER,
    }
}

/// The class of a char.
#[inline]
pub fn class_of(c: char) -> Class {
    class_of_cp(c as u32)
}

/// The code point and byte length of the char that starts at `b[i]` (a non-ASCII lead byte of
/// valid UTF-8).
#[inline(always)]
pub(super) fn decode_non_ascii(b: &[u8], i: usize) -> (u32, usize) {
    let b0 = b[i] as u32;
    if b0 < 0xE0 {
        ((b0 & 0x1F) << 6 | (b[i + 1] as u32 & 0x3F), 2)
    } else if b0 < 0xF0 {
        ((b0 & 0x0F) << 12 | (b[i + 1] as u32 & 0x3F) << 6 | (b[i + 2] as u32 & 0x3F), 3)
    } else {
        (
            (b0 & 0x07) << 18
                | (b[i + 1] as u32 & 0x3F) << 12
                | (b[i + 2] as u32 & 0x3F) << 6
                | (b[i + 3] as u32 & 0x3F),
            4,
        )
    }
}

/// The class and byte length of the char that starts at `b[i]` (`i < b.len()`, at a char
/// boundary of valid UTF-8).
#[inline(always)]
pub(super) fn class_at(b: &[u8], i: usize) -> (Class, usize) {
    let c = BYTE_CLASS[b[i] as usize];
    if c != NON_ASCII {
        return (c, 1);
    }
    let (cp, len) = decode_non_ascii(b, i);
    (class_of_cp(cp), len)
}
