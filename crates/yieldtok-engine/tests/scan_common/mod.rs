//! What the scanner tests share: the oracles and the inputs.
//!
//! Oracles: (1) `tokenizers`' own pre-tokenizer built from the fixture's `tokenizer.json` (its
//! Split steps, the ByteLevel step left out), (2) the fixture's Split patterns run with
//! `fancy-regex` `find_iter`, Isolated (matches and the gaps between them), one pattern after
//! the other within each piece. Inputs: the test kit's corpora, the troublemaker alphabet for
//! proptests and for an exhaustive enumeration of short strings.

#![allow(dead_code)]

use tokenizers::{OffsetReferential, OffsetType, PreTokenizedString, PreTokenizer, PreTokenizerWrapper};
use yieldtok_engine::pre_tokenizers::scan::{scanner_for, Scanner};

/// A fixture's pre-tokenizer: the Split patterns in order, `tokenizers`' pre-tokenizer of those
/// Splits, and the scanner `scanner_for` gives for them.
pub struct Subject {
    pub fixture: &'static str,
    pub patterns: Vec<String>,
    pub regexes: Vec<fancy_regex::Regex>,
    pub oracle: PreTokenizerWrapper,
    pub scanner: Box<dyn Scanner>,
}

impl Subject {
    /// Load fixture `name`; its scanner must be `scanner_name`.
    pub fn load(fixture: &'static str, scanner_name: &str) -> Subject {
        let path = yieldtok_testkit::fixtures::tokenizer_json(fixture).expect("fixture");
        // Only the pre-tokenizer is kept (the rest of the file is skipped, not built).
        #[derive(serde::Deserialize)]
        struct Json {
            pre_tokenizer: serde_json::Value,
        }
        let json: Json = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let pt = &json.pre_tokenizer;
        let steps: Vec<serde_json::Value> = match pt["type"].as_str() {
            Some("Sequence") => pt["pretokenizers"].as_array().unwrap().clone(),
            _ => vec![pt.clone()],
        };
        let splits: Vec<serde_json::Value> = steps.into_iter().filter(|s| s["type"] != "ByteLevel").collect();
        assert!(splits.iter().all(|s| s["type"] == "Split"), "{fixture}: {splits:?}");
        let patterns: Vec<String> =
            splits.iter().map(|s| s["pattern"]["Regex"].as_str().unwrap().to_string()).collect();
        let oracle: PreTokenizerWrapper =
            serde_json::from_value(serde_json::json!({"type": "Sequence", "pretokenizers": splits})).unwrap();
        let refs: Vec<&str> = patterns.iter().map(String::as_str).collect();
        let scanner = scanner_for(&refs).unwrap_or_else(|| panic!("{fixture}: no scanner for its patterns"));
        assert_eq!(scanner.name(), scanner_name, "{fixture}");
        let regexes = patterns.iter().map(|p| fancy_regex::Regex::new(p).unwrap()).collect();
        Subject { fixture, patterns, regexes, oracle, scanner }
    }

    /// The pre-tokens (byte ranges) of the scanner.
    pub fn scanned(&self, text: &str) -> Vec<(usize, usize)> {
        let mut ends = Vec::new();
        self.scanner.scan(text, &mut ends);
        let mut start = 0;
        ends.into_iter()
            .map(|e| {
                let r = (start, e as usize);
                start = e as usize;
                r
            })
            .collect()
    }

    /// The pre-tokens of `tokenizers`' pre-tokenizer.
    pub fn oracle(&self, text: &str) -> Vec<(usize, usize)> {
        let mut pts = PreTokenizedString::from(text);
        self.oracle.pre_tokenize(&mut pts).unwrap();
        pts.get_splits(OffsetReferential::Original, OffsetType::Byte).into_iter().map(|(_, o, _)| o).collect()
    }

    /// The pre-tokens of the patterns run with `fancy-regex` (Isolated, in order).
    pub fn regexed(&self, text: &str) -> Vec<(usize, usize)> {
        let mut pieces = if text.is_empty() { vec![] } else { vec![(0, text.len())] };
        for re in &self.regexes {
            let mut next = Vec::new();
            for (s, e) in pieces {
                let piece = &text[s..e];
                let mut prev = 0;
                for m in re.find_iter(piece) {
                    let m = m.expect("fancy-regex error");
                    if m.start() > prev {
                        next.push((s + prev, s + m.start()));
                    }
                    if m.end() > m.start() {
                        next.push((s + m.start(), s + m.end()));
                    }
                    prev = m.end();
                }
                if prev < piece.len() {
                    next.push((s + prev, e));
                }
            }
            pieces = next;
        }
        pieces
    }

