//! Differential tests of the pre-tokenizers Metaspace, Whitespace, WhitespaceSplit,
//! BertPreTokenizer, Punctuation, Digits and CharDelimiterSplit against `tokenizers` 0.23.2:
//! every split's text, original offsets and the alignment of each of its bytes, on normalized
//! input (none, BERT's, NFKD) and on a slice (non-zero offset, which Metaspace's `first` sees);
//! and each range `cut` against the general path on raw text.

use proptest::prelude::*;
use serde_json::{json, Value};
use tokenizers::normalizer::Range as TkRange;
use tokenizers::{
    NormalizedString, Normalizer, NormalizerWrapper, PreTokenizedString, PreTokenizer, PreTokenizerWrapper,
};
use yieldtok_engine::normalized::Normalized;
use yieldtok_engine::normalizers;
use yieldtok_engine::pre_tokenizers::{
    bert::BertPreTokenizer, char_delimiter::CharDelimiterSplit, digits::Digits, metaspace::Metaspace,
    punctuation::Punctuation, whitespace::Whitespace, whitespace::WhitespaceSplit, PreTokenize, Splits,
};
use yieldtok_testkit::corpus;

/// A range cut: text, base, ranges out.
type Cut = Box<dyn Fn(&str, u32, &mut Vec<(u32, u32)>)>;

/// One of ours: the general form, and the range cut where the pre-tokenizer has one.
struct Ours {
    general: Box<dyn PreTokenize>,
    cut: Option<Cut>,
}

fn ours(v: &Value) -> Ours {
    fn with_cut<P: PreTokenize + Clone + 'static>(p: P, cut: fn(&P, &str, u32, &mut Vec<(u32, u32)>)) -> Ours {
        let q = p.clone();
        Ours { general: Box::new(p), cut: Some(Box::new(move |t, b, o| cut(&q, t, b, o))) }
    }
    match v["type"].as_str().unwrap() {
        "Metaspace" => Ours { general: Box::new(Metaspace::from_json(v).unwrap()), cut: None },
        "Whitespace" => with_cut(Whitespace, Whitespace::cut),
        "WhitespaceSplit" => with_cut(WhitespaceSplit, WhitespaceSplit::cut),
        "BertPreTokenizer" => with_cut(BertPreTokenizer, BertPreTokenizer::cut),
        "Punctuation" => with_cut(Punctuation::from_json(v).unwrap(), Punctuation::cut),
        "Digits" => with_cut(Digits::from_json(v).unwrap(), Digits::cut),
        "CharDelimiterSplit" => with_cut(CharDelimiterSplit::from_json(v).unwrap(), CharDelimiterSplit::cut),
        t => panic!("{t}"),
    }
}

fn configs() -> Vec<Value> {
    let mut v = vec![];
    for scheme in ["always", "first", "never"] {
        for split in [true, false] {
            v.push(json!({"type": "Metaspace", "replacement": "▁", "prepend_scheme": scheme, "split": split}));
        }
    }
    v.push(json!({"type": "Metaspace", "replacement": "_", "add_prefix_space": true, "split": true}));
    v.push(json!({"type": "Whitespace"}));
    v.push(json!({"type": "WhitespaceSplit"}));
    v.push(json!({"type": "BertPreTokenizer"}));
    for b in ["Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"] {
        v.push(json!({"type": "Punctuation", "behavior": b}));
    }
    v.push(json!({"type": "Punctuation"}));
    v.push(json!({"type": "Digits", "individual_digits": true}));
    v.push(json!({"type": "Digits", "individual_digits": false}));
    v.push(json!({"type": "CharDelimiterSplit", "delimiter": "-"}));
    v.push(json!({"type": "CharDelimiterSplit", "delimiter": "▁"}));
    v
}

