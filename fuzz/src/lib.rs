//! The properties the fuzz targets check, one module per target, each a `check(data)` that
//! panics when its property fails. Two drivers call them:
//! - `fuzz_targets/*.rs`, libFuzzer entry points of a few lines (feature `libfuzzer`, built by
//!   cargo-fuzz on nightly): `scripts/fuzz.sh` fuzzes each for a bounded time;
//! - `tests/corpus.rs`, a plain test on stable that `cargo test --workspace` runs: every kept
//!   input of `corpus/<target>/` (the found bugs' regression inputs among them), the fixtures'
//!   chat templates, and a fixed number of seeded mutations of each ([`mutations`]).

pub mod targets {
    pub mod chunked_encode;
    pub mod tag_scanner;
    pub mod template_render;
    pub mod trajectory_parse;
}

/// `n` variants of `input` for the stable corpus test, the same on every run (seeded by `seed`):
/// each applies one to four of libFuzzer's simplest mutations (flip a bit, set a byte to an
/// interesting value, insert or erase a run, duplicate a slice, splice in a token of `dict`). No
/// coverage guidance: a cheap check between fuzzing runs, not a replacement for them.
pub fn mutations(input: &[u8], dict: &[&[u8]], seed: u64, n: usize) -> Vec<Vec<u8>> {
    let mut state = seed ^ 0x9E37_79B9_7F4A_7C15;
    let mut next = move |bound: usize| {
        // xorshift64*: small, fast, and enough for picking mutations
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) as usize % bound.max(1)
    };
    const INTERESTING: [u8; 12] = [0, 1, b'\n', b' ', b'{', b'}', b'%', b'"', 0x7f, 0x80, 0xc3, 0xff];
    (0..n)
        .map(|_| {
            let mut v = input.to_vec();
            for _ in 0..1 + next(4) {
                let at = next(v.len() + 1);
                match next(6) {
                    0 if at < v.len() => v[at] ^= 1 << next(8),
                    1 if at < v.len() => v[at] = INTERESTING[next(INTERESTING.len())],
                    2 => {
                        let len = 1 + next(8);
                        v.splice(at..at, std::iter::repeat_n(INTERESTING[next(INTERESTING.len())], len));
                    }
                    3 if at < v.len() => {
                        let end = (at + 1 + next(16)).min(v.len());
                        v.drain(at..end);
                    }
                    4 if !v.is_empty() => {
                        let from = next(v.len());
                        let end = (from + 1 + next(32)).min(v.len());
                        let slice = v[from..end].to_vec();
                        v.splice(at..at, slice);
                    }
                    _ if !dict.is_empty() => {
                        let token = dict[next(dict.len())];
                        v.splice(at..at, token.iter().copied());
                    }
                    _ => {}
                }
            }
            v
        })
        .collect()
}