    /// Check the scanner against `tokenizers` (and, when `with_regex`, against `fancy-regex`).
    pub fn check(&self, label: &str, text: &str, with_regex: bool) {
        let got = self.scanned(text);
        let want = self.oracle(text);
        if got != want {
            panic!("{}: {label}: scanner differs from tokenizers\n{}", self.fixture, diff(text, &got, &want));
        }
        if with_regex {
            let re = self.regexed(text);
            if re != want {
                panic!("{}: {label}: fancy-regex differs from tokenizers\n{}", self.fixture, diff(text, &re, &want));
            }
        }
    }

    /// Check the scanner against `fancy-regex` only (fast; for enumerations).
    pub fn check_regex(&self, text: &str) {
        let got = self.scanned(text);
        let want = self.regexed(text);
        if got != want {
            panic!("{}: scanner differs from fancy-regex\n{}", self.fixture, diff(text, &got, &want));
        }
    }
}

/// A readable report of the first difference between two tilings.
pub fn diff(text: &str, got: &[(usize, usize)], want: &[(usize, usize)]) -> String {
    let k = got.iter().zip(want).take_while(|(a, b)| a == b).count();
    let show = |v: &[(usize, usize)]| -> Vec<String> {
        v.iter().skip(k.saturating_sub(2)).take(5).map(|&(s, e)| format!("{:?}", &text[s..e])).collect()
    };
    let start = want.get(k.saturating_sub(2)).map_or(0, |r| r.0);
    let end = (start + 80).min(text.len());
    let end = (end..=text.len()).find(|&i| text.is_char_boundary(i)).unwrap_or(text.len());
    format!(
        "  at pre-token {k} (of {} / {}), text from byte {start}: {:?}\n  got:  {:?}\n  want: {:?}",
        got.len(),
        want.len(),
        &text[start..end],
        show(got),
        show(want)
    )
}

/// Atoms of the troublemaker alphabet: every class the patterns tell apart (upper, lower,
/// title-case, modifier and other letters; marks of all three kinds; decimal, letter and other
/// numbers; white space of many kinds; punctuation, symbols, emoji and their joiners;
/// controls, format chars, private use, unassigned), contractions in both cases, the CJK
/// ranges of DeepSeek's second Split, and words mixing them.
pub const ATOMS: &[&str] = &[
    // letters
    "a",
    "b",
    "s",
    "t",
    "e",
    "l",
    "r",
    "v",
    "m",
    "d",
    "x",
    "A",
    "S",
    "T",
    "L",
    "R",
    "E",
    "V",
    "M",
    "D",
    "ſ",
    "ǅ",
    "ʰ",
    "é",
    "É",
    "ß",
    "ﬁ",
    "Ω",
    "ω",
    "я",
    "Я",
    "ا",
    "ب",
    "ก",
    "한",
    "中",
    "日",
    "龥",
    "一",
    "カ",
    "ア",
    "ぁ",
    "ー",
    "ゟ",
    "ヿ",
    "hello",
    "Hello",
    "HELLO",
    "iPhone",
    "McDonald",
    "ABCdef",
    "東京",
    "カタカナ",
    // CJK-range non-letters
    "・",
    "゛",
    "゠",
    "\u{3099}",
    "\u{3040}",
    "\u{3097}",
    // marks
    "\u{301}",
    "\u{308}",
    "\u{20e3}",
    "\u{93f}",
    "\u{fe0f}",
    "\u{fe0e}",
    "\u{e0100}",
    "\u{1f3fd}",
    // numbers
    "0",
    "1",
    "9",
    "42",
    "1234",
    "١",
    "٢",
    "५",
    "０",
    "１",
    "Ⅻ",
    "ⅷ",
    "½",
    "²",
    "〇",
    "3.14",
    // white space
    " ",
    "  ",
    "   ",
    "\t",
    "\t\t",
    "\u{a0}",
    "\u{3000}",
    "\u{2028}",
    "\u{2029}",
    "\u{85}",
    "\u{b}",
    "\u{c}",
    "\u{2009}",
    "\u{202f}",
    "\u{1680}",
    "\u{205f}",
    // newlines
    "\n",
    "\r",
    "\r\n",
    "\n\n",
    " \n",
    "\n ",
    "  \n\n  ",
    // contractions and apostrophes
    "'",
    "''",
    "'s",
    "'S",
    "'t",
    "'T",
    "'re",
    "'RE",
    "'rE",
    "'ve",
    "'VE",
    "'m",
    "'M",
    "'ll",
    "'LL",
    "'lL",
    "'d",
    "'D",
    "'ſ",
    "'x",
    "'r",
    "'l",
    "'v",
    "don't",
    "DON'T",
    "we'LL",
    "3's",
    "’s",
    "‘",
    // punctuation and symbols
    ".",
    ",",
    "!",
    "?",
    "/",
    "//",
    "-",
    "_",
    "\"",
    "(",
    ")",
    "[",
    "{",
    "$",
    "+",
    "<",
    "=",
    "^",
    "`",
    "|",
    "~",
    "\\",
    "@",
    "#",
    "%",
    "&",
    "*",
    ":",
    ";",
    "▁",
    "▁▁",
    "…",
    "«",
    "—",
    "、",
    "。",
    "€",
    "©",
    "°",
    // emoji
    "👍",
    "👍🏽",
    "👩\u{200d}👩\u{200d}👧",
    "\u{200d}",
    "❤\u{fe0f}",
    "1\u{fe0f}\u{20e3}",
    "🇯🇵",
    "🧑🏿\u{200d}🚀",
    // other
    "\u{200b}",
    "\u{feff}",
    "\u{0}",
    "\u{1f}",
    "\u{7f}",
    "\u{e000}",
    "\u{378}",
    "\u{ad}",
    "\u{10ffff}",
];

