//! Word ids of chunked encodes next to added tokens the planner has no exact edge for: tokens
//! with `normalized: true` (matched inside the normalized text, no zone) and tokens with
//! `lstrip`/`rstrip`/`single_word` (forbidden zones). `tokenizers` numbers the words of the
//! whole text by pre-tokenizer split, and every added token is a split of its own, so a cut
//! next to such a token starts a new word even in the SentencePiece family (one split between
//! added tokens), where other cuts fall inside a word. Synthetic tokenizers: the gemma3 and
//! llama2 fixtures with such tokens added; every engine that returns word ids (the own
//! engine, the reference pipeline, the compact form) against `tokenizers`' whole encode.

mod common;

use common::*;
use yieldtok::{Budget, CompactTokenizer, EncodeOptions, Encoding, Output, Tokenizer};

struct Extra {
    content: &'static str,
    normalized: bool,
    lstrip: bool,
    rstrip: bool,
    single_word: bool,
    special: bool,
}

const fn extra(content: &'static str, normalized: bool, lstrip: bool, rstrip: bool, single_word: bool) -> Extra {
    Extra { content, normalized, lstrip, rstrip, single_word, special: false }
}

/// gemma3-style (no continuation mode): every kind of token without an exact edge.
const GEMMA3_EXTRA: &[Extra] = &[
    extra("<mask>", true, false, false, false),
    extra("<ls>", false, true, false, false),
    extra("<rs>", false, false, true, false),
    extra("<sw>", false, false, false, true),
    Extra { content: "<nsp>", normalized: true, lstrip: false, rstrip: false, single_word: false, special: true },
];

/// llama2-style (continuation mode, which refuses stripping and single-word tokens):
/// normalized tokens.
const LLAMA2_EXTRA: &[Extra] = &[
    extra("<mask>", true, false, false, false),
    Extra { content: "<nsp>", normalized: true, lstrip: false, rstrip: false, single_word: false, special: true },
];

/// The fixture's `tokenizer.json` with `extra` appended to its added tokens (new ids).
fn synthetic(name: &str, extra: &[Extra]) -> Tokenizer {
    let path = yieldtok_testkit::fixtures::tokenizer_json(name).unwrap_or_else(|e| panic!("fixture {name}: {e}"));
    let mut json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let vocab = json["model"]["vocab"].as_object().map_or(0, |v| v.len() as u64);
    let added = json["added_tokens"].as_array_mut().unwrap();
    let first = added.iter().filter_map(|t| t["id"].as_u64()).max().unwrap_or(0).max(vocab.saturating_sub(1)) + 1;
    for (id, e) in (first..).zip(extra) {
        added.push(serde_json::json!({
            "id": id, "content": e.content, "single_word": e.single_word, "lstrip": e.lstrip,
            "rstrip": e.rstrip, "normalized": e.normalized, "special": e.special,
        }));
    }
    Tokenizer::from_json_str(&json.to_string(), None, Some(format!("{name}+synthetic"))).unwrap()
}

/// A text with each token in the places that give cuts next to it: after a word and before a
/// space, after a space, at a line start and end, doubled, glued to words, at both ends.
fn text_for(extra: &[Extra]) -> String {
    let mut s = String::new();
    for (i, e) in extra.iter().enumerate() {
        let t = e.content;
        s.push_str(&format!("{t} start{i} word{t} after space {t} mid\n{t}\nline {t}{t} glued{t}word  two  {t}  "));
        s.push_str(&format!("end\n\n{t} next line\nwords before{t}\n"));
    }
    s.push_str(extra[0].content);
    s
}

/// Piece boundaries of `tok`'s plan in `piece`-byte pieces that touch one of `content`'s
/// matches (directly or across the whitespace a strip flag takes).
fn cuts_next_to(tok: &Tokenizer, text: &str, piece: usize, content: &str) -> usize {
    let plan = tok.plan(text, piece);
    plan.iter()
        .skip(1)
        .filter(|p| {
            let at = p.0.start;
            text[..at].trim_end().ends_with(content) || text[at..].trim_start().starts_with(content)
        })
        .count()
}

const PIECES: &[usize] = &[1, 2, 5, 13, 64];

/// Differences are collected, so that a failure names every engine (and case) that differs.
#[derive(Default)]
struct Failures(Vec<String>);

impl Failures {
    fn compare(&mut self, what: &str, text: &str, got: &Encoding, want: &Encoding) {
        if got != want {
            let r = std::panic::catch_unwind(|| assert_same(what, text, got, want));
            let msg = r.err().and_then(|e| e.downcast_ref::<String>().cloned()).unwrap_or_else(|| what.to_string());
            self.0.push(msg);
        }
    }

    fn assert_none(self, name: &str) {
        let engines: std::collections::BTreeSet<&str> =
            self.0.iter().filter_map(|m| m.split('/').find(|p| ["own", "reference", "compact"].contains(p))).collect();
        assert!(
            self.0.is_empty(),
            "{name}: {} differences (engines {engines:?}), the first: {:#?}",
            self.0.len(),
            &self.0[..self.0.len().min(3)]
        );
    }
}

fn full(add: bool, piece: usize) -> EncodeOptions {
    EncodeOptions { add_special_tokens: add, piece_bytes: Some(piece), output: Output::Full, ..Default::default() }
}

