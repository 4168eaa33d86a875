//! The per-thread word cache of BPE: pre-token bytes → its tokens (ids and end offsets),
//! so that a word seen before costs one hash lookup instead of its merges. Results are the
//! model's by construction (a cached word is the model's output for those bytes).
//!
//! One [`WordCache`] per (thread, engine): a thread keeps the caches of its [`MAX_ENGINES`]
//! most recently used engines. Words of up to 16 bytes — nearly all pre-tokens — live in an
//! open-addressing table whose slots hold the key packed into two words (compared without a
//! byte loop) and, for a one-token word, the id itself; longer words up to [`MAX_KEY`] bytes
//! in a hash map (at most [`MAX_LONG`] words and `MAX_LONG_BYTES` bytes of keys). Both hash with a per-cache random seed (text cannot aim at one slot). When
//! the table or the value arena is full, the cache is emptied: memory stays bounded (a few MiB
//! per thread and engine).

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};

use super::Token;

/// Longest word cached, in bytes.
pub const MAX_KEY: usize = 4096;
/// Longest word kept in the packed table.
const PACKED_KEY: usize = 16;
/// Engines whose caches a thread keeps.
pub const MAX_ENGINES: usize = 4;
const MIN_SLOTS: usize = 1 << 12;
const MAX_SLOTS: usize = 1 << 17;
/// Token values (ids and ends of words of several tokens) kept before the cache is emptied.
const MAX_VALS: usize = 1 << 20;
/// Long words kept before the cache is emptied.
const MAX_LONG: usize = 1 << 15;
/// Bytes of long words' keys kept before the cache is emptied.
const MAX_LONG_BYTES: usize = 2 << 20;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A fresh id for an engine's caches.
pub fn new_cache_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

#[derive(Clone, Copy, Default)]
struct Slot {
    k0: u64,
    k1: u64,
    /// Key length (bits 0..8, 0: empty slot) and number of tokens (bits 8..24).
    meta: u32,
    /// The id (one token) or the offset of the values in `vals`.
    val: u32,
}

/// A cache hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hit {
    /// The word is one token.
    One(u32),
    /// Several tokens: their ids and end offsets are [`WordCache::values`]`(offset, count)`.
    Many { offset: u32, count: u32 },
}

/// One engine's word cache on one thread (see the module docs).
pub struct WordCache {
    slots: Vec<Slot>,
    used: usize,
    seed: (u64, u64),
    /// Per entry of several tokens: the ids, then the end offsets.
    vals: Vec<u32>,
    long: HashMap<Box<[u8]>, (u32, u32), foldhash::fast::RandomState>,
    /// The bytes of the keys in `long`.
    long_bytes: usize,
}

impl WordCache {
    /// A cache that allocates nothing, for pipelines whose model is not BPE (they never
    /// look anything up in it).
    pub(crate) fn unused() -> Self {
        WordCache {
            slots: Vec::new(),
            used: 0,
            seed: (0, 1),
            vals: Vec::new(),
            long: HashMap::default(),
            long_bytes: 0,
        }
    }
}

impl Default for WordCache {
    fn default() -> Self {
        let s = foldhash::fast::RandomState::default();
        WordCache {
            slots: vec![Slot::default(); MIN_SLOTS],
            used: 0,
            seed: (s.hash_one(0x5eedu64), s.hash_one(0xf00du64) | 1),
            vals: Vec::new(),
            long: HashMap::default(),
            long_bytes: 0,
        }
    }
}

/// A word of 1..=16 bytes as two words: its bytes, little-endian, zero-padded (bytes 0..8 in
/// the first, 8..16 in the second); unique for a given length.
#[inline(always)]
fn pack(w: &[u8]) -> (u64, u64) {
    debug_assert!((1..=PACKED_KEY).contains(&w.len()));
    let mut buf = [0u8; PACKED_KEY];
    buf[..w.len()].copy_from_slice(w);
    (u64::from_le_bytes(buf[..8].try_into().unwrap()), u64::from_le_bytes(buf[8..].try_into().unwrap()))
}

