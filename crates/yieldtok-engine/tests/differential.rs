//! Whole encodes against the oracle: for every real fixture the engine loads, `Engine::encode`
//! must equal `tokenizers` 0.23.2's `Tokenizer::encode(text, add_special_tokens = false)` —
//! ids, byte offsets and word ids — on the exactness corpus (prose in many scripts, code,
//! JSON, troublemakers, whitespace runs, added tokens in text, a mixed document, generated
//! multilingual text), and on random strings over the troublemaker alphabet (proptest).
//! `encode_ids` and `count` must agree with `encode`. The fixtures the engine is expected to
//! serve are listed in [`SERVED`]: one it refuses fails the test, one it refuses that is not
//! listed is fine only with `LoadError::Unsupported`.

use std::sync::OnceLock;

use proptest::prelude::*;
use yieldtok_engine::load::LoadOptions;
use yieldtok_engine::{Engine, LoadError, PieceOptions, Tokens};
use yieldtok_testkit::{corpus, fixtures};

/// Fixtures the engine must load (and match exactly).
const SERVED: &[&str] = &["qwen3", "llama3_1", "gemma3", "deepseek_v3", "gpt4o", "gptoss", "llama2"];

struct Fixture {
    name: &'static str,
    engine: Option<Engine>,
    /// The same tokenizer with the general components instead of the fast paths (for the
    /// fixtures with a normalizer, whose fast paths stand for it).
    general: Option<Engine>,
    oracle: tokenizers::Tokenizer,
    /// Contents of the added tokens, by id.
    added: Vec<String>,
    /// The file's normalizer without its `Prepend` steps (see [`continuation_oracle`]).
    continuation: Option<tokenizers::NormalizerWrapper>,
}

fn load(name: &'static str) -> Fixture {
    let path = fixtures::tokenizer_json(name).expect("fixture");
    let json = std::fs::read_to_string(&path).expect("read fixture");
    let oracle = tokenizers::Tokenizer::from_file(&path).expect("oracle loads");
    let mut added: Vec<(u32, String)> =
        oracle.get_added_tokens_decoder().into_iter().map(|(id, t)| (id, t.content)).collect();
    added.sort();
    let engine = match Engine::from_json(&json) {
        Ok(e) => Some(e),
        Err(LoadError::Unsupported(why)) if !SERVED.contains(&name) => {
            eprintln!("{name}: refused ({why})");
            None
        }
        Err(e) => panic!("{name}: the engine must load it: {e}"),
    };
    let file: serde_json::Value = serde_json::from_str(&json).unwrap();
    let general = (engine.is_some() && !file["normalizer"].is_null())
        .then(|| Engine::from_json_with(&json, LoadOptions { fast_paths: false }).expect("general engine"));
    let continuation =
        strip_prepend(&file["normalizer"]).filter(|v| !v.is_null()).map(|v| serde_json::from_value(v).unwrap());
    Fixture { name, engine, general, oracle, added: added.into_iter().map(|(_, c)| c).collect(), continuation }
}

fn all() -> &'static [Fixture] {
    static ALL: OnceLock<Vec<Fixture>> = OnceLock::new();
    ALL.get_or_init(|| {
        std::thread::scope(|s| {
            let hs: Vec<_> = fixtures::NAMES.iter().map(|&n| s.spawn(move || load(n))).collect();
            hs.into_iter().map(|h| h.join().expect("load thread")).collect()
        })
    })
}

