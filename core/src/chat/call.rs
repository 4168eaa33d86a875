//! The host-call layer of `apply_chat_template`: one call as a front end receives it
//! ([`ChatCall`]: transformers' arguments with transformers' defaults, written once here), how it
//! becomes the core's [`ChatRequest`] + [`ChatOptions`], and what transformers returns for it
//! ([`ChatReturn`]: the text, the ids, or the dict). The Python, Node and wasm bindings only
//! convert their host's values into a [`ChatCall`] and a [`ChatReturn`] back into host values.
//!
//! [`Tokenizer::chat_batch`] is transformers 5's form (what the Python binding runs): `messages`
//! may be a list of conversations (a batch), and the renders are encoded together with the
//! tokenizer's truncation and padding — the handle a front end's `__call__` machinery built from
//! `padding` / `truncation` / `max_length` / `tokenizer_kwargs` — as transformers passes its
//! render to `tokenizer(...)`; the assistant masks are taken over those final encodings. The
//! front end shapes the encodings as its `__call__` does.

use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value as Json};

use super::{ChatOptions, ChatOutput};
use crate::chat_template::{assistant_mask, ChatRequest};
use crate::error::{Error, Result};
use crate::{CancelFlag, EncodeOptions, JobOutput, Output, Tokenizer};

/// transformers' `continue_final_message`: `False`/`None`, `True` (continue the final message's
/// `content`), or the name of the field of the final message to continue (e.g.
/// `"reasoning_content"`). Deserializes from `null`, a boolean or a string.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(from = "Option<ContinueRepr>")]
pub enum ContinueFinalMessage {
    /// Do not continue (transformers' `False` / `None`; the default).
    #[default]
    No,
    /// Continue the final message's `content` (transformers' `True`).
    Content,
    /// Continue this field of the final message.
    Field(String),
}

#[derive(Deserialize)]
#[serde(untagged)]
enum ContinueRepr {
    Flag(bool),
    Field(String),
}

impl From<Option<ContinueRepr>> for ContinueFinalMessage {
    fn from(r: Option<ContinueRepr>) -> Self {
        match r {
            None | Some(ContinueRepr::Flag(false)) => ContinueFinalMessage::No,
            Some(ContinueRepr::Flag(true)) => ContinueFinalMessage::Content,
            Some(ContinueRepr::Field(f)) => ContinueFinalMessage::Field(f),
        }
    }
}

/// One `apply_chat_template` call with transformers' arguments and defaults
/// (`tokenize=True`, everything else off). Hosts that hand over JSON deserialize it (camelCase
/// keys, every key optional but `messages`; `null` means absent); others fill it in.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ChatCall {
    /// The conversation: a list of message objects.
    pub messages: Json,
    /// Tool schemas (a list of objects); `None` = no tools.
    pub tools: Option<Json>,
    /// RAG documents (a list of objects); `None` = none.
    pub documents: Option<Json>,
    /// Extra template variables (`enable_thinking`, ...).
    #[serde(deserialize_with = "null_as_empty")]
    pub kwargs: Map<String, Json>,
    /// A template name or a template source; `None`: the tokenizer's.
    pub chat_template: Option<String>,
    pub add_generation_prompt: bool,
    pub continue_final_message: ContinueFinalMessage,
    /// Return the ids instead of the text (default `true`, as in transformers).
    pub tokenize: bool,
    /// Return a dict (`input_ids`, `attention_mask`, ...). [`Tokenizer::chat`] (default
    /// `false`, transformers 4's): computes the ids even when `tokenize` is false.
    /// [`Tokenizer::chat_batch`] (transformers 5's, whose default `true` the host passes): off
    /// when `tokenize` is false; `return_assistant_tokens_mask` needs it.
    pub return_dict: bool,
    pub return_assistant_tokens_mask: bool,
}

impl Default for ChatCall {
    fn default() -> Self {
        ChatCall {
            messages: Json::Null,
            tools: None,
            documents: None,
            kwargs: Map::new(),
            chat_template: None,
            add_generation_prompt: false,
            continue_final_message: ContinueFinalMessage::No,
            tokenize: true,
            return_dict: false,
            return_assistant_tokens_mask: false,
        }
    }
}

fn null_as_empty<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Map<String, Json>, D::Error> {
    Option::<Map<String, Json>>::deserialize(d).map(Option::unwrap_or_default)
}

/// What transformers' `apply_chat_template` returns for a [`ChatCall`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChatReturn {
    /// `tokenize=False` (and no `return_dict`): the rendered text.
    Text(String),
    /// `tokenize=True` (and no `return_dict`): the token ids.
    Ids(Vec<u32>),
    /// `return_dict=True`.
    Dict {
        /// The rendered text, present when `tokenize=False`.
        text: Option<String>,
        input_ids: Vec<u32>,
        /// All ones, one per id.
        attention_mask: Vec<u32>,
        /// Present when `return_assistant_tokens_mask=True`.
        assistant_masks: Option<Vec<u32>>,
    },
}

