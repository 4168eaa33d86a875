//! Loading: a `tokenizer.json` path, its bytes or text, a model folder (`tokenizer.json` +
//! optional `tokenizer_config.json` and `chat_template.jinja`), or a repo id resolved in the
//! local Hugging Face cache (never the network).

use std::path::{Path, PathBuf};

#[doc(hidden)]
pub use crate::reference::compare_paths;

use crate::chat_template::TemplateSource;
use crate::config::TokenizerConfig;
use crate::error::{Error, Result};
use crate::Tokenizer;

/// The largest file yieldtok reads while loading unless `YIELDTOK_MAX_FILE_BYTES` says
/// otherwise: 512 MiB (the largest real `tokenizer.json` files are tens of MB).
pub const DEFAULT_MAX_FILE_BYTES: u64 = 512 << 20;

/// The size limit for each file a load reads (`tokenizer.json`, `tokenizer_config.json`, chat
/// templates): `YIELDTOK_MAX_FILE_BYTES` (bytes; read at each load) or
/// [`DEFAULT_MAX_FILE_BYTES`]. A larger file — or an endless one, such as `/dev/zero` or a pipe
/// that never closes — is refused with [`Error::FileTooLarge`] after at most this many bytes.
pub fn max_file_bytes() -> u64 {
    crate::env::env_limit("YIELDTOK_MAX_FILE_BYTES", DEFAULT_MAX_FILE_BYTES)
}

fn read(path: &Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let io = |source| Error::Io { path: path.to_path_buf(), source };
    let limit = max_file_bytes();
    let too_large = || Error::FileTooLarge { path: path.to_path_buf(), limit };
    let file = std::fs::File::open(path).map_err(io)?;
    // A regular file states its size; anything else (a device, a pipe) is read up to the limit.
    let len = file.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
    if len.is_some_and(|n| n > limit) {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(len.unwrap_or(0) as usize);
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

/// A file's bytes as text; the error names the file.
fn utf8(path: &Path, bytes: Vec<u8>) -> Result<String> {
    String::from_utf8(bytes)
        .map_err(|e| Error::FileNotUtf8 { path: path.to_path_buf(), offset: e.utf8_error().valid_up_to() })
}

/// A file's text, within [`max_file_bytes`].
fn read_text(path: &Path) -> Result<String> {
    utf8(path, read(path)?)
}

impl Tokenizer {
    /// Load a `tokenizer.json` file.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let text = read_text(path)?;
        Self::from_json_str(&text, None, Some(path.display().to_string()))
    }

    /// Load from the bytes of a `tokenizer.json`.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let text = std::str::from_utf8(bytes).map_err(|e| Error::NotUtf8 { offset: e.valid_up_to() })?;
        Self::from_json_str(text, None, None)
    }

    /// Load from the text of a `tokenizer.json`.
    // `tokenizers`' name for it (`Tokenizer::from_str`); it is not `FromStr` (its error type is ours).
    #[allow(clippy::should_implement_trait)]
    pub fn from_str(json: &str) -> Result<Self> {
        Self::from_json_str(json, None, None)
    }

    /// Load a model folder: `tokenizer.json`, and `tokenizer_config.json` (special tokens, chat
    /// template) and `chat_template.jinja` / `additional_chat_templates/*.jinja` when present;
    /// template files take precedence over the config's `chat_template`, as in transformers.
    pub fn from_dir(dir: impl AsRef<Path>) -> Result<Self> {
        let dir = dir.as_ref();
        let tj = dir.join("tokenizer.json");
        if !tj.is_file() {
            return Err(Error::NotFound {
                what: "tokenizer.json",
                detail: format!("no tokenizer.json in {}", dir.display()),
            });
        }
        let config = load_config(dir)?;
        let text = read_text(&tj)?;
        Self::from_json_str(&text, config, Some(dir.display().to_string()))
    }

    /// Load `repo_id` (e.g. `"Qwen/Qwen3-0.6B"`) from the local Hugging Face cache without any
    /// network access; see [`resolve_hub_snapshot`].
    pub fn from_pretrained(repo_id: &str, revision: Option<&str>, cache_dir: Option<&Path>) -> Result<Self> {
        Self::from_dir(resolve_hub_snapshot(repo_id, revision, cache_dir)?)
    }
}

