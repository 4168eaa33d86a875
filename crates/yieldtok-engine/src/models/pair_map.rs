//! [`PairMap`]: the BPE merge table, `(left id, right id) → (rank, merged id)`, as an
//! open-addressing hash table with linear probing — the innermost lookup of every merge.
//! Its keys come from the vocabulary (fixed at load), so a fixed multiplicative hash is safe:
//! text cannot add entries or lengthen probe chains.

/// No rank (the pair does not merge).
pub const NO_RANK: u32 = u32::MAX;

const EMPTY: u64 = u64::MAX;

#[derive(Clone, Copy)]
struct Slot {
    key: u64,
    rank: u32,
    merged: u32,
}

/// The merge table (see the module docs).
pub struct PairMap {
    slots: Box<[Slot]>,
    shift: u32,
    len: usize,
}

#[inline(always)]
fn key(a: u32, b: u32) -> u64 {
    ((a as u64) << 32) | b as u64
}

impl PairMap {
    /// An empty table sized for `n` entries (load factor at most 1/2).
    pub fn with_capacity(n: usize) -> Self {
        let cap = (n.max(4) * 2).next_power_of_two();
        PairMap {
            slots: vec![Slot { key: EMPTY, rank: NO_RANK, merged: 0 }; cap].into_boxed_slice(),
            shift: 64 - cap.trailing_zeros(),
            len: 0,
        }
    }

    #[inline(always)]
    fn home(&self, k: u64) -> usize {
        (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// Insert or overwrite (a later merge of the same pair replaces an earlier one, as in
    /// `tokenizers`, whose merge map is collected from the list in order).
    pub fn insert(&mut self, a: u32, b: u32, rank: u32, merged: u32) {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let k = key(a, b);
        debug_assert_ne!(k, EMPTY);
        let mask = self.slots.len() - 1;
        let mut i = self.home(k);
        loop {
            let s = &mut self.slots[i];
            if s.key == EMPTY {
                *s = Slot { key: k, rank, merged };
                self.len += 1;
                return;
            }
            if s.key == k {
                s.rank = rank;
                s.merged = merged;
                return;
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let old = std::mem::replace(self, PairMap::with_capacity(self.slots.len()));
        for s in old.slots.iter().filter(|s| s.key != EMPTY) {
            self.insert((s.key >> 32) as u32, s.key as u32, s.rank, s.merged);
        }
    }

    /// `(rank, merged id)` of the pair, if it merges.
    #[inline(always)]
    pub fn get(&self, a: u32, b: u32) -> Option<(u32, u32)> {
        let k = key(a, b);
        let mask = self.slots.len() - 1;
        let mut i = self.home(k);
        loop {
            let s = &self.slots[i];
            if s.key == k {
                return Some((s.rank, s.merged));
            }
            if s.key == EMPTY {
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    /// The rank of the pair, or [`NO_RANK`].
    #[inline(always)]
    pub fn rank(&self, a: u32, b: u32) -> u32 {
        self.get(a, b).map_or(NO_RANK, |(r, _)| r)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Every entry as `(left, right, rank, merged)`, in table order (the compact form).
    pub fn entries(&self) -> impl Iterator<Item = (u32, u32, u32, u32)> + '_ {
        self.slots.iter().filter(|s| s.key != EMPTY).map(|s| ((s.key >> 32) as u32, s.key as u32, s.rank, s.merged))
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_get_overwrite() {
        let mut m = PairMap::with_capacity(3);
        for i in 0..1000u32 {
            m.insert(i, i * 7 + 1, i, i + 5);
        }
        assert_eq!(m.len(), 1000);
        for i in 0..1000u32 {
            assert_eq!(m.get(i, i * 7 + 1), Some((i, i + 5)));
            assert_eq!(m.get(i * 7 + 1, i + 1_000_000), None);
        }
        m.insert(3, 22, 99, 100);
        assert_eq!(m.get(3, 22), Some((99, 100)));
        assert_eq!(m.len(), 1000);
        assert_eq!(m.rank(5, 5), NO_RANK);
    }
}
