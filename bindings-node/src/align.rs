//! The `Encoding` alignment methods (`wordToTokens`, `charToToken`, ...): the core's own
//! (`yieldtok::Encoding::word_to_tokens` and the rest, `tokenizers`' semantics), run on the
//! views of one encoding of a result buffer ([`crate::buffers`]). Positions are UTF-16 code
//! units, as the binding's offsets are. Each call scans the encoding's tokens, as `tokenizers`'
//! methods do.

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::buffers::NONE;

/// One alignment query. `op`: `wordToTokens`, `wordToChars`, `charToToken`, `charToWord`
/// (`a`: word or position, `b`: sequence id), `tokenToChars`, `tokenToWord`, `tokenToSequence`
/// (`a`: token), `nSequences`. `wordIds`, `offsets` (flat UTF-16 pairs) and `ranges` (flat
/// `(id, start, end)` triples) are the encoding's views. Returns the answer's numbers (a span:
/// two), or `null` where `tokenizers` returns none.
#[napi(js_name = "alignment")]
pub fn alignment(
    op: String,
    word_ids: Uint32Array,
    offsets: Uint32Array,
    ranges: Uint32Array,
    a: u32,
    b: u32,
) -> Result<Option<Vec<u32>>> {
    let pairs: Vec<(usize, usize)> = offsets.chunks_exact(2).map(|p| (p[0] as usize, p[1] as usize)).collect();
    let enc = yieldtok::Encoding {
        ids: vec![0; word_ids.len()],
        word_ids: word_ids.iter().map(|&w| (w != NONE).then_some(w)).collect(),
        sequence_ranges: ranges.chunks_exact(3).map(|r| (r[0] as usize, r[1] as usize..r[2] as usize)).collect(),
        ..Default::default()
    };
    let (a_, b_) = (a as usize, b as usize);
    let span = |s: Option<(usize, usize)>| s.map(|(s, e)| vec![s as u32, e as u32]);
    let one = |x: Option<usize>| x.map(|x| vec![x as u32]);
    Ok(match op.as_str() {
        "wordToTokens" => span(enc.word_to_tokens(a, b_)),
        "wordToChars" => span(enc.word_to_offsets(a, b_, &pairs)),
        "charToToken" => one(enc.offset_to_token(a_, b_, &pairs)),
        "charToWord" => enc.offset_to_word(a_, b_, &pairs).map(|w| vec![w]),
        "tokenToChars" => span(enc.token_to_offsets(a_, &pairs).map(|(_, s)| s)),
        "tokenToWord" => enc.token_to_word(a_).map(|(_, w)| vec![w]),
        "tokenToSequence" => one(enc.token_to_sequence(a_)),
        "nSequences" => one(Some(enc.n_sequences())),
        other => return Err(Error::new(Status::InvalidArg, format!("unknown alignment query {other:?}"))),
    })
}
