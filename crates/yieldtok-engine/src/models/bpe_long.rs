//! BPE merges for long words (more than [`super::bpe::SHORT_WORD`] symbols): the same order as
//! `tokenizers`' priority queue (lowest rank first, leftmost among equal ranks) in O(n log n)
//! time and about 9–13 bytes of memory per symbol, interruptible.
//!
//! Symbols stay at their initial index; a merge marks the right one dead. Per index: the
//! current id and the rank of the pair it starts (or none). A min-tree over blocks of
//! [`BLOCK`] ranks finds the next merge; the neighbours of a symbol are found by skipping dead
//! indices (at most the length of a token). The cancel flag is read every
//! [`CANCEL_EVERY`] merges.

use std::sync::atomic::{AtomicBool, Ordering};

use super::bpe::{Bpe, Units};
use super::pair_map::NO_RANK;
use super::Token;
use crate::error::EncodeError;

const DEAD: u32 = u32::MAX;
const BLOCK: usize = 16;
/// Merges between two reads of the cancel flag.
pub const CANCEL_EVERY: usize = 4096;

fn cancelled(cancel: Option<&AtomicBool>) -> bool {
    cancel.is_some_and(|c| c.load(Ordering::Relaxed))
}

struct MinTree {
    /// Leaves at `size..size + blocks`: the minimum rank of each block; internal nodes the
    /// minimum of their children.
    tree: Vec<u32>,
    size: usize,
}

impl MinTree {
    fn new(ranks: &[u32]) -> Self {
        let blocks = ranks.len().div_ceil(BLOCK).max(1);
        let size = blocks.next_power_of_two();
        let mut tree = vec![NO_RANK; 2 * size];
        for (b, chunk) in ranks.chunks(BLOCK).enumerate() {
            tree[size + b] = chunk.iter().copied().min().unwrap_or(NO_RANK);
        }
        for i in (1..size).rev() {
            tree[i] = tree[2 * i].min(tree[2 * i + 1]);
        }
        MinTree { tree, size }
    }

    /// The block holding the leftmost minimum, and that minimum (None when nothing merges).
    fn min_block(&self) -> Option<(usize, u32)> {
        let r = self.tree[1];
        if r == NO_RANK {
            return None;
        }
        let mut i = 1;
        while i < self.size {
            i = if self.tree[2 * i] == r { 2 * i } else { 2 * i + 1 };
        }
        Some((i - self.size, r))
    }

    fn update(&mut self, ranks: &[u32], block: usize) {
        let lo = block * BLOCK;
        let hi = (lo + BLOCK).min(ranks.len());
        let mut m = ranks[lo..hi].iter().copied().min().unwrap_or(NO_RANK);
        let mut i = self.size + block;
        if self.tree[i] == m {
            return;
        }
        self.tree[i] = m;
        while i > 1 {
            let sib = self.tree[i ^ 1];
            i /= 2;
            m = m.min(sib);
            if self.tree[i] == m {
                return;
            }
            self.tree[i] = m;
        }
    }
}

/// Tokenize a long word (see the module docs); tokens appended to `out`. `syms`: its initial
/// symbols `(id, byte length)` under [`Units::Chars`] (`None` under [`Units::Bytes`], where
/// symbol k is byte k).
pub fn tokenize_long(
    bpe: &Bpe,
    word: &str,
    syms: Option<Vec<(u32, u32)>>,
    out: &mut Vec<Token>,
    cancel: Option<&AtomicBool>,
) -> Result<(), EncodeError> {
    // Initial symbols: ids, and (chars) the start of each symbol.
    let mut ids: Vec<u32> = Vec::new();
    let mut starts: Vec<u32> = Vec::new();
    match syms {
        None => {
            debug_assert_eq!(bpe.units(), Units::Bytes);
            ids.reserve_exact(word.len());
            bpe.initial_symbols(word, |id, _| ids.push(id));
        }
        Some(syms) => {
            ids.reserve_exact(syms.len());
            starts.reserve_exact(syms.len() + 1);
            let mut pos = 0u32;
            for (id, len) in syms {
                ids.push(id);
                starts.push(pos);
                pos += len;
            }
            starts.push(pos);
        }
    }
    if cancelled(cancel) {
        return Err(EncodeError::Cancelled);
    }
    let n = ids.len();
    let merges = bpe.merges();
    let mut ranks: Vec<u32> = Vec::with_capacity(n);
    ranks.extend(ids.windows(2).map(|w| merges.rank(w[0], w[1])));
    ranks.push(NO_RANK);
    let mut tree = MinTree::new(&ranks);

    let next_alive = |ids: &[u32], mut k: usize| {
        while k < n && ids[k] == DEAD {
            k += 1;
        }
        k
    };
    let mut merges_done = 0usize;
    while let Some((block, r)) = tree.min_block() {
        let lo = block * BLOCK;
        let k = lo + ranks[lo..(lo + BLOCK).min(n)].iter().position(|&x| x == r).expect("tree out of date");
        let j = next_alive(&ids, k + 1);
        let (_, m) = merges.get(ids[k], ids[j]).expect("ranked pair without a merge");
        ids[k] = m;
        ids[j] = DEAD;
        ranks[j] = NO_RANK;
        let after = next_alive(&ids, j + 1);
        ranks[k] = if after < n { merges.rank(m, ids[after]) } else { NO_RANK };
        tree.update(&ranks, k / BLOCK);
        if j / BLOCK != k / BLOCK {
            tree.update(&ranks, j / BLOCK);
        }
        if let Some(p) = (0..k).rev().find(|&p| ids[p] != DEAD) {
            ranks[p] = merges.rank(ids[p], m);
            tree.update(&ranks, p / BLOCK);
        }
        merges_done += 1;
        if merges_done.is_multiple_of(CANCEL_EVERY) && cancelled(cancel) {
            return Err(EncodeError::Cancelled);
        }
    }

    let mut k = next_alive(&ids, 0);
    while k < n {
        let nx = next_alive(&ids, k + 1);
        let (start, end) = if starts.is_empty() { (k as u32, nx as u32) } else { (starts[k], starts[nx]) };
        out.push(Token { id: ids[k], start, end });
        k = nx;
    }
    Ok(())
}
