//! CPython's `random` module, bit for bit, for the draws ART makes: MT19937 seeded like
//! `random.seed(int)` (`init_by_array` over the 32-bit little-endian words of `abs(n)`),
//! `getrandbits`, `_randbelow` (rejection sampling on `n.bit_length()` bits),
//! `randint(-(2**63), 2**63 - 1)` and `shuffle`. With the same seed, the same sequence of calls
//! gives the same prompt ids, group ids and permutations as ART under `random.seed(seed)`.

/// Seed of a [`PyRandom`]: a Python `int` (sign ignored, as `random.seed` does) or OS entropy.
pub type Seed = Option<i128>;

const N: usize = 624;
const M: usize = 397;

/// The Mersenne Twister state behind Python's `random.Random`.
#[derive(Clone)]
pub struct PyRandom {
    mt: [u32; N],
    index: usize,
}

impl std::fmt::Debug for PyRandom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PyRandom").field("index", &self.index).finish_non_exhaustive()
    }
}

impl PyRandom {
    /// `random.Random(seed)` for an integer seed; `None` seeds from entropy (like `seed(None)`,
    /// though not from the same source).
    pub fn new(seed: Seed) -> Self {
        match seed {
            Some(n) => Self::from_int(n),
            None => Self::from_entropy(),
        }
    }

    /// `random.seed(n)`.
    pub fn from_int(n: i128) -> Self {
        let mut a = n.unsigned_abs();
        let mut key = Vec::with_capacity(4);
        while a != 0 {
            key.push(a as u32);
            a >>= 32;
        }
        if key.is_empty() {
            key.push(0);
        }
        Self::from_key(&key)
    }

