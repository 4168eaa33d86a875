//! `applyChatTemplate`: the JS layer checks the options' types and hands over the whole call as
//! one JSON text (`JSON.stringify` of each value, which keeps key order) in the core's
//! [`ChatCall`] shape (camelCase keys; absent keys take transformers' defaults in the core); this
//! file parses it and runs [`yieldtok::Tokenizer::chat`] — on the core scheduler
//! (`Tokenizer::spawn`) for the Promise version, JSON parsing included, or on the calling thread
//! for the sync twin — and hands the core's [`ChatReturn`] (text, ids, or dict) to JS.

use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;
use yieldtok::{ChatCall, ChatReturn};

use crate::cancel::CancelToken;
use crate::errors::guard;
use crate::promise::run_task;
use crate::NativeTokenizer;

/// What `applyChatTemplate` returns, for the JS layer to shape: `kind` says which of
/// transformers' results it is (`text`: `text`; `ids`: `inputIds`; `dict`: `inputIds`,
/// `attentionMask`, `assistantMasks` when asked, `text` when not tokenized).
#[napi(object)]
pub struct ChatResult {
    #[napi(ts_type = "'text' | 'ids' | 'dict'")]
    pub kind: String,
    pub text: Option<String>,
    pub input_ids: Option<Uint32Array>,
    pub attention_mask: Option<Uint32Array>,
    pub assistant_masks: Option<Uint32Array>,
}

fn into_js(ret: ChatReturn) -> Result<ChatResult> {
    let array = |v: Vec<u32>| Some(Uint32Array::new(v));
    let (kind, text, input_ids, attention_mask, assistant_masks) = match ret {
        ChatReturn::Text(text) => ("text", Some(text), None, None, None),
        ChatReturn::Ids(ids) => ("ids", None, array(ids), None, None),
        ChatReturn::Dict { text, input_ids, attention_mask, assistant_masks } => {
            ("dict", text, array(input_ids), array(attention_mask), assistant_masks.and_then(array))
        }
    };
    Ok(ChatResult { kind: kind.into(), text, input_ids, attention_mask, assistant_masks })
}

/// Parse, render and (when asked) tokenize.
fn render(tok: &yieldtok::Tokenizer, call: &str) -> yieldtok::Result<ChatReturn> {
    let call: ChatCall =
        serde_json::from_str(call).map_err(|e| yieldtok::Error::InvalidArgument(format!("chat call: {e}")))?;
    let mut ret = tok.chat(call)?;
    // `Uint32Array::new` shrinks to fit, which may reallocate: do it here, on the worker.
    match &mut ret {
        ChatReturn::Text(_) => {}
        ChatReturn::Ids(ids) => ids.shrink_to_fit(),
        ChatReturn::Dict { input_ids, attention_mask, assistant_masks, .. } => {
            [Some(input_ids), Some(attention_mask), assistant_masks.as_mut()]
                .into_iter()
                .flatten()
                .for_each(|v| v.shrink_to_fit())
        }
    }
    Ok(ret)
}

#[napi]
impl NativeTokenizer {
    /// Render (and tokenize) a conversation on the core scheduler; resolves to a [`ChatResult`].
    #[napi(ts_return_type = "Promise<ChatResult>")]
    pub fn apply_chat_template<'env>(
        &self,
        env: &'env Env,
        call: String,
        token: Option<&CancelToken>,
    ) -> Result<Object<'env>> {
        run_task(env, self.tok().spawn(move |tok| render(tok, &call)), token, into_js)
    }

    /// [`apply_chat_template`](Self::apply_chat_template) on the calling thread.
    #[napi]
    pub fn apply_chat_template_sync(&self, call: String) -> Result<ChatResult> {
        guard(|| render(&self.tok(), &call)).and_then(into_js)
    }
}
