//! Differential tests of the normalizers and of `Normalized` against `tokenizers` 0.23.2: the
//! normalized text and every byte's alignment (`convert_offsets` of each normalized byte), for
//! normalizers built from the same JSON on both sides, over the exactness corpus, the fixtures'
//! own normalizers and a proptest over a troublemaker alphabet; plus `split_by` /
//! `split_at_matches` with every delimiter behavior, `slice` and both offset conversions.

use proptest::prelude::*;
use serde_json::{json, Value};
use tokenizers::normalizer::Range as TkRange;
use tokenizers::{NormalizedString, Normalizer, NormalizerWrapper, SplitDelimiterBehavior as TkBehavior};
use yieldtok_engine::normalized::{find_matches_regex, Normalized, SplitDelimiterBehavior};
use yieldtok_engine::normalizers::{self, Normalize};
use yieldtok_testkit::corpus;

/// Normalizer configurations covering every implemented type and option.
fn configs() -> Vec<Value> {
    let replace = |p: Value, c: &str| json!({"type": "Replace", "pattern": p, "content": c});
    vec![
        json!({"type": "NFC"}),
        json!({"type": "NFD"}),
        json!({"type": "NFKC"}),
        json!({"type": "NFKD"}),
        json!({"type": "Lowercase"}),
        json!({"type": "StripAccents"}),
        json!({"type": "Strip", "strip_left": true, "strip_right": true}),
        json!({"type": "Strip", "strip_left": true, "strip_right": false}),
        json!({"type": "Strip", "strip_left": false, "strip_right": true}),
        json!({"type": "Prepend", "prepend": "▁"}),
        json!({"type": "Prepend", "prepend": "ab"}),
        replace(json!({"String": " "}), "▁"),
        replace(json!({"String": "▁"}), " "),
        replace(json!({"String": "\r\n"}), "\n"),
        replace(json!({"String": "e\u{301}"}), ""),
        replace(json!({"String": "a"}), "ẞßİ"),
        replace(json!({"Regex": "\\s+"}), " "),
        replace(json!({"Regex": "(?<=\\w) (?=\\w)"}), "_"),
        replace(json!({"Regex": "\\p{M}+"}), ""),
        replace(json!({"Regex": "x*"}), "-"),
        replace(json!({"Regex": "\\p{Zs}"}), " "),
        replace(json!({"String": " "}), " "),
        replace(json!({"Regex": "[ab]"}), "a"),
        json!({"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"}, replace(json!({"String": " "}), "▁")]}),
        json!({"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "StripAccents"}, {"type": "Lowercase"}]}),
        json!({"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Strip", "strip_left": true, "strip_right": true}, {"type": "Prepend", "prepend": "▁"}]}),
        json!({"type": "Sequence", "normalizers": [replace(json!({"Regex": " {2,}"}), "▁"), {"type": "NFKD"}, {"type": "NFC"}]}),
        json!({"type": "Sequence", "normalizers": [{"type": "Strip", "strip_left": false, "strip_right": true}, replace(json!({"String": "\n"}), ""), {"type": "Prepend", "prepend": "\n"}]}),
        json!({"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true}),
        json!({"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": false}),
        json!({"type": "BertNormalizer", "clean_text": false, "handle_chinese_chars": false, "strip_accents": true, "lowercase": false}),
        json!({"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": false, "strip_accents": false, "lowercase": true}),
        json!({"type": "ByteLevel"}),
        json!({"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "ByteLevel"}, {"type": "Lowercase"}]}),
    ]
    .into_iter()
    .chain(precompiled())
    .collect()
}

/// The `Precompiled` normalizer (SentencePiece's nmt_nfkc rules) of the synthetic `spm_unigram`
/// fixture, alone and in its T5-style sequence.
fn precompiled() -> Vec<Value> {
    let path = yieldtok_testkit::fixtures::tokenizer_json("spm_unigram").expect("the spm_unigram fixture");
    let json: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let seq = json["normalizer"].clone();
    let pre = seq["normalizers"][0].clone();
    assert_eq!(pre["type"], "Precompiled");
    vec![pre, seq]
}

fn tk_normalizer(v: &Value) -> NormalizerWrapper {
    serde_json::from_value(v.clone()).expect("tokenizers builds the normalizer")
}

/// Asserts that our `Normalized` equals `tokenizers`' `NormalizedString` in text, original,
/// offsets and the alignment of every normalized byte.
fn assert_same(ours: &Normalized, theirs: &NormalizedString, ctx: &str) {
    assert_eq!(ours.get(), theirs.get(), "{ctx}: normalized text");
    assert_eq!(ours.get_original(), theirs.get_original(), "{ctx}: original");
    let (s, e) = ours.offsets_original();
    assert_eq!((s as usize, e as usize), theirs.offsets_original(), "{ctx}: offsets_original");
    assert_eq!(ours.alignments.len(), ours.get().len(), "{ctx}: one alignment per byte");
    for (b, &(a0, a1)) in ours.alignments.iter().enumerate() {
        let t = theirs.convert_offsets(TkRange::Normalized(b..b + 1));
        assert_eq!(Some(a0 as usize..a1 as usize), t, "{ctx}: alignment of normalized byte {b}");
    }
}

fn check_normalizer(v: &Value, ours: &dyn Normalize, theirs: &NormalizerWrapper, text: &str, ctx: &str) {
    let mut o = Normalized::new(text, 0);
    ours.normalize(&mut o).unwrap();
    let mut t = NormalizedString::from(text);
    theirs.normalize(&mut t).unwrap();
    assert_same(&o, &t, &format!("{ctx} {v}"));
    if ours.is_identity_on(text) {
        assert_eq!(t.get(), text, "{ctx} {v}: is_identity_on claims identity");
        assert_eq!(o, Normalized::new(text, 0), "{ctx} {v}: is_identity_on claims identity alignments");
    }
}

fn corpus_texts() -> Vec<(String, String)> {
    let mut v = corpus::exactness(&["<s>".into(), "</s>".into()]);
    v.extend(corpus::TROUBLE.iter().enumerate().map(|(i, t)| (format!("trouble {i}"), t.to_string())));
    v.extend(corpus::PROSE.iter().enumerate().map(|(i, t)| (format!("prose {i}"), t.to_string())));
    let nfd: String = corpus::PROSE.join(" ").chars().flat_map(decompose).collect();
    v.push(("prose, decomposed".into(), nfd));
    v
}

fn decompose(c: char) -> Vec<char> {
    use unicode_normalization_alignments::UnicodeNormalization;
    c.to_string().nfd().map(|(c, _)| c).collect()
}

#[test]
fn normalizers_match_tokenizers_on_the_corpus() {
    let texts = corpus_texts();
    for v in configs() {
        let ours = normalizers::from_json(&v).unwrap().expect("a normalizer");
        let theirs = tk_normalizer(&v);
        for (name, text) in &texts {
            check_normalizer(&v, ours.as_ref(), &theirs, text, name);
        }
    }
}

#[test]
fn fixture_normalizers_match_tokenizers() {
    let texts = corpus_texts();
    for name in yieldtok_testkit::fixtures::NAMES.iter().chain(&yieldtok_testkit::fixtures::ENGINE_EXTRA) {
        let Ok(path) = yieldtok_testkit::fixtures::tokenizer_json(name) else {
            eprintln!("fixture {name} not available: skipped");
            continue;
        };
        let json: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let v = &json["normalizer"];
        let ours = normalizers::from_json(v).unwrap();
        if v.is_null() || v["type"] == "Sequence" && v["normalizers"].as_array().unwrap().is_empty() {
            assert!(ours.is_none(), "{name}: no normalizer");
            continue;
        }
        let ours = ours.unwrap_or_else(|| panic!("{name}: a normalizer"));
        let theirs = tk_normalizer(v);
        for (t, text) in &texts {
            check_normalizer(v, ours.as_ref(), &theirs, text, &format!("{name} {t}"));
        }
    }
}

#[test]
fn continuation_drops_prepend() {
    let v = json!({"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
        {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]});
    assert!(normalizers::has_prepend(&v));
    let ours = normalizers::from_json_continuation(&v).unwrap().unwrap();
    let theirs = tk_normalizer(&json!({"type": "Replace", "pattern": {"String": " "}, "content": "▁"}));
    for (name, text) in corpus_texts() {
        check_normalizer(&v, ours.as_ref(), &theirs, &text, &name);
    }
    assert!(normalizers::from_json_continuation(&json!({"type": "Prepend", "prepend": "▁"})).unwrap().is_none());
}

#[test]
fn dispatcher_none_and_errors() {
    assert!(normalizers::from_json(&Value::Null).unwrap().is_none());
    assert!(normalizers::from_json(&json!({"type": "Sequence", "normalizers": []})).unwrap().is_none());
    assert!(normalizers::from_json(
        &json!({"type": "Sequence", "normalizers": [{"type": "Sequence", "normalizers": []}]})
    )
    .unwrap()
    .is_none());
    use yieldtok_engine::LoadError;
    assert!(matches!(normalizers::from_json(&json!({"type": "Nmt"})), Err(LoadError::Unsupported(_))));
    assert!(matches!(normalizers::from_json(&json!({"no": "type"})), Err(LoadError::Unsupported(_))));
    assert!(matches!(normalizers::from_json(&json!({"type": "Strip"})), Err(LoadError::Malformed(_))));
    assert!(matches!(
        normalizers::from_json(&json!({"type": "Replace", "pattern": {"Regex": "("}, "content": ""})),
        Err(LoadError::Unsupported(_))
    ));
}

const BEHAVIORS: [(SplitDelimiterBehavior, TkBehavior); 5] = [
    (SplitDelimiterBehavior::Removed, TkBehavior::Removed),
    (SplitDelimiterBehavior::Isolated, TkBehavior::Isolated),
    (SplitDelimiterBehavior::MergedWithPrevious, TkBehavior::MergedWithPrevious),
    (SplitDelimiterBehavior::MergedWithNext, TkBehavior::MergedWithNext),
    (SplitDelimiterBehavior::Contiguous, TkBehavior::Contiguous),
];

/// A normalized string with non-trivial alignments on both sides (llama2's normalizer + NFKD).
fn both(text: &str, shift: usize) -> (Normalized, NormalizedString) {
    let v = json!({"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
        {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}, {"type": "NFKD"}]});
    let mut o = Normalized::new(text, 0);
    normalizers::from_json(&v).unwrap().unwrap().normalize(&mut o).unwrap();
    let mut t = NormalizedString::from(text);
    tk_normalizer(&v).normalize(&mut t).unwrap();
    // Shift both by slicing a prefix-padded string: the slice keeps a non-zero original_shift.
    if shift > 0 {
        let pad = "x".repeat(shift);
        let (mut o2, t2) = both(&format!("{pad}{text}"), 0);
        o2 = o2.slice(shift + 3..o2.get().len()).unwrap_or(o2);
        let t2 = t2.slice(TkRange::Normalized(shift + 3..t2.get().len())).unwrap_or(t2);
        return (o2, t2);
    }
    (o, t)
}

fn check_methods(text: &str) {
    for shift in [0, 2] {
        let (o, t) = both(text, shift);
        assert_same(&o, &t, &format!("setup {text:?}"));
        let n = o.get().len();
        let cuts: Vec<usize> = (0..=n).collect();
        // Offset conversions over every range (bounded), both directions.
        let step = (n / 24).max(1);
        for &a in cuts.iter().step_by(step) {
            for &b in cuts.iter().step_by(step) {
                let ours = o.convert_offsets(a..b);
                let theirs = t.convert_offsets(TkRange::Normalized(a..b));
                assert_eq!(ours, theirs, "{text:?}: convert_offsets({a}..{b})");
                let ol = o.get_original().len();
                let (ca, cb) = (a.min(ol + 1), b.min(ol + 1));
                let ours = o.convert_offsets_original(ca..cb);
                let theirs = t.convert_offsets(TkRange::Original(ca..cb));
                assert_eq!(ours, theirs, "{text:?}: convert_offsets_original({ca}..{cb})");
                let ours = o.slice(a..b);
                let theirs = t.slice(TkRange::Normalized(a..b));
                assert_eq!(ours.is_some(), theirs.is_some(), "{text:?}: slice({a}..{b})");
                if let (Some(ours), Some(theirs)) = (ours, theirs) {
                    assert_same(&ours, &theirs, &format!("{text:?}: slice({a}..{b})"));
                }
            }
        }
        // Splits: a char predicate and a regex, every behavior.
        let re = fancy_regex::Regex::new(r"▁|\d+|(?=a)").unwrap();
        let sys = tokenizers::utils::SysRegex::new(r"▁|\d+|(?=a)").unwrap();
        for (ob, tb) in BEHAVIORS {
            let ours = o.split_by(|c| c.is_whitespace() || c == '▁' || c.is_ascii_punctuation(), ob);
            let theirs = t.split(|c: char| c.is_whitespace() || c == '▁' || c.is_ascii_punctuation(), tb).unwrap();
            assert_eq!(ours.len(), theirs.len(), "{text:?}: split_by {ob:?}");
            for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
                assert_same(a, b, &format!("{text:?}: split_by {ob:?} #{i}"));
            }
            let ours = o.split_at_matches(&find_matches_regex(o.get(), &re), ob);
            let theirs = t.split(&sys, tb).unwrap();
            assert_eq!(ours.len(), theirs.len(), "{text:?}: split regex {ob:?}");
            for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
                assert_same(a, b, &format!("{text:?}: split regex {ob:?} #{i}"));
            }
        }
    }
}

