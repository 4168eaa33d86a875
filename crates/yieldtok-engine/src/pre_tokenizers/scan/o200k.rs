//! The scanner of the o200k-style pattern of gpt-4o and gpt-oss (case-split letter classes):
//!
//! ```text
//! [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//! |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//! |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//! ```
//!
//! With U = `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]` and W = `[\p{Ll}\p{Lm}\p{Lo}\p{M}]` (they share
//! Lm, Lo and M), the backtracking engine matches `U*W+` from a position as: the maximal U-run,
//! then, if a lower-case letter follows, the W-run from there; else the U-run up to and with its
//! last char that is also in W; else no match. Every char starts a match of some alternative
//! (gpt-4o's `Removed`/`invert` split gives the same tiling as gpt-oss's `Isolated`).

use super::ascii_blocks::{self, MIN_ADVANCE, SCALAR_STRETCH};
use super::classes::{class_at, is, LETTER, LOWER, MARK, NEWLINE, NOT_WS_L_N, NUMBER, SPACE, UPPER};
use super::runs::{contraction, numbers, run, run_swar, whitespace, LOWER_LETTERS};
use super::Scanner;

/// The o200k pattern, as gpt-4o's and gpt-oss's `tokenizer.json` spell it.
pub const O200K_PATTERN: &str = concat!(
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"
);

/// The scanner of [`O200K_PATTERN`].
pub struct O200k;

impl O200k {
    /// The scanner without its ASCII fast path (the same pre-tokens; for tests and benches).
    #[doc(hidden)]
    pub fn scan_scalar(&self, text: &str, ends: &mut Vec<u32>) {
        scan::<false, false>(text.as_bytes(), ends)
    }
}

impl Scanner for O200k {
    fn scan(&self, text: &str, ends: &mut Vec<u32>) {
        if ascii_blocks::wide() {
            // SAFETY: the CPU has AVX-512BW (`wide`).
            unsafe { scan_wide(text.as_bytes(), ends) }
        } else {
            scan::<true, false>(text.as_bytes(), ends)
        }
    }

    fn name(&self) -> &'static str {
        "o200k"
    }
}

/// From `s`: the end of `U*W+` (see the module doc), or `None`; and the end of the maximal U-run.
#[inline(always)]
fn letters(b: &[u8], s: usize) -> (Option<usize>, usize) {
    let mut j = s;
    let mut after_both = None;
    while j < b.len() {
        let (c, l) = class_at(b, j);
        match c {
            UPPER => j += l,
            LETTER | MARK => {
                j += l;
                after_both = Some(j);
            }
            LOWER => return (Some(run_swar(b, j + l, LOWER_LETTERS)), j),
            _ => break,
        }
    }
    (after_both, j)
}

/// The end of `[^\s\p{L}\p{N}]+[\r\n/]*` from `i` (the run's first char included).
#[inline(always)]
fn punctuation(b: &[u8], i: usize) -> usize {
    let mut j = run(b, i, NOT_WS_L_N);
    while j < b.len() && matches!(b[j], b'\r' | b'\n' | b'/') {
        j += 1;
    }
    j
}

/// [`scan`] compiled for AVX-512BW (its ASCII blocks classified by it).
#[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx512bw"))]
unsafe fn scan_wide(b: &[u8], ends: &mut Vec<u32>) {
    scan::<true, true>(b, ends)
}

/// `WIDE`: inside [`scan_wide`] only.
#[inline(always)]
fn scan<const FAST: bool, const WIDE: bool>(b: &[u8], ends: &mut Vec<u32>) {
    let n = b.len();
    ends.reserve(n / 4);
    let mut i = 0;
    let mut scalar_until = 0;
    while i < n {
        if FAST && ascii_blocks::AVAILABLE && i >= scalar_until && i + 64 <= n {
            let advance = ascii_blocks::block::<3, WIDE>(ascii_blocks::Family::O200k, b, i, ends);
            i += advance;
            if advance < MIN_ADVANCE {
                scalar_until = i + SCALAR_STRETCH;
            }
            if advance != 0 {
                continue;
            }
        }
        let (c, l) = class_at(b, i);
        let end = match c {
            UPPER | LOWER | LETTER => {
                // The first two alternatives without their prefix: `U*W+`, else `U+` (c is in U).
                let (w, u) = letters(b, i);
                let e = w.unwrap_or(u);
                e + contraction(b, e)
            }
            NUMBER => numbers(b, i + l, 2),
            NEWLINE => whitespace(b, i),
            _ => {
                // c may prefix a word: first `c U*W+`, then (c is a mark, itself in U and W)
                // `U*W+` from c, which is c alone here, then `c U+`.
                let (w, u) = letters(b, i + l);
                if let Some(e) = w {
                    e + contraction(b, e)
                } else if c == MARK {
                    i + l + contraction(b, i + l)
                } else if u > i + l {
                    u + contraction(b, u)
                } else if c != SPACE {
                    punctuation(b, i + l)
                } else if b[i] == b' ' && i + 1 < n && is(NOT_WS_L_N, class_at(b, i + 1).0) {
                    punctuation(b, i + 1)
                } else {
                    whitespace(b, i)
                }
            }
        };
        ends.push(end as u32);
        i = end;
    }
}
