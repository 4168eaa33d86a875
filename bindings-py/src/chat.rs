//! `apply_chat_template` for Python, with transformers' signature: conversion of the Python
//! arguments (messages, tools, documents, template kwargs) to JSON values, and of the core's
//! [`yieldtok::ChatOutput`] back to what transformers returns (a string, a list of ids, or a
//! dict with `input_ids`, `attention_mask` and `assistant_masks`). Rendering and tokenizing
//! happen in the core with the GIL released.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use serde_json::{Map, Value};

use crate::errors::{guard, TokenizerValueError};

/// A Python object as JSON (through `json.dumps`, which keeps dict order).
pub fn to_json(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Value> {
    let py = obj.py();
    let text: String = py
        .import("json")?
        .call_method1("dumps", (obj,))
        .map_err(|e| TokenizerValueError::new_err(format!("{what} is not JSON-serialisable: {e}")))?
        .extract()?;
    serde_json::from_str(&text).map_err(|e| TokenizerValueError::new_err(format!("{what}: {e}")))
}

/// The request for the core, from transformers-style arguments.
#[allow(clippy::too_many_arguments)]
pub fn request(
    conversation: &Bound<'_, PyAny>,
    tools: Option<&Bound<'_, PyAny>>,
    documents: Option<&Bound<'_, PyAny>>,
    add_generation_prompt: bool,
    continue_final_message: Option<&Bound<'_, PyAny>>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<yieldtok::ChatRequest> {
    let opt = |o: Option<&Bound<'_, PyAny>>, what: &str| -> PyResult<Option<Value>> {
        match o {
            Some(v) if !v.is_none() => Ok(Some(to_json(v, what)?)),
            _ => Ok(None),
        }
    };
    let (continue_final, field) = match continue_final_message {
        None => (false, None),
        Some(v) if v.is_instance_of::<PyString>() => (true, Some(v.extract::<String>()?)),
        Some(v) => (v.is_truthy()?, None),
    };
    let kwargs = match kwargs {
        Some(k) => match to_json(k.as_any(), "template kwargs")? {
            Value::Object(m) => m,
            _ => Map::new(),
        },
        None => Map::new(),
    };
    Ok(yieldtok::ChatRequest {
        messages: to_json(conversation, "conversation")?,
        tools: opt(tools, "tools")?,
        documents: opt(documents, "documents")?,
        add_generation_prompt,
        continue_final_message: continue_final,
        continue_final_field: field,
        kwargs,
    })
}

/// The core's options for `apply_chat_template`'s arguments: `return_dict=True` needs the ids
/// even when `tokenize` is false (transformers returns `input_ids` then too).
pub fn options(chat_template: Option<String>, tokenize: bool, return_dict: bool, return_assistant_tokens_mask: bool) -> yieldtok::ChatOptions {
    yieldtok::ChatOptions { chat_template, tokenize: tokenize || return_dict, return_assistant_tokens_mask }
}

/// Render (and tokenize) with the GIL released.
pub fn run(py: Python<'_>, tok: &yieldtok::Tokenizer, req: yieldtok::ChatRequest, opts: yieldtok::ChatOptions) -> PyResult<yieldtok::ChatOutput> {
    py.detach(|| guard(|| tok.apply_chat_template(&req, &opts)))
}

/// transformers' return value for `tokenize` / `return_dict`.
pub fn output(py: Python<'_>, out: yieldtok::ChatOutput, tokenize: bool, return_dict: bool) -> PyResult<Py<PyAny>> {
    if !tokenize && !return_dict {
        return Ok(PyString::new(py, &out.text).into_any().unbind());
    }
    let ids = out.ids.unwrap_or_default();
    if !return_dict {
        return Ok(PyList::new(py, &ids)?.into_any().unbind());
    }
    let d = PyDict::new(py);
    if !tokenize {
        d.set_item("text", out.text)?;
    }
    d.set_item("attention_mask", PyList::new(py, std::iter::repeat_n(1u32, ids.len()))?)?;
    d.set_item("input_ids", PyList::new(py, &ids)?)?;
    if let Some(mask) = out.assistant_mask {
        d.set_item("assistant_masks", PyList::new(py, &mask)?)?;
    }
    Ok(d.into_any().unbind())
}

/// A finished render for the awaitable: converted to transformers' return value (GIL held) by
/// the bridge.
pub struct ChatResult {
    pub out: yieldtok::ChatOutput,
    pub tokenize: bool,
    pub return_dict: bool,
}

impl<'py> IntoPyObject<'py> for ChatResult {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;
    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        output(py, self.out, self.tokenize, self.return_dict).map(|o| o.into_bound(py))
    }
}
