//! Core errors as napi errors (the core's message verbatim, a status that the JS layer exposes
//! as `code`), and the panic guard every synchronous entry point runs under: a panic must never
//! unwind into Node.

use napi::{Error, Result, Status};

/// The napi status of an error of this [`ErrorClass`](yieldtok::ErrorClass).
fn status_of(class: yieldtok::ErrorClass) -> Status {
    use yieldtok::ErrorClass as C;
    match class {
        C::Cancelled => Status::Cancelled,
        C::InvalidInput => Status::InvalidArg,
        C::NotFound | C::Io | C::Setup | C::Internal => Status::GenericFailure,
    }
}

/// A core error as a napi error: the core's message, verbatim.
pub fn js_err(e: yieldtok::Error) -> Error {
    Error::new(status_of(e.class()), e.to_string())
}

/// A trajectory error of the whole call as a napi error: its message, verbatim, and the
/// status of its class.
pub fn js_trajectory_err(e: &yieldtok::trajectory::TrajectoryError) -> Error {
    Error::new(status_of(e.class()), e.to_string())
}

/// Run `f`, turning a panic into an error.
pub fn guard<T>(f: impl FnOnce() -> yieldtok::Result<T>) -> Result<T> {
    yieldtok::catch(f).map_err(js_err)
}

/// A bad argument the JS layer should have caught (reported, never a panic).
pub fn invalid_arg(msg: impl Into<String>) -> Error {
    Error::new(Status::InvalidArg, msg.into())
}
