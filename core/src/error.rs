//! The crate's error type: one enum, each variant carrying the context a user needs to act
//! (which file, which input, which id), so that the bindings can map it to their host's
//! exception or rejected promise without losing the message.

use std::path::PathBuf;

/// Everything that can go wrong in yieldtok. No input makes the library panic; a panic that
/// escapes a dependency is caught at the job boundary and reported as [`Error::Panic`].
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A file could not be written (e.g. by [`Tokenizer::save`](crate::Tokenizer::save)).
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A tokenizer definition (`tokenizer.json`) is malformed or unsupported by `tokenizers`.
    #[error("invalid tokenizer definition{}: {message}", origin_suffix(.origin))]
    InvalidTokenizer { origin: Option<String>, message: String },
    /// `tokenizer_config.json` is malformed.
    #[error("invalid tokenizer_config.json{}: {message}", origin_suffix(.origin))]
    InvalidConfig { origin: Option<String>, message: String },
    /// A model folder, a hub-cache entry or a fixture is not where it was looked for.
    #[error("{what} not found: {detail}")]
    NotFound { what: &'static str, detail: String },
    /// Input bytes are not UTF-8 (position of the first bad byte).
    #[error("input is not valid UTF-8 (first invalid byte at offset {offset})")]
    NotUtf8 { offset: usize },
    /// A file being loaded is not UTF-8 (`tokenizer.json`, `tokenizer_config.json`, a `.jinja`
    /// chat template): which file, and the position of its first bad byte.
    #[error("{path} is not valid UTF-8 (first invalid byte at offset {offset})")]
    FileNotUtf8 { path: PathBuf, offset: usize },
    /// A file being loaded is larger than [`max_file_bytes`](crate::load::max_file_bytes) (or
    /// endless, like `/dev/zero` or a pipe that never closes): refused after reading at most
    /// that many bytes.
    #[error("{path} is larger than {limit} bytes, the limit for a file yieldtok loads (set YIELDTOK_MAX_FILE_BYTES to change it)")]
    FileTooLarge { path: PathBuf, limit: u64 },
    /// An input is larger than the library accepts.
    #[error("input of {len} bytes exceeds the limit of {limit} bytes")]
    InputTooLarge { len: usize, limit: usize },
    /// The `tokenizers` pipeline reported an error for this input.
    #[error("tokenization failed: {0}")]
    Tokenize(String),
    /// A [`DecodeStream`](crate::DecodeStream)'s window no longer decodes to text that starts
    /// with what it returned before (`tokenizers`' "invalid prefix"; decoders that strip or
    /// clean up can do this).
    #[error("Invalid prefix encountered while decoding stream. Token ID: {token_id}, Expected prefix: '{expected_prefix}', Actual string: '{actual_string}'")]
    DecodeStream { token_id: u32, expected_prefix: String, actual_string: String },
    /// The work was cancelled (its future was dropped or its cancel handle was used).
    #[error("cancelled")]
    Cancelled,
    /// A panic inside the tokenization pipeline, caught and turned into an error.
    #[error("internal panic: {0}")]
    Panic(String),
    /// A chat template failed to compile or render (or raised).
    #[error("chat template: {0}")]
    ChatTemplate(#[from] crate::chat_template::ChatTemplateError),
    /// An argument that does not make sense (message says which).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A trajectory could not be tokenized (the error says where and why).
    #[error("{0}")]
    Trajectory(Box<crate::trajectory::TrajectoryError>),
}

impl From<crate::trajectory::TrajectoryError> for Error {
    fn from(e: crate::trajectory::TrajectoryError) -> Self {
        Error::Trajectory(Box::new(e))
    }
}

fn origin_suffix(origin: &Option<String>) -> String {
    origin.as_ref().map(|o| format!(" ({o})")).unwrap_or_default()
}

/// The message of a caught panic's payload (a `&str` or a `String`), if it has one.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> Option<String> {
    payload.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| payload.downcast_ref::<String>().cloned())
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn tokenize(e: impl std::fmt::Display) -> Self {
        Error::Tokenize(e.to_string())
    }

    /// Turn the payload of a caught panic into an [`Error::Panic`].
    pub(crate) fn from_panic(payload: Box<dyn std::any::Any + Send>) -> Self {
        Error::Panic(panic_message(&*payload).unwrap_or_else(|| "unknown panic payload".to_string()))
    }

    /// Whether this error means "the caller gave bad input" (as opposed to I/O or cancellation);
    /// bindings use it to choose between their ValueError-like and OSError-like exceptions.
    pub fn is_invalid_input(&self) -> bool {
        match self {
            Error::Trajectory(e) => e.is_invalid_input(),
            e => !matches!(
                e,
                Error::Io { .. } | Error::Write { .. } | Error::NotFound { .. } | Error::Cancelled | Error::Panic(_)
            ),
        }
    }
}
