//! Pairs, truncation and padding, exactly as `tokenizers` does them.
//!
//! `tokenizers` encodes each sequence of an input (a text, or a pair of texts), then runs
//! `TokenizerImpl::post_process`: truncate (`utils::truncation::truncate_encodings`, with
//! `max_length` reduced by the post-processor's special tokens when they are added), apply the
//! post-processor (the pair template: special tokens, type ids, sequence ranges; overflowing
//! encodings too), pad (`utils::padding::pad_encodings`). yieldtok encodes each sequence with
//! its own chunked path (no special tokens), turns it into the `tokenizers::Encoding` the
//! reference pipeline would have made (type id 1 for a pair's second text, as
//! `encode_single_sequence` does), and runs those same three `tokenizers` functions on it
//! ([`post_process`]): the result is the reference's by construction. The tokenizer's own
//! `tokenizers::Tokenizer` is kept with neither truncation nor padding (the settings read from
//! `tokenizer.json` move to [`Settings`] at load), so the chunked paths never truncate a piece.
//!
//! Batches: each item is post-processed (padded alone, as `tokenizers` does), then the batch
//! is padded once more with [`pad_batch`] (to its longest item for `BatchLongest`), as
//! `tokenizers`' `encode_batch` does.
//!
//! A single text on the own engine whose post-processor is a fixed frame skips the round trip
//! when [`kept_single`] shows truncation to be a plain right cut (or none): the frame assembles
//! the kept tokens and [`pad_single`] pads them (`crate::job`'s `direct_single`).
//!
//! Ids-only results (`Output::Ids`) with truncation or padding: [`ids_single`] cuts and pads
//! the ids the way the full path would (single sequence, fixed special-token frame), without
//! building offsets or overflowing parts; anything else goes through the full path.

use tokenizers::utils::padding::{PaddingDirection, PaddingParams, PaddingStrategy};
use tokenizers::utils::truncation::{TruncationDirection, TruncationParams, TruncationStrategy};
use tokenizers::{Encoding as HfEncoding, PostProcessor};

use crate::encoding::Encoding;
use crate::error::{Error, Result};

/// Truncation and padding in force on a tokenizer (`tokenizers`' `truncation` and `padding`).
#[derive(Debug, Clone, Default)]
pub struct Settings {
    pub truncation: Option<TruncationParams>,
    pub padding: Option<PaddingParams>,
    /// Full encodes report no `overflowing` parts, so right truncation may stop encoding
    /// early (see [`crate::job`]). `false` (the default) is `tokenizers`' behaviour.
    pub drop_overflowing: bool,
}

impl Settings {
    pub fn is_empty(&self) -> bool {
        self.truncation.is_none() && self.padding.is_none()
    }
}

/// A truncation strategy by the name `tokenizers` gives it (`"longest_first"`, `"only_first"`,
/// `"only_second"`: its Python API's names and `TruncationStrategy::as_ref`); `None` for any
/// other name. The bindings map their host's names to these and keep their own messages.
pub fn truncation_strategy(name: &str) -> Option<TruncationStrategy> {
    [TruncationStrategy::LongestFirst, TruncationStrategy::OnlyFirst, TruncationStrategy::OnlySecond]
        .into_iter()
        .find(|s| s.as_ref() == name)
}

/// A truncation direction by name (`"left"`, `"right"`), as [`truncation_strategy`].
pub fn truncation_direction(name: &str) -> Option<TruncationDirection> {
    match name {
        "left" => Some(TruncationDirection::Left),
        "right" => Some(TruncationDirection::Right),
        _ => None,
    }
}

/// A padding direction by name (`"left"`, `"right"`), as [`truncation_strategy`].
pub fn padding_direction(name: &str) -> Option<PaddingDirection> {
    match name {
        "left" => Some(PaddingDirection::Left),
        "right" => Some(PaddingDirection::Right),
        _ => None,
    }
}

/// `tokenizers`' padding parameters from its `enable_padding` arguments: to `length` when
/// given, else to a batch's longest item (`BatchLongest`).
pub fn padding_params(
    direction: PaddingDirection,
    pad_id: u32,
    pad_type_id: u32,
    pad_token: &str,
    length: Option<usize>,
    pad_to_multiple_of: Option<usize>,
) -> PaddingParams {
    let strategy = match length {
        Some(n) => PaddingStrategy::Fixed(n),
        None => PaddingStrategy::BatchLongest,
    };
    PaddingParams { strategy, direction, pad_to_multiple_of, pad_id, pad_type_id, pad_token: pad_token.to_string() }
}