/// Compare one text; `Err` describes the first difference.
fn compare(f: &Fixture, engine: &Engine, text: &str) -> Result<(), String> {
    let want = f.oracle.encode(text, false).map_err(|e| format!("oracle failed: {e}"))?;
    let mut got = Tokens::default();
    engine.encode(text, &PieceOptions::default(), &mut got).map_err(|e| format!("engine failed: {e}"))?;
    let want_words: Vec<u32> = want.get_word_ids().iter().map(|w| w.expect("word id")).collect();
    let want_offsets: Vec<(u32, u32)> = want.get_offsets().iter().map(|&(a, b)| (a as u32, b as u32)).collect();
    let n = want.get_ids().len().max(got.ids.len());
    for i in 0..n {
        let w = (want.get_ids().get(i), want_offsets.get(i), want_words.get(i));
        let g = (got.ids.get(i), got.offsets.get(i), got.words.get(i));
        if w != g {
            let at = want_offsets.get(i).or(got.offsets.get(i)).map_or(0, |o| o.0 as usize);
            let mut lo = at.saturating_sub(40);
            while !text.is_char_boundary(lo) {
                lo -= 1;
            }
            let mut hi = (at + 40).min(text.len());
            while !text.is_char_boundary(hi) {
                hi += 1;
            }
            return Err(format!(
                "{}: token {i} of {n}: want (id, offsets, word) {w:?}, got {g:?}; text around byte {at}: {:?}",
                f.name,
                &text[lo..hi]
            ));
        }
    }
    let mut ids = Vec::new();
    engine.encode_ids(text, &PieceOptions::default(), &mut ids).map_err(|e| e.to_string())?;
    if ids != got.ids {
        return Err(format!("{}: encode_ids differs from encode", f.name));
    }
    let count = engine.count(text, &PieceOptions::default()).map_err(|e| e.to_string())?;
    if count != ids.len() {
        return Err(format!("{}: count {count} != {} ids", f.name, ids.len()));
    }
    Ok(())
}

fn texts(f: &Fixture) -> Vec<(String, String)> {
    let mut v = corpus::exactness(&f.added);
    v.push(("generated 64k".into(), corpus::generated(64 * 1024, 11)));
    v.push(("prose".into(), corpus::PROSE.join("\n")));
    v.push(("json".into(), corpus::json_text()));
    v.push(("long words".into(), long_words()));
    v.push((
        "trouble pairs".into(),
        corpus::TROUBLE.iter().flat_map(|a| corpus::TROUBLE.iter().map(move |b| format!("{a}{b}"))).collect(),
    ));
    v
}

/// Pre-tokens far above the short-word limit: letter runs, repeats, CJK, digits, punctuation.
fn long_words() -> String {
    let mut rng = corpus::Rng(99);
    let letters: String = (0..3000).map(|_| (b'a' + rng.below(26) as u8) as char).collect();
    let mixed: String = (0..2000).map(|_| ['a', 'B', 'é', 'ß', 'ж', '\u{301}'][rng.below(6)]).collect();
    let punct: String = (0..1500).map(|_| ['!', '#', '%', '(', '=', '~', '“'][rng.below(7)]).collect();
    [
        "a".repeat(5000),
        "ab".repeat(2000),
        letters,
        mixed,
        "東京都".repeat(400),
        "9".repeat(1000),
        punct,
        "👍🏽".repeat(300),
        " ".repeat(1000) + "x",
        "\n".repeat(500) + " \t ",
    ]
    .join(" ")
}

#[test]
fn served_fixtures_load() {
    for f in all() {
        assert!(f.engine.is_some() || !SERVED.contains(&f.name), "{} not served", f.name);
    }
}

#[test]
fn corpus_matches_tokenizers() {
    let mut failures = Vec::new();
    let fixtures: Vec<&Fixture> = all().iter().filter(|f| f.engine.is_some()).collect();
    std::thread::scope(|s| {
        let hs: Vec<_> = fixtures
            .iter()
            .map(|f| {
                s.spawn(move || {
                    let mut fails = Vec::new();
                    for (name, text) in texts(f) {
                        for (kind, engine) in [("", &f.engine), (" (general)", &f.general)] {
                            if let Some(engine) = engine {
                                if let Err(e) = compare(f, engine, &text) {
                                    fails.push(format!("[{name}]{kind} {e}"));
                                }
                            }
                        }
                    }
                    fails
                })
            })
            .collect();
        for h in hs {
            failures.extend(h.join().expect("compare thread"));
        }
    });
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
}

