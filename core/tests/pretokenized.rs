//! Pre-tokenized input (`Tokenizer::encode_words`, `encode_words_pair`, `Input::Words` and
//! `Input::WordsPair` in batches) against `tokenizers`' own `encode` of
//! `InputSequence::PreTokenized` on every fixture: every field (word ids, per-word offsets,
//! type ids, sequence ranges) with and without special tokens, with padding (truncation is
//! compared by the Python suite against Python `tokenizers` 0.23.3: the crate 0.23.2 stops
//! tokenizing at `max_length`, see `tests/pairs.rs`), and a list of words long enough for the
//! parallel path.

mod common;

use common::*;
use tokenizers::{EncodeInput, InputSequence, PaddingParams, PaddingStrategy};
use yieldtok::{CancelFlag, EncodeOptions, Encoding, Input};
use yieldtok_testkit::fixtures::{ENGINE_EXTRA, NAMES};

fn word_lists(tok: &yieldtok::Tokenizer) -> Vec<Vec<String>> {
    let special = added_tokens(tok, 2);
    let split = |s: &str| s.split(' ').map(str::to_string).collect::<Vec<_>>();
    vec![
        vec![],
        vec![String::new()],
        split("Hello , world ! I'm here ."),
        " quick brown fox".split_inclusive(' ').map(|w| format!(" {w}")).collect(),
        "héllo wörld 😀".chars().map(String::from).collect(),
        vec![String::new(), "a".into(), String::new(), "b".into()],
        split(&MULTILINGUAL.join(" ")),
        [special.clone(), vec!["between".into()], special].concat(),
        split(&mixed(tok, 3, 2000)),
    ]
}

/// `tokenizers`' encode of pre-tokenized input, with the tokenizer's padding.
fn reference(tok: &yieldtok::Tokenizer, a: &[String], b: Option<&[String]>, add: bool) -> Encoding {
    let mut hf = tok.hf().clone();
    hf.with_padding(tok.padding().cloned());
    let seq = |w: &[String]| InputSequence::from(w.to_vec());
    let input = match b {
        None => EncodeInput::Single(seq(a)),
        Some(b) => EncodeInput::Dual(seq(a), seq(b)),
    };
    Encoding::from_reference(hf.encode(input, add).expect("reference encode"), &hf)
}

#[test]
fn pretokenized_input_equals_tokenizers_on_every_fixture() {
    for name in NAMES.iter().chain(ENGINE_EXTRA.iter()) {
        let loaded = fixture(name);
        // minilm's tokenizer.json truncates to 128: compared without truncation here.
        let base = loaded.with_truncation(None).unwrap();
        let padded = base.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::Fixed(64),
            pad_id: 2,
            pad_type_id: 1,
            ..Default::default()
        }));
        for tok in [base.with_padding(None), padded] {
            let lists = word_lists(&tok);
            for add in [true, false] {
                for (i, words) in lists.iter().enumerate() {
                    let what = format!("{name} words[{i}] add={add} pad={}", tok.padding().is_some());
                    let got = tok.encode_words(words, add).unwrap();
                    assert_same(&what, &words.join(" "), &got, &reference(&tok, words, None, add));
                    let j = (i + 2) % lists.len();
                    let got = tok.encode_words_pair(words, &lists[j], add).unwrap();
                    let want = reference(&tok, words, Some(&lists[j]), add);
                    assert_same(&format!("{what} pair {j}"), &words.join(" "), &got, &want);
                    assert_eq!(got.sequence_ranges, want.sequence_ranges, "{what} pair {j}");
                }
                // A batch mixing texts, pairs and pre-tokenized input.
                let shared = |w: &[String]| -> std::sync::Arc<[std::sync::Arc<str>]> {
                    w.iter().map(|w| std::sync::Arc::from(w.as_str())).collect()
                };
                let inputs = vec![
                    Input::Words(shared(&lists[2])),
                    Input::Single("plain text".into()),
                    Input::WordsPair(shared(&lists[4]), shared(&lists[6])),
                    Input::Pair("first".into(), "second".into()),
                ];
                let opts = EncodeOptions { add_special_tokens: add, ..Default::default() };
                let outs = tok.encode_inputs_with_cancel(&inputs, &opts, &CancelFlag::new()).unwrap();
                let mut hf = tok.hf().clone();
                hf.with_padding(tok.padding().cloned());
                let want = hf
                    .encode_batch(
                        vec![
                            EncodeInput::Single(InputSequence::from(lists[2].clone())),
                            EncodeInput::from("plain text"),
                            EncodeInput::Dual(lists[4].clone().into(), lists[6].clone().into()),
                            EncodeInput::from(("first", "second")),
                        ],
                        add,
                    )
                    .unwrap();
                for (k, (o, w)) in outs.into_iter().zip(want).enumerate() {
                    let got = o.into_encoding().unwrap();
                    assert_same(
                        &format!("{name} batch[{k}] add={add}"),
                        "",
                        &got,
                        &Encoding::from_reference(w, tok.hf()),
                    );
                }
            }
        }
    }
}

#[test]
fn long_pretokenized_input_runs_in_parallel_and_equals_tokenizers() {
    for name in ["qwen3", "llama2", "minilm", "gemma3"] {
        let tok = fixture(name).with_truncation(None).unwrap().with_padding(None);
        let text = mixed(&tok, 11, 200_000);
        let words: Vec<String> = text.split(' ').map(str::to_string).collect();
        let got = tok.encode_words(&words, true).unwrap();
        assert_same(&format!("{name} long words"), &text, &got, &reference(&tok, &words, None, true));
        // One word that is a long text itself (chunked in parallel pieces).
        let lines = vec![text.clone(), "tail".to_string()];
        let got = tok.encode_words(&lines, true).unwrap();
        assert_same(&format!("{name} long word"), &text, &got, &reference(&tok, &lines, None, true));
    }
}
