//! The crate's error type: one enum, each variant carrying the context a user needs to act
//! (which file, which input, which id), so that the bindings can map it to their host's
//! exception or rejected promise without losing the message. A variant that wraps another
//! error keeps it as its [`source`](std::error::Error::source) (the `tokenizers` error, the JSON
//! parser's error, the I/O error), so a caller can walk the chain down to the cause; its own
//! message still says what the cause said, as it always has.

use std::path::PathBuf;

/// A boxed error kept as the cause of an [`Error`] (`tokenizers::Error` is one of these).
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

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
    InvalidTokenizer {
        origin: Option<String>,
        message: String,
        /// The parser's error this one reports, if there is one.
        #[source]
        source: Option<BoxError>,
    },
    /// `tokenizer_config.json` is malformed.
    #[error("invalid tokenizer_config.json{}: {message}", origin_suffix(.origin))]
    InvalidConfig {
        origin: Option<String>,
        message: String,
        /// The JSON parser's error this one reports, if there is one.
        #[source]
        source: Option<BoxError>,
    },
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
    /// The `tokenizers` pipeline (or an engine) reported an error for this input: its message,
    /// and the error itself as the source when it is one (an engine's refusal is a message only).
    #[error("tokenization failed: {message}")]
    Tokenize {
        message: String,
        #[source]
        source: Option<BoxError>,
    },
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
}

fn origin_suffix(origin: &Option<String>) -> String {
    origin.as_ref().map(|o| format!(" ({o})")).unwrap_or_default()
}

/// The message of a caught panic's payload (a `&str` or a `String`), if it has one.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> Option<String> {
    payload.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| payload.downcast_ref::<String>().cloned())
}

/// What kind of failure an [`Error`] is, for a binding to pick its host's exception or error
/// type from ([`Error::class`]): the Python and Node bindings match on it exhaustively (so a new
/// class is a compile error there until it is mapped); the browser's errors carry
/// [`Error::code`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorClass {
    /// The caller's input or arguments are at fault: a malformed `tokenizer.json`, bytes that
    /// are not UTF-8, an unknown id, a template that raises, an invalid trajectory. Python:
    /// `ValueError`; Node: `InvalidArg`.
    InvalidInput,
    /// Something to load is not where it was looked for. Python: `FileNotFoundError`.
    NotFound,
    /// Reading or writing a file failed. Python: `OSError`.
    Io,
    /// The tokenizer or its configuration cannot do what was asked (not the input's fault; e.g.
    /// a trajectory needs a chat template the tokenizer lacks). Python: `OSError`, as before
    /// this class existed.
    Setup,
    /// The work was cancelled. Python: the base `TokenizerError`; Node: `Cancelled`.
    Cancelled,
    /// A bug: a panic caught at a boundary. Python: `RuntimeError`.
    Internal,
}