/// Strings from the troublemaker alphabet, prose words and added-token contents.
fn trouble_text() -> impl Strategy<Value = Vec<(usize, usize)>> {
    proptest::collection::vec((0usize..1000, 0usize..1000), 0..40)
}

fn build(f: &Fixture, picks: &[(usize, usize)]) -> String {
    let words: Vec<&str> = corpus::PROSE.iter().flat_map(|p| p.split(' ')).collect();
    let mut s = String::new();
    for &(kind, i) in picks {
        match kind % 10 {
            0..=5 => s.push_str(corpus::TROUBLE[i % corpus::TROUBLE.len()]),
            6 | 7 => s.push_str(words[i % words.len()]),
            8 if !f.added.is_empty() => s.push_str(&f.added[i % f.added.len().min(12)]),
            _ => s.push_str([" ", "  ", "\n", "'", "1", "a", "A", "é", "’s"][i % 9]),
        }
    }
    s
}

proptest! {
    // A fixed seed: the same cases on every run (CI is deterministic), no regression files.
    #![proptest_config(ProptestConfig {
        cases: 200,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0xd1ff_0013),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]
    #[test]
    fn troublemakers_match_tokenizers(picks in trouble_text()) {
        for f in all().iter().filter(|f| f.engine.is_some()) {
            let text = build(f, &picks);
            for engine in [&f.engine, &f.general].into_iter().flatten() {
                if let Err(e) = compare(f, engine, &text) {
                    prop_assert!(false, "{e}\ntext: {text:?}");
                }
            }
        }
    }
}

// ---- continuation pieces ------------------------------------------------------------------

/// A normalizer's JSON without its `Prepend` steps.
fn strip_prepend(v: &serde_json::Value) -> Option<serde_json::Value> {
    match v.get("type").and_then(|t| t.as_str()) {
        Some("Prepend") => None,
        Some("Sequence") => {
            let list: Vec<serde_json::Value> =
                v["normalizers"].as_array().unwrap().iter().filter_map(strip_prepend).collect();
            Some(serde_json::json!({"type": "Sequence", "normalizers": list}))
        }
        _ => Some(v.clone()),
    }
}

/// `tokenizers`' pipeline on `text` with the normalizer of a continuation segment (the file's
/// normalizer without its `Prepend` steps), as yieldtok's reference pipeline runs it.
fn continuation_oracle(f: &Fixture, text: &str) -> (Vec<u32>, Vec<(u32, u32)>, Vec<u32>) {
    use tokenizers::{Model, OffsetType, PreTokenizer};
    let mut pts = f.oracle.get_added_vocabulary().extract_and_normalize(f.continuation.as_ref(), text);
    if let Some(pre) = f.oracle.get_pre_tokenizer() {
        pre.pre_tokenize(&mut pts).unwrap();
    }
    f.oracle.get_model().tokenize_in_pretokenized(&mut pts, None).unwrap();
    let enc = pts.into_encoding(None, 0, OffsetType::Byte).unwrap();
    (
        enc.get_ids().to_vec(),
        enc.get_offsets().iter().map(|&(a, b)| (a as u32, b as u32)).collect(),
        enc.get_word_ids().iter().map(|w| w.unwrap()).collect(),
    )
}

/// A continuation piece: its first segment skips `Prepend` (llama2); the segments after an
/// added token do not. Elsewhere (no `Prepend`) continuation changes nothing.
#[test]
fn continuation_pieces_match_tokenizers() {
    let cont = PieceOptions { continuation: true, ..PieceOptions::default() };
    for (f, engine) in all().iter().flat_map(|f| [&f.engine, &f.general].into_iter().flatten().map(move |e| (f, e))) {
        let special = f.added.first().cloned().unwrap_or_default();
        for head in ["", " ", "hello world", " leading space", "\n\nx  y", &corpus::PROSE.join(" ")] {
            for tail in ["", " after", "x\n y"] {
                let text = if tail.is_empty() { head.to_string() } else { format!("{head}{special}{tail}") };
                // The oracle: the head alone in continuation mode, the rest as usual.
                let (mut ids, mut offsets, mut words) = continuation_oracle(f, head);
                if !tail.is_empty() {
                    let rest = f.oracle.encode(format!("{special}{tail}"), false).unwrap();
                    let shift = head.len() as u32;
                    let w0 = words.last().map_or(0, |w| w + 1);
                    ids.extend_from_slice(rest.get_ids());
                    offsets.extend(rest.get_offsets().iter().map(|&(a, b)| (a as u32 + shift, b as u32 + shift)));
                    words.extend(rest.get_word_ids().iter().map(|w| w.unwrap() + w0));
                }
                let mut got = Tokens::default();
                engine.encode(&text, &cont, &mut got).unwrap();
                assert_eq!((&got.ids, &got.offsets, &got.words), (&ids, &offsets, &words), "{}: {text:?}", f.name);
            }
        }
    }
}

