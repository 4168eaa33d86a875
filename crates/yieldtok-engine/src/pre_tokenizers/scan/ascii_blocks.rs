//! The ASCII fast path of the cl100k-style scanners (Llama 3, Qwen2/3), of o200k and of
//! DeepSeek-V3 (their rules: [`o200k_starts`], [`deepseek_starts`]): 64 bytes at a time, each
//! byte class as a bit mask, the pre-token starts of the whole block computed with bit
//! operations (no branch per pre-token). It starts at a known pre-token start `i` and returns
//! how far the starts it found are certain; the scalar scanners do the rest, and
//! both give the same pre-tokens (the scanner tests run both; `tests/scan_*.rs`).
//!
//! Classes: L letters, D digits, SP `' '`, WT `\t \v \f`, NL `\r \n`, Q `'`, P the other ASCII
//! chars (punctuation, symbols, controls). The pattern's matches, seen from their starts, obey
//! these rules (position j, the previous char at j-1; "start" = a pre-token starts there):
//!
//! * P or Q starts iff the previous char is L, D, NL or WT (after SP it joins ` ?[^\s…]+`,
//!   after P or Q it continues the run; an NL run after P is that pre-token's `[\r\n]*` tail).
//! * L starts iff the previous char is D or NL, or P/Q that does not start (a P/Q that starts
//!   is the `[^\r\n\p{L}\p{N}]?` prefix of the letters, and SP/WT always are: the last char of
//!   a white-space run before a non-space starts a pre-token), or a contraction ends at j.
//! * A contraction `'s 't 'm 'd 're 've 'll` (either case) is matched at a Q that starts, and
//!   the next pre-token starts right after it.
//! * D starts iff the previous char is not D, or (`\p{N}{1,3}`) at every third digit of a run.
//! * NL starts iff the previous char is L or D.
//! * SP/WT starts iff the previous char is not white space; or it is an NL of a P pre-token's
//!   tail, or the last NL of the white-space run (`\s*[\r\n]+` ends there); or the char is
//!   the last of its white-space run and a non-space follows (`\s+(?!\S)` leaves it).
//!
//! What the rules need beyond the block is not known: the starts are taken as certain up to
//! three bytes before the block's end or its first non-ASCII byte (a margin: contractions look
//! two ahead, the last rule one), and not inside a white-space run that reaches either.

/// The class masks of 64 bytes: bit k for the byte at `i + k`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Masks {
    pub l: u64,
    pub d: u64,
    pub sp: u64,
    pub wt: u64,
    pub nl: u64,
    pub q: u64,
    /// ASCII bytes of no other class.
    pub p: u64,
    /// Within `l`: `[A-Z]`.
    pub up: u64,
    /// Within `p`: `/`.
    pub slash: u64,
    /// Within `p`: the controls that are not white space (`\0`–`\x08`, `\x0E`–`\x1F`, `\x7F`).
    pub ctrl: u64,
    /// Bytes from 0x80.
    pub non_ascii: u64,
    /// The contraction letters: `[stmdSTMD]`, `[rvRV]`, `[eE]`, `[lL]`.
    pub c1: u64,
    pub rv: u64,
    pub e: u64,
    pub ll: u64,
}

/// Positions of `runs` at or after the first bit of `n` in the same run (`n` within `runs`).
#[inline(always)]
fn smear(n: u64, runs: u64) -> u64 {
    runs & ((runs ^ runs.wrapping_add(n)) | n)
}

