//! `apply_chat_template` for Python (transformers 5.24's; the signature and the shaping of the
//! result are `yieldtok._transformers`'): conversion of the Python arguments (messages or a
//! batch of conversations, tools, documents, template kwargs) to the core's [`ChatCall`], and of
//! the core's [`ChatBatch`] to Python values for `_transformers` to shape as its `__call__`
//! does. Argument rules, rendering, encoding (with the truncation and padding of the handle
//! `__call__`'s machinery built) and assistant masks live in the core, run with the GIL released.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyString, PyTuple};
use serde_json::{Map, Value};
use yieldtok::{ChatBatch, ChatCall, ContinueFinalMessage, JobOutput};

use crate::encoding::{BatchEncoding, EncData};
use crate::errors::TokenizerValueError;

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

/// What `_chat` returns to `yieldtok._transformers` (GIL held): `(batched, texts, encodings,
/// assistant_masks)`; `encodings` is `None` (not tokenized), a list of id lists (ids-only), or
/// a `BatchEncoding` of full encodings (offsets into their texts, in chars).
pub struct ChatBatchResult {
    pub batch: ChatBatch,
    pub tok: yieldtok::Tokenizer,
    pub pad_id: u32,
}

impl<'py> IntoPyObject<'py> for ChatBatchResult {
    type Target = PyTuple;
    type Output = Bound<'py, PyTuple>;
    type Error = PyErr;
    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let ChatBatch { batched, texts, encodings, assistant_masks } = self.batch;
        let encodings = match encodings {
            None => py.None().into_bound(py),
            Some(outs) if outs.iter().all(|o| matches!(o, JobOutput::Ids(_))) => {
                let lists = outs.iter().map(|o| PyList::new(py, o.ids())).collect::<PyResult<Vec<_>>>()?;
                PyList::new(py, lists)?.into_any()
            }
            Some(outs) => {
                let items = outs
                    .into_iter()
                    .zip(&texts)
                    .map(|(o, t)| {
                        let enc = o.into_encoding().expect("all full when not all ids");
                        EncData::new(enc, Arc::from(t.as_str()), self.tok.clone())
                    })
                    .collect();
                Bound::new(py, BatchEncoding::new(items, self.pad_id))?.into_any()
            }
        };
        let masks = match assistant_masks {
            None => py.None().into_bound(py),
            Some(m) => m.into_pyobject(py)?.into_any(),
        };
        PyTuple::new(
            py,
            [PyBool::new(py, batched).to_owned().into_any(), texts.into_pyobject(py)?.into_any(), encodings, masks],
        )
    }
}
