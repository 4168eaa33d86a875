//! Where a text may be cut so that encoding the pieces separately and concatenating the results
//! (offsets shifted by each piece's start) equals encoding the whole text at once, ids and
//! offsets included. This module owns that decision; `crate::job` only asks it for the next cut.
//!
//! The rules, per tokenizer family (evidence and proof sketches: `docs/chunking.md`):
//!
//! * **Added-token edges** are exact for every tokenizer: the `tokenizers` pipeline extracts
//!   added tokens (leftmost-longest over the raw text) before anything else, so a cut that is
//!   not inside a match leaves extraction unchanged. ([`added`])
//! * **Regex `Split` + ByteLevel** (qwen3, llama3, deepseek-v3, gpt-4o, gpt-oss, GPT-2):
//!   *before a space whose previous char is not whitespace* (no alternative of these patterns
//!   contains a non-space followed by a space), and *after `\n` when the next char is not
//!   whitespace* for patterns whose newline alternatives end at the end of a newline run
//!   (o200k additionally excludes a next char of `/`; the GPT-2 pattern gets no newline rule).
//!   Only patterns on a reviewed list qualify. Normalizers allowed: none, NFC, NFD.
//! * **SentencePiece-style BPE without an effective pre-tokenizer** (llama2, gemma3): merges
//!   only create vocabulary tokens, so a cut between chars `x` and `y` is exact iff no
//!   vocabulary token contains `norm(x) norm(y)`. The loader computes, from the vocabulary, the
//!   chars that may not stand before a space (gemma3: `>`, because of `>▁</`) and after a newline.
//! * **Prepend steps** (llama2's legacy `Prepend("▁")` normalizer) need *continuation mode*: a
//!   piece that starts neither at offset 0 nor right after an added token is encoded with the
//!   prepend step removed, and such a piece never contains an added token.
//! * Anything else: no cut (the whole text is one piece) — slower to yield, never wrong. A
//!   load-time self-check (`crate::selfcheck`) encodes a built-in adversarial sample whole and
//!   cut at every candidate; a mismatch also disables cutting.

pub(crate) mod added;
pub(crate) mod classify;
mod plan;

pub use classify::{CutRules, Family};
pub use plan::ZoneCursor;
pub(crate) use plan::{Mode, Next, Planner};
