//! The fast ids-only engine (native targets): a thin wrapper around the `fastokens` crate.
//!
//! The reference engine (`tokenizers`) serves every model, offsets and wasm. This engine
//! serves ids-only work on native targets (`encode` without offsets, `count`, batches,
//! chunked/parallel jobs) at several times to ~100x the speed, with ids identical to
//! `tokenizers::Tokenizer::encode(text, false)` on the seven fixture tokenizers.
//!
//! Contract of [`FastEngine::encode_ids`]: the ids of one chunk of text **without** the
//! post-processor (no BOS/EOS; `add_special_tokens = false`), with added/special tokens
//! in the text recognised exactly as `tokenizers` does, no truncation, no padding.
//! Post-processing (BOS/EOS) is the caller's job, once per whole text; for the seven
//! fixtures fastokens' own `encode_with_special_tokens(text, true)` matches `tokenizers`
//! too, if the core ever wants to delegate that.
//!
//! Loading ([`FastEngine::from_json`]):
//! * Built from the `tokenizer.json` text only (`fastokens::Tokenizer::from_json`). It
//!   does **not** read `tokenizer_config.json` (`Tokenizer::from_file` would, and would
//!   merge `added_tokens_decoder` entries that `tokenizers` ignores), and needs no hub
//!   client (`default-features = false`).
//! * `truncation` and `padding` from the JSON are switched off: they apply to a whole
//!   sequence, never to one chunk.
//! * Gapped model vocab (gpt4o as shipped): fastokens requires the BPE vocab ids to be
//!   dense (`0..=max`). gpt4o's `model.vocab` holds `<|endoftext|>` = 199999 and
//!   `<|endofprompt|>` = 200018 above a vocab that otherwise ends at 199997, so its BPE
//!   build fails with `non-contiguous tokens - token 199998 is missing` — which
//!   `Tokenizer::from_json` reports only as `model error: unsupported model type: Other`
//!   (an untagged serde fallback swallows the real error). [`normalize_gapped_vocab`]
//!   runs before the build: when the vocab is gapped it removes from `model.vocab` every
//!   entry above the dense prefix that is also an `added_tokens` entry with the same
//!   content and id; those ids are still produced, through added-token matching, which
//!   runs before the model and (for non-normalized, non-stripping tokens) catches every
//!   occurrence of the content. If the vocab is still gapped, loading fails with a clear
//!   reason and the caller uses the reference engine. Dense vocabs are left untouched.
//!
//! Threads (fastokens 0.3.5):
//! * Its own fork-join pool: `min(cores, 32) - 1` threads named `fastokens-N`, spawned on
//!   the first encode of *any* size (the added-token splitter asks for the pool size),
//!   spinning 50 µs after a job, then parked. It only gets work from one input of 64 KiB
//!   or more (scanner / pre-tokenized paths; added-token scan: 256 KiB) and from
//!   `encode_batch`. This engine never gives it any: it calls neither `encode_batch` nor
//!   [`encode_ids`](FastEngine::encode_ids) with [`MAX_SERIAL_BYTES`] or more (longer pieces
//!   go to the own engine), so every encode runs wholly on the calling thread (a scheduler
//!   worker: no CPU beyond the scheduler's) and the pool's threads stay parked. The process
//!   environment is left alone (no `set_var` while host threads may read it): a user who
//!   wants no pool threads at all sets `FASTOKENS_BPE_THREADS=1` before start.
//! * rayon (global pool, or the caller's pool when called from inside one): only the
//!   parallel regex matcher of a `Split` pattern that fastokens' scanners do not
//!   recognise, on inputs of 64 KiB or more: never reached, by the same bound.
//! * Thread-locals: each thread that encodes with a byte-level model gets a copy of the
//!   model's pretoken-cache seed on its first encode: ~2-4 ms and ~17 MiB (qwen3,
//!   llama3_1, deepseek_v3) or ~34 MiB (gpt4o, gptoss) per thread and model, kept for up
//!   to 4 models per thread; it grows (up to a 64 MiB cap) on diverse input. The seed
//!   itself is built once per model, on the first encode (30-130 ms). gemma3 and llama2
//!   have none of this. A scheduler with a small fixed set of threads keeps it bounded
//!   and warm.
//!
//! Load cost: `from_json` takes 3-4x the CPU of `tokenizers` (qwen3 ~1.0 s against 0.3 s,
//! gemma3 ~3 s against 0.9 s), so build it off the caller's hot path or lazily.

use std::sync::atomic::{AtomicUsize, Ordering};

use fastokens::Tokenizer;
use serde_json::Value;

/// Fast ids-only encoder for one loaded tokenizer. `Send + Sync`: share it by `Arc`.
pub struct FastEngine {
    tok: Tokenizer,
    /// Threads inside [`encode_ids`](Self::encode_ids) now; in a forked child, the parent's
    /// threads that were inside it at the fork (see [`idle`](Self::idle)).
    busy: AtomicUsize,
}

const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<FastEngine>();
};

