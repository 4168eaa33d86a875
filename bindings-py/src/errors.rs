//! Python exceptions. Every core [`yieldtok::Error`] becomes a subclass of
//! `yieldtok.TokenizerError` that is also a builtin exception, so both `except TokenizerError`
//! and `except ValueError` / `except OSError` work:
//!
//! | core [`ErrorClass`](yieldtok::ErrorClass) | Python exception                                          |
//! |------------------------------------------|-----------------------------------------------------------|
//! | `InvalidInput` (bad JSON, bad ids…)       | `TokenizerValueError(TokenizerError, ValueError)`          |
//! | `NotFound` (also `Io` with kind NotFound) | `TokenizerNotFoundError(TokenizerOSError, FileNotFoundError)` |
//! | `Io`, `Setup`                             | `TokenizerOSError(TokenizerError, OSError)`                |
//! | `Internal` (a caught panic)               | `TokenizerInternalError(TokenizerError, RuntimeError)`     |
//! | `Cancelled`                               | `TokenizerError`                                           |
//!
//! Trajectory tokenization adds `TrajectoryError(TokenizerValueError)` (so also a `ValueError`,
//! the type ART raises for its own errors): some trajectories failed; it carries the results of
//! everything else (`.results`) and one record per failure (`.errors`). It is defined from
//! Python source (run once) because it needs an `__init__` that keeps those two attributes.
//!
//! The classes are built with `PyErr_NewExceptionWithDoc` and a tuple of bases (pyo3's
//! `create_exception!` takes a single base); they implement `PyTypeInfo`, so `X::new_err(msg)`
//! builds a lazy `PyErr` without the GIL (needed inside the futures handed to asyncio).

use pyo3::exceptions::{PyException, PyFileNotFoundError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyTuple, PyType};
use pyo3::PyTypeInfo;

macro_rules! exception {
    ($name:ident, $doc:literal, [$($base:ty),+]) => {
        #[repr(transparent)]
        pub struct $name(pyo3::PyAny);
        pyo3::impl_exception_boilerplate!($name);
        pyo3::pyobject_native_type_named!($name);
        // SAFETY: `type_object_raw` returns a type object that lives for the whole process
        // (kept alive by the static), built once with the GIL held.
        unsafe impl pyo3::type_object::PyTypeInfo for $name {
            fn type_object_raw(py: Python<'_>) -> *mut pyo3::ffi::PyTypeObject {
                static TYPE: pyo3::sync::PyOnceLock<Py<PyType>> = pyo3::sync::PyOnceLock::new();
                TYPE.get_or_init(py, || {
                    let bases = PyTuple::new(py, [$(<$base>::type_object(py)),+]).expect("tuple of exception bases");
                    let name = concat!("yieldtok.", stringify!($name), "\0");
                    let doc = concat!($doc, "\0");
                    // SAFETY: valid NUL-terminated strings and a tuple of exception classes.
                    unsafe {
                        let ptr = pyo3::ffi::PyErr_NewExceptionWithDoc(
                            name.as_ptr().cast(),
                            doc.as_ptr().cast(),
                            bases.as_ptr(),
                            std::ptr::null_mut(),
                        );
                        Bound::from_owned_ptr_or_err(py, ptr)
                            .expect(concat!("cannot create yieldtok.", stringify!($name)))
                            .cast_into_unchecked::<PyType>()
                            .unbind()
                    }
                })
                .as_ptr()
                .cast()
            }
        }
    };
}

exception!(TokenizerError, "Base class of every error yieldtok raises.", [PyException]);
exception!(
    TokenizerValueError,
    "Bad input: a malformed tokenizer definition, an id the vocabulary lacks, a lone surrogate in a text, an unsupported argument.",
    [TokenizerError, PyValueError]
);
exception!(TokenizerOSError, "A file could not be read.", [TokenizerError, PyOSError]);
exception!(
    TokenizerNotFoundError,
    "A file, model folder or Hugging Face cache entry does not exist (yieldtok never downloads).",
    [TokenizerOSError, PyFileNotFoundError]
);
exception!(
    TokenizerInternalError,
    "A bug: a panic inside the tokenization pipeline, caught before it could reach the interpreter.",
    [TokenizerError, PyRuntimeError]
);

