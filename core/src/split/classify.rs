//! Classifies a loaded tokenizer into a chunking family by reading its serialized structure
//! (normalizer, pre-tokenizer, model) and, for SentencePiece-style models, its vocabulary.

use std::collections::HashSet;

use serde_json::Value;
use tokenizers::NormalizerWrapper;

/// The chunking family a tokenizer was classified into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Family {
    /// Regex `Split` pre-tokenizer(s) + ByteLevel, with reviewed patterns.
    RegexByteLevel,
    /// SentencePiece-style BPE with no effective pre-tokenizer; cut safety read off the vocabulary.
    SentencePieceBpe,
    /// No proven rule: every text is encoded as one piece. The string says why.
    Unchunked(String),
}

/// The cut rules in force for one tokenizer.
#[derive(Debug, Clone)]
pub struct CutRules {
    pub family: Family,
    /// Cut before `' '` when the previous char is not whitespace and not in `forbid_before_space`.
    pub(crate) before_space: bool,
    pub(crate) forbid_before_space: HashSet<char>,
    /// Cut after `'\n'` when the next char is not whitespace and not in `forbid_after_newline`.
    pub(crate) after_newline: bool,
    pub(crate) forbid_after_newline: HashSet<char>,
    /// Normalizer for the first segment of a continuation piece (the prepend step removed);
    /// `Some(None)` means "no normalizer at all" for that segment. `None`: no continuation mode.
    pub(crate) continuation: Option<Option<NormalizerWrapper>>,
}

impl CutRules {
    pub(crate) fn unchunked(reason: impl Into<String>) -> Self {
        CutRules {
            family: Family::Unchunked(reason.into()),
            before_space: false,
            forbid_before_space: HashSet::new(),
            after_newline: false,
            forbid_after_newline: HashSet::new(),
            continuation: None,
        }
    }

    /// The rules as JSON (the compact form, [`crate::compact`]).
    pub(crate) fn to_json(&self) -> std::result::Result<Value, String> {
        let chars = |set: &HashSet<char>| {
            let mut v: Vec<char> = set.iter().copied().collect();
            v.sort();
            v.into_iter().collect::<String>()
        };
        let family = match &self.family {
            Family::RegexByteLevel => serde_json::json!("RegexByteLevel"),
            Family::SentencePieceBpe => serde_json::json!("SentencePieceBpe"),
            Family::Unchunked(why) => serde_json::json!({ "Unchunked": why }),
        };
        let continuation = match &self.continuation {
            None => Value::Null,
            Some(n) => serde_json::json!({ "normalizer": serde_json::to_value(n).map_err(|e| e.to_string())? }),
        };
        Ok(serde_json::json!({
            "family": family,
            "before_space": self.before_space,
            "forbid_before_space": chars(&self.forbid_before_space),
            "after_newline": self.after_newline,
            "forbid_after_newline": chars(&self.forbid_after_newline),
            "continuation": continuation,
        }))
    }

    /// [`to_json`](Self::to_json) read back.
    pub(crate) fn from_json(v: &Value) -> std::result::Result<CutRules, String> {
        let family = match &v["family"] {
            Value::String(s) if s == "RegexByteLevel" => Family::RegexByteLevel,
            Value::String(s) if s == "SentencePieceBpe" => Family::SentencePieceBpe,
            f => match f.get("Unchunked").and_then(Value::as_str) {
                Some(why) => Family::Unchunked(why.to_string()),
                None => return Err(format!("unknown chunking family {f}")),
            },
        };
        let flag = |k: &str| v[k].as_bool().ok_or_else(|| format!("{k} is not a boolean"));
        let chars = |k: &str| v[k].as_str().map(|s| s.chars().collect()).ok_or_else(|| format!("{k} is not a string"));
        let continuation = match &v["continuation"] {
            Value::Null => None,
            c => Some(serde_json::from_value(c["normalizer"].clone()).map_err(|e| format!("continuation: {e}"))?),
        };
        Ok(CutRules {
            family,
            before_space: flag("before_space")?,
            forbid_before_space: chars("forbid_before_space")?,
            after_newline: flag("after_newline")?,
            forbid_after_newline: chars("forbid_after_newline")?,
            continuation,
        })
    }

    /// Whether any cut other than added-token edges is allowed.
    pub fn is_chunked(&self) -> bool {
        !matches!(self.family, Family::Unchunked(_))
    }

    /// Whether a cut other than an added-token edge can fall inside one pre-tokenizer split
    /// (so inside a word): the SentencePiece family has no pre-tokenizer, one split between
    /// added tokens; the regex family cuts only where the whole text's splits end.
    pub(crate) fn cuts_inside_words(&self) -> bool {
        matches!(self.family, Family::SentencePieceBpe)
    }

