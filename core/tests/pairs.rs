//! Pairs, truncation and padding against `tokenizers` (the Rust crate, loaded fresh from each
//! fixture's `tokenizer.json`): single texts, pairs and mixed batches, every truncation
//! strategy and direction, strides, fixed / batch-longest / multiple-of padding on either
//! side; every field compared, overflowing parts recursively, sequence ranges included. Where
//! the oracle fails (an error or a panic, e.g. a stride not below a truncated half), yieldtok
//! must fail too.
//!
//! The oracle is `TokenizerImpl::encode` as Python `tokenizers` 0.23.3 (and the crate up to
//! 0.22.2) runs it: each sequence tokenized whole (`encode_single_sequence`), then
//! `post_process` (truncate, post-processor, pad). The crate 0.23.2 in Cargo.lock differs: its
//! `do_tokenize` stops tokenizing once `max_length` tokens exist (tokenizers PR #1990), which
//! empties or shortens `overflowing` (issue #2091; fix in PR #2098, not in a crate release:
//! crates.io has no 0.23.3). The Python suite (`tests/python/test_pairs_truncation.py`)
//! compares against Python `tokenizers` 0.23.3 itself; [`crate_0_23_2_drops_overflowing`]
//! records the crate's difference so that a crate bump that fixes it is noticed.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use common::*;
use tokenizers::{EncodeInput, PaddingDirection, PaddingParams, PaddingStrategy};
use yieldtok::{
    CancelFlag, EncodeOptions, Encoding, Input, Output, TruncationDirection, TruncationParams, TruncationStrategy,
};
use yieldtok_testkit::fixtures::{ENGINE_EXTRA, NAMES};

fn texts(tok: &yieldtok::Tokenizer) -> Vec<String> {
    let added = added_tokens(tok, 3).join(" ");
    vec![
        String::new(),
        "Hello world".into(),
        "  odd\twhitespace \u{3000} and\n\nnewlines  ".into(),
        "fn main() { println!(\"{}\", 1 + 2); } // code".into(),
        "emoji 😀👍🏽 and 日本語のテキスト, Ünïcödé, русский текст".into(),
        format!("special tokens {added} inside text"),
        MULTILINGUAL.join(" ").chars().take(400).collect(),
        mixed(tok, 7, 1500),
    ]
}

fn truncations() -> Vec<Option<TruncationParams>> {
    // Every strategy and direction with a stride and with a short max length; no stride and
    // max length 0 once (the Python suite runs the full grid against Python `tokenizers`).
    let mut v = vec![None];
    for strategy in [TruncationStrategy::LongestFirst, TruncationStrategy::OnlyFirst, TruncationStrategy::OnlySecond] {
        for direction in [TruncationDirection::Right, TruncationDirection::Left] {
            for (max_length, stride) in [(24, 3), (9, 0)] {
                v.push(Some(TruncationParams { max_length, stride, strategy, direction }));
            }
        }
    }
    v.push(Some(TruncationParams { max_length: 24, ..Default::default() }));
    v.push(Some(TruncationParams { max_length: 0, ..Default::default() }));
    v
}

fn paddings() -> Vec<Option<PaddingParams>> {
    vec![
        None,
        Some(PaddingParams {
            strategy: PaddingStrategy::Fixed(40),
            pad_id: 3,
            pad_type_id: 1,
            pad_token: "<pad>".into(),
            ..Default::default()
        }),
        Some(PaddingParams {
            pad_to_multiple_of: Some(8),
            direction: PaddingDirection::Left,
            pad_id: 7,
            ..Default::default()
        }),
        Some(PaddingParams { ..Default::default() }),
    ]
}

/// `Some(result)` or `None` when `tokenizers` errors or panics.
fn attempt<T>(f: impl FnOnce() -> tokenizers::Result<T>) -> Option<T> {
    catch_unwind(AssertUnwindSafe(f)).ok().and_then(Result::ok)
}

fn check(what: &str, hf: &tokenizers::Tokenizer, got: yieldtok::Result<Encoding>, want: Option<tokenizers::Encoding>) {
    match (got, want) {
        (Ok(g), Some(w)) => {
            alignment(what, &g, &w);
            same(what, &g, &Encoding::from_reference(w, hf))
        }
        (Err(_), None) => {}
        (Ok(g), None) => panic!("{what}: tokenizers fails, yieldtok gives {} tokens", g.len()),
        (Err(e), Some(_)) => panic!("{what}: yieldtok fails: {e}"),
    }
}

