//! Differential tests of the WordPiece and Unigram models against `tokenizers` 0.23.2's own
//! models built from the same JSON: the tokens (ids and byte offsets) of every pre-token that
//! the fixture's own normalizer and pre-tokenizer make of the corpus, of a proptest over a
//! troublemaker alphabet, and of small vocabularies that reach the edge cases (no unknown
//! token, duplicates, partial byte fallback, long words, an empty prefix).

use std::collections::BTreeSet;

use proptest::prelude::*;
use serde_json::{json, Value};
use tokenizers::models::unigram::Unigram as TkUnigram;
use tokenizers::models::wordpiece::WordPiece as TkWordPiece;
use tokenizers::{Model, NormalizedString, Normalizer, NormalizerWrapper, OffsetReferential, OffsetType};
use tokenizers::{PreTokenizedString, PreTokenizer, PreTokenizerWrapper};
use yieldtok_engine::models::unigram::Unigram;
use yieldtok_engine::models::wordpiece::WordPiece;
use yieldtok_engine::models::Token;
use yieldtok_testkit::{corpus, fixtures};

enum Pair {
    WordPiece(WordPiece, TkWordPiece),
    Unigram(Box<Unigram>, TkUnigram),
}

impl Pair {
    fn from_model(v: &Value) -> Pair {
        match v["type"].as_str() {
            Some("WordPiece") => {
                Pair::WordPiece(WordPiece::from_json(v).unwrap(), serde_json::from_str(&v.to_string()).unwrap())
            }
            Some("Unigram") => {
                Pair::Unigram(Box::new(Unigram::from_json(v).unwrap()), serde_json::from_str(&v.to_string()).unwrap())
            }
            t => panic!("model {t:?}"),
        }
    }

    fn check(&self, word: &str, ctx: &str) {
        let mut ours = Vec::new();
        let (o, t) = match self {
            Pair::WordPiece(o, t) => (o.tokenize(word, &mut ours), t.tokenize(word)),
            Pair::Unigram(o, t) => (o.tokenize(word, &mut ours), t.tokenize(word)),
        };
        match (o, t) {
            (Ok(()), Ok(theirs)) => {
                let theirs: Vec<Token> = theirs
                    .iter()
                    .map(|t| Token { id: t.id, start: t.offsets.0 as u32, end: t.offsets.1 as u32 })
                    .collect();
                assert_eq!(ours, theirs, "{ctx}: tokens of {word:?}");
            }
            (Err(_), Err(_)) => {}
            (o, t) => panic!("{ctx}: {word:?}: ours {o:?}, theirs {:?}", t.map(|v| v.len())),
        }
    }
}

