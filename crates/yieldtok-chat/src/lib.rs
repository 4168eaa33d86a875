//! # yieldtok-chat
//!
//! Chat templates rendered like transformers' `apply_chat_template(...,
//! tokenize=False)` (transformers 5.x), with `minijinja` 3. This crate knows
//! nothing of tokenizers (it builds and tests without `tokenizers`); the
//! `yieldtok` crate re-exports it as `yieldtok::chat_template` and adds the
//! tokenizing half (`Tokenizer::apply_chat_template`, the template cache).
//!
//! [`ChatTemplate::new`] compiles a template once (a Hugging Face
//! `chat_template`; [`TemplateSource`] + [`select_template`] /
//! [`resolve_chat_template_arg`] pick among named templates);
//! [`ChatTemplate::render`] turns a [`ChatRequest`] into the exact string
//! transformers would produce, plus the byte spans that `{% generation %}`
//! blocks produced ([`assistant_mask`] turns them and token offsets into
//! transformers' `assistant_masks`).
//!
//! Behaviour follows transformers 5.x, not 4.x: message keys whose value is
//! `null` are dropped before rendering (so `{"content": null}` is a message
//! *without* `content`), reasoning given as `reasoning_content`, `thinking`
//! or `reasoning` is visible under both `thinking` and `reasoning_content`,
//! special tokens are template variables that kwargs override, and
//! `continue_final_message` cuts the output at the final message exactly
//! like transformers.
//!
//! Templates are untrusted: each render runs with a fuel budget, a
//! recursion limit and an output size limit ([`Limits`]), stored values are
//! kept shallow (see `sandbox`), and a bad template ends with a
//! [`ChatTemplateError`], never a hang, a panic or a stack overflow.
//!
//! Known differences from jinja2 (engine-level, none used by the qwen3,
//! llama3_1, gemma3 or deepseek_v3 templates): `'%s' % x` is unsupported,
//! `~` concatenation prints floats Rust-style (`1e-07`
//! becomes `0.0000001` in `'a' ~ x`; `{{ x }}`, `|string`, `|join`,
//! `|trim`, `|tojson` are Python-exact), `loop.length`/`loop.last` are
//! unknown when looping over a string, `|pprint` never wraps lines, `x|attr(name)` on a namespace gives
//! undefined, `{% set ns._x = ... %}` is not refused, and a namespace cannot
//! be stored inside a namespace (refused, for safety).
//!
//! Files: `environment` (engine setup and limits), `scan` (finding tags in
//! template source), `literals` (string literals with Python escapes), `forloop` (`for` over
//! `none` raises), `generation` (`{% generation %}` and the assistant
//! mask), `sandbox` (guarded `{% set %}`, depth limits), `pyjson`
//! (`tojson` = `json.dumps`), `pyfloat` (float repr), `pystr` (Python string
//! algorithms, `trim`), `pyrepr` (Python `str()`/`repr()` of values, the
//! output formatter, `join`/`items`/`dictsort`/`pprint`/`attr`), `pyconv`
//! (`int`/`float`/`center`/`truncate`/`wordcount`, `is sequence`,
//! `namespace`), `methods` (Python methods on values), `preprocess`
//! (message preprocessing, `continue_final_message`, JSON → values),
//! `strftime` (`strftime_now`), `render_state` (per-render state), `select`
//! (named templates), `error`.

mod environment;
mod error;
mod forloop;
mod generation;
mod literals;
mod methods;
mod preprocess;
mod pyconv;
mod pyfloat;
mod pyjson;
mod pyrepr;
mod pystr;
mod render_state;
mod sandbox;
/// The tag scanner behind the source rewrites; public only with the `fuzzing` feature, for the
/// fuzz target that checks it against minijinja's lexer (`fuzz/fuzz_targets/tag_scanner.rs`).
#[cfg(feature = "fuzzing")]
pub mod scan;
#[cfg(not(feature = "fuzzing"))]
mod scan;
mod select;
mod strftime;

use std::cell::{Cell, RefCell};
use std::ops::Range;
use std::rc::Rc;

use minijinja::{Environment, ErrorKind};
use serde_json::{Map, Value as Json};

pub use environment::{Limits, DEFAULT_FUEL, DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_RECURSION_LIMIT};
pub use error::ChatTemplateError;
pub use generation::assistant_mask;
pub use pyjson::{dumps_json as python_json_dumps, DumpOptions};
pub use select::{resolve_chat_template_arg, select_template, TemplateSource};
pub use strftime::{fixed_clock, system_clock, Clock};

/// The named special tokens transformers exposes to templates
/// (`SPECIAL_TOKENS_ATTRIBUTES`).
pub const SPECIAL_TOKEN_NAMES: [&str; 7] =
    ["bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"];

