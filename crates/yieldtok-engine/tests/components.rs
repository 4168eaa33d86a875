//! The engine's Split pre-tokenizer and added-token rules against the same components of
//! `tokenizers` 0.23.2:
//! * `Split` with string and regex patterns (including empty matches and lookarounds), every
//!   delimiter behavior, `invert` on and off — the pre-tokens' byte ranges;
//! * added tokens with every flag (`single_word`, `lstrip`, `rstrip`, `normalized`, special or
//!   not, contents in and out of the model vocabulary, overlapping contents) in a real
//!   byte-level tokenizer (the llama3_1 fixture with its added tokens replaced) — whole encodes.

use proptest::prelude::*;
use tokenizers::pre_tokenizers::split::{Split as HfSplit, SplitPattern};
use tokenizers::{OffsetReferential, OffsetType, PreTokenizedString, PreTokenizer, SplitDelimiterBehavior as HfB};
use yieldtok_engine::normalized::SplitDelimiterBehavior as B;
use yieldtok_engine::pre_tokenizers::split::{PatternSource, Split};
use yieldtok_engine::{Engine, PieceOptions, Tokens};
use yieldtok_testkit::{corpus, fixtures};

const BEHAVIORS: [(B, HfB); 5] = [
    (B::Removed, HfB::Removed),
    (B::Isolated, HfB::Isolated),
    (B::MergedWithPrevious, HfB::MergedWithPrevious),
    (B::MergedWithNext, HfB::MergedWithNext),
    (B::Contiguous, HfB::Contiguous),
];

const PATTERNS: &[(bool, &str)] = &[
    (false, " "),
    (false, "ab"),
    (false, "\n\n"),
    (false, "▁"),
    (true, r"\s+"),
    (true, r"\w+"),
    (true, r"\p{N}{1,3}"),
    (true, r"a*"),
    (true, r"(?=b)"),
    (true, r"\s+(?!\S)|\s+"),
    (true, r"[^\s\p{L}\p{N}]+"),
];

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x13_5b1e),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn atoms() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = corpus::TROUBLE.to_vec();
    v.extend(["a", "b", "ab", "aab", "x y", "  ", "12345", "héllo", "!?", "▁a"]);
    v
}

/// Every (pattern, behavior, invert): ours and theirs, compiled once.
fn splits() -> &'static [(String, Split, HfSplit)] {
    static S: std::sync::OnceLock<Vec<(String, Split, HfSplit)>> = std::sync::OnceLock::new();
    S.get_or_init(|| {
        let mut v = Vec::new();
        for &(is_regex, p) in PATTERNS {
            for (b, hb) in BEHAVIORS {
                for invert in [false, true] {
                    let source =
                        if is_regex { PatternSource::Regex(p.into()) } else { PatternSource::String(p.into()) };
                    let hp = if is_regex { SplitPattern::Regex(p.into()) } else { SplitPattern::String(p.into()) };
                    v.push((
                        format!("{p:?} {b:?} invert={invert}"),
                        Split::new(source, b, invert).unwrap(),
                        HfSplit::new(hp, hb, invert).unwrap(),
                    ));
                }
            }
        }
        v
    })
}

fn split_case(text: &str) -> Result<(), String> {
    for (what, ours, theirs) in splits() {
        let mut pre = PreTokenizedString::from(text);
        theirs.pre_tokenize(&mut pre).unwrap();
        let want: Vec<(u32, u32)> = pre
            .get_splits(OffsetReferential::Original, OffsetType::Byte)
            .iter()
            .map(|(_, o, _)| (o.0 as u32, o.1 as u32))
            .collect();
        let mut got = Vec::new();
        ours.cut(text, 0, &mut got);
        if got != want {
            return Err(format!("{what}: want {want:?}, got {got:?}"));
        }
    }
    Ok(())
}

#[test]
fn split_corpus_matches_tokenizers() {
    for t in ["", "a", "How are you doing?", "aaab  b ab\n\n\nab▁▁x", &corpus::PROSE.join(" "), &corpus::json_text()]
    {
        split_case(t).unwrap_or_else(|e| panic!("{t:?}: {e}"));
    }
}

