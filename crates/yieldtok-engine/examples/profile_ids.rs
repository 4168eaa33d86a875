//! One engine, one input, repeated — a target for callgrind that compares the engine with
//! standalone fastokens by instruction counts (repeatable on a shared machine):
//!
//! ```text
//! valgrind --tool=callgrind --toggle-collect='*measured*' \
//!   target/release/examples/profile_ids <fixture> <ids|full|fast> <doc|batch> [repeats]
//! ```
//!
//! `doc`: the ~160k-token document; `batch`: 1000 texts of 1–4 KB (the inputs of
//! `benches/engines.rs`). One warm-up pass (word caches), then `repeats` measured passes.
//! `fast` is fastokens 0.3.5's `encode_with_special_tokens(text, false)` (ids only, one
//! thread: `FASTOKENS_BPE_THREADS=1`).

use yieldtok_engine::{Engine, PieceOptions, Tokens};
use yieldtok_testkit::{corpus, fixtures};

// One value per run: the size of its variants does not matter.
#[allow(clippy::large_enum_variant)]
enum Which {
    Own(Engine, bool),
    Fast(fastokens::Tokenizer),
}

#[inline(never)]
fn measured(which: &Which, texts: &[String], repeats: usize) -> usize {
    let opts = PieceOptions::default();
    let mut n = 0;
    let mut out = Tokens::default();
    let mut ids = Vec::new();
    for _ in 0..repeats {
        for t in texts {
            match which {
                Which::Own(e, false) => {
                    ids.clear();
                    e.encode_ids(t, &opts, &mut ids).unwrap();
                    n += ids.len();
                }
                Which::Own(e, true) => {
                    out.clear();
                    e.encode(t, &opts, &mut out).unwrap();
                    n += out.ids.len();
                }
                Which::Fast(f) => n += f.encode_with_special_tokens(t, false).unwrap().len(),
            }
        }
    }
    n
}

fn main() {
    std::env::set_var("FASTOKENS_BPE_THREADS", "1");
    let args: Vec<String> = std::env::args().collect();
    let name = args.get(1).map_or("qwen3", String::as_str);
    let mode = args.get(2).map_or("ids", String::as_str);
    let input = args.get(3).map_or("doc", String::as_str);
    let repeats = args.get(4).map_or(1, |s| s.parse().unwrap());
    // Say which text is measured: figures from the generated text are not comparable with
    // figures from the real conversations.
    match corpus::data_dir() {
        Some(d) => eprintln!("profile_ids: real text from {}", d.display()),
        None => eprintln!(
            "profile_ids: WARNING: shared/data not found (set YIELDTOK_DATA): measuring the GENERATED text, \
             not the real conversations"
        ),
    }
    let json = std::fs::read_to_string(fixtures::tokenizer_json(name).unwrap()).unwrap();
    let engine = Engine::from_json(&json).unwrap();
    let texts = match input {
        "doc" => vec![corpus::document_tokens(160_000, |t| engine.count(t, &PieceOptions::default())).unwrap()],
        _ => corpus::texts(1000, 1024, 4096),
    };
    // `PROFILE_TEXTS=n`: only the first n texts (a smaller working set of distinct words).
    let mut texts = texts;
    if let Some(n) = std::env::var("PROFILE_TEXTS").ok().and_then(|v| v.parse().ok()) {
        texts.truncate(n);
    }
    let which = match mode {
        "fast" => Which::Fast(fastokens::Tokenizer::from_json(fixtures::dense_for_fastokens(&json)).unwrap()),
        m => Which::Own(engine, m == "full"),
    };
    let bytes: usize = texts.iter().map(String::len).sum();
    let warm = measured(&which, &texts, 1);
    let (p0, t0) = (cpu(libc::CLOCK_PROCESS_CPUTIME_ID), cpu(libc::CLOCK_THREAD_CPUTIME_ID));
    let t = std::time::Instant::now();
    let n = measured(&which, &texts, repeats);
    let dt = t.elapsed().as_secs_f64();
    let (dp, dtt) = (cpu(libc::CLOCK_PROCESS_CPUTIME_ID) - p0, cpu(libc::CLOCK_THREAD_CPUTIME_ID) - t0);
    let mbs = |s: f64| (bytes * repeats) as f64 / s / 1e6;
    println!(
        "{name} {mode} {input}: {warm} tokens, {bytes} bytes; MB/s per process CPU-s {:.1}, per thread CPU-s {:.1}, wall {:.1}; {:.1} M tokens per process CPU-s",
        mbs(dp),
        mbs(dtt),
        mbs(dt),
        n as f64 / dp / 1e6
    );
}

fn cpu(clock: libc::clockid_t) -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid out-pointer for clock_gettime.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}
