//! Sync calls that wait for the core's pool (long texts, batches, trajectories): the work runs
//! as a task on the core scheduler while the calling thread waits with the GIL released,
//! waking every [`SIGNAL_CHECK`] to run Python's signal handlers. Ctrl-C (or any handler that
//! raises) therefore interrupts the call at once: the exception is raised and the task's
//! cancel flag is set, so the work stops: between pieces, and on the own engine inside the
//! running piece too (core `encode_with_cancel` hands the flag to the engine).

use std::time::Duration;

use pyo3::prelude::*;

use crate::errors::to_pyerr;

/// How often a waiting call checks for signals.
pub const SIGNAL_CHECK: Duration = Duration::from_millis(50);

/// Run `work` on `tok`'s scheduler and wait for it, interruptibly (see the module docs).
/// `work` gets the cancel flag that an interrupt sets.
pub fn interruptible<T, F>(py: Python<'_>, tok: &yieldtok::Tokenizer, work: F) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce(&yieldtok::Tokenizer, &yieldtok::CancelFlag) -> PyResult<T> + Send + 'static,
{
    let mut fut = tok.spawn_cancellable(move |t, cancel| Ok(work(t, cancel)));
    loop {
        if let Some(r) = py.detach(|| yieldtok::wait_for(&mut fut, Some(SIGNAL_CHECK))) {
            return r.map_err(to_pyerr)?;
        }
        // Dropping the future on the way out (an exception here) sets the cancel flag.
        py.check_signals()?;
    }
}

/// [`interruptible`] for core calls (`yieldtok::Result`).
pub fn interruptible_core<T, F>(py: Python<'_>, tok: &yieldtok::Tokenizer, work: F) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce(&yieldtok::Tokenizer, &yieldtok::CancelFlag) -> yieldtok::Result<T> + Send + 'static,
{
    interruptible(py, tok, move |t, cancel| work(t, cancel).map_err(to_pyerr))
}
