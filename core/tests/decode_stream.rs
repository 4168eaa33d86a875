//! `DecodeStream` (byte-level fast path and `tokenizers`' own step) against `tokenizers`'
//! `step_decode_stream` on every fixture: every id of the exactness corpus, random ids (special
//! tokens, byte-fallback tokens, split multi-byte characters, unknown ids), seeded streams, and
//! `step_decode_streams` equal to separate streams.

mod common;

use common::*;
use yieldtok::{DecodeStream, Tokenizer};

const FIXTURES: &[&str] = &[
    "qwen3",
    "llama3_1",
    "gpt4o",
    "gptoss",
    "deepseek_v3",
    "gemma3",
    "llama2",
    "minilm",
    "mon_unigram",
    "spm_unigram",
];

/// The oracle: `tokenizers`' own stream state machine.
struct Oracle {
    skip: bool,
    ids: Vec<u32>,
    prefix: String,
    prefix_index: usize,
}

impl Oracle {
    fn new(ids: Vec<u32>, skip: bool) -> Self {
        Oracle { skip, ids, prefix: String::new(), prefix_index: 0 }
    }
    fn step(&mut self, tok: &Tokenizer, ids: &[u32]) -> Result<Option<String>, String> {
        tokenizers::tokenizer::step_decode_stream(
            tok.hf(),
            ids.to_vec(),
            self.skip,
            &mut self.ids,
            &mut self.prefix,
            &mut self.prefix_index,
        )
        .map_err(|e| e.to_string())
    }
}

fn compare(tok: &Tokenizer, name: &str, chunks: &[Vec<u32>], seed: Vec<u32>, skip: bool) {
    let mut ours = DecodeStream::new(seed.clone(), skip);
    let mut oracle = Oracle::new(seed, skip);
    for (i, c) in chunks.iter().enumerate() {
        let want = oracle.step(tok, c);
        let got = ours.step(tok, c).map_err(|e| e.to_string());
        assert_eq!(got, want, "{name}: step {i} ({c:?}), skip={skip}");
        if want.is_err() {
            return;
        }
        assert_eq!(
            (ours.ids(), ours.prefix(), ours.prefix_index()),
            (&oracle.ids[..], &oracle.prefix[..], oracle.prefix_index)
        );
    }
}

fn specials_and_bytes(tok: &Tokenizer) -> Vec<u32> {
    let mut pool: Vec<u32> = tok.hf().get_added_tokens_decoder().into_keys().take(8).collect();
    for b in [0xE4u8, 0xB8, 0xAD, 0xF0, 0x9F, 0x98, 0x80, 0xFF, 0x41, 0xC3, 0xA9] {
        pool.extend(tok.token_to_id(&format!("<0x{b:02X}>")));
    }
    let n = tok.vocab_size(true) as u32;
    pool.extend([n, n + 9]);
    pool.extend(tok.hf().encode("中文 😀👍🏽 é ü 한국어 مرحبا 🇯🇵", false).unwrap().get_ids());
    pool
}

#[test]
fn every_id_of_the_corpus() {
    for &name in FIXTURES {
        let tok = fixture(name);
        for (what, text) in corpus(&tok) {
            let ids = tok.encode_ids(&text, true).unwrap();
            let chunks: Vec<Vec<u32>> = ids.iter().map(|&i| vec![i]).collect();
            for skip in [false, true] {
                compare(&tok, &format!("{name} {what}"), &chunks, vec![], skip);
            }
            let half = ids.len() / 2;
            compare(&tok, &format!("{name} {what} seeded"), &chunks[half..], ids[..half].to_vec(), false);
        }
    }
}

#[test]
fn random_ids_and_chunks() {
    for &name in FIXTURES {
        let tok = fixture(name);
        let pool = specials_and_bytes(&tok);
        let n = tok.vocab_size(true);
        let mut rng = Rng(0x5eed ^ name.len() as u64);
        for trial in 0..300 {
            let chunks: Vec<Vec<u32>> = (0..1 + rng.below(40))
                .map(|_| {
                    (0..rng.below(4))
                        .map(|_| if rng.below(10) < 6 { rng.pick(&pool) } else { rng.below(n) as u32 })
                        .collect()
                })
                .collect();
            let seed: Vec<u32> =
                if trial % 3 == 0 { (0..rng.below(4)).map(|_| rng.pick(&pool)).collect() } else { vec![] };
            compare(&tok, &format!("{name} trial {trial}"), &chunks, seed, trial % 2 == 0);
        }
    }
}

#[test]
fn many_streams_equal_separate_ones() {
    for name in ["qwen3", "llama2"] {
        let tok = fixture(name);
        let text = mixed(&tok, 9, 64 * 1024);
        let ids = tok.encode_ids(&text, false).unwrap();
        let n = 1000; // over the parallel threshold
        let mut many: Vec<DecodeStream> = (0..n).map(|i| DecodeStream::new(vec![], i % 3 == 0)).collect();
        let mut one: Vec<DecodeStream> = many.clone();
        for step in 0..30 {
            let batch: Vec<Vec<u32>> = (0..n)
                .map(|i| (0..1 + (i + step) % 2).map(|k| ids[(i * 37 + step + k) % ids.len()]).collect())
                .collect();
            let mut refs: Vec<&mut DecodeStream> = many.iter_mut().collect();
            let got: Vec<_> =
                tok.step_decode_streams(&mut refs, &batch).into_iter().map(|r| r.map_err(|e| e.to_string())).collect();
            let want: Vec<_> =
                one.iter_mut().zip(&batch).map(|(s, b)| s.step(&tok, b).map_err(|e| e.to_string())).collect();
            assert_eq!(got, want, "{name} step {step}");
        }
        assert_eq!(many, one);
        let mut refs: Vec<&mut DecodeStream> = many.iter_mut().collect();
        assert!(tok.step_decode_streams(&mut refs, &[[1u32]]).iter().all(|r| r.is_err()));
    }
}
