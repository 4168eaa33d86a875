//! Property tests of the split logic: random strings over a weighted alphabet of the inputs
//! that break naive chunking, cut at every candidate and at random piece sizes, must encode
//! exactly like the whole string — for a tokenizer of each family (regex+ByteLevel with and
//! without the `/` exclusion, SentencePiece vocab rule, llama2 continuation mode). Also:
//! the plan always tiles the text and cuts only on char boundaries.

mod common;

use std::sync::OnceLock;

use common::*;
use proptest::prelude::*;
use yieldtok::{Budget, EncodeOptions, Tokenizer};

fn toks() -> &'static Vec<Tokenizer> {
    static T: OnceLock<Vec<Tokenizer>> = OnceLock::new();
    T.get_or_init(|| ["qwen3", "gpt4o", "deepseek_v3", "gemma3", "llama2"].iter().map(|n| fixture(n)).collect())
}

/// Weighted pieces: frequent whitespace, newlines and punctuation around ordinary words.
fn atom() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => Just(" ".to_string()),
        4 => Just("\n".to_string()),
        2 => Just("\t".to_string()),
        2 => Just("\r\n".to_string()),
        5 => "[a-zA-Z]{1,6}",
        2 => "[0-9]{1,5}",
        2 => prop::sample::select(vec!["/", "//", ">", "</", "<", ".", ",", "'s", "'", "\"", "{", "}", "(", ")", "-", "_", "=", "#", "*"]).prop_map(str::to_string),
        2 => prop::sample::select(vec!["▁", "\u{a0}", "\u{3000}", "\u{2028}", "\u{85}", "\u{b}", "\u{c}", "\u{200b}", "\u{feff}"]).prop_map(str::to_string),
        2 => prop::sample::select(vec!["e\u{301}", "\u{301}", "\u{308}\u{304}", "a\u{323}\u{302}", "ñ", "é"]).prop_map(str::to_string),
        2 => prop::sample::select(vec!["👩‍👩‍👧", "👍🏽", "🇯🇵", "❤️", "️", "‍", "1️⃣"]).prop_map(str::to_string),
        2 => prop::sample::select(vec!["日本語", "中文", "한국어", "русский", "العربية", "हिन्दी", "ไทย", "Ⅻ", "０１２"]).prop_map(str::to_string),
        1 => prop::sample::select(vec!["<|im_start|>", "<|im_end|>", "<|endoftext|>", "<s>", "</s>", "<bos>", "<start_of_turn>", "<|begin_of_text|>", "<｜end▁of▁sentence｜>", "<|return|>"]).prop_map(str::to_string),
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(atom(), 0..120).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    #[test]
    fn chunked_equals_whole(s in text(), piece in 1usize..64, which in 0usize..5, add in any::<bool>()) {
        let tok = &toks()[which];
        let want = reference(tok, &s, add);
        for p in [1, piece] {
            let job = tok.job(s.as_str(), EncodeOptions { add_special_tokens: add, piece_bytes: Some(p), ..Default::default() });
            while !job.step(Budget::bytes(p)) {}
            let got = job.finish().unwrap().into_encoding().unwrap();
            prop_assert_eq!(&got, &want, "tokenizer {:?}, piece {}, text {:?}", tok.origin(), p, s);
        }
    }

    #[test]
    fn plan_tiles_the_text(s in text(), piece in 1usize..200, which in 0usize..5) {
        let tok = &toks()[which];
        let plan = tok.plan(&s, piece);
        let mut at = 0;
        for (r, _) in &plan {
            prop_assert_eq!(r.start, at);
            prop_assert!(r.end > r.start);
            prop_assert!(s.is_char_boundary(r.end));
            at = r.end;
        }
        prop_assert_eq!(at, s.len());
    }
}
