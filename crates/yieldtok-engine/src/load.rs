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

/// The largest token id accepted (a hostile file cannot make the engine size tables by it).
pub const MAX_ID: u32 = 1 << 28;

#[derive(Deserialize)]
struct TokenizerJson<'a> {
    #[serde(default)]
    version: Option<String>,
    #[serde(default)]
    added_tokens: Vec<AddedTokenJson>,
    #[serde(default)]
    normalizer: Option<Value>,
    #[serde(default)]
    pre_tokenizer: Option<Value>,
    #[serde(borrow)]
    model: &'a RawValue,
}

#[derive(Deserialize)]
struct ModelType {
    #[serde(rename = "type", default)]
    kind: Option<String>,
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
    let file: TokenizerJson = serde_json::from_str(json).map_err(LoadError::Malformed)?;
    if let Some(v) = &file.version {
        if v != "1.0" {
            return Err(LoadError::Unsupported(format!("tokenizer.json version {v:?}")));
        }
    }
    let (normalizer, continuation) = match &file.normalizer {
        None => (None, None),
        Some(v) => {
            let cont = if normalizers::has_prepend(v) { Some(normalizers::from_json_continuation(v)?) } else { None };
            (normalizers::from_json(v)?, cont)
        }
    };
    let pre = pre_tokenizers::from_json(file.pre_tokenizer.as_ref())?;
    let kind: ModelType = serde_json::from_str(file.model.get()).map_err(LoadError::Malformed)?;
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
    match kind.kind.as_deref() {
        Some("BPE") => {}
        Some("WordPiece" | "Unigram") => {
            let model = if kind.kind.as_deref() == Some("WordPiece") {
                Model::WordPiece(WordPiece::from_json_str(file.model.get())?)
            } else {
                Model::Unigram(Unigram::from_json_str(file.model.get())?)
            };
            let size = match &model {
                Model::WordPiece(m) => m.vocab_size(),
                Model::Unigram(m) => m.vocab_size(),
                Model::Bpe(m) => m.vocab_size(),
            };
            let id = |s: &str| match &model {
                Model::WordPiece(m) => m.token_to_id(s),
                Model::Unigram(m) => m.token_to_id(s),
                Model::Bpe(_) => None,
            };
            let added = AddedVocab::new(&file.added_tokens, size, id, normalize)?;
            return Ok(Pipeline::new(added, normalizer, continuation, None, pre, model));
        }
        Some(other) => return Err(LoadError::Unsupported(format!("model {other}"))),
        None => return Err(LoadError::Unsupported("a model without a type".into())),
    }
    let bpe_json: BpeJson = serde_json::from_str(file.model.get()).map_err(LoadError::Malformed)?;
    let units = if pre.byte_level { Units::Bytes } else { Units::Chars };
    let (bpe, str_vocab) = Bpe::from_json(&bpe_json, units)?;
    let added = AddedVocab::new(&file.added_tokens, bpe.vocab_size(), |s| str_vocab.get(s), normalize)?;
    drop(str_vocab);
    let char_replace = file.normalizer.as_ref().filter(|_| options.fast_paths).and_then(CharReplace::from_json);
    Ok(Pipeline::new(added, normalizer, continuation, char_replace, pre, Model::Bpe(bpe)))
}