/// The pre-token starts of the cl100k-style pattern in the block at `i` (bit 0: `i`, a known
/// start) and how many bytes of them are certain: every start at a position up to the
/// returned `limit` is right (and `limit` is a start or 0).
#[inline(always)]
pub(super) fn cl100k_starts<const MAX_DIGITS: usize>(m: &Masks) -> (u64, u32) {
    let prev = |x: u64| x << 1;
    let ws = m.sp | m.wt | m.nl;
    let w2 = m.sp | m.wt;
    let pq = m.p | m.q;
    let start_pq = pq & (prev(m.l | m.d | m.nl | m.wt) | 1);
    let start_l = m.l & !prev(m.l | w2 | start_pq);
    let contraction_end = if m.q != 0 {
        let qs = m.q & start_pq;
        let one = qs & (m.c1 >> 1);
        let two = qs & ((m.rv >> 1) & (m.e >> 2) | (m.ll >> 1) & (m.ll >> 2));
        one << 2 | two << 3
    } else {
        0
    };
    let start_d = if MAX_DIGITS == 1 { m.d } else { m.d & !prev(m.d) | digit_chunks(m.d) };
    let start_nl = m.nl & prev(m.l | m.d);
    let tail = smear(m.nl & !prev(m.nl) & prev(pq), m.nl);
    let after_last_nl = ws & !smear(m.nl.reverse_bits(), ws.reverse_bits()).reverse_bits();
    let start_w2 = w2 & (!prev(ws) | prev(m.nl) & (prev(tail) | after_last_nl) | prev(w2) & (!ws >> 1));
    let starts = start_pq | start_l | contraction_end | start_d | start_nl | start_w2 | 1;
    (starts, certain_limit(m, ws, starts))
}

/// The pre-token starts of the o200k pattern in the block at `i` (as [`cl100k_starts`]). In
/// ASCII its two letter alternatives are `[A-Z]*[a-z]+` and `[A-Z]+`, each with an optional
/// contraction: so a letter also starts where a lower-case letter precedes an upper-case one;
/// an apostrophe right after a letter (not itself a suffix's) followed by a contraction's
/// letters ends that word's pre-token (a suffix, not a start); and a punctuation pre-token's
/// tail is `[\r\n/]*`, whose chars do not start.
#[inline(always)]
pub(super) fn o200k_starts(m: &Masks) -> (u64, u32) {
    let prev = |x: u64| x << 1;
    let ws = m.sp | m.wt | m.nl;
    let w2 = m.sp | m.wt;
    let pq = m.p | m.q;
    let (suffix_q, suffix_body, suffix_end) = if m.q != 0 {
        let after_letter = m.q & prev(m.l);
        let mut one = after_letter & (m.c1 >> 1);
        let mut two = after_letter & ((m.rv >> 1) & (m.e >> 2) | (m.ll >> 1) & (m.ll >> 2));
        if (one | two) & prev(one << 1 | two << 2) != 0 {
            // A chain (`x's't`): an apostrophe right after a suffix's last letter is no suffix
            // (a word has one optional contraction) but the prefix of the next word. In order:
            let (mut accepted_one, mut accepted_two, mut blocked) = (0u64, 0u64, 0u64);
            let mut candidates = one | two;
            while candidates != 0 {
                let bit = candidates & candidates.wrapping_neg();
                candidates &= candidates - 1;
                if blocked & bit != 0 {
                    continue;
                }
                if one & bit != 0 {
                    accepted_one |= bit;
                    blocked |= bit << 2;
                } else {
                    accepted_two |= bit;
                    blocked |= bit << 3;
                }
            }
            (one, two) = (accepted_one, accepted_two);
        }
        (one | two, one << 1 | two << 1 | two << 2, one << 2 | two << 3)
    } else {
        (0, 0, 0)
    };
    let tail = smear(m.nl & prev(pq), m.nl | m.slash);
    let start_pq = pq & (prev(m.l | m.d | m.nl | m.wt | tail) | 1) & !suffix_q & !tail;
    let lower = m.l & !m.up;
    let start_l = m.l & (!prev(m.l | w2 | start_pq) | prev(lower) & m.up) & !suffix_body;
    let start_d = m.d & !prev(m.d) | digit_chunks(m.d);
    let start_nl = m.nl & prev(m.l | m.d);
    let after_last_nl = ws & !smear(m.nl.reverse_bits(), ws.reverse_bits()).reverse_bits();
    let start_w2 = w2 & (!prev(ws) | prev(m.nl) & (prev(tail) | after_last_nl) | prev(w2) & (!ws >> 1));
    let starts = start_pq | start_l | suffix_end | start_d | start_nl | start_w2 | 1;
    (starts, certain_limit(m, ws, starts))
}

