//! Python objects → JSON text, written straight from the object graph (a `serde::Serialize`
//! over `PyAny` fed to `serde_json`'s writer). This is the only part of trajectory input that
//! needs the GIL; the core then parses the text in parallel without it. About 4x faster than
//! `json.dumps` here, mostly because floats are formatted by `ryu` instead of through Python
//! `repr` strings.
//!
//! Same output as `json.dumps(obj, allow_nan=False)` up to formatting: `dict`, `list`, `tuple`,
//! `str`, `int`, `float`, `bool`, `None` (and their subclasses); dict keys that are `int`,
//! `float`, `bool` or `None` become strings as `json.dumps` does; NaN/infinity raise
//! `TokenizerValueError` (JSON has no spelling for them); anything else goes through a hook
//! (ART's pydantic objects and other duck-typed values, see `trajectory::json_default`) whose
//! result is written instead.

use std::cell::RefCell;

use pyo3::exceptions::{PyRecursionError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use crate::errors::TokenizerValueError;

/// A `str`'s UTF-8 (3.9's stable ABI can only encode it into a new `bytes`).
struct Utf8<'py>(Bound<'py, PyBytes>);

impl Utf8<'_> {
    fn as_str(&self) -> &str {
        // SAFETY: UTF-8 from CPython's encoder.
        unsafe { std::str::from_utf8_unchecked(self.0.as_bytes()) }
    }
}

fn utf8<'py>(s: &Bound<'py, PyString>) -> PyResult<Utf8<'py>> {
    Ok(Utf8(s.encode_utf8()?))
}

/// Deeper nesting than this is refused (`json.dumps` raises `RecursionError` similarly).
const MAX_DEPTH: usize = 512;

/// The JSON text of `obj`; `hook` converts values that are not JSON data.
pub fn to_json_bytes(obj: &Bound<'_, PyAny>, hook: Hook) -> PyResult<Vec<u8>> {
    let ctx = Ctx { hook, err: RefCell::new(None), keys: RefCell::new(Vec::new()) };
    let mut out = Vec::with_capacity(1 << 16);
    match serde_json::to_writer(&mut out, &Node { obj, ctx: &ctx, depth: 0 }) {
        Ok(()) => Ok(out),
        Err(e) => Err(ctx.err.into_inner().unwrap_or_else(|| TokenizerValueError::new_err(e.to_string()))),
    }
}

/// Dict keys seen so far (by object identity; each kept alive, so its address is not reused
/// during the walk), with their UTF-8: the same few key objects recur in every message and
/// logprob entry (`json.loads` and literals share them).
const KEY_CACHE: usize = 64;

struct Ctx<'py> {
    hook: Hook,
    err: RefCell<Option<PyErr>>,
    keys: RefCell<Vec<(Bound<'py, PyAny>, Box<str>)>>,
}

/// Converts a value that is not JSON data into one that is (or fails).
pub type Hook = for<'py> fn(&Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>>;

struct Node<'a, 'py> {
    obj: &'a Bound<'py, PyAny>,
    ctx: &'a Ctx<'py>,
    depth: usize,
}

impl<'a, 'py> Node<'a, 'py> {
    fn child<'b>(&'b self, obj: &'b Bound<'py, PyAny>) -> Node<'b, 'py> {
        Node { obj, ctx: self.ctx, depth: self.depth + 1 }
    }

    /// Keep the Python exception; serde gets a placeholder.
    fn fail<E: serde::ser::Error>(&self, e: PyErr) -> E {
        *self.ctx.err.borrow_mut() = Some(e);
        E::custom("python error")
    }

    /// Write a dict entry, the key from the cache when it was seen before.
    fn entry<M: SerializeMap>(&self, m: &mut M, k: &Bound<'py, PyAny>, v: &Bound<'py, PyAny>) -> Result<(), M::Error> {
        let child = self.child(v);
        if k.is_exact_instance_of::<PyString>() {
            let cached = self.ctx.keys.borrow().iter().find(|(o, _)| o.is(k)).map(|(_, t)| &**t as *const str);
            if let Some(text) = cached {
                // SAFETY: cached texts are boxed and never dropped or changed before the walk
                // ends (the `RefCell` borrow is released so the child can add keys).
                return m.serialize_entry(unsafe { &*text }, &child);
            }
            let text: Box<str> = utf8(k.cast::<PyString>().expect("checked")).map_err(|e| self.fail::<M::Error>(e))?.as_str().into();
            m.serialize_entry(&*text, &child)?;
            let mut keys = self.ctx.keys.borrow_mut();
            if keys.len() < KEY_CACHE {
                keys.push((k.clone(), text));
            }
            return Ok(());
        }
        let key = key_text(k).map_err(|e| self.fail::<M::Error>(e))?;
        m.serialize_entry(&key, &child)
    }
}

