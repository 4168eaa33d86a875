//! Truncation that stops early (`Tokenizer::with_overflowing(false)`, and every ids-only
//! encode): right truncation of a long text encodes only the pieces the kept tokens come from,
//! and gives `tokenizers`' result (the whole text encoded, then truncated) in every field but
//! `overflowing`, on every fixture, with and without special tokens, for short and long
//! `max_length`s, single encodes (padded to a fixed length on either side too) and batches
//! (padding over the batch included).

mod common;

use common::*;
use yieldtok::{
    EncodeOptions, Encoding, Output, PaddingDirection, PaddingParams, PaddingStrategy, TruncationDirection,
    TruncationParams,
};
use yieldtok_testkit::fixtures::{ENGINE_EXTRA, NAMES};

fn without_overflowing(mut e: Encoding) -> Encoding {
    e.overflowing.clear();
    e
}

fn assert_fields(what: &str, got: &Encoding, want: &Encoding) {
    assert_same_fields(what, got, want);
    assert!(got.overflowing.is_empty(), "{what}: overflowing parts reported");
}

#[test]
fn early_stop_matches_whole_encode_then_truncate() {
    let mut checked = 0;
    for name in NAMES.iter().chain(ENGINE_EXTRA.iter()) {
        if yieldtok_testkit::fixtures::tokenizer_json(name).is_err() {
            continue;
        }
        let base = fixture(name).with_truncation(None).unwrap().with_padding(None);
        // ~20 KB of varied text (multilingual, code, emoji, odd whitespace, added tokens).
        let long = mixed(&base, 11, 20_000);
        let texts = [long.clone(), mixed(&base, 12, 3_000), String::new(), "Hello world".into()];
        for max_length in [0, 7, 512, 5000] {
            let params =
                TruncationParams { max_length, stride: 2.min(max_length.saturating_sub(3)), ..Default::default() };
            let Ok(tok) = base.with_truncation(Some(params)) else { continue };
            let early = tok.with_overflowing(false);
            assert!(!early.keeps_overflowing() && tok.keeps_overflowing());
            for add in [true, false] {
                // `tokenizers` (debug build) panics on a max_length below its special tokens.
                let Ok(want) =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| reference(&tok, &texts[0], add)))
                else {
                    continue;
                };
                for (i, text) in texts.iter().enumerate() {
                    let what = format!("{name} max_length={max_length} add={add} text {i}");
                    let want = if i == 0 { want.clone() } else { reference(&tok, text, add) };
                    let want = without_overflowing(want);
                    assert_fields(&what, &early.encode(text, add).unwrap(), &want);
                    assert_eq!(early.encode_ids(text, add).unwrap(), want.ids, "{what}: ids only");
                    assert_eq!(tok.encode_ids(text, add).unwrap(), want.ids, "{what}: ids only, overflowing kept");
                    // With overflowing kept, the full encode still reports them (no early stop).
                    let full = tok.encode(text, add).unwrap();
                    assert_eq!(full.ids, want.ids, "{what}: full encode");
                    checked += 1;
                }
                // The long text stops early: a job run to its end leaves most of it unencoded.
                for output in [Output::Full, Output::Ids] {
                    let opts = EncodeOptions { add_special_tokens: add, output, ..Default::default() };
                    let job = early.job(long.as_str(), opts);
                    job.step(yieldtok::Budget::UNLIMITED);
                    assert!(job.is_done(), "{name}: {output:?} job not done");
                    if early.cut_rules().is_chunked() && max_length <= 512 {
                        assert!(job.stopped_early(), "{name} max_length={max_length}: {output:?} did not stop early");
                        let done = job.progress().done_bytes;
                        assert!(
                            done < long.len() / 2,
                            "{name} max_length={max_length}: encoded {done} of {} bytes",
                            long.len()
                        );
                    }
                    assert_eq!(job.finish().unwrap().ids(), want.ids.as_slice(), "{name}: {output:?} job result");
                }
            }
        }
        // A text long enough for the parallel path (pieces claimed by every worker).
        let huge = mixed(&base, 14, 3 * yieldtok::PARALLEL_MIN_BYTES / 2);
        let tok = base.with_truncation(Some(TruncationParams { max_length: 512, ..Default::default() })).unwrap();
        let want = without_overflowing(reference(&tok, &huge, true));
        assert_fields(&format!("{name} parallel"), &tok.with_overflowing(false).encode(&huge, true).unwrap(), &want);
        assert_eq!(tok.encode_ids(&huge, true).unwrap(), want.ids, "{name} parallel ids");
        // One text truncated and padded to a fixed length, on the left and on the right (a text
        // shorter than the truncation is padded, a longer one cut, then padded to the multiple).
        for (direction, length, multiple) in
            [(PaddingDirection::Left, 700, Some(7)), (PaddingDirection::Right, 90, None)]
        {
            let padding = PaddingParams {
                strategy: PaddingStrategy::Fixed(length),
                direction,
                pad_to_multiple_of: multiple,
                pad_id: 3,
                pad_type_id: 1,
                ..Default::default()
            };
            let tok = base
                .with_truncation(Some(TruncationParams { max_length: 600, ..Default::default() }))
                .unwrap()
                .with_padding(Some(padding));
            for (i, text) in [long.as_str(), "short text"].into_iter().enumerate() {
                let want = without_overflowing(reference(&tok, text, true));
                let what = format!("{name} padded {direction:?} text {i}");
                assert_fields(&what, &tok.with_overflowing(false).encode(text, true).unwrap(), &want);
                assert_same_fields(&what, &tok.encode(text, true).unwrap(), &reference(&tok, text, true));
            }
        }
        // Pieces of a few bytes around odd whitespace and punctuation: the kept tokens come
        // from many pieces, and the cut still keeps the first tokens of the whole text.
        let spaced = "a  . \t, b\n\n  ;  c  ".repeat(40);
        let tok = base
            .with_truncation(Some(TruncationParams { max_length: 30, ..Default::default() }))
            .unwrap()
            .with_overflowing(false);
        let want = without_overflowing(reference(&tok, &spaced, true));
        for piece in [1, 3] {
            let job = tok.job(spaced.as_str(), EncodeOptions { piece_bytes: Some(piece), ..Default::default() });
            job.step(yieldtok::Budget::UNLIMITED);
            let got = job.finish().unwrap().into_encoding().unwrap();
            assert_fields(&format!("{name} spaced, pieces of {piece}"), &got, &want);
        }
        // A batch with padding over it: each item stops early, the batch is padded as usual.
        let tok = base
            .with_truncation(Some(TruncationParams { max_length: 64, ..Default::default() }))
            .unwrap()
            .with_padding(Some(PaddingParams::default()))
            .with_overflowing(false);
        let batch = [long.as_str(), "short text", texts[1].as_str()];
        let got = tok.encode_batch(&batch, true).unwrap();
        let mut hf = tok.hf().clone();
        hf.with_truncation(tok.truncation().cloned()).unwrap();
        hf.with_padding(tok.padding().cloned());
        let want = hf.encode_batch(batch.to_vec(), true).unwrap();
        for (k, (g, w)) in got.into_iter().zip(want).enumerate() {
            assert_fields(
                &format!("{name} batch item {k}"),
                &g,
                &without_overflowing(Encoding::from_reference(w, &hf)),
            );
        }
    }
    assert!(checked > 0, "no fixtures (run scripts/fetch-fixtures.sh)");
}

