//! `DecodeStream`: the core's [`yieldtok::DecodeStream`] (`tokenizers`' stream state machine:
//! same results and "Invalid prefix" errors) for Node, plus `stepMany`, which steps many streams
//! in one call (one call per generated token of every request, instead of one per request).
//! Option parsing and the public class live in `yieldtok.js`.

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::errors::{guard, invalid_arg, js_err};
use crate::NativeTokenizer;

#[napi]
pub struct NativeDecodeStream {
    inner: yieldtok::DecodeStream,
}

#[napi]
impl NativeDecodeStream {
    #[napi(constructor)]
    pub fn new(ids: Uint32Array, skip_special_tokens: bool) -> Self {
        NativeDecodeStream { inner: yieldtok::DecodeStream::new(ids.to_vec(), skip_special_tokens) }
    }

    #[napi(getter)]
    pub fn skip_special_tokens(&self) -> bool {
        self.inner.skip_special_tokens()
    }

    /// The ids in the stream's window now.
    #[napi(getter)]
    pub fn ids(&self) -> Uint32Array {
        Uint32Array::new(self.inner.ids().to_vec())
    }

    #[napi]
    pub fn step(&mut self, tokenizer: &NativeTokenizer, ids: Uint32Array) -> Result<Option<String>> {
        guard(|| self.inner.step(&tokenizer.tok(), &ids))
    }

    /// `streams[i]` gets `ids[starts[i]..starts[i + 1]]`; every stream is stepped, then the first
    /// error (if any) is thrown.
    #[napi]
    pub fn step_many(
        tokenizer: &NativeTokenizer,
        mut streams: Vec<ClassInstance<NativeDecodeStream>>,
        ids: Uint32Array,
        starts: Uint32Array,
    ) -> Result<Vec<Option<String>>> {
        let seqs = crate::split_batch(&ids, &starts)?;
        if seqs.len() != streams.len() {
            return Err(invalid_arg(format!("{} streams but {} id lists", streams.len(), seqs.len())));
        }
        // Two entries for one stream would be two `&mut` to it: refuse before borrowing.
        let mut seen: Vec<*const NativeDecodeStream> = streams.iter().map(|s| &**s as *const _).collect();
        seen.sort_unstable();
        if seen.windows(2).any(|w| w[0] == w[1]) {
            return Err(invalid_arg("a stream appears twice in streams"));
        }
        let mut states: Vec<&mut yieldtok::DecodeStream> = streams.iter_mut().map(|s| &mut s.inner).collect();
        let results = guard(|| Ok(tokenizer.tok().step_decode_streams(&mut states, &seqs)))?;
        results.into_iter().collect::<yieldtok::Result<Vec<_>>>().map_err(js_err)
    }
}
