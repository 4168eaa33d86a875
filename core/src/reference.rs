//! The reference tokenizer (`tokenizers::Tokenizer`) from `tokenizer.json` text, and the
//! parts of the file the chunking classifier reads (see [`crate::split::classify`]), in one
//! pass over the text.
//!
//! `tokenizers`' own parse (`str::parse::<tokenizers::Tokenizer>`) runs the model — the
//! vocabulary and merges, nearly all of the file — through its `ModelWrapper` deserializer,
//! which buffers the whole model into serde's untagged `Content`, then into a
//! `serde_json::Value`, and only then into the `BPE`, whose own deserializer buffers the
//! merges into `Content` once more (qwen3: 151k vocabulary entries and 151k merges). [`parse`]
//! runs the very same `TokenizerImpl` visitor (the same version check, builders, added-token
//! ids and order); a model object that starts with `"type": "BPE"` (what `tokenizers` writes)
//! is read by [`ReferenceBpe`] — `BPE`'s deserializer, key for key, into the same
//! `BpeBuilder` calls, without the buffering — and any other model goes through
//! `ModelWrapper` unchanged. The normalizer and pre-tokenizer are deserialized by their own
//! wrappers from their text, which is kept as the classifier's view (no second pass over the
//! file). Whenever this path fails, the caller falls back to `tokenizers`' own parse (so
//! errors, and any file this path might read differently, are `tokenizers`' own);
//! `tests/load_paths.rs` proves that both give the same tokenizer (its full serialization) on
//! every fixture and on small files that reach the other paths.

use crate::error::BoxError;
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::Value;
use tokenizers::models::bpe::{BpeBuilder, BPE};
use tokenizers::models::TrainerWrapper;
use tokenizers::tokenizer::{
    DecoderWrapper, Model, NormalizedString, Normalizer, PostProcessorWrapper, PreTokenizedString, PreTokenizer, Token,
    TokenizerImpl,
};
use tokenizers::{ModelWrapper, NormalizerWrapper, PreTokenizerWrapper};

/// The parts of a `tokenizer.json` the classifier reads: `normalizer`, `pre_tokenizer`,
/// `truncation`, `padding` (null when absent) and the model's `type`, `dropout`,
/// `ignore_merges`, `fuse_unk`, `byte_fallback` and `unk_id` (Unigram's, which names the
/// tokens `tokenizers` calls by their text: [`crate::encoding::TextNamed`]).
pub(crate) type ClassifierView = Value;

/// The model's fields the classifier reads, from the file (the vocabulary is skipped).
#[derive(Deserialize)]
struct ModelMeta {
    #[serde(rename = "type", default)]
    ty: Option<String>,
    #[serde(default)]
    dropout: Option<f64>,
    #[serde(default)]
    ignore_merges: Option<bool>,
    #[serde(default)]
    fuse_unk: Option<bool>,
    #[serde(default)]
    byte_fallback: Option<bool>,
    #[serde(default)]
    unk_id: Option<u64>,
}

impl ModelMeta {
    fn to_value(&self) -> Value {
        let mut v = serde_json::json!({"type": self.ty, "dropout": self.dropout, "ignore_merges": self.ignore_merges,
                           "fuse_unk": self.fuse_unk, "byte_fallback": self.byte_fallback});
        // Only where the file has one (Unigram's): a BPE read directly has no `unk_id` field.
        if let Some(id) = self.unk_id {
            v["unk_id"] = id.into();
        }
        v
    }
}

/// The classifier's parts of the file (the old two-pass path, and the fallback).
#[derive(Deserialize)]
struct Structure {
    #[serde(default)]
    normalizer: Value,
    #[serde(default)]
    pre_tokenizer: Value,
    #[serde(default)]
    truncation: Value,
    #[serde(default)]
    padding: Value,
    model: ModelMeta,
}

