//! The own engine (`yieldtok-engine`) serving core's calls: every fixture is served by it
//! (asserted, so a refusal at load fails here), and its Encodings — ids, byte offsets, type
//! ids, special-tokens and attention masks, with and without special tokens — equal
//! `tokenizers`' whole-text encode: whole, chunked at every candidate, in parallel, async,
//! 1 MB+ texts, the troublemaker alphabet (proptest), batches. A tokenizer the engine refuses
//! is served by the reference, and says why.

mod common;

use std::sync::OnceLock;

use common::*;
use proptest::prelude::*;
use yieldtok::{EncodeOptions, Output, Tokenizer};
use yieldtok_testkit::fixtures::{ENGINE_EXTRA, NAMES};

fn own(name: &str) -> Tokenizer {
    // Ids-only work too: fastokens turned off, so every call below runs on the own engine.
    let tok = fixture(name).with_fast_engine(false);
    assert_own_engine(&tok, name);
    assert_eq!(tok.engine(), "yieldtok", "{name}");
    tok
}

fn check_all_paths(name: &str, tok: &Tokenizer, label: &str, text: &str) {
    for add in [false, true] {
        let want = reference(tok, text, add);
        let what = format!("{name}/{label}/add={add}");
        assert_same(&format!("{what}/encode"), text, &tok.encode(text, add).unwrap(), &want);
        assert_eq!(tok.encode_ids(text, add).unwrap(), want.ids, "{what}/encode_ids");
        assert_eq!(tok.count(text, add).unwrap(), want.ids.len(), "{what}/count");
        for piece in [1, 97, 4096] {
            if piece == 1 && text.len() > 100_000 {
                continue;
            }
            let opts = EncodeOptions {
                add_special_tokens: add,
                piece_bytes: Some(piece),
                output: Output::Full,
                ..Default::default()
            };
            let job = tok.job(text, opts.clone());
            job.run_parallel();
            assert_same(
                &format!("{what}/piece={piece}/parallel"),
                text,
                &job.finish().unwrap().into_encoding().unwrap(),
                &want,
            );
            let job = tok.job(text, EncodeOptions { output: Output::Ids, ..opts });
            job.run_parallel();
            assert_eq!(job.finish().unwrap().into_ids(), want.ids, "{what}/piece={piece}/parallel ids");
        }
        let got =
            block_on(tok.encode_async(text, EncodeOptions { add_special_tokens: add, ..Default::default() })).unwrap();
        assert_same(&format!("{what}/async"), text, &got.into_encoding().unwrap(), &want);
    }
}

fn check(name: &str) {
    let tok = own(name);
    let mut texts = corpus(&tok);
    texts.push(("troublemakers".into(), TROUBLE.concat().repeat(20)));
    for (label, text) in &texts {
        check_all_paths(name, &tok, label, text);
    }
    let short: Vec<&str> = texts.iter().map(|(_, t)| t.as_str()).filter(|t| t.len() < 100_000).collect();
    for add in [false, true] {
        let batch = tok.encode_batch(&short, add).unwrap();
        for (t, enc) in short.iter().zip(&batch) {
            assert_same(&format!("{name}/batch/add={add}"), t, enc, &reference(&tok, t, add));
        }
    }
}

#[test]
fn qwen3() {
    check("qwen3");
}
#[test]
fn llama3_1() {
    check("llama3_1");
}
#[test]
fn gemma3() {
    check("gemma3");
}
#[test]
fn deepseek_v3() {
    check("deepseek_v3");
}
#[test]
fn gpt4o() {
    check("gpt4o");
}
#[test]
fn gptoss() {
    check("gptoss");
}
#[test]
fn llama2() {
    check("llama2");
}

/// 1 MB+ texts on every fixture: whole (parallel pieces inside `encode`) and in pieces.
#[test]
fn megabyte_texts() {
    for name in NAMES {
        let tok = own(name);
        let text = mixed(&tok, 7, 1_100_000);
        for add in [false, true] {
            let want = reference(&tok, &text, add);
            assert_same(&format!("{name}/1MB/encode/add={add}"), &text, &tok.encode(&text, add).unwrap(), &want);
            let job = tok.job(
                text.as_str(),
                EncodeOptions {
                    add_special_tokens: add,
                    piece_bytes: Some(777),
                    output: Output::Full,
                    ..Default::default()
                },
            );
            job.run_parallel();
            assert_same(
                &format!("{name}/1MB/piece=777/add={add}"),
                &text,
                &job.finish().unwrap().into_encoding().unwrap(),
                &want,
            );
        }
    }
}

/// The word-level fixtures (WordPiece with truncation and padding: assembled through
/// `tokenizers`' post-processor; Unigram) are served by the own engine too.
#[test]
fn word_level_fixtures() {
    for name in ENGINE_EXTRA {
        let tok = own(name);
        for (label, text) in corpus(&tok).iter().filter(|(_, t)| t.len() < 300_000) {
            for add in [false, true] {
                let want = reference(&tok, text, add);
                assert_same(&format!("{name}/{label}/add={add}"), text, &tok.encode(text, add).unwrap(), &want);
                assert_eq!(tok.encode_ids(text, add).unwrap(), want.ids, "{name}/{label}/ids/add={add}");
            }
        }
    }
}

/// A model the engine does not load (WordLevel) is served by `tokenizers`, with the reason.
#[test]
fn refused_tokenizer_falls_back_to_the_reference() {
    let json = r#"{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],"normalizer":null,
        "pre_tokenizer":{"type":"Whitespace"},"post_processor":null,"decoder":null,
        "model":{"type":"WordLevel","vocab":{"hello":0,"world":1,"[UNK]":2},"unk_token":"[UNK]"}}"#;
    let tok = Tokenizer::from_json_str(json, None, Some("wordlevel".into())).unwrap();
    assert_eq!(tok.encoding_engine(), "tokenizers");
    assert_eq!(tok.engine(), "tokenizers");
    let why = tok.encoding_engine_unavailable_reason().expect("a reason");
    assert!(why.contains("WordLevel"), "{why}");
    let text = "hello world and more world";
    assert_eq!(tok.encode(text, true).unwrap(), reference(&tok, text, true));
}

fn toks() -> &'static Vec<Tokenizer> {
    static T: OnceLock<Vec<Tokenizer>> = OnceLock::new();
    T.get_or_init(|| NAMES.iter().map(|n| own(n)).collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    /// Full encodings over the troublemaker alphabet, whole and cut at every candidate.
    #[test]
    fn own_equals_reference(
        parts in prop::collection::vec(prop::sample::select(TROUBLE.to_vec()), 0..60),
        words in prop::collection::vec("[a-zA-Z0-9 \n]{0,8}", 0..20),
        which in 0usize..7,
        add in any::<bool>(),
    ) {
        let tok = &toks()[which];
        let mut s = String::new();
        for (i, p) in parts.iter().enumerate() {
            s.push_str(p);
            if let Some(w) = words.get(i) { s.push_str(w); }
        }
        let want = reference(tok, &s, add);
        prop_assert_eq!(&tok.encode(&s, add).unwrap(), &want, "whole {:?}", s);
        let job = tok.job(s.as_str(), EncodeOptions { add_special_tokens: add, piece_bytes: Some(1), output: Output::Full, ..Default::default() });
        job.run_parallel();
        prop_assert_eq!(&job.finish().unwrap().into_encoding().unwrap(), &want, "pieces of 1 byte {:?}", s);
    }
}