impl FastEngine {
    /// Build from the tokenizer.json text; Err(reason) when fastokens cannot serve this tokenizer.
    pub fn from_json(json: &str) -> Result<Self, String> {
        let mut value: Value = serde_json::from_str(json).map_err(|e| format!("tokenizer.json: {e}"))?;
        // Checked up front (cheap) rather than after a failed build: fastokens reports a
        // gapped vocab as the misleading "unsupported model type: Other" (its BPE
        // `try_from` error is swallowed by an untagged serde fallback), and a failed
        // build of gpt4o costs ~0.5 CPU-s.
        let removed = normalize_gapped_vocab(&mut value)?;
        if !removed.is_empty() {
            log::info!("yieldtok: fast engine: gapped vocab made dense by serving {removed:?} as added tokens only");
        }
        let mut tok = Tokenizer::from_json(value).map_err(|e| format!("fastokens: {e}"))?;
        tok.set_truncation(None);
        tok.set_padding(None);
        Ok(Self { tok, busy: AtomicUsize::new(0) })
    }

    /// ids of `text` without special tokens / post-processor (one chunk; no internal
    /// parallelism: the caller keeps `text` shorter than [`MAX_SERIAL_BYTES`]).
    pub fn encode_ids(&self, text: &str) -> Result<Vec<u32>, String> {
        struct Busy<'a>(&'a AtomicUsize);
        impl Drop for Busy<'_> {
            fn drop(&mut self) {
                self.0.fetch_sub(1, Ordering::SeqCst);
            }
        }
        debug_assert!(text.len() < MAX_SERIAL_BYTES, "fastokens would fan out over its own pool");
        self.busy.fetch_add(1, Ordering::SeqCst);
        let _busy = Busy(&self.busy);
        self.tok.encode_with_special_tokens(text, false).map_err(|e| format!("fastokens: {e}"))
    }

    /// Whether no thread is inside the engine. Read in a forked child before its first use
    /// there, it says whether a thread of the parent was inside it at the fork: fastokens then
    /// may hold a cache lock or be initialising a lazy table that will never finish, and the
    /// child must not use this engine.
    pub(crate) fn idle(&self) -> bool {
        self.busy.load(Ordering::SeqCst) == 0
    }
}

/// Make a gapped `model.vocab` dense for fastokens: remove the entries that sit above the
/// dense id prefix `0..n` and are also `added_tokens` entries with the same content and id.
/// Returns the removed `(content, id)` pairs: empty when the vocab is already dense (or is
/// not a `{token: id}` map, which fastokens will judge itself); `Err` when it stays gapped.
///
/// Exactness: an added token that is `normalized: false` (or whose tokenizer has no
/// normalizer) and has `lstrip = rstrip = single_word = false` is split out of the raw text
/// before pre-tokenization wherever its content occurs, so the model never sees its
/// content as one piece; its vocab entry is only reachable through merges, which the
/// pre-tokenizer makes impossible for `<|...|>` style tokens. Entries that do not meet
/// these conditions are left alone (loading then fails and the reference engine is used).
pub fn normalize_gapped_vocab(json: &mut Value) -> Result<Vec<(String, u32)>, String> {
    let has_normalizer = !matches!(json.get("normalizer"), None | Some(Value::Null));
    let mut candidates: Vec<(String, u32)> = Vec::new();
    if let Some(Value::Array(added)) = json.get("added_tokens") {
        for a in added {
            let flag = |k: &str| a.get(k).and_then(Value::as_bool).unwrap_or(false);
            let (Some(content), Some(id)) =
                (a.get("content").and_then(Value::as_str), a.get("id").and_then(Value::as_u64))
            else {
                continue;
            };
            if flag("lstrip") || flag("rstrip") || flag("single_word") {
                continue;
            }
            if has_normalizer && flag("normalized") {
                continue;
            }
            candidates.push((content.to_owned(), id as u32));
        }
    }
    let Some(Value::Object(vocab)) = json.get_mut("model").and_then(|m| m.get_mut("vocab")) else {
        return Ok(Vec::new());
    };
    // Length of the dense prefix 0..n of the vocab ids.
    let mut ids: Vec<u64> = vocab.values().filter_map(Value::as_u64).collect();
    ids.sort_unstable();
    ids.dedup();
    let dense = ids.iter().enumerate().take_while(|&(i, &id)| i as u64 == id).count() as u64;
    if dense == ids.len() as u64 {
        return Ok(Vec::new()); // already dense
    }
    let mut removed = Vec::new();
    for (content, id) in candidates {
        if u64::from(id) >= dense && vocab.get(&content).and_then(Value::as_u64) == Some(u64::from(id)) {
            vocab.remove(&content);
            removed.push((content, id));
        }
    }
    let mut ids: Vec<u64> = vocab.values().filter_map(Value::as_u64).collect();
    ids.sort_unstable();
    ids.dedup();
    match ids.iter().enumerate().find(|&(i, &id)| i as u64 != id) {
        None => Ok(removed),
        Some((i, _)) => Err(format!(
            "model.vocab ids are not contiguous (id {i} missing) even after removing added tokens {removed:?}"
        )),
    }
}

/// Inputs this long or longer may make fastokens 0.3.5 fan out over its own thread pool
/// (its smallest threshold, `SCAN_FUSED_PARALLEL_MIN`, is 64 KiB); shorter ones run wholly on
/// the calling thread whatever the environment. [`FastEngine::encode_ids`] gets only shorter
/// pieces.
pub(crate) const MAX_SERIAL_BYTES: usize = 64 * 1024;