fn fixture(name: &str) -> Value {
    let path = fixtures::tokenizer_json(name).unwrap_or_else(|e| panic!("fixture {name}: {e}"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The pre-tokens `tokenizers` makes of `text` with the fixture's normalizer and pre-tokenizer.
fn pre_tokens(json: &Value, texts: &[String]) -> BTreeSet<String> {
    let norm: Option<NormalizerWrapper> =
        (!json["normalizer"].is_null()).then(|| serde_json::from_value(json["normalizer"].clone()).unwrap());
    let pre: Option<PreTokenizerWrapper> =
        (!json["pre_tokenizer"].is_null()).then(|| serde_json::from_value(json["pre_tokenizer"].clone()).unwrap());
    let mut out = BTreeSet::new();
    for text in texts {
        let mut n = NormalizedString::from(text.as_str());
        if let Some(norm) = &norm {
            norm.normalize(&mut n).unwrap();
        }
        let mut p = PreTokenizedString::from(n);
        if let Some(pre) = &pre {
            pre.pre_tokenize(&mut p).unwrap();
        }
        out.extend(
            p.get_splits(OffsetReferential::Original, OffsetType::Byte).into_iter().map(|(s, _, _)| s.to_string()),
        );
    }
    out
}

fn corpus_texts() -> Vec<String> {
    let mut v: Vec<String> = corpus::exactness(&["[SEP]".into(), "</s>".into()]).into_iter().map(|(_, t)| t).collect();
    v.extend(corpus::TROUBLE.iter().map(|s| s.to_string()));
    v.push("supercalifragilisticexpialidocious unaffable ".repeat(3) + &"x".repeat(150));
    v
}

#[test]
fn fixture_models_match_tokenizers() {
    let texts = corpus_texts();
    for name in fixtures::ENGINE_EXTRA {
        let json = fixture(name);
        let pair = Pair::from_model(&json["model"]);
        let mut words = pre_tokens(&json, &texts);
        assert!(words.len() > 500, "{name}: {} pre-tokens", words.len());
        words.extend(vocab_words(&json["model"], 3000));
        for w in &words {
            pair.check(w, name);
        }
    }
}

/// Words glued from 2–3 random vocabulary entries (the WordPiece prefix and SentencePiece's `▁`
/// kept or dropped at random): greedy and Viterbi choices between overlapping tokens.
fn vocab_words(model: &Value, count: usize) -> Vec<String> {
    let tokens: Vec<String> = match model["vocab"].clone() {
        Value::Object(m) => m.keys().cloned().collect(),
        Value::Array(a) => a.iter().map(|e| e[0].as_str().unwrap().to_string()).collect(),
        _ => panic!("vocab"),
    };
    let mut rng = corpus::Rng(0x0e47_0016);
    (0..count)
        .map(|_| {
            let mut w = String::new();
            for i in 0..2 + rng.below(2) {
                let t = &tokens[rng.below(tokens.len())];
                let t = if rng.below(2) == 0 { t.trim_start_matches("##") } else { t.as_str() };
                let t = if i > 0 && rng.below(2) == 0 { t.trim_start_matches('▁') } else { t };
                w.push_str(t);
            }
            w
        })
        .collect()
}

/// Small vocabularies for the edge cases.
fn edge_models() -> Vec<Value> {
    let wp = |vocab: Value, unk: &str, prefix: &str, max: usize| json!({"type": "WordPiece", "vocab": vocab, "unk_token": unk, "continuing_subword_prefix": prefix, "max_input_chars_per_word": max});
    let wp_vocab = json!({"[UNK]": 0, "a": 1, "ab": 2, "##b": 3, "##c": 4, "##bc": 5, "é": 6, "##é": 7, "x": 8, "##x": 9, "##": 10, "": 11, "abc": 12});
    let ug = |vocab: Value, unk: Value, bf: bool| json!({"type": "Unigram", "vocab": vocab, "unk_id": unk, "byte_fallback": bf});
    let ug_vocab = json!([
        ["<unk>", 0.0],
        ["a", -1.0],
        ["b", -1.5],
        ["ab", -2.0],
        ["abc", -2.4],
        ["c", -1.2],
        ["bc", -2.2],
        ["é", -3.0],
        ["<0x78>", -5.0],
        ["<0x79>", -5.0],
        ["<0xC3>", -5.0],
        ["<0xA9>", -5.0],
        ["ab", -0.5],
        ["", -0.1],
        ["<unk>", -9.0],
        ["xy", -30.0]
    ]);
    vec![
        wp(wp_vocab.clone(), "[UNK]", "##", 100),
        wp(wp_vocab.clone(), "[UNK]", "##", 3),
        wp(wp_vocab.clone(), "[MISSING]", "##", 100),
        wp(wp_vocab.clone(), "[UNK]", "", 100),
        ug(ug_vocab.clone(), json!(0), false),
        ug(ug_vocab.clone(), json!(0), true),
        ug(ug_vocab.clone(), json!(14), true),
        ug(ug_vocab.clone(), Value::Null, false),
        ug(ug_vocab.clone(), Value::Null, true),
        ug(json!([["a", 1.0], ["b", 2.0], ["ab", 2.9], ["<unk>", 0.0]]), json!(3), false),
    ]
}

#[test]
fn edge_cases_match_tokenizers() {
    let words = [
        "",
        "a",
        "ab",
        "abc",
        "abcc",
        "abx",
        "xy",
        "yx",
        "x",
        "é",
        "aé",
        "éé",
        "zzz",
        "aza",
        "abcabcabc",
        "##",
        "<unk>",
        "a<unk>b",
        "xyxy",
    ];
    for v in edge_models() {
        let pair = Pair::from_model(&v);
        for w in words {
            pair.check(w, &v.to_string());
        }
    }
}

const ALPHABET: &[&str] = &[
    "a", "b", "c", "e", "s", "t", "in", "ing", "un", "the", "##", "▁", "▁the", "é", "e\u{301}", "中", "한", "👍",
    "\u{0}", "<unk>", "[UNK]", "x", "y", "z", "1", "9", "-", "'", "ါ", "က", "ၚ", "\u{1039}", "\u{103a}", "ß", "ı",
    "\u{ffff}",
];

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 192,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x0e47_0015),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn models_match_tokenizers_on_troublemakers(parts in proptest::collection::vec(proptest::sample::select(ALPHABET), 0..16)) {
        let word = parts.concat();
        for pair in models() {
            pair.check(&word, "proptest");
        }
    }
}

fn models() -> &'static [Pair] {
    static MODELS: std::sync::OnceLock<Vec<Pair>> = std::sync::OnceLock::new();
    MODELS.get_or_init(|| {
        let mut v: Vec<Pair> = fixtures::ENGINE_EXTRA.iter().map(|n| Pair::from_model(&fixture(n)["model"])).collect();
        v.extend(edge_models().iter().map(Pair::from_model));
        v
    })
}

