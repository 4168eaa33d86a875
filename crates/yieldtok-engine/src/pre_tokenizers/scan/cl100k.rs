//! The scanner of the cl100k-style pattern of Llama 3 and of its single-digit variant of Qwen2
//! and Qwen3:
//!
//! ```text
//! (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//! ```
//!
//! (Qwen: `\p{N}` instead of `\p{N}{1,3}`.) Every char starts a match of some alternative, so
//! the pre-tokens are exactly the matches, found alternative by alternative at each position in
//! the pattern's order.

use super::ascii_blocks::{self, MIN_ADVANCE, SCALAR_STRETCH};
use super::classes::{class_at, is, L, NEWLINE, NOT_WS_L_N, NUMBER, SPACE};
use super::runs::{contraction, newlines, numbers, run, run_swar, whitespace, LETTERS};
use super::Scanner;

/// The Qwen2 / Qwen3 pattern (`\p{N}`: one number per pre-token).
pub const QWEN2_PATTERN: &str =
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

/// The Llama 3 (cl100k-style) pattern (`\p{N}{1,3}`).
pub const CL100K_PATTERN: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

/// The scanner of [`QWEN2_PATTERN`] (`MAX_DIGITS = 1`) or [`CL100K_PATTERN`] (`MAX_DIGITS = 3`).
pub struct Cl100k<const MAX_DIGITS: usize>;

impl<const MAX_DIGITS: usize> Cl100k<MAX_DIGITS> {
    /// The scanner without its ASCII fast path (the same pre-tokens; for tests and benches).
    #[doc(hidden)]
    pub fn scan_scalar(&self, text: &str, ends: &mut Vec<u32>) {
        scan::<MAX_DIGITS, false, false>(text.as_bytes(), ends)
    }
}

impl<const MAX_DIGITS: usize> Scanner for Cl100k<MAX_DIGITS> {
    fn scan(&self, text: &str, ends: &mut Vec<u32>) {
        if ascii_blocks::wide() {
            // SAFETY: the CPU has AVX-512BW (`wide`).
            unsafe { scan_wide::<MAX_DIGITS>(text.as_bytes(), ends) }
        } else {
            scan::<MAX_DIGITS, true, false>(text.as_bytes(), ends)
        }
    }

    fn name(&self) -> &'static str {
        if MAX_DIGITS == 1 {
            "qwen2"
        } else {
            "cl100k"
        }
    }
}

/// [`scan`] compiled for AVX-512BW (its ASCII blocks classified by it).
#[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx512bw"))]
unsafe fn scan_wide<const MAX_DIGITS: usize>(b: &[u8], ends: &mut Vec<u32>) {
    scan::<MAX_DIGITS, true, true>(b, ends)
}

/// `WIDE`: inside [`scan_wide`] only.
#[inline(always)]
fn scan<const MAX_DIGITS: usize, const FAST: bool, const WIDE: bool>(b: &[u8], ends: &mut Vec<u32>) {
    let n = b.len();
    ends.reserve(n / 4);
    let mut i = 0;
    let mut scalar_until = 0;
    while i < n {
        if FAST && ascii_blocks::AVAILABLE && i >= scalar_until && i + 64 <= n {
            let advance = ascii_blocks::block::<MAX_DIGITS, WIDE>(ascii_blocks::Family::Cl100k, b, i, ends);
            i += advance;
            if advance < MIN_ADVANCE {
                scalar_until = i + SCALAR_STRETCH;
            }
            if advance != 0 {
                continue;
            }
        }
        let (c, l) = class_at(b, i);
        let end = if is(L, c) {
            // `[^\r\n\p{L}\p{N}]?\p{L}+` without the prefix.
            run_swar(b, i + l, LETTERS)
        } else if c == NUMBER {
            numbers(b, i + l, MAX_DIGITS - 1)
        } else if c == NEWLINE {
            whitespace(b, i)
        } else {
            // A char that may prefix a word: white space or `[^\s\p{L}\p{N}]`.
            let k = if b[i] == b'\'' { contraction(b, i) } else { 0 };
            let j = i + l;
            let next = if j < n { class_at(b, j) } else { (NEWLINE, 0) };
            if k != 0 {
                i + k
            } else if is(L, next.0) {
                run_swar(b, j + next.1, LETTERS)
            } else if c != SPACE {
                // ` ?[^\s\p{L}\p{N}]+[\r\n]*` without the space.
                newlines(b, run(b, j, NOT_WS_L_N))
            } else if b[i] == b' ' && is(NOT_WS_L_N, next.0) {
                newlines(b, run(b, j, NOT_WS_L_N))
            } else {
                whitespace(b, i)
            }
        };
        ends.push(end as u32);
        i = end;
    }
}
