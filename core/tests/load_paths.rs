//! The one-pass load of the reference tokenizer (`core/src/reference.rs`) against
//! `tokenizers`' own parse: the same tokenizer (its whole serialization: vocabulary, merges,
//! added tokens and their ids, normalizer, pre-tokenizer, post-processor, decoder, truncation,
//! padding) and the same view for the chunking classifier, on every fixture and on small files
//! that take the general paths (a model without `"type"` first, a legacy model without one,
//! malformed files).

use serde_json::Value;
use yieldtok::load::compare_paths;

/// The classifier reads `truncation`/`padding` only for null-ness and the model's booleans
/// as `== Some(true)`; the one-pass view gives `tokenizers`' values (false when absent).
fn comparable(v: &Value) -> Value {
    let mut v = v.clone();
    for k in ["truncation", "padding"] {
        v[k] = Value::Bool(!v[k].is_null());
    }
    for k in ["ignore_merges", "fuse_unk", "byte_fallback"] {
        if v["model"][k].is_null() {
            v["model"][k] = Value::Bool(false);
        }
    }
    v
}

fn same(json: &str, what: &str) {
    let (direct, reference) = compare_paths(json);
    let reference = reference.unwrap_or_else(|e| panic!("{what}: tokenizers refuses it: {e}"));
    let direct = direct.unwrap_or_else(|| panic!("{what}: the one-pass path failed"));
    assert!(direct.0 == reference.0, "{what}: the tokenizers differ");
    assert_eq!(comparable(&direct.1), comparable(&reference.1), "{what}: the classifier's views differ");
}

#[test]
fn one_pass_load_equals_tokenizers_parse_on_every_fixture() {
    let names = yieldtok_testkit::fixtures::NAMES.iter().chain(&yieldtok_testkit::fixtures::ENGINE_EXTRA);
    for name in names {
        let path = yieldtok_testkit::fixtures::tokenizer_json(name).unwrap();
        same(&std::fs::read_to_string(path).unwrap(), name);
    }
}

const TINY: &str = r#"{
  "version": "1.0",
  "truncation": {"direction": "Right", "max_length": 7, "strategy": "LongestFirst", "stride": 0},
  "padding": null,
  "added_tokens": [{"id": 5, "content": "<x>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
                   {"id": 9, "content": "yy", "single_word": true, "lstrip": false, "rstrip": false, "normalized": true, "special": false}],
  "normalizer": {"type": "Lowercase"},
  "pre_tokenizer": {"type": "Whitespace"},
  "post_processor": null,
  "decoder": null,
  "model": MODEL
}"#;

#[test]
fn one_pass_load_takes_the_general_paths_alike() {
    let vocab = r#"{"a": 0, "b": 1, "ab": 2, "c": 3, "abc": 4}"#;
    let models = [
        // `type` first (the one-pass BPE path), with fields tokenizers defaults.
        format!(r#"{{ "type" : "BPE" , "vocab": {vocab}, "merges": [["a", "b"], ["ab", "c"]], "dropout": 0.25}}"#),
        format!(
            r#"{{"type": "BPE", "vocab": {vocab}, "merges": ["a b", "ab c"], "ignore_merges": true, "fuse_unk": true}}"#
        ),
        String::from(
            r##"{"type": "BPE", "extra": [1, {"x": null}], "unk_token": "c", "end_of_word_suffix": "</w>", "byte_fallback": false,
                 "vocab": {"a": 0, "\u00e9": 1, "a\u00e9": 2, "\"": 3, "\"a\u00e9": 4}, "merges": ["#version: 0.2", "a \u00e9", "\" a\u00e9"]}"##,
        ),
        String::from(
            r#"{"type": "BPE", "vocab": {"a": 0, "b": 1, "a": 2}, "merges": [], "dropout": null, "unk_token": null}"#,
        ),
        // `type` later, and no `type` at all (tokenizers' own model deserializer).
        format!(r#"{{"vocab": {vocab}, "merges": [["a", "b"]], "type": "BPE", "byte_fallback": true}}"#),
        format!(r#"{{"vocab": {vocab}, "merges": [["a", "b"]]}}"#),
        format!(r#"{{"type": "WordLevel", "vocab": {vocab}, "unk_token": "c"}}"#),
    ];
    for m in &models {
        same(&TINY.replace("MODEL", m), m);
    }
}

#[test]
fn one_pass_load_fails_where_tokenizers_does_and_yieldtok_reports_its_error() {
    let bad = [
        r#"{"type": "BPE", "vocab": {"a": 0}}"#,
        r#"{"type": "BPE", "vocab": {"a": 0}, "merges": [["a", "zz"]]}"#,
        r#"{"type": "BPE", "vocab": {"a": 0}, "merges": [], "dropout": 3.0}"#,
        r#"{"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b"], "a b"]}"#,
        r#"{"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b c"]}"#,
        r#"{"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b", "c"]]}"#,
        r#"{"type": "BPE", "vocab": {"a": -1}, "merges": []}"#,
        r#"{"type": "Nope", "vocab": {}}"#,
    ];
    for m in bad {
        let json = TINY.replace("MODEL", m);
        let (direct, reference) = compare_paths(&json);
        assert!(direct.is_none(), "{m}: the one-pass path accepted it");
        let want = reference.expect_err(m);
        let got = yieldtok::Tokenizer::from_str(&json).expect_err(m).to_string();
        assert!(got.contains(&want), "{m}: yieldtok says {got:?}, tokenizers {want:?}");
    }
}
