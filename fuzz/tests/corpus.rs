//! Every fuzz target's property on stable, as part of `cargo test --workspace`: each kept input
//! of `corpus/<target>/` (found bugs' regression inputs among them), for the template targets
//! the fixtures' chat templates too, and a fixed number of seeded mutations of each
//! (`yieldtok_fuzz::mutations`, with the target's dictionary). Coverage-guided fuzzing is
//! `scripts/fuzz.sh` (nightly, cargo-fuzz).
//!
//! `YIELDTOK_FUZZ_MUTATIONS` sets the mutations per input (default 64).

use std::fs;
use std::path::{Path, PathBuf};

use yieldtok_fuzz::{mutations, targets};

fn here() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The kept inputs of `corpus/<target>/`, sorted by name.
fn corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = here().join("corpus").join(target);
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("corpus entry").path())
        .collect();
    files.sort();
    let inputs: Vec<_> = files
        .into_iter()
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), fs::read(&p).expect("corpus file")))
        .collect();
    assert!(!inputs.is_empty(), "corpus/{target}/ is empty");
    inputs
}

/// The fixtures' chat templates (the seeds `scripts/fuzz.sh` adds for the template targets).
fn templates() -> Vec<(String, Vec<u8>)> {
    let qwen3 = yieldtok_testkit::fixtures::dir("qwen3").expect("fixtures (scripts/fetch-fixtures.sh)");
    let root = qwen3.parent().expect("the fixture cache");
    let mut out = Vec::new();
    let mut dirs: Vec<_> = fs::read_dir(root).into_iter().flatten().flatten().map(|e| e.path()).collect();
    dirs.sort();
    for dir in dirs {
        let Ok(text) = fs::read_to_string(dir.join("tokenizer_config.json")) else { continue };
        let config: serde_json::Value = serde_json::from_str(&text).expect("tokenizer_config.json");
        let sources = match &config["chat_template"] {
            serde_json::Value::String(s) => vec![s.clone()],
            serde_json::Value::Array(list) => {
                list.iter().filter_map(|t| t["template"].as_str().map(str::to_owned)).collect()
            }
            _ => Vec::new(),
        };
        for (i, src) in sources.into_iter().enumerate() {
            out.push((format!("{}-{i}", dir.file_name().unwrap().to_string_lossy()), src.into_bytes()));
        }
    }
    out
}

/// The tokens of a libFuzzer dictionary (`dicts/<name>.dict`: one quoted string per line,
/// `\xNN`, `\\` and `\"` escapes).
fn dict(name: &str) -> Vec<Vec<u8>> {
    let text = fs::read_to_string(here().join("dicts").join(name)).expect("dictionary");
    text.lines()
        .filter_map(|line| line.trim().strip_prefix('"')?.strip_suffix('"'))
        .map(|quoted| {
            let (mut out, bytes, mut i) = (Vec::new(), quoted.as_bytes(), 0);
            while i < bytes.len() {
                match (bytes[i], bytes.get(i + 1)) {
                    (b'\\', Some(b'x')) => {
                        out.push(u8::from_str_radix(&quoted[i + 2..i + 4], 16).expect("\\xNN"));
                        i += 4;
                    }
                    (b'\\', Some(&c)) => {
                        out.push(c);
                        i += 2;
                    }
                    (c, _) => {
                        out.push(c);
                        i += 1;
                    }
                }
            }
            out
        })
        .collect()
}

fn mutations_per_input() -> usize {
    std::env::var("YIELDTOK_FUZZ_MUTATIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(64)
}

/// Runs `check` on every input and its mutations; a failure names the input it came from.
fn run(target: &str, inputs: Vec<(String, Vec<u8>)>, dict_file: &str, n: usize, check: fn(&[u8])) {
    let dict = dict(dict_file);
    let dict: Vec<&[u8]> = dict.iter().map(Vec::as_slice).collect();
    assert!(!dict.is_empty(), "dicts/{dict_file} has no tokens");
    let mut count = 0;
    for (i, (name, input)) in inputs.iter().enumerate() {
        let variants = std::iter::once(input.clone()).chain(mutations(input, &dict, i as u64, n));
        for (k, data) in variants.enumerate() {
            let outcome = std::panic::catch_unwind(|| check(&data));
            if let Err(panic) = outcome {
                let what = if k == 0 { "the kept input".to_owned() } else { format!("mutation {k}") };
                eprintln!("{target}: {what} of {name} fails; the input (hex): {}", hex(&data));
                std::panic::resume_unwind(panic);
            }
            count += 1;
        }
    }
    eprintln!("{target}: {count} inputs ({} kept or seeds, {n} mutations each)", inputs.len());
}

fn hex(data: &[u8]) -> String {
    data.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn trajectory_parse() {
    let n = mutations_per_input();
    run("trajectory_parse", corpus("trajectory_parse"), "trajectory_parse.dict", n, targets::trajectory_parse::check);
}

#[test]
fn tag_scanner() {
    let mut inputs = corpus("tag_scanner");
    inputs.extend(templates());
    run("tag_scanner", inputs, "jinja.dict", mutations_per_input(), targets::tag_scanner::check);
}

#[test]
fn template_render() {
    let mut inputs = corpus("template_render");
    inputs.extend(templates());
    run("template_render", inputs, "jinja.dict", mutations_per_input(), targets::template_render::check);
}

#[test]
fn chunked_encode() {
    targets::chunked_encode::init();
    // each input encodes twice through tokenizers and twice through yieldtok: a quarter of the
    // mutations keeps the test's time near the others'
    let n = mutations_per_input().div_ceil(4);
    run("chunked_encode", corpus("chunked_encode"), "chunked_encode.dict", n, targets::chunked_encode::check);
}