/// Variables transformers passes itself; kwargs may not use these names.
const RESERVED_KWARGS: [&str; 8] = [
    "messages",
    "tools",
    "documents",
    "add_generation_prompt",
    "conversation",
    "chat_template",
    "continue_final_message",
    "return_assistant_tokens_mask",
];

/// The special-token variables of a tokenizer, as transformers'
/// `special_tokens_map`: the seven named tokens of `tokenizer_config.json`
/// that are set, as strings (an `AddedToken` object gives its `content`).
pub fn special_tokens_from_config(config: &Json) -> Map<String, Json> {
    let mut out = Map::new();
    for name in SPECIAL_TOKEN_NAMES {
        if let Some(s) = config.get(name).and_then(token_string) {
            out.insert(name.to_string(), Json::String(s));
        }
    }
    out
}

fn token_string(v: &Json) -> Option<String> {
    match v {
        Json::String(s) => Some(s.clone()),
        Json::Object(m) => m.get("content").and_then(Json::as_str).map(str::to_string),
        _ => None,
    }
}

/// How messages are prepared before they reach the template.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MessageHandling {
    /// Later transformers 5.x (the default): top-level `null` values are dropped and
    /// reasoning is aliased under `thinking` / `reasoning_content`.
    #[default]
    Transformers5,
    /// transformers 4.x up to 5.2.0 (OpenPipe ART 0.5.18 pins 5.2.0): messages are rendered
    /// exactly as given: `{"content": null}` keeps a `content` that is `none`; no aliasing.
    AsGiven,
}

/// Options beyond the template and special tokens.
#[derive(Clone)]
pub struct ChatTemplateOptions {
    pub limits: Limits,
    /// Clock behind `strftime_now` (default: local wall clock).
    pub clock: Clock,
    /// Message preprocessing (default: [`MessageHandling::Transformers5`]).
    pub message_handling: MessageHandling,
}

impl Default for ChatTemplateOptions {
    fn default() -> Self {
        ChatTemplateOptions {
            limits: Limits::default(),
            clock: system_clock(),
            message_handling: MessageHandling::default(),
        }
    }
}

impl std::fmt::Debug for ChatTemplateOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatTemplateOptions").field("limits", &self.limits).finish_non_exhaustive()
    }
}

/// A compiled chat template with its environment. `Send + Sync`; render
/// from any number of threads.
pub struct ChatTemplate {
    env: Environment<'static>,
    source: String,
    special_tokens: Map<String, Json>,
    options: ChatTemplateOptions,
    has_generation: bool,
}

impl std::fmt::Debug for ChatTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatTemplate")
            .field("source_len", &self.source.len())
            .field("special_tokens", &self.special_tokens)
            .field("options", &self.options)
            .finish()
    }
}

/// One `apply_chat_template` call.
#[derive(Debug, Clone, Default)]
pub struct ChatRequest {
    /// The conversation: a list of message objects.
    pub messages: Json,
    /// Tool schemas (a list of objects); `None` or `null` = no tools.
    pub tools: Option<Json>,
    /// RAG documents (a list of objects); `None` or `null` = none.
    pub documents: Option<Json>,
    pub add_generation_prompt: bool,
    /// Continue the final message's `content` (transformers' `True`).
    pub continue_final_message: bool,
    /// Continue this field of the final message instead of `content`
    /// (transformers' `continue_final_message="reasoning_content"`);
    /// setting it implies `continue_final_message`.
    pub continue_final_field: Option<String>,
    /// Extra template variables (`enable_thinking`, ...); they override
    /// the special tokens.
    pub kwargs: Map<String, Json>,
}

/// A rendered conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub text: String,
    /// Byte ranges of text produced inside `{% generation %}` blocks, in the
    /// order the blocks finished (transformers' `generation_indices`, in bytes).
    pub generation_spans: Vec<Range<usize>>,
}

impl ChatTemplate {
    /// Compiles `source`. `special_tokens` are the template variables
    /// `bos_token`, `eos_token`, ... (see [`special_tokens_from_config`]);
    /// string values, or `AddedToken` objects (their `content` is used);
    /// `null`s are skipped.
    pub fn new(source: &str, special_tokens: Map<String, Json>) -> Result<Self, ChatTemplateError> {
        Self::with_options(source, special_tokens, ChatTemplateOptions::default())
    }

