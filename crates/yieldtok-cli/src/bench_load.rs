//! `yieldtok bench-load`: load time and resident memory per loaded tokenizer, side by side in
//! one run, medians of `--runs` runs. Each load starts from the file (read included):
//! - `yieldtok`: `yieldtok::Tokenizer::from_file` (the reference `tokenizers` tokenizer, the
//!   own engine built on a second thread, the chunking self-check and the engine's load-time
//!   verification);
//! - `tokenizers`: `tokenizers::Tokenizer::from_file` (0.23.2, the version yieldtok wraps);
//! - `fastokens`: `fastokens::Tokenizer::from_file` (0.3.5); gpt4o, whose vocabulary it refuses,
//!   through the same gapped-vocabulary normalisation yieldtok applies (timed too);
//! - `engine json`: the own engine alone, `yieldtok_engine::Engine::from_json` (breakdown);
//! - `engine compact`: the own engine from its compact form (`Engine::from_bytes`, a file
//!   written beforehand).
//!
//! The runs interleave the loaders (one load of each per round), so that a slow spell of the
//! shared machine falls on all of them. Wall ms and process CPU ms (all threads) are both
//! reported: yieldtok's load runs on two threads. Resident memory: the growth of the resident
//! set (`/proc/self/statm`) from loading one tokenizer and keeping it, each in a fresh child
//! process; and the same after `malloc_trim(0)` (freed memory the allocator still held).

use std::path::{Path, PathBuf};

use crate::stats::{measure, median, ms};

const KINDS: [&str; 5] = ["yieldtok", "tokenizers", "fastokens", "engine json", "engine compact"];

/// Load `kind` from `path` once; the loaded tokenizer, boxed, or why it refused.
fn load(kind: &str, path: &Path) -> Result<Box<dyn std::any::Any>, String> {
    Ok(match kind {
        "yieldtok" => Box::new(yieldtok::Tokenizer::from_file(path).map_err(|e| e.to_string())?),
        "tokenizers" => Box::new(tokenizers::Tokenizer::from_file(path).map_err(|e| e.to_string())?),
        "fastokens" => match fastokens::Tokenizer::from_file(path) {
            Ok(t) => Box::new(t),
            Err(_) => {
                let mut v: serde_json::Value =
                    serde_json::from_str(&std::fs::read_to_string(path).map_err(|e| e.to_string())?)
                        .map_err(|e| e.to_string())?;
                yieldtok::engine_support::normalize_gapped_vocab(&mut v)?;
                Box::new(fastokens::Tokenizer::from_json(v).map_err(|e| e.to_string())?)
            }
        },
        "engine json" => {
            let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
            Box::new(yieldtok_engine::Engine::from_json(&text).map_err(|e| e.to_string())?)
        }
        "engine compact" => {
            let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
            Box::new(yieldtok_engine::Engine::from_bytes(&bytes).map_err(|e| e.to_string())?)
        }
        _ => return Err(format!("unknown loader {kind}")),
    })
}

fn rss_bytes() -> i64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    statm.split_whitespace().nth(1).and_then(|p| p.parse::<i64>().ok()).unwrap_or(-1) * 4096
}

/// In a child process: load once, print the resident growth and the growth after trimming.
pub fn child(kind: &str, path: &str) -> Result<(), String> {
    let before = rss_bytes();
    let kept = load(kind, Path::new(path))?;
    let after = rss_bytes();
    // SAFETY: malloc_trim only releases free memory of the allocator.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        libc::malloc_trim(0);
    }
    let trimmed = rss_bytes();
    println!("{} {}", after - before, trimmed - before);
    std::hint::black_box(kept);
    Ok(())
}

fn memory(kind: &str, path: &Path) -> Option<(f64, f64)> {
    let out = std::process::Command::new(std::env::current_exe().ok()?)
        .args(["bench-load-child", kind, path.to_str()?])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut it = text.split_whitespace().map(|v| v.parse::<f64>().ok());
    Some((it.next()?? / 1e6, it.next()?? / 1e6))
}

