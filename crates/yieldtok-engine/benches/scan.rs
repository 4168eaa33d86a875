//! Pre-tokenizer scanners against `fancy-regex` (the regex engine `tokenizers` splits with
//! here) on the same texts: for each scanner, its Split pattern(s) run with `find_iter` into the
//! same tiling (Isolated; DeepSeek's three patterns chained piece by piece, as `tokenizers`
//! applies them). Single thread, per CPU-second (the thread's CPU time on unix, wall time
//! elsewhere), the median of `--runs` runs (default 7) of each, taken alternately; printed as
//! MB/s and as the ratio scanner / fancy-regex.
//!
//! `cargo bench -p yieldtok-engine --bench scan [-- --runs N] [--only WORD] [--scanner-only]`
//! (`--only`: the texts and scanners whose label contains WORD; `--scanner-only` skips
//! fancy-regex: both for profiling the scanners).

use yieldtok_engine::pre_tokenizers::scan::*;
use yieldtok_testkit::corpus;

/// The tiling by the patterns, chained (the oracle's semantics), as pre-token ends.
fn regex_scan(res: &[fancy_regex::Regex], text: &str, ends: &mut Vec<u32>) {
    let mut pieces = vec![(0usize, text.len())];
    let mut next = Vec::new();
    for re in res {
        for &(s, e) in &pieces {
            let mut at = s;
            for m in re.find_iter(&text[s..e]) {
                let m = m.unwrap();
                for cut in [s + m.start(), s + m.end()] {
                    if cut > at {
                        next.push((at, cut));
                        at = cut;
                    }
                }
            }
            if e > at {
                next.push((at, e));
            }
        }
        pieces = std::mem::take(&mut next);
    }
    ends.extend(pieces.iter().map(|&(_, e)| e as u32));
}

/// Seconds of CPU time of this thread (unix), or of wall time since the first call.
fn now() -> f64 {
    #[cfg(unix)]
    {
        let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `t` is a valid timespec to write to.
        unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
        t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
    }
    #[cfg(not(unix))]
    {
        static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        START.get_or_init(std::time::Instant::now).elapsed().as_secs_f64()
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn repeat_to(base: &str, bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + base.len());
    while s.len() < bytes {
        s.push_str(base);
    }
    s
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let runs = args.iter().position(|a| a == "--runs").and_then(|i| args.get(i + 1)?.parse().ok()).unwrap_or(7usize);
    let scanner_only = args.iter().any(|a| a == "--scanner-only");
    let only = args.iter().position(|a| a == "--only").and_then(|i| args.get(i + 1)).cloned().unwrap_or_default();
    const MB: usize = 1 << 20;
    let conversations = corpus::document(2 * MB);
    let label = if corpus::real_text().is_some() { "conversations" } else { "generated" };
    let texts = [
        (label, conversations),
        ("code (this crate's test kit)", repeat_to(corpus::SOURCE, MB)),
        ("multilingual prose", repeat_to(&corpus::PROSE.join(" "), MB)),
        ("mixed (exactness corpus)", corpus::mixed(&[], 1, MB)),
    ];
    let scanners: [(&str, Vec<&str>); 4] = [
        ("qwen2", vec![QWEN2_PATTERN]),
        ("cl100k", vec![CL100K_PATTERN]),
        ("o200k", vec![O200K_PATTERN]),
        ("deepseek_v3", vec![DEEPSEEK_DIGITS_PATTERN, DEEPSEEK_CJK_PATTERN, DEEPSEEK_MAIN_PATTERN]),
    ];
    println!("pre-tokenizer scanners vs fancy-regex: median of {runs} runs, single thread");
    for (label, text) in &texts {
        if !label.contains(only.as_str()) && !scanners.iter().any(|(n, _)| n.contains(only.as_str())) {
            continue;
        }
        let ascii = text.bytes().filter(|b| b.is_ascii()).count() as f64 / text.len() as f64;
        println!("\n{label}: {:.2} MB, {:.1}% ASCII bytes", text.len() as f64 / MB as f64, 100.0 * ascii);
        println!("  {:<12} {:>12} {:>16} {:>8}", "scanner", "scanner MB/s", "fancy-regex MB/s", "ratio");
        for (name, patterns) in &scanners {
            if !label.contains(only.as_str()) && !name.contains(only.as_str()) {
                continue;
            }
            let scanner = scanner_for(patterns).unwrap();
            let res: Vec<fancy_regex::Regex> = patterns.iter().map(|p| fancy_regex::Regex::new(p).unwrap()).collect();
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let (mut ta, mut tb) = (Vec::new(), Vec::new());
            scanner.scan(text, &mut a); // warm-up (page faults of the output, caches)
            for _ in 0..runs {
                a.clear();
                let t = now();
                scanner.scan(text, &mut a);
                ta.push(now() - t);
                if scanner_only {
                    tb.push(f64::NAN);
                    continue;
                }
                b.clear();
                let t = now();
                regex_scan(&res, text, &mut b);
                tb.push(now() - t);
            }
            assert!(scanner_only || a == b, "{name} on {label}: the scanner differs from fancy-regex");
            let mbs = |t: f64| text.len() as f64 / MB as f64 / t;
            let (sa, sb) = (median(ta), median(tb));
            println!("  {:<12} {:>12.1} {:>16.1} {:>7.1}x", name, mbs(sa), mbs(sb), sb / sa);
        }
    }
}
