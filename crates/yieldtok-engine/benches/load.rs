//! Load time and resident memory per loaded tokenizer, side by side in one run: the engine
//! from `tokenizer.json` text, the engine from its compact form (`Engine::from_bytes`),
//! `tokenizers` 0.23.2 (`Tokenizer::from_str`) and fastokens 0.3.5 (`serde_json` parse +
//! `Tokenizer::from_json`), all from bytes already in memory. Medians of `--runs` runs (default
//! 7) of process CPU time (all threads; steadier than wall time on a shared machine).
//! Resident memory: the growth of the resident set (`/proc/self/statm`) from loading one
//! tokenizer and keeping it, each measured in a fresh child process that reads its input from
//! a file the parent wrote (so no allocator state carries over), with the input bytes already
//! resident and dropped before the second reading.
//!
//! ```text
//! cargo bench -p yieldtok-engine --bench load -- [--runs N] [fixture ...]
//! ```

use std::time::Duration;

use yieldtok_engine::Engine;
use yieldtok_testkit::fixtures;

const KINDS: [&str; 4] = ["engine json", "engine compact", "tokenizers", "fastokens"];

fn cpu_time() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid out-pointer for clock_gettime.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// The input of `kind` for `name`, as bytes in memory.
fn input(kind: &str, name: &str) -> Vec<u8> {
    let json = std::fs::read_to_string(fixtures::tokenizer_json(name).expect("fixture")).unwrap();
    match kind {
        "engine compact" => Engine::from_json(&json).unwrap().to_bytes().unwrap(),
        "fastokens" => fixtures::dense_for_fastokens(&json).to_string().into_bytes(),
        _ => json.into_bytes(),
    }
}

/// Load once; the loaded tokenizer is returned boxed (kept alive by the caller), or `None` if
/// the library refuses the file.
fn load(kind: &str, bytes: &[u8]) -> Option<Box<dyn std::any::Any>> {
    let text = || std::str::from_utf8(bytes).unwrap();
    match kind {
        "engine json" => Some(Box::new(Engine::from_json(text()).unwrap())),
        "engine compact" => Some(Box::new(Engine::from_bytes(bytes).unwrap())),
        "tokenizers" => Some(Box::new(text().parse::<tokenizers::Tokenizer>().unwrap())),
        _ => {
            let v: serde_json::Value = serde_json::from_str(text()).unwrap();
            fastokens::Tokenizer::from_json(v).ok().map(|t| Box::new(t) as Box<dyn std::any::Any>)
        }
    }
}

fn rss_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

/// In a child: load `kind` of `name` once and print the resident growth.
fn child(kind: &str, path: &str) {
    let bytes = std::fs::read(path).unwrap();
    let before = rss_bytes();
    let kept = load(kind, &bytes);
    drop(bytes);
    let after = rss_bytes();
    println!("{}", if kept.is_some() { after as i64 - before as i64 } else { -1 });
    std::hint::black_box(kept);
}

fn main() {
    std::env::set_var("FASTOKENS_BPE_THREADS", "1");
    std::env::set_var("TOKENIZERS_PARALLELISM", "false");
    let mut args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    if args.first().map(String::as_str) == Some("--child") {
        return child(&args[1], &args[2]);
    }
    let mut runs = 7;
    if let Some(i) = args.iter().position(|a| a == "--runs") {
        runs = args[i + 1].parse().expect("--runs N");
        args.drain(i..i + 2);
    }
    let names: Vec<&str> = if args.is_empty() {
        fixtures::NAMES.to_vec()
    } else {
        fixtures::NAMES.iter().copied().filter(|n| args.iter().any(|a| a == n)).collect()
    };
    println!("load: median of {runs} runs, CPU ms; resident growth per loaded tokenizer, MB");
    println!(
        "{:<12} {:>14} {:>14} {:>14} {:>14}   compact vs: json  tokenizers  fastokens",
        "fixture", KINDS[0], KINDS[1], KINDS[2], KINDS[3]
    );
    for name in names {
        let mut ms = Vec::new();
        let mut mem = Vec::new();
        for kind in KINDS {
            let bytes = input(kind, name);
            let mut times = Vec::new();
            let mut refused = false;
            for _ in 0..runs {
                let t = cpu_time();
                let kept = load(kind, &bytes);
                times.push((cpu_time() - t).as_secs_f64() * 1e3);
                refused |= kept.is_none();
                drop(kept);
            }
            ms.push(if refused { f64::NAN } else { median(times) });
            let path = std::env::temp_dir().join(format!("yieldtok-load-bench-{}", std::process::id()));
            std::fs::write(&path, &bytes).unwrap();
            let out = std::process::Command::new(std::env::current_exe().unwrap())
                .args(["--child", kind, path.to_str().unwrap()])
                .output()
                .expect("child");
            let _ = std::fs::remove_file(&path);
            let growth: i64 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap_or(-1);
            mem.push(if growth < 0 { f64::NAN } else { growth as f64 / 1e6 });
        }
        let cell = |i: usize| format!("{:.1} ms {:.0} MB", ms[i], mem[i]);
        println!(
            "{name:<12} {:>14} {:>14} {:>14} {:>14}   {:>5.1}x {:>8.1}x {:>9.1}x",
            cell(0),
            cell(1),
            cell(2),
            cell(3),
            ms[0] / ms[1],
            ms[2] / ms[1],
            ms[3] / ms[1]
        );
    }
}
