//! A per-thread cache of pre-token → tokens for the models whose result depends only on the
//! pre-token (WordPiece, Unigram): a hit skips the model. Keyed by the model instance (a
//! unique number) and the pre-token's bytes; tokens are stored with their byte ranges. Short
//! pre-tokens only; the whole cache is dropped when it is full (bounded memory, no eviction
//! bookkeeping on the hot path).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use super::Token;

/// Longest pre-token cached (bytes).
const MAX_WORD: usize = 64;
/// Entries per thread before the cache is dropped.
const MAX_ENTRIES: usize = 1 << 16;

type Map = HashMap<Box<[u8]>, Box<[Token]>, foldhash::fast::FixedState>;

thread_local! {
    static CACHE: RefCell<(Map, Vec<u8>)> = RefCell::new((Map::default(), Vec::new()));
}

/// The cache of one model instance.
#[derive(Debug)]
pub struct WordCache {
    id: u64,
}

impl Default for WordCache {
    fn default() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        WordCache { id: NEXT.fetch_add(1, Ordering::Relaxed) }
    }
}

impl WordCache {
    /// Append the tokens of `word` to `out`: from the cache, or from `compute` (which appends
    /// them to `out`), then remembered.
    #[inline]
    pub fn tokenize<E>(
        &self,
        word: &str,
        out: &mut Vec<Token>,
        compute: impl FnOnce(&mut Vec<Token>) -> Result<(), E>,
    ) -> Result<(), E> {
        if word.len() > MAX_WORD {
            return compute(out);
        }
        let hit = CACHE.with(|c| {
            let (map, key) = &mut *c.borrow_mut();
            key.clear();
            key.extend_from_slice(&self.id.to_le_bytes());
            key.extend_from_slice(word.as_bytes());
            map.get(key.as_slice()).map(|t| out.extend_from_slice(t)).is_some()
        });
        if hit {
            return Ok(());
        }
        let from = out.len();
        compute(out)?;
        CACHE.with(|c| {
            let (map, key) = &mut *c.borrow_mut();
            if map.len() >= MAX_ENTRIES {
                map.clear();
            }
            map.insert(key.as_slice().into(), out[from..].into());
        });
        Ok(())
    }
}
