//! Errors of the chat-template engine, with enough context to act on:
//! where a template failed, what it raised, which limit it hit.

/// Everything that can go wrong compiling or rendering a chat template.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ChatTemplateError {
    /// The template does not parse (jinja2: `TemplateSyntaxError`).
    #[error("chat template syntax error{}: {message}", at_line(*line))]
    Syntax { message: String, line: Option<usize> },

    /// The template called `raise_exception(message)` (jinja2: `TemplateError`).
    #[error("chat template raised an exception: {message}")]
    Raised { message: String },

    /// Rendering failed: undefined attribute, bad operand types, unknown
    /// filter, ... (jinja2: `UndefinedError`, `TypeError`, ...).
    #[error("chat template render error{}: {message}", at_line(*line))]
    Render { kind: String, message: String, line: Option<usize> },

    /// The render used up its fuel (instructions + data): an endless or far
    /// too long loop.
    #[error("chat template ran out of fuel (budget {fuel}): it loops for too long or builds too much data")]
    FuelExhausted { fuel: u64 },

    /// Too deep recursion (macros calling themselves, nested includes).
    #[error("chat template exceeded the recursion limit ({limit}){}", at_line(*line))]
    RecursionLimit { limit: usize, line: Option<usize> },

    /// The rendered text (or a value built while rendering) outgrew the limit.
    #[error("rendered chat exceeds the output size limit of {limit} bytes")]
    OutputTooLarge { limit: usize },

    /// The messages (or tools/documents) are not what transformers accepts.
    #[error("invalid chat input: {message}")]
    InvalidMessages { message: String },

    /// An argument combination transformers rejects (e.g.
    /// `continue_final_message` with `add_generation_prompt`, or a final
    /// message that the template does not reproduce).
    #[error("{message}")]
    InvalidArgument { message: String },

    /// No template: the tokenizer has no `chat_template` and none was given.
    #[error(
        "cannot use chat template functions because the tokenizer has no chat_template and no template was passed"
    )]
    NoTemplate,

    /// Named templates, and the requested name is not among them.
    #[error("unknown chat template name {name:?}; available: {}", available.join(", "))]
    UnknownTemplateName { name: String, available: Vec<String> },

    /// Named templates, none named "default", and no name was requested.
    #[error("this tokenizer has multiple chat templates and none is named \"default\"; pass one of: {}", available.join(", "))]
    NoDefaultTemplate { available: Vec<String> },
}

fn at_line(line: Option<usize>) -> String {
    match line {
        Some(l) => format!(" (line {l})"),
        None => String::new(),
    }
}

impl ChatTemplateError {
    /// The Python exception class transformers raises for the same failure
    /// (for bindings that mirror transformers).
    pub fn python_exception(&self) -> &'static str {
        match self {
            ChatTemplateError::Syntax { .. } => "TemplateSyntaxError",
            ChatTemplateError::Raised { .. } => "TemplateError",
            ChatTemplateError::Render { kind, .. } if kind == "UndefinedError" => "UndefinedError",
            ChatTemplateError::Render { .. } => "TypeError",
            ChatTemplateError::FuelExhausted { .. } | ChatTemplateError::OutputTooLarge { .. } => "RuntimeError",
            ChatTemplateError::RecursionLimit { .. } => "RecursionError",
            ChatTemplateError::InvalidMessages { .. } => "TypeError",
            ChatTemplateError::InvalidArgument { .. }
            | ChatTemplateError::NoTemplate
            | ChatTemplateError::UnknownTemplateName { .. }
            | ChatTemplateError::NoDefaultTemplate { .. } => "ValueError",
        }
    }

    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        ChatTemplateError::InvalidMessages { message: message.into() }
    }

    pub(crate) fn argument(message: impl Into<String>) -> Self {
        ChatTemplateError::InvalidArgument { message: message.into() }
    }
}
