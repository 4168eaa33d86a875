//! `DecodeStream` in the browser: the core's [`yieldtok::DecodeStream`] (`tokenizers`' stream
//! state machine: same results and "Invalid prefix" errors), and `stepMany`, one call that
//! steps many streams through the core's `step_decode_streams`, with the same argument checks
//! and error order as the Node binding (every argument is checked before any stream moves).
//!
//! A stream's state sits behind an `Rc` that a per-thread table also reaches by a number, the
//! stream's `__handle`: `stepMany` gets the streams of a JS array from it without calling back
//! into each stream's `step` (a re-entrant call would run on a trapped instance after a panic).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use js_sys::{Array, Reflect, Uint32Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::{check_options, core_error, get, opt_bool, type_error, Tokenizer};

type State = Rc<RefCell<yieldtok::DecodeStream>>;

thread_local! {
    static LIVE: RefCell<HashMap<u32, Weak<RefCell<yieldtok::DecodeStream>>>> = RefCell::new(HashMap::new());
    static NEXT: Cell<u32> = const { Cell::new(1) };
}

/// Incremental decoding of ids as they are generated (`tokenizers`' `DecodeStream`). `step`
/// returns the text the new ids complete, or `null` while more are needed (a character whose
/// bytes are split across tokens). A stream is not tied to one tokenizer: each step names the
/// tokenizer to use.
#[wasm_bindgen]
pub struct DecodeStream {
    state: State,
    handle: u32,
}

impl Drop for DecodeStream {
    fn drop(&mut self) {
        LIVE.with(|l| l.borrow_mut().remove(&self.handle));
    }
}

#[wasm_bindgen]
impl DecodeStream {
    /// `options.ids` seeds the stream's window (as in `tokenizers`, the first step then returns
    /// the text of the seed and the new ids together); `options.skipSpecialTokens` (default
    /// false) leaves special tokens out of the text.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_optional_param_type = "DecodeStreamOptions")] options: JsValue,
    ) -> Result<DecodeStream, JsValue> {
        check_options(&options)?;
        let skip = opt_bool(&options, "skipSpecialTokens", false)?;
        let seed = get(&options, "ids");
        let ids = if seed.is_undefined() || seed.is_null() { Vec::new() } else { ids_of(&seed, "options.ids")? };
        let state = Rc::new(RefCell::new(yieldtok::DecodeStream::new(ids, skip)));
        let handle = NEXT.with(|n| {
            let h = n.get();
            n.set(h.wrapping_add(1).max(1));
            h
        });
        LIVE.with(|l| l.borrow_mut().insert(handle, Rc::downgrade(&state)));
        Ok(DecodeStream { state, handle })
    }

    /// Whether special tokens are left out of the text.
    #[wasm_bindgen(getter, js_name = skipSpecialTokens)]
    pub fn skip_special_tokens(&self) -> bool {
        self.state.borrow().skip_special_tokens()
    }

    /// The stream's number in the per-thread table (for `stepMany`).
    #[wasm_bindgen(getter, js_name = __handle, skip_typescript)]
    pub fn handle(&self) -> u32 {
        self.handle
    }

    /// Add the next id (or ids); the text they complete, or `null`. Throws on an invalid prefix.
    #[wasm_bindgen(unchecked_return_type = "string | null")]
    pub fn step(
        &mut self,
        tokenizer: &Tokenizer,
        #[wasm_bindgen(unchecked_param_type = "number | Uint32Array | number[]")] id: JsValue,
    ) -> Result<JsValue, JsValue> {
        let ids = ids_of(&id, "id")?;
        let text = self.state.borrow_mut().step(tokenizer.full("DecodeStream.step")?, &ids).map_err(core_error)?;
        Ok(text_or_null(text))
    }

    /// Step many streams in one call: `streams[i]` gets `ids[i]`; returns what each `step` would.
    /// Throws for lengths that differ, a stream listed twice or a bad id (before any stream is
    /// stepped), and the first stream's error if a step fails (every stream was stepped).
    #[wasm_bindgen(js_name = stepMany, unchecked_return_type = "(string | null)[]")]
    pub fn step_many(
        tokenizer: &Tokenizer,
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
        let tok = tokenizer.full("DecodeStream.stepMany")?;
        let mut states: Vec<State> = Vec::with_capacity(streams.length() as usize);
        let mut handles = std::collections::HashSet::new();
        for (i, s) in streams.iter().enumerate() {
            let handle = Reflect::get(&s, &JsValue::from_str("__handle")).ok().and_then(|h| h.as_f64());
            let state = handle.and_then(|h| LIVE.with(|l| l.borrow().get(&(h as u32)).and_then(Weak::upgrade)));
            let (Some(h), Some(state)) = (handle, state) else {
                return Err(type_error(format!("streams[{i}] must be a DecodeStream")));
            };
            if !handles.insert(h as u32) {
                return Err(JsError::new("a stream appears twice in streams").into());
            }
            states.push(state);
        }
        let ids: Vec<Vec<u32>> =
            ids.iter().enumerate().map(|(i, x)| ids_of(&x, &format!("ids[{i}]"))).collect::<Result<_, _>>()?;
        let mut borrowed: Vec<std::cell::RefMut<'_, yieldtok::DecodeStream>> =
            states.iter().map(|s| s.borrow_mut()).collect();
        let mut refs: Vec<&mut yieldtok::DecodeStream> = borrowed.iter_mut().map(|b| &mut **b).collect();
        let out = Array::new();
        let mut first_error = None;
        for r in tok.step_decode_streams(&mut refs, &ids) {
            match r {
                Ok(text) => {
                    out.push(&text_or_null(text));
                }
                Err(e) => {
                    out.push(&JsValue::NULL);
                    first_error.get_or_insert(e);
                }
            }
        }
        match first_error {
            Some(e) => Err(core_error(e)),
            None => Ok(out),
        }
    }
}

fn text_or_null(text: Option<String>) -> JsValue {
    text.map_or(JsValue::NULL, |t| JsValue::from_str(&t))
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