/// The pre-token starts of DeepSeek-V3's three Splits in the block at `i` (as
/// [`cl100k_starts`]). In ASCII: digits are pieces of up to three (the char after them starts
/// a pre-token, and a white-space run before them ends its piece, so its last char stays in
/// it); punctuation and symbols take one ASCII-letter run after them (`[!"#…~][A-Za-z]+`) or
/// run on with a `[\r\n]*` tail (an apostrophe is one of them: no contractions); the controls
/// prefix a letter run or are left unmatched, consecutive ones in one pre-token.
#[inline(always)]
pub(super) fn deepseek_starts(m: &Masks) -> (u64, u32) {
    let prev = |x: u64| x << 1;
    let ws = m.sp | m.wt | m.nl;
    let w2 = m.sp | m.wt;
    let c = m.ctrl;
    let ps = (m.p | m.q) & !c;
    let unmatched = c & !(m.l >> 1);
    let start_ps = ps & (prev(m.l | m.d | m.nl | m.wt | c) | 1);
    let start_l = m.l & !prev(m.l | w2 | c | start_ps);
    let start_c = c & (m.l >> 1 | !prev(unmatched));
    let start_d = m.d & !prev(m.d) | digit_chunks(m.d);
    let start_nl = m.nl & prev(m.l | m.d | c);
    let tail = smear(m.nl & prev(ps), m.nl);
    let after_last_nl = ws & !smear(m.nl.reverse_bits(), ws.reverse_bits()).reverse_bits();
    let start_w2 = w2 & (!prev(ws) | prev(m.nl) & (prev(tail) | after_last_nl) | prev(w2) & (!(ws | m.d) >> 1));
    let starts = start_ps | start_l | start_c | start_d | start_nl | start_w2 | 1;
    (starts, certain_limit(m, ws, starts))
}

/// The highest start at which the block's starts are certain (see the module doc; 0: none).
#[inline(always)]
fn certain_limit(m: &Masks, ws: u64, starts: u64) -> u32 {
    let end = m.non_ascii.trailing_zeros(); // 64 if none
    let known = if end == 64 { u64::MAX } else { (1u64 << end) - 1 };
    let mut limit = end.saturating_sub(3);
    let open_ws = ws & known;
    if end > 0 && open_ws >> (end - 1) & 1 != 0 {
        // The white-space run that ends at the end: its first position.
        let run_start = end.saturating_sub((!open_ws << (64 - end)).leading_zeros());
        limit = limit.min(run_start);
    }
    let certain = starts & (u64::MAX >> (63 - limit));
    63 - certain.leading_zeros()
}

/// The starts inside digit runs longer than three (`\p{N}{1,3}`): every third digit from the
/// run's start (bit 0 starts a run: the block starts at a pre-token start).
#[inline(always)]
fn digit_chunks(d: u64) -> u64 {
    let long = d & d << 1 & d << 2 & d << 3;
    if long == 0 {
        return 0;
    }
    let mut out = 0;
    let mut runs = d & !(d << 1);
    while runs != 0 {
        let r = runs.trailing_zeros();
        runs &= runs - 1;
        let len = (!(d >> r)).trailing_zeros();
        let mut k = r + 3;
        while k < r + len {
            out |= 1 << k;
            k += 3;
        }
    }
    out
}

/// Whether `b[i..i + 32]` is ASCII (a cheap test before classifying a block).
#[inline(always)]
fn ascii_32(b: &[u8], i: usize) -> bool {
    let w = |k: usize| u64::from_le_bytes(b[i + 8 * k..i + 8 * k + 8].try_into().unwrap());
    (w(0) | w(1) | w(2) | w(3)) & 0x8080_8080_8080_8080 == 0
}

/// The patterns with an ASCII fast path.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Family {
    /// cl100k-style with `\p{N}{1,MAX_DIGITS}`.
    Cl100k,
    O200k,
    DeepSeek,
}