/// Run `f`, turning a panic into [`Error::Panic`] (with the panic's message): the guard a
/// binding puts around each call into the core, so that nothing unwinds into a host.
pub fn catch<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|p| Err(Error::from_panic(p)))
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// [`Error::Tokenize`] keeping `e` as its source (and its message as the message).
    pub(crate) fn tokenize(e: impl Into<BoxError>) -> Self {
        let source = e.into();
        Error::Tokenize { message: source.to_string(), source: Some(source) }
    }

    /// [`Error::Tokenize`] from a message alone (nothing caused it but the refusal itself).
    pub(crate) fn tokenize_message(message: impl Into<String>) -> Self {
        Error::Tokenize { message: message.into(), source: None }
    }

    /// [`Error::InvalidTokenizer`] from a message alone.
    pub(crate) fn invalid_tokenizer(origin: Option<String>, message: impl Into<String>) -> Self {
        Error::InvalidTokenizer { origin, message: message.into(), source: None }
    }

    /// [`Error::InvalidTokenizer`] reporting `e` (its message, and `e` as the source).
    pub(crate) fn invalid_tokenizer_from(origin: Option<String>, e: impl Into<BoxError>) -> Self {
        let source = e.into();
        Error::InvalidTokenizer { origin, message: source.to_string(), source: Some(source) }
    }

    /// Turn the payload of a caught panic (from `catch_unwind` or a joined thread) into an
    /// [`Error::Panic`] carrying its message.
    pub fn from_panic(payload: Box<dyn std::any::Any + Send>) -> Self {
        Error::Panic(panic_message(&*payload).unwrap_or_else(|| "unknown panic payload".to_string()))
    }

    /// The kind of failure, for a binding to choose its host's exception or error type. An
    /// explicit match: a new variant must be classified here.
    pub fn class(&self) -> ErrorClass {
        match self {
            Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => ErrorClass::NotFound,
            Error::Io { .. } | Error::Write { .. } => ErrorClass::Io,
            Error::NotFound { .. } => ErrorClass::NotFound,
            Error::InvalidTokenizer { .. }
            | Error::InvalidConfig { .. }
            | Error::NotUtf8 { .. }
            | Error::FileNotUtf8 { .. }
            | Error::FileTooLarge { .. }
            | Error::InputTooLarge { .. }
            | Error::Tokenize { .. }
            | Error::DecodeStream { .. }
            | Error::ChatTemplate(_)
            | Error::InvalidArgument(_) => ErrorClass::InvalidInput,
            Error::Cancelled => ErrorClass::Cancelled,
            Error::Panic(_) => ErrorClass::Internal,
        }
    }

    /// A stable machine-readable name of the variant (`"not_utf8"`, `"chat_template"`, …), for
    /// logs and for bindings that expose an error code. Messages may change wording; codes do
    /// not. (A [`TrajectoryError`](crate::trajectory::TrajectoryError) has its own
    /// [`code`](crate::trajectory::TrajectoryError::code): `"trajectory."` and its kind's.)
    pub fn code(&self) -> &'static str {
        match self {
            Error::Io { .. } => "io",
            Error::Write { .. } => "write",
            Error::InvalidTokenizer { .. } => "invalid_tokenizer",
            Error::InvalidConfig { .. } => "invalid_config",
            Error::NotFound { .. } => "not_found",
            Error::NotUtf8 { .. } => "not_utf8",
            Error::FileNotUtf8 { .. } => "file_not_utf8",
            Error::FileTooLarge { .. } => "file_too_large",
            Error::InputTooLarge { .. } => "input_too_large",
            Error::Tokenize { .. } => "tokenize",
            Error::DecodeStream { .. } => "decode_stream",
            Error::Cancelled => "cancelled",
            Error::Panic(_) => "panic",
            Error::ChatTemplate(_) => "chat_template",
            Error::InvalidArgument(_) => "invalid_argument",
        }
    }

    /// Whether this error means "the caller gave bad input" (`class() ==
    /// ErrorClass::InvalidInput`).
    pub fn is_invalid_input(&self) -> bool {
        self.class() == ErrorClass::InvalidInput
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_and_code() {
        let io = |kind| Error::Io { path: "x".into(), source: std::io::Error::from(kind) };
        assert_eq!(io(std::io::ErrorKind::NotFound).class(), ErrorClass::NotFound);
        assert_eq!(io(std::io::ErrorKind::PermissionDenied).class(), ErrorClass::Io);
        assert_eq!(io(std::io::ErrorKind::PermissionDenied).code(), "io");
        assert_eq!(Error::NotUtf8 { offset: 3 }.class(), ErrorClass::InvalidInput);
        assert_eq!(Error::InvalidArgument("x".into()).code(), "invalid_argument");
        assert_eq!(Error::Cancelled.class(), ErrorClass::Cancelled);
        assert!(Error::NotUtf8 { offset: 3 }.is_invalid_input() && !Error::Cancelled.is_invalid_input());
    }

    #[test]
    fn errors_keep_their_causes_as_source() {
        use std::error::Error as _;
        // tokenizers' own error, kept behind Tokenize
        let cause: tokenizers::Error = "{}".parse::<tokenizers::Tokenizer>().unwrap_err();
        let want = cause.to_string();
        let e = Error::tokenize(cause);
        assert_eq!(e.to_string(), format!("tokenization failed: {want}"));
        assert_eq!(e.source().map(|s| s.to_string()), Some(want));
        assert!(Error::tokenize_message("refused").source().is_none());

        // the JSON parser's error behind InvalidConfig, its message in the error's
        let e = crate::TokenizerConfig::from_str("{not json", Some("cfg.json")).unwrap_err();
        assert!(matches!(e, Error::InvalidConfig { .. }), "{e}");
        let source = e.source().expect("InvalidConfig keeps the parser's error");
        assert!(source.downcast_ref::<serde_json::Error>().is_some(), "{source:?}");
        assert!(e.to_string().ends_with(&source.to_string()), "{e}");

        // tokenizers' parse error behind InvalidTokenizer
        let e = crate::Tokenizer::from_str("{\"model\": 1}").unwrap_err();
        assert!(matches!(e, Error::InvalidTokenizer { .. }), "{e}");
        let source = e.source().expect("InvalidTokenizer keeps the parse error");
        assert!(e.to_string().ends_with(&source.to_string()), "{e}");
        assert!(Error::invalid_tokenizer(None, "x").source().is_none());

        // a trajectory's tokenization failure keeps the core error, which keeps its cause
        use crate::trajectory::{TrajectoryError, TrajectoryErrorKind as K};
        let core = Error::tokenize(Box::<dyn std::error::Error + Send + Sync>::from("bad piece"));
        let t = TrajectoryError::new(K::Tokenize(core.to_string())).caused_by(core);
        let source = t.source().expect("a trajectory error keeps its cause");
        assert!(matches!(source.downcast_ref::<Error>(), Some(Error::Tokenize { .. })), "{source:?}");
        assert_eq!(source.source().map(|s| s.to_string()).as_deref(), Some("bad piece"));
        assert!(TrajectoryError::new(K::MissingRole).source().is_none());
        assert_eq!(t, TrajectoryError::new(K::Tokenize("tokenization failed: bad piece".into())));
    }

    #[test]
    fn catch_turns_a_panic_into_an_error() {
        let e = catch::<()>(|| panic!("boom {}", 1)).unwrap_err();
        assert_eq!((e.class(), e.to_string()), (ErrorClass::Internal, "internal panic: boom 1".to_string()));
        assert_eq!(catch(|| Ok(7)).unwrap(), 7);
    }
}
