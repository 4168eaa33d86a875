//! Hand-written scanners for the `Split` regex patterns real tokenizers use (Qwen2/3, Llama 3
//! / cl100k, o200k as in gpt-4o and gpt-oss, DeepSeek-V3's three Splits). Each is recognised by
//! its exact pattern string(s) and gives exactly the pre-tokens `fancy-regex` gives for them;
//! every other pattern runs through `fancy-regex` itself (see `super`).
//!
//! Each scanner walks the text once, trying the pattern's alternatives in order at each
//! position as the backtracking regex engine does, with the classes of [`classes`] (a 256-entry
//! byte-class table for ASCII, a two-level table generated from `regex-syntax`'s Unicode tables
//! for the rest). Runs of letters, of DeepSeek's non-number pieces and of spaces advance 8
//! ASCII bytes at a time (SWAR on `u64`: the same code on every target, wasm32 included).
//!
//! Proof of exactness: `tests/scan_*.rs` compare every scanner with `tokenizers`' own
//! pre-tokenizer built from the fixture's `tokenizer.json` and with `fancy-regex` on the
//! corpora, large inputs, a proptest over a troublemaker alphabet and every short string over
//! small alphabets; `tests/scan_tables.rs` checks the class of every code point.

mod ascii_blocks;
mod cl100k;
pub mod classes;
mod deepseek;
mod o200k;
mod runs;

pub use cl100k::{Cl100k, CL100K_PATTERN, QWEN2_PATTERN};
pub use deepseek::{DeepSeekV3, DEEPSEEK_CJK_PATTERN, DEEPSEEK_DIGITS_PATTERN, DEEPSEEK_MAIN_PATTERN};
pub use o200k::{O200k, O200K_PATTERN};

/// A scanner for one `Split` pattern, or for a sequence of `Split` patterns applied in order.
///
/// Semantics: the result of applying, in order, `Split(pattern_i, behavior = Isolated,
/// invert = false)` of `tokenizers` to `text` for each pattern: the text is tiled into
/// pre-tokens (the matches of the last split applied, and the unmatched gaps between them as
/// pre-tokens of their own). For a pattern whose alternatives match every char (the main
/// patterns above), `Removed` with `invert = true` gives the same tiling.
pub trait Scanner: Send + Sync {
    /// Append to `ends` the end byte offset (in `text`) of each pre-token, in order. The
    /// pre-tokens tile `text`: the first starts at 0, each next one where the previous ended,
    /// the last ends at `text.len()`; none is empty. Nothing is appended for an empty text.
    fn scan(&self, text: &str, ends: &mut Vec<u32>);

    /// A short name for logs and `Engine::describe` (e.g. `"qwen2"`, `"o200k"`).
    fn name(&self) -> &'static str;
}

/// The scanner for a sequence of Split patterns (the patterns' exact strings, in order), if
/// one is known.
pub fn scanner_for(patterns: &[&str]) -> Option<Box<dyn Scanner>> {
    match patterns {
        [QWEN2_PATTERN] => Some(Box::new(Cl100k::<1>)),
        [CL100K_PATTERN] => Some(Box::new(Cl100k::<3>)),
        [O200K_PATTERN] => Some(Box::new(O200k)),
        [DEEPSEEK_DIGITS_PATTERN, DEEPSEEK_CJK_PATTERN, DEEPSEEK_MAIN_PATTERN] => Some(Box::new(DeepSeekV3)),
        _ => None,
    }
}