/// Scan the block at `i` (`i + 64 <= b.len()`, `i` a pre-token start): push the ends of the
/// pre-tokens that end at a certain start after `i` and return how far that is (0: none, or
/// not tried: the first 32 bytes are not all ASCII).
#[inline(always)]
pub(super) fn block<const MAX_DIGITS: usize, const WIDE: bool>(
    family: Family,
    b: &[u8],
    i: usize,
    ends: &mut Vec<u32>,
) -> usize {
    if !ascii_32(b, i) {
        return 0;
    }
    let m = classify::<WIDE>(b, i);
    let (starts, limit) = match family {
        Family::Cl100k => cl100k_starts::<MAX_DIGITS>(&m),
        Family::O200k => o200k_starts(&m),
        Family::DeepSeek => deepseek_starts(&m),
    };
    if limit == 0 {
        return 0;
    }
    let s = starts & (u64::MAX >> (63 - limit)) & !1;
    push_starts(ends, i as u32, s);
    limit as usize
}

/// Push `base + k` for each set bit `k` of `s`, in order (at most 63 of them: bit 0 is
/// never set), into room reserved once per block: no capacity check per end.
#[inline(always)]
fn push_starts(ends: &mut Vec<u32>, base: u32, mut s: u64) {
    debug_assert!(s & 1 == 0);
    ends.reserve(64);
    let len = ends.len();
    let room = &mut ends.spare_capacity_mut()[..64];
    let mut k = 0;
    while s != 0 {
        room[k & 63].write(base + s.trailing_zeros());
        k += 1;
        s &= s - 1;
    }
    // SAFETY: the first `k` (< 64) of the reserved slots were written just above.
    unsafe { ends.set_len(len + k) };
}

/// When the fast path advances less than this (non-ASCII text, a long run), the scanner goes
/// char by char for the next `SCALAR_STRETCH` bytes before it tries it again.
pub(super) const MIN_ADVANCE: usize = 32;
pub(super) const SCALAR_STRETCH: usize = 64;

/// Whether this target has the fast path (SSE2, part of every x86_64).
pub(super) const AVAILABLE: bool = cfg!(target_arch = "x86_64");

/// The class masks of `b[i..i + 64]`: with `WIDE` by AVX-512BW (one 64-byte register, each
/// class a compare into a mask register; only inside a function compiled for AVX-512BW
/// ([`wide`]) on a CPU that has it), else 16 bytes at a time with SSE2. Both give the same
/// masks (`simd_classes_are_the_reference`). The contraction letters are classified only
/// when the block has an apostrophe (else they are 0: unused).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn classify<const WIDE: bool>(b: &[u8], i: usize) -> Masks {
    let block: &[u8; 64] = b[i..i + 64].try_into().unwrap();
    if WIDE {
        // SAFETY: `WIDE` is set only by scanners entered through `wide` (the CPU has AVX-512BW).
        unsafe { classify_avx512(block) }
    } else {
        classify_sse2(block)
    }
}

/// Whether the scanners may take their AVX-512BW form (`WIDE`): the CPU has it (detected at
/// run time, cached by `std`).
#[inline(always)]
pub(super) fn wide() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx512bw")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// [`classify`] with AVX-512BW.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw")]
#[inline]
fn classify_avx512(block: &[u8; 64]) -> Masks {
    use core::arch::x86_64::*;
    // SAFETY: one unaligned 64-byte load inside `block`.
    let x = unsafe { _mm512_loadu_si512(block.as_ptr() as *const __m512i) };
    let set = |c: u8| _mm512_set1_epi8(c as i8);
    // Unsigned: `lo <= v <= hi` iff `v - lo <= hi - lo` (wrapping); bytes from 0x80 are in no
    // range below 0x80.
    let within = |v: __m512i, lo: u8, hi: u8| _mm512_cmple_epu8_mask(_mm512_sub_epi8(v, set(lo)), set(hi - lo));
    let eq = |v: __m512i, c: u8| _mm512_cmpeq_epi8_mask(v, set(c));
    let folded = _mm512_or_si512(x, set(0x20));
    let mut m = Masks {
        l: within(folded, b'a', b'z'),
        up: within(x, b'A', b'Z'),
        slash: eq(x, b'/'),
        ctrl: within(x, 0x00, 0x08) | within(x, 0x0E, 0x1F) | eq(x, 0x7F),
        d: within(x, b'0', b'9'),
        sp: eq(x, b' '),
        nl: eq(x, b'\n') | eq(x, b'\r'),
        wt: eq(x, 0x09) | within(x, 0x0B, 0x0C),
        q: eq(x, b'\''),
        non_ascii: _mm512_movepi8_mask(x),
        ..Masks::default()
    };
    m.p = !(m.non_ascii | m.l | m.d | m.sp | m.nl | m.wt | m.q);
    if m.q != 0 {
        m.c1 = eq(folded, b's') | eq(folded, b't') | eq(folded, b'm') | eq(folded, b'd');
        m.rv = eq(folded, b'r') | eq(folded, b'v');
        m.e = eq(folded, b'e');
        m.ll = eq(folded, b'l');
    }
    m
}

