//! Timing helpers for the benchmarks: wall and process CPU time, medians and percentiles.

use std::time::{Duration, Instant};

/// Process CPU time (user + system, all threads).
pub fn cpu_time() -> Duration {
    // SAFETY: getrusage writes into the struct we pass; RUSAGE_SELF is always valid.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// Wall and CPU time of `f`.
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, Duration, Duration) {
    let c0 = cpu_time();
    let t0 = Instant::now();
    let out = f();
    (out, t0.elapsed(), cpu_time() - c0)
}

pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    if v.is_empty() {
        return f64::NAN;
    }
    v[v.len() / 2]
}

/// The `p`-th percentile (0..=100) by nearest rank.
pub fn percentile(v: &[f64], p: f64) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    if v.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * v.len() as f64).ceil().max(1.0) as usize;
    v[rank.min(v.len()) - 1]
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
