//! Core errors as napi errors (the core's message verbatim, a status that the JS layer exposes
//! as `code`), and the panic guard every synchronous entry point runs under: a panic must never
//! unwind into Node.

use std::panic::{catch_unwind, AssertUnwindSafe};

use napi::{Error, Result, Status};

fn status_of(e: &yieldtok::Error) -> Status {
    match e {
        yieldtok::Error::Cancelled => Status::Cancelled,
        e if e.is_invalid_input() => Status::InvalidArg,
        _ => Status::GenericFailure,
    }
}

/// A core error as a napi error: the core's message, verbatim.
pub fn js_err(e: yieldtok::Error) -> Error {
    Error::new(status_of(&e), e.to_string())
}

/// Run `f`, turning a panic into an error.
pub fn guard<T>(f: impl FnOnce() -> yieldtok::Result<T>) -> Result<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r.map_err(js_err),
        Err(p) => Err(Error::new(Status::GenericFailure, format!("internal panic: {}", panic_message(&p)))),
    }
}

pub fn panic_message(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic payload".into())
}

/// A bad argument the JS layer should have caught (reported, never a panic).
pub fn invalid_arg(msg: impl Into<String>) -> Error {
    Error::new(Status::InvalidArg, msg.into())
}