/// The alignment methods against `tokenizers`' own on its encoding (offsets of the same kind on
/// both sides), overflowing parts included: at every index (and just past the ends) of short
/// encodings, at a spread of indices plus both ends of long ones (each call scans the tokens).
fn alignment(what: &str, g: &Encoding, w: &tokenizers::Encoding) {
    let n = w.len();
    let n_words = w.get_word_ids().iter().flatten().max().map_or(0, |m| m + 1);
    let n_pos = w.get_offsets().iter().map(|o| o.1).max().unwrap_or(0);
    for seq in 0..3 {
        for word in indices(n_words as usize + 2) {
            let word = word as u32;
            assert_eq!(
                g.word_to_tokens(word, seq),
                w.word_to_tokens(word, seq),
                "{what}: word_to_tokens({word}, {seq})"
            );
            assert_eq!(
                g.word_to_offsets(word, seq, &g.offsets),
                w.word_to_chars(word, seq),
                "{what}: word_to_chars({word}, {seq})"
            );
        }
        // From just before the first token's start (an overflowing part starts far in).
        let lo = w.get_offsets().iter().filter(|o| o.1 > o.0).map(|o| o.0).min().unwrap_or(0).saturating_sub(2);
        for pos in [0, 1].into_iter().chain(indices(n_pos + 2 - lo.min(n_pos)).map(|i| lo + i)) {
            assert_eq!(
                g.offset_to_token(pos, seq, &g.offsets),
                w.char_to_token(pos, seq),
                "{what}: char_to_token({pos}, {seq})"
            );
            assert_eq!(
                g.offset_to_word(pos, seq, &g.offsets),
                w.char_to_word(pos, seq),
                "{what}: char_to_word({pos}, {seq})"
            );
        }
    }
    for t in indices(n + 2) {
        assert_eq!(g.token_to_word(t), w.token_to_word(t), "{what}: token_to_word({t})");
        assert_eq!(g.token_to_offsets(t, &g.offsets), w.token_to_chars(t), "{what}: token_to_chars({t})");
        assert_eq!(g.token_to_sequence(t), w.token_to_sequence(t), "{what}: token_to_sequence({t})");
    }
    // The first parts and the last (a short max length makes hundreds; each part's fields are
    // compared by `same`, the Python suite runs the methods on every part).
    let parts = g.overflowing.len().min(w.get_overflowing().len());
    for (k, (a, b)) in g.overflowing.iter().zip(w.get_overflowing()).enumerate() {
        if k >= 2 && k + 1 != parts {
            continue;
        }
        alignment(&format!("{what} overflowing[{k}]"), a, b);
    }
}

/// `0..n` when short; else its first and last 40 and about 120 spread in between.
fn indices(n: usize) -> impl Iterator<Item = usize> {
    let step = (n.saturating_sub(80) / 120).max(1);
    (0..n).filter(move |&i| n <= 200 || i < 40 || i + 40 >= n || i % step == 0)
}

/// Field by field, with short messages (encodings can be long).
fn same(what: &str, g: &Encoding, w: &Encoding) {
    assert_eq!(g.len(), w.len(), "{what}: length");
    assert!(g.ids == w.ids, "{what}: ids");
    assert!(g.type_ids == w.type_ids, "{what}: type ids");
    assert!(g.attention_mask == w.attention_mask, "{what}: attention mask");
    assert!(g.special_tokens_mask == w.special_tokens_mask, "{what}: special tokens mask");
    assert!(g.offsets == w.offsets, "{what}: offsets");
    assert!(g.word_ids == w.word_ids, "{what}: word ids");
    assert!(g.sequence_ids() == w.sequence_ids(), "{what}: sequence ids");
    assert_eq!(g.sequence_ranges, w.sequence_ranges, "{what}: sequence ranges");
    assert_eq!(g.token_texts, w.token_texts, "{what}: token strings");
    assert_eq!(g.overflowing.len(), w.overflowing.len(), "{what}: overflowing parts");
    for (k, (a, b)) in g.overflowing.iter().zip(&w.overflowing).enumerate() {
        same(&format!("{what} overflowing[{k}]"), a, b);
    }
}

