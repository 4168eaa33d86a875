//! Encode a long prompt on a tokio runtime without blocking it, next to short requests, then
//! cancel an encode by dropping its future.
//!
//! ```bash
//! cargo run --release -p yieldtok --example tokio_encode -- .cache/fixtures/qwen3
//! ```
//!
//! The runtime is single-threaded on purpose: it stands for an inference server's one event
//! loop. `encode_async` runs the text in exact pieces on yieldtok's own worker pool, so the loop
//! keeps serving the short requests and a 1 ms ticker while the long encode runs; the ids are
//! those of the blocking `encode_ids`. The example checks that and exits non-zero otherwise.

use std::time::{Duration, Instant};

use yieldtok::{EncodeOptions, Output, Tokenizer};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args().nth(1).ok_or("usage: tokio_encode TOKENIZER_DIR")?;
    let tok = Tokenizer::from_dir(&dir)?;
    let ids_only = EncodeOptions { output: Output::Ids, ..Default::default() };

    let long = "The quick brown fox jumps over the lazy dog. Ünïcode, 東京, 🙂.\n".repeat(8_000);
    let shorts = ["Hello, world!", "How many tokens is this?", "def f(x):\n    return x + 1\n"];

    // A ticker on the same loop: its longest gap shows whether anything blocked the loop.
    let gaps = std::sync::Arc::new(std::sync::Mutex::new(Duration::ZERO));
    let probe = {
        let gaps = gaps.clone();
        tokio::spawn(async move {
            let mut last = Instant::now();
            loop {
                tokio::time::sleep(Duration::from_millis(1)).await;
                let mut worst = gaps.lock().unwrap();
                *worst = (*worst).max(last.elapsed());
                last = Instant::now();
            }
        })
    };

    let started = Instant::now();
    let long_encode = tok.encode_async(long.as_str(), ids_only.clone());
    let short_encodes = async {
        let mut outs = Vec::new();
        for s in shorts {
            outs.push(tok.encode_async(s, ids_only.clone()).await);
        }
        outs
    };
    let (long_out, short_outs) = tokio::join!(long_encode, short_encodes);
    let long_ids = long_out?.into_ids();
    let elapsed = started.elapsed();
    probe.abort();

    // `EncodeOptions::default()` adds special tokens (BOS/EOS where the model has them), as does
    // `encode_ids(.., true)`.
    assert_eq!(long_ids, tok.encode_ids(&long, true)?, "async ids must equal the blocking encode's");
    for (text, out) in shorts.iter().zip(short_outs) {
        let ids = out?.into_ids();
        assert_eq!(ids, tok.encode_ids(text, true)?);
        println!("short: {:>3} tokens  {text:?}", ids.len());
    }
    let worst_gap = *gaps.lock().unwrap();
    println!(
        "long:  {} tokens from {} KB in {:.1} ms; the loop's longest pause meanwhile: {:.1} ms",
        long_ids.len(),
        long.len() / 1024,
        elapsed.as_secs_f64() * 1e3,
        worst_gap.as_secs_f64() * 1e3
    );

    // Cancellation: dropping the future (here, by a timeout) stops the remaining pieces.
    let huge = long.repeat(20);
    match tokio::time::timeout(Duration::from_millis(1), tok.encode_async(huge, ids_only)).await {
        Err(_) => println!("cancelled: the {} KB encode was dropped by a 1 ms timeout", long.len() * 20 / 1024),
        Ok(out) => println!("finished before the timeout: {} tokens", out?.ids().len()),
    }
    Ok(())
}