/// Whether `model` (the text of the model object) starts with `"type": "BPE"`.
fn starts_as_bpe(model: &str) -> bool {
    let rest = model.trim_start().strip_prefix('{').map(str::trim_start);
    let rest = rest.and_then(|r| r.strip_prefix("\"type\"")).map(str::trim_start);
    let rest = rest.and_then(|r| r.strip_prefix(':')).map(str::trim_start);
    rest.and_then(|r| r.strip_prefix("\"BPE\"")).is_some_and(|r| r.trim_start().starts_with([',', '}']))
}

/// A `BPE` deserialized as `tokenizers`' own `BPE` deserializer does (the same keys, the same
/// builder calls in the same order, the same "Missing vocab/merges"), without its buffering:
/// the vocabulary goes into a map sized for it, the merges (pairs, or legacy `"a b"` strings
/// split as `tokenizers`' `convert_merges_to_hashmap` does) straight into the list, where
/// `tokenizers` first buffers all of them into serde's untagged `Content`. A file that
/// mixes pairs and strings, or has a legacy merge that does not split in two, is an error
/// (the caller then takes `tokenizers`' own parse, which refuses it).
struct ReferenceBpe(BPE);

impl<'de> Deserialize<'de> for ReferenceBpe {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(BpeVisitor)
    }
}

struct BpeVisitor;

impl<'de> serde::de::Visitor<'de> for BpeVisitor {
    type Value = ReferenceBpe;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("struct BPE")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<ReferenceBpe, A::Error> {
        let mut builder = BpeBuilder::new();
        let mut vocab: Option<ahash::AHashMap<String, u32>> = None;
        let mut merges: Option<Vec<(String, String)>> = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "dropout" => {
                    if let Some(v) = map.next_value()? {
                        builder = builder.dropout(v);
                    }
                }
                "unk_token" => {
                    if let Some(v) = map.next_value()? {
                        builder = builder.unk_token(v);
                    }
                }
                "continuing_subword_prefix" => {
                    if let Some(v) = map.next_value()? {
                        builder = builder.continuing_subword_prefix(v);
                    }
                }
                "end_of_word_suffix" => {
                    if let Some(v) = map.next_value()? {
                        builder = builder.end_of_word_suffix(v);
                    }
                }
                "fuse_unk" => {
                    if let Some(v) = map.next_value()? {
                        builder = builder.fuse_unk(v);
                    }
                }
                "byte_fallback" => {
                    if let Some(v) = map.next_value()? {
                        builder = builder.byte_fallback(v);
                    }
                }
                "ignore_merges" => {
                    if let Some(v) = map.next_value()? {
                        builder = builder.ignore_merges(v);
                    }
                }
                "vocab" => vocab = Some(map.next_value::<VocabMap>()?.0),
                "merges" => merges = Some(map.next_value::<MergeList>()?.0),
                "type" => match map.next_value::<&str>()? {
                    "BPE" => {}
                    u => return Err(A::Error::invalid_value(serde::de::Unexpected::Str(u), &"BPE")),
                },
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        match (vocab, merges) {
            (Some(vocab), Some(merges)) => {
                Ok(ReferenceBpe(builder.vocab_and_merges(vocab, merges).build().map_err(A::Error::custom)?))
            }
            _ => Err(A::Error::custom("Missing vocab/merges")),
        }
    }
}

/// `model.vocab` into a map sized for it (a later duplicate key overrides, as in the
/// `HashMap` `tokenizers` deserializes).
struct VocabMap(ahash::AHashMap<String, u32>);

impl<'de> Deserialize<'de> for VocabMap {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = VocabMap;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<VocabMap, A::Error> {
                let mut entries: Vec<(String, u32)> = Vec::new();
                while let Some(e) = map.next_entry()? {
                    entries.push(e);
                }
                let mut vocab = ahash::AHashMap::with_capacity(entries.len());
                vocab.extend(entries);
                Ok(VocabMap(vocab))
            }
        }
        d.deserialize_map(V)
    }
}

/// `model.merges`: all pairs `["a", "b"]`, or all legacy strings `"a b"` (`#version` lines
/// skipped, each other line split on ' ' into exactly two parts).
struct MergeList(Vec<(String, String)>);