/// The BPE `model.vocab`/`model.merges` parse (borrowed strings, merges without serde's
/// untagged buffering): pairs, legacy `"a b"` strings with a `#version` line, escaped strings
/// (unescaped copies), and the files `tokenizers` refuses, refused too.
#[test]
fn bpe_vocab_and_merges_parse_like_tokenizers() {
    let file = |merges: &str| {
        format!(
            r#"{{"version": "1.0", "added_tokens": [], "normalizer": null, "pre_tokenizer": {{"type": "Whitespace"}},
               "post_processor": null, "decoder": null,
               "model": {{"type": "BPE", "unk_token": "?", "vocab": {{"?": 0, "a": 1, "\"": 2, "a\"": 3, "\u00e9": 4, "a\"\u00e9": 5, "b": 6}},
                         "merges": {merges}}}}}"#
        )
    };
    let accepted = [
        r#"[["a", "\""], ["a\"", "é"]]"#,
        r#"[["a", "\u0022"], ["a\u0022", "\u00e9"]]"#,
        r##"["#version: 0.2", "a \"", "a\" é"]"##,
        r#"[]"#,
    ];
    for merges in accepted {
        let json = file(merges);
        let engine = yieldtok_engine::Engine::from_json(&json).unwrap_or_else(|e| panic!("{merges}: {e}"));
        let oracle: tokenizers::Tokenizer = json.parse().unwrap();
        for text in ["a\"é", "a\" é", "ba\"éa", "x a\"\"é"] {
            let mut ours = yieldtok_engine::Tokens::default();
            engine.encode(text, &Default::default(), &mut ours).unwrap();
            assert_eq!(ours.ids, oracle.encode(text, false).unwrap().get_ids(), "{merges}: {text:?}");
        }
    }
    let refused = [r#"[["a", "\""], "a\" é"]"#, r#"["a \" x"]"#, r#"[["a", "\"", "b"]]"#, r#"[["a"]]"#, r#"[3]"#];
    for merges in refused {
        let json = file(merges);
        assert!(json.parse::<tokenizers::Tokenizer>().is_err(), "{merges}: tokenizers accepts it");
        assert!(yieldtok_engine::Engine::from_json(&json).is_err(), "{merges}: the engine accepts it");
    }
}
