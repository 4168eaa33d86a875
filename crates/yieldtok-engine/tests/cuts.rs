//! The cut rules of `cuts.rs` against `tokenizers` 0.23.2: for the BERT family (minilm) and the
//! Metaspace families (mon_unigram; the T5-style spm_unigram), and variants of their JSON that
//! the classifier accepts, cutting a text at **every** candidate at once and encoding the pieces
//! separately gives the whole encode's ids, offsets (shifted) and word grouping. The naive rules
//! the proofs exclude are shown to fail on the same texts (so the check has teeth).

use serde_json::{json, Value};
use tokenizers::Tokenizer;
use yieldtok_engine::cuts::CutRule;
use yieldtok_testkit::{corpus, fixtures};

/// A fixture's tokenizer.json without truncation and padding (minilm pads to 128).
fn fixture(name: &str) -> Value {
    let path = fixtures::tokenizer_json(name).unwrap_or_else(|e| panic!("fixture {name}: {e}"));
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v["truncation"] = Value::Null;
    v["padding"] = Value::Null;
    v
}

fn texts() -> Vec<String> {
    let mut v: Vec<String> = corpus::exactness(&["[SEP]".into(), "</s>".into()]).into_iter().map(|(_, t)| t).collect();
    v.push(corpus::TROUBLE.join(" "));
    v.push("a \u{301}b  c\u{600} d e\u{200d} f\u{ad} g \u{85}h\u{a0}i 中 文 x\u{2028}y".repeat(20));
    v
}

/// ids, offsets and word-start flags of an encode, offsets shifted by `shift`.
type Enc = (Vec<u32>, Vec<(usize, usize)>, Vec<bool>);

fn encode(tok: &Tokenizer, text: &str, shift: usize, out: &mut Enc) {
    let e = tok.encode(text, false).unwrap();
    let words = e.get_word_ids();
    for (i, (&id, &(s, t))) in e.get_ids().iter().zip(e.get_offsets()).enumerate() {
        out.0.push(id);
        out.1.push((s + shift, t + shift));
        out.2.push(i == 0 || words[i] != words[i - 1]);
    }
}

/// Count the pieces whose encode differs from the whole encode around them, cutting at every
/// position `cut` accepts.
fn bad_cuts(tok: &Tokenizer, text: &str, cut: impl Fn(usize) -> bool) -> usize {
    let mut whole = Enc::default();
    encode(tok, text, 0, &mut whole);
    let cuts: Vec<usize> = (1..text.len()).filter(|&b| text.is_char_boundary(b) && cut(b)).collect();
    let mut pieces = Enc::default();
    let mut start = 0;
    for &b in cuts.iter().chain(std::iter::once(&text.len())) {
        encode(tok, &text[start..b], start, &mut pieces);
        start = b;
    }
    if whole == pieces {
        return 0;
    }
    // Locate the first difference, for the message, and count cuts with a token across them.
    let first =
        whole.0.iter().zip(&pieces.0).zip(whole.1.iter().zip(&pieces.1)).position(|(a, b)| a.0 != a.1 || b.0 != b.1);
    let crossing = cuts.iter().filter(|&&b| whole.1.iter().any(|&(s, e)| s < b && b < e)).count();
    eprintln!(
        "first difference at token {first:?} ({:?}); {crossing} cuts inside a token",
        first.map(|i| (whole.1.get(i).copied(), pieces.1.get(i).copied()))
    );
    crossing.max(1)
}

fn tokenizer(json: &Value) -> Tokenizer {
    Tokenizer::from_bytes(json.to_string().as_bytes()).unwrap()
}

