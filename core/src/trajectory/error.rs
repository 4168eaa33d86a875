//! Trajectory errors: what went wrong ([`TrajectoryErrorKind`]) and where (group, trajectory,
//! history, item of `messages_and_choices`). Each kind also names the exception ART 0.5.18
//! raises in the same situation ([`TrajectoryErrorKind::art_exception`]), so bindings can raise
//! the same Python type and tests can check the oracle agrees.

use std::fmt;

/// Where in the input an error is (indices are 0-based; `history` 0 is the trajectory's own
/// `messages_and_choices`, `k > 0` is `additional_histories[k - 1]`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Location {
    pub group: Option<usize>,
    pub trajectory: Option<usize>,
    pub history: Option<usize>,
    /// Index into the history's `messages_and_choices`.
    pub item: Option<usize>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(g) = self.group {
            parts.push(format!("group {g}"));
        }
        if let Some(t) = self.trajectory {
            parts.push(format!("trajectory {t}"));
        }
        match self.history {
            Some(0) => parts.push("messages_and_choices".to_string()),
            Some(h) => parts.push(format!("additional_histories[{}]", h - 1)),
            None => {}
        }
        if let Some(i) = self.item {
            parts.push(format!("item {i}"));
        }
        if parts.is_empty() {
            f.write_str("input")
        } else {
            f.write_str(&parts.join(", "))
        }
    }
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum TrajectoryErrorKind {
    /// Malformed input: not JSON, a missing or mistyped field, an invalid tool schema (ART:
    /// pydantic's `ValidationError` when building `Trajectory`/`History`).
    InvalidInput(String),
    /// A message dict without `role` (ART: `KeyError: 'role'`).
    MissingRole,
    /// The chat template failed (syntax, `raise_exception`, render error, limits) or rejected
    /// the messages (ART: whatever jinja2/transformers raise).
    ChatTemplate(String),
    /// A trainable message's sentinel is not in the rendered token ids — e.g. a final Choice
    /// with `logprobs: null` under `allow_training_without_logprobs`, or a template that drops
    /// assistant content (ART: `ValueError: <id> is not in list`).
    SentinelNotFound { sentinel: u32 },
    /// A plain-dict assistant message with `tool_calls` trained without logprobs (ART's
    /// `ValueError`).
    DictToolCalls,
    /// A plain-dict assistant message trained without logprobs whose `content` is not a
    /// string (ART: `AssertionError`).
    DictContentNotString,
    /// The first logprob entry's `bytes` are not bytes or not UTF-8 (ART: `ValueError` /
    /// `UnicodeDecodeError` in the `<think>` check).
    InvalidBytes(String),
    /// A sampled token id that cannot be a token id (negative or beyond 32 bits).
    UnrepresentableTokenId(String),
    /// With `validate_sampled_tokens`: a sampled token id outside the vocabulary (ART splices
    /// it silently).
    TokenIdOutOfVocabulary { id: u32, vocab_size: usize },
    /// With `validate_sampled_tokens`: a sampled token string that is neither
    /// `"token_id:<id>"` nor a vocabulary token (ART maps it to the unknown or EOS token).
    TokenNotInVocabulary(String),
    /// With `validate_sampled_tokens`: sampled ids contain the sentinel id, so a later
    /// trainable message would be
    /// spliced into them (ART silently produces wrong output).
    SentinelCollision { sentinel: u32 },
    /// An `extra_logprobs` value that is not a number (ART: `TypeError`/`ValueError` from
    /// `float()`), or one that lands outside the token list (ART: `IndexError`).
    ExtraLogprobs(String),
    /// A position outside the token list (ART: `IndexError`); only with degenerate templates.
    Index(String),
    /// The tokenizer failed to encode the rendered text.
    Tokenize(String),
    /// The tokenizer cannot be used for trajectories (no chat template, no EOS token, ...).
    Setup(String),
    /// A packing argument that does not make sense.
    InvalidArgument(String),
}

