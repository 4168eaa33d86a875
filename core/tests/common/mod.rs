//! Shared helpers of the core's integration tests: fixture loading, the varied corpus, a tiny
//! `block_on`, and the whole-vs-chunked comparison.
#![allow(dead_code, unused_imports)]

use tokenizers::{EncodeInput, InputSequence, Model, OffsetType, PreTokenizer};
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

/// Whole-text reference encode through `tokenizers` itself, with the tokenizer's truncation
/// and padding (`tok.hf()` has neither: yieldtok keeps them apart).
pub fn reference(tok: &Tokenizer, text: &str, add_special: bool) -> Encoding {
    if tok.truncation().is_none() && tok.padding().is_none() {
        return Encoding::from_reference(tok.hf().encode(text, add_special).expect("reference encode"), tok.hf());
    }
    let mut hf = tok.hf().clone();
    hf.with_truncation(tok.truncation().cloned()).expect("truncation");
    hf.with_padding(tok.padding().cloned());
    let oracle = Oracle { hf };
    Encoding::from_reference(oracle.encode(text, add_special).expect("reference encode"), &oracle.hf)
}

/// `tokenizers`' encode as Python `tokenizers` 0.23.3 runs it (see `tests/pairs.rs`: the
/// crate 0.23.2 stops tokenizing at `max_length` when truncating, which loses `overflowing`).
/// The oracle's tokenizer: the fixture's `tokenizer.json` with the settings under test.
pub struct Oracle {
    pub hf: tokenizers::Tokenizer,
}

impl Oracle {
    /// `encode_single_sequence` as `tokenizers` 0.22.2 / Python 0.23.3 run it (no early exit).
    pub fn sequence(&self, text: &str, type_id: u32) -> tokenizers::Result<tokenizers::Encoding> {
        let hf = &self.hf;
        let mut pts = hf.get_added_vocabulary().extract_and_normalize(hf.get_normalizer(), text);
        if let Some(pre) = hf.get_pre_tokenizer() {
            pre.pre_tokenize(&mut pts)?;
        }
        hf.get_model().tokenize_in_pretokenized(&mut pts, None)?;
        pts.into_encoding(None, type_id, OffsetType::Byte)
    }

    /// `TokenizerImpl::encode`, with the sequences tokenized whole.
    pub fn encode<'s>(&self, input: impl Into<EncodeInput<'s>>, add: bool) -> tokenizers::Result<tokenizers::Encoding> {
        let raw = |s: InputSequence| -> String {
            match s {
                InputSequence::Raw(c) => c.into_owned(),
                _ => unreachable!("raw text only"),
            }
        };
        let (a, b) = match input.into() {
            EncodeInput::Single(a) => (raw(a), None),
            EncodeInput::Dual(a, b) => (raw(a), Some(raw(b))),
        };
        let first = self.sequence(&a, 0)?;
        let second = b.map(|b| self.sequence(&b, 1)).transpose()?;
        self.hf.post_process(first, second, add)
    }

    /// `TokenizerImpl::encode_batch`: each input, then padding over the batch.
    pub fn encode_batch<'s>(
        &self,
        inputs: Vec<EncodeInput<'s>>,
        add: bool,
    ) -> tokenizers::Result<Vec<tokenizers::Encoding>> {
        let mut out = inputs.into_iter().map(|i| self.encode(i, add)).collect::<tokenizers::Result<Vec<_>>>()?;
        if let Some(p) = self.hf.get_padding() {
            tokenizers::pad_encodings(&mut out, p)?;
        }
        Ok(out)
    }
}

/// Assert equality with a useful message (first differing token and its context).
pub fn assert_same(what: &str, text: &str, got: &Encoding, want: &Encoding) {
    if got == want {
        return;
    }
    if got.ids == want.ids && got.offsets == want.offsets && got.word_ids != want.word_ids {
        let at = got.word_ids.iter().zip(&want.word_ids).position(|(a, b)| a != b).unwrap_or(got.len().min(want.len()));
        let lo = at.saturating_sub(3);
        panic!(
            "{what}: word ids differ at token {at}: got {:?} want {:?}",
            &got.word_ids[lo..(at + 3).min(got.len())],
            &want.word_ids[lo..(at + 3).min(want.len())]
        );
    }
    if got.ids == want.ids && got.offsets == want.offsets && got.token_texts != want.token_texts {
        panic!("{what}: token strings differ: got {:?} want {:?}", got.token_texts, want.token_texts);
    }
    let at = got
        .ids
        .iter()
        .zip(&want.ids)
        .zip(got.offsets.iter().zip(&want.offsets))
        .position(|(a, b)| a.0 != a.1 || b.0 != b.1);
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

/// Every field of two encodings but `overflowing` is equal: length, ids, offsets, word ids,
/// type ids, special-tokens and attention masks, sequence ranges, token strings.
pub fn assert_same_fields(what: &str, got: &Encoding, want: &Encoding) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    assert!(got.ids == want.ids, "{what}: ids");
    assert!(got.offsets == want.offsets, "{what}: offsets");
    assert!(got.word_ids == want.word_ids, "{what}: word ids");
    assert!(got.type_ids == want.type_ids, "{what}: type ids");
    assert!(got.special_tokens_mask == want.special_tokens_mask, "{what}: special tokens mask");
    assert!(got.attention_mask == want.attention_mask, "{what}: attention mask");
    assert_eq!(got.sequence_ranges, want.sequence_ranges, "{what}: sequence ranges");
    assert_eq!(got.token_texts, want.token_texts, "{what}: token strings");
}
