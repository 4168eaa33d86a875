//! Long `str` arguments of awaitable calls, read off the event loop.
//!
//! Reading a `str` as UTF-8 is O(length) unless it is ASCII, and copying it into the core's
//! `Arc<str>` is O(length) always: for a 200 MB string that is hundreds of milliseconds, which
//! an `async_*` call must not spend on the loop before it returns its awaitable. A string of
//! at least [`OFF_LOOP_CHARS`] code points is therefore kept as a reference (a `str` is
//! immutable and the reference keeps it alive) and read later, on one of the bridge runtime's
//! blocking threads, in pieces of [`PIECE_CHARS`] code points: each piece takes the GIL for a
//! few milliseconds (a substring, its UTF-8, a copy), so the loop runs between pieces. A lone
//! surrogate is the same `TokenizerValueError` as on the short path, with its index in the
//! whole string. Cancelling the awaitable stops the reading at the next piece.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::tokenizer::{surrogate_error, text_arg};

/// Strings of at least this many code points are read off the loop.
pub const OFF_LOOP_CHARS: usize = 1 << 20;
/// Code points read per GIL hold.
pub const PIECE_CHARS: isize = 1 << 20;

/// A text argument: ready now, or to be read off the loop ([`LongText::read`]).
pub enum LongText {
    Ready(Arc<str>),
    Later { s: Py<PyString>, what: String },
}

impl LongText {
    /// `obj` as a text argument (`what` names it in errors): short strings are read now.
    pub fn from_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<LongText> {
        if let Ok(s) = obj.cast::<PyString>() {
            if s.len()? >= OFF_LOOP_CHARS {
                return Ok(LongText::Later { s: s.clone().unbind(), what: what.to_string() });
            }
        }
        text_arg(obj, what).map(LongText::Ready)
    }

    /// The text as UTF-8: at once if ready, else read in pieces on a blocking thread of the
    /// current tokio runtime (see the module docs).
    pub async fn read(self) -> PyResult<Arc<str>> {
        match self {
            LongText::Ready(t) => Ok(t),
            LongText::Later { s, what } => {
                let stop = Arc::new(AtomicBool::new(false));
                let _guard = SetOnDrop(stop.clone());
                match tokio::task::spawn_blocking(move || read_in_pieces(s, &what, &stop)).await {
                    Ok(r) => r,
                    Err(e) => {
                        Err(crate::errors::TokenizerInternalError::new_err(format!("reading a long str failed: {e}")))
                    }
                }
            }
        }
    }
}

/// Sets the flag when the awaiting future is dropped (the awaitable was cancelled).
struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

fn read_in_pieces(s: Py<PyString>, what: &str, stop: &AtomicBool) -> PyResult<Arc<str>> {
    let n = Python::attach(|py| s.bind(py).len())? as isize;
    let mut out = String::with_capacity(n as usize);
    let mut i: isize = 0;
    while i < n {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let end = (i + PIECE_CHARS).min(n);
        Python::attach(|py| -> PyResult<()> {
            // SAFETY: `s` is a live str (we hold a reference); PyUnicode_Substring returns a new
            // reference or NULL with an exception set.
            let sub = unsafe { Bound::from_owned_ptr_or_err(py, pyo3::ffi::PyUnicode_Substring(s.as_ptr(), i, end))? };
            let sub = sub.cast_into::<PyString>().map_err(PyErr::from)?;
            match sub.to_str() {
                Ok(t) => {
                    out.push_str(t);
                    Ok(())
                }
                Err(e) => Err(surrogate_error(&sub, e, what, i as usize)),
            }
        })?;
        i = end;
    }
    Python::attach(move |_| drop(s));
    Ok(Arc::from(out))
}
