//! Python objects → JSON text, written straight from the object graph (a `serde::Serialize`
//! over `PyAny` fed to `serde_json`'s writer). This is the only part of trajectory input that
//! needs the GIL; the core then parses the text in parallel without it. About 4x faster than
//! `json.dumps` here, mostly because floats are formatted by `ryu` instead of through Python
//! `repr` strings.
//!
//! Same output as `json.dumps(obj, allow_nan=False)` up to formatting, except what the
//! trajectory parser skips (below): `dict`, `list`, `tuple`, `str`, `int`, `float`, `bool`,
//! `None` (and their subclasses); dict keys that are `int`, `float`, `bool` or `None` become
//! strings as `json.dumps` does; NaN/infinity raise `TokenizerValueError` (JSON has no
//! spelling for them); anything else goes through a hook (ART's pydantic objects and other
//! duck-typed values, see `trajectory::json_default`) whose result is written instead.
//!
//! What the core's trajectory parser would only skip is left out (this writer serves
//! trajectory input only): in a Choice — an item of a `messages_and_choices` list that the
//! core calls one — its `logprobs`' keys but `content` / `refusal`, and in their entries every
//! key the parser does not read (`top_logprobs`; `bytes` after the first entry), by the core's
//! own rules (`yieldtok::trajectory::logprob_entry_key_read` & co.), so the parsed result is
//! the same. Nothing is left out anywhere else (tool schemas, messages, a bare list of items).
//! Those entries are most of a trajectory batch: this halves the text to write and to parse.

use std::cell::RefCell;

use pyo3::exceptions::{PyRecursionError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use crate::errors::TokenizerValueError;

/// A `str`'s UTF-8, borrowed: CPython keeps it with the string (for an ASCII string it is the
/// string's own data), so nothing is copied or allocated per string.
fn utf8<'a>(s: &'a Bound<'_, PyString>) -> PyResult<&'a str> {
    s.to_str()
}

/// Deeper nesting than this is refused (`json.dumps` raises `RecursionError` similarly).
const MAX_DEPTH: usize = 512;

/// The JSON text of trajectory input `obj`; `hook` converts values that are not JSON data.
pub fn to_json_bytes(obj: &Bound<'_, PyAny>, hook: Hook) -> PyResult<Vec<u8>> {
    let ctx = Ctx { hook, err: RefCell::new(None) };
    let mut out = Vec::with_capacity(1 << 16);
    match serde_json::to_writer(&mut out, &Node { obj, ctx: &ctx, depth: 0, place: Place::Any }) {
        Ok(()) => Ok(out),
        Err(e) => Err(ctx.err.into_inner().unwrap_or_else(|| TokenizerValueError::new_err(e.to_string()))),
    }
}

struct Ctx {
    hook: Hook,
    err: RefCell<Option<PyErr>>,
}

/// Converts a value that is not JSON data into one that is (or fails).
pub type Hook = for<'py> fn(&Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>>;

struct Node<'a, 'py> {
    obj: &'a Bound<'py, PyAny>,
    ctx: &'a Ctx,
    depth: usize,
    place: Place,
}

/// Where a value sits in trajectory input, as far as leaving out what the parser skips cares.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// The input's structure: lists of groups, groups, trajectories, histories.
    Any,
    /// Data the parser takes as it is (tools, messages, rewards, ...): nothing is left out.
    Data,
    /// A `messages_and_choices` list: its elements are [`Place::Item`]s.
    Items,
    /// An item of `messages_and_choices`: a Choice if the core calls it one.
    Item,
    /// A Choice (a dict): its `logprobs` is [`Place::Logprobs`].
    Choice,
    /// A Choice's `logprobs`: `content` and `refusal` are [`Place::Entries`], the rest skipped.
    Logprobs,
    /// A list of logprob entries: element `i` is `Entry(i)`.
    Entries,
    /// A logprob entry (a dict): keys the parser does not read are skipped.
    Entry(usize),
}

