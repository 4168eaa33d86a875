//! Whole encodes of the engine's extra fixtures (testkit `ENGINE_EXTRA`: minilm — BERT,
//! WordPiece; mon_unigram — Metaspace, Unigram with byte fallback; spm_unigram — synthetic
//! T5-style Unigram with a Precompiled charsmap) against `tokenizers`' `encode(text, false)`
//! (truncation and padding off): ids, byte offsets and word ids on the exactness corpus and a
//! proptest; `encode_ids` / `count` agree; and pieces cut at the `cuts.rs` rule, encoded by the
//! engine (the first in normal mode, the rest in continuation mode), concatenate to the
//! oracle's whole encode.

use std::sync::OnceLock;

use proptest::prelude::*;
use yieldtok_engine::cuts::CutRule;
use yieldtok_engine::{Engine, PieceOptions, Tokens};
use yieldtok_testkit::{corpus, fixtures};

struct Fixture {
    name: &'static str,
    engine: Engine,
    oracle: tokenizers::Tokenizer,
    rule: CutRule,
    added: Vec<String>,
}

fn all() -> &'static [Fixture] {
    static ALL: OnceLock<Vec<Fixture>> = OnceLock::new();
    ALL.get_or_init(|| {
        fixtures::ENGINE_EXTRA
            .iter()
            .map(|&name| {
                let path = fixtures::tokenizer_json(name).expect("fixture");
                let json = std::fs::read_to_string(&path).unwrap();
                let mut oracle = tokenizers::Tokenizer::from_file(&path).unwrap();
                oracle.with_truncation(None).unwrap();
                oracle.with_padding(None);
                let engine =
                    Engine::from_json(&json).unwrap_or_else(|e| panic!("{name}: the engine must load it: {e}"));
                let v: serde_json::Value = serde_json::from_str(&json).unwrap();
                let rule = CutRule::from_json(&v).unwrap().unwrap_or_else(|| panic!("{name}: a cut rule"));
                let mut added: Vec<(u32, String)> =
                    oracle.get_added_tokens_decoder().into_iter().map(|(id, t)| (id, t.content)).collect();
                added.sort();
                Fixture { name, engine, oracle, rule, added: added.into_iter().map(|(_, c)| c).collect() }
            })
            .collect()
    })
}

type Enc = (Vec<u32>, Vec<(u32, u32)>, Vec<u32>);

fn oracle(f: &Fixture, text: &str) -> Enc {
    let e = f.oracle.encode(text, false).unwrap();
    (
        e.get_ids().to_vec(),
        e.get_offsets().iter().map(|&(a, b)| (a as u32, b as u32)).collect(),
        e.get_word_ids().iter().map(|w| w.expect("word id")).collect(),
    )
}

fn engine(f: &Fixture, text: &str, continuation: bool, out: &mut Tokens) {
    let opts = PieceOptions { continuation, ..Default::default() };
    f.engine.encode(text, &opts, out).unwrap_or_else(|e| panic!("{}: engine failed: {e}", f.name));
}

fn first_difference(want: &Enc, got: &Enc) -> Option<String> {
    let n = want.0.len().max(got.0.len());
    (0..n).find_map(|i| {
        let w = (want.0.get(i), want.1.get(i), want.2.get(i));
        let g = (got.0.get(i), got.1.get(i), got.2.get(i));
        (w != g).then(|| format!("token {i} of {n}: want {w:?}, got {g:?}"))
    })
}

fn check(f: &Fixture, text: &str, ctx: &str) {
    let want = oracle(f, text);
    let mut got = Tokens::default();
    engine(f, text, false, &mut got);
    let got_enc = (got.ids.clone(), got.offsets.clone(), got.words.clone());
    if let Some(d) = first_difference(&want, &got_enc) {
        panic!("{} {ctx}: {d}; text {:?}", f.name, &text[..text.len().min(200)]);
    }
    let mut ids = Vec::new();
    f.engine.encode_ids(text, &PieceOptions::default(), &mut ids).unwrap();
    assert_eq!(ids, got.ids, "{} {ctx}: encode_ids", f.name);
    assert_eq!(f.engine.count(text, &PieceOptions::default()).unwrap(), ids.len(), "{} {ctx}: count", f.name);
}

fn texts(f: &Fixture) -> Vec<(String, String)> {
    let mut v = corpus::exactness(&f.added);
    v.push(("generated 32k".into(), corpus::generated(32 * 1024, 11)));
    v.push(("trouble spaced".into(), corpus::TROUBLE.join(" ")));
    v
}

#[test]
fn extra_fixtures_match_tokenizers() {
    for f in all() {
        for (name, text) in texts(f) {
            check(f, &text, &name);
        }
    }
}

#[test]
fn pieces_cut_at_the_rule_match_the_whole_encode() {
    for f in all() {
        for (name, text) in texts(f) {
            // About one cut per 300 bytes, at the first candidate after each target.
            let mut cuts = Vec::new();
            let mut target = 300;
            for b in 1..text.len() {
                if b >= target && f.rule.is_cut(&text, b) {
                    cuts.push(b);
                    target = b + 300;
                }
            }
            let want = oracle(f, &text);
            let mut got = Tokens::default();
            let mut start = 0;
            for &b in cuts.iter().chain(std::iter::once(&text.len())) {
                let from = got.ids.len();
                engine(f, &text[start..b], start > 0, &mut got);
                got.offsets[from..].iter_mut().for_each(|o| *o = (o.0 + start as u32, o.1 + start as u32));
                start = b;
            }
            let got = (got.ids, got.offsets, got.words);
            if let Some(d) = first_difference(&want, &got) {
                panic!("{} {name}: {} cuts: {d}", f.name, cuts.len());
            }
        }
    }
}

const ALPHABET: &[&str] = &[
    "a", "B", "the", "un", "##ing", "▁", " ", "  ", "\t", "\n", "\r\n", "\u{a0}", "\u{3000}", "\u{85}", "\u{200b}",
    "\u{ad}", "é", "e\u{301}", "中", "한", "ﬁ", "０", "👍🏽", "\u{200d}", "[SEP]", "[CLS]", "</s>", "<unk>", "<s>", "ါ",
    "က", "ၚ", "\u{1039}", "-", ".", "'", "1", "\u{0}", "\u{7f}",
];

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 96,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x0e47_0017),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn extra_fixtures_match_tokenizers_on_troublemakers(parts in proptest::collection::vec(proptest::sample::select(ALPHABET), 0..24)) {
        let text = parts.concat();
        for f in all() {
            check(f, &text, "proptest");
        }
    }
}