enum OneMerge<'a> {
    Pair(String, String),
    Legacy(std::borrow::Cow<'a, str>),
}

impl<'de> Deserialize<'de> for OneMerge<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = OneMerge<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a merge")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<OneMerge<'de>, E> {
                Ok(OneMerge::Legacy(v.into()))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<OneMerge<'de>, E> {
                Ok(OneMerge::Legacy(v.to_string().into()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<OneMerge<'de>, A::Error> {
                let a = seq.next_element()?.ok_or_else(|| A::Error::invalid_length(0, &self))?;
                let b = seq.next_element()?.ok_or_else(|| A::Error::invalid_length(1, &self))?;
                if seq.next_element::<serde::de::IgnoredAny>()?.is_some() {
                    return Err(A::Error::invalid_length(3, &self));
                }
                Ok(OneMerge::Pair(a, b))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for MergeList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = MergeList;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of merges")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<MergeList, A::Error> {
                let mut merges = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                let (mut pairs, mut legacy) = (false, false);
                while let Some(m) = seq.next_element::<OneMerge<'de>>()? {
                    match m {
                        OneMerge::Pair(a, b) => {
                            pairs = true;
                            merges.push((a, b));
                        }
                        OneMerge::Legacy(line) => {
                            legacy = true;
                            if line.starts_with("#version") {
                                continue;
                            }
                            let mut parts = line.split(' ');
                            match (parts.next(), parts.next(), parts.next()) {
                                (Some(a), Some(b), None) => merges.push((a.to_string(), b.to_string())),
                                _ => return Err(A::Error::custom(format!("bad merge {line:?}"))),
                            }
                        }
                    }
                    if pairs && legacy {
                        return Err(A::Error::custom("merges mix pairs and strings"));
                    }
                }
                Ok(MergeList(merges))
            }
        }
        d.deserialize_seq(V)
    }
}

/// The model, deserialized from its text; and the fields the classifier reads.
struct DirectModel {
    model: ModelWrapper,
    meta: Value,
}

impl<'de> Deserialize<'de> for DirectModel {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <&RawValue>::deserialize(d)?.get();
        if starts_as_bpe(raw) {
            let ReferenceBpe(bpe) = serde_json::from_str(raw).map_err(D::Error::custom)?;
            // What the file says, as `tokenizers` read it: its BPE defaults are false.
            let meta = serde_json::json!({"type": "BPE", "dropout": bpe.dropout.map(f64::from),
                "ignore_merges": bpe.ignore_merges, "fuse_unk": bpe.fuse_unk, "byte_fallback": bpe.byte_fallback});
            return Ok(DirectModel { model: ModelWrapper::BPE(bpe), meta });
        }
        let model: ModelWrapper = serde_json::from_str(raw).map_err(D::Error::custom)?;
        let meta: ModelMeta = serde_json::from_str(raw).map_err(D::Error::custom)?;
        Ok(DirectModel { model, meta: meta.to_value() })
    }
}

impl From<DirectModel> for ModelWrapper {
    fn from(m: DirectModel) -> Self {
        m.model
    }
}

impl Model for DirectModel {
    type Trainer = TrainerWrapper;
    fn tokenize(&self, sequence: &str) -> tokenizers::Result<Vec<Token>> {
        self.model.tokenize(sequence)
    }
    fn token_to_id(&self, token: &str) -> Option<u32> {
        self.model.token_to_id(token)
    }
    fn id_to_token(&self, id: u32) -> Option<String> {
        self.model.id_to_token(id)
    }
    fn get_vocab(&self) -> std::collections::HashMap<String, u32> {
        self.model.get_vocab()
    }
    fn get_vocab_size(&self) -> usize {
        self.model.get_vocab_size()
    }
    fn save(&self, folder: &std::path::Path, prefix: Option<&str>) -> tokenizers::Result<Vec<std::path::PathBuf>> {
        self.model.save(folder, prefix)
    }
    fn get_trainer(&self) -> TrainerWrapper {
        self.model.get_trainer()
    }
}

