//! The asyncio bridge: a Rust future (a core `EncodeFuture`, `BatchFuture` or `TaskFuture`,
//! whose work runs on the core scheduler) becomes an asyncio future of the running loop
//! (asyncio or uvloop).
//!
//! * The future is driven by a small tokio runtime of the bridge's own (two workers, at most
//!   two blocking threads: thousands of concurrent awaits never grow the thread count); its
//!   result is turned into Python objects on one of that runtime's blocking threads and handed
//!   to the loop with `call_soon_threadsafe` (the loop thread sets it, unless the future was
//!   cancelled meanwhile).
//! * Fork: the runtime and the count of attached bridge threads are per process
//!   ([`yieldtok::fork::PerProcess`]); a forked child starts a runtime of its own on its first
//!   await (the parent's threads are gone there).
//! * Cancelling the asyncio future cancels the jobs at once, on the loop thread (their
//!   handles), and drops the Rust future (which cancels whatever else it started).
//! * Interpreter exit: a bridge thread that takes the GIL while CPython finalizes aborts the
//!   process (CPython < 3.14). An `atexit` hook therefore closes the bridge: it waits for
//!   bridge threads already holding or waiting for the GIL, and afterwards results are
//!   dropped instead of delivered — no one is waiting for them.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;
use yieldtok::fork::PerProcess;
use yieldtok::JobHandle;

use crate::errors::{panic_err, TokenizerInternalError};

/// Bridge threads holding or waiting for the GIL, in this process.
static ATTACHED: PerProcess<AtomicUsize> = PerProcess::new();
static CLOSED: AtomicBool = AtomicBool::new(false);
static RUNTIME: PerProcess<Result<tokio::runtime::Runtime, String>> = PerProcess::new();

fn attached() -> &'static AtomicUsize {
    ATTACHED.get_or_init(|_| AtomicUsize::new(0))
}

/// This process's bridge runtime, started on first use.
fn runtime() -> PyResult<&'static tokio::runtime::Runtime> {
    let rt = RUNTIME.get_or_init(|_| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .max_blocking_threads(2)
            .thread_name("yieldtok-bridge")
            .build()
            .map_err(|e| format!("cannot start the asyncio bridge's threads: {e}"))
    });
    rt.as_ref().map_err(|e| TokenizerInternalError::new_err(e.clone()))
}

/// Run `f` with the GIL on a bridge thread, unless the bridge was closed (interpreter exit);
/// then `f` is dropped unrun (its Python references are released later by pyo3, without
/// taking the GIL here).
fn attach_unless_closed(f: impl FnOnce(Python<'_>)) {
    attached().fetch_add(1, SeqCst);
    if !CLOSED.load(SeqCst) {
        Python::attach(f);
    }
    attached().fetch_sub(1, SeqCst);
}

/// The `atexit` hook: no bridge thread takes the GIL after this returns.
#[pyfunction]
fn _close_bridge(py: Python<'_>) {
    CLOSED.store(true, SeqCst);
    py.detach(|| {
        let start = Instant::now();
        while attached().load(SeqCst) > 0 && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(1));
        }
    });
}

/// Register the exit hook (module init).
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let hook = wrap_pyfunction!(_close_bridge, m)?;
    py.import("atexit")?.call_method1("register", (hook,))?;
    Ok(())
}

/// An asyncio future for `fut` on the running loop (see the module docs). `handles` are the
/// core jobs to cancel right away if the asyncio future is cancelled.
pub fn bridge<'py, T, F>(py: Python<'py>, fut: F, handles: Vec<JobHandle>) -> PyResult<Bound<'py, PyAny>>
where
    F: std::future::Future<Output = PyResult<T>> + Send + 'static,
    T: for<'a> IntoPyObject<'a> + Send + 'static,
{
    let rt = runtime()?;
    let event_loop = py.import(pyo3::intern!(py, "asyncio"))?.call_method0(pyo3::intern!(py, "get_running_loop"))?;
    let py_fut = event_loop.call_method0(pyo3::intern!(py, "create_future"))?;
    let (cancel_tx, cancel_rx) = tokio::sync::oneshot::channel::<()>();
    py_fut.call_method1(
        pyo3::intern!(py, "add_done_callback"),
        (OnDone { cancel: Mutex::new(Some(cancel_tx)), handles },),
    )?;
    let target = (event_loop.unbind(), py_fut.clone().unbind());
    rt.spawn(async move {
        // Its own task, so that a panic comes back as a `JoinError` instead of being lost.
        // The cancel channel also fires if the asyncio future is dropped unawaited.
        let work = tokio::spawn(async move {
            tokio::select! {
                r = fut => Some(r),
                _ = cancel_rx => None,
            }
        });
        let outcome: PyResult<T> = match work.await {
            Ok(Some(r)) => r,
            Ok(None) => return,
            Err(e) if e.is_panic() => Err(panic_err(e.into_panic())),
            Err(_) => return,
        };
        tokio::task::spawn_blocking(move || attach_unless_closed(move |py| deliver(py, target, outcome)));
    });
    Ok(py_fut)
}

/// Hand `outcome` to the loop thread, which sets it on the future if still pending.
fn deliver<T: for<'a> IntoPyObject<'a>>(
    py: Python<'_>,
    (event_loop, fut): (Py<PyAny>, Py<PyAny>),
    outcome: PyResult<T>,
) {
    let (ok, value) = match outcome.and_then(|v| v.into_py_any(py)) {
        Ok(v) => (true, v),
        Err(e) => (false, e.into_value(py).into_any()),
    };
    let loop_ = event_loop.bind(py);
    let closed = || loop_.call_method0(pyo3::intern!(py, "is_closed")).and_then(|c| c.is_truthy()).unwrap_or(false);
    if closed() {
        return; // the loop is gone, and with it whoever awaited this
    }
    let sent = wrap_pyfunction!(_set_if_pending, py)
        .and_then(|setter| loop_.call_method1(pyo3::intern!(py, "call_soon_threadsafe"), (setter, fut, ok, value)));
    if let Err(e) = sent {
        // Closed between the check and the call: nobody is waiting any more. Anything else is
        // reported, not swallowed.
        if !closed() {
            e.write_unraisable(py, None);
        }
    }
}

/// Runs on the loop thread: set the result or exception unless the future is already done
/// (cancelled).
#[pyfunction]
fn _set_if_pending(fut: &Bound<'_, PyAny>, ok: bool, value: Bound<'_, PyAny>) -> PyResult<()> {
    let py = fut.py();
    if fut.call_method0(pyo3::intern!(py, "done"))?.is_truthy()? {
        return Ok(());
    }
    let method = if ok { pyo3::intern!(py, "set_result") } else { pyo3::intern!(py, "set_exception") };
    fut.call_method1(method, (value,))?;
    Ok(())
}

/// Done-callback of an awaitable: if the asyncio future was cancelled, cancel its jobs now and
/// drop the Rust future.
#[pyclass(frozen, module = "yieldtok", name = "_OnDone")]
struct OnDone {
    cancel: Mutex<Option<tokio::sync::oneshot::Sender<()>>>,
    handles: Vec<JobHandle>,
}

#[pymethods]
impl OnDone {
    fn __call__(&self, fut: &Bound<'_, PyAny>) -> PyResult<()> {
        if fut.call_method0(pyo3::intern!(fut.py(), "cancelled"))?.is_truthy()? {
            for h in &self.handles {
                h.cancel();
            }
            if let Some(tx) = self.cancel.lock().unwrap_or_else(|e| e.into_inner()).take() {
                let _ = tx.send(());
            }
        }
        Ok(())
    }
}