    /// Human-readable summary (for `tok.chunking()` and logs).
    pub fn describe(&self) -> String {
        match &self.family {
            Family::Unchunked(why) => format!("unchunked ({why})"),
            fam => {
                let mut parts = vec![format!("{fam:?}")];
                if self.before_space {
                    let mut f: Vec<_> = self.forbid_before_space.iter().collect();
                    f.sort();
                    parts.push(format!("before-space (not after {f:?})"));
                }
                if self.after_newline {
                    let mut f: Vec<_> = self.forbid_after_newline.iter().collect();
                    f.sort();
                    parts.push(format!("after-newline (not before {f:?})"));
                }
                if self.continuation.is_some() {
                    parts.push("continuation mode".into());
                }
                parts.join(", ")
            }
        }
    }
}

/// Properties of one reviewed `Split` regex: which cut classes it provably respects.
struct PatternRule {
    pattern: &'static str,
    /// `Some(excluded next chars)` when the after-newline rule holds.
    after_newline: Option<&'static [char]>,
}

/// The reviewed patterns. Every one of them allows the before-space cut (no alternative contains
/// a non-whitespace char followed by a space, no look-behind); the after-newline cut holds where
/// every alternative that can contain `\n` ends at the end of the newline run and `\s*[\r\n]+`
/// comes before `\s+(?!\S)`.
const PATTERNS: &[PatternRule] = &[
    // Qwen2/Qwen3
    PatternRule {
        pattern: "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
        after_newline: Some(&[]),
    },
    // Llama 3 (cl100k-style)
    PatternRule {
        pattern: "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
        after_newline: Some(&[]),
    },
    // DeepSeek-V3: digits, CJK runs, then the main pattern
    PatternRule { pattern: "\\p{N}{1,3}", after_newline: Some(&[]) },
    PatternRule {
        pattern: "[\u{4e00}-\u{9fa5}\u{3040}-\u{309f}\u{30a0}-\u{30ff}]+",
        after_newline: Some(&[]),
    },
    PatternRule {
        pattern: "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
        after_newline: Some(&[]),
    },
    // o200k (gpt-4o, gpt-oss): its punctuation branch runs through newlines into `/`.
    PatternRule {
        pattern: "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
        after_newline: Some(&['/']),
    },
];

/// The GPT-2 pattern that `ByteLevel(use_regex=true)` applies: `\s+(?!\S)` comes before any
/// newline alternative, so only the before-space rule holds.
const GPT2_NEWLINE: Option<&[char]> = None;

/// Classify from the tokenizer's JSON (`tokenizer.to_string()` / the file) and the loaded model.
pub(crate) fn classify(json: &Value, tok: &tokenizers::Tokenizer) -> CutRules {
    if json.get("truncation").is_some_and(|v| !v.is_null()) || json.get("padding").is_some_and(|v| !v.is_null()) {
        return CutRules::unchunked("truncation or padding is configured");
    }
    let model = &json["model"];
    if model.get("dropout").and_then(Value::as_f64).is_some_and(|d| d > 0.0) {
        return CutRules::unchunked("BPE dropout makes encoding random");
    }
    let normalizer = &json["normalizer"];
    let pre = &json["pre_tokenizer"];
    if let Some(rules) = classify_regex(normalizer, pre) {
        return rules;
    }
    match classify_sentencepiece(normalizer, pre, model, tok) {
        Ok(rules) => rules,
        Err(why) => CutRules::unchunked(why),
    }
}

fn flatten<'a>(v: &'a Value, list_key: &str) -> Vec<&'a Value> {
    match v {
        Value::Null => vec![],
        Value::Object(o) if o.get("type").and_then(Value::as_str) == Some("Sequence") => o
            .get(list_key)
            .and_then(Value::as_array)
            .map(|a| a.iter().flat_map(|x| flatten(x, list_key)).collect())
            .unwrap_or_default(),
        other => vec![other],
    }
}

fn ty(v: &Value) -> &str {
    v.get("type").and_then(Value::as_str).unwrap_or("")
}

fn classify_regex(normalizer: &Value, pre: &Value) -> Option<CutRules> {
    // Normalizers that commute with cuts next to ' ' and '\n' (both starters that never compose).
    if !flatten(normalizer, "normalizers").iter().all(|n| matches!(ty(n), "NFC" | "NFD")) {
        return None;
    }
    let steps = flatten(pre, "pretokenizers");
    let mut newline: Option<Vec<char>> = Some(vec![]);
    let mut saw_split_or_regex = false;
    let mut saw_bytelevel = false;
    for step in &steps {
        match ty(step) {
            "Split" => {
                if saw_bytelevel {
                    return None;
                }
                let pattern = step["pattern"].get("Regex").and_then(Value::as_str)?;
                let behavior = step["behavior"].as_str()?;
                let invert = step["invert"].as_bool().unwrap_or(false);
                // The reviewed patterns match every char, so `Isolated` and inverted `Removed`
                // both yield exactly the matches as pre-tokens.
                if !matches!((behavior, invert), ("Isolated", false) | ("Removed", true)) {
                    return None;
                }
                let rule = PATTERNS.iter().find(|r| r.pattern == pattern)?;
                newline = merge_newline(newline, rule.after_newline);
                saw_split_or_regex = true;
            }
            "ByteLevel" => {
                if step["add_prefix_space"].as_bool() != Some(false) {
                    return None;
                }
                if step["use_regex"].as_bool().unwrap_or(true) {
                    newline = merge_newline(newline, GPT2_NEWLINE);
                    saw_split_or_regex = true;
                }
                saw_bytelevel = true;
            }
            _ => return None,
        }
    }
    if !(saw_split_or_regex && saw_bytelevel) {
        return None;
    }
    Some(CutRules {
        family: Family::RegexByteLevel,
        before_space: true,
        forbid_before_space: HashSet::new(),
        after_newline: newline.is_some(),
        forbid_after_newline: newline.unwrap_or_default().into_iter().collect(),
        continuation: None,
    })
}

