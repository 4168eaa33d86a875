//! Promises settled from other threads. A call creates a `JsDeferred` (a threadsafe function)
//! and hands it to the thread that finishes the work; the resolver closure runs on the JS thread
//! and only wraps what the worker built (vectors become external `ArrayBuffer`s, no copy).
//! [`run_task`] is the common case: a core [`TaskFuture`] on the scheduler, driven by [`exec`],
//! cancellable through a [`CancelToken`].

use napi::bindgen_prelude::*;
use napi::{Env, JsDeferred};
use yieldtok::TaskFuture;

use crate::cancel::{CancelToken, Target};
use crate::errors::js_err;
use crate::exec;

pub type Resolver<D> = Box<dyn FnOnce(Env) -> Result<D> + Send>;
pub type Deferred<D> = JsDeferred<D, Resolver<D>>;

/// Resolve with `f(v)` (run on the JS thread) or reject.
pub fn settle<D: ToNapiValue + 'static, T: Send + 'static>(deferred: Deferred<D>, r: Result<T>, f: fn(T) -> D) {
    match r {
        Ok(v) => deferred.resolve(Box::new(move |_env| Ok(f(v)))),
        Err(e) => deferred.reject(e),
    }
}

/// A promise for `fut`: resolves to `to_js(output)` (on the JS thread; an `Err` rejects), rejects
/// with the core's error. Aborting `token` drops the task (it never starts if it has not yet)
/// and rejects.
pub fn run_task<'env, T, D>(
    env: &'env Env,
    fut: TaskFuture<T>,
    token: Option<&CancelToken>,
    to_js: fn(T) -> Result<D>,
) -> Result<Object<'env>>
where
    T: Send + 'static,
    D: ToNapiValue + 'static,
{
    let (deferred, promise) = env.create_deferred::<D, Resolver<D>>()?;
    let abort = exec::spawn(env, fut, false, move |r| match r {
        Ok(v) => deferred.resolve(Box::new(move |_env| to_js(v))),
        Err(e) => deferred.reject(js_err(e)),
    });
    CancelToken::register(token, || Target::Task(abort));
    Ok(promise)
}