/// Special tokens the post-processor adds (`TokenizerImpl::get_n_added_tokens`).
pub(crate) fn n_added_tokens(tok: &tokenizers::Tokenizer, is_pair: bool) -> usize {
    tok.get_post_processor().map(|p| p.added_tokens(is_pair)).unwrap_or(0)
}

/// `TokenizerImpl::with_truncation`'s check: the stride must be below the effective max length
/// (`max_length` minus the special tokens of a single sequence). The subtraction wraps like
/// the released `tokenizers` (built without overflow checks): a `max_length` below the number
/// of special tokens passes and then truncates nothing.
pub(crate) fn check_truncation(tok: &tokenizers::Tokenizer, params: &TruncationParams) -> Result<()> {
    let n = n_added_tokens(tok, false);
    let effective = params.max_length.wrapping_sub(n);
    if effective < params.stride {
        return Err(Error::InvalidArgument(format!(
            "tokenizer stride set to {}, which is greater than or equal to its effective max length of {} (= {} original max length - {} added special tokens), ",
            params.stride, effective, params.max_length, n
        )));
    }
    Ok(())
}

/// `TokenizerImpl::post_process` with `settings` in place of the tokenizer's own (which are
/// off): truncate, post-process, pad.
pub(crate) fn post_process(
    tok: &tokenizers::Tokenizer,
    settings: &Settings,
    encoding: HfEncoding,
    pair: Option<HfEncoding>,
    add_special_tokens: bool,
) -> Result<HfEncoding> {
    let (encoding, pair) = match &settings.truncation {
        Some(trunc) => {
            let n = n_added_tokens(tok, pair.is_some());
            let params = if add_special_tokens && n > 0 {
                TruncationParams { max_length: trunc.max_length.wrapping_sub(n), ..trunc.clone() }
            } else {
                trunc.clone()
            };
            // `Encoding::truncate` asserts that the stride is below the length it cuts to (a
            // pair's half can be shorter than the effective max length): that is a bad argument
            // here, not a crash. Checked first, since a panic cannot be caught on wasm32
            // (panic=abort); the catch stays for the native build's sake.
            let lens = (encoding.len(), pair.as_ref().map(HfEncoding::len));
            if let Some((_, to)) = cut_lengths(lens.0, lens.1, &params)
                .into_iter()
                .find(|&(len, to)| to > 0 && to < len && params.stride >= to)
            {
                return Err(Error::InvalidArgument(format!(
                    "truncation: `stride` must be strictly less than `max_len={to}` (note that `max_len` may be shorter than the max length of the original model, as it subtracts the number of special characters"
                )));
            }
            let cut = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                tokenizers::utils::truncation::truncate_encodings(encoding, pair, &params)
            }));
            match cut {
                Ok(r) => r.map_err(Error::tokenize)?,
                Err(payload) => return Err(Error::InvalidArgument(format!("truncation: {}", panic_text(&*payload)))),
            }
        }
        None => (encoding, pair),
    };
    let (encoding, pair) = if settings.drop_overflowing {
        let drop = |mut e: HfEncoding| {
            e.take_overflowing();
            e
        };
        (drop(encoding), pair.map(drop))
    } else {
        (encoding, pair)
    };
    // The tokenizer's own truncation and padding are off: this is the post-processor alone.
    let processed = tok.post_process(encoding, pair, add_special_tokens).map_err(Error::tokenize)?;
    Ok(match &settings.padding {
        Some(params) => {
            let mut one = [processed];
            tokenizers::utils::padding::pad_encodings(&mut one, params).map_err(Error::tokenize)?;
            let [p] = one;
            p
        }
        None => processed,
    })
}

/// A `tokenizers` encoding of `ids` alone (type ids 0, every token attended, no offsets, token
/// strings or words): what the post-processor needs of an ids-only result.
pub(crate) fn ids_encoding(ids: Vec<u32>) -> HfEncoding {
    let n = ids.len();
    HfEncoding::new(
        ids,
        vec![0; n],
        vec![String::new(); n],
        vec![None; n],
        vec![(0, 0); n],
        vec![0; n],
        vec![1; n],
        vec![],
        Default::default(),
    )
}