/// Per length `n` (0..=16): the masks that keep the first `n` bytes of two little-endian words.
const MASKS: [(u64, u64); PACKED_KEY + 1] = {
    let mut m = [(0u64, 0u64); PACKED_KEY + 1];
    let mut n = 1;
    while n <= PACKED_KEY {
        m[n] = if n >= 8 {
            (u64::MAX, if n == 16 { u64::MAX } else { (1u64 << (8 * (n - 8))) - 1 })
        } else {
            ((1u64 << (8 * n)) - 1, 0)
        };
        n += 1;
    }
    m
};

/// [`pack`] of `text[start..end]` (1..=16 bytes) without a branch on the length: two loads of
/// 8 bytes from `start` and the length's masks, when 16 bytes are readable there (else
/// [`pack`]). The length branches of a byte-by-length key mispredict on real text (word
/// lengths are random); these do not.
#[inline(always)]
fn pack_at(text: &[u8], start: usize, end: usize) -> (u64, u64) {
    let n = end - start;
    debug_assert!((1..=PACKED_KEY).contains(&n));
    match text.get(start..start + PACKED_KEY) {
        Some(w) => {
            let (m0, m1) = MASKS[n];
            let lo = u64::from_le_bytes(w[..8].try_into().unwrap());
            let hi = u64::from_le_bytes(w[8..].try_into().unwrap());
            (lo & m0, hi & m1)
        }
        None => pack(&text[start..end]),
    }
}

#[inline(always)]
fn mix(a: u64, b: u64) -> u64 {
    let p = (a as u128).wrapping_mul(b as u128);
    (p as u64) ^ ((p >> 64) as u64)
}

impl WordCache {
    #[inline(always)]
    fn slot_hash(&self, k0: u64, k1: u64, n: usize) -> u64 {
        mix(k0 ^ self.seed.0, k1 ^ self.seed.1 ^ ((n as u64) << 56))
    }

    /// Ids and end offsets (relative to the word) of a [`Hit::Many`].
    #[inline(always)]
    pub fn values(&self, offset: u32, count: u32) -> (&[u32], &[u32]) {
        let (o, n) = (offset as usize, count as usize);
        (&self.vals[o..o + n], &self.vals[o + n..o + 2 * n])
    }

    /// The cached tokens of `word`.
    #[inline(always)]
    pub fn get(&self, word: &[u8]) -> Option<Hit> {
        self.get_at(word, 0, word.len())
    }

    /// The cached tokens of the word `text[start..end]` ([`get`](Self::get); the key is read
    /// with [`pack_at`], which may look at up to 16 bytes of `text` from `start`).
    #[inline(always)]
    pub fn get_at(&self, text: &[u8], start: usize, end: usize) -> Option<Hit> {
        let n = end - start;
        if n == 0 || n > PACKED_KEY {
            return self.get_long(&text[start..end]);
        }
        let (k0, k1) = pack_at(text, start, end);
        let mask = self.slots.len() - 1;
        let mut i = self.slot_hash(k0, k1, n) as usize & mask;
        loop {
            let s = &self.slots[i];
            if s.meta == 0 {
                return None;
            }
            if s.k0 == k0 && s.k1 == k1 && (s.meta & 0xff) as usize == n {
                let count = s.meta >> 8;
                return Some(if count == 1 { Hit::One(s.val) } else { Hit::Many { offset: s.val, count } });
            }
            i = (i + 1) & mask;
        }
    }