impl ChatCall {
    /// The core's request and options for this call.
    pub fn into_parts(self) -> (ChatRequest, ChatOptions) {
        let (continue_final_message, continue_final_field) = match self.continue_final_message {
            ContinueFinalMessage::No => (false, None),
            ContinueFinalMessage::Content => (true, None),
            ContinueFinalMessage::Field(f) => (true, Some(f)),
        };
        let req = ChatRequest {
            messages: self.messages,
            tools: self.tools,
            documents: self.documents,
            add_generation_prompt: self.add_generation_prompt,
            continue_final_message,
            continue_final_field,
            kwargs: self.kwargs,
        };
        let opts = ChatOptions {
            chat_template: self.chat_template,
            tokenize: self.tokenize || self.return_dict,
            return_assistant_tokens_mask: self.return_assistant_tokens_mask,
        };
        (req, opts)
    }
}

impl ChatReturn {
    /// transformers' return value for `tokenize` / `return_dict`, from the core's output.
    pub fn new(out: ChatOutput, tokenize: bool, return_dict: bool) -> Self {
        if !tokenize && !return_dict {
            return ChatReturn::Text(out.text);
        }
        let input_ids = out.ids.unwrap_or_default();
        if !return_dict {
            return ChatReturn::Ids(input_ids);
        }
        ChatReturn::Dict {
            text: (!tokenize).then_some(out.text),
            attention_mask: vec![1; input_ids.len()],
            input_ids,
            assistant_masks: out.assistant_mask,
        }
    }
}

impl Tokenizer {
    /// One host call of `apply_chat_template`: renders (and tokenizes) on the calling thread and
    /// returns what transformers returns.
    pub fn chat(&self, call: ChatCall) -> Result<ChatReturn> {
        let (tokenize, return_dict) = (call.tokenize, call.return_dict);
        let (req, opts) = call.into_parts();
        Ok(ChatReturn::new(self.apply_chat_template(&req, &opts)?, tokenize, return_dict))
    }
}

/// What [`Tokenizer::chat_batch`] returns: the renders, and when tokenized, their encodings
/// (one per conversation, in order) and the assistant masks over them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatBatch {
    /// `messages` was a list of conversations (transformers' `is_batched`).
    pub batched: bool,
    /// The rendered texts, one per conversation.
    pub texts: Vec<String>,
    /// `tokenize`: each text encoded without special tokens, with the tokenizer's truncation
    /// and padding (padded over the batch), in the output asked for.
    pub encodings: Option<Vec<JobOutput>>,
    /// `return_assistant_tokens_mask`: per encoding, 1 for each token overlapping a
    /// `{% generation %}` span (after truncation and padding, as transformers 5 computes it).
    pub assistant_masks: Option<Vec<Vec<u32>>>,
}

impl ChatCall {
    /// The conversations of this call and whether they are a batch: transformers treats a list
    /// whose first item is a list as a list of conversations.
    fn conversations(&mut self) -> (bool, Vec<Json>) {
        match &mut self.messages {
            Json::Array(items) if items.first().is_some_and(Json::is_array) => (true, std::mem::take(items)),
            other => (false, vec![std::mem::take(other)]),
        }
    }
}

impl Tokenizer {
    /// transformers 5's `apply_chat_template` on one conversation or a batch: checks its
    /// arguments as it does, renders each conversation, and with `call.tokenize` encodes the
    /// renders as one batch (no special tokens; this tokenizer's truncation and padding) in
    /// `output` — full encodings are used whenever padding or the assistant mask needs them.
    pub fn chat_batch(&self, call: ChatCall, output: Output) -> Result<ChatBatch> {
        self.chat_batch_with_cancel(call, output, &CancelFlag::new())
    }

