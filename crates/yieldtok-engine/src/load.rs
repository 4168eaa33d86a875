//! `tokenizer.json` → [`Pipeline`]: the model side of the file (added tokens, normalizer,
//! pre-tokenizer, model), each part built by its own module's `from_json`, refusing with
//! [`LoadError::Unsupported`] whatever the engine does not reproduce exactly. Truncation,
//! padding, the post-processor and the decoder are the caller's (see `DESIGN.md`).

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::added::{AddedTokenJson, AddedVocab};
use crate::char_replace::CharReplace;
use crate::error::LoadError;
use crate::models::bpe::{Bpe, BpeJson, Units};
use crate::models::unigram::Unigram;
use crate::models::wordpiece::WordPiece;
use crate::models::Model;
use crate::normalized::Normalized;
use crate::normalizers;
use crate::pipeline::Pipeline;
use crate::pre_tokenizers;
use crate::unicode_chunks;

/// The largest token id accepted (a hostile file cannot make the engine size tables by it).
pub const MAX_ID: u32 = 1 << 28;

#[derive(Deserialize)]
struct TokenizerJson<'a> {
    #[serde(default)]
    version: Option<String>,
    #[serde(default, borrow)]
    added_tokens: Option<&'a RawValue>,
    #[serde(default, borrow)]
    normalizer: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pre_tokenizer: Option<&'a RawValue>,
    #[serde(borrow)]
    model: &'a RawValue,
}

/// The parts of a `tokenizer.json` besides the model, as JSON text (what the compact form
/// keeps of them: they are small, and rebuilt by the same code as a file load), and the model
/// ids of the added tokens' contents (the string vocabulary is not kept).
pub(crate) struct Source {
    pub added_tokens: String,
    pub normalizer: String,
    pub pre_tokenizer: String,
    pub added_ids: Vec<Option<u32>>,
    pub options: LoadOptions,
}

/// The parsed small parts (see [`Source`]).
struct Parts {
    added: Vec<AddedTokenJson>,
    normalizer: Option<Value>,
    normalizer_fn: Option<Box<dyn normalizers::Normalize>>,
    continuation: Option<Option<Box<dyn normalizers::Normalize>>>,
    pre: pre_tokenizers::PreTokenizer,
}

fn parse_parts(added: &str, normalizer: &str, pre: &str) -> Result<Parts, LoadError> {
    let added: Option<Vec<AddedTokenJson>> = serde_json::from_str(added).map_err(LoadError::Malformed)?;
    let normalizer: Option<Value> = serde_json::from_str(normalizer).map_err(LoadError::Malformed)?;
    let pre: Option<Value> = serde_json::from_str(pre).map_err(LoadError::Malformed)?;
    let (normalizer_fn, continuation) = match &normalizer {
        None => (None, None),
        Some(v) => {
            let cont = if normalizers::has_prepend(v) { Some(normalizers::from_json_continuation(v)?) } else { None };
            (normalizers::from_json(v)?, cont)
        }
    };
    let pre = pre_tokenizers::from_json(pre.as_ref())?;
    Ok(Parts { added: added.unwrap_or_default(), normalizer, normalizer_fn, continuation, pre })
}

fn raw_or_null(v: Option<&RawValue>) -> &str {
    v.map_or("null", RawValue::get)
}

#[derive(Deserialize, Debug, PartialEq)]
struct ModelType {
    #[serde(rename = "type", default)]
    kind: Option<String>,
}

/// The value of `"type"` when it is the first key of the object `text` and a plain string
/// (no escapes), else `None` (the caller then deserializes the object).
fn leading_type(text: &str) -> Option<&str> {
    let rest = text.trim_start().strip_prefix('{')?.trim_start().strip_prefix("\"type\"")?;
    let rest = rest.trim_start().strip_prefix(':')?.trim_start().strip_prefix('"')?;
    let end = rest.find(['"', '\\'])?;
    let after = rest[end..].strip_prefix('"')?.trim_start();
    (after.starts_with([',', '}'])).then(|| &rest[..end])
}

/// How to load (tests compare the fast paths with the general ones).
#[derive(Debug, Clone, Copy)]
pub struct LoadOptions {
    /// Use the fast paths that stand for a general component (the SentencePiece normalizer
    /// shape, …). Off: the general component runs (for differential tests of the fast paths).
    pub fast_paths: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions { fast_paths: true }
    }
}

/// Build the pipeline of a `tokenizer.json`.
pub fn load(json: &str, options: LoadOptions) -> Result<Pipeline, LoadError> {
    load_with_source(json, options).map(|(p, _)| p)
}