/// The fixtures and accepted variants: (name, tokenizer.json).
fn cases() -> Vec<(String, Value)> {
    let mut v = Vec::new();
    let minilm = fixture("minilm");
    v.push(("minilm".to_string(), minilm.clone()));
    let mut ws = minilm.clone();
    ws["pre_tokenizer"] = json!({"type": "WhitespaceSplit"});
    v.push(("minilm, WhitespaceSplit".into(), ws));
    let mut cased = minilm.clone();
    cased["normalizer"] = json!({"type": "BertNormalizer", "clean_text": false, "handle_chinese_chars": true, "strip_accents": true, "lowercase": false});
    cased["pre_tokenizer"] = json!({"type": "Whitespace"});
    v.push(("minilm, Whitespace, cased".into(), cased));
    let mon = fixture("mon_unigram");
    v.push(("mon_unigram".into(), mon.clone()));
    for scheme in ["first", "never"] {
        let mut m = mon.clone();
        m["pre_tokenizer"]["prepend_scheme"] = json!(scheme);
        v.push((format!("mon_unigram, prepend {scheme}"), m));
    }
    let spm = fixture("spm_unigram");
    v.push(("spm_unigram".into(), spm.clone()));
    let mut xlmr = spm.clone();
    let pre = xlmr["normalizer"]["normalizers"][0].clone();
    xlmr["normalizer"] = json!({"type": "Sequence", "normalizers": [pre, {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]});
    v.push(("spm_unigram, XLM-R normalizer".into(), xlmr));
    v
}

#[test]
fn every_candidate_is_an_exact_cut() {
    let texts = texts();
    for (name, json) in cases() {
        let rule = CutRule::from_json(&json).unwrap().unwrap_or_else(|| panic!("{name}: no cut rule"));
        let tok = tokenizer(&json);
        let mut candidates = 0;
        for text in &texts {
            candidates += (0..text.len()).filter(|&b| rule.is_cut(text, b)).count();
            assert_eq!(
                bad_cuts(&tok, text, |b| rule.is_cut(text, b)),
                0,
                "{name}: a cut changed the encode of {:?}…",
                &text[..text.len().min(60)]
            );
        }
        assert!(candidates > 5000, "{name}: only {candidates} candidates");
    }
}

#[test]
fn the_naive_rules_fail() {
    let texts = texts();
    let bad = |json: &Value, cut: &dyn Fn(&str, usize) -> bool| -> usize {
        let tok = tokenizer(json);
        texts.iter().map(|t| bad_cuts(&tok, t, |b| cut(t, b))).sum()
    };
    // BERT: before any whitespace char (NEL is removed by clean_text, so it does not split).
    assert!(bad(&fixture("minilm"), &|t, b| t[b..].starts_with(char::is_whitespace)) > 0);
    // T5: before any space (inside a run of spaces the Replace(" {2,}") match is cut).
    assert!(bad(&fixture("spm_unigram"), &|t, b| t[b..].starts_with(' ')) > 0);
    // Metaspace: after a space instead of before it.
    assert!(bad(&fixture("mon_unigram"), &|t, b| t[..b].ends_with(' ')) > 0);
}

#[test]
fn shapes_without_a_proven_rule_are_refused() {
    let mut m = fixture("mon_unigram");
    m["pre_tokenizer"]["split"] = json!(false);
    assert!(CutRule::from_json(&m).unwrap().is_none(), "Metaspace without split");
    let mut m = fixture("mon_unigram");
    m["normalizer"] = json!({"type": "Strip", "strip_left": true, "strip_right": true});
    assert!(CutRule::from_json(&m).unwrap().is_none(), "Strip");
    let mut m = fixture("minilm");
    m["normalizer"] = json!({"type": "Replace", "pattern": {"String": "\t"}, "content": ""});
    assert!(CutRule::from_json(&m).unwrap().is_none(), "Replace removing a cut char");
    let mut m = fixture("minilm");
    m["normalizer"] = json!({"type": "Replace", "pattern": {"Regex": "a+"}, "content": "b"});
    assert!(CutRule::from_json(&m).unwrap().is_none(), "Replace of a run");
    let gpt = json!({"normalizer": null, "pre_tokenizer": {"type": "ByteLevel"}, "model": {}});
    assert!(CutRule::from_json(&gpt).unwrap().is_none(), "another family");
}
