//! The engine against its peers, side by side in one run, single thread, per CPU-second:
//! `Engine::encode_ids` and `Engine::encode` (ids + byte offsets + words) against
//! `tokenizers` 0.23.2's `encode(text, false)` (the oracle; full `Encoding`) and fastokens
//! 0.3.5's `encode_with_special_tokens(text, false)` (ids only), on the ~160k-token document
//! and on 1000 texts of 1–4 KB. Medians of `--runs` runs (default 5); MB/s and M tokens per
//! CPU-second; ratios. Before timing, the engine's ids and offsets are checked against
//! `tokenizers` on both inputs (a benchmark of wrong results is worthless).
//!
//! ```text
//! cargo bench -p yieldtok-engine --bench engines -- [--runs N] [--general] [fixture ...]
//! ```
//!
//! `--general`: load the engine without its fast paths (`LoadOptions { fast_paths: false }`:
//! the general normalizer instead of `char_replace` and `unicode_chunks`), to measure them.
//!
//! fastokens needs a dense vocabulary: for gpt4o the gapped entries that are also added tokens
//! are removed from `model.vocab` first, as yieldtok's core does before building it.

use std::time::Duration;

use yieldtok_engine::load::LoadOptions;
use yieldtok_engine::{Engine, PieceOptions, Tokens};
use yieldtok_testkit::{corpus, fixtures};

