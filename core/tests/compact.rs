//! The compact form of a tokenizer (`Tokenizer::to_compact` → `CompactTokenizer::from_bytes`):
//! a tokenizer served by the own engine alone gives `tokenizers`' whole-text results (ids, byte
//! offsets, type ids, masks, sequence ranges; with and without special tokens) on the
//! exactness corpora, whole, in small pieces and in time-budgeted steps; the forms it cannot be
//! written for are refused with a reason; truncated, altered and foreign bytes are refused
//! (never a panic), and so is a form whose recorded check results the engine does not reproduce.

mod common;

use std::time::Duration;

use common::*;
use yieldtok::{Budget, CompactTokenizer, EncodeOptions, Error, Output, Tokenizer};
use yieldtok_testkit::fixtures::NAMES;

fn compact_of(tok: &Tokenizer, name: &str) -> (Vec<u8>, CompactTokenizer) {
    let bytes = tok.to_compact().unwrap_or_else(|e| panic!("{name}: {e}"));
    let c = CompactTokenizer::from_bytes(&bytes, None).unwrap_or_else(|e| panic!("{name}: {e}"));
    (bytes, c)
}

fn check(name: &str) {
    let tok = fixture(name);
    assert_own_engine(&tok, name);
    let (_, c) = compact_of(&tok, name);
    assert_eq!(c.vocab_size(true), tok.vocab_size(true), "{name}");
    assert_eq!(c.vocab_size(false), tok.vocab_size(false), "{name}");
    assert_eq!(c.cut_rules().describe(), tok.cut_rules().describe(), "{name}");
    assert_eq!(c.origin(), tok.origin(), "{name}");
    let mut texts = corpus(&tok);
    texts.push(("troublemakers".into(), TROUBLE.concat().repeat(20)));
    texts.push(("mixed".into(), mixed(&tok, 11, 300_000)));
    for (label, text) in &texts {
        for add in [false, true] {
            let what = format!("{name}/{label}/add={add}");
            let want = reference(&tok, text, add);
            assert_same(&format!("{what}/encode"), text, &c.encode(text, add).unwrap(), &want);
            assert_eq!(c.encode_ids(text, add).unwrap(), want.ids, "{what}/ids");
            assert_eq!(c.count(text, add).unwrap(), want.ids.len(), "{what}/count");
            for piece in [1, 97, 4096] {
                if piece == 1 && text.len() > 100_000 {
                    continue;
                }
                for output in [Output::Full, Output::Ids] {
                    let opts = EncodeOptions {
                        add_special_tokens: add,
                        piece_bytes: Some(piece),
                        output,
                        ..Default::default()
                    };
                    let job = c.job(text.as_str(), opts);
                    // Small steps: a byte budget, then a time budget.
                    let mut steps = 0;
                    while !job.step(if steps % 2 == 0 {
                        Budget::bytes(300)
                    } else {
                        Budget::time(Duration::from_micros(50))
                    }) {
                        steps += 1;
                    }
                    assert_eq!(job.progress().done_bytes, text.len(), "{what}/progress");
                    match job.finish().unwrap() {
                        yieldtok::JobOutput::Full(enc) => {
                            assert_same(&format!("{what}/piece={piece}/stepped"), text, &enc, &want)
                        }
                        yieldtok::JobOutput::Ids(ids) => assert_eq!(ids, want.ids, "{what}/piece={piece}/ids"),
                    }
                    assert!(job.finish().is_err(), "{what}: a second finish is an error");
                }
            }
        }
    }
}

#[test]
fn qwen3() {
    check("qwen3");
}
#[test]
fn gpt4o() {
    check("gpt4o");
}
#[test]
fn llama3_1() {
    check("llama3_1");
}
#[test]
fn deepseek_v3() {
    check("deepseek_v3");
}
#[test]
fn gptoss() {
    check("gptoss");
}
#[test]
fn gemma3() {
    check("gemma3");
}
#[test]
fn llama2() {
    check("llama2");
}