#[test]
fn pairs_truncation_padding_match_tokenizers() {
    for name in NAMES.iter().chain(ENGINE_EXTRA.iter()) {
        let Ok(path) = yieldtok_testkit::fixtures::tokenizer_json(name) else { continue };
        let base = fixture(name).with_truncation(None).unwrap().with_padding(None);
        let mut oracle = Oracle { hf: tokenizers::Tokenizer::from_file(&path).unwrap() };
        let texts = texts(&base);
        let pairs: Vec<(usize, usize)> = vec![(1, 2), (3, 4), (0, 5), (6, 1), (7, 6), (4, 0)];
        for (ti, trunc) in truncations().into_iter().enumerate() {
            // Settings `tokenizers` refuses, yieldtok refuses too.
            // A `max_length` below the special tokens' count: the release builds of
            // `tokenizers` wrap the subtraction (Python: no truncation at all), this debug
            // build panics; the Python suite covers it.
            let Ok(ok) = catch_unwind(AssertUnwindSafe(|| oracle.hf.with_truncation(trunc.clone()).is_ok())) else {
                continue;
            };
            let Ok(with_trunc) = base.with_truncation(trunc.clone()) else {
                assert!(!ok, "{name}: yieldtok refuses {trunc:?}");
                continue;
            };
            assert!(ok, "{name}: tokenizers refuses {trunc:?}");
            let paddings = paddings();
            let n_pads = paddings.len();
            for (pi, pad) in paddings.into_iter().enumerate() {
                // Pairwise, not the whole product: every truncation with one padding (taken in
                // turn), and no truncation and the first two truncations with every padding.
                // Truncation and padding apply one after the other; the pairs cover them both.
                if pi != ti % n_pads && ti > 2 {
                    continue;
                }
                oracle.hf.with_padding(pad.clone());
                let hf = &oracle;
                let tok = with_trunc.with_padding(pad.clone());
                let label = |s: &str| format!("{name} {s} trunc={trunc:?} pad={pad:?}");
                for add in [true, false] {
                    for (i, t) in texts.iter().enumerate() {
                        let want = attempt(|| hf.encode(t.as_str(), add));
                        check(&label(&format!("single {i} add={add}")), &hf.hf, tok.encode(t, add), want.clone());
                        let ids = tok.encode_ids(t, add);
                        assert_eq!(
                            ids.ok(),
                            want.map(|w| w.get_ids().to_vec()),
                            "{}",
                            label(&format!("ids {i} add={add}"))
                        );
                    }
                    for &(a, b) in &pairs {
                        let want = attempt(|| hf.encode((texts[a].as_str(), texts[b].as_str()), add));
                        check(
                            &label(&format!("pair {a},{b} add={add}")),
                            &hf.hf,
                            tok.encode_pair(&texts[a], &texts[b], add),
                            want,
                        );
                    }
                }
                // A batch mixing lengths, texts and pairs.
                let inputs: Vec<Input> = (0..texts.len())
                    .map(|i| {
                        if i % 3 == 1 {
                            Input::Pair(texts[i].as_str().into(), texts[(i + 3) % texts.len()].as_str().into())
                        } else {
                            Input::Single(texts[i].as_str().into())
                        }
                    })
                    .collect();
                let hf_inputs: Vec<EncodeInput> = inputs
                    .iter()
                    .map(|i| match i {
                        Input::Single(t) => EncodeInput::from(t.to_string()),
                        Input::Pair(a, b) => EncodeInput::from((a.to_string(), b.to_string())),
                        Input::Words(_) | Input::WordsPair(..) => unreachable!("texts and pairs only"),
                    })
                    .collect();
                let want = attempt(|| hf.encode_batch(hf_inputs, true));
                let got = tok.encode_inputs_with_cancel(&inputs, &EncodeOptions::default(), &CancelFlag::new());
                match (got, want) {
                    (Ok(g), Some(w)) => {
                        assert_eq!(g.len(), w.len());
                        for (k, (g, w)) in g.into_iter().zip(w).enumerate() {
                            check(&label(&format!("batch item {k}")), &hf.hf, Ok(g.into_encoding().unwrap()), Some(w));
                        }
                    }
                    (Err(_), None) => {}
                    (g, w) => panic!("{}: batch: yieldtok ok={} tokenizers ok={}", label(""), g.is_ok(), w.is_some()),
                }
                // Singles only: the sync batch and the async one pad over the batch the same way.
                let singles: Vec<&str> = texts.iter().map(String::as_str).collect();
                if let Some(w) =
                    attempt(|| hf.encode_batch(singles.iter().map(|&t| EncodeInput::from(t)).collect(), true))
                {
                    let got = tok.encode_batch(&singles, true).unwrap();
                    let w: Vec<Encoding> = w.into_iter().map(|w| Encoding::from_reference(w, &hf.hf)).collect();
                    got.iter().zip(&w).for_each(|(g, w)| same(&label("encode_batch"), g, w));
                    let outs = block_on(tok.encode_batch_async(singles.clone(), EncodeOptions::default())).unwrap();
                    outs.iter().zip(&w).for_each(|(g, w)| {
                        same(&label("encode_batch_async"), g.clone().into_encoding().as_ref().unwrap(), w)
                    });
                    let ids = tok.encode_batch_ids(&singles, true).unwrap();
                    assert_eq!(
                        ids,
                        w.iter().map(|e| e.ids.clone()).collect::<Vec<_>>(),
                        "{}",
                        label("encode_batch_ids")
                    );
                }
            }
        }
    }
}

