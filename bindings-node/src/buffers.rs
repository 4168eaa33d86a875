//! Encodings as one flat typed array: [`EncodingBuffers`] is what the JS `Encoding` class views
//! (one or many encodings concatenated, with start indices), [`Flat`] the parts as vectors; both
//! are built on a worker thread, the JS thread only wraps (or, for a short result, copies) one
//! buffer.

use napi::bindgen_prelude::*;
use napi::{check_status, sys};

use crate::offsets;

/// One or more encodings as ONE `Uint32Array` (the JS side makes the views): `[k, starts[0..=k],
/// ids[n], offsets[2n], attention_mask[n], type_ids[n], special_tokens_mask[n], word_ids[n],
/// sequence_ids[n], range_starts[0..=k], ranges[3r]]` with `n = starts[k]` and
/// `r = range_starts[k]`. Encoding `i` covers tokens `starts[i]..starts[i+1]`; its offsets are
/// in UTF-16 code units of its own text; a word or sequence id of [`NONE`] is none; its
/// sequence ranges (`tokenizers`' `sequence_ranges`, as `(id, start, end)`) are ranges
/// `range_starts[i]..range_starts[i+1]`, what the alignment methods read (`crate::align`). One buffer, not six, because handing results back is on the JS
/// thread: 20,000 short encodes resolving at once stalled the loop 0.5-0.9 s with six external
/// `ArrayBuffer`s each (issue 17, item 4). A short result is copied into a V8-owned buffer (no
/// finalizer to run later); a long one is handed over as an external buffer (no copy).
pub struct EncodingBuffers(Vec<u32>);

/// A word or sequence id that is none (a special token added by the post-processor, padding).
pub const NONE: u32 = u32::MAX;

/// Results up to this many bytes are copied into a V8-owned `ArrayBuffer`.
const COPY_BYTES: usize = 64 * 1024;

impl ToNapiValue for EncodingBuffers {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> Result<sys::napi_value> {
        let v = val.0;
        if v.len() * 4 > COPY_BYTES {
            // SAFETY: `env` is the live environment napi-rs passed to this conversion.
            return unsafe { Uint32Array::to_napi_value(env, Uint32Array::new(v)) };
        }
        let mut data = std::ptr::null_mut();
        let mut buf = std::ptr::null_mut();
        check_status!(
            // SAFETY: `env` is live; `data` and `buf` are valid out-pointers.
            unsafe { sys::napi_create_arraybuffer(env, v.len() * 4, &mut data, &mut buf) },
            "create ArrayBuffer"
        )?;
        // SAFETY: `data` is a fresh buffer of `v.len() * 4` bytes.
        unsafe { std::ptr::copy_nonoverlapping(v.as_ptr().cast::<u8>(), data.cast::<u8>(), v.len() * 4) };
        let mut out = std::ptr::null_mut();
        check_status!(
            // SAFETY: `buf` is the ArrayBuffer just created, `v.len()` u32s long; `out` is a valid out-pointer.
            unsafe { sys::napi_create_typedarray(env, sys::TypedarrayType::uint32_array, v.len(), buf, 0, &mut out) },
            "create Uint32Array"
        )?;
        Ok(out)
    }
}

/// The same as [`EncodingBuffers`], as plain vectors: built on a worker thread, `Send`.
#[derive(Default)]
pub struct Flat {
    ids: Vec<u32>,
    offsets: Vec<u32>,
    attention_mask: Vec<u32>,
    type_ids: Vec<u32>,
    special_tokens_mask: Vec<u32>,
    word_ids: Vec<u32>,
    sequence_ids: Vec<u32>,
    starts: Vec<u32>,
    ranges: Vec<u32>,
    range_starts: Vec<u32>,
}

impl Flat {
    pub fn with_capacity(encodings: usize, tokens: usize) -> Self {
        let mut starts = Vec::with_capacity(encodings + 1);
        starts.push(0);
        Flat {
            ids: Vec::with_capacity(tokens),
            offsets: Vec::with_capacity(2 * tokens),
            attention_mask: Vec::with_capacity(tokens),
            type_ids: Vec::with_capacity(tokens),
            special_tokens_mask: Vec::with_capacity(tokens),
            word_ids: Vec::with_capacity(tokens),
            sequence_ids: Vec::with_capacity(tokens),
            starts,
            ranges: Vec::new(),
            range_starts: vec![0],
        }
    }

    /// One encoding.
    pub fn single(enc: yieldtok::Encoding, text: &str) -> Self {
        let mut flat = Flat::with_capacity(1, enc.len());
        flat.push(&enc, text);
        flat
    }

    pub fn push(&mut self, enc: &yieldtok::Encoding, text: &str) {
        self.push_seqs(enc, &[text]);
    }

    /// One encoding whose sequence `i` has its offsets in `texts[i]` (a pair: two texts, as
    /// `tokenizers` gives a pair's offsets, each into its own text). Tokens of no sequence
    /// (special tokens, padding) have `(0, 0)`, the same in any text.
    pub fn push_seqs(&mut self, enc: &yieldtok::Encoding, texts: &[&str]) {
        let seqs = enc.sequence_ids();
        self.ids.extend_from_slice(&enc.ids);
        enc.for_each_sequence_run(texts, |text, offsets| offsets::utf16_extend(text, offsets, &mut self.offsets));
        self.attention_mask.extend_from_slice(&enc.attention_mask);
        self.type_ids.extend_from_slice(&enc.type_ids);
        self.special_tokens_mask.extend_from_slice(&enc.special_tokens_mask);
        self.word_ids.extend(enc.word_ids.iter().map(|w| w.unwrap_or(NONE)));
        self.sequence_ids.extend(seqs.into_iter().map(|s| s.map_or(NONE, |s| s as u32)));
        self.starts.push(self.ids.len() as u32);
        for (id, r) in &enc.sequence_ranges {
            self.ranges.extend([*id as u32, r.start as u32, r.end as u32]);
        }
        self.range_starts.push((self.ranges.len() / 3) as u32);
    }

    pub fn many<'a>(items: impl ExactSizeIterator<Item = (&'a yieldtok::Encoding, &'a str)> + Clone) -> Self {
        let tokens = items.clone().map(|(e, _)| e.ids.len()).sum();
        let mut flat = Flat::with_capacity(items.len(), tokens);
        for (e, t) in items {
            flat.push(e, t);
        }
        flat
    }

    /// The one vector [`EncodingBuffers`] holds (built here, on the worker).
    pub fn into_js(self) -> EncodingBuffers {
        let k = self.starts.len() - 1;
        let n = self.ids.len();
        let mut v = Vec::with_capacity(1 + self.starts.len() + 8 * n + self.range_starts.len() + self.ranges.len());
        v.push(k as u32);
        v.extend_from_slice(&self.starts);
        for part in [
            &self.ids,
            &self.offsets,
            &self.attention_mask,
            &self.type_ids,
            &self.special_tokens_mask,
            &self.word_ids,
            &self.sequence_ids,
            &self.range_starts,
            &self.ranges,
        ] {
            v.extend_from_slice(part);
        }
        EncodingBuffers(v)
    }
}