/// `(length, length cut to)` of each sequence `truncate_encodings` calls `Encoding::truncate`
/// on, for sequences of `a` and `b` tokens (its arithmetic, step by step; nothing when it cuts
/// nothing or fails with an error of its own). `truncate` returns at once when the length cut
/// to is not below the length, cuts to nothing without a check, and else asserts
/// `stride < length cut to`.
fn cut_lengths(a: usize, b: Option<usize>, params: &TruncationParams) -> Vec<(usize, usize)> {
    let max = params.max_length;
    if max == 0 {
        return std::iter::once((a, 0)).chain(b.map(|b| (b, 0))).collect();
    }
    let total = a + b.unwrap_or(0);
    if total <= max {
        return Vec::new();
    }
    let to_remove = total - max;
    match (params.strategy, b) {
        (TruncationStrategy::LongestFirst, Some(b)) => {
            let swap = a > b;
            let mut n1 = a.min(b);
            let mut n2 = if n1 > max { n1 } else { n1.max(max - n1) };
            if n1 + n2 > max {
                n1 = max / 2;
                n2 = n1 + max % 2;
            }
            if swap {
                std::mem::swap(&mut n1, &mut n2);
            }
            vec![(a, n1), (b, n2)]
        }
        (TruncationStrategy::LongestFirst, None) => vec![(a, total - to_remove)],
        (TruncationStrategy::OnlyFirst, _) if a > to_remove => vec![(a, a - to_remove)],
        (TruncationStrategy::OnlySecond, Some(b)) if b > to_remove => vec![(b, b - to_remove)],
        _ => Vec::new(),
    }
}

/// How many content tokens [`post_process`] keeps of a single sequence of `content` tokens,
/// when that is all it does to them besides adding the post-processor's `n_added` special
/// tokens (with `add`) and padding: no truncation in force or none needed, or a right
/// truncation whose overflowing parts are dropped. `None` when it does more (overflowing parts
/// to build, a left cut, an error to raise): then [`post_process`] itself must run.
///
/// `truncate_encodings` on one sequence cuts only when `content` exceeds the effective
/// `max_length` (less `n_added`, wrapping as [`post_process`] computes it), and then keeps the
/// first `max_length` tokens (`longest_first` and `only_first` alike; `only_second` errors);
/// `Encoding::truncate` asserts `stride < max_length` first (unless it cuts to nothing), which
/// [`post_process`] reports.
pub(crate) fn kept_single(settings: &Settings, content: usize, n_added: usize, add: bool) -> Option<usize> {
    let Some(trunc) = &settings.truncation else { return Some(content) };
    let max = if add && n_added > 0 { trunc.max_length.wrapping_sub(n_added) } else { trunc.max_length };
    if content <= max {
        return Some(content);
    }
    let plain = trunc.direction == TruncationDirection::Right
        && settings.drop_overflowing
        && trunc.strategy != TruncationStrategy::OnlySecond
        && (max == 0 || trunc.stride < max);
    plain.then_some(max)
}

/// `pad_encodings` of one finished encoding (what [`post_process`] does last).
pub(crate) fn pad_single(enc: &mut Encoding, params: &PaddingParams) {
    let target = pad_target(params, enc.len());
    enc.pad(target, params.pad_id, params.pad_type_id, matches!(params.direction, PaddingDirection::Left));
}

/// [`post_process`] into a yieldtok [`Encoding`].
pub(crate) fn finish(
    tok: &tokenizers::Tokenizer,
    settings: &Settings,
    encoding: HfEncoding,
    pair: Option<HfEncoding>,
    add_special_tokens: bool,
    named: &crate::encoding::TextNamed,
) -> Result<Encoding> {
    post_process(tok, settings, encoding, pair, add_special_tokens).map(|e| Encoding::from_hf(e, named))
}

/// The length `pad_encodings` pads `lengths` to (`None`: no padding).
pub(crate) fn pad_target(params: &PaddingParams, longest: usize) -> usize {
    let mut n = match params.strategy {
        PaddingStrategy::Fixed(n) => n,
        PaddingStrategy::BatchLongest => longest,
    };
    if let Some(m) = params.pad_to_multiple_of {
        if m > 0 && n % m > 0 {
            n += m - n % m;
        }
    }
    n
}