/// `count` is the untruncated length; chat-template and trajectory paths never truncate.
#[test]
fn count_ignores_truncation_and_padding() {
    let tok = fixture("qwen3");
    let text = mixed(&tok, 3, 5000);
    let full = tok.count(&text, true).unwrap();
    let t = tok
        .with_truncation(Some(TruncationParams { max_length: 64, ..Default::default() }))
        .unwrap()
        .with_padding(Some(PaddingParams { strategy: PaddingStrategy::Fixed(100), ..Default::default() }));
    assert!(full > 100);
    assert_eq!(t.count(&text, true).unwrap(), full);
    assert_eq!(t.encode(&text, true).unwrap().len(), 100);
    assert_eq!(t.encode_ids(&text, true).unwrap().len(), 100);
    let job =
        t.job(text.as_str(), EncodeOptions { output: Output::Ids, truncate_and_pad: false, ..Default::default() });
    job.step(yieldtok::Budget::UNLIMITED);
    assert_eq!(job.finish().unwrap().ids().len(), full);
    // The settings survive serialization, as `tokenizers`' `to_str` keeps them.
    let json: serde_json::Value = serde_json::from_str(&t.to_json().unwrap()).unwrap();
    assert_eq!(json["truncation"]["max_length"], 64);
    assert_eq!(json["padding"]["strategy"]["Fixed"], 100);
    let back = yieldtok::Tokenizer::from_json_str(&t.to_json().unwrap(), None, None).unwrap();
    assert_eq!(back.truncation().map(|p| p.max_length), Some(64));
    assert!(back.padding().is_some());
    // A stride not below the effective max length is refused, as `tokenizers` does.
    assert!(tok.with_truncation(Some(TruncationParams { max_length: 8, stride: 9, ..Default::default() })).is_err());
}

/// A long text: parallel chunked encode, truncated with a stride, equals `tokenizers`.
#[test]
fn long_text_truncation_with_overflow() {
    for name in ["qwen3", "llama2"] {
        let base = fixture(name);
        let text = mixed(&base, 11, 300_000);
        let params = TruncationParams { max_length: 512, stride: 32, ..Default::default() };
        let tok = base.with_truncation(Some(params.clone())).unwrap();
        let mut hf = base.hf().clone();
        hf.with_truncation(Some(params)).unwrap();
        let oracle = Oracle { hf };
        let want = Encoding::from_reference(oracle.encode(text.as_str(), true).unwrap(), &oracle.hf);
        assert!(want.overflowing.len() > 10, "{name}: {} tokens, {} overflowing", want.len(), want.overflowing.len());
        same(name, &tok.encode(&text, true).unwrap(), &want);
    }
}

/// The crate 0.23.2's early exit (see the module docs): with right truncation it tokenizes only
/// the pre-tokenizer splits that reach `max_length`, so `overflowing` misses the rest of the
/// text; Python `tokenizers` 0.23.3 and yieldtok give all of it. When a crate release fixes
/// this, this test fails: then the oracle above can be the crate's own `encode`.
#[test]
fn crate_0_23_2_drops_overflowing() {
    let base = fixture("qwen3");
    let text = "hello world ".repeat(100);
    let params = TruncationParams { max_length: 24, ..Default::default() };
    let mut hf = base.hf().clone();
    hf.with_truncation(Some(params.clone())).unwrap();
    assert_eq!(hf.encode(text.as_str(), true).unwrap().get_overflowing().len(), 0);
    let got = base.with_truncation(Some(params)).unwrap().encode(&text, true).unwrap();
    assert_eq!((got.len(), got.overflowing.len()), (24, 8)); // what Python tokenizers 0.23.3 gives
}