proptest! {
    #![proptest_config(config(300))]
    #[test]
    fn split_matches_tokenizers(picks in proptest::collection::vec(0usize..1000, 0..16)) {
        let atoms = atoms();
        let text: String = picks.iter().map(|&i| atoms[i % atoms.len()]).collect();
        if let Err(e) = split_case(&text) {
            prop_assert!(false, "{text:?}: {e}");
        }
    }
}

// ---- added tokens -------------------------------------------------------------------------

/// (content, special, single_word, lstrip, rstrip, normalized)
const ADDED: &[(&str, bool, bool, bool, bool, bool)] = &[
    ("<|special|>", true, false, false, false, false),
    ("[L]", false, false, true, false, false),
    ("[R]", false, false, false, true, false),
    ("[LR]", true, false, true, true, false),
    ("[L][R]", false, false, false, false, false),
    ("word", false, true, false, false, false),
    ("hello", false, false, false, false, true),
    (" world", false, false, false, false, true),
    ("big cat", false, true, false, false, true),
    ("the", false, false, false, false, false),
    ("é", false, true, true, true, true),
    ("<|special|>", true, false, false, false, false),
];

fn flagged_json() -> String {
    let path = fixtures::tokenizer_json("llama3_1").expect("fixture");
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let list: Vec<serde_json::Value> = ADDED
        .iter()
        .enumerate()
        .map(|(i, &(content, special, single_word, lstrip, rstrip, normalized))| {
            serde_json::json!({"id": 128000 + i, "content": content, "special": special, "single_word": single_word,
                "lstrip": lstrip, "rstrip": rstrip, "normalized": normalized})
        })
        .collect();
    v["added_tokens"] = serde_json::Value::Array(list);
    serde_json::to_string(&v).unwrap()
}

struct Pair {
    engine: Engine,
    oracle: tokenizers::Tokenizer,
}

fn pair() -> &'static Pair {
    static P: std::sync::OnceLock<Pair> = std::sync::OnceLock::new();
    P.get_or_init(|| {
        let json = flagged_json();
        Pair { engine: Engine::from_json(&json).expect("engine"), oracle: json.parse().expect("oracle") }
    })
}

fn added_case(text: &str) -> Result<(), String> {
    let p = pair();
    let want = p.oracle.encode(text, false).map_err(|e| e.to_string())?;
    let mut got = Tokens::default();
    p.engine.encode(text, &PieceOptions::default(), &mut got).map_err(|e| e.to_string())?;
    let want_offsets: Vec<(u32, u32)> = want.get_offsets().iter().map(|&(a, b)| (a as u32, b as u32)).collect();
    let want_words: Vec<u32> = want.get_word_ids().iter().map(|w| w.unwrap()).collect();
    if (want.get_ids(), &want_offsets, &want_words) != (&got.ids[..], &got.offsets, &got.words) {
        return Err(format!(
            "want {:?}\n got {:?}",
            (want.get_ids(), &want_offsets, &want_words),
            (&got.ids, &got.offsets, &got.words)
        ));
    }
    Ok(())
}

#[test]
fn added_token_flags_match_tokenizers() {
    for t in [
        "",
        "<|special|>",
        "a [L] b  [L]c [R]  d[R]\n e [LR] \t f[L][R]g [L] [R]",
        "word words sword word! (word) word",
        "hello world helloworld  world big cat bigcat big  cat the theme é café é",
        "[R] [L]",
        "  [L]  [R]  [L][L]  ",
        "\u{a0}[L]\u{3000}[R]\u{2028}é\u{a0}",
    ] {
        added_case(t).unwrap_or_else(|e| panic!("{t:?}: {e}"));
    }
}

proptest! {
    #![proptest_config(config(300))]
    #[test]
    fn added_tokens_match_tokenizers(picks in proptest::collection::vec(0usize..1000, 0..24)) {
        let mut atoms = atoms();
        atoms.extend(ADDED.iter().map(|a| a.0));
        atoms.extend([" ", "\t", "\n", "x"]);
        let text: String = picks.iter().map(|&i| atoms[i % atoms.len()]).collect();
        if let Err(e) = added_case(&text) {
            prop_assert!(false, "{text:?}: {e}");
        }
    }
}