    /// `init_by_array(key)` (the key of `random.seed` for larger ints: their 32-bit words,
    /// least significant first).
    pub fn from_key(key: &[u32]) -> Self {
        let mut r = PyRandom { mt: [0; N], index: N };
        r.init_genrand(19_650_218);
        let (mut i, mut j) = (1usize, 0usize);
        let len = key.len().max(1);
        let mut k = N.max(len);
        while k > 0 {
            let prev = r.mt[i - 1] ^ (r.mt[i - 1] >> 30);
            r.mt[i] = (r.mt[i] ^ prev.wrapping_mul(1_664_525))
                .wrapping_add(key.get(j).copied().unwrap_or(0))
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                r.mt[0] = r.mt[N - 1];
                i = 1;
            }
            if j >= len {
                j = 0;
            }
            k -= 1;
        }
        k = N - 1;
        while k > 0 {
            let prev = r.mt[i - 1] ^ (r.mt[i - 1] >> 30);
            r.mt[i] = (r.mt[i] ^ prev.wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                r.mt[0] = r.mt[N - 1];
                i = 1;
            }
            k -= 1;
        }
        r.mt[0] = 0x8000_0000;
        r
    }

    fn from_entropy() -> Self {
        use std::hash::{BuildHasher, Hasher};
        let mut key = Vec::with_capacity(8);
        for salt in 0..4u64 {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u64(salt);
            if let Ok(d) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
                h.write_u128(d.as_nanos());
            }
            let v = h.finish();
            key.push(v as u32);
            key.push((v >> 32) as u32);
        }
        Self::from_key(&key)
    }

    fn init_genrand(&mut self, s: u32) {
        self.mt[0] = s;
        for i in 1..N {
            self.mt[i] = 1_812_433_253u32.wrapping_mul(self.mt[i - 1] ^ (self.mt[i - 1] >> 30)).wrapping_add(i as u32);
        }
        self.index = N;
    }

    /// `genrand_uint32()`.
    pub fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            const UPPER: u32 = 0x8000_0000;
            const LOWER: u32 = 0x7fff_ffff;
            const MATRIX_A: u32 = 0x9908_b0df;
            for kk in 0..N {
                let y = (self.mt[kk] & UPPER) | (self.mt[(kk + 1) % N] & LOWER);
                let mag = if y & 1 == 1 { MATRIX_A } else { 0 };
                self.mt[kk] = self.mt[(kk + M) % N] ^ (y >> 1) ^ mag;
            }
            self.index = 0;
        }
        let mut y = self.mt[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^= y >> 18;
        y
    }

    /// `getrandbits(k)` for `1 <= k <= 128`.
    pub fn getrandbits(&mut self, k: u32) -> u128 {
        assert!((1..=128).contains(&k), "getrandbits: k out of range");
        if k <= 32 {
            return u128::from(self.next_u32() >> (32 - k));
        }
        let mut out = 0u128;
        let mut left = k;
        let mut shift = 0;
        while left > 0 {
            let mut r = self.next_u32();
            if left < 32 {
                r >>= 32 - left;
            }
            out |= u128::from(r) << shift;
            shift += 32;
            left = left.saturating_sub(32);
        }
        out
    }

    /// `_randbelow(n)` (`_randbelow_with_getrandbits`), `0 < n <= 2**127`.
    pub fn randbelow(&mut self, n: u128) -> u128 {
        assert!(n > 0, "randbelow(0)");
        let k = 128 - n.leading_zeros();
        loop {
            let r = self.getrandbits(k);
            if r < n {
                return r;
            }
        }
    }

    /// `randint(-(2**63), 2**63 - 1)`: ART's prompt ids and packing group ids.
    pub fn randint_i64(&mut self) -> i64 {
        let r = self.randbelow(1u128 << 64) as u64;
        (r ^ (1 << 63)) as i64
    }

    /// `shuffle(x)`.
    pub fn shuffle<T>(&mut self, x: &mut [T]) {
        for i in (1..x.len()).rev() {
            let j = self.randbelow(i as u128 + 1) as usize;
            x.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference values from CPython 3.11: `r = random.Random(seed)`, three
    /// `r.randint(-(2**63), 2**63-1)`, `r.shuffle(list(range(10)))`, `r.getrandbits(32)`.
    #[test]
    fn matches_cpython() {
        let cases: [(i128, [i64; 3], [usize; 10], u32); 5] = [
            (
                0,
                [-1465195632138975614, 6084712057446794809, -431710025170174585],
                [5, 4, 8, 6, 0, 1, 7, 2, 3, 9],
                1332073689,
            ),
            (
                1,
                [4865782901354085936, -7048155917072976836, -931725450029404348],
                [7, 5, 2, 4, 9, 0, 8, 1, 3, 6],
                2988579416,
            ),
            (
                12345,
                [4292285838037326215, 6551146165133617474, -5650950641291792112],
                [1, 5, 4, 8, 3, 0, 7, 2, 6, 9],
                2627529228,
            ),
            (
                (1i128 << 70) + 5,
                [-2030964297105920853, -2427436760491515510, -2024076612314552928],
                [0, 6, 2, 7, 5, 4, 3, 9, 1, 8],
                2657312255,
            ),
            (
                -7,
                [8261657684473197624, 2784249659845191438, -8531699129511414324],
                [8, 2, 5, 3, 4, 0, 7, 1, 9, 6],
                4069265501,
            ),
        ];
        for (seed, ints, perm, bits) in cases {
            let mut r = PyRandom::from_int(seed);
            let got: Vec<i64> = (0..3).map(|_| r.randint_i64()).collect();
            assert_eq!(got, ints, "seed {seed}");
            let mut x: Vec<usize> = (0..10).collect();
            r.shuffle(&mut x);
            assert_eq!(x, perm, "seed {seed}");
            assert_eq!(r.getrandbits(32) as u32, bits, "seed {seed}");
        }
    }

    #[test]
    fn entropy_seeds_differ() {
        let a = PyRandom::new(None).randint_i64();
        let b = PyRandom::new(None).randint_i64();
        assert_ne!(a, b);
    }
}
