//! `yieldtok demo`: the main job, on a real tokenizer. Encodes a ~160k-token document the way an
//! inference server would, and shows what yieldtok changes:
//! the same ids as `tokenizers`, faster (parallel pieces), and — while that long encode runs —
//! short requests answered in milliseconds, a progress bar, and cancellation that frees the
//! workers at once.

use std::io::Write;
use std::time::{Duration, Instant};

use yieldtok::{EncodeOptions, Output, Tokenizer};

use crate::stats::{measure, ms, percentile};

pub fn run(tok: &Tokenizer, tokens: usize) -> Result<(), String> {
    let e = |e: yieldtok::Error| e.to_string();
    println!("tokenizer: {}", tok.origin().unwrap_or("?"));
    println!(
        "  vocabulary {} tokens; engine {}; chunking: {}",
        tok.vocab_size(true),
        tok.engine(),
        tok.cut_rules().describe()
    );
    let doc = yieldtok_testkit::corpus::document_tokens(tokens, |t| tok.count(t, false)).map_err(e)?;
    println!(
        "document: {:.1} KB of {}",
        doc.len() as f64 / 1024.0,
        if yieldtok_testkit::corpus::data_dir().is_some() {
            "real airline-support conversations"
        } else {
            "generated multilingual text"
        }
    );

    let (reference, t_ref, _) = measure(|| tok.hf().encode(doc.as_str(), true));
    let reference = reference.map_err(|e| e.to_string())?;
    let (ours, t_ours, _) = measure(|| tok.encode(&doc, true));
    let ours = ours.map_err(e)?;
    let same = ours.ids == reference.get_ids() && ours.offsets == reference.get_offsets();
    println!("\n1. sync encode: {} tokens", ours.len());
    println!("   tokenizers (whole text): {:7.1} ms", ms(t_ref));
    println!(
        "   yieldtok (parallel pieces): {:4.1} ms  -> {:.2}x, ids and offsets identical: {}",
        ms(t_ours),
        ms(t_ref) / ms(t_ours),
        if same { "yes" } else { "NO" }
    );
    if !same {
        return Err("yieldtok's result differs from tokenizers'".into());
    }

    println!("\n2. async encode of the document while 20 short requests arrive every 5 ms");
    let long = tok.encode_async(doc.as_str(), EncodeOptions { output: Output::Ids, ..Default::default() });
    let handle = long.handle();
    let rt = Runner::new();
    let long_task = rt.spawn(long);
    let shorts = yieldtok_testkit::corpus::texts(20, 300, 500);
    let mut lat = Vec::new();
    for (i, s) in shorts.iter().enumerate() {
        let t = Instant::now();
        let n = rt
            .block_on(tok.encode_async(s.as_str(), EncodeOptions { output: Output::Ids, ..Default::default() }))
            .map_err(e)?
            .ids()
            .len();
        lat.push(ms(t.elapsed()));
        let p = handle.progress();
        let frac = p.done_bytes as f64 / p.total_bytes.max(1) as f64;
        print!(
            "\r   long encode [{:<30}] {:5.1}%   short request {:2}: {:3} tokens in {:5.2} ms",
            "#".repeat((frac * 30.0) as usize),
            frac * 100.0,
            i + 1,
            n,
            lat.last().unwrap()
        );
        std::io::stdout().flush().ok();
        std::thread::sleep(Duration::from_millis(5));
    }
    let ids = long_task.join().map_err(e)?.into_ids();
    println!(
        "\n   long encode done: {} ids, identical to tokenizers: {}",
        ids.len(),
        if ids == reference.get_ids() { "yes" } else { "NO" }
    );
    println!("   short requests: p50 {:.2} ms, max {:.2} ms (a FIFO thread pool would make them wait for the whole long encode)", percentile(&lat, 50.0), percentile(&lat, 100.0));

    println!("\n3. cancellation: a 10 MB encode dropped after 20 ms");
    let big = yieldtok_testkit::corpus::document(10 << 20);
    let fut = tok.encode_async(big, EncodeOptions::default());
    let h = fut.handle();
    let task = rt.spawn(fut);
    std::thread::sleep(Duration::from_millis(20));
    h.cancel();
    let t = Instant::now();
    let r = task.join();
    let after = rt.block_on(tok.encode_async("after the cancel", EncodeOptions::default())).map_err(e)?;
    println!(
        "   cancelled at {:.1}% ({:?}); next request answered {:.2} ms after the cancel ({} tokens)",
        h.progress().done_bytes as f64 * 100.0 / h.progress().total_bytes as f64,
        r.err().map(|e| e.to_string()).unwrap_or_default(),
        ms(t.elapsed()),
        after.ids().len()
    );
    Ok(())
}

/// A minimal executor for the demo: futures run on their own threads (they only wait for the
/// scheduler, which does the work).
struct Runner;

struct Task<T>(std::thread::JoinHandle<T>);
impl<T> Task<T> {
    fn join(self) -> T {
        self.0.join().expect("demo task panicked")
    }
}

impl Runner {
    fn new() -> Self {
        Runner
    }
    fn spawn<F: std::future::Future + Send + 'static>(&self, f: F) -> Task<F::Output>
    where
        F::Output: Send,
    {
        Task(std::thread::spawn(move || crate::block_on(f)))
    }
    fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        crate::block_on(f)
    }
}
