//! Core errors as napi errors (the core's message verbatim, a status that the JS layer exposes
//! as `code`), and the panic guard every synchronous entry point runs under: a panic must never
//! unwind into Node.

use napi::{Error, Result, Status};

/// The napi status of a core error, from its [`ErrorClass`](yieldtok::ErrorClass).
fn status_of(e: &yieldtok::Error) -> Status {
    use yieldtok::ErrorClass as C;
    match e.class() {
        C::Cancelled => Status::Cancelled,
        C::InvalidInput => Status::InvalidArg,
        C::NotFound | C::Io | C::Setup | C::Internal => Status::GenericFailure,
    }
}

/// A core error as a napi error: the core's message, verbatim.
pub fn js_err(e: yieldtok::Error) -> Error {
    Error::new(status_of(&e), e.to_string())
}

/// Run `f`, turning a panic into an error.
pub fn guard<T>(f: impl FnOnce() -> yieldtok::Result<T>) -> Result<T> {
    yieldtok::catch(f).map_err(js_err)
}

/// A bad argument the JS layer should have caught (reported, never a panic).
pub fn invalid_arg(msg: impl Into<String>) -> Error {
    Error::new(Status::InvalidArg, msg.into())
}
