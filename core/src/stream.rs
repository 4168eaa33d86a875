//! Streaming detokenization: [`DecodeStream`], `tokenizers`' `DecodeStream` with the same state
//! and the same results, and [`Tokenizer::step_decode_streams`], which steps many streams in
//! one call (the per-token work of an inference server's detokenizer, off the host's thread).
//!
//! # Semantics (`tokenizers` 0.23 `step_decode_stream`)
//! A stream keeps a window of ids, `prefix` (the decode of the window's first `prefix_index`
//! ids) and `prefix_index`. A step appends the new ids and decodes the window; when that text is
//! longer than `prefix` and does not end in U+FFFD (an incomplete character), the part after
//! `prefix` is returned (it must start with `prefix`, else "invalid prefix"), and the window
//! drops everything before `prefix_index`. A stream seeded with ids (a prompt) takes their
//! decode as its prefix on the first step, unless it ends in U+FFFD.
//!
//! # The byte-level fast path
//! For a tokenizer whose decoder is `ByteLevel` alone (Qwen, Llama 3, GPT-4o, gpt-oss,
//! DeepSeek), the decode of ids is `String::from_utf8_lossy` of the concatenated bytes of their
//! tokens. Every `prefix` a stream holds is the decode of whole characters (it never ends in
//! U+FFFD), so the UTF-8 decoder is in its initial state after the prefix's bytes and
//! `decode(window) == prefix + lossy(bytes of the ids after prefix_index)`. A step therefore
//! decodes only the ids after `prefix_index` (usually one), never fails the prefix check, and
//! its new prefix is the text it returns; the state stays exactly `tokenizers`' (so a stream can
//! move between tokenizers). Every other decoder runs `tokenizers`' own step.

use crate::{Error, Result, Tokenizer};

/// Incremental decoding of ids as they are generated, yielding text as soon as it is complete
/// (`tokenizers.decoders.DecodeStream`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DecodeStream {
    skip_special_tokens: bool,
    ids: Vec<u32>,
    prefix: String,
    prefix_index: usize,
}

impl DecodeStream {
    /// A new stream. `ids` seeds it (e.g. with the prompt), so the first step's text is what
    /// the new id adds to their decode.
    pub fn new(ids: Vec<u32>, skip_special_tokens: bool) -> Self {
        DecodeStream { skip_special_tokens, ids, prefix: String::new(), prefix_index: 0 }
    }

    pub fn skip_special_tokens(&self) -> bool {
        self.skip_special_tokens
    }

    /// The ids the stream holds now (the window, not the whole history).
    pub fn ids(&self) -> &[u32] {
        &self.ids
    }