impl TrajectoryErrorKind {
    /// A stable, machine-readable name of the kind (`snake_case` of the variant), for bindings
    /// to expose next to the message.
    pub fn name(&self) -> &'static str {
        use TrajectoryErrorKind::*;
        match self {
            InvalidInput(_) => "invalid_input",
            MissingRole => "missing_role",
            ChatTemplate(_) => "chat_template",
            SentinelNotFound { .. } => "sentinel_not_found",
            DictToolCalls => "dict_tool_calls",
            DictContentNotString => "dict_content_not_string",
            InvalidBytes(_) => "invalid_bytes",
            UnrepresentableTokenId(_) => "unrepresentable_token_id",
            TokenIdOutOfVocabulary { .. } => "token_id_out_of_vocabulary",
            TokenNotInVocabulary(_) => "token_not_in_vocabulary",
            SentinelCollision { .. } => "sentinel_collision",
            ExtraLogprobs(_) => "extra_logprobs",
            Index(_) => "index",
            Tokenize(_) => "tokenize",
            Setup(_) => "setup",
            InvalidArgument(_) => "invalid_argument",
        }
    }

    /// The Python exception type ART 0.5.18 raises in this situation (`None`: ART has no
    /// equivalent error).
    pub fn art_exception(&self) -> Option<&'static str> {
        use TrajectoryErrorKind::*;
        Some(match self {
            InvalidInput(_) => "ValidationError",
            MissingRole => "KeyError",
            ChatTemplate(_) => "TemplateError",
            SentinelNotFound { .. } | DictToolCalls => "ValueError",
            DictContentNotString => "AssertionError",
            InvalidBytes(_) => "ValueError",
            ExtraLogprobs(_) => "ValueError",
            Index(_) => "IndexError",
            UnrepresentableTokenId(_)
            | TokenIdOutOfVocabulary { .. }
            | TokenNotInVocabulary(_)
            | SentinelCollision { .. }
            | Tokenize(_)
            | Setup(_)
            | InvalidArgument(_) => return None,
        })
    }
}

impl fmt::Display for TrajectoryErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use TrajectoryErrorKind::*;
        match self {
            InvalidInput(m) => write!(f, "invalid input: {m}"),
            MissingRole => write!(f, "message has no 'role'"),
            ChatTemplate(m) => write!(f, "chat template: {m}"),
            SentinelNotFound { sentinel } => write!(
                f,
                "{sentinel} is not in list: the sentinel token of a trainable message is missing from the rendered ids (a final Choice without logprobs, or a template that drops assistant content)"
            ),
            DictToolCalls => write!(
                f,
                "Assistant message has tool_calls but is being tokenized via tokenizer.encode(content). This path ignores tool calls."
            ),
            DictContentNotString => write!(f, "Trajectories must have a 'content' field of type str"),
            InvalidBytes(m) => write!(f, "invalid `bytes` in the first logprob entry: {m}"),
            UnrepresentableTokenId(m) => write!(f, "sampled token {m} is not a valid token id"),
            TokenIdOutOfVocabulary { id, vocab_size } => {
                write!(f, "sampled token id {id} is out of the vocabulary (size {vocab_size})")
            }
            TokenNotInVocabulary(t) => write!(f, "sampled token {t:?} is neither \"token_id:<id>\" nor a vocabulary token"),
            SentinelCollision { sentinel } => write!(
                f,
                "sampled ids contain the sentinel id {sentinel}: a later trainable message would be spliced into them"
            ),
            ExtraLogprobs(m) => write!(f, "extra_logprobs: {m}"),
            Index(m) => write!(f, "index out of range: {m}"),
            Tokenize(m) => write!(f, "tokenization failed: {m}"),
            Setup(m) => write!(f, "{m}"),
            InvalidArgument(m) => write!(f, "invalid argument: {m}"),
        }
    }
}

/// The cause a [`TrajectoryError`] keeps (shared, so the error stays `Clone`).
pub type Cause = std::sync::Arc<dyn std::error::Error + Send + Sync + 'static>;

/// An error with its location, and the error that caused it when there is one (the
/// tokenizer's error for [`TrajectoryErrorKind::Tokenize`], the chat template's, the JSON
/// parser's), which [`source`](std::error::Error::source) returns. Two errors are equal when
/// their location and kind are (the kind carries the cause's message; causes are not
/// comparable).
#[derive(Debug, Clone)]
pub struct TrajectoryError {
    pub location: Location,
    pub kind: TrajectoryErrorKind,
    cause: Option<Cause>,
}

