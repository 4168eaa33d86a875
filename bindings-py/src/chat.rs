//! `apply_chat_template` for Python, with transformers' signature: conversion of the Python
//! arguments (messages, tools, documents, template kwargs) to the core's [`ChatCall`], and of
//! the core's [`ChatReturn`] to Python values (a string, a list of ids, or a dict with
//! `input_ids`, `attention_mask` and `assistant_masks`). Defaults, argument rules and the shape
//! of the result live in the core; rendering and tokenizing happen there with the GIL released.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use serde_json::{Map, Value};
use yieldtok::{ChatCall, ChatReturn, ContinueFinalMessage};

use crate::errors::{guard, TokenizerValueError};

/// A Python object as JSON (through `json.dumps`, which keeps dict order). A value JSON cannot
/// carry (a NaN or infinite float, a `str` with a lone surrogate) is a `TokenizerValueError`
/// naming the value and where it is (`conversation[1]["content"]`).
pub fn to_json(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Value> {
    let py = obj.py();
    let kwargs = PyDict::new(py);
    kwargs.set_item("allow_nan", false)?;
    let dumped = py.import("json")?.call_method("dumps", (obj,), Some(&kwargs));
    let located = |fallback: String| match find_bad_value(obj, what, 0) {
        Some(msg) => TokenizerValueError::new_err(msg),
        None => TokenizerValueError::new_err(fallback),
    };
    let text: String = dumped.map_err(|e| located(format!("{what} is not JSON-serialisable: {e}")))?.extract()?;
    serde_json::from_str(&text).map_err(|e| located(format!("{what}: {e}")))
}

/// The first value under `obj` (dicts, lists and tuples walked in order) that JSON cannot carry,
/// described with its place; `None` if there is none. Only called once serialising failed.
fn find_bad_value(obj: &Bound<'_, PyAny>, path: &str, depth: usize) -> Option<String> {
    if depth > 256 {
        return None;
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return s.to_str().err().map(|e| {
            let e = crate::tokenizer::surrogate_error(s, e, "the str", 0);
            format!("{path}: {}", e.value(obj.py()))
        });
    }
    if let Ok(f) = obj.cast::<pyo3::types::PyFloat>() {
        if f.value().is_finite() {
            return None;
        }
        let x = f.repr().map(|r| r.to_string()).unwrap_or_default();
        return Some(format!(
            "{path}: the float {x} is not a JSON value (NaN and infinities cannot be passed to a chat template)"
        ));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        for (k, v) in d.iter() {
            let key = match k.cast::<PyString>() {
                Ok(s) => match s.to_str() {
                    Ok(s) => format!("{s:?}"),
                    Err(e) => {
                        let e = crate::tokenizer::surrogate_error(s, e, "the key", 0);
                        return Some(format!("{path}: {}", e.value(obj.py())));
                    }
                },
                Err(_) => k.repr().map(|r| r.to_string()).unwrap_or_default(),
            };
            if let Some(m) = find_bad_value(&k, &format!("{path} (key {key})"), depth + 1) {
                return Some(m);
            }
            if let Some(m) = find_bad_value(&v, &format!("{path}[{key}]"), depth + 1) {
                return Some(m);
            }
        }
        return None;
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<pyo3::types::PyTuple>() {
        for (i, v) in obj.try_iter().ok()?.enumerate() {
            if let Some(m) = find_bad_value(&v.ok()?, &format!("{path}[{i}]"), depth + 1) {
                return Some(m);
            }
        }
    }
    None
}

/// The core's host call, from transformers' arguments (Python values become JSON values; the
/// defaults are the signature's, which are transformers').
#[allow(clippy::too_many_arguments)]
pub fn call(
    conversation: &Bound<'_, PyAny>,
    tools: Option<&Bound<'_, PyAny>>,
    documents: Option<&Bound<'_, PyAny>>,
    chat_template: Option<String>,
    add_generation_prompt: bool,
    continue_final_message: Option<&Bound<'_, PyAny>>,
    tokenize: bool,
    return_assistant_tokens_mask: bool,
    return_dict: bool,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<ChatCall> {
    let opt = |o: Option<&Bound<'_, PyAny>>, what: &str| -> PyResult<Option<Value>> {
        match o {
            Some(v) if !v.is_none() => Ok(Some(to_json(v, what)?)),
            _ => Ok(None),
        }
    };
    let continue_final_message = match continue_final_message {
        None => ContinueFinalMessage::No,
        Some(v) if v.is_instance_of::<PyString>() => ContinueFinalMessage::Field(v.extract()?),
        Some(v) if v.is_truthy()? => ContinueFinalMessage::Content,
        Some(_) => ContinueFinalMessage::No,
    };
    let kwargs = match kwargs {
        Some(k) => match to_json(k.as_any(), "template kwargs")? {
            Value::Object(m) => m,
            _ => Map::new(),
        },
        None => Map::new(),
    };
    Ok(ChatCall {
        messages: to_json(conversation, "conversation")?,
        tools: opt(tools, "tools")?,
        documents: opt(documents, "documents")?,
        kwargs,
        chat_template,
        add_generation_prompt,
        continue_final_message,
        tokenize,
        return_dict,
        return_assistant_tokens_mask,
    })
}

/// Render (and tokenize) with the GIL released.
pub fn run(py: Python<'_>, tok: &yieldtok::Tokenizer, call: ChatCall) -> PyResult<ChatResult> {
    py.detach(|| guard(|| tok.chat(call))).map(ChatResult)
}

/// What `apply_chat_template` returns, converted to Python values (GIL held): a string, a list
/// of ids, or a dict with `input_ids`, `attention_mask` and `assistant_masks`.
pub struct ChatResult(pub ChatReturn);

impl<'py> IntoPyObject<'py> for ChatResult {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;
    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(match self.0 {
            ChatReturn::Text(text) => PyString::new(py, &text).into_any(),
            ChatReturn::Ids(ids) => PyList::new(py, &ids)?.into_any(),
            ChatReturn::Dict { text, input_ids, attention_mask, assistant_masks } => {
                let d = PyDict::new(py);
                if let Some(text) = text {
                    d.set_item("text", text)?;
                }
                d.set_item("attention_mask", PyList::new(py, &attention_mask)?)?;
                d.set_item("input_ids", PyList::new(py, &input_ids)?)?;
                if let Some(mask) = assistant_masks {
                    d.set_item("assistant_masks", PyList::new(py, &mask)?)?;
                }
                d.into_any()
            }
        })
    }
}
