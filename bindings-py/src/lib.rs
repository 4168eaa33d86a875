//! `yieldtok._yieldtok`: the native module behind the `yieldtok` Python package.
//!
//! * Sync calls release the GIL (`py.detach`) for anything but tiny inputs; those that wait
//!   for the core's pool (long texts, batches, trajectories) wait interruptibly: Ctrl-C raises
//!   `KeyboardInterrupt` at once and stops the work (`blocking.rs`).
//! * Awaitables: the core's runtime-agnostic `EncodeFuture` runs its pieces on the core
//!   scheduler's bounded pool; the bridge (`bridge.rs`, on a small tokio runtime of its own)
//!   only hands completion to asyncio (long results arrive assembled: the core assembles them
//!   on its pool). The bridge runtime is deliberately small — two workers (measured: fewer
//!   short requests stuck behind a long one's hand-over than with one) and at most two blocking
//!   threads (results are delivered from the blocking pool) — so thousands of concurrent
//!   awaits never grow the thread count. Work that is not an encode (decode,
//!   trajectories, packing) runs as `TaskFuture`s on the same pool (`Tokenizer::spawn`).

use pyo3::prelude::*;

mod blocking;
mod bridge;
mod chat;
mod encoding;
mod errors;
mod longtext;
mod pyjson;
mod stream;
mod tokenized;
mod tokenizer;
mod trajectory;

/// Threads and queued jobs of the core scheduler (for tests and metrics).
#[pyfunction]
fn scheduler_info(py: Python<'_>) -> PyResult<Bound<'_, pyo3::types::PyDict>> {
    let s = yieldtok::Scheduler::global();
    let d = pyo3::types::PyDict::new(py);
    d.set_item("threads", s.threads())?;
    d.set_item("queued", s.queued())?;
    Ok(d)
}

/// Block (without the GIL) until no fast-engine build is queued or running in this process.
/// Builds start in the background on a tokenizer's first ids-only use; tests and benchmarks
/// that measure CPU call this first.
#[pyfunction]
fn wait_for_engine_loads(py: Python<'_>) {
    py.detach(yieldtok::wait_for_engine_loads)
}

#[pymodule]
fn _yieldtok(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<tokenizer::Tokenizer>()?;
    m.add_class::<tokenizer::AddedToken>()?;
    m.add_class::<encoding::Encoding>()?;
    m.add_class::<encoding::BatchEncoding>()?;
    m.add_class::<encoding::ArrayView>()?;
    m.add_class::<stream::DecodeStream>()?;
    m.add_class::<tokenized::TokenizedResult>()?;
    m.add_class::<trajectory::TrajectoryFailure>()?;
    m.add_function(wrap_pyfunction!(tokenized::packed_tensors_from_tokenized_results, m)?)?;
    m.add_function(wrap_pyfunction!(tokenized::async_packed_tensors_from_tokenized_results, m)?)?;
    m.add_function(wrap_pyfunction!(tokenizer::_tokenizer_from_json, m)?)?;
    m.add_function(wrap_pyfunction!(tokenizer::_tokenizer_from_bundle, m)?)?;
    m.add_function(wrap_pyfunction!(tokenized::_tokenized_result_from_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(scheduler_info, m)?)?;
    m.add_function(wrap_pyfunction!(wait_for_engine_loads, m)?)?;
    errors::register(m)?;
    bridge::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
