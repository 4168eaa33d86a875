//! Encodings as one flat typed array: [`EncodingBuffers`] is what the JS `Encoding` class views
//! (one or many encodings concatenated, with start indices), [`Flat`] the parts as vectors; both
//! are built on a worker thread, the JS thread only wraps (or, for a short result, copies) one
//! buffer.

use napi::bindgen_prelude::*;
use napi::{check_status, sys};

use crate::offsets;

/// One or more encodings as ONE `Uint32Array` (the JS side makes the views): `[k, starts[0..=k],
/// ids[n], offsets[2n], attention_mask[n], type_ids[n], special_tokens_mask[n]]` with
/// `n = starts[k]`. Encoding `i` covers tokens `starts[i]..starts[i+1]`; its offsets are in UTF-16
/// code units of its own text. One buffer, not six, because handing results back is on the JS
/// thread: 20,000 short encodes resolving at once stalled the loop 0.5-0.9 s with six external
/// `ArrayBuffer`s each (issue 17, item 4). A short result is copied into a V8-owned buffer (no
/// finalizer to run later); a long one is handed over as an external buffer (no copy).
pub struct EncodingBuffers(Vec<u32>);

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
    starts: Vec<u32>,
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
            starts,
        }
    }

    /// One encoding.
    pub fn single(enc: yieldtok::Encoding, text: &str) -> Self {
        let n = enc.ids.len() as u32;
        let offsets = offsets::utf16_flat(text, &enc.offsets);
        Flat {
            ids: enc.ids,
            offsets,
            attention_mask: enc.attention_mask,
            type_ids: enc.type_ids,
            special_tokens_mask: enc.special_tokens_mask,
            starts: vec![0, n],
        }
    }

    pub fn push(&mut self, enc: &yieldtok::Encoding, text: &str) {
        self.ids.extend_from_slice(&enc.ids);
        offsets::utf16_extend(text, &enc.offsets, &mut self.offsets);
        self.attention_mask.extend_from_slice(&enc.attention_mask);
        self.type_ids.extend_from_slice(&enc.type_ids);
        self.special_tokens_mask.extend_from_slice(&enc.special_tokens_mask);
        self.starts.push(self.ids.len() as u32);
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
        let mut v = Vec::with_capacity(1 + self.starts.len() + 6 * n);
        v.push(k as u32);
        v.extend_from_slice(&self.starts);
        for part in [&self.ids, &self.offsets, &self.attention_mask, &self.type_ids, &self.special_tokens_mask] {
            v.extend_from_slice(part);
        }
        EncodingBuffers(v)
    }
}