// ---- SentencePiece-shape offsets -------------------------------------------------------------

/// The SentencePiece normalizer's fast path (`Replace(" " → "▁")`, after llama2's `Prepend`)
/// maps offsets back arithmetically from where the spaces were: its edges against the oracle,
/// on llama2 and gemma3 and on each with normalized added tokens of its own (matched on the
/// normalized text, so their offsets go through the map too): multi-byte chars (some only by
/// byte fallback), odd whitespace, the literal `▁` and gemma3's `▁▁` tokens, runs of spaces
/// at the start and end, added tokens next to spaces. Both the fast and the general engine.
#[test]
fn sentencepiece_offsets_match_tokenizers() {
    let parts = [
        " ",
        "  ",
        "   ",
        "a",
        " a",
        "a ",
        "é",
        "ß",
        "▁",
        "▁▁",
        "▁ ▁",
        "\u{a0}",
        "\u{3000}",
        "\t",
        "\r\n",
        "\n",
        "\n\n",
        "東京",
        "𠀀",
        "👍🏽",
        "e\u{301}",
        "\u{200d}",
        "\u{feff}",
        "hello",
        " world",
        "don't",
        "1 234",
        "<start_of_turn>",
        "<s>",
        "</s>",
        "<unk>",
        "ab c",
        " é▁",
        "x  y",
    ];
    let mut rng = corpus::Rng(0x5e913);
    let mut texts: Vec<String> = parts.iter().flat_map(|a| parts.iter().map(move |b| format!("{a}{b}"))).collect();
    texts.extend((0..300).map(|_| (0..1 + rng.below(30)).map(|_| parts[rng.below(parts.len())]).collect()));
    for name in ["llama2", "gemma3"] {
        let json = std::fs::read_to_string(fixtures::tokenizer_json(name).unwrap()).unwrap();
        let mut file: serde_json::Value = serde_json::from_str(&json).unwrap();
        let mut variants = vec![(name.to_string(), json)];
        // Normalized added tokens, past the vocabulary.
        let next_id =
            file["model"]["vocab"].as_object().unwrap().len() + file["added_tokens"].as_array().unwrap().len();
        for (i, content) in ["ab c", " é▁", "x  y"].into_iter().enumerate() {
            file["added_tokens"].as_array_mut().unwrap().push(serde_json::json!({
                "id": next_id + i, "content": content, "single_word": false, "lstrip": false, "rstrip": false,
                "normalized": true, "special": false
            }));
        }
        variants.push((format!("{name} + normalized added tokens"), file.to_string()));
        for (label, json) in variants {
            let oracle: tokenizers::Tokenizer = json.parse().expect("oracle loads");
            let added = oracle.get_added_tokens_decoder().into_values().map(|t| t.content).collect();
            let engine = Engine::from_json(&json).expect("engine loads");
            let general = Engine::from_json_with(&json, LoadOptions { fast_paths: false }).expect("general engine");
            let f = Fixture { name, engine: None, general: None, oracle, added, continuation: None };
            for text in &texts {
                for (kind, e) in [("fast", &engine), ("general", &general)] {
                    if let Err(e) = compare(&f, e, text) {
                        panic!("{label} ({kind}): {e}\ntext: {text:?}");
                    }
                }
            }
        }
    }
}