    /// Like [`new`](Self::new) with explicit limits and clock.
    pub fn with_options(
        source: &str,
        special_tokens: Map<String, Json>,
        options: ChatTemplateOptions,
    ) -> Result<Self, ChatTemplateError> {
        let (env, has_generation) =
            environment::build(source, &options.limits).map_err(|e| ChatTemplateError::Syntax {
                message: e.detail().map(str::to_string).unwrap_or_else(|| e.to_string()),
                line: e.line(),
            })?;
        let special_tokens = special_tokens
            .into_iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| {
                let v = match &v {
                    Json::Object(_) => token_string(&v).map(Json::String).unwrap_or(v),
                    _ => v,
                };
                (k, v)
            })
            .collect();
        Ok(ChatTemplate { env, source: source.to_string(), special_tokens, options, has_generation })
    }

    /// The template source as given.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether the template has `{% generation %}` blocks (transformers
    /// warns when `return_assistant_tokens_mask` is asked without them).
    pub fn has_generation_blocks(&self) -> bool {
        self.has_generation
    }

    /// The limits each render runs under.
    pub fn limits(&self) -> &Limits {
        &self.options.limits
    }

    /// Renders one conversation like transformers' `apply_chat_template(...,
    /// tokenize=False)`.
    pub fn render(&self, req: &ChatRequest) -> Result<Rendered, ChatTemplateError> {
        let tools = req.tools.as_ref().filter(|t| !t.is_null());
        let documents = req.documents.as_ref().filter(|d| !d.is_null());
        let continuing = req.continue_final_message || req.continue_final_field.is_some();
        if continuing && req.add_generation_prompt {
            return Err(ChatTemplateError::argument(
                "continue_final_message and add_generation_prompt are not compatible. Use continue_final_message when you want the model to continue the final message, and add_generation_prompt when you want to add a header that will prompt it to start a new assistant message instead.",
            ));
        }
        if let Some(k) = req.kwargs.keys().find(|k| RESERVED_KWARGS.contains(&k.as_str())) {
            return Err(ChatTemplateError::argument(format!("got multiple values for keyword argument '{k}'")));
        }
        check_depth("messages", &req.messages)?;
        for (what, v) in [("tools", tools), ("documents", documents)] {
            if let Some(v) = v {
                check_depth(what, v)?;
            }
        }
        for (k, v) in &req.kwargs {
            check_depth(k, v)?;
        }
        preprocess::validate_tools_and_documents(tools, documents)?;
        let list = preprocess::validate_messages(&req.messages)?;
        let mut messages: Vec<minijinja::Value> = Vec::with_capacity(list.len());
        let final_message = if continuing {
            // rare path: the final message is copied and tagged
            let (last, init) = list.split_last().expect("validated non-empty");
            messages.extend(init.iter().map(|m| self.message_value(m.as_object().expect("validated"))));
            let mut tagged = vec![self.normalized_message(last.as_object().expect("validated"))];
            let field = req.continue_final_field.as_deref().unwrap_or("content");
            let fm = preprocess::prepare_continue(&mut tagged, field, &self.source)?;
            messages.push(preprocess::json_to_value(&Json::Object(tagged.pop().expect("one message"))));
            Some(fm)
        } else {
            messages.extend(list.iter().map(|m| self.message_value(m.as_object().expect("validated"))));
            None
        };

        // transformers rebuilds `tools` as a list
        let tools = match tools {
            None => minijinja::Value::from(()),
            Some(t) if t.is_array() => preprocess::json_to_value(t),
            Some(_) => minijinja::Value::from(Vec::<minijinja::Value>::new()),
        };
        let documents = documents.map(preprocess::json_to_value).unwrap_or(minijinja::Value::from(()));
        let messages = minijinja::Value::from(messages);
        // the inputs and their items: the `{% set %}` guard need not walk them
        let mut known = std::collections::HashSet::new();
        for v in [&messages, &tools, &documents] {
            known.extend(sandbox::container_addr(v));
            if let Ok(items) = v.try_iter() {
                known.extend(items.filter_map(|item| sandbox::container_addr(&item)));
            }
        }
        let mut pairs: Vec<(minijinja::Value, minijinja::Value)> =
            Vec::with_capacity(4 + self.special_tokens.len() + req.kwargs.len());
        pairs.push(("messages".into(), messages));
        pairs.push(("tools".into(), tools));
        pairs.push(("documents".into(), documents));
        pairs.push(("add_generation_prompt".into(), minijinja::Value::from(req.add_generation_prompt)));
        for (k, v) in self.special_tokens.iter().chain(req.kwargs.iter()) {
            pairs.push((minijinja::Value::from(k.as_str()), preprocess::json_to_value(v)));
        }
        let ctx = minijinja::Value::from_pairs(pairs);

        let (text, spans) = self.render_value(ctx, known)?;
        let (text, spans) = match final_message {
            None => (text, spans),
            Some(fm) => {
                let cut = preprocess::finish_continue(&text, &fm)?;
                let end = cut.len();
                let spans = spans.into_iter().filter(|r| r.start < end).map(|r| r.start..r.end.min(end)).collect();
                (cut, spans)
            }
        };
        Ok(Rendered { text, generation_spans: spans })
    }

    /// Renders with an arbitrary context (no transformers preprocessing).
    /// Useful for templates that are not chat templates.
    pub fn render_context(&self, ctx: &Json) -> Result<Rendered, ChatTemplateError> {
        check_depth("context", ctx)?;
        let (text, generation_spans) = self.render_value(preprocess::json_to_value(ctx), Default::default())?;
        Ok(Rendered { text, generation_spans })
    }

    fn render_value(
        &self,
        ctx: minijinja::Value,
        known_shallow: std::collections::HashSet<usize>,
    ) -> Result<(String, Vec<Range<usize>>), ChatTemplateError> {
        let limits = self.options.limits;
        let state = Rc::new(render_state::RenderState {
            written: Cell::new(0),
            spans: RefCell::new(Vec::new()),
            clock: self.options.clock.clone(),
            raised: RefCell::new(None),
            max_output: limits.max_output_bytes,
            output_too_large: Cell::new(false),
            known_shallow,
        });
        let _installed = render_state::Installed::new(state.clone());
        let tmpl = self
            .env
            .get_template(environment::TEMPLATE_NAME)
            .map_err(|e| ChatTemplateError::Syntax { message: e.to_string(), line: e.line() })?;
        let mut sink = render_state::Sink { buf: Vec::with_capacity(4096), state: state.clone() };
        let result = tmpl.render_captured_to(ctx, &mut sink).map(drop);
        if let Err(err) = result {
            return Err(self.map_error(err, &state));
        }
        let text = String::from_utf8(std::mem::take(&mut sink.buf)).expect("the engine writes UTF-8");
        let spans = state.spans.take();
        Ok((text, spans))
    }

    fn map_error(&self, err: minijinja::Error, state: &render_state::RenderState) -> ChatTemplateError {
        let limits = self.options.limits;
        if let Some(message) = state.raised.borrow_mut().take() {
            return ChatTemplateError::Raised { message };
        }
        if state.output_too_large.get() {
            return ChatTemplateError::OutputTooLarge { limit: limits.max_output_bytes };
        }
        // look through the chain: errors in macros/filters are wrapped
        let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(&err);
        while let Some(e) = cur {
            if let Some(me) = e.downcast_ref::<minijinja::Error>() {
                match me.kind() {
                    ErrorKind::OutOfFuel => return ChatTemplateError::FuelExhausted { fuel: limits.fuel.unwrap_or(0) },
                    ErrorKind::InvalidOperation
                        if me.detail().is_some_and(|d| d.contains("recursion limit exceeded")) =>
                    {
                        return ChatTemplateError::RecursionLimit { limit: limits.recursion_limit, line: err.line() }
                    }
                    ErrorKind::SyntaxError => {
                        return ChatTemplateError::Syntax {
                            message: me.detail().map(str::to_string).unwrap_or_else(|| me.to_string()),
                            line: me.line().or(err.line()),
                        }
                    }
                    _ => {}
                }
            }
            cur = e.source();
        }
        let kind = match err.kind() {
            ErrorKind::UndefinedError => "UndefinedError".to_string(),
            k => format!("{k:?}"),
        };
        let message = match err.detail() {
            Some(d) => format!("{}: {d}", kind_description(&err)),
            None => kind_description(&err),
        };
        ChatTemplateError::Render { kind, message, line: err.line() }
    }
}

