//! The engine against `tokenizers` on the engine's extra fixtures (testkit `ENGINE_EXTRA`:
//! minilm — BERT / WordPiece; mon_unigram — Metaspace / Unigram with byte fallback;
//! spm_unigram — synthetic T5-style Unigram with a Precompiled charsmap): a ~1 MB document and
//! 1000 texts of 1–4 KB, a full encode (ids, offsets, words) and ids only, against
//! `Tokenizer::encode(text, false)` (truncation and padding off, one text at a time on this
//! thread); and the load of `tokenizer.json`. Single thread, per CPU-second (the thread's CPU
//! time on unix, wall time elsewhere), the median of `--runs` runs (default 5) of each, taken
//! alternately; printed as times and as the ratio tokenizers / engine (> 1: the engine is faster).
//!
//! `cargo bench -p yieldtok-engine --bench families [-- --runs N] [--only NAME]`

use yieldtok_engine::{Engine, PieceOptions, Tokens};
use yieldtok_testkit::{corpus, fixtures};

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

fn time(f: &mut dyn FnMut()) -> f64 {
    let t = now();
    f();
    now() - t
}

/// Medians of `runs` alternating runs of `a` (the engine) and `b` (tokenizers).
fn pair(runs: usize, a: &mut dyn FnMut(), b: &mut dyn FnMut()) -> (f64, f64) {
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        ta.push(time(a));
        tb.push(time(b));
    }
    (median(ta), median(tb))
}

fn report(what: &str, bytes: usize, (e, t): (f64, f64)) {
    println!(
        "  {what:<28} engine {:>9.2} ms ({:>6.1} MB/s)   tokenizers {:>9.2} ms ({:>6.1} MB/s)   ratio {:>5.2}x",
        e * 1e3,
        bytes as f64 / e / 1e6,
        t * 1e3,
        bytes as f64 / t / 1e6,
        t / e
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let runs: usize = arg("--runs").and_then(|r| r.parse().ok()).unwrap_or(5);
    let only = arg("--only");
    let doc = corpus::document(1 << 20);
    let texts = corpus::texts(1000, 1024, 4096);
    let texts_bytes: usize = texts.iter().map(String::len).sum();
    println!(
        "families bench: {} runs, document {} bytes, {} texts ({} bytes)",
        runs,
        doc.len(),
        texts.len(),
        texts_bytes
    );
    for name in fixtures::ENGINE_EXTRA {
        if only.as_deref().is_some_and(|o| !name.contains(o)) {
            continue;
        }
        let path = fixtures::tokenizer_json(name).expect("fixture");
        let json = std::fs::read_to_string(&path).unwrap();
        let engine = Engine::from_json(&json).expect("the engine loads it");
        let mut tk = tokenizers::Tokenizer::from_file(&path).unwrap();
        tk.with_truncation(None).unwrap();
        tk.with_padding(None);
        let opts = PieceOptions::default();
        let mut out = Tokens::default();
        engine.encode(&doc, &opts, &mut out).unwrap();
        assert_eq!(out.ids, tk.encode(doc.as_str(), false).unwrap().get_ids(), "{name}: the engine must agree");
        println!("{name}: {} ({} tokens in the document)", engine.describe(), out.ids.len());
        let load = pair(runs, &mut || drop(Engine::from_json(&json).unwrap()), &mut || {
            drop(std::hint::black_box(json.parse::<tokenizers::Tokenizer>().unwrap()))
        });
        report("load tokenizer.json", json.len(), load);
        let full = pair(
            runs,
            &mut || {
                out.clear();
                engine.encode(&doc, &opts, &mut out).unwrap();
            },
            &mut || drop(std::hint::black_box(tk.encode(doc.as_str(), false).unwrap())),
        );
        report("document, full encode", doc.len(), full);
        let mut ids = Vec::new();
        let idsonly = pair(
            runs,
            &mut || {
                ids.clear();
                engine.encode_ids(&doc, &opts, &mut ids).unwrap();
            },
            &mut || {
                std::hint::black_box(tk.encode(doc.as_str(), false).unwrap().get_ids().len());
            },
        );
        report("document, ids", doc.len(), idsonly);
        let batch = pair(
            runs,
            &mut || {
                for t in &texts {
                    out.clear();
                    engine.encode(t, &opts, &mut out).unwrap();
                }
            },
            &mut || {
                for t in &texts {
                    drop(std::hint::black_box(tk.encode(t.as_str(), false).unwrap()));
                }
            },
        );
        report("1000 texts, full encode", texts_bytes, batch);
    }
}