#[test]
fn every_fixture_has_a_compact_form() {
    for name in NAMES {
        let tok = fixture(name);
        tok.to_compact().unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn forms_that_cannot_be_written_are_refused_with_a_reason() {
    // Served by the reference only (WordLevel).
    let json = r#"{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],"normalizer":null,
        "pre_tokenizer":{"type":"Whitespace"},"post_processor":null,"decoder":null,
        "model":{"type":"WordLevel","vocab":{"hello":0,"world":1,"[UNK]":2},"unk_token":"[UNK]"}}"#;
    let tok = Tokenizer::from_json_str(json, None, Some("wordlevel".into())).unwrap();
    let e = tok.to_compact().unwrap_err().to_string();
    assert!(e.contains("does not serve"), "{e}");
    // Truncation set.
    let tok = fixture("qwen3")
        .with_truncation(Some(yieldtok::TruncationParams { max_length: 8, ..Default::default() }))
        .unwrap();
    let e = tok.to_compact().unwrap_err().to_string();
    assert!(e.contains("truncation"), "{e}");
}

#[test]
fn bad_bytes_are_refused() {
    let tok = fixture("qwen3");
    let (bytes, _) = compact_of(&tok, "qwen3");
    let refused = |b: &[u8], what: &str| match CompactTokenizer::from_bytes(b, Some("t".into())) {
        Err(Error::InvalidTokenizer { message, .. }) => assert!(message.contains("compact form"), "{what}: {message}"),
        Err(e) => panic!("{what}: wrong error {e}"),
        Ok(_) => panic!("{what}: accepted"),
    };
    refused(b"", "empty");
    refused(b"{\"model\": {}}", "a tokenizer.json");
    for n in [1, 8, 12, 27, 28, 100, bytes.len() / 3, bytes.len() - 1] {
        refused(&bytes[..n], &format!("truncated to {n}"));
    }
    let meta_len = u64::from_le_bytes(bytes[12..20].try_into().unwrap()) as usize;
    let mut rng = Rng(5);
    for i in 0..60 {
        let mut b = bytes.clone();
        // Flips in the header, the JSON part and the engine part.
        let at = match i % 3 {
            0 => rng.below(28),
            1 => 28 + rng.below(meta_len),
            _ => 28 + meta_len + rng.below(bytes.len() - 28 - meta_len),
        };
        b[at] ^= 1 << rng.below(8);
        refused(&b, &format!("bit flip at {at}"));
    }
    let mut b = bytes.clone();
    b[8] = 99;
    refused(&b, "another format version");
}

/// A form whose JSON part is altered *with a valid checksum* — a recorded reference id
/// changed — is refused by the load-time check (it is what makes that check able to fail).
#[test]
fn a_form_whose_check_fails_is_refused() {
    let tok = fixture("gpt4o");
    let (bytes, _) = compact_of(&tok, "gpt4o");
    let meta_len = u64::from_le_bytes(bytes[12..20].try_into().unwrap()) as usize;
    let mut meta: serde_json::Value = serde_json::from_slice(&bytes[28..28 + meta_len]).unwrap();
    let ids = meta["check"]["results"][1]["ids"].as_array_mut().unwrap();
    let last = ids.last_mut().unwrap();
    *last = serde_json::json!(last.as_u64().unwrap() + 1);
    let meta = serde_json::to_vec(&meta).unwrap();
    let mut b = bytes[..12].to_vec();
    b.extend_from_slice(&(meta.len() as u64).to_le_bytes());
    b.extend_from_slice(&yieldtok_engine::compact::checksum(&meta).to_le_bytes());
    b.extend_from_slice(&meta);
    b.extend_from_slice(&bytes[28 + meta_len..]);
    let e = CompactTokenizer::from_bytes(&b, None).unwrap_err().to_string();
    assert!(e.contains("does not reproduce"), "{e}");
}

#[test]
fn cancel_stops_a_job() {
    let tok = fixture("qwen3");
    let (_, c) = compact_of(&tok, "qwen3");
    let text = mixed(&tok, 3, 50_000);
    let job = c.job(text.as_str(), EncodeOptions { piece_bytes: Some(1000), ..Default::default() });
    assert!(!job.step(Budget::bytes(1)));
    job.cancel();
    assert!(job.step(Budget::UNLIMITED));
    assert!(matches!(job.finish(), Err(Error::Cancelled)));
}
