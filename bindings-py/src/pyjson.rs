//! Python objects → JSON text, written straight from the object graph (a `serde::Serialize`
//! over `PyAny` fed to `serde_json`'s writer). This is the only part of trajectory input that
//! needs the GIL; the core then parses the text in parallel without it. About 4x faster than
//! `json.dumps` here, mostly because floats are formatted by `ryu` instead of through Python
//! `repr` strings.
//!
//! Same output as `json.dumps(obj)` up to formatting, except what the trajectory parser skips
//! (below): `dict`, `list`, `tuple`, `str`, `int`, `float`, `bool`, `None` (and their
//! subclasses); dict keys that are `int`, `float`, `bool` or `None` become strings as
//! `json.dumps` does; NaN and infinities are written as the core's marker strings
//! (`yieldtok::trajectory::lenient::NAN_MARKER` & co.), which its float fields read as those
//! values (`json.dumps` writes `NaN` / `Infinity`, which JSON lacks); anything else goes
//! through a hook (ART's pydantic objects and other duck-typed values, see
//! `trajectory::json_default`) whose result is written instead.
//!
//! A trajectory that cannot be written (a `str` with a lone surrogate, an object the hook
//! cannot convert, a NaN dict key) does not fail the batch: when writing fails, the groups are
//! written again *carefully* — each trajectory tried first on its own, and one that fails
//! written as the core's invalid marker (`lenient::invalid_marker`) with the reason and the
//! field path (`messages_and_choices[2].content: ...`), so that the core reports that
//! trajectory and keeps the others. A failure outside any trajectory is raised.
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

use yieldtok::trajectory::lenient::{invalid_marker, non_finite_marker};

use crate::errors::TokenizerValueError;

/// A `str`'s UTF-8, borrowed: CPython keeps it with the string (for an ASCII string it is the
/// string's own data), so nothing is copied or allocated per string. A lone surrogate is a
/// `TokenizerValueError` naming it.
fn utf8<'a>(s: &'a Bound<'_, PyString>) -> PyResult<&'a str> {
    s.to_str().map_err(|e| crate::tokenizer::surrogate_error(s, e, "a str", 0))
}

/// Deeper nesting than this is refused (`json.dumps` raises `RecursionError` similarly).
const MAX_DEPTH: usize = 512;

/// The JSON text of trajectory input `obj` (a list of groups when `groups`, else one history
/// or trajectory); `hook` converts values that are not JSON data.
pub fn to_json_bytes(obj: &Bound<'_, PyAny>, hook: Hook, groups: bool) -> PyResult<Vec<u8>> {
    let root = if groups { Place::Groups } else { Place::Any };
    let write = |careful: bool| {
        let ctx = Ctx {
            hook,
            err: RefCell::new(None),
            careful,
            path: RefCell::new(Vec::new()),
            failed_at: RefCell::new(None),
        };
        let mut out = Vec::with_capacity(1 << 16);
        match serde_json::to_writer(&mut out, &Node { obj, ctx: &ctx, depth: 0, place: root }) {
            Ok(()) => Ok(out),
            Err(e) => Err(ctx.err.into_inner().unwrap_or_else(|| TokenizerValueError::new_err(e.to_string()))),
        }
    };
    match write(false) {
        Err(_) if groups => write(true),
        r => r,
    }
}

struct Ctx {
    hook: Hook,
    err: RefCell<Option<PyErr>>,
    /// Writing trajectory by trajectory (see the module docs).
    careful: bool,
    /// In careful mode: the path from the current trajectory to the value being written.
    path: RefCell<Vec<Seg>>,
    /// The path where the first failure of the current trajectory happened.
    failed_at: RefCell<Option<String>>,
}

/// A step of a field path.
enum Seg {
    Key(String),
    Index(usize),
}

impl Ctx {
    fn path_text(&self) -> String {
        let mut out = String::new();
        for seg in self.path.borrow().iter() {
            match seg {
                Seg::Key(k) if out.is_empty() => out.push_str(k),
                Seg::Key(k) => {
                    out.push('.');
                    out.push_str(k);
                }
                Seg::Index(i) => out.push_str(&format!("[{i}]")),
            }
        }
        out
    }

    /// Run `f` with `seg` on the path (careful mode only).
    fn at<T>(&self, seg: impl FnOnce() -> Seg, f: impl FnOnce() -> T) -> T {
        if !self.careful {
            return f();
        }
        self.path.borrow_mut().push(seg());
        let r = f();
        self.path.borrow_mut().pop();
        r
    }
}

/// Converts a value that is not JSON data into one that is (or fails).
pub type Hook = for<'py> fn(&Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>>;

struct Node<'a, 'py> {
    obj: &'a Bound<'py, PyAny>,
    ctx: &'a Ctx,
    depth: usize,
    place: Place,
}