fn normalizer_configs() -> Vec<Value> {
    vec![
        Value::Null,
        json!({"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true}),
        json!({"type": "Sequence", "normalizers": [{"type": "NFKD"}, {"type": "Replace", "pattern": {"String": "  "}, "content": "▁"}]}),
    ]
}

fn assert_same(ours: &Normalized, theirs: &NormalizedString, ctx: &str) {
    assert_eq!(ours.get(), theirs.get(), "{ctx}: normalized text");
    let (s, e) = ours.offsets_original();
    assert_eq!((s as usize, e as usize), theirs.offsets_original(), "{ctx}: offsets_original");
    for (b, &(a0, a1)) in ours.alignments.iter().enumerate() {
        let t = theirs.convert_offsets(TkRange::Normalized(b..b + 1));
        assert_eq!(Some(a0 as usize..a1 as usize), t, "{ctx}: alignment of byte {b}");
    }
}

/// `tokenizers`' splits as `NormalizedString`s (captured by one more, identity, split pass).
fn their_splits(p: &PreTokenizerWrapper, n: NormalizedString) -> Vec<NormalizedString> {
    let mut pts = PreTokenizedString::from(n);
    p.pre_tokenize(&mut pts).unwrap();
    let mut out = Vec::new();
    pts.split(|_, s| {
        out.push(s.clone());
        Ok(vec![s])
    })
    .unwrap();
    out
}

fn check(v: &Value, nv: &Value, text: &str, shift: usize, ctx: &str) {
    let theirs_p: PreTokenizerWrapper = serde_json::from_value(v.clone()).unwrap();
    let ours_p = ours(v);
    // The same normalized input on both sides, sliced when `shift` > 0 (a segment that does
    // not start at offset 0).
    let pad = "x ".repeat(shift);
    let full = format!("{pad}{text}");
    let mut o = Normalized::new(&full, 0);
    let mut t = NormalizedString::from(full.as_str());
    if !nv.is_null() {
        normalizers::from_json(nv).unwrap().unwrap().normalize(&mut o).unwrap();
        let tn: NormalizerWrapper = serde_json::from_value(nv.clone()).unwrap();
        tn.normalize(&mut t).unwrap();
    }
    if shift > 0 {
        let at = o.convert_offsets_original(pad.len()..full.len()).unwrap().start;
        o = o.slice(at..o.get().len()).unwrap();
        t = t.slice(TkRange::Normalized(at..t.get().len())).unwrap();
    }
    assert_same(&o, &t, &format!("{ctx}: input"));
    let mut splits: Splits = vec![o.clone()];
    ours_p.general.pre_tokenize(&mut splits).unwrap();
    let theirs = their_splits(&theirs_p, t);
    let ctx = format!("{ctx} {v} after {nv}, shift {shift}, text {text:?}");
    assert_eq!(
        splits.iter().map(|s| s.get()).collect::<Vec<_>>(),
        theirs.iter().map(|s| s.get()).collect::<Vec<_>>(),
        "{ctx}: split texts"
    );
    for (i, (a, b)) in splits.iter().zip(&theirs).enumerate() {
        assert_same(a, b, &format!("{ctx}: split {i}"));
    }
    // The range cut of a text without a normalizer equals the general path's offsets.
    if let (Some(cut), true) = (&ours_p.cut, nv.is_null() && shift == 0) {
        let mut ranges = Vec::new();
        cut(text, 7, &mut ranges);
        let general: Vec<(u32, u32)> =
            splits.iter().map(|s| s.offsets_original()).map(|(a, b)| (a + 7, b + 7)).collect();
        assert_eq!(ranges, general, "{ctx}: cut");
    }
}

fn texts() -> Vec<(String, String)> {
    let mut v = corpus::exactness(&["<s>".into()]);
    v.retain(|(_, t)| t.len() < 70_000);
    v.extend(corpus::TROUBLE.iter().enumerate().map(|(i, t)| (format!("trouble {i}"), t.to_string())));
    v.extend(corpus::PROSE.iter().enumerate().map(|(i, t)| (format!("prose {i}"), t.to_string())));
    v.push(("leading replacement".into(), "▁x ▁ y  ▁▁z ".into()));
    v.push(("leading space".into(), " a b".into()));
    v
}

#[test]
fn pre_tokenizers_match_tokenizers_on_the_corpus() {
    let texts = texts();
    for v in configs() {
        for nv in normalizer_configs() {
            for (name, text) in &texts {
                for shift in [0, 1] {
                    // Long texts once per pre-tokenizer (the time budget); short ones every way.
                    if text.len() > 4096 && !(nv.is_null() && shift == 0) {
                        continue;
                    }
                    check(&v, &nv, text, shift, name);
                }
            }
        }
    }
}

#[test]
fn metaspace_continuation_never_prepends() {
    let m =
        Metaspace::from_json(&json!({"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always"})).unwrap();
    let mut splits: Splits = vec![Normalized::new("a b", 0)];
    m.continuation().pre_tokenize(&mut splits).unwrap();
    assert_eq!(splits.iter().map(|s| s.get()).collect::<Vec<_>>(), ["a", "▁b"]);
    let bad = json!({"type": "Metaspace", "replacement": "▁", "add_prefix_space": false, "prepend_scheme": "first"});
    assert!(Metaspace::from_json(&bad).is_err());
    let legacy = json!({"type": "Metaspace", "replacement": "▁", "add_prefix_space": false, "prepend_scheme": "never"});
    assert_eq!(
        Metaspace::from_json(&legacy).unwrap().prepend_scheme,
        yieldtok_engine::pre_tokenizers::metaspace::PrependScheme::Never
    );
}

/// Metaspace's fast path (`pre_tokens`, for `split: true`) gives the general path's pre-tokens
/// and, for every byte range of each, the general path's alignment.
fn check_metaspace_fast(m: &Metaspace, text: &str, at_start: bool, continuation: bool) {
    let general = m.transform(Normalized::new(text, 0), at_start, continuation);
    let mut fast = Vec::new();
    let mut buf = String::new();
    let ran = m
        .pre_tokens(text, at_start, continuation, &mut buf, |w, map| {
            fast.push((w.to_string(), *map));
            Ok::<(), ()>(())
        })
        .unwrap();
    assert_eq!(ran, m.split);
    if !ran {
        return;
    }
    assert_eq!(
        fast.iter().map(|(w, _)| w.as_str()).collect::<Vec<_>>(),
        general.iter().map(|s| s.get()).collect::<Vec<_>>(),
        "{text:?}"
    );
    for ((w, map), g) in fast.iter().zip(&general) {
        for a in 0..w.len() {
            for b in a + 1..=w.len() {
                if !(w.is_char_boundary(a) && w.is_char_boundary(b)) {
                    continue;
                }
                let (s, e) = map.map(a as u32, b as u32);
                let want = (g.original_shift + g.alignments[a].0, g.original_shift + g.alignments[b - 1].1);
                assert_eq!((s, e), want, "{text:?}: pre-token {w:?} bytes {a}..{b}");
            }
        }
    }
}

#[test]
fn metaspace_fast_path_matches_the_general_path() {
    let configs: Vec<Metaspace> =
        configs().iter().filter(|v| v["type"] == "Metaspace").map(|v| Metaspace::from_json(v).unwrap()).collect();
    let mut words: Vec<String> = corpus::TROUBLE.iter().map(|s| s.to_string()).collect();
    words.extend(corpus::PROSE.iter().map(|s| s.to_string()));
    words.extend(["▁x ▁ y  ▁▁z ", " a", "_a_ b", "a", "", "  ", "▁"].map(String::from));
    for m in &configs {
        for w in &words {
            for (at_start, cont) in [(true, false), (false, false), (true, true)] {
                check_metaspace_fast(m, w, at_start, cont);
            }
        }
    }
}

const ALPHABET: &[&str] = &[
    "a", "B", "z", "0", "7", "٣", "²", "Ⅻ", "½", " ", "  ", "\t", "\n", "\r\n", "\u{a0}", "\u{3000}", "\u{2028}",
    "\u{85}", "\u{b}", "\u{200b}", "▁", "_", "-", "!", ".", ",", "'", "$", "^", "`", "¿", "«", "—", "、", "。", "「",
    "e\u{301}", "é", "中", "한", "ﬁ", "０", "Ａ", "👍🏽", "❤️", "\u{200d}", "\u{0}", "\u{7f}", "x",
];

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 128,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x0e47_0014),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn pre_tokenizers_match_tokenizers_on_troublemakers(
        parts in proptest::collection::vec(proptest::sample::select(ALPHABET), 0..20),
        shift in 0usize..2,
    ) {
        let text = parts.concat();
        for v in configs() {
            for nv in normalizer_configs() {
                check(&v, &nv, &text, shift, "proptest");
            }
            if v["type"] == "Metaspace" {
                check_metaspace_fast(&Metaspace::from_json(&v).unwrap(), &text, shift == 0, false);
            }
        }
    }
}
