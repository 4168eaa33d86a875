//! Cancellation inside a running piece (issue 17, item 2), on the own engine: a text without a
//! safe cut ("a" repeated, one pre-token) is one piece, so cancelling it between pieces does
//! nothing; the job's flag must reach into the piece. Checked for async encodes (cancelled
//! through their handle) and for the blocking `encode_with_cancel` (how the bindings make a
//! sync call interruptible, e.g. Python's Ctrl-C), against times measured in the same test.

mod common;

use std::time::{Duration, Instant};

use common::*;
use yieldtok::{CancelFlag, EncodeOptions, Error, Tokenizer};

fn own() -> Tokenizer {
    // fastokens off: every call below runs on the own engine.
    let tok = fixture("qwen3").with_fast_engine(false);
    assert_own_engine(&tok, "qwen3");
    assert_eq!(tok.encoding_engine(), "yieldtok");
    tok
}

fn uncuttable(tok: &Tokenizer, bytes: usize) -> String {
    let text = "a".repeat(bytes);
    assert_eq!(tok.plan(&text, 64 * 1024).len(), 1, "{bytes} bytes of 'a' should be one piece");
    text
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Latency of one async 100 KB encode.
fn short_latency(tok: &Tokenizer, short: &str) -> Duration {
    let t = Instant::now();
    let out = block_on(tok.encode_async(short, EncodeOptions::default())).unwrap();
    assert!(!out.ids().is_empty());
    t.elapsed()
}

/// Time of one whole encode of `text` (not cancelled), the cost a cancel must save.
fn full_time(tok: &Tokenizer, text: &str) -> Duration {
    let t = Instant::now();
    tok.encode_ids(text, false).unwrap();
    t.elapsed()
}

#[test]
fn cancelled_async_pieces_stop_running() {
    let tok = own();
    let short = yieldtok_testkit::corpus::document(100 * 1024);
    let long = uncuttable(&tok, 4 << 20);
    short_latency(&tok, &short); // warm up
    let idle = median((0..5).map(|_| short_latency(&tok, &short)).collect());
    let full = full_time(&tok, &long);
    // Generous: 3x idle plus 150 ms for a loaded 2-core machine. Four 4 MB pieces left running
    // on the pool would hold a short request for about two whole encodes.
    let bound = idle * 3 + Duration::from_millis(150);
    eprintln!("idle {idle:?}, one 4 MB piece {full:?}, bound {bound:?}");
    assert!(full * 2 > bound, "a 4 MB piece takes {full:?}: too fast to tell from {bound:?}; use a longer text");

    let mut after = Vec::new();
    for _ in 0..3 {
        let futs: Vec<_> = (0..4)
            .map(|_| {
                let mut f = tok.encode_async(long.as_str(), EncodeOptions::default());
                f.start();
                f
            })
            .collect();
        std::thread::sleep(Duration::from_millis(30)); // the pieces are running
        let handles: Vec<_> = futs.iter().map(|f| f.handle()).collect();
        for h in &handles {
            h.cancel();
        }
        for f in futs {
            assert!(matches!(block_on(f), Err(Error::Cancelled)));
        }
        after.push(short_latency(&tok, &short));
    }
    let after = median(after);
    eprintln!("after cancelling four: {after:?}");
    assert!(after <= bound, "a 100 KB encode took {after:?} after four cancelled 4 MB pieces (idle {idle:?})");
}

#[test]
fn a_cancelled_16mb_piece_returns_early() {
    let tok = own();
    let four = uncuttable(&tok, 4 << 20);
    // A 16 MB piece costs at least four 4 MB ones (BPE over one word is no better than linear).
    let full = full_time(&tok, &four) * 4;
    let long = uncuttable(&tok, 16 << 20);
    let delay = Duration::from_millis(30);
    let bound = full / 3 + delay;
    eprintln!("16 MB estimated {full:?}, bound {bound:?}");
    assert!(full > delay * 4, "too fast to tell ({full:?})");

    // Async, cancelled through its handle.
    let mut fut = tok.encode_async(long.as_str(), EncodeOptions::default());
    fut.start();
    let h = fut.handle();
    let t = Instant::now();
    std::thread::sleep(delay);
    h.cancel();
    assert!(matches!(block_on(fut), Err(Error::Cancelled)));
    let took = t.elapsed();
    eprintln!("async cancelled after {took:?}");
    assert!(took < bound, "async: cancelled 16 MB piece returned after {took:?} (whole ~{full:?})");

    // Blocking, with the caller's flag (how Python's sync calls get Ctrl-C): the flag reaches
    // the running piece, not only the pieces not yet started.
    let flag = CancelFlag::new();
    let setter = {
        let flag = flag.clone();
        std::thread::spawn(move || {
            std::thread::sleep(delay);
            flag.cancel();
        })
    };
    let t = Instant::now();
    let r = tok.encode_with_cancel(&long, &EncodeOptions::default(), &flag);
    let took = t.elapsed();
    setter.join().unwrap();
    eprintln!("sync cancelled after {took:?}");
    assert!(matches!(r, Err(Error::Cancelled)), "sync: not cancelled");
    assert!(took < bound, "sync: cancelled 16 MB piece returned after {took:?} (whole ~{full:?})");
}