/// Where a value sits in trajectory input, as far as leaving out what the parser skips (and
/// writing trajectory by trajectory) cares.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// The input's structure: histories, trajectories (and groups, outside a list of groups).
    Any,
    /// A list of groups: its elements are [`Place::Group`]s.
    Groups,
    /// A group: a list of [`Place::Trajectory`]s, or a dict whose `trajectories` is one.
    Group,
    /// A group's `trajectories` list.
    Trajectories,
    /// A trajectory of a list of groups (written on its own in careful mode).
    Trajectory,
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
            Place::Group if key == "trajectories" => Some(Place::Trajectories),
            Place::Groups | Place::Group | Place::Trajectories => Some(Place::Data),
            Place::Any | Place::Trajectory => Some(match key {
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

    /// Keep the Python exception (and, in careful mode, where it happened); serde gets a
    /// placeholder.
    fn fail<E: serde::ser::Error>(&self, e: PyErr) -> E {
        let mut err = self.ctx.err.borrow_mut();
        if err.is_none() && self.ctx.careful {
            *self.ctx.failed_at.borrow_mut() = Some(self.ctx.path_text());
        }
        *err = Some(e);
        E::custom("python error")
    }

    /// Careful mode: this trajectory, tried on its own first; if it cannot be written, the
    /// invalid marker with the reason instead (see the module docs).
    fn careful_trajectory<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let body = Node { obj: self.obj, ctx: self.ctx, depth: self.depth, place: Place::Any };
        self.ctx.path.borrow_mut().clear();
        *self.ctx.failed_at.borrow_mut() = None;
        if serde_json::to_writer(std::io::sink(), &body).is_ok() {
            return body.serialize(s);
        }
        let Some(err) = self.ctx.err.borrow_mut().take() else {
            return body.serialize(s); // (not a Python error: let it fail for real)
        };
        let path = self.ctx.failed_at.borrow_mut().take().unwrap_or_default();
        let py = self.obj.py();
        let what = if err.is_instance_of::<TokenizerValueError>(py) {
            err.value(py).to_string()
        } else {
            format!("{}: {}", err.get_type(py).name().map(|n| n.to_string()).unwrap_or_default(), err.value(py))
        };
        s.serialize_str(&invalid_marker(&path, &what))
    }

    /// Write a dict entry (of a dict at `place`), or leave it out (see the module docs).
    fn entry<M: SerializeMap>(
        &self,
        m: &mut M,
        place: Place,
        k: &Bound<'py, PyAny>,
        v: &Bound<'py, PyAny>,
    ) -> Result<(), M::Error> {
        if let Ok(key) = k.cast_exact::<PyString>() {
            let text = utf8(key).map_err(|e| self.fail::<M::Error>(e))?;
            return match Self::place_of(place, text) {
                Some(child) => {
                    self.ctx.at(|| Seg::Key(text.to_string()), || m.serialize_entry(text, &self.child_at(v, child)))
                }
                None => Ok(()),
            };
        }
        let key = key_text(k).map_err(|e| self.fail::<M::Error>(e))?;
        let name = || {
            Seg::Key(match &key {
                Key::Str(s) => s.to_string(),
                Key::Text(t) => t.clone(),
            })
        };
        self.ctx.at(name, || m.serialize_entry(&key, &self.child(v)))
    }

    /// The place of element `i` of this list.
    fn element_place(&self, i: usize) -> Place {
        match self.place {
            Place::Any => Place::Any,
            Place::Groups => Place::Group,
            Place::Group | Place::Trajectories => Place::Trajectory,
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

/// A float: a JSON number, or the core's marker for a non-finite one.
fn float<S: Serializer>(s: S, x: f64) -> Result<S::Ok, S::Error> {
    match non_finite_marker(x) {
        Some(marker) => s.serialize_str(marker),
        None => s.serialize_f64(x),
    }
}

impl Serialize for Node<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let o = self.obj;
        if self.depth > MAX_DEPTH {
            return Err(
                self.fail(PyRecursionError::new_err("maximum nesting depth exceeded while serialising trajectories"))
            );
        }
        if self.place == Place::Trajectory && self.ctx.careful {
            return self.careful_trajectory(s);
        }
        // The exact built-in types first (a pointer comparison each); subclasses below.
        if o.is_exact_instance_of::<PyString>() {
            return s.serialize_str(utf8(o.cast::<PyString>().expect("checked")).map_err(|e| self.fail(e))?);
        }
        if o.is_exact_instance_of::<PyFloat>() {
            return float(s, o.cast::<PyFloat>().expect("checked").value());
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
            return float(s, f.value());
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
            return float(s, x);
        }
        if let Ok(l) = o.cast::<PyList>() {
            let mut seq = s.serialize_seq(Some(l.len()))?;
            for (i, v) in l.iter().enumerate() {
                self.ctx.at(|| Seg::Index(i), || seq.serialize_element(&self.child_at(&v, self.element_place(i))))?;
            }
            return seq.end();
        }
        if let Ok(t) = o.cast::<PyTuple>() {
            let mut seq = s.serialize_seq(Some(t.len()))?;
            for (i, v) in t.iter().enumerate() {
                self.ctx.at(|| Seg::Index(i), || seq.serialize_element(&self.child_at(&v, self.element_place(i))))?;
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
            return Err(TokenizerValueError::new_err(format!(
                "Out of range float values are not JSON compliant: {}",
                f.value()
            )));
        }
        return Ok(Key::Text(py.get_type::<PyFloat>().getattr(pyo3::intern!(py, "__repr__"))?.call1((k,))?.extract()?));
    }
    Err(PyTypeError::new_err(format!("keys must be str, int, float, bool or None, not {}", k.get_type().name()?)))
}
