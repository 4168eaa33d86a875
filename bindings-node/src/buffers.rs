//! Encodings as flat typed arrays: [`EncodingBuffers`] is what the JS `Encoding` class wraps
//! (one or many encodings concatenated, with start indices), [`Flat`] the same as plain vectors,
//! built on a worker thread and only wrapped on the JS thread (no copy there).

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::offsets;

/// One or more encodings in flat, concatenated typed arrays. Encoding `i` covers tokens
/// `starts[i]..starts[i+1]`; its offsets are `offsets[2*starts[i]..2*starts[i+1]]`, in UTF-16
/// code units of its own text. Handed to JS as external `ArrayBuffer`s (no copy).
#[napi(object)]
pub struct EncodingBuffers {
    pub ids: Uint32Array,
    pub offsets: Uint32Array,
    pub attention_mask: Uint32Array,
    pub type_ids: Uint32Array,
    pub special_tokens_mask: Uint32Array,
    pub starts: Uint32Array,
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

    /// One encoding, moving its vectors when it is the only one (no copy).
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

    /// `Uint32Array::new` shrinks each vector to fit, which may reallocate: do it here, on the
    /// worker, so that the main thread only wraps pointers.
    pub fn shrink(mut self) -> Self {
        for v in [&mut self.ids, &mut self.offsets, &mut self.attention_mask, &mut self.type_ids, &mut self.special_tokens_mask, &mut self.starts] {
            v.shrink_to_fit();
        }
        self
    }

    pub fn into_js(self) -> EncodingBuffers {
        EncodingBuffers {
            ids: Uint32Array::new(self.ids),
            offsets: Uint32Array::new(self.offsets),
            attention_mask: Uint32Array::new(self.attention_mask),
            type_ids: Uint32Array::new(self.type_ids),
            special_tokens_mask: Uint32Array::new(self.special_tokens_mask),
            starts: Uint32Array::new(self.starts),
        }
    }
}