fn merge_newline(acc: Option<Vec<char>>, rule: Option<&[char]>) -> Option<Vec<char>> {
    let (mut acc, rule) = (acc?, rule?);
    acc.extend_from_slice(rule);
    Some(acc)
}

/// The replacement a normalizer list applies to single chars (`Replace` with one-char string
/// patterns only), or an error naming the step that breaks the vocabulary argument.
struct CharMap(Vec<(char, char)>);

impl CharMap {
    fn map(&self, c: char) -> char {
        self.0.iter().fold(c, |c, &(from, to)| if c == from { to } else { c })
    }
}

fn single_char(s: &str) -> Option<char> {
    let mut it = s.chars();
    match (it.next(), it.next()) {
        (Some(c), None) => Some(c),
        _ => None,
    }
}

fn classify_sentencepiece(
    normalizer: &Value,
    pre: &Value,
    model: &Value,
    tok: &tokenizers::Tokenizer,
) -> Result<CutRules, String> {
    if ty(model) != "BPE" {
        return Err(format!("no proven cut rule for model type {:?} with this pre-tokenizer", ty(model)));
    }
    if model.get("ignore_merges").and_then(Value::as_bool) == Some(true) {
        return Err("BPE ignore_merges without a pre-tokenizer".into());
    }
    if model.get("fuse_unk").and_then(Value::as_bool) == Some(true)
        && model.get("byte_fallback").and_then(Value::as_bool) != Some(true)
    {
        return Err("fuse_unk without byte_fallback can fuse unknown chars across a cut".into());
    }
    let mut map = Vec::new();
    let mut prepend_at = None;
    let steps = flatten(normalizer, "normalizers");
    for (i, n) in steps.iter().enumerate() {
        match ty(n) {
            "Replace" => {
                let from = n["pattern"].get("String").and_then(Value::as_str).and_then(single_char);
                let to = n["content"].as_str().and_then(single_char);
                match (from, to) {
                    (Some(f), Some(t)) => map.push((f, t)),
                    _ => return Err("Replace normalizer that is not char-to-char".into()),
                }
            }
            "Prepend" if i == 0 && prepend_at.is_none() => prepend_at = Some(i),
            other => return Err(format!("normalizer {other:?} has no proven cut rule")),
        }
    }
    let chars = CharMap(map);
    // The pre-tokenizer must be absent, or a `Split` on a string the normalizer has replaced.
    for step in flatten(pre, "pretokenizers") {
        let removed = ty(step) == "Split"
            && step["pattern"]
                .get("String")
                .and_then(Value::as_str)
                .and_then(single_char)
                .is_some_and(|c| chars.map(c) != c);
        if !removed {
            return Err(format!("pre-tokenizer {:?} has no proven cut rule", ty(step)));
        }
    }
    // Which chars may not stand before a space / after a newline: those that form, with the
    // normalized space / newline, a pair inside some vocabulary token.
    let space = chars.map(' ');
    let newline = chars.map('\n');
    let mut forbid_before_space = HashSet::new();
    let mut forbid_after_newline = HashSet::new();
    for token in tok.get_vocab(false).keys() {
        let mut prev: Option<char> = None;
        for c in token.chars() {
            if let Some(p) = prev {
                // `p` may itself be the normalized space (a literal `▁` in the text): `▁▁`
                // tokens then span the cut, so it is forbidden like any other char.
                if c == space {
                    forbid_before_space.insert(p);
                }
                if p == newline {
                    forbid_after_newline.insert(c);
                }
            }
            prev = Some(c);
        }
    }
    // Raw chars whose normalized form is forbidden are forbidden too.
    for (from, to) in &chars.0 {
        if forbid_before_space.contains(to) {
            forbid_before_space.insert(*from);
        }
        if forbid_after_newline.contains(to) {
            forbid_after_newline.insert(*from);
        }
    }
    let continuation = match prepend_at {
        None => None,
        Some(i) => {
            let rest: Vec<Value> =
                steps.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, v)| (*v).clone()).collect();
            let wrapper = if rest.is_empty() {
                None
            } else {
                let seq = serde_json::json!({"type": "Sequence", "normalizers": rest});
                Some(
                    serde_json::from_value::<NormalizerWrapper>(seq)
                        .map_err(|e| format!("cannot rebuild normalizer: {e}"))?,
                )
            };
            Some(wrapper)
        }
    };
    Ok(CutRules {
        family: Family::SentencePieceBpe,
        before_space: true,
        forbid_before_space,
        after_newline: true,
        forbid_after_newline,
        continuation,
    })
}