fn check_depth(what: &str, v: &Json) -> Result<(), ChatTemplateError> {
    sandbox::check_json_depth(v, sandbox::MAX_INPUT_DEPTH).map_err(|()| {
        ChatTemplateError::invalid(format!("{what} is nested more than {} levels deep", sandbox::MAX_INPUT_DEPTH))
    })
}

fn kind_description(err: &minijinja::Error) -> String {
    // minijinja's Display is "<kind description>: <detail> (in <name>:<line>)"
    let s = err.to_string();
    let s = s.split(" (in ").next().unwrap_or(&s);
    match err.detail() {
        Some(d) => s.strip_suffix(d).map(|p| p.trim_end_matches(": ").to_string()).unwrap_or_else(|| s.to_string()),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests;

impl ChatTemplate {
    fn message_value(&self, m: &Map<String, Json>) -> minijinja::Value {
        match self.options.message_handling {
            MessageHandling::Transformers5 => preprocess::message_to_value(m),
            MessageHandling::AsGiven => minijinja::Value::from_pairs(
                m.iter().map(|(k, v)| (minijinja::Value::from(k.as_str()), preprocess::json_to_value(v))),
            ),
        }
    }

    fn normalized_message(&self, m: &Map<String, Json>) -> Map<String, Json> {
        match self.options.message_handling {
            MessageHandling::Transformers5 => preprocess::normalize_message(m),
            MessageHandling::AsGiven => m.clone(),
        }
    }
}
