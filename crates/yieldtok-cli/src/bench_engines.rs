//! `yieldtok bench-engines`: yieldtok's ids-only path (the engine `tok.engine()` names, shown
//! beside the tokenizer's name) against its peers, side by side in one
//! run per tokenizer, medians of several runs: tokens per CPU-second single-threaded for
//! `tokenizers` (whole-text encode), standalone `fastokens` (whole text, one call) and yieldtok
//! ids-only (chunked on a 1-worker scheduler), and yieldtok's wall time with all workers.
//! Inputs: one ~160k-token document and 1000 medium texts (1–4 KB). fastokens is measured
//! first: right after a heavy `tokenizers` phase its first runs were seen to be slower.

use yieldtok::{Scheduler, Tokenizer};

use crate::stats::{measure, median};

pub fn run(names: &[String], runs: usize, tokens: usize) -> Result<(), String> {
    println!("# yieldtok bench-engines — {runs} runs per figure, medians; M tok/CPU-s = million tokens per CPU-second");
    println!("| tokenizer | input | tokenizers | fastokens | yieldtok 1 worker | yieldtok vs tokenizers | yieldtok vs fastokens | yieldtok {} workers, wall ms |", Scheduler::global().threads());
    println!("|---|---|---|---|---|---|---|---|");
    for name in names {
        let tok = crate::fixture(name)?;
        // The engine serving yieldtok's ids (fastokens on byte-level BPE models, the own engine
        // elsewhere, issue 13); standalone fastokens is measured either way.
        let engine = tok.wait_for_engine();
        let fast = fastokens_standalone(&tok)?;
        let doc =
            yieldtok_testkit::corpus::document_tokens(tokens, |t| tok.count(t, false)).map_err(|e| e.to_string())?;
        let medium = yieldtok_testkit::corpus::texts(1000, 1024, 4096);
        row(&format!("{name} ({engine})"), "160k document", &tok, &fast, std::slice::from_ref(&doc), runs)?;
        row(&format!("{name} ({engine})"), "1000 texts 1-4 KB", &tok, &fast, &medium, runs)?;
    }
    Ok(())
}

fn fastokens_standalone(tok: &Tokenizer) -> Result<fastokens::Tokenizer, String> {
    let json: serde_json::Value =
        serde_json::from_str(&tok.to_json().map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
    let mut json = json;
    // The same gapped-vocab normalisation yieldtok applies (gpt4o); a no-op elsewhere.
    yieldtok::engine_support::normalize_gapped_vocab(&mut json)?;
    let mut t = fastokens::Tokenizer::from_json(json).map_err(|e| e.to_string())?;
    t.set_truncation(None);
    t.set_padding(None);
    Ok(t)
}

fn row(
    name: &str,
    input: &str,
    tok: &Tokenizer,
    fast: &fastokens::Tokenizer,
    texts: &[String],
    runs: usize,
) -> Result<(), String> {
    let n_tokens: usize = texts.iter().map(|t| tok.count(t, false).unwrap_or(0)).sum();
    let one = tok.with_scheduler(Scheduler::new(1));
    let per_cpu = |f: &dyn Fn()| -> f64 {
        let mut v = Vec::new();
        for _ in 0..runs {
            let (_, _, cpu) = measure(f);
            v.push(n_tokens as f64 / cpu.as_secs_f64().max(1e-9) / 1e6);
        }
        median(v)
    };
    let f = per_cpu(&|| {
        for t in texts {
            let _ = fast.encode_with_special_tokens(t, false);
        }
    });
    let y = per_cpu(&|| {
        for t in texts {
            let job = one.job(
                t.as_str(),
                yieldtok::EncodeOptions {
                    add_special_tokens: false,
                    output: yieldtok::Output::Ids,
                    ..Default::default()
                },
            );
            job.step(yieldtok::Budget::UNLIMITED);
            let _ = job.finish();
        }
    });
    let mut wall = Vec::new();
    for _ in 0..runs {
        let (_, w, _) = measure(|| tok.encode_batch_ids(texts, false));
        wall.push(w.as_secs_f64() * 1e3);
    }
    let h = per_cpu(&|| {
        for t in texts {
            let _ = tok.hf().encode(t.as_str(), false);
        }
    });
    println!("| {name} | {input} | {h:.2} | {f:.1} | {y:.1} | {:.0}x | {:.2}x | {:.1} |", y / h, y / f, median(wall));
    Ok(())
}