/// `tokenizers`' `pad_encodings` over a batch of finished encodings (what `encode_batch` does
/// after encoding each item).
pub(crate) fn pad_batch(encodings: &mut [Encoding], params: &PaddingParams) {
    if encodings.is_empty() {
        return;
    }
    let longest = encodings.iter().map(Encoding::len).max().unwrap_or(0);
    let target = pad_target(params, longest);
    let left = matches!(params.direction, PaddingDirection::Left);
    for e in encodings {
        e.pad(target, params.pad_id, params.pad_type_id, left);
    }
}

/// [`pad_batch`] for ids-only results.
pub(crate) fn pad_batch_ids(ids: &mut [Vec<u32>], params: &PaddingParams) {
    let longest = ids.iter().map(Vec::len).max().unwrap_or(0);
    let target = pad_target(params, longest);
    for v in ids {
        pad_ids(v, target, params);
    }
}

pub(crate) fn pad_ids(v: &mut Vec<u32>, target: usize, params: &PaddingParams) {
    if v.len() >= target {
        return;
    }
    let k = target - v.len();
    match params.direction {
        PaddingDirection::Left => {
            v.splice(0..0, std::iter::repeat_n(params.pad_id, k));
        }
        PaddingDirection::Right => v.extend(std::iter::repeat_n(params.pad_id, k)),
    }
}

/// The ids [`post_process`] gives for a single sequence whose content ids are `content`, when
/// the post-processor only adds `prefix` and `suffix` (`added` = `n_added_tokens(false)` must
/// be their length): the same cut (`truncate_encodings` on one encoding keeps the first or last
/// `max_length` tokens, errors for `only_second`), the same special tokens, the same padding.
pub(crate) fn ids_single(
    settings: &Settings,
    prefix: &[u32],
    suffix: &[u32],
    mut content: Vec<u32>,
    add: bool,
) -> Result<Vec<u32>> {
    if let Some(trunc) = &settings.truncation {
        let n = prefix.len() + suffix.len();
        let max = if add && n > 0 { trunc.max_length.wrapping_sub(n) } else { trunc.max_length };
        if max == 0 {
            content.clear();
        } else if content.len() > max {
            if trunc.strategy == TruncationStrategy::OnlySecond {
                return Err(Error::tokenize(tokenizers::utils::truncation::TruncationError::SecondSequenceNotProvided));
            }
            match trunc.direction {
                TruncationDirection::Right => content.truncate(max),
                TruncationDirection::Left => {
                    content.drain(..content.len() - max);
                }
            }
        }
    }
    let mut ids = if add && !(prefix.is_empty() && suffix.is_empty()) {
        let mut v = Vec::with_capacity(prefix.len() + content.len() + suffix.len());
        v.extend_from_slice(prefix);
        v.extend_from_slice(&content);
        v.extend_from_slice(suffix);
        v
    } else {
        content
    };
    if let Some(params) = &settings.padding {
        let target = pad_target(params, ids.len());
        pad_ids(&mut ids, target, params);
    }
    Ok(ids)
}

/// Where the post-processor puts the sequence range of a single text's content, as a function
/// of the output length `L`: `(id, start, L - end)` for each recorded range (empty: none
/// recorded). Read off `tok.post_process` on probe encodings of 1 and 3 tokens at load; `None`
/// when they disagree (then the ranges of a full encode come from `tokenizers` itself).
#[derive(Debug, Clone)]
pub(crate) struct RangeShape(Vec<(usize, usize, usize)>);

impl RangeShape {
    pub(crate) fn probe(tok: &tokenizers::Tokenizer, add: bool) -> Option<RangeShape> {
        let shape = |n: usize| -> Option<Vec<(usize, usize, usize)>> {
            let enc = HfEncoding::new(
                vec![0; n],
                vec![0; n],
                vec!["\u{0}".to_string(); n],
                (0..n as u32).map(Some).collect(),
                (0..n).map(|i| (i, i + 1)).collect(),
                vec![0; n],
                vec![1; n],
                vec![],
                Default::default(),
            );
            let out = tok.post_process(enc, None, add).ok()?;
            let len = out.len();
            crate::encoding::hf_sequence_ranges(&out)
                .into_iter()
                .map(|(id, r)| (r.end <= len && r.len() == n).then_some((id, r.start, len - r.end)))
                .collect()
        };
        let one = shape(1)?;
        (shape(3)? == one).then_some(RangeShape(one))
    }