struct Cell {
    wall: f64,
    cpu: f64,
    mem: Option<(f64, f64)>,
    refused: Option<String>,
}

pub fn run(names: &[String], runs: usize) -> Result<(), String> {
    std::env::set_var("FASTOKENS_BPE_THREADS", "1");
    std::env::set_var("TOKENIZERS_PARALLELISM", "false");
    println!("# yieldtok bench-load — {runs} interleaved runs per figure, medians; wall ms / CPU ms (all threads); resident growth per loaded tokenizer, MB (after malloc_trim in parentheses)");
    println!("| tokenizer | {} | yieldtok/tokenizers wall | CPU | compact vs tokenizers wall |", KINDS.join(" | "));
    println!("|---|{}---|---|---|", "---|".repeat(KINDS.len()));
    for name in names {
        let json = yieldtok_testkit::fixtures::tokenizer_json(name).map_err(|e| e.to_string())?;
        let compact = compact_file(name, &json);
        let path_of = |kind: &str| -> Option<PathBuf> {
            if kind == "engine compact" {
                compact.as_ref().ok().cloned()
            } else {
                Some(json.clone())
            }
        };
        let mut walls = vec![Vec::new(); KINDS.len()];
        let mut cpus = vec![Vec::new(); KINDS.len()];
        let mut refused: Vec<Option<String>> = vec![None; KINDS.len()];
        if let Err(e) = &compact {
            refused[4] = Some(e.clone());
        }
        for _ in 0..runs {
            for (i, kind) in KINDS.iter().enumerate() {
                if refused[i].is_some() {
                    continue;
                }
                let Some(path) = path_of(kind) else { continue };
                let (out, wall, cpu) = measure(|| load(kind, &path));
                match out {
                    Ok(kept) => {
                        // Freeing is not part of the load.
                        drop(kept);
                        walls[i].push(ms(wall));
                        cpus[i].push(ms(cpu));
                    }
                    Err(why) => refused[i] = Some(why),
                }
            }
        }
        let cells: Vec<Cell> = KINDS
            .iter()
            .enumerate()
            .map(|(i, kind)| Cell {
                wall: median(walls[i].clone()),
                cpu: median(cpus[i].clone()),
                mem: if refused[i].is_none() { path_of(kind).and_then(|p| memory(kind, &p)) } else { None },
                refused: refused[i].clone(),
            })
            .collect();
        let show = |c: &Cell| match (&c.refused, c.mem) {
            (Some(why), _) => format!("refused ({})", why.chars().take(40).collect::<String>()),
            (None, Some((m, t))) => format!("{:.0} / {:.0} ms, {:.0} MB ({:.0})", c.wall, c.cpu, m, t),
            (None, None) => format!("{:.0} / {:.0} ms", c.wall, c.cpu),
        };
        println!(
            "| {name} | {} | {:.2}x | {:.2}x | {:.3}x |",
            cells.iter().map(show).collect::<Vec<_>>().join(" | "),
            cells[0].wall / cells[1].wall,
            cells[0].cpu / cells[1].cpu,
            cells[4].wall / cells[1].wall,
        );
        if let Ok(p) = &compact {
            let _ = std::fs::remove_file(p);
        }
    }
    Ok(())
}

/// The compact form of `name`'s engine, written to a temporary file.
fn compact_file(name: &str, json: &Path) -> Result<PathBuf, String> {
    let text = std::fs::read_to_string(json).map_err(|e| e.to_string())?;
    let bytes = yieldtok_engine::Engine::from_json(&text).and_then(|e| e.to_bytes()).map_err(|e| e.to_string())?;
    let path = std::env::temp_dir().join(format!("yieldtok-bench-load-{}-{name}.bin", std::process::id()));
    std::fs::write(&path, bytes).map_err(|e| e.to_string())?;
    Ok(path)
}