/// Every engine that gives word ids, in pieces of every size of [`PIECES`], against the whole
/// encode of `tokenizers`.
fn check(name: &str, extra: &[Extra], texts: &[String]) {
    let own = synthetic(name, extra);
    assert!(own.cut_rules().is_chunked(), "{name}: {}", own.cut_rules().describe());
    assert_eq!(own.encoding_engine(), "yieldtok", "{name}: {:?}", own.encoding_engine_unavailable_reason());
    let reference_engine = own.without_own_engine();
    assert_eq!(reference_engine.encoding_engine(), "tokenizers");
    let compact = CompactTokenizer::from_bytes(&own.to_compact().unwrap(), None).unwrap();
    let mut fails = Failures::default();
    for (ti, text) in texts.iter().enumerate() {
        for e in extra {
            assert!(
                cuts_next_to(&own, text, 1, e.content) > 0 || !text.contains(e.content),
                "{name}: no cut next to {:?} in text {ti}",
                e.content
            );
        }
        for add in [false, true] {
            let want = Encoding::from_reference(own.hf().encode(text.as_str(), add).unwrap(), own.hf());
            for &piece in PIECES {
                assert!(own.plan(text, piece).len() > 1, "{name}: text {ti} is one piece at {piece} bytes");
                let what = |engine: &str| format!("{name}/text {ti}/{engine}/piece={piece}/add={add}");
                for (engine, tok) in [("own", &own), ("reference", &reference_engine)] {
                    let job = tok.job(text.as_str(), full(add, piece));
                    while !job.step(Budget::bytes(piece * 3)) {}
                    fails.compare(&what(engine), text, &job.finish().unwrap().into_encoding().unwrap(), &want);
                    let job = tok.job(text.as_str(), full(add, piece));
                    job.run_parallel();
                    fails.compare(
                        &format!("{} parallel", what(engine)),
                        text,
                        &job.finish().unwrap().into_encoding().unwrap(),
                        &want,
                    );
                }
                let job = compact.job(text.as_str(), full(add, piece));
                job.step(Budget::UNLIMITED);
                fails.compare(&what("compact"), text, &job.finish().unwrap().into_encoding().unwrap(), &want);
            }
        }
    }
    fails.assert_none(name);
}

/// Deterministic random texts over words, spaces, newlines and the tokens.
fn random_texts(extra: &[Extra], n: usize, seed: u64) -> Vec<String> {
    let mut rng = Rng(seed);
    let parts = [" ", "  ", "\n", "\n\n", "word", "x", "é", "日本", ".", "\t", " a", "b "];
    (0..n)
        .map(|_| {
            let mut s = String::new();
            for _ in 0..(8 + rng.below(40)) {
                if rng.below(3) == 0 {
                    s.push_str(extra[rng.below(extra.len())].content);
                } else {
                    s.push_str(rng.pick(&parts));
                }
            }
            s
        })
        .collect()
}

#[test]
fn gemma3_tokens_without_exact_edges() {
    check("gemma3", GEMMA3_EXTRA, &[text_for(GEMMA3_EXTRA)]);
}

#[test]
fn llama2_normalized_tokens() {
    check("llama2", LLAMA2_EXTRA, &[text_for(LLAMA2_EXTRA)]);
}

#[test]
fn gemma3_random_texts() {
    check_loose("gemma3", GEMMA3_EXTRA, &random_texts(GEMMA3_EXTRA, 40, 0x5eed_0014));
}

#[test]
fn llama2_random_texts() {
    check_loose("llama2", LLAMA2_EXTRA, &random_texts(LLAMA2_EXTRA, 40, 0x5eed_0014));
}

/// [`check`] without the per-text assertions that a cut falls next to every token (random
/// texts need not have one).
fn check_loose(name: &str, extra: &[Extra], texts: &[String]) {
    let own = synthetic(name, extra);
    assert!(own.cut_rules().is_chunked(), "{name}: {}", own.cut_rules().describe());
    assert_eq!(own.encoding_engine(), "yieldtok", "{name}: {:?}", own.encoding_engine_unavailable_reason());
    let reference_engine = own.without_own_engine();
    let compact = CompactTokenizer::from_bytes(&own.to_compact().unwrap(), None).unwrap();
    let mut fails = Failures::default();
    let mut cut = 0;
    for (ti, text) in texts.iter().enumerate() {
        let want = Encoding::from_reference(own.hf().encode(text.as_str(), false).unwrap(), own.hf());
        for &piece in PIECES {
            cut += (own.plan(text, piece).len() > 1) as usize;
            let what = |engine: &str| format!("{name}/random {ti} {text:?}/{engine}/piece={piece}");
            for (engine, tok) in [("own", &own), ("reference", &reference_engine)] {
                let job = tok.job(text.as_str(), full(false, piece));
                job.step(Budget::UNLIMITED);
                fails.compare(&what(engine), text, &job.finish().unwrap().into_encoding().unwrap(), &want);
            }
            let job = compact.job(text.as_str(), full(false, piece));
            job.step(Budget::UNLIMITED);
            fails.compare(&what("compact"), text, &job.finish().unwrap().into_encoding().unwrap(), &want);
        }
    }
    fails.assert_none(name);
    assert!(cut > texts.len(), "{name}: the random texts were hardly cut ({cut})");
}