/// One char of each class the scanners tell apart, plus the letters of the contractions: the
/// alphabet of the exhaustive enumeration of short strings.
pub const SMALL: &[&str] = &[
    "a", "A", "s", "S", "l", "e", "ſ", "ǅ", "ʰ", "中", "\u{301}", "1", "Ⅻ", " ", "\t", "\u{a0}", "\r", "\n", "'", ".",
    "/", "👍", "\u{200d}", "\u{0}", "カ", "・",
];

/// Small alphabets for longer exhaustive strings, one per pattern family: the
/// chars whose interplay the pattern's backtracking decides.
pub mod deep {
    /// Contractions, letters, numbers, and white-space runs before words and newlines.
    pub const CL100K: &[&str] = &["a", "S", "'", " ", "\t", "\n", "\r", ".", "1", "\u{301}"];
    /// o200k's case-split letter classes: upper, lower, modifier letter, mark; contractions.
    pub const O200K: &[&str] = &["A", "a", "ʰ", "\u{301}", "'", "s", " ", ".", "/", "\n"];
    /// DeepSeek's pieces (numbers, CJK) and its word prefixes and gaps.
    pub const DEEPSEEK: &[&str] = &["a", "1", "中", "・", " ", "\n", ".", "\u{200d}", "\u{301}", "é"];
}

/// ASCII atoms (and a few non-ASCII ones) for long texts that exercise the ASCII fast path:
/// every ASCII class, contractions, white-space runs before words and newlines, digit runs.
pub const ASCII_ATOMS: &[&str] = &[
    "a",
    "b",
    "s",
    "t",
    "e",
    "l",
    "r",
    "v",
    "m",
    "d",
    "x",
    "A",
    "S",
    "T",
    "L",
    "R",
    "E",
    "V",
    "D",
    "hello",
    "World",
    "0",
    "1",
    "42",
    "1234",
    "1234567",
    " ",
    "  ",
    "   ",
    "        ",
    "\t",
    "\u{b}",
    "\u{c}",
    "\n",
    "\r",
    "\r\n",
    "\n\n",
    " \n",
    "\n ",
    "  \n\n  ",
    "'",
    "''",
    "'s",
    "'S",
    "'t",
    "'re",
    "'RE",
    "'ve",
    "'m",
    "'ll",
    "'LL",
    "'d",
    "'x",
    "'r",
    "'l",
    "don't",
    "we'll",
    ".",
    ",",
    "!",
    "/",
    "//",
    "-",
    "_",
    "\"",
    "(",
    ")",
    "{",
    "}",
    "$",
    "+",
    "<",
    "=",
    "\\",
    "@",
    "#",
    "\u{0}",
    "\u{1f}",
    "\u{7f}",
    "é",
    "\u{a0}",
    "中",
    "\u{301}",
    "ſ",
    "1\u{fe0f}",
];

