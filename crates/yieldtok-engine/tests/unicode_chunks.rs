//! The Unicode forms' chunked fast path (`unicode_chunks`) against `tokenizers`: qwen3's
//! tokenizer with its normalizer set to each of NFC, NFD, NFKC, NFKD, whole encodes (ids,
//! byte offsets, word ids) of texts that put changing chars at chunk edges — combining marks
//! right after and before ASCII, Hangul jamo and syllables, compatibility chars that NFKC maps
//! to ASCII, marks that reorder — and of long segments with many chunks, or one huge chunk.

use unicode_normalization_alignments::UnicodeNormalization;
use yieldtok_engine::load::LoadOptions;
use yieldtok_engine::{Engine, PieceOptions, Tokens};
use yieldtok_testkit::{corpus, fixtures};

const FORMS: [&str; 4] = ["NFC", "NFD", "NFKC", "NFKD"];

const EDGES: &[&str] = &[
    "a", "e", "<", "=", " ", "  ", "\n", "1", "'s", "\u{301}", "\u{308}", "\u{323}", "\u{338}", "\u{327}", "\u{315}",
    "\u{1100}", "\u{1161}", "\u{11A8}", "\u{AC00}", "각", "é", "e\u{301}", "Å", "\u{212B}", "ﬁ", "Ａ", "ｂ", "①", "½",
    "ｶ", "\u{FF9E}", "東京", "ñ", "👍🏽", "\u{0B47}", "\u{0B3E}", "ǆ", "\u{2126}", "\u{F900}", "\u{1E9B}", "\u{0344}",
    "\u{0F73}", "Hello", "wörld",
];

fn texts() -> Vec<String> {
    let mut rng = corpus::Rng(0x13);
    let mut v: Vec<String> = (0..400).map(|k| (0..(k % 30)).map(|_| EDGES[rng.below(EDGES.len())]).collect()).collect();
    // Pairs of edges, each way round.
    v.push(EDGES.iter().flat_map(|a| EDGES.iter().map(move |b| format!("{a}{b} "))).collect());
    v.extend(corpus::TROUBLE.iter().map(|s| s.to_string()));
    v.push(corpus::PROSE.join("\n"));
    // Long segments: ASCII with rare changing chars (thousands of chunks) ...
    v.push((0..20_000).map(|k| if k % 37 == 0 { "cafe\u{301} " } else { "word " }).collect());
    // ... and one long non-ASCII run (one chunk of ~300 KB).
    v.push("\u{1100}\u{1161}\u{11A8}Ａ\u{301}東".repeat(20_000));
    v
}

#[test]
fn unicode_forms_by_chunks_match_tokenizers() {
    let path = fixtures::tokenizer_json("qwen3").expect("fixture");
    let mut file: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let texts = texts();
    let mut changed = 0;
    for form in FORMS {
        file["normalizer"] = serde_json::json!({"type": form});
        let json = file.to_string();
        let oracle: tokenizers::Tokenizer = json.parse().expect("oracle loads");
        let engine = Engine::from_json(&json).expect("engine loads");
        let general = Engine::from_json_with(&json, LoadOptions { fast_paths: false }).unwrap();
        assert!(engine.describe() == general.describe());
        for text in &texts {
            let want = oracle.encode(text.as_str(), false).unwrap();
            let want_offsets: Vec<(u32, u32)> = want.get_offsets().iter().map(|&(a, b)| (a as u32, b as u32)).collect();
            let want_words: Vec<u32> = want.get_word_ids().iter().map(|w| w.unwrap()).collect();
            let chars = text.chars();
            let normal: String = match form {
                "NFC" => chars.nfc().map(|(c, _)| c).collect(),
                "NFD" => chars.nfd().map(|(c, _)| c).collect(),
                "NFKC" => chars.nfkc().map(|(c, _)| c).collect(),
                _ => chars.nfkd().map(|(c, _)| c).collect(),
            };
            changed += usize::from(&normal != text);
            let mut got = Tokens::default();
            engine.encode(text, &PieceOptions::default(), &mut got).unwrap();
            let short: String = text.chars().take(80).collect();
            assert_eq!(got.ids, want.get_ids(), "{form} ids: {short:?}");
            assert_eq!(got.offsets, want_offsets, "{form} offsets: {short:?}");
            assert_eq!(got.words, want_words, "{form} words: {short:?}");
            let mut ids = Vec::new();
            engine.encode_ids(text, &PieceOptions::default(), &mut ids).unwrap();
            assert_eq!(ids, got.ids, "{form} encode_ids: {short:?}");
        }
    }
    // The texts exercise the path: most of them change under each form.
    assert!(changed > 4 * 300, "only {changed} texts change");
}
