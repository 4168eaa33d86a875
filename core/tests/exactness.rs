//! Differential exactness: chunked encodes (many piece sizes, sequential, sliced with tiny
//! budgets, parallel, and through the async scheduler) equal `tokenizers`' whole-text encode —
//! ids, byte offsets, type ids, special-tokens and attention masks — for every fixture
//! tokenizer and a varied corpus, with and without special tokens. Every fixture is served by
//! the own engine (asserted), so these compare it, chunked, with `tokenizers`' whole encode.

mod common;

use common::*;
use yieldtok::{Budget, EncodeOptions, JobOutput, Output};

const PIECES: &[usize] = &[1, 7, 64, 509, 4096, 65536];

fn check_tokenizer(name: &str) {
    let tok = fixture(name);
    assert!(tok.cut_rules().is_chunked(), "{name}: expected a chunking family, got {}", tok.cut_rules().describe());
    assert_own_engine(&tok, name);
    for (label, text) in corpus(&tok) {
        for add in [false, true] {
            let want = reference(&tok, &text, add);
            // The public sync API.
            assert_same(&format!("{name}/{label}/encode/add={add}"), &text, &tok.encode(&text, add).unwrap(), &want);
            assert_eq!(tok.encode_ids(&text, add).unwrap(), want.ids, "{name}/{label}/encode_ids/add={add}");
            for &piece in PIECES {
                if piece == 1 && text.len() > 70_000 {
                    continue; // covered by the 64k mixed text below in the parallel check
                }
                let opts = EncodeOptions {
                    add_special_tokens: add,
                    piece_bytes: Some(piece),
                    output: Output::Full,
                    ..Default::default()
                };
                // Sequential, sliced with a tiny byte budget.
                let job = tok.job(text.as_str(), opts.clone());
                let mut steps = 0;
                while !job.step(Budget::bytes(piece * 3)) {
                    steps += 1;
                }
                let got = job.finish().unwrap().into_encoding().unwrap();
                assert_same(
                    &format!("{name}/{label}/piece={piece}/sliced/add={add} ({steps} steps)"),
                    &text,
                    &got,
                    &want,
                );
                // Parallel on the pool.
                let job = tok.job(text.as_str(), opts.clone());
                job.run_parallel();
                let got = job.finish().unwrap().into_encoding().unwrap();
                assert_same(&format!("{name}/{label}/piece={piece}/parallel/add={add}"), &text, &got, &want);
            }
            // Async through the scheduler, full and ids-only.
            let opts = EncodeOptions {
                add_special_tokens: add,
                piece_bytes: Some(333),
                output: Output::Full,
                ..Default::default()
            };
            let got = block_on(tok.encode_async(text.as_str(), opts.clone())).unwrap();
            assert_same(&format!("{name}/{label}/async/add={add}"), &text, &got.into_encoding().unwrap(), &want);
            let ids = block_on(tok.encode_async(text.as_str(), EncodeOptions { output: Output::Ids, ..opts })).unwrap();
            assert_eq!(ids, JobOutput::Ids(want.ids.clone()), "{name}/{label}/async ids/add={add}");
        }
    }
}

#[test]
fn qwen3() {
    check_tokenizer("qwen3");
}
#[test]
fn llama3_1() {
    check_tokenizer("llama3_1");
}
#[test]
fn gemma3() {
    check_tokenizer("gemma3");
}
#[test]
fn deepseek_v3() {
    check_tokenizer("deepseek_v3");
}
#[test]
fn gpt4o() {
    check_tokenizer("gpt4o");
}
#[test]
fn gptoss() {
    check_tokenizer("gptoss");
}
#[test]
fn llama2() {
    check_tokenizer("llama2");
}

/// A 1 MB+ input, cut at ~every candidate in parallel and at the default sizes.
#[test]
fn megabyte_inputs() {
    for name in ["qwen3", "llama2", "gemma3", "gpt4o"] {
        let tok = fixture(name);
        assert_own_engine(&tok, name);
        let text = mixed(&tok, 99, 1_200_000);
        let want = reference(&tok, &text, true);
        assert_same(&format!("{name}/1MB/encode"), &text, &tok.encode(&text, true).unwrap(), &want);
        for piece in [3, 2048] {
            let job = tok.job(text.as_str(), EncodeOptions { piece_bytes: Some(piece), ..Default::default() });
            job.run_parallel();
            assert_same(
                &format!("{name}/1MB/piece={piece}"),
                &text,
                &job.finish().unwrap().into_encoding().unwrap(),
                &want,
            );
        }
    }
}