/// A proptest strategy: strings of up to `max` atoms of [`ASCII_ATOMS`].
pub fn ascii_text(max: usize) -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    proptest::collection::vec(proptest::sample::select(ASCII_ATOMS), 0..max).prop_map(|v| v.concat())
}

/// The fast path's block edges: every string of up to 4 atoms of a small alphabet, placed so
/// that it covers each position around the end of the first 64-byte block, between ASCII
/// prose; `check` gets each text.
pub fn block_edges(mut check: impl FnMut(&str)) {
    const EDGE: &[&str] = &["a", "S", "'", " ", "\t", "\n", "\r", ".", "/", "1", "\u{1}", "é"];
    let filler = "The quick brown fox, it's 12 o'clock; we'll see.\n  Jumps over  the lazy dog!\t\n";
    let mut text = String::new();
    enumerate(EDGE, 4, |s| {
        for at in 52..=66 {
            text.clear();
            text.push_str(&filler[..at]);
            text.push_str(s);
            text.push_str(filler);
            check(&text);
        }
    });
}

/// Every string of 1..=`max_len` atoms of `alphabet`, to `f`.
pub fn enumerate(alphabet: &[&str], max_len: usize, mut f: impl FnMut(&str)) {
    let mut idx: Vec<usize> = Vec::new();
    let mut s = String::new();
    for len in 1..=max_len {
        idx.clear();
        idx.resize(len, 0);
        loop {
            s.clear();
            for &i in &idx {
                s.push_str(alphabet[i]);
            }
            f(&s);
            // next combination (odometer)
            let mut k = len;
            loop {
                if k == 0 {
                    break;
                }
                k -= 1;
                idx[k] += 1;
                if idx[k] < alphabet.len() {
                    break;
                }
                idx[k] = 0;
                if k == 0 {
                    k = usize::MAX;
                    break;
                }
            }
            if k == usize::MAX {
                break;
            }
        }
    }
}

/// The texts of the corpora: the exactness corpus, generated text, the troublemakers, long
/// runs of white space and letters (the look-ahead and run logic over long stretches).
pub fn corpus() -> Vec<(String, String)> {
    let specials: Vec<String> = ["<|endoftext|>", "<|im_start|>", "</s>"].iter().map(|s| s.to_string()).collect();
    let mut v = yieldtok_testkit::corpus::exactness(&specials);
    v.push(("generated 64k".into(), yieldtok_testkit::corpus::generated(64 * 1024, 3)));
    v.push(("atoms".into(), ATOMS.concat().repeat(3)));
    v.push(("atoms spaced".into(), ATOMS.join(" ")));
    v.push(("atoms newlined".into(), ATOMS.join("\n  ")));
    v.push(("long spaces then word".into(), format!("{}x", " ".repeat(20_000))));
    v.push(("long spaces then newline".into(), format!("a{}\n{}b", " ".repeat(20_000), " \t".repeat(5_000))));
    v.push(("long newlines".into(), "\r\n".repeat(10_000)));
    v.push(("long word".into(), "abcDEFǅʰ中\u{301}".repeat(5_000)));
    v.push(("long number".into(), "1234567890١٢".repeat(5_000)));
    v.push(("long punctuation".into(), "!?./\u{200d}👍".repeat(5_000)));
    v
}

/// Large inputs: a 1 MB document and very long runs (a look-ahead backtracking over them).
pub fn large() -> Vec<(String, String)> {
    vec![
        ("document 1 MB".into(), yieldtok_testkit::corpus::document(1 << 20)),
        ("300k spaces then a word".into(), format!("{}word", " ".repeat(300_000))),
        ("300k tabs and spaces then newline".into(), format!("{}\n", " \t".repeat(150_000))),
    ]
}

/// The proptests' configuration: 10,000 cases from a fixed seed (the same cases on every run, so
/// CI is deterministic), no regression files; `PROPTEST_RNG_SEED` / `PROPTEST_CASES` explore
/// further.
pub fn proptest_config() -> proptest::test_runner::Config {
    use proptest::test_runner::{Config, RngSeed};
    let env = Config::default();
    Config {
        cases: if std::env::var_os("PROPTEST_CASES").is_some() { env.cases } else { 10_000 },
        rng_seed: if std::env::var_os("PROPTEST_RNG_SEED").is_some() {
            env.rng_seed
        } else {
            RngSeed::Fixed(0x5ca7_0013)
        },
        failure_persistence: None,
        ..env
    }
}