fn float<E: serde::ser::Error>(node: &Node<'_, '_>, x: f64) -> Result<f64, E> {
    if x.is_finite() {
        Ok(x)
    } else {
        Err(node.fail(TokenizerValueError::new_err(format!("Out of range float values are not JSON compliant: {x}"))))
    }
}

impl Serialize for Node<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let o = self.obj;
        if self.depth > MAX_DEPTH {
            return Err(self.fail(PyRecursionError::new_err("maximum nesting depth exceeded while serialising trajectories")));
        }
        if let Ok(st) = o.cast::<PyString>() {
            let text = utf8(st).map_err(|e| self.fail(e))?;
            return s.serialize_str(text.as_str());
        }
        if let Ok(f) = o.cast::<PyFloat>() {
            return s.serialize_f64(float(self, f.value())?);
        }
        if o.is_none() {
            return s.serialize_unit();
        }
        if let Ok(d) = o.cast::<PyDict>() {
            let mut m = s.serialize_map(Some(d.len()))?;
            for (k, v) in d.iter() {
                self.entry(&mut m, &k, &v)?;
            }
            return m.end();
        }
        if let Ok(b) = o.cast::<PyBool>() {
            return s.serialize_bool(b.is_true());
        }
        if o.is_instance_of::<PyInt>() {
            if let Ok(i) = o.extract::<i64>() {
                return s.serialize_i64(i);
            }
            if let Ok(u) = o.extract::<u64>() {
                return s.serialize_u64(u);
            }
            // beyond 64 bits: the core reads numbers as f64 anyway
            let x: f64 = o.extract().map_err(|e| self.fail::<S::Error>(e))?;
            return s.serialize_f64(float(self, x)?);
        }
        if let Ok(l) = o.cast::<PyList>() {
            let mut seq = s.serialize_seq(Some(l.len()))?;
            for v in l.iter() {
                seq.serialize_element(&self.child(&v))?;
            }
            return seq.end();
        }
        if let Ok(t) = o.cast::<PyTuple>() {
            let mut seq = s.serialize_seq(Some(t.len()))?;
            for v in t.iter() {
                seq.serialize_element(&self.child(&v))?;
            }
            return seq.end();
        }
        let v = (self.ctx.hook)(o).map_err(|e| self.fail::<S::Error>(e))?;
        self.child(&v).serialize(s)
    }
}

/// A dict key as `json.dumps` writes it: a `str`'s UTF-8, or the text of a scalar key.
enum Key<'py> {
    Str(Utf8<'py>),
    Text(String),
}

impl Serialize for Key<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Key::Str(b) => s.serialize_str(b.as_str()),
            Key::Text(t) => s.serialize_str(t),
        }
    }
}

fn key_text<'py>(k: &Bound<'py, PyAny>) -> PyResult<Key<'py>> {
    if let Ok(s) = k.cast::<PyString>() {
        return Ok(Key::Str(utf8(s)?));
    }
    if let Ok(b) = k.cast::<PyBool>() {
        return Ok(Key::Text(if b.is_true() { "true" } else { "false" }.into()));
    }
    if k.is_none() {
        return Ok(Key::Text("null".into()));
    }
    if k.is_instance_of::<PyInt>() || k.is_instance_of::<PyFloat>() {
        return Ok(Key::Text(k.repr()?.to_string()));
    }
    Err(PyTypeError::new_err(format!("keys must be str, int, float, bool or None, not {}", k.get_type().name()?)))
}