    /// `(sequence id, tokens before, tokens after)` per sequence (the compact form keeps it).
    pub(crate) fn parts(&self) -> &[(usize, usize, usize)] {
        &self.0
    }

    pub(crate) fn from_parts(parts: Vec<(usize, usize, usize)>) -> RangeShape {
        RangeShape(parts)
    }

    pub(crate) fn ranges(&self, len: usize) -> Vec<(usize, std::ops::Range<usize>)> {
        // An empty range is `0..0`, as `crate::encoding::hf_sequence_ranges` gives it.
        self.0
            .iter()
            .map(|&(id, start, tail)| {
                let end = len.saturating_sub(tail).max(start);
                (id, if end == start { 0..0 } else { start..end })
            })
            .collect()
    }
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    crate::error::panic_message(payload).unwrap_or_else(|| "the stride must be below the length truncated to".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `cut_lengths` predicts `truncate_encodings`' stride panic exactly: over every small
    /// length, pair, strategy, direction, `max_length` and stride, it finds a length the stride
    /// reaches iff the crate panics.
    #[test]
    fn cut_lengths_predict_the_stride_panic_of_truncate_encodings() {
        let enc = |n: usize| ids_encoding(vec![7; n]);
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let (mut panics, mut runs) = (0, 0);
        for strategy in
            [TruncationStrategy::LongestFirst, TruncationStrategy::OnlyFirst, TruncationStrategy::OnlySecond]
        {
            for direction in [TruncationDirection::Right, TruncationDirection::Left] {
                for a in 0..9 {
                    for b in (0..9).map(Some).chain([None]) {
                        for max_length in 0..12 {
                            for stride in 0..8 {
                                let params = TruncationParams { max_length, stride, strategy, direction };
                                let predicted = cut_lengths(a, b, &params)
                                    .into_iter()
                                    .any(|(len, to)| to > 0 && to < len && stride >= to);
                                let crashed = std::panic::catch_unwind(|| {
                                    tokenizers::utils::truncation::truncate_encodings(enc(a), b.map(enc), &params)
                                })
                                .is_err();
                                assert_eq!(predicted, crashed, "{a} {b:?} {params:?}");
                                panics += crashed as usize;
                                runs += 1;
                            }
                        }
                    }
                }
            }
        }
        std::panic::set_hook(hook);
        assert!(panics > runs / 10 && panics < runs / 2, "{panics} of {runs}: both outcomes are exercised");
    }

    #[test]
    fn names_parse_to_tokenizers_values_and_nothing_else() {
        for (name, want) in [
            ("longest_first", TruncationStrategy::LongestFirst),
            ("only_first", TruncationStrategy::OnlyFirst),
            ("only_second", TruncationStrategy::OnlySecond),
        ] {
            assert_eq!(truncation_strategy(name), Some(want));
        }
        assert_eq!(truncation_direction("left"), Some(TruncationDirection::Left));
        assert_eq!(truncation_direction("right"), Some(TruncationDirection::Right));
        assert!(matches!(padding_direction("left"), Some(PaddingDirection::Left)));
        assert!(matches!(padding_direction("right"), Some(PaddingDirection::Right)));
        for bad in ["", "LongestFirst", "Left", "longest", "up"] {
            assert_eq!(truncation_strategy(bad), None, "{bad}");
            assert_eq!(truncation_direction(bad), None, "{bad}");
            assert!(padding_direction(bad).is_none(), "{bad}");
        }
        let p = padding_params(PaddingDirection::Left, 3, 1, "<pad>", Some(16), Some(8));
        assert!(matches!(p.strategy, PaddingStrategy::Fixed(16)));
        assert_eq!((p.pad_id, p.pad_type_id, p.pad_token.as_str(), p.pad_to_multiple_of), (3, 1, "<pad>", Some(8)));
        assert!(matches!(
            padding_params(PaddingDirection::Right, 0, 0, "[PAD]", None, None).strategy,
            PaddingStrategy::BatchLongest
        ));
    }
}
