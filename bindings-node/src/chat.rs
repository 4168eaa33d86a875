//! `applyChatTemplate`: the JS layer hands over the conversation, tools, documents and template
//! kwargs as JSON text (`JSON.stringify`, which keeps key order) plus the flags; this file parses
//! them into a core [`ChatRequest`] and runs [`yieldtok::Tokenizer::apply_chat_template`] — on
//! the core scheduler (`Tokenizer::spawn`) for the Promise version, JSON parsing included, or on
//! the calling thread for the sync twin. The JS layer shapes the result the way transformers
//! returns it (a string, ids, or a dict).

use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;
use serde_json::Value;
use yieldtok::{ChatOptions, ChatOutput, ChatRequest};

use crate::cancel::CancelToken;
use crate::errors::guard;
use crate::promise::run_task;
use crate::NativeTokenizer;

/// The arguments of one `applyChatTemplate` call (JSON values as text).
#[napi(object)]
pub struct ChatArgs {
    /// The conversation, a JSON list of message objects.
    pub messages: String,
    /// Tool schemas (JSON), or none.
    pub tools: Option<String>,
    /// RAG documents (JSON), or none.
    pub documents: Option<String>,
    /// Extra template variables (a JSON object), or none.
    pub kwargs: Option<String>,
    pub add_generation_prompt: bool,
    pub continue_final_message: bool,
    /// Continue this field of the final message (implies `continue_final_message`).
    pub continue_final_field: Option<String>,
    /// A template name or source (default: the tokenizer's).
    pub chat_template: Option<String>,
    pub tokenize: bool,
    pub return_assistant_tokens_mask: bool,
    /// Hand the rendered text back (else only the ids are).
    pub return_text: bool,
}

/// What `applyChatTemplate` computed; the JS layer shapes it like transformers.
#[napi(object)]
pub struct ChatResult {
    pub text: Option<String>,
    pub ids: Option<Uint32Array>,
    pub assistant_mask: Option<Uint32Array>,
}

/// [`ChatResult`] as plain data, built on a worker.
pub struct Chat {
    text: Option<String>,
    ids: Option<Vec<u32>>,
    assistant_mask: Option<Vec<u32>>,
}

impl Chat {
    fn into_js(self) -> Result<ChatResult> {
        Ok(ChatResult { text: self.text, ids: self.ids.map(Uint32Array::new), assistant_mask: self.assistant_mask.map(Uint32Array::new) })
    }
}

fn parse(json: &str, what: &str) -> yieldtok::Result<Value> {
    serde_json::from_str(json).map_err(|e| yieldtok::Error::InvalidArgument(format!("{what}: {e}")))
}

/// Parse, render and (when asked) tokenize.
fn render(tok: &yieldtok::Tokenizer, args: ChatArgs) -> yieldtok::Result<Chat> {
    let optional = |json: Option<&str>, what: &str| json.map(|j| parse(j, what)).transpose();
    let kwargs = match optional(args.kwargs.as_deref(), "kwargs")? {
        None | Some(Value::Null) => Default::default(),
        Some(Value::Object(m)) => m,
        Some(_) => return Err(yieldtok::Error::InvalidArgument("kwargs must be an object".into())),
    };
    let req = ChatRequest {
        messages: parse(&args.messages, "messages")?,
        tools: optional(args.tools.as_deref(), "tools")?,
        documents: optional(args.documents.as_deref(), "documents")?,
        add_generation_prompt: args.add_generation_prompt,
        continue_final_message: args.continue_final_message || args.continue_final_field.is_some(),
        continue_final_field: args.continue_final_field,
        kwargs,
    };
    let opts = ChatOptions {
        chat_template: args.chat_template,
        tokenize: args.tokenize,
        return_assistant_tokens_mask: args.return_assistant_tokens_mask,
    };
    let ChatOutput { text, mut ids, mut assistant_mask } = tok.apply_chat_template(&req, &opts)?;
    // `Uint32Array::new` shrinks to fit, which may reallocate: do it here, on the worker.
    ids.iter_mut().chain(assistant_mask.iter_mut()).for_each(|v| v.shrink_to_fit());
    Ok(Chat { text: args.return_text.then_some(text), ids, assistant_mask })
}

#[napi]
impl NativeTokenizer {
    /// Render (and tokenize) a conversation on the core scheduler; resolves to a [`ChatResult`].
    #[napi(ts_return_type = "Promise<ChatResult>")]
    pub fn apply_chat_template<'env>(&self, env: &'env Env, args: ChatArgs, token: Option<&CancelToken>) -> Result<Object<'env>> {
        run_task(env, self.tok.spawn(move |tok| render(tok, args)), token, Chat::into_js)
    }

    /// [`apply_chat_template`](Self::apply_chat_template) on the calling thread.
    #[napi]
    pub fn apply_chat_template_sync(&self, args: ChatArgs) -> Result<ChatResult> {
        guard(|| render(&self.tok, args)).and_then(Chat::into_js)
    }
}
