//! `DecodeStream` in the browser: the core's [`yieldtok::DecodeStream`] (`tokenizers`' stream
//! state machine: same results and "Invalid prefix" errors), and `stepMany`, one call that
//! steps many streams (each through its own `step`; a page has no thread pool to spread them
//! over), with the same argument checks and error order as the Node binding.

use js_sys::{Array, Reflect, Uint32Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::{check_options, core_error, get, opt_bool, type_error, Tokenizer};

/// Incremental decoding of ids as they are generated (`tokenizers`' `DecodeStream`). `step`
/// returns the text the new ids complete, or `null` while more are needed (a character whose
/// bytes are split across tokens). A stream is not tied to one tokenizer: each step names the
/// tokenizer to use.
#[wasm_bindgen]
pub struct DecodeStream {
    inner: yieldtok::DecodeStream,
}

#[wasm_bindgen]
impl DecodeStream {
    /// `options.ids` seeds the stream (e.g. with the prompt), so the first step returns only
    /// what the new id adds; `options.skipSpecialTokens` (default false) leaves special tokens
    /// out of the text.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_optional_param_type = "DecodeStreamOptions")] options: JsValue,
    ) -> Result<DecodeStream, JsValue> {
        check_options(&options)?;
        let skip = opt_bool(&options, "skipSpecialTokens", false)?;
        let seed = get(&options, "ids");
        let ids = if seed.is_undefined() || seed.is_null() { Vec::new() } else { ids_of(&seed, "options.ids")? };
        Ok(DecodeStream { inner: yieldtok::DecodeStream::new(ids, skip) })
    }

    /// Whether special tokens are left out of the text.
    #[wasm_bindgen(getter, js_name = skipSpecialTokens)]
    pub fn skip_special_tokens(&self) -> bool {
        self.inner.skip_special_tokens()
    }

    /// Add the next id (or ids); the text they complete, or `null`. Throws on an invalid prefix.
    pub fn step(
        &mut self,
        tokenizer: &Tokenizer,
        #[wasm_bindgen(unchecked_param_type = "number | Uint32Array | number[]")] id: JsValue,
    ) -> Result<Option<String>, JsValue> {
        let ids = ids_of(&id, "id")?;
        self.inner.step(tokenizer.full("DecodeStream.step")?, &ids).map_err(core_error)
    }

    /// Step many streams in one call: `streams[i]` gets `ids[i]`; returns what each `step` would.
    /// Throws for lengths that differ or a stream listed twice, and the first stream's error if
    /// a step fails (every stream was stepped).
    #[wasm_bindgen(js_name = stepMany, unchecked_return_type = "(string | null)[]")]
    pub fn step_many(
        #[wasm_bindgen(unchecked_param_type = "Tokenizer")] tokenizer: JsValue,
        #[wasm_bindgen(unchecked_param_type = "DecodeStream[]")] streams: JsValue,
        #[wasm_bindgen(unchecked_param_type = "(number | Uint32Array | number[])[]")] ids: JsValue,
    ) -> Result<Array, JsValue> {
        let (Some(streams), Some(ids)) = (streams.dyn_ref::<Array>(), ids.dyn_ref::<Array>()) else {
            return Err(type_error("streams and ids must be arrays"));
        };
        if streams.length() != ids.length() {
            return Err(
                js_sys::RangeError::new(&format!("{} streams but {} ids", streams.length(), ids.length())).into()
            );
        }
        let seen = js_sys::Set::new(&JsValue::UNDEFINED);
        for (i, s) in streams.iter().enumerate() {
            if seen.has(&s) {
                return Err(JsError::new("a stream appears twice in streams").into());
            }
            seen.add(&s);
            if !Reflect::get(&s, &JsValue::from_str("step")).is_ok_and(|f| f.is_function()) {
                return Err(type_error(format!("streams[{i}] must be a DecodeStream")));
            }
        }
        let out = Array::new();
        let mut first_error = None;
        for (s, id) in streams.iter().zip(ids.iter()) {
            let step: js_sys::Function = Reflect::get(&s, &JsValue::from_str("step"))?.unchecked_into();
            match step.call2(&s, &tokenizer, &id) {
                Ok(text) => {
                    out.push(&text);
                }
                Err(e) => {
                    out.push(&JsValue::NULL);
                    first_error.get_or_insert(e);
                }
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }
}

/// One step's ids: a token id, or a `Uint32Array` / array of them (each checked).
fn ids_of(v: &JsValue, name: &str) -> Result<Vec<u32>, JsValue> {
    let id = |x: &JsValue, what: &str| -> Result<u32, JsValue> {
        match x.as_f64() {
            Some(n) if n.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&n) => Ok(n as u32),
            _ => Err(js_sys::RangeError::new(&format!("{what} is not a token id (an integer in 0..2^32-1)")).into()),
        }
    };
    if v.as_f64().is_some() {
        return Ok(vec![id(v, name)?]);
    }
    if let Some(a) = v.dyn_ref::<Uint32Array>() {
        return Ok(a.to_vec());
    }
    if let Some(a) = v.dyn_ref::<Array>() {
        return a.iter().enumerate().map(|(i, x)| id(&x, &format!("{name}[{i}]"))).collect();
    }
    Err(type_error(format!("{name} must be a token id, a Uint32Array or an array of token ids")))
}
