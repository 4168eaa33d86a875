//! `apply_chat_template` on a [`Tokenizer`]: picks the template the way transformers does (the
//! model folder's named or single template, or a `chat_template` argument that is a name or a
//! template source), keeps compiled templates in a per-tokenizer cache, renders with the
//! [`chat_template`](crate::chat_template) engine, and optionally tokenizes the result
//! (`add_special_tokens = false`, as transformers does) with transformers' assistant mask over
//! `{% generation %}` spans. `call` is the host-call layer the bindings use
//! ([`ChatCall`] in, [`ChatReturn`] out).

mod call;

pub use call::{ChatBatch, ChatCall, ChatReturn, ContinueFinalMessage};

use std::sync::Arc;

use crate::chat_template::{assistant_mask, resolve_chat_template_arg, ChatRequest, ChatTemplate, Rendered};
use crate::error::{Error, Result};
use crate::Tokenizer;

/// How to apply a chat template.
#[derive(Debug, Clone, Default)]
pub struct ChatOptions {
    /// A template name (for folders with named templates) or a template source; `None`: the
    /// folder's default (or `tool_use` when tools are given and the folder has one).
    pub chat_template: Option<String>,
    /// Also return the token ids of the rendered text.
    pub tokenize: bool,
    /// Also return transformers' assistant mask (needs `{% generation %}` blocks; implies ids).
    pub return_assistant_tokens_mask: bool,
}

/// The result of [`Tokenizer::apply_chat_template`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatOutput {
    pub text: String,
    pub ids: Option<Vec<u32>>,
    pub assistant_mask: Option<Vec<u32>>,
}

impl Tokenizer {
    /// The compiled template that `chat_template` (a name, a source, or `None`) selects.
    pub fn chat_template(&self, chat_template: Option<&str>, has_tools: bool) -> Result<Arc<ChatTemplate>> {
        let config = self.inner.config.as_ref();
        let source =
            resolve_chat_template_arg(config.and_then(|c| c.chat_template.as_ref()), chat_template, has_tools)?;
        let cache = &self.inner.templates.0;
        if let Some(t) = cache.try_read().ok().and_then(|c| c.get(source).cloned()) {
            return Ok(t);
        }
        let specials = config.map(|c| c.template_special_tokens()).unwrap_or_default();
        let compiled = Arc::new(ChatTemplate::new(source, specials)?);
        if let Ok(mut c) = cache.try_write() {
            c.entry(source.to_string()).or_insert_with(|| compiled.clone());
        }
        Ok(compiled)
    }

    /// Render a conversation like transformers' `apply_chat_template`, and tokenize it when
    /// asked. Rendering and tokenizing run on the calling thread.
    pub fn apply_chat_template(&self, req: &ChatRequest, opts: &ChatOptions) -> Result<ChatOutput> {
        if opts.return_assistant_tokens_mask && (req.continue_final_message || req.continue_final_field.is_some()) {
            return Err(Error::InvalidArgument(
                "continue_final_message is not compatible with return_assistant_tokens_mask".into(),
            ));
        }
        let rendered = self.render_chat(req, opts.chat_template.as_deref())?;
        let (ids, assistant_mask) = if opts.return_assistant_tokens_mask {
            let enc = self.encode_plain(&rendered.text, false)?;
            let mask = assistant_mask(&rendered.generation_spans, &enc.offsets);
            (Some(enc.ids), Some(mask))
        } else if opts.tokenize {
            (Some(self.encode_ids_plain(&rendered.text, false)?), None)
        } else {
            (None, None)
        };
        Ok(ChatOutput { text: rendered.text, ids, assistant_mask })
    }

    /// Render one conversation with the template `chat_template` selects (see
    /// [`chat_template`](Self::chat_template)).
    pub(crate) fn render_chat(&self, req: &ChatRequest, chat_template: Option<&str>) -> Result<Rendered> {
        let has_tools = req.tools.as_ref().is_some_and(|t| !t.is_null());
        Ok(self.chat_template(chat_template, has_tools)?.render(req)?)
    }
}