    /// The decoded text that the next step's text is cut from.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    pub fn prefix_index(&self) -> usize {
        self.prefix_index
    }

    /// Append `ids` and return the text they complete, if any (`None`: more ids are needed,
    /// e.g. the bytes of a character split across tokens).
    pub fn step(&mut self, tok: &Tokenizer, ids: &[u32]) -> Result<Option<String>> {
        let hf = tok.hf();
        if matches!(hf.get_decoder(), Some(tokenizers::DecoderWrapper::ByteLevel(_))) {
            return Ok(self.step_byte_level(hf, ids));
        }
        tokenizers::tokenizer::step_decode_stream(
            hf,
            ids.to_vec(),
            self.skip_special_tokens,
            &mut self.ids,
            &mut self.prefix,
            &mut self.prefix_index,
        )
        .map_err(|e| match e.downcast::<tokenizers::tokenizer::DecodeStreamError>() {
            Ok(e) => {
                let tokenizers::tokenizer::DecodeStreamError::InvalidPrefix {
                    token_id,
                    expected_prefix,
                    actual_string,
                } = *e;
                Error::DecodeStream { token_id, expected_prefix, actual_string }
            }
            Err(e) => Error::tokenize(e),
        })
    }

    /// [`step`](Self::step) for a `ByteLevel` decoder (see the module doc for why it is exact).
    fn step_byte_level(&mut self, hf: &tokenizers::Tokenizer, new: &[u32]) -> Option<String> {
        let mut bytes = Vec::new();
        if self.prefix.is_empty() && !self.ids.is_empty() {
            self.push_bytes(hf, 0, &mut bytes);
            let seed = String::from_utf8_lossy(&bytes);
            if !seed.ends_with('\u{FFFD}') {
                self.prefix = seed.into_owned();
                self.prefix_index = self.ids.len();
            }
            bytes.clear();
        }
        self.ids.extend_from_slice(new);
        self.push_bytes(hf, self.prefix_index, &mut bytes);
        let tail = String::from_utf8_lossy(&bytes);
        if tail.is_empty() || tail.ends_with('\u{FFFD}') {
            return None;
        }
        let tail = tail.into_owned();
        self.ids.drain(..self.prefix_index);
        self.prefix_index = self.ids.len();
        self.prefix.clone_from(&tail);
        Some(tail)
    }

    /// Append the bytes of `self.ids[from..]` as `tokenizers`' decode sees them: the token of
    /// each id (added tokens first), special tokens left out when skipping them, and each
    /// token's chars mapped back to bytes by the `ByteLevel` alphabet (a token with a char
    /// outside it contributes its UTF-8 bytes, as the `ByteLevel` decoder does).
    fn push_bytes(&self, hf: &tokenizers::Tokenizer, from: usize, out: &mut Vec<u8>) {
        let added = hf.get_added_vocabulary();
        for &id in &self.ids[from..] {
            let Some(token) = hf.id_to_token(id) else { continue };
            if self.skip_special_tokens && added.is_special_token(&token) {
                continue;
            }
            let start = out.len();
            for c in token.chars() {
                match byte_of(c) {
                    Some(b) => out.push(b),
                    None => {
                        out.truncate(start);
                        out.extend_from_slice(token.as_bytes());
                        break;
                    }
                }
            }
        }
    }
}

/// The byte that a char of GPT-2's byte alphabet stands for.
fn byte_of(c: char) -> Option<u8> {
    static TABLE: std::sync::OnceLock<Vec<i16>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let chars = &yieldtok_engine::pre_tokenizers::byte_level::BYTE_CHARS;
        let mut t = vec![-1i16; chars.iter().map(|&c| c as usize).max().unwrap_or(0) + 1];
        for (b, &c) in chars.iter().enumerate() {
            t[c as usize] = b as i16;
        }
        t
    });
    table.get(c as usize).and_then(|&b| u8::try_from(b).ok())
}

/// Streams stepped in one call are run in parallel from this many on (fewer are cheaper on the
/// calling thread than the hand-over to the pool).
#[cfg(not(target_arch = "wasm32"))]
const PARALLEL_STREAMS: usize = 512;

impl Tokenizer {
    /// Step many streams at once: `streams[i]` gets `ids[i]` (one or more ids). Returns each
    /// stream's result, as [`DecodeStream::step`] would (an error in one stream leaves the
    /// others' results). Many streams run in parallel on the scheduler's pool.
    ///
    /// # Panics
    /// Never; `streams` and `ids` of different lengths give an [`Error::InvalidArgument`] for
    /// every stream.
    pub fn step_decode_streams<S: AsRef<[u32]> + Sync>(
        &self,
        streams: &mut [&mut DecodeStream],
        ids: &[S],
    ) -> Vec<Result<Option<String>>> {
        if streams.len() != ids.len() {
            let msg = format!("{} streams but {} id lists", streams.len(), ids.len());
            return streams.iter().map(|_| Err(Error::InvalidArgument(msg.clone()))).collect();
        }
        let step = |(s, ids): (&mut &mut DecodeStream, &S)| s.step(self, ids.as_ref());
        cfg_if::cfg_if! {
            if #[cfg(target_arch = "wasm32")] {
                streams.iter_mut().zip(ids).map(step).collect()
            } else {
                if streams.len() < PARALLEL_STREAMS {
                    return streams.iter_mut().zip(ids).map(step).collect();
                }
                use rayon::prelude::*;
                self.inner.scheduler.pool().install(|| streams.par_iter_mut().zip(ids).map(step).collect())
            }
        }
    }
}
