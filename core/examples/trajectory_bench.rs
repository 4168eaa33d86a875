//! Trajectory tokenization and packing benchmark (issue 8's workload), side by side with
//! OpenPipe ART 0.5.18 in the same run.
//!
//! ```sh
//! V=/work/scratch/venv-art/bin
//! $V/python tests/oracle/make_trajectories.py --bench -o /tmp/bench.json
//! cargo run --release --example trajectory_bench -- /tmp/bench.json --runs 5 \
//!     --art-python $V/python            # omit --art-python to time yieldtok only
//! ```
//!
//! The input is one case as `make_trajectories.py --bench` writes it (`tokenizer`, `options`,
//! `pack`, `groups`). Per run: parse the JSON bytes into groups, tokenize (all histories in
//! parallel on the core's pool), pack; wall and CPU time (`getrusage`, all threads) of each.
//! ART runs are `art_oracle.py --timing --no-chat` (single process, tokenize and pack timed
//! inside the process on ready pydantic objects), interleaved with ours. Reports medians,
//! tokens per CPU-second and per wall-second, the ratios, a linearity check (the workload
//! doubled), and memory against the input size: peak live heap (a counting allocator) and peak
//! RSS, with the parsed input dropped once tokenized, as a JSON-bytes caller has it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting live heap bytes and their high-water mark: RSS also counts
/// memory the allocator keeps after a free, this counts only what is allocated.
struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to `System` unchanged; only byte counts are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc`, passed on.
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: `p` came from `System` with layout `l` (every allocation here does).
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        // SAFETY: as for `dealloc`.
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            if new > l.size() {
                let now = LIVE.fetch_add(new - l.size(), Ordering::Relaxed) + new - l.size();
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(l.size() - new, Ordering::Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn live_mb() -> f64 {
    LIVE.load(Ordering::Relaxed) as f64 / 1e6
}
use std::time::Instant;

use serde_json::Value;
use yieldtok::trajectory::{self, PackOptions, TrajectoryOptions, TrajectoryTokenizer};

fn cpu_seconds() -> f64 {
    #[cfg(unix)]
    // SAFETY: getrusage writes into the zeroed struct we pass; RUSAGE_SELF is always valid.
    unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut u);
        let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 * 1e-6;
        t(u.ru_utime) + t(u.ru_stime)
    }
    #[cfg(not(unix))]
    {
        0.0
    }
}

fn peak_rss_mb() -> f64 {
    #[cfg(unix)]
    // SAFETY: as in `cpu_seconds`.
    unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut u);
        u.ru_maxrss as f64 / 1024.0
    }
    #[cfg(not(unix))]
    {
        0.0
    }
}

/// Resident set size now (Linux), MB.
fn rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1).and_then(|p| p.parse::<f64>().ok()))
        .map(|pages| pages * 4096.0 / 1e6)
        .unwrap_or(f64::NAN)
}

#[derive(serde::Deserialize)]
struct BenchDoc<'a> {
    #[serde(default)]
    tokenizer: Option<String>,
    #[serde(default)]
    options: Value,
    #[serde(default)]
    pack: Value,
    #[serde(borrow)]
    groups: &'a serde_json::value::RawValue,
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    if v.is_empty() {
        return f64::NAN;
    }
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

#[derive(Default, Clone, Copy)]
struct Timing {
    wall: f64,
    cpu: f64,
}

fn timed<R>(f: impl FnOnce() -> R) -> (R, Timing) {
    let (c0, t0) = (cpu_seconds(), Instant::now());
    let r = f();
    (r, Timing { wall: t0.elapsed().as_secs_f64(), cpu: cpu_seconds() - c0 })
}

struct Args {
    input: PathBuf,
    runs: usize,
    art_python: Option<PathBuf>,
    threads: usize,
}

fn args() -> Args {
    let mut it = std::env::args().skip(1);
    let mut a = Args { input: PathBuf::new(), runs: 5, art_python: None, threads: 0 };
    while let Some(x) = it.next() {
        match x.as_str() {
            "--runs" => a.runs = it.next().unwrap().parse().unwrap(),
            "--art-python" => a.art_python = Some(it.next().unwrap().into()),
            "--threads" => a.threads = it.next().unwrap().parse().unwrap(),
            "-h" | "--help" => {
                eprintln!("usage: trajectory_bench BENCH.json [--runs N] [--art-python PY] [--threads N]");
                std::process::exit(0);
            }
            _ => a.input = x.into(),
        }
    }
    assert!(!a.input.as_os_str().is_empty(), "usage: trajectory_bench BENCH.json [--runs N] [--art-python PY]");
    a
}

struct ArtRun {
    tokenize: Timing,
    pack: Timing,
    tokens: f64,
}

fn art_run(python: &Path, input: &Path) -> Option<ArtRun> {
    let root = std::env::var_os("YIELDTOK_REPO_ROOT")
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok().and_then(|d| yieldtok_testkit::fixtures::repo_root_from(&d)))
        .or_else(|| yieldtok_testkit::fixtures::repo_root_from(Path::new(env!("CARGO_MANIFEST_DIR"))));
    let Some(root) = root else {
        eprintln!(
            "cannot find the repository (tests/oracle/art_oracle.py): run from inside it or set YIELDTOK_REPO_ROOT"
        );
        return None;
    };
    let oracle = root.join("tests/oracle/art_oracle.py");
    let out = std::env::temp_dir().join(format!("trajectory-bench-art-{}.json", std::process::id()));
    let status = std::process::Command::new(python)
        .arg(&oracle)
        .arg(input)
        .args(["--timing", "--no-chat", "-o"])
        .arg(&out)
        .status()
        .ok()?;
    if !status.success() {
        eprintln!("ART oracle failed: {status}");
        return None;
    }
    // the output holds every token; only the timing is read
    #[derive(serde::Deserialize)]
    struct Out {
        timing: Value,
    }
    let file = std::fs::File::open(&out).ok()?;
    let v: Out = serde_json::from_reader(std::io::BufReader::new(file)).ok()?;
    let _ = std::fs::remove_file(&out);
    let t = &v.timing;
    let f = |k: &str| t[k].as_f64().unwrap_or(f64::NAN);
    Some(ArtRun {
        tokenize: Timing { wall: f("tokenize_s"), cpu: f("tokenize_cpu_s") },
        pack: Timing { wall: f("pack_s"), cpu: f("pack_cpu_s") },
        tokens: f("tokens"),
    })
}

fn main() {
    let a = args();
    if a.threads > 0 {
        std::env::set_var("YIELDTOK_THREADS", a.threads.to_string());
    }
    let bytes = std::fs::read(&a.input).expect("read the bench input");
    let doc: BenchDoc = serde_json::from_slice(&bytes).expect("bench input: {tokenizer, options, pack, groups}");
    let tok_name = doc.tokenizer.clone().unwrap_or_else(|| "qwen3".into());
    let tok = yieldtok::Tokenizer::from_dir(yieldtok_testkit::fixtures::dir(&tok_name).expect("tokenizer fixture"))
        .expect("tokenizer fixture");
    tok.wait_for_engine();
    let seed = doc.options["seed"].as_i64().unwrap_or(0) as i128;
    let opts = TrajectoryOptions { seed: Some(seed), ..Default::default() };
    let p = &doc.pack;
    let pack_opts = PackOptions {
        seq_len: p["seq_len"].as_u64().unwrap_or(65536) as usize,
        pad_token_id: p["pad_token_id"].as_i64().unwrap_or(-100),
        truncate_long_results: p["truncate_long_results"].as_bool().unwrap_or(true),
        advantage_balance: p["advantage_balance"].as_f64().unwrap_or(0.0),
        pack_results: p["pack_results"].as_bool().unwrap_or(true),
        seed: Some(p["seed"].as_i64().unwrap_or(0) as i128),
    };
    // the groups alone, as JSON bytes (what a caller hands over)
    let groups_json = doc.groups.get().as_bytes().to_vec();
    let inner = doc.groups.get().trim();
    let inner = &inner[1..inner.len() - 1];
    let doubled = format!("[{inner},{inner}]").into_bytes();
    drop(doc);
    drop(bytes);
    let tt = TrajectoryTokenizer::new(&tok, None).expect("chat template");
    println!(
        "yieldtok trajectory bench: {} ({:.1} MB of groups JSON), tokenizer {tok_name} (engine {}), {} threads, {} runs",
        a.input.display(),
        groups_json.len() as f64 / 1e6,
        tok.engine(),
        yieldtok::Scheduler::global().threads(),
        a.runs
    );

    let rss_before = rss_mb();
    let mut parse = Vec::new();
    let mut tokenize = Vec::new();
    let mut pack = Vec::new();
    let mut art: Vec<ArtRun> = Vec::new();
    let mut tokens = 0usize;
    let mut sampled = 0usize;
    let mut results_n = 0usize;
    let mut rows = 0usize;
    for run in 0..a.runs {
        if let Some(py) = &a.art_python {
            if let Some(r) = art_run(py, &a.input) {
                art.push(r);
            }
        }
        let r0 = rss_mb();
        let l0 = live_mb();
        PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
        let (groups, t_parse) = timed(|| trajectory::parse_groups(&groups_json).expect("parse"));
        let r1 = rss_mb();
        let (l1, pk1) = (live_mb(), PEAK.swap(LIVE.load(Ordering::Relaxed), Ordering::Relaxed) as f64 / 1e6);
        let (out, t_tok) = timed(|| tt.tokenize_trajectory_groups(&groups, &opts));
        let results = trajectory::into_results(out).expect("no errors on the bench workload");
        // The parsed input is not needed once tokenized (what a JSON-bytes caller gets).
        drop(groups);
        let r2 = rss_mb();
        let (l2, pk2) = (live_mb(), PEAK.swap(LIVE.load(Ordering::Relaxed), Ordering::Relaxed) as f64 / 1e6);
        let (packed, t_pack) = timed(|| trajectory::pack(&results, &pack_opts).expect("pack"));
        let r3 = rss_mb();
        let (l3, pk3) = (live_mb(), PEAK.load(Ordering::Relaxed) as f64 / 1e6);
        if run == 0 {
            println!(
                "heap (MB), run 0: start {l0:.0}; parse: peak {pk1:.0}, live {l1:.0}; tokenize (parsed input dropped after): peak {pk2:.0}, live {l2:.0}; pack: peak {pk3:.0}, live {l3:.0}"
            );
        }
        if run == 0 {
            println!(
                "RSS growth, run 0: parsed groups +{:.0} MB, results +{:.0} MB, packed +{:.0} MB",
                r1 - r0,
                r2 - r1,
                r3 - r2
            );
            let peak_live = pk1.max(pk2).max(pk3);
            println!(
                "heap, run 0: peak {:.0} MB over the {:.0} MB before = +{:.0} MB = {:.1}x the input JSON (target <= 3x; RSS below also counts what the allocator keeps)",
                peak_live,
                l0,
                peak_live - l0,
                (peak_live - l0) / (groups_json.len() as f64 / 1e6)
            );
            let live: usize = results
                .iter()
                .map(|r| {
                    r.token_ids.capacity() * 4
                        + r.assistant_mask.capacity()
                        + r.logprobs.capacity() * 8
                        + r.input_pos.capacity() * 4
                        + r.chat.capacity()
                        + r.extra_logprobs.iter().map(|(_, v)| v.capacity() * 8).sum::<usize>()
                })
                .sum();
            let len: usize = results.iter().map(|r| r.token_ids.len() * 17 + r.chat.len()).sum();
            println!("results: {:.1} MB allocated for {:.1} MB of data", live as f64 / 1e6, len as f64 / 1e6);
        }
        tokens = results.iter().map(|r| r.len()).sum();
        sampled = results.iter().map(|r| r.trainable_tokens()).sum();
        results_n = results.len();
        rows = packed.n_rows;
        println!(
            "run {run}: parse {:.3}s (cpu {:.3}s)  tokenize {:.3}s (cpu {:.3}s)  pack {:.3}s (cpu {:.3}s){}",
            t_parse.wall,
            t_parse.cpu,
            t_tok.wall,
            t_tok.cpu,
            t_pack.wall,
            t_pack.cpu,
            art.last()
                .filter(|_| a.art_python.is_some())
                .map(|r| format!(
                    "  | ART tokenize {:.2}s (cpu {:.2}s) pack {:.2}s (cpu {:.2}s)",
                    r.tokenize.wall, r.tokenize.cpu, r.pack.wall, r.pack.cpu
                ))
                .unwrap_or_default()
        );
        parse.push(t_parse);
        tokenize.push(t_tok);
        pack.push(t_pack);
        drop((results, packed));
    }
    let med = |v: &[Timing], f: fn(&Timing) -> f64| median(&mut v.iter().map(f).collect::<Vec<_>>());
    let (p_w, p_c) = (med(&parse, |t| t.wall), med(&parse, |t| t.cpu));
    let (t_w, t_c) = (med(&tokenize, |t| t.wall), med(&tokenize, |t| t.cpu));
    let (k_w, k_c) = (med(&pack, |t| t.wall), med(&pack, |t| t.cpu));
    let n = tokens as f64;
    println!("\nworkload: {results_n} results, {tokens} tokens, {sampled} trainable tokens, packed into {rows} rows");
    println!("medians (yieldtok):");
    println!("  parse JSON bytes    {:>7.3}s wall {:>7.3}s cpu", p_w, p_c);
    println!(
        "  tokenize            {:>7.3}s wall {:>7.3}s cpu  = {:>6.2}M tokens/s wall, {:>6.2}M tokens/cpu-s",
        t_w,
        t_c,
        n / t_w / 1e6,
        n / t_c / 1e6
    );
    println!(
        "  bytes -> results    {:>7.3}s wall {:>7.3}s cpu  = {:>6.2}M tokens/s wall (parse share {:.0}%)",
        p_w + t_w,
        p_c + t_c,
        n / (p_w + t_w) / 1e6,
        100.0 * p_w / (p_w + t_w)
    );
    println!("  pack                {:>7.3}s wall {:>7.3}s cpu", k_w, k_c);
    if !art.is_empty() {
        let a_tw = median(&mut art.iter().map(|r| r.tokenize.wall).collect::<Vec<_>>());
        let a_tc = median(&mut art.iter().map(|r| r.tokenize.cpu).collect::<Vec<_>>());
        let a_kw = median(&mut art.iter().map(|r| r.pack.wall).collect::<Vec<_>>());
        let a_kc = median(&mut art.iter().map(|r| r.pack.cpu).collect::<Vec<_>>());
        let a_n = art[0].tokens;
        if (a_n - n).abs() > 0.5 {
            println!("  WARNING: ART produced {a_n} tokens, yieldtok {n}");
        }
        println!("medians (ART 0.5.18, one process, {} runs):", art.len());
        println!(
            "  tokenize            {:>7.3}s wall {:>7.3}s cpu  = {:>6.3}M tokens/s wall, {:>6.3}M tokens/cpu-s",
            a_tw,
            a_tc,
            a_n / a_tw / 1e6,
            a_n / a_tc / 1e6
        );
        println!("  pack                {:>7.3}s wall {:>7.3}s cpu", a_kw, a_kc);
        println!("ratios (yieldtok vs ART):");
        println!("  tokenize: {:.1}x tokens per CPU-second, {:.1}x wall", a_tc / t_c, a_tw / t_w);
        println!(
            "  tokenize from JSON bytes (parse included): {:.1}x per CPU-second, {:.1}x wall",
            a_tc / (p_c + t_c),
            a_tw / (p_w + t_w)
        );
        println!("  pack: {:.1}x per CPU-second, {:.1}x wall", a_kc / k_c, a_kw / k_w);
    }

    let peak = peak_rss_mb() * 1.048_576;
    // linearity: the workload twice over
    let mut lin = Vec::new();
    for _ in 0..a.runs.clamp(1, 3) {
        let (groups, t) = timed(|| trajectory::parse_groups(&doubled).unwrap());
        let (out, t2) = timed(|| tt.tokenize_trajectory_groups(&groups, &opts));
        let results = trajectory::into_results(out).unwrap();
        let (_, t3) = timed(|| trajectory::pack(&results, &pack_opts).unwrap());
        lin.push(t.cpu + t2.cpu + t3.cpu);
    }
    let single = p_c + t_c + k_c;
    let double = median(&mut lin);
    println!("linearity: doubled workload {:.3} cpu-s vs {:.3} single = {:.2}x", double, single, double / single);
    let mb = groups_json.len() as f64 / 1e6;
    println!(
        "memory: RSS {:.0} MB before the runs (tokenizer, input bytes), peak {:.0} MB during them: +{:.0} MB = {:.1}x the {:.1} MB input JSON",
        rss_before,
        peak,
        peak - rss_before,
        (peak - rss_before) / mb,
        mb
    );
}