fn cpu_time() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid out-pointer for clock_gettime.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// CPU seconds of one call of `f`.
fn timed(mut f: impl FnMut()) -> f64 {
    let t = cpu_time();
    f();
    (cpu_time() - t).as_secs_f64()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

struct Row {
    name: &'static str,
    input: &'static str,
    bytes: usize,
    tokens: usize,
    ids: f64,
    full: f64,
    hf: f64,
    fast: Option<f64>,
}

fn main() {
    // fastokens: no internal thread pool (single-thread comparison); tokenizers: no rayon.
    std::env::set_var("FASTOKENS_BPE_THREADS", "1");
    std::env::set_var("TOKENIZERS_PARALLELISM", "false");
    let mut args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let mut runs = 5;
    if let Some(i) = args.iter().position(|a| a == "--runs") {
        runs = args[i + 1].parse().expect("--runs N");
        args.drain(i..i + 2);
    }
    let fast_paths = !args.iter().any(|a| a == "--general");
    args.retain(|a| a != "--general");
    let names: Vec<&'static str> = if args.is_empty() {
        fixtures::NAMES.to_vec()
    } else {
        fixtures::NAMES.iter().copied().filter(|n| args.iter().any(|a| a == n)).collect()
    };
    let batch = corpus::texts(1000, 1024, 4096);
    let batch_bytes: usize = batch.iter().map(String::len).sum();
    let opts = PieceOptions::default();
    let mut rows = Vec::new();
    for name in names {
        let path = fixtures::tokenizer_json(name).expect("fixture");
        let json = std::fs::read_to_string(&path).unwrap();
        let load = |f: &mut dyn FnMut()| timed(f);
        let mut engine = None;
        let t_engine = load(&mut || {
            engine = Some(Engine::from_json_with(&json, LoadOptions { fast_paths }).expect("engine loads"))
        });
        let engine = engine.unwrap();
        let mut hf = None;
        let t_hf = load(&mut || hf = Some(tokenizers::Tokenizer::from_file(&path).unwrap()));
        let hf = hf.unwrap();
        let mut fast = None;
        let t_fast = load(&mut || fast = fastokens::Tokenizer::from_json(fixtures::dense_for_fastokens(&json)).ok());
        let count = |t: &str| engine.count(t, &opts);
        let doc = corpus::document_tokens(160_000, count).unwrap();
        println!(
            "{name}: load engine {:.0} ms, tokenizers {:.0} ms, fastokens {}; {}",
            t_engine * 1e3,
            t_hf * 1e3,
            if fast.is_some() { format!("{:.0} ms", t_fast * 1e3) } else { "refused".into() },
            engine.describe()
        );
        for (input, texts) in [("doc 160k tok", vec![doc.clone()]), ("1000 x 1-4 KB", batch.clone())] {
            // Exactness first.
            let mut n_tokens = 0;
            for t in &texts {
                let want = hf.encode(t.as_str(), false).unwrap();
                let mut got = Tokens::default();
                engine.encode(t, &opts, &mut got).unwrap();
                assert_eq!(got.ids, want.get_ids(), "{name}: ids differ");
                let offsets: Vec<(u32, u32)> = want.get_offsets().iter().map(|&(a, b)| (a as u32, b as u32)).collect();
                assert_eq!(got.offsets, offsets, "{name}: offsets differ");
                if let Some(f) = &fast {
                    assert_eq!(f.encode_with_special_tokens(t, false).unwrap(), got.ids, "{name}: fastokens differs");
                }
                n_tokens += got.ids.len();
            }
            let bytes: usize = if texts.len() == 1 { texts[0].len() } else { batch_bytes };
            let (mut ids_t, mut full_t, mut hf_t, mut fast_t) = (vec![], vec![], vec![], vec![]);
            let mut out = Tokens::default();
            let mut ids = Vec::new();
            for _ in 0..runs {
                ids_t.push(timed(|| {
                    for t in &texts {
                        ids.clear();
                        engine.encode_ids(t, &opts, &mut ids).unwrap();
                    }
                }));
                full_t.push(timed(|| {
                    for t in &texts {
                        out.clear();
                        engine.encode(t, &opts, &mut out).unwrap();
                    }
                }));
                hf_t.push(timed(|| {
                    for t in &texts {
                        std::hint::black_box(hf.encode(t.as_str(), false).unwrap());
                    }
                }));
                if let Some(f) = &fast {
                    fast_t.push(timed(|| {
                        for t in &texts {
                            std::hint::black_box(f.encode_with_special_tokens(t, false).unwrap());
                        }
                    }));
                }
            }
            rows.push(Row {
                name,
                input,
                bytes,
                tokens: n_tokens,
                ids: median(ids_t),
                full: median(full_t),
                hf: median(hf_t),
                fast: (!fast_t.is_empty()).then(|| median(fast_t)),
            });
            let r = rows.last().unwrap();
            print_row(r);
        }
    }
    println!("\nmedians of {runs} runs, single thread, CPU time; MB/s and M tokens per CPU-second");
    println!(
        "{:<12} {:<14} {:>9} {:>9} {:>9} {:>9} | {:>8} {:>8} {:>8} {:>8} | {:>9} {:>9} {:>9}",
        "fixture",
        "input",
        "ids MB/s",
        "full MB/s",
        "hf MB/s",
        "fast MB/s",
        "ids Mt/s",
        "full",
        "hf",
        "fast",
        "ids/fast",
        "full/ids",
        "full/hf"
    );
    for r in &rows {
        print_row(r);
    }
}

fn print_row(r: &Row) {
    let mb = |t: f64| r.bytes as f64 / t / 1e6;
    let mt = |t: f64| r.tokens as f64 / t / 1e6;
    let opt = |v: Option<f64>, f: &dyn Fn(f64) -> f64| v.map_or("-".to_string(), |t| format!("{:.1}", f(t)));
    println!(
        "{:<12} {:<14} {:>9.1} {:>9.1} {:>9.1} {:>9} | {:>8.2} {:>8.2} {:>8.2} {:>8} | {:>9} {:>9.2} {:>9.1}",
        r.name,
        r.input,
        mb(r.ids),
        mb(r.full),
        mb(r.hf),
        opt(r.fast, &mb),
        mt(r.ids),
        mt(r.full),
        mt(r.hf),
        opt(r.fast, &|t| r.tokens as f64 / t / 1e6),
        r.fast.map_or("-".to_string(), |f| format!("{:.2}x", f / r.ids)),
        r.ids / r.full,
        r.hf / r.full,
    );
}