/// Read `tokenizer_config.json` and `chat_template.jinja` of a folder, if present.
pub fn load_config(dir: &Path) -> Result<Option<TokenizerConfig>> {
    let cfg_path = dir.join("tokenizer_config.json");
    let mut config = if cfg_path.is_file() {
        let text = read_text(&cfg_path)?;
        Some(TokenizerConfig::from_str(&text, Some(&cfg_path.display().to_string()))?)
    } else {
        None
    };
    // transformers' rule: template files win over the config's `chat_template`.
    let jinja = dir.join("chat_template.jinja");
    let default = if jinja.is_file() { Some(read_text(&jinja)?) } else { None };
    let mut additional = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir.join("additional_chat_templates")) {
        let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths.into_iter().filter(|p| p.extension().is_some_and(|e| e == "jinja")) {
            let name = p.file_stem().unwrap_or_default().to_string_lossy().to_string();
            additional.push((name, read_text(&p)?));
        }
    }
    if default.is_some() || !additional.is_empty() {
        let config_value = config.as_ref().and_then(|c| c.raw.get("chat_template").cloned());
        config.get_or_insert_with(TokenizerConfig::default).chat_template =
            TemplateSource::from_parts(config_value.as_ref(), default, additional);
    }
    Ok(config)
}

/// The hub cache root: `cache_dir` if given, else `$HF_HUB_CACHE`, else `$HF_HOME/hub`, else
/// `$XDG_CACHE_HOME/huggingface/hub`, else `~/.cache/huggingface/hub`.
pub fn hub_cache_dir(cache_dir: Option<&Path>) -> Option<PathBuf> {
    if let Some(d) = cache_dir {
        return Some(d.to_path_buf());
    }
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    env("HF_HUB_CACHE")
        .or_else(|| env("HF_HOME").map(|h| h.join("hub")))
        .or_else(|| env("XDG_CACHE_HOME").map(|x| x.join("huggingface").join("hub")))
        .or_else(|| env("HOME").map(|h| h.join(".cache").join("huggingface").join("hub")))
}

/// Find the snapshot folder of `repo_id` at `revision` (a branch or tag name resolved through
/// `refs/`, or a commit hash; default `main`) in the local hub cache
/// (`models--org--name/snapshots/<commit>/`). Never touches the network.
pub fn resolve_hub_snapshot(repo_id: &str, revision: Option<&str>, cache_dir: Option<&Path>) -> Result<PathBuf> {
    if repo_id.is_empty() || repo_id.contains("..") || repo_id.starts_with('/') {
        return Err(Error::InvalidArgument(format!("{repo_id:?} is not a repo id like \"org/name\"")));
    }
    let root = hub_cache_dir(cache_dir).ok_or_else(|| Error::NotFound {
        what: "Hugging Face cache",
        detail: "set HF_HOME or pass cache_dir".into(),
    })?;
    let repo = root.join(format!("models--{}", repo_id.replace('/', "--")));
    let revision = revision.unwrap_or("main");
    let not_found = |detail: String| Error::NotFound {
        what: "model in the local Hugging Face cache",
        detail: format!("{detail} (yieldtok never downloads; fetch it with huggingface-cli first)"),
    };
    if !repo.is_dir() {
        return Err(not_found(format!("{repo_id}: no {}", repo.display())));
    }
    let commit = match std::fs::read_to_string(repo.join("refs").join(revision)) {
        Ok(c) => c.trim().to_string(),
        Err(_) => revision.to_string(),
    };
    let snap = repo.join("snapshots").join(&commit);
    if !snap.join("tokenizer.json").is_file() {
        return Err(not_found(format!("{repo_id}@{revision}: no tokenizer.json in {}", snap.display())));
    }
    Ok(snap)
}