/// A proptest strategy: strings of up to `max` atoms of [`ATOMS`].
pub fn trouble_text(max: usize) -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    proptest::collection::vec(proptest::sample::select(ATOMS), 0..max).prop_map(|v| v.concat())
}

/// The tests every scanner gets, for fixture `$fixture` whose scanner is `$name`: the corpora
/// and the large inputs against both oracles, and a proptest over [`ATOMS`] against both (see
/// [`proptest_config`]). With `$deep` (one of [`deep`]'s alphabets) and `$deep_len`, also every
/// short string over [`SMALL`] (up to 4 chars), [`ATOMS`] (up to 2 atoms) and `$deep` (up to
/// `$deep_len` atoms) against `fancy-regex`.
#[macro_export]
macro_rules! scanner_tests {
    ($fixture:literal, $name:literal) => {
        use proptest::prelude::*;
        use scan_common::Subject;
        use std::sync::LazyLock;

        static SUBJECT: LazyLock<Subject> = LazyLock::new(|| Subject::load($fixture, $name));

        #[test]
        fn corpora() {
            for (label, text) in scan_common::corpus() {
                SUBJECT.check(&label, &text, true);
            }
        }

        #[test]
        fn large_inputs() {
            for (label, text) in scan_common::large() {
                SUBJECT.check(&label, &text, true);
            }
        }

        proptest! {
            #![proptest_config(scan_common::proptest_config())]
            #[test]
            fn troublemakers(text in scan_common::trouble_text(24)) {
                SUBJECT.check("proptest", &text, true);
            }
        }
    };
    ($fixture:literal, $name:literal, $deep:expr, $deep_len:expr) => {
        scanner_tests!($fixture, $name);

        #[test]
        fn every_short_string() {
            scan_common::enumerate(scan_common::SMALL, 4, |s| SUBJECT.check_regex(s));
            scan_common::enumerate(scan_common::ATOMS, 2, |s| SUBJECT.check_regex(s));
        }

        #[test]
        fn every_longer_string_of_the_deep_alphabet() {
            scan_common::enumerate($deep, $deep_len, |s| SUBJECT.check_regex(s));
        }
    };
}

/// The tests of a scanner's ASCII fast path (`$scanner`: a value with `scan` and
/// `scan_scalar`): against the scalar scanner around block edges and on many long ASCII-heavy
/// texts, and against both oracles on fewer. Used after [`scanner_tests`] (its `SUBJECT`).
#[macro_export]
macro_rules! fast_path_tests {
    ($scanner:expr) => {
        mod fast_path {
            use super::scan_common;
            use proptest::prelude::*;
            #[allow(unused_imports)]
            use yieldtok_engine::pre_tokenizers::scan::{Cl100k, DeepSeekV3, O200k, Scanner};

            #[test]
            fn block_edges_equal_the_scalar_scanner() {
                let (mut fast, mut scalar) = (Vec::new(), Vec::new());
                scan_common::block_edges(|text| {
                    fast.clear();
                    scalar.clear();
                    $scanner.scan(text, &mut fast);
                    $scanner.scan_scalar(text, &mut scalar);
                    assert_eq!(fast, scalar, "{text:?}");
                });
            }

            proptest! {
                #![proptest_config(ProptestConfig { cases: 2000, ..scan_common::proptest_config() })]
                #[test]
                fn long_ascii_texts(text in scan_common::ascii_text(160)) {
                    super::SUBJECT.check("ascii proptest", &text, true);
                }
            }

            proptest! {
                #![proptest_config(ProptestConfig { cases: 20_000, ..scan_common::proptest_config() })]
                #[test]
                fn long_ascii_texts_equal_the_scalar_scanner(text in scan_common::ascii_text(200)) {
                    let (mut fast, mut scalar) = (Vec::new(), Vec::new());
                    $scanner.scan(&text, &mut fast);
                    $scanner.scan_scalar(&text, &mut scalar);
                    prop_assert_eq!(fast, scalar);
                }
            }
        }
    };
}
