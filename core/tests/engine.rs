//! The fast engine (fastokens), and the own engine with fastokens turned off, against the
//! reference (`tokenizers`): ids-only results equal on
//! every fixture tokenizer — gpt4o included, whose gapped vocab the engine normalises — over
//! the exactness corpus (multilingual, code, JSON, emoji, combining marks, Roman numerals,
//! fullwidth digits, NBSP, whitespace runs, special tokens, 1 MB+), through every ids-only path
//! (sync, chunked, parallel, async, batches, count; a 100 KB piece with no safe cut), plus a property test over a weighted
//! alphabet of troublemakers.

mod common;

use std::sync::OnceLock;

use common::*;
use proptest::prelude::*;
use yieldtok::{EncodeOptions, Output, Tokenizer};

/// The engine that serves ids: fastokens on the byte-level BPE models, the own engine (measured
/// faster there, issue 13) on the SentencePiece-style BPE models.
fn ids_engine(name: &str) -> &'static str {
    if matches!(name, "gemma3" | "llama2") {
        "yieldtok"
    } else {
        "fastokens"
    }
}

fn loaded(name: &str) -> Tokenizer {
    let tok = fixture(name);
    assert_eq!(tok.wait_for_engine(), ids_engine(name), "{name}: {:?}", tok.engine_unavailable_reason());
    tok
}

fn check(name: &str) {
    let fast = loaded(name);
    check_ids(name, &fast, ids_engine(name));
    // The same ids-only paths with fastokens turned off: the own engine serves them.
    let own = fast.with_fast_engine(false);
    check_ids(name, &own, "yieldtok");
}

fn check_ids(name: &str, tok: &Tokenizer, engine: &str) {
    assert_eq!(tok.engine(), engine, "{name}");
    let name = &format!("{name}[{engine}]");
    let tok = tok.clone();
    let mut texts = corpus(&tok);
    texts.push(("roman/fullwidth/nbsp".into(), "Ⅻ ⅷ ０１２３ x\u{a0}y \u{a0}word ☺︎ ❤️ 👩🏽‍💻 ".repeat(40)));
    texts.push(("1MB".into(), mixed(&tok, 11, 1_100_000)));
    // No safe cut in 100 KB (no space, no newline): one piece past fastokens' serial bound, which
    // the own engine serves (the fast engine debug-asserts it never gets one).
    let uncut = "ab1;東京=".repeat(10_000);
    assert!(uncut.len() >= 64 * 1024 + 32 * 1024);
    texts.push(("uncut 110KB".into(), uncut));
    for (label, text) in &texts {
        for add in [false, true] {
            let want = reference(&tok, text, add).ids;
            assert_eq!(tok.encode_ids(text, add).unwrap(), want, "{name}/{label}/encode_ids/add={add}");
            for piece in [64, 4096] {
                let job = tok.job(
                    text.as_str(),
                    EncodeOptions {
                        add_special_tokens: add,
                        piece_bytes: Some(piece),
                        output: Output::Ids,
                        ..Default::default()
                    },
                );
                job.run_parallel();
                assert_eq!(job.finish().unwrap().into_ids(), want, "{name}/{label}/piece={piece}/add={add}");
            }
            let got = block_on(tok.encode_async(
                text.as_str(),
                EncodeOptions { add_special_tokens: add, output: Output::Ids, ..Default::default() },
            ))
            .unwrap();
            assert_eq!(got.into_ids(), want, "{name}/{label}/async/add={add}");
        }
    }
    let short: Vec<&str> = texts.iter().map(|(_, t)| t.as_str()).filter(|t| t.len() < 100_000).collect();
    let batch = tok.encode_batch_ids(&short, true).unwrap();
    for (t, ids) in short.iter().zip(batch) {
        assert_eq!(ids, reference(&tok, t, true).ids, "{name}/batch");
        assert_eq!(tok.count(t, true).unwrap(), ids.len());
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
fn gpt4o_with_gapped_vocab() {
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

/// Each tokenizer with fastokens serving ids, then with the own engine serving them.
fn toks() -> &'static Vec<(Tokenizer, Tokenizer)> {
    static T: OnceLock<Vec<(Tokenizer, Tokenizer)>> = OnceLock::new();
    T.get_or_init(|| {
        ["qwen3", "gpt4o", "gemma3", "llama2", "deepseek_v3"]
            .iter()
            .map(|n| {
                let fast = loaded(n);
                let own = fast.with_fast_engine(false);
                assert_eq!(own.engine(), "yieldtok", "{n}");
                (fast, own)
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    #[test]
    fn fast_equals_reference(
        parts in prop::collection::vec(prop::sample::select(TROUBLE.to_vec()), 0..80),
        words in prop::collection::vec("[a-zA-Z0-9 ]{0,8}", 0..20),
        which in 0usize..5,
        add in any::<bool>(),
    ) {
        let mut s = String::new();
        for (i, p) in parts.iter().enumerate() {
            s.push_str(p);
            if let Some(w) = words.get(i) { s.push_str(w); }
        }
        let (fast, own) = &toks()[which];
        let want = reference(fast, &s, add).ids;
        prop_assert_eq!(fast.encode_ids(&s, add).unwrap(), want.clone(), "fastokens {:?}", s);
        prop_assert_eq!(own.encode_ids(&s, add).unwrap(), want, "yieldtok {:?}", s);
    }
}