#[test]
fn normalized_methods_match_tokenizers() {
    for text in ["", "a", " ", "ﬁ ab", "the-final--countdown 12a", "e\u{301}\u{302} aa 한국어 ①② ﬃ"] {
        check_methods(text);
    }
    for t in corpus::TROUBLE {
        check_methods(t);
    }
    for p in corpus::PROSE {
        check_methods(p);
    }
}

/// Every configuration built once on both sides (the proptest cases share them).
type Built = (Value, Box<dyn Normalize>, NormalizerWrapper);

fn built() -> &'static [Built] {
    static BUILT: std::sync::OnceLock<Vec<Built>> = std::sync::OnceLock::new();
    BUILT.get_or_init(|| {
        configs()
            .into_iter()
            .map(|v| {
                let ours = normalizers::from_json(&v).unwrap().unwrap();
                let theirs = tk_normalizer(&v);
                (v, ours, theirs)
            })
            .collect()
    })
}

/// The troublemaker alphabet of the proptests.
const ALPHABET: &[&str] = &[
    "a",
    "B",
    "z",
    "0",
    "7",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\r",
    "\u{a0}",
    "\u{3000}",
    "\u{2028}",
    "\u{85}",
    "\u{200b}",
    "\u{feff}",
    "▁",
    "e",
    "\u{301}",
    "\u{302}",
    "\u{308}",
    "\u{323}",
    "\u{334}",
    "é",
    "Å",
    "\u{212b}",
    "\u{2126}",
    "한",
    "\u{1100}",
    "\u{1161}",
    "\u{11a8}",
    "中",
    "ﬁ",
    "ﬃ",
    "①",
    "Ⅻ",
    "０",
    "Ａ",
    "ｶ",
    "\u{ff9e}",
    "İ",
    "ẞ",
    "Σ",
    "ς",
    "ǅ",
    "👩‍👩‍👧‍👦",
    "👍🏽",
    "❤️",
    "\u{fe0f}",
    "\u{200d}",
    "1️⃣",
    "🇯🇵",
    "x*",
    "_",
    "-",
    "'s",
    "\u{0}",
    "\u{1f}",
    "ΐ",
    "ﷺ",
    "\u{f900}",
    "\u{2fa1d}",
    "\u{10ffff}",
];

fn trouble_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(ALPHABET), 0..24).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x0e47_0013),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn normalizers_match_tokenizers_on_troublemakers(text in trouble_text()) {
        for (v, ours, theirs) in built().iter() {
            check_normalizer(v, ours.as_ref(), theirs, &text, "proptest");
        }
    }

    #[test]
    fn normalized_methods_match_tokenizers_on_troublemakers(text in trouble_text()) {
        check_methods(&text);
    }
}