    /// The id of the word `text[start..end]` when the cache holds it as one token of at most
    /// 16 bytes (nearly every word of real text), else `None` (a miss, a word of several
    /// tokens or a longer one: [`get_at`](Self::get_at) tells). One compare checks both the
    /// key's length and the count of one token; no `Hit` is built.
    #[inline(always)]
    pub fn one_at(&self, text: &[u8], start: usize, end: usize) -> Option<u32> {
        let n = end.wrapping_sub(start);
        if n.wrapping_sub(1) >= PACKED_KEY {
            return None;
        }
        let (k0, k1) = pack_at(text, start, end);
        let mask = self.slots.len().wrapping_sub(1);
        let want = n as u32 | 1 << 8;
        let mut i = self.slot_hash(k0, k1, n) as usize & mask;
        loop {
            let s = self.slots.get(i)?;
            if s.k0 == k0 && s.k1 == k1 && s.meta == want {
                return Some(s.val);
            }
            if s.meta == 0 {
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    #[cold]
    fn get_long(&self, word: &[u8]) -> Option<Hit> {
        if word.len() > MAX_KEY {
            return None;
        }
        let &(offset, count) = self.long.get(word)?;
        Some(Hit::Many { offset, count })
    }

    /// Remember the tokens of `word` (byte ranges relative to it; they tile it).
    pub fn insert(&mut self, word: &[u8], tokens: &[Token]) {
        let n = word.len();
        if n == 0 || n > MAX_KEY || tokens.is_empty() || tokens.len() > 0xffff {
            return;
        }
        let many = tokens.len() > 1 || n > PACKED_KEY;
        // Room first (emptying the cache when full), then the values, then the key.
        let full = (many && self.vals.len() + 2 * tokens.len() > MAX_VALS)
            || (n > PACKED_KEY && (self.long.len() >= MAX_LONG || self.long_bytes + n > MAX_LONG_BYTES))
            || (n <= PACKED_KEY && (self.used + 1) * 2 > self.slots.len() && self.slots.len() >= MAX_SLOTS);
        if full {
            self.clear();
        }
        let val = if many {
            let o = self.vals.len() as u32;
            self.vals.extend(tokens.iter().map(|t| t.id));
            self.vals.extend(tokens.iter().map(|t| t.end));
            o
        } else {
            tokens[0].id
        };
        if n > PACKED_KEY {
            if self.long.insert(word.into(), (val, tokens.len() as u32)).is_none() {
                self.long_bytes += n;
            }
            return;
        }
        if (self.used + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let (k0, k1) = pack(word);
        let meta = n as u32 | (tokens.len() as u32) << 8;
        self.place(Slot { k0, k1, meta, val });
        self.used += 1;
    }

    fn place(&mut self, slot: Slot) {
        let mask = self.slots.len() - 1;
        let mut i = self.slot_hash(slot.k0, slot.k1, (slot.meta & 0xff) as usize) as usize & mask;
        while self.slots[i].meta != 0 {
            i = (i + 1) & mask;
        }
        self.slots[i] = slot;
    }

    fn grow(&mut self) {
        let bigger = vec![Slot::default(); self.slots.len() * 2];
        let old = std::mem::replace(&mut self.slots, bigger);
        for s in old.into_iter().filter(|s| s.meta != 0) {
            self.place(s);
        }
    }

    fn clear(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = Slot::default());
        self.used = 0;
        self.vals.clear();
        self.long.clear();
        self.long_bytes = 0;
    }
}

thread_local! {
    static CACHES: RefCell<Vec<(u64, WordCache)>> = const { RefCell::new(Vec::new()) };
}

/// Run `f` with this thread's cache for engine `id` (a fresh, unshared one if the thread's
/// caches are in use — a nested call).
pub fn with_cache<R>(id: u64, f: impl FnOnce(&mut WordCache) -> R) -> R {
    let mut f = Some(f);
    let done = CACHES.try_with(|caches| {
        let Ok(mut caches) = caches.try_borrow_mut() else {
            return None;
        };
        let pos = match caches.iter().position(|(i, _)| *i == id) {
            Some(p) => p,
            None => {
                if caches.len() >= MAX_ENGINES {
                    caches.pop();
                }
                caches.push((id, WordCache::default()));
                caches.len() - 1
            }
        };
        // Most recently used first.
        if pos != 0 {
            let e = caches.remove(pos);
            caches.insert(0, e);
        }
        Some((f.take().expect("once"))(&mut caches[0].1))
    });
    match done {
        Ok(Some(r)) => r,
        _ => (f.take().expect("not run"))(&mut WordCache::default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(c: &WordCache, w: &[u8]) -> Option<(Vec<u32>, Vec<u32>)> {
        c.get(w).map(|h| match h {
            Hit::One(id) => (vec![id], vec![w.len() as u32]),
            Hit::Many { offset, count } => {
                let (ids, ends) = c.values(offset, count);
                (ids.to_vec(), ends.to_vec())
            }
        })
    }

    #[test]
    fn packed_keys_are_unique_per_length() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut seen: HashMap<((u64, u64), usize), Vec<u8>> = HashMap::new();
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let n = 1 + (x % 16) as usize;
            // A small alphabet, so that equal prefixes and suffixes are common.
            let w: Vec<u8> = (0..n).map(|i| b"ab\0\xff"[((x >> (4 + 2 * i)) & 3) as usize]).collect();
            let prev = seen.entry((pack(&w), n)).or_insert_with(|| w.clone());
            assert_eq!(*prev, w);
            // The branch-free read of the same word inside a text (bytes after it ignored),
            // and at the text's end (fewer than 16 bytes readable).
            let mut text = vec![0xa5u8; 3];
            text.extend_from_slice(&w);
            text.extend((0..20).map(|i| (x >> (i % 60)) as u8));
            assert_eq!(pack_at(&text, 3, 3 + n), pack(&w), "{w:?}");
            assert_eq!(pack_at(&text[..3 + n], 3, 3 + n), pack(&w), "{w:?}");
        }
    }

    /// `one_at` is `get_at` restricted to one-token words of at most 16 bytes.
    #[test]
    fn one_at_is_get_at_of_one_token() {
        let mut c = WordCache::default();
        let text = b"xabcdefghijklmnopqrstuvwxyz".repeat(3);
        for start in 0..20 {
            for end in start + 1..start + 20 {
                let w = &text[start..end];
                let toks: Vec<Token> = if (start + end) % 3 == 0 {
                    vec![Token { id: 1, start: 0, end: 1 }, Token { id: 2, start: 1, end: w.len() as u32 }]
                } else {
                    vec![Token { id: (start * 100 + end) as u32, start: 0, end: w.len() as u32 }]
                };
                if (start + end) % 5 != 0 && w.len() > 1 {
                    c.insert(w, &toks);
                }
            }
        }
        for start in 0..text.len() {
            for end in start..(start + 20).min(text.len()) {
                let want = match c.get_at(&text, start, end) {
                    Some(Hit::One(id)) if end - start <= PACKED_KEY => Some(id),
                    _ => None,
                };
                assert_eq!(c.one_at(&text, start, end), want, "{start}..{end}");
            }
        }
        assert_eq!(WordCache::unused().one_at(b"abc", 0, 2), None);
    }

    #[test]
    fn insert_get_grow_and_clear() {
        let mut c = WordCache::default();
        let words: Vec<String> = (0..300_000)
            .map(|i| format!("w{i}"))
            .chain((0..100).chain(MAX_KEY - 2..MAX_KEY + 3).map(|i| "y".repeat(i)))
            .collect();
        for (i, w) in words.iter().enumerate() {
            if w.is_empty() {
                continue;
            }
            let one = [Token { id: i as u32, start: 0, end: w.len() as u32 }];
            let two = [Token { id: i as u32, start: 0, end: 1 }, Token { id: 7, start: 1, end: w.len() as u32 }];
            let t: &[Token] = if i % 2 == 0 || w.len() == 1 { &one } else { &two };
            c.insert(w.as_bytes(), t);
            let want = (t.iter().map(|t| t.id).collect(), t.iter().map(|t| t.end).collect());
            if w.len() <= MAX_KEY {
                assert_eq!(get(&c, w.as_bytes()), Some(want), "{w}");
            } else {
                assert_eq!(get(&c, w.as_bytes()), None);
            }
        }
        // Bounded: the table was emptied at least once.
        assert!(c.used * 2 <= MAX_SLOTS && c.slots.len() <= MAX_SLOTS);
        assert!(get(&c, b"w0").is_none());
        // Long keys are bounded by their bytes: the cache empties before holding more.
        let mut c = WordCache::default();
        for i in 0..2 * MAX_LONG_BYTES / MAX_KEY {
            let w = format!("{i:0width$}", width = MAX_KEY);
            c.insert(w.as_bytes(), &[Token { id: 1, start: 0, end: MAX_KEY as u32 }]);
            assert!(c.long_bytes <= MAX_LONG_BYTES && c.long_bytes == c.long.len() * MAX_KEY);
            assert!(get(&c, w.as_bytes()).is_some());
        }
        assert!(c.long.len() < 2 * MAX_LONG_BYTES / MAX_KEY);
        with_cache(5, |c| c.insert(b"a", &[Token { id: 1, start: 0, end: 1 }]));
        assert!(with_cache(5, |c| c.get(b"a").is_some()));
        assert!(with_cache(6, |c| c.get(b"a").is_none()));
    }
}
