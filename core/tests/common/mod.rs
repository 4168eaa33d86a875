//! Shared helpers of the core's integration tests: fixture loading, the varied corpus, a tiny
//! `block_on`, and the whole-vs-chunked comparison.
#![allow(dead_code, unused_imports)]

#[allow(unused_imports)]
pub use yieldtok::block_on;
use yieldtok::{Encoding, Tokenizer};

pub fn fixture(name: &str) -> Tokenizer {
    let dir = yieldtok_testkit::fixtures::dir(name).unwrap_or_else(|e| panic!("fixture {name}: {e}"));
    Tokenizer::from_dir(dir).unwrap_or_else(|e| panic!("fixture {name}: {e}"))
}

pub use yieldtok_testkit::corpus::{json_text, PROSE as MULTILINGUAL, TROUBLE};
pub use yieldtok_testkit::Rng;

/// The contents of a tokenizer's added tokens in id order (the first `n`), to embed in text.
pub fn added_tokens(tok: &Tokenizer, n: usize) -> Vec<String> {
    let mut v: Vec<_> = tok.hf().get_added_tokens_decoder().into_iter().collect();
    v.sort_by_key(|(id, _)| *id);
    v.into_iter().map(|(_, t)| t.content).take(n).collect()
}

/// A mixed document of about `bytes` bytes (see `yieldtok_testkit::corpus::mixed`).
pub fn mixed(tok: &Tokenizer, seed: u64, bytes: usize) -> String {
    yieldtok_testkit::corpus::mixed(&added_tokens(tok, 8), seed, bytes)
}

/// The named corpus for exactness tests.
pub fn corpus(tok: &Tokenizer) -> Vec<(String, String)> {
    yieldtok_testkit::corpus::exactness(&added_tokens(tok, 8))
}

/// Assert that the own engine serves `tok` (full encodings, and ids until fastokens is ready).
pub fn assert_own_engine(tok: &Tokenizer, name: &str) {
    assert_eq!(tok.encoding_engine(), "yieldtok", "{name}: {:?}", tok.encoding_engine_unavailable_reason());
    assert_eq!(tok.encoding_engine_unavailable_reason(), None, "{name}");
}

/// Whole-text reference encode through `tokenizers` itself.
pub fn reference(tok: &Tokenizer, text: &str, add_special: bool) -> Encoding {
    Encoding::from(tok.hf().encode(text, add_special).expect("reference encode"))
}

/// Assert equality with a useful message (first differing token and its context).
pub fn assert_same(what: &str, text: &str, got: &Encoding, want: &Encoding) {
    if got == want {
        return;
    }
    let at = got.ids.iter().zip(&want.ids).zip(got.offsets.iter().zip(&want.offsets)).position(|(a, b)| a.0 != a.1 || b.0 != b.1);
    let at = at.unwrap_or(got.len().min(want.len()));
    let ctx = |e: &Encoding| -> String {
        let lo = at.saturating_sub(3);
        let hi = (at + 3).min(e.len());
        (lo..hi).map(|i| format!("{}@{:?}", e.ids[i], e.offsets[i])).collect::<Vec<_>>().join(" ")
    };
    let byte = want.offsets.get(at).map(|o| o.0).unwrap_or(0).min(text.len());
    let lo = (byte.saturating_sub(30)..=byte).find(|&i| text.is_char_boundary(i)).unwrap_or(0);
    let hi = ((byte + 30).min(text.len())..=text.len()).find(|&i| text.is_char_boundary(i)).unwrap_or(text.len());
    panic!(
        "{what}: differs at token {at} (len {} vs {}); got [{}] want [{}]; text around: {:?}",
        got.len(),
        want.len(),
        ctx(got),
        ctx(want),
        &text[lo..hi]
    );
}