/// [`load`], also returning what the compact form keeps of the file.
pub(crate) fn load_with_source(json: &str, options: LoadOptions) -> Result<(Pipeline, Source), LoadError> {
    let file: TokenizerJson = serde_json::from_str(json).map_err(LoadError::Malformed)?;
    if let Some(v) = &file.version {
        if v != "1.0" {
            return Err(LoadError::Unsupported(format!("tokenizer.json version {v:?}")));
        }
    }
    let mut source = Source {
        added_tokens: raw_or_null(file.added_tokens).to_string(),
        normalizer: raw_or_null(file.normalizer).to_string(),
        pre_tokenizer: raw_or_null(file.pre_tokenizer).to_string(),
        added_ids: Vec::new(),
        options,
    };
    let parts = parse_parts(&source.added_tokens, &source.normalizer, &source.pre_tokenizer)?;
    // The type is the model's first key in what `tokenizers` writes: read it there, without a
    // pass over the whole model (the vocabulary and merges) to find it.
    let kind = match leading_type(file.model.get()) {
        Some(t) => ModelType { kind: Some(t.to_string()) },
        None => serde_json::from_str(file.model.get()).map_err(LoadError::Malformed)?,
    };
    let model = match kind.kind.as_deref() {
        Some("BPE") => None,
        Some("WordPiece") => Some(Model::WordPiece(WordPiece::from_json_str(file.model.get())?)),
        Some("Unigram") => Some(Model::Unigram(Unigram::from_json_str(file.model.get())?)),
        Some(other) => return Err(LoadError::Unsupported(format!("model {other}"))),
        None => return Err(LoadError::Unsupported("a model without a type".into())),
    };
    if let Some(model) = model {
        let id = |s: &str| match &model {
            Model::WordPiece(m) => m.token_to_id(s),
            Model::Unigram(m) => m.token_to_id(s),
            Model::Bpe(_) => None,
        };
        source.added_ids = parts.added.iter().map(|t| id(&t.content)).collect();
        let ids = source.added_ids.clone();
        return Ok((assemble(parts, &ids, model, options)?, source));
    }
    let bpe_json: BpeJson = serde_json::from_str(file.model.get()).map_err(LoadError::Malformed)?;
    let units = if parts.pre.byte_level { Units::Bytes } else { Units::Chars };
    let (bpe, str_vocab) = Bpe::from_json(&bpe_json, units)?;
    source.added_ids = parts.added.iter().map(|t| str_vocab.get(&t.content)).collect();
    drop(str_vocab);
    let ids = source.added_ids.clone();
    Ok((assemble(parts, &ids, Model::Bpe(bpe), options)?, source))
}

/// Build a pipeline from the compact form's parts (see [`crate::compact`]).
pub(crate) fn from_source(source: &Source, model: Model) -> Result<Pipeline, LoadError> {
    let parts = parse_parts(&source.added_tokens, &source.normalizer, &source.pre_tokenizer)?;
    if parts.added.len() != source.added_ids.len() {
        return Err(LoadError::Compact("added tokens and their ids differ in number".into()));
    }
    if let Model::Bpe(bpe) = &model {
        if (bpe.units() == Units::Bytes) != parts.pre.byte_level {
            return Err(LoadError::Compact("the model's units do not match the pre-tokenizer".into()));
        }
    }
    assemble(parts, &source.added_ids, model, source.options)
}

/// The pipeline from the parsed parts and the model; `added_ids[i]`: the model id of the
/// content of `parts.added[i]`.
fn assemble(
    parts: Parts,
    added_ids: &[Option<u32>],
    model: Model,
    options: LoadOptions,
) -> Result<Pipeline, LoadError> {
    let normalizer = parts.normalizer_fn;
    let normalize = |s: &str| -> Result<String, LoadError> {
        match &normalizer {
            None => Ok(s.to_string()),
            Some(n) => {
                let mut norm = Normalized::new(s, 0);
                n.normalize(&mut norm)
                    .map_err(|e| LoadError::Unsupported(format!("normalizing added token {s:?}: {e}")))?;
                Ok(norm.normalized)
            }
        }
    };
    let size = match &model {
        Model::WordPiece(m) => m.vocab_size(),
        Model::Unigram(m) => m.vocab_size(),
        Model::Bpe(m) => m.vocab_size(),
    };
    let ids: std::collections::HashMap<&str, Option<u32>> =
        parts.added.iter().zip(added_ids).map(|(t, &id)| (t.content.as_str(), id)).collect();
    let added = AddedVocab::new(&parts.added, size, |s| ids.get(s).copied().flatten(), normalize)?;
    if !matches!(model, Model::Bpe(_)) {
        return Ok(Pipeline::new(added, normalizer, parts.continuation, None, false, parts.pre, model));
    }
    let fast = options.fast_paths;
    let char_replace = parts.normalizer.as_ref().filter(|_| fast).and_then(CharReplace::from_json);
    let unicode_chunks = fast && parts.normalizer.as_ref().is_some_and(unicode_chunks::is_unicode_form);
    Ok(Pipeline::new(added, normalizer, parts.continuation, char_replace, unicode_chunks, parts.pre, model))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leading_type_reads_only_a_plain_first_type() {
        assert_eq!(leading_type(r#"{"type":"BPE","vocab":{}}"#), Some("BPE"));
        assert_eq!(leading_type(" {\n  \"type\" : \"Unigram\" }"), Some("Unigram"));
        for text in [
            r#"{"vocab":{},"type":"BPE"}"#,
            r#"{"type":"B\u0050E"}"#,
            r#"{"type":3}"#,
            r#"{"type":"BPE" "x"}"#,
            "[]",
            "",
        ] {
            assert_eq!(leading_type(text), None, "{text}");
        }
    }
}