impl<'a, 'py> Node<'a, 'py> {
    fn child<'b>(&'b self, obj: &'b Bound<'py, PyAny>) -> Node<'b, 'py> {
        self.child_at(obj, Place::Data)
    }

    fn child_at<'b>(&'b self, obj: &'b Bound<'py, PyAny>, place: Place) -> Node<'b, 'py> {
        Node { obj, ctx: self.ctx, depth: self.depth + 1, place }
    }

    /// The place of the value under `key` of this dict (at `place`), or `None` to leave it out.
    fn place_of(place: Place, key: &str) -> Option<Place> {
        use yieldtok::trajectory::{choice_logprobs_key_read, logprob_entry_key_read};
        match place {
            Place::Any => Some(match key {
                "messages_and_choices" => Place::Items,
                "additional_histories" | "trajectories" => Place::Any,
                _ => Place::Data,
            }),
            Place::Choice if key == "logprobs" => Some(Place::Logprobs),
            Place::Logprobs => choice_logprobs_key_read(key).then_some(Place::Entries),
            Place::Entry(i) => logprob_entry_key_read(i, key).then_some(Place::Data),
            _ => Some(Place::Data),
        }
    }

    /// Keep the Python exception; serde gets a placeholder.
    fn fail<E: serde::ser::Error>(&self, e: PyErr) -> E {
        *self.ctx.err.borrow_mut() = Some(e);
        E::custom("python error")
    }

    /// Write a dict entry (of a dict at `place`), or leave it out (see the module docs).
    fn entry<M: SerializeMap>(&self, m: &mut M, place: Place, k: &Bound<'py, PyAny>, v: &Bound<'py, PyAny>) -> Result<(), M::Error> {
        if let Ok(key) = k.cast_exact::<PyString>() {
            let text = utf8(key).map_err(|e| self.fail::<M::Error>(e))?;
            return match Self::place_of(place, text) {
                Some(child) => m.serialize_entry(text, &self.child_at(v, child)),
                None => Ok(()),
            };
        }
        let key = key_text(k).map_err(|e| self.fail::<M::Error>(e))?;
        m.serialize_entry(&key, &self.child(v))
    }

    /// The place of element `i` of this list.
    fn element_place(&self, i: usize) -> Place {
        match self.place {
            Place::Any => Place::Any,
            Place::Items => Place::Item,
            Place::Entries => Place::Entry(i),
            _ => Place::Data,
        }
    }

    /// The place of this dict: an item is a Choice if the core calls it one, else a message.
    fn dict_place(&self, d: &Bound<'py, PyDict>) -> Place {
        if self.place != Place::Item {
            return self.place;
        }
        let py = d.py();
        let has = |k: &Bound<'py, PyString>| d.contains(k).unwrap_or(true);
        if yieldtok::trajectory::is_choice(has(pyo3::intern!(py, "message")), has(pyo3::intern!(py, "role"))) {
            Place::Choice
        } else {
            Place::Data
        }
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
        // The exact built-in types first (a pointer comparison each); subclasses below.
        if o.is_exact_instance_of::<PyString>() {
            return s.serialize_str(utf8(o.cast::<PyString>().expect("checked")).map_err(|e| self.fail(e))?);
        }
        if o.is_exact_instance_of::<PyFloat>() {
            return s.serialize_f64(float(self, o.cast::<PyFloat>().expect("checked").value())?);
        }
        if o.is_exact_instance_of::<PyInt>() {
            if let Ok(i) = o.extract::<i64>() {
                return s.serialize_i64(i);
            }
        }
        if let Ok(st) = o.cast::<PyString>() {
            return s.serialize_str(utf8(st).map_err(|e| self.fail(e))?);
        }
        if let Ok(f) = o.cast::<PyFloat>() {
            return s.serialize_f64(float(self, f.value())?);
        }
        if o.is_none() {
            return s.serialize_unit();
        }
        if let Ok(d) = o.cast::<PyDict>() {
            let place = self.dict_place(d);
            let mut m = s.serialize_map(None)?;
            for (k, v) in d.iter() {
                self.entry(&mut m, place, &k, &v)?;
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
            for (i, v) in l.iter().enumerate() {
                seq.serialize_element(&self.child_at(&v, self.element_place(i)))?;
            }
            return seq.end();
        }
        if let Ok(t) = o.cast::<PyTuple>() {
            let mut seq = s.serialize_seq(Some(t.len()))?;
            for (i, v) in t.iter().enumerate() {
                seq.serialize_element(&self.child_at(&v, self.element_place(i)))?;
            }
            return seq.end();
        }
        // A converted object keeps its place (an ART `Choice` or logprob entry object).
        let v = (self.ctx.hook)(o).map_err(|e| self.fail::<S::Error>(e))?;
        self.child_at(&v, self.place).serialize(s)
    }
}

/// A dict key as `json.dumps` writes it: a `str`'s UTF-8, or the text of a scalar key.
enum Key<'a> {
    Str(&'a str),
    Text(String),
}

impl Serialize for Key<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Key::Str(b) => s.serialize_str(b),
            Key::Text(t) => s.serialize_str(t),
        }
    }
}

fn key_text<'a>(k: &'a Bound<'_, PyAny>) -> PyResult<Key<'a>> {
    if let Ok(s) = k.cast::<PyString>() {
        return Ok(Key::Str(utf8(s)?));
    }
    if let Ok(b) = k.cast::<PyBool>() {
        return Ok(Key::Text(if b.is_true() { "true" } else { "false" }.into()));
    }
    if k.is_none() {
        return Ok(Key::Text("null".into()));
    }
    // As `json.dumps`: the built-in `int.__repr__` / `float.__repr__` (an `IntEnum` key is its
    // number, not its own repr); a NaN or infinite key is refused like a NaN value.
    let py = k.py();
    if k.is_instance_of::<PyInt>() {
        return Ok(Key::Text(py.get_type::<PyInt>().getattr(pyo3::intern!(py, "__repr__"))?.call1((k,))?.extract()?));
    }
    if let Ok(f) = k.cast::<PyFloat>() {
        if !f.value().is_finite() {
            return Err(TokenizerValueError::new_err(format!("Out of range float values are not JSON compliant: {}", f.value())));
        }
        return Ok(Key::Text(py.get_type::<PyFloat>().getattr(pyo3::intern!(py, "__repr__"))?.call1((k,))?.extract()?));
    }
    Err(PyTypeError::new_err(format!("keys must be str, int, float, bool or None, not {}", k.get_type().name()?)))
}