/// A component deserialized by its own deserializer from its text, which is kept as a value.
struct Captured<T> {
    inner: T,
    value: Value,
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Captured<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <&RawValue>::deserialize(d)?.get();
        let inner = serde_json::from_str(raw).map_err(D::Error::custom)?;
        let value = serde_json::from_str(raw).map_err(D::Error::custom)?;
        Ok(Captured { inner, value })
    }
}

impl Normalizer for Captured<NormalizerWrapper> {
    fn normalize(&self, normalized: &mut NormalizedString) -> tokenizers::Result<()> {
        self.inner.normalize(normalized)
    }
}

impl From<Captured<NormalizerWrapper>> for NormalizerWrapper {
    fn from(c: Captured<NormalizerWrapper>) -> Self {
        c.inner
    }
}

impl PreTokenizer for Captured<PreTokenizerWrapper> {
    fn pre_tokenize(&self, pretokenized: &mut PreTokenizedString) -> tokenizers::Result<()> {
        self.inner.pre_tokenize(pretokenized)
    }
}

impl From<Captured<PreTokenizerWrapper>> for PreTokenizerWrapper {
    fn from(c: Captured<PreTokenizerWrapper>) -> Self {
        c.inner
    }
}

type Direct = TokenizerImpl<
    DirectModel,
    Captured<NormalizerWrapper>,
    Captured<PreTokenizerWrapper>,
    PostProcessorWrapper,
    DecoderWrapper,
>;

/// The one-pass path; `None` when it fails (the caller then runs `tokenizers`' own parse).
fn parse_direct(json: &str) -> Option<(tokenizers::Tokenizer, ClassifierView)> {
    let imp: Direct = serde_json::from_str(json).ok()?;
    let captured = |v: Option<&Value>| v.cloned().unwrap_or(Value::Null);
    let view = serde_json::json!({
        "normalizer": captured(imp.get_normalizer().map(|n| &n.value)),
        "pre_tokenizer": captured(imp.get_pre_tokenizer().map(|p| &p.value)),
        "truncation": serde_json::to_value(imp.get_truncation()).ok()?,
        "padding": serde_json::to_value(imp.get_padding()).ok()?,
        "model": imp.get_model().meta.clone(),
    });
    Some((imp.into(), view))
}

/// `tokenizers`' own parse, and the classifier's view from a second pass over the file.
pub(crate) fn parse_two_pass(json: &str) -> std::result::Result<(tokenizers::Tokenizer, ClassifierView), BoxError> {
    let tok: tokenizers::Tokenizer = json.parse()?;
    let s: Structure = serde_json::from_str(json)?;
    let view = serde_json::json!({
        "normalizer": s.normalizer,
        "pre_tokenizer": s.pre_tokenizer,
        "truncation": s.truncation,
        "padding": s.padding,
        "model": s.model.to_value(),
    });
    Ok((tok, view))
}

/// The reference tokenizer of `json` and the classifier's view of the file; `Err` is
/// `tokenizers`' own error (or the JSON parser's).
pub(crate) fn parse(json: &str) -> std::result::Result<(tokenizers::Tokenizer, ClassifierView), BoxError> {
    match parse_direct(json) {
        Some(parsed) => Ok(parsed),
        None => parse_two_pass(json),
    }
}

#[doc(hidden)]
/// What [`compare_paths`] compares: the tokenizer's serialization and the classifier's view.
pub type PathView = (String, Value);

/// For tests: the serialization of the tokenizer and the classifier's view from the one-pass
/// path (`None` if it fails) and from `tokenizers`' own parse.
pub fn compare_paths(json: &str) -> (Option<PathView>, std::result::Result<PathView, String>) {
    let ser = |(t, v): (tokenizers::Tokenizer, Value)| (t.to_string(false).expect("serializes"), v);
    (parse_direct(json).map(ser), parse_two_pass(json).map(ser).map_err(|e| e.to_string()))
}