impl PartialEq for TrajectoryError {
    fn eq(&self, other: &Self) -> bool {
        self.location == other.location && self.kind == other.kind
    }
}

impl TrajectoryError {
    pub fn new(kind: TrajectoryErrorKind) -> Self {
        TrajectoryError { location: Location::default(), kind, cause: None }
    }

    /// This error, keeping `cause` as its [`source`](std::error::Error::source).
    pub fn caused_by(mut self, cause: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.cause = Some(std::sync::Arc::new(cause));
        self
    }

    /// The error that caused this one, if any (also [`source`](std::error::Error::source)).
    pub fn cause(&self) -> Option<&Cause> {
        self.cause.as_ref()
    }

    pub(crate) fn at(mut self, f: impl FnOnce(&mut Location)) -> Self {
        f(&mut self.location);
        self
    }

    /// The kind of failure, for a binding to choose its host's exception or error type, as
    /// [`Error::class`](crate::Error::class): [`ErrorClass::Setup`](crate::ErrorClass::Setup)
    /// when the tokenizer cannot be used for trajectories, else
    /// [`ErrorClass::InvalidInput`](crate::ErrorClass::InvalidInput).
    pub fn class(&self) -> crate::ErrorClass {
        if self.is_invalid_input() {
            crate::ErrorClass::InvalidInput
        } else {
            crate::ErrorClass::Setup
        }
    }

    /// A stable machine-readable name: `"trajectory."` and the kind's
    /// [`name`](TrajectoryErrorKind::name) (`"trajectory.missing_role"`), as
    /// [`Error::code`](crate::Error::code) names core errors.
    pub fn code(&self) -> String {
        format!("trajectory.{}", self.kind.name())
    }

    /// Whether the caller's input is at fault (vs. the tokenizer or the template setup). An
    /// explicit match: a new kind must be classified here.
    pub fn is_invalid_input(&self) -> bool {
        use TrajectoryErrorKind::*;
        match self.kind {
            Setup(_) => false,
            InvalidInput(_)
            | MissingRole
            | ChatTemplate(_)
            | SentinelNotFound { .. }
            | DictToolCalls
            | DictContentNotString
            | InvalidBytes(_)
            | UnrepresentableTokenId(_)
            | TokenIdOutOfVocabulary { .. }
            | TokenNotInVocabulary(_)
            | SentinelCollision { .. }
            | ExtraLogprobs(_)
            | Index(_)
            | Tokenize(_)
            | InvalidArgument(_) => true,
        }
    }
}

impl fmt::Display for TrajectoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.location == Location::default() {
            write!(f, "{}", self.kind)
        } else {
            write!(f, "{}: {}", self.location, self.kind)
        }
    }
}

impl std::error::Error for TrajectoryError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause.as_deref().map(|c| c as &(dyn std::error::Error + 'static))
    }
}

pub type Result<T, E = TrajectoryError> = std::result::Result<T, E>;

pub(crate) fn invalid(msg: impl Into<String>) -> TrajectoryError {
    TrajectoryError::new(TrajectoryErrorKind::InvalidInput(msg.into()))
}

#[cfg(test)]
mod tests {
    use super::{TrajectoryError, TrajectoryErrorKind as K};
    use crate::ErrorClass;
    use std::error::Error as _;

    #[test]
    fn class_and_code() {
        let setup = TrajectoryError::new(K::Setup("no template".into()));
        assert_eq!((setup.class(), setup.code().as_str()), (ErrorClass::Setup, "trajectory.setup"));
        let bad = TrajectoryError::new(K::MissingRole);
        assert_eq!((bad.class(), bad.code().as_str()), (ErrorClass::InvalidInput, "trajectory.missing_role"));
    }

    #[test]
    fn the_cause_is_the_source() {
        let core = crate::Error::InvalidArgument("x".into());
        let e = TrajectoryError::new(K::Tokenize(core.to_string())).caused_by(core);
        let source = e.source().expect("kept");
        assert!(matches!(source.downcast_ref::<crate::Error>(), Some(crate::Error::InvalidArgument(_))));
        assert!(e.cause().is_some() && TrajectoryError::new(K::MissingRole).source().is_none());
    }
}