/// The class statement of `yieldtok.TrajectoryError` (run once, `TokenizerValueError` in scope).
const TRAJECTORY_ERROR_SOURCE: &std::ffi::CStr = c"
class TrajectoryError(TokenizerValueError):
    '''Some trajectories could not be tokenized. ``results`` holds the results of everything
    else (what the call returns when nothing fails, minus the failed trajectories), ``errors``
    one ``TrajectoryFailure`` per failed trajectory (group, trajectory, history, item, message,
    and the exception type ART 0.5.18 raises there). Also a ``ValueError``, like ART's errors.'''

    def __init__(self, message, results=(), errors=()):
        TokenizerValueError.__init__(self, message)
        self.results = list(results)
        self.errors = list(errors)
";

/// `yieldtok.TrajectoryError` (see the module docs).
#[repr(transparent)]
pub struct TrajectoryError(pyo3::PyAny);
pyo3::impl_exception_boilerplate!(TrajectoryError);
pyo3::pyobject_native_type_named!(TrajectoryError);
// SAFETY: as for the classes above: a type object kept alive by the static, built with the GIL.
unsafe impl pyo3::type_object::PyTypeInfo for TrajectoryError {
    fn type_object_raw(py: Python<'_>) -> *mut pyo3::ffi::PyTypeObject {
        static TYPE: pyo3::sync::PyOnceLock<Py<PyType>> = pyo3::sync::PyOnceLock::new();
        TYPE.get_or_init(py, || {
            let scope = pyo3::types::PyDict::new(py);
            scope.set_item("__name__", "yieldtok").expect("dict");
            scope.set_item("TokenizerValueError", TokenizerValueError::type_object(py)).expect("dict");
            py.run(TRAJECTORY_ERROR_SOURCE, Some(&scope), None).expect("cannot create yieldtok.TrajectoryError");
            scope
                .get_item("TrajectoryError")
                .ok()
                .flatten()
                .expect("TrajectoryError defined")
                .cast_into::<PyType>()
                .expect("a class")
                .unbind()
        })
        .as_ptr()
        .cast()
    }
}

/// Map a core error to its Python exception (lazily; no GIL needed).
pub fn to_pyerr(e: yieldtok::Error) -> PyErr {
    use yieldtok::ErrorClass as C;
    let msg = e.to_string();
    match e.class() {
        C::InvalidInput => TokenizerValueError::new_err(msg),
        C::NotFound => TokenizerNotFoundError::new_err(msg),
        C::Internal => TokenizerInternalError::new_err(msg),
        C::Cancelled => TokenizerError::new_err(msg),
        C::Io | C::Setup => TokenizerOSError::new_err(msg),
    }
}

/// Run `f`, turning core errors and panics into Python exceptions (a panic becomes
/// `TokenizerInternalError`, never an abort or a `BaseException`).
pub fn guard<T>(f: impl FnOnce() -> yieldtok::Result<T>) -> PyResult<T> {
    yieldtok::catch(f).map_err(to_pyerr)
}

/// A caught panic's payload as `TokenizerInternalError` (the core's message for it).
pub fn panic_err(payload: Box<dyn std::any::Any + Send>) -> PyErr {
    to_pyerr(yieldtok::Error::from_panic(payload))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("TokenizerError", TokenizerError::type_object(py))?;
    m.add("TokenizerValueError", TokenizerValueError::type_object(py))?;
    m.add("TokenizerOSError", TokenizerOSError::type_object(py))?;
    m.add("TokenizerNotFoundError", TokenizerNotFoundError::type_object(py))?;
    m.add("TokenizerInternalError", TokenizerInternalError::type_object(py))?;
    m.add("TrajectoryError", TrajectoryError::type_object(py))?;
    Ok(())
}
