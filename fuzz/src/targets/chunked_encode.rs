//! Chunked == whole: a text encoded in small pieces (sliced, as a browser or a time-boxed job
//! does) gives exactly `tokenizers`' whole-text `Encoding`, and the ids-only path its ids, on
//! one fixture of every family (byte-level BPE, SentencePiece BPE with and without byte
//! fallback, WordPiece, Unigram).
//!
//! Input: byte 0 picks the fixture, byte 1 the piece size (1–64 bytes), bit 0 of byte 2
//! `add_special_tokens`; the rest is the text (lossy UTF-8).
use std::sync::OnceLock;

use yieldtok::{Budget, EncodeOptions, Encoding, Output, Tokenizer};

const FIXTURES: [&str; 6] = ["qwen3", "gpt4o", "llama2", "gemma3", "minilm", "spm_unigram"];

/// The fixture's yieldtok tokenizer and its `tokenizers` reference.
fn tokenizer(i: usize) -> &'static (Tokenizer, tokenizers::Tokenizer) {
    static TOKS: [OnceLock<(Tokenizer, tokenizers::Tokenizer)>; 6] = [const { OnceLock::new() }; 6];
    TOKS[i].get_or_init(|| {
        let name = FIXTURES[i];
        let dir = yieldtok_testkit::fixtures::dir(name)
            .unwrap_or_else(|e| panic!("fixture {name} (run scripts/fetch-fixtures.sh): {e}"));
        let tok = Tokenizer::from_dir(dir).unwrap_or_else(|e| panic!("fixture {name}: {e}"));
        let hf = reference(&tok);
        (tok, hf)
    })
}

/// `tokenizers` with the fixture's truncation and padding (`tok.hf()` has neither: yieldtok
/// applies them itself). The crate stops tokenizing at `max_length`, which loses only the
/// `overflowing` parts, not compared here.
fn reference(tok: &Tokenizer) -> tokenizers::Tokenizer {
    let mut hf = tok.hf().clone();
    hf.with_truncation(tok.truncation().cloned()).expect("truncation");
    hf.with_padding(tok.padding().cloned());
    hf
}

/// Loads the six tokenizers (and their fast engines), which takes seconds: libFuzzer calls it
/// before the first input, so that its per-input timeout measures encodes only.
pub fn init() {
    for i in 0..FIXTURES.len() {
        tokenizer(i).0.wait_for_engine();
    }
}

/// One input: panics (fails the fuzz run) when the chunked encode differs from `tokenizers`.
pub fn check(data: &[u8]) {
    let [which, piece, flags, text @ ..] = data else { return };
    let name = FIXTURES[*which as usize % FIXTURES.len()];
    let (tok, hf) = tokenizer(*which as usize % FIXTURES.len());
    let piece = 1 + *piece as usize % 64;
    let add = flags & 1 == 1;
    let text = String::from_utf8_lossy(text);

    let want = Encoding::from_reference(hf.encode(text.as_ref(), add).expect("tokenizers encodes"), hf);
    let opts =
        EncodeOptions { add_special_tokens: add, piece_bytes: Some(piece), output: Output::Full, ..Default::default() };
    let job = tok.job(text.as_ref(), opts);
    while !job.step(Budget::bytes(piece * 3)) {}
    let got = job.finish().expect("chunked encode").into_encoding().expect("a full encoding");
    assert_eq!(got.ids, want.ids, "{name}: ids, {piece}-byte pieces, add={add}, text {text:?}");
    assert_eq!(got.offsets, want.offsets, "{name}: offsets, {piece}-byte pieces, text {text:?}");
    assert_eq!(got.type_ids, want.type_ids, "{name}: type ids");
    assert_eq!(got.special_tokens_mask, want.special_tokens_mask, "{name}: special tokens mask");
    assert_eq!(got.attention_mask, want.attention_mask, "{name}: attention mask");
    assert_eq!(got.word_ids, want.word_ids, "{name}: word ids, {piece}-byte pieces, text {text:?}");
    assert_eq!(tok.encode_ids(&text, add).expect("ids-only encode"), want.ids, "{name}: ids-only path, text {text:?}");
}