/// Left truncation and pairs never stop early; their results keep `tokenizers`' overflowing
/// parts unless dropped, and stay exact either way.
#[test]
fn left_truncation_and_pairs_are_whole() {
    let Ok(_) = yieldtok_testkit::fixtures::tokenizer_json("qwen3") else { return };
    let base = fixture("qwen3");
    let long = mixed(&base, 13, 100_000);
    let left = TruncationParams { max_length: 50, direction: TruncationDirection::Left, ..Default::default() };
    let tok = base.with_truncation(Some(left)).unwrap().with_overflowing(false);
    let job = tok.job(long.as_str(), EncodeOptions { output: Output::Ids, ..Default::default() });
    job.step(yieldtok::Budget::UNLIMITED);
    assert!(!job.stopped_early());
    assert_eq!(job.progress().done_bytes, long.len());
    assert_eq!(job.finish().unwrap().ids(), reference(&tok, &long, true).ids.as_slice());
    let right = base.with_truncation(Some(TruncationParams { max_length: 50, ..Default::default() })).unwrap();
    let pair = right.with_overflowing(false).encode_pair(&long, "second text", true).unwrap();
    let want = right.encode_pair(&long, "second text", true).unwrap();
    assert!(!want.overflowing.is_empty());
    assert_fields("qwen3 pair", &pair, &without_overflowing(want));
}