/// [`classify`] with SSE2 (part of every x86_64).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn classify_sse2(block: &[u8; 64]) -> Masks {
    use core::arch::x86_64::*;
    let mut m = Masks::default();
    // SAFETY: SSE2 is part of the x86_64 baseline; every load reads 16 bytes inside `block`.
    unsafe {
        let load = |k: usize| _mm_loadu_si128(block.as_ptr().add(16 * k) as *const __m128i);
        let set = |c: u8| _mm_set1_epi8(c as i8);
        let bits = |v: __m128i, k: usize| (_mm_movemask_epi8(v) as u32 as u64) << (16 * k);
        // Signed compares: bytes from 0x80 are negative, in no range.
        let within =
            |v: __m128i, lo: u8, hi: u8| _mm_and_si128(_mm_cmpgt_epi8(v, set(lo - 1)), _mm_cmplt_epi8(v, set(hi + 1)));
        for k in 0..4 {
            let x = load(k);
            let folded = _mm_or_si128(x, set(0x20));
            m.l |= bits(within(folded, b'a', b'z'), k);
            m.up |= bits(within(x, b'A', b'Z'), k);
            m.slash |= bits(_mm_cmpeq_epi8(x, set(b'/')), k);
            let low_ctrl = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8(-1)), _mm_cmplt_epi8(x, set(0x09)));
            let ctrl = _mm_or_si128(_mm_or_si128(low_ctrl, within(x, 0x0E, 0x1F)), _mm_cmpeq_epi8(x, set(0x7F)));
            m.ctrl |= bits(ctrl, k);
            m.d |= bits(within(x, b'0', b'9'), k);
            m.sp |= bits(_mm_cmpeq_epi8(x, set(b' ')), k);
            m.nl |= bits(_mm_or_si128(_mm_cmpeq_epi8(x, set(b'\n')), _mm_cmpeq_epi8(x, set(b'\r'))), k);
            let wt = _mm_or_si128(_mm_cmpeq_epi8(x, set(0x09)), within(x, 0x0B, 0x0C));
            m.wt |= bits(wt, k);
            m.q |= bits(_mm_cmpeq_epi8(x, set(b'\'')), k);
            m.non_ascii |= bits(x, k);
        }
        m.p = !(m.non_ascii | m.l | m.d | m.sp | m.nl | m.wt | m.q);
        if m.q != 0 {
            for k in 0..4 {
                let folded = _mm_or_si128(load(k), set(0x20));
                let eq = |c: u8| _mm_cmpeq_epi8(folded, set(c));
                let or = |a: __m128i, b: __m128i| _mm_or_si128(a, b);
                m.c1 |= bits(or(or(eq(b's'), eq(b't')), or(eq(b'm'), eq(b'd'))), k);
                m.rv |= bits(or(eq(b'r'), eq(b'v')), k);
                m.e |= bits(eq(b'e'), k);
                m.ll |= bits(eq(b'l'), k);
            }
        }
    }
    m
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(super) fn classify<const WIDE: bool>(_b: &[u8], _i: usize) -> Masks {
    unreachable!("the ASCII fast path runs only where AVAILABLE")
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES * 0x80;

    /// The high bit of each byte of `x` (a SWAR mask) packed into the low 8 bits, byte k → bit k.
    #[inline(always)]
    fn pack(m: u64) -> u64 {
        ((m & HIGH) >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
    }

    /// SWAR: the high bit of each byte of `x` that is in `lo..=hi` (`hi < 0x80`; other bits garbage,
    /// bytes from 0x80 included: callers mask them with the ASCII mask).
    #[inline(always)]
    fn within(x: u64, lo: u8, hi: u8) -> u64 {
        let low = x & !HIGH;
        (low + ONES * (128 - lo as u64)) & !(low + ONES * (127 - hi as u64))
    }

    /// The class masks of `b[i..i + 64]`, 8 bytes at a time in a `u64` (too slow to pay: the
    /// reference the SIMD forms are tested against).
    pub(super) fn classify_swar(b: &[u8], i: usize) -> Masks {
        let mut m = Masks::default();
        for w in 0..8 {
            let x = u64::from_le_bytes(b[i + 8 * w..i + 8 * w + 8].try_into().unwrap());
            let ascii = !x & HIGH;
            let folded = x | (ONES * 0x20);
            let eq = |c: u8| within(x, c, c) & ascii;
            let feq = |c: u8| within(folded, c, c) & ascii;
            let l = within(folded, b'a', b'z') & ascii;
            let d = within(x, b'0', b'9') & ascii;
            let sp = eq(b' ');
            let nl = eq(b'\n') | eq(b'\r');
            let wt = within(x, 0x09, 0x0C) & ascii & !nl;
            let q = eq(b'\'');
            let p = ascii & !(l | d | sp | nl | wt | q);
            let shift = 8 * w as u32;
            m.l |= pack(l) << shift;
            m.up |= pack(within(x, b'A', b'Z') & ascii) << shift;
            m.slash |= pack(eq(b'/')) << shift;
            m.ctrl |= pack((within(x, 0x00, 0x08) | within(x, 0x0E, 0x1F) | within(x, 0x7F, 0x7F)) & ascii) << shift;
            m.d |= pack(d) << shift;
            m.sp |= pack(sp) << shift;
            m.wt |= pack(wt) << shift;
            m.nl |= pack(nl) << shift;
            m.q |= pack(q) << shift;
            m.p |= pack(p) << shift;
            m.non_ascii |= pack(!ascii & HIGH) << shift;
            {
                m.c1 |= pack(feq(b's') | feq(b't') | feq(b'm') | feq(b'd')) << shift;
                m.rv |= pack(feq(b'r') | feq(b'v')) << shift;
                m.e |= pack(feq(b'e')) << shift;
                m.ll |= pack(feq(b'l')) << shift;
            }
        }
        m
    }

    /// The SIMD classification equals the SWAR reference on every byte value at every position
    /// (with apostrophes present, so that the contraction letters are compared too).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn simd_classes_are_the_reference() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..2000 {
            let mut block = [0u8; 64];
            for (k, byte) in block.iter_mut().enumerate() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *byte = if round < 256 { (round + k) as u8 } else { x as u8 };
            }
            block[(x >> 20) as usize % 64] = b'\'';
            let simd = classify::<false>(&block, 0);
            let mut reference = classify_swar(&block, 0);
            assert_eq!(simd, reference, "{block:?}");
            assert_eq!(classify_sse2(&block), reference, "{block:?}");
            if std::is_x86_feature_detected!("avx512bw") {
                // SAFETY: the CPU has AVX-512BW.
                assert_eq!(unsafe { classify_avx512(&block) }, reference, "{block:?}");
            }
            // Without an apostrophe the contraction letters are not classified.
            block.iter_mut().filter(|b| **b == b'\'').for_each(|b| *b = b'x');
            reference = classify_swar(&block, 0);
            reference.c1 = 0;
            reference.rv = 0;
            reference.e = 0;
            reference.ll = 0;
            assert_eq!(classify::<false>(&block, 0), reference, "{block:?}");
            assert_eq!(classify_sse2(&block), reference, "{block:?}");
            if std::is_x86_feature_detected!("avx512bw") {
                // SAFETY: the CPU has AVX-512BW.
                assert_eq!(unsafe { classify_avx512(&block) }, reference, "{block:?}");
            }
        }
    }
}