    /// [`chat_batch`](Self::chat_batch) whose encode stops once `cancel` is set.
    pub fn chat_batch_with_cancel(&self, mut call: ChatCall, output: Output, cancel: &CancelFlag) -> Result<ChatBatch> {
        let (tokenize, mask) = (call.tokenize, call.return_assistant_tokens_mask);
        if mask && !(tokenize && call.return_dict) {
            return Err(Error::InvalidArgument(
                "`return_assistant_tokens_mask=True` requires `return_dict=True` and `tokenize=True`".into(),
            ));
        }
        let (batched, conversations) = call.conversations();
        let (request, opts) = call.into_parts();
        let mut texts = Vec::with_capacity(conversations.len());
        let mut spans = Vec::with_capacity(conversations.len());
        for messages in conversations {
            let req = ChatRequest { messages, ..request.clone() };
            if mask && (req.continue_final_message || req.continue_final_field.is_some()) {
                return Err(Error::InvalidArgument(
                    "continue_final_message is not compatible with return_assistant_tokens_mask.".into(),
                ));
            }
            let rendered = self.render_chat(&req, opts.chat_template.as_deref())?;
            texts.push(rendered.text);
            spans.push(rendered.generation_spans);
        }
        if !tokenize {
            return Ok(ChatBatch { batched, texts, encodings: None, assistant_masks: None });
        }
        let output = if mask || self.padding().is_some() { Output::Full } else { output };
        let enc_opts = EncodeOptions { add_special_tokens: false, output, ..Default::default() };
        let encodings = self.encode_batch_with_cancel(&texts, &enc_opts, cancel)?;
        let assistant_masks = mask.then(|| {
            encodings
                .iter()
                .zip(&spans)
                .map(|(e, s)| match e {
                    JobOutput::Full(e) => assistant_mask(s, &e.offsets),
                    JobOutput::Ids(_) => unreachable!("masks are taken over full encodings"),
                })
                .collect()
        });
        Ok(ChatBatch { batched, texts, encodings: Some(encodings), assistant_masks })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn call(v: Json) -> ChatCall {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn defaults_are_transformers_and_null_means_absent() {
        let c = call(json!({"messages": [], "tools": null, "kwargs": null, "continueFinalMessage": null}));
        assert!(c.tokenize && !c.return_dict && !c.add_generation_prompt && !c.return_assistant_tokens_mask);
        assert_eq!((c.tools, c.kwargs.len(), c.continue_final_message), (None, 0, ContinueFinalMessage::No));
        let (req, opts) = call(json!({"messages": [], "tokenize": false})).into_parts();
        assert!(!req.continue_final_message && req.continue_final_field.is_none() && !opts.tokenize);
    }

    #[test]
    fn a_list_of_lists_is_a_batch() {
        let one = json!([{"role": "user", "content": "a"}]);
        let (batched, convs) = call(json!({"messages": one})).conversations();
        assert!(!batched && convs == [one.clone()]);
        let (batched, convs) = call(json!({"messages": [one, []]})).conversations();
        assert!(batched && convs == [one, json!([])]);
        let (batched, convs) = call(json!({"messages": []})).conversations();
        assert!(!batched && convs == [json!([])], "an empty conversation is one (refused when rendered)");
    }

    #[test]
    fn continue_final_message_is_a_flag_or_a_field() {
        for (v, want) in [
            (json!(false), (false, None)),
            (json!(true), (true, None)),
            (json!("reasoning_content"), (true, Some("reasoning_content".to_string()))),
        ] {
            let (req, _) = call(json!({"messages": [], "continueFinalMessage": v})).into_parts();
            assert_eq!((req.continue_final_message, req.continue_final_field), want, "{v}");
        }
        assert!(serde_json::from_value::<ChatCall>(json!({"continueFinalMessage": 1})).is_err());
        let c = call(json!({"messages": [{"role": "user"}], "kwargs": {"b": 1, "a": 2}, "chatTemplate": "t"}));
        assert_eq!(c.kwargs.keys().collect::<Vec<_>>(), ["b", "a"], "kwargs keep their order");
        assert_eq!(c.chat_template.as_deref(), Some("t"));
    }

    #[test]
    fn return_dict_computes_the_ids_and_shapes_like_transformers() {
        let (_, opts) = call(json!({"messages": [], "tokenize": false, "returnDict": true})).into_parts();
        assert!(opts.tokenize);
        let out = || ChatOutput { text: "t".into(), ids: Some(vec![7, 8]), assistant_mask: Some(vec![0, 1]) };
        assert_eq!(ChatReturn::new(out(), false, false), ChatReturn::Text("t".into()));
        assert_eq!(ChatReturn::new(out(), true, false), ChatReturn::Ids(vec![7, 8]));
        let dict = |text: Option<&str>| ChatReturn::Dict {
            text: text.map(str::to_string),
            input_ids: vec![7, 8],
            attention_mask: vec![1, 1],
            assistant_masks: Some(vec![0, 1]),
        };
        assert_eq!(ChatReturn::new(out(), true, true), dict(None));
        assert_eq!(ChatReturn::new(out(), false, true), dict(Some("t")));
        let none = ChatOutput { text: "t".into(), ids: None, assistant_mask: None };
        assert_eq!(ChatReturn::new(none, true, false), ChatReturn::Ids(vec![]));
    }
}
