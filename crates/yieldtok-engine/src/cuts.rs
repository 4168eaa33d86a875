//! Exact cut rules for the BERT family and the Metaspace families (SentencePiece Unigram,
//! T5 / XLM-R style): positions of a text where it can be cut into pieces encoded separately
//! (offsets shifted by each piece's start) with the very ids, offsets and word grouping of the
//! whole encode. The proofs are in `DESIGN.md` ("Cut rules: BERT and Metaspace families"); the
//! tests (`tests/cuts.rs`) check every candidate of the corpora against `tokenizers`.
//!
//! A rule is classified from the `tokenizer.json` ([`CutRule::from_json`]); `None` means no
//! rule here is proven for that shape. [`CutRule::is_cut`] assumes `b` is not inside an
//! added-token match (with the whitespace an `lstrip` / `rstrip` token absorbs): the caller
//! splits at added tokens first, as the encoder does.

use serde_json::Value;
use unicode_segmentation::GraphemeCursor;

use crate::error::LoadError;
use crate::normalizers::Precompiled;

/// The cut rule of one tokenizer.
pub enum CutRule {
    /// BertNormalizer (or a char-local normalizer, or none) + BertPreTokenizer / Whitespace /
    /// WhitespaceSplit: cut before `' '`, `'\t'`, `'\n'`, `'\r'`.
    Bert,
    /// A char-local normalizer (or none) + Metaspace with `split`: cut before every `' '`.
    MetaspaceSpace,
    /// SentencePiece's compiled rules (Precompiled, then optionally Strip(right) and
    /// Replace(`" {2,}"`)) + Metaspace with `split`: cut before a `' '` that follows an ASCII
    /// graphic char without a rule of its own, which is a grapheme cluster alone, and that is
    /// not the start of a longer cluster.
    MetaspacePrecompiled(Box<Precompiled>),
}

fn ty(v: &Value) -> Option<&str> {
    v.get("type").and_then(Value::as_str)
}

/// The steps of a normalizer (a Sequence flattened; `null` → none).
fn steps(v: &Value) -> Vec<&Value> {
    match ty(v) {
        _ if v.is_null() => vec![],
        Some("Sequence") => {
            v.get("normalizers").and_then(Value::as_array).into_iter().flatten().flat_map(steps).collect()
        }
        _ => vec![v],
    }
}

/// A normalizer step that maps each char on its own (or, for the Unicode forms, each
/// sequence that starts with a starter), keeps each of the `cut_chars` a whitespace char and
/// never merges across one: so it commutes with a cut before one (DESIGN.md, lemma N).
fn char_local(step: &Value, bert_ok: bool, cut_chars: &[char]) -> bool {
    match ty(step) {
        Some("NFC" | "NFD" | "NFKC" | "NFKD" | "Lowercase" | "StripAccents") => true,
        Some("BertNormalizer") => bert_ok,
        Some("Replace") => {
            let content = step.get("content").and_then(Value::as_str).unwrap_or("");
            let (pat, is_regex) = match step.get("pattern") {
                Some(p) if p.get("String").is_some() => (p["String"].as_str().unwrap_or(""), false),
                Some(p) if p.get("Regex").is_some() => (p["Regex"].as_str().unwrap_or(""), true),
                _ => return false,
            };
            // One char per match: a literal of one char, or a lone class `[…]` / `\p{…}`.
            let one_char = if is_regex {
                let class = pat.starts_with('[')
                    && pat.ends_with(']')
                    && !pat[1..pat.len() - 1].contains(['[', ']'])
                    && !pat.contains("\\]");
                let prop = (pat.starts_with("\\p{") || pat.starts_with("\\P{"))
                    && pat.ends_with('}')
                    && !pat[3..pat.len() - 1].contains(['{', '}', '|']);
                class || prop
            } else {
                pat.chars().count() == 1
            };
            let Ok(re) = fancy_regex::Regex::new(
                if is_regex { pat.to_string() } else { fancy_regex::escape(pat).into_owned() }.as_str(),
            ) else {
                return false;
            };
            // A pattern that matches a cut char must leave a space in its place.
            let keeps_cut_chars =
                cut_chars.iter().all(|c| !matches!(re.is_match(&c.to_string()), Ok(true)) || content == " ");
            one_char && keeps_cut_chars
        }
        _ => false,
    }
}

impl CutRule {
    /// The rule for a whole `tokenizer.json` value, or `None` when no rule here applies.
    pub fn from_json(tokenizer: &Value) -> Result<Option<CutRule>, LoadError> {
        let norm = &tokenizer["normalizer"];
        let pre = &tokenizer["pre_tokenizer"];
        let steps = steps(norm);
        match ty(pre) {
            Some("BertPreTokenizer" | "Whitespace" | "WhitespaceSplit") => {
                Ok(steps.iter().all(|s| char_local(s, true, &[' ', '\t', '\n', '\r'])).then_some(CutRule::Bert))
            }
            Some("Metaspace") if pre.get("split").and_then(Value::as_bool).unwrap_or(true) => {
                if pre.get("replacement").and_then(Value::as_str) != Some("▁") {
                    return Ok(None);
                }
                if steps.iter().all(|s| char_local(s, false, &[' '])) {
                    return Ok(Some(CutRule::MetaspaceSpace));
                }
                match steps.as_slice() {
                    [first, rest @ ..] if ty(first) == Some("Precompiled") && t5_tail(rest) => {
                        Ok(Some(CutRule::MetaspacePrecompiled(Box::new(Precompiled::from_json(first)?))))
                    }
                    _ => Ok(None),
                }
            }
            _ => Ok(None),
        }
    }

    /// Whether `b` (a byte position of `text`, not inside an added-token match) is an exact cut.
    pub fn is_cut(&self, text: &str, b: usize) -> bool {
        let bytes = text.as_bytes();
        let Some(&at) = bytes.get(b) else { return false };
        match self {
            CutRule::Bert => matches!(at, b' ' | b'\t' | b'\n' | b'\r'),
            CutRule::MetaspaceSpace => at == b' ',
            CutRule::MetaspacePrecompiled(p) => {
                if at != b' ' || b == 0 {
                    return false;
                }
                let prev = bytes[b - 1];
                if !prev.is_ascii_graphic() || p.ascii_has_rule(prev) {
                    return false;
                }
                let boundary = |i: usize| {
                    i == text.len() || GraphemeCursor::new(i, text.len(), true).is_boundary(text, 0).unwrap_or(false)
                };
                boundary(b - 1) && boundary(b + 1)
            }
        }
    }
}

/// After Precompiled: optionally Strip(right only), optionally Replace(`" {2,}"` → `"▁"` or `" "`).
fn t5_tail(rest: &[&Value]) -> bool {
    let strip_right = |s: &Value| {
        ty(s) == Some("Strip")
            && s.get("strip_left") == Some(&Value::Bool(false))
            && s.get("strip_right") == Some(&Value::Bool(true))
    };
    let runs = |s: &Value| {
        ty(s) == Some("Replace")
            && s.pointer("/pattern/Regex").and_then(Value::as_str) == Some(" {2,}")
            && matches!(s.get("content").and_then(Value::as_str), Some("▁" | " "))
    };
    match rest {
        [] => true,
        [a] => strip_right(a) || runs(a),
        [a, b] => strip_right(a) && runs(b),
        _ => false,
    }
}
