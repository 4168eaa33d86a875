//! `yieldtok._yieldtok`: the native module behind the `yieldtok` Python package.
//!
//! * Sync calls release the GIL (`py.detach`) for anything but tiny inputs.
//! * Awaitables: the core's runtime-agnostic `EncodeFuture` runs its pieces on the core
//!   scheduler's bounded pool; pyo3-async-runtimes (tokio) only bridges completion to asyncio.
//!   The bridge runtime is deliberately tiny — one worker and at most two blocking threads
//!   (pyo3-async-runtimes resolves asyncio futures from the blocking pool) — so thousands of
//!   concurrent awaits never grow the thread count.

use pyo3::prelude::*;

mod chat;
mod encoding;
mod errors;
mod tokenizer;

/// Configure the bridge runtime before pyo3-async-runtimes builds it on first use.
pub(crate) fn runtime() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let mut b = tokio::runtime::Builder::new_multi_thread();
        b.worker_threads(1).max_blocking_threads(2).thread_name("yieldtok-bridge");
        pyo3_async_runtimes::tokio::init(b);
    });
}

/// Threads and queued jobs of the core scheduler (for tests and metrics).
#[pyfunction]
fn scheduler_info(py: Python<'_>) -> PyResult<Bound<'_, pyo3::types::PyDict>> {
    let s = yieldtok::Scheduler::global();
    let d = pyo3::types::PyDict::new(py);
    d.set_item("threads", s.threads())?;
    d.set_item("queued", s.queued())?;
    Ok(d)
}

#[pymodule]
fn _yieldtok(m: &Bound<'_, PyModule>) -> PyResult<()> {
    runtime();
    m.add_class::<tokenizer::Tokenizer>()?;
    m.add_class::<encoding::Encoding>()?;
    m.add_class::<encoding::BatchEncoding>()?;
    m.add_class::<encoding::ArrayView>()?;
    m.add_function(wrap_pyfunction!(tokenizer::_tokenizer_from_json, m)?)?;
    m.add_function(wrap_pyfunction!(scheduler_info, m)?)?;
    errors::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
