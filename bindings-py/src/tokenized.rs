//! Trajectory results for Python: `TokenizedResult` (ART's `TokenizedResult`, one tokenized
//! history) and `packed_tensors_from_tokenized_results` (ART's packing), sync with the GIL
//! released and as an awaitable on the core scheduler.
//!
//! Per-token fields are zero-copy, read-only numpy views of the core's vectors (the
//! `_ArrayView` protocol of `encoding.rs`; the view keeps the whole result alive); without
//! numpy they are lists. Packed tensors are views of one `Packed` of shape `(n_rows, seq_len)`
//! with ART's dtypes (`int64`, `bool`, `float32`), or nested lists without numpy.

use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};
use yieldtok::trajectory::{self as tj, PackOptions, Packed};

use crate::encoding::{numpy_available, view, BOOL, F32, F64, I64, U32, U8, USIZE};
use crate::errors::TokenizerValueError;
use crate::trajectory::run_detached;

/// A numpy view of `data` (owned by `owner`), or a list of it without numpy.
fn array<'py, T>(
    py: Python<'py>,
    owner: Arc<dyn std::any::Any + Send + Sync>,
    data: &[T],
    shape: Vec<usize>,
    typestr: &'static str,
) -> PyResult<Bound<'py, PyAny>>
where
    T: Copy + for<'a> IntoPyObject<'a>,
{
    if numpy_available(py) {
        return view(py, owner, data.as_ptr().cast(), shape, typestr);
    }
    if shape.len() == 2 {
        let cols = shape[1].max(1);
        let rows = data.chunks(cols).map(|row| PyList::new(py, row.iter().copied())).collect::<PyResult<Vec<_>>>()?;
        return Ok(PyList::new(py, rows)?.into_any());
    }
    Ok(PyList::new(py, data.iter().copied())?.into_any())
}

/// One tokenized history (ART's `TokenizedResult`).
#[pyclass(frozen, module = "yieldtok")]
pub struct TokenizedResult {
    pub r: Arc<tj::TokenizedResult>,
}

impl TokenizedResult {
    fn owner(&self) -> Arc<dyn std::any::Any + Send + Sync> {
        self.r.clone()
    }
}

#[pymethods]
impl TokenizedResult {
    /// Token ids (`uint32`).
    #[getter]
    fn token_ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        array(py, self.owner(), &self.r.token_ids, vec![self.r.token_ids.len()], U32)
    }

    /// 1 where the token is trained (`uint8`).
    #[getter]
    fn assistant_mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        array(py, self.owner(), &self.r.assistant_mask, vec![self.r.assistant_mask.len()], U8)
    }

    /// Sampled logprobs, NaN elsewhere (`float64`).
    #[getter]
    fn logprobs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        array(py, self.owner(), &self.r.logprobs, vec![self.r.logprobs.len()], F64)
    }

    /// `0..len` (`uint32`).
    #[getter]
    fn input_pos<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        array(py, self.owner(), &self.r.input_pos, vec![self.r.input_pos.len()], U32)
    }

    /// Start of each trained Choice's tokens (`uint64`).
    #[getter]
    fn choice_offsets<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        array(py, self.owner(), &self.r.choice_offsets, vec![self.r.choice_offsets.len()], USIZE)
    }

    /// Name → per-token values (`float64`, NaN elsewhere), in first-seen order.
    #[getter]
    fn extra_logprobs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in &self.r.extra_logprobs {
            d.set_item(k, array(py, self.owner(), v, vec![v.len()], F64)?)?;
        }
        Ok(d)
    }

    #[getter]
    fn advantage(&self) -> f64 {
        self.r.advantage
    }

    #[getter]
    fn weight(&self) -> f64 {
        self.r.weight
    }

    #[getter]
    fn prompt_id(&self) -> i64 {
        self.r.prompt_id
    }

    #[getter]
    fn prompt_length(&self) -> usize {
        self.r.prompt_length
    }

    #[getter]
    fn chat(&self) -> &str {
        &self.r.chat
    }

    #[getter]
    fn group_index(&self) -> usize {
        self.r.group_index
    }

    #[getter]
    fn trajectory_index(&self) -> usize {
        self.r.trajectory_index
    }

    #[getter]
    fn history_index(&self) -> usize {
        self.r.history_index
    }

    /// Number of trained tokens (`sum(assistant_mask)`).
    #[getter]
    fn trainable_tokens(&self) -> usize {
        self.r.trainable_tokens()
    }

    /// ART's `without_prompt()`: every per-token field from `prompt_length` on.
    fn without_prompt(&self) -> TokenizedResult {
        TokenizedResult { r: Arc::new(self.r.without_prompt()) }
    }

    fn __len__(&self) -> usize {
        self.r.len()
    }

    /// Pickles as `(_tokenized_result_from_bytes, (bytes,))`: the core's byte form
    /// (`yieldtok::trajectory::wire`), deterministic and bit-exact (NaN logprobs included), so a
    /// result crosses Ray's object store, `multiprocessing` and `datasets`' cache.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let bytes = PyBytes::new(py, &self.r.to_bytes());
        let ctor = py.import("yieldtok._yieldtok")?.getattr("_tokenized_result_from_bytes")?;
        PyTuple::new(py, [ctor, PyTuple::new(py, [bytes])?.into_any()])
    }

    fn __repr__(&self) -> String {
        format!(
            "TokenizedResult(tokens={}, trainable={}, advantage={}, weight={}, prompt_id={}, prompt_length={}, group={}, trajectory={}, history={})",
            self.r.len(),
            self.r.trainable_tokens(),
            self.r.advantage,
            self.r.weight,
            self.r.prompt_id,
            self.r.prompt_length,
            self.r.group_index,
            self.r.trajectory_index,
            self.r.history_index
        )
    }
}

/// Unpickling entry point of `TokenizedResult` (see its `__reduce__`).
#[pyfunction]
pub fn _tokenized_result_from_bytes(bytes: &[u8]) -> PyResult<TokenizedResult> {
    let r = tj::TokenizedResult::from_bytes(bytes).map_err(|e| TokenizerValueError::new_err(e.to_string()))?;
    Ok(TokenizedResult { r: Arc::new(r) })
}

// ---- packing ----------------------------------------------------------------------------

/// The results to pack: ours are shared as they are; other objects with ART's fields
/// (`token_ids`, `assistant_mask`, `logprobs`, `input_pos`, `advantage`, `weight`, `prompt_id`,
/// `prompt_length`) are read once.
fn results_arg(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Arc<tj::TokenizedResult>>> {
    let py = obj.py();
    let mut out = Vec::with_capacity(obj.len().unwrap_or(0));
    for (i, item) in obj.try_iter()?.enumerate() {
        let item = item?;
        if let Ok(r) = item.cast::<TokenizedResult>() {
            out.push(r.get().r.clone());
            continue;
        }
        let field = |name: &str| -> PyResult<Bound<'_, PyAny>> {
            let v = item.getattr(name).map_err(|_| {
                PyTypeError::new_err(format!(
                    "results[{i}] is not a TokenizedResult (a {} without `{name}`)",
                    item.get_type().name().map(|n| n.to_string()).unwrap_or_default()
                ))
            })?;
            if v.hasattr(pyo3::intern!(py, "tolist"))? {
                v.call_method0(pyo3::intern!(py, "tolist"))
            } else {
                Ok(v)
            }
        };
        let token_ids: Vec<u32> = field("token_ids")?.extract()?;
        let n = token_ids.len();
        out.push(Arc::new(tj::TokenizedResult {
            token_ids,
            assistant_mask: field("assistant_mask")?
                .extract::<Vec<bool>>()
                .map(|v| v.into_iter().map(u8::from).collect())
                .or_else(|_| field("assistant_mask")?.extract())?,
            logprobs: field("logprobs")?.extract()?,
            input_pos: field("input_pos")?.extract()?,
            choice_offsets: Vec::new(),
            extra_logprobs: Vec::new(),
            advantage: field("advantage")?.extract()?,
            weight: field("weight")?.extract()?,
            prompt_id: field("prompt_id")?.extract()?,
            prompt_length: field("prompt_length")?.extract::<usize>()?.min(n),
            chat: String::new(),
            group_index: 0,
            trajectory_index: 0,
            history_index: 0,
        }));
    }
    Ok(out)
}

fn pack(results: &[Arc<tj::TokenizedResult>], opts: &PackOptions) -> PyResult<Packed> {
    tj::pack(results.iter().map(|r| &**r), opts).map_err(|e| TokenizerValueError::new_err(e.to_string()))
}

/// Packed tensors, converted to ART's dict under the GIL.
pub struct PackedOut(Arc<Packed>);

impl<'py> IntoPyObject<'py> for PackedOut {
    type Target = PyDict;
    type Output = Bound<'py, PyDict>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let p = self.0;
        let owner: Arc<dyn std::any::Any + Send + Sync> = p.clone();
        let shape = vec![p.n_rows, p.seq_len];
        let d = PyDict::new(py);
        d.set_item("tokens", array(py, owner.clone(), &p.tokens, shape.clone(), I64)?)?;
        d.set_item("group_ids", array(py, owner.clone(), &p.group_ids, shape.clone(), I64)?)?;
        d.set_item("parent_ids", array(py, owner.clone(), &p.parent_ids, shape.clone(), I64)?)?;
        d.set_item("input_pos", array(py, owner.clone(), &p.input_pos, shape.clone(), I64)?)?;
        d.set_item("assistant_mask", array(py, owner.clone(), &p.assistant_mask, shape.clone(), BOOL)?)?;
        d.set_item("logprobs", array(py, owner.clone(), &p.logprobs, shape.clone(), F32)?)?;
        d.set_item("advantages", array(py, owner.clone(), &p.advantages, shape.clone(), F32)?)?;
        d.set_item("weights", array(py, owner, &p.weights, shape, F32)?)?;
        let nones = || PyList::new(py, (0..p.n_rows).map(|_| py.None()));
        d.set_item("pixel_values", nones()?)?;
        d.set_item("image_grid_thw", nones()?)?;
        Ok(d)
    }
}

#[allow(clippy::too_many_arguments)]
fn pack_options(
    seq_len: i64,
    pad_token_id: i64,
    truncate_long_results: bool,
    advantage_balance: f64,
    pack_results: bool,
    seed: Option<i128>,
) -> PyResult<PackOptions> {
    if seq_len <= 0 {
        return Err(TokenizerValueError::new_err(format!("seq_len must be positive, not {seq_len}")));
    }
    Ok(PackOptions {
        seq_len: seq_len as usize,
        pad_token_id,
        truncate_long_results,
        advantage_balance,
        pack_results,
        seed,
    })
}

/// ART's `packed_tensors_from_tokenized_results` (GIL released).
#[pyfunction]
#[pyo3(signature = (results, seq_len, pad_token_id=-100, truncate_long_results=true, advantage_balance=0.0, pack_results=true, seed=None, *, verbosity=1))]
#[allow(clippy::too_many_arguments)]
pub fn packed_tensors_from_tokenized_results<'py>(
    py: Python<'py>,
    results: &Bound<'py, PyAny>,
    seq_len: i64,
    pad_token_id: i64,
    truncate_long_results: bool,
    advantage_balance: f64,
    pack_results: bool,
    seed: Option<i128>,
    verbosity: i64,
) -> PyResult<Bound<'py, PyDict>> {
    let _ = verbosity;
    let opts = pack_options(seq_len, pad_token_id, truncate_long_results, advantage_balance, pack_results, seed)?;
    let results = results_arg(results)?;
    let packed = run_detached(py, || pack(&results, &opts))?;
    PackedOut(Arc::new(packed)).into_pyobject(py)
}

/// Awaitable `packed_tensors_from_tokenized_results`, run on the core scheduler.
#[pyfunction]
#[pyo3(signature = (results, seq_len, pad_token_id=-100, truncate_long_results=true, advantage_balance=0.0, pack_results=true, seed=None, *, verbosity=1))]
#[allow(clippy::too_many_arguments)]
pub fn async_packed_tensors_from_tokenized_results<'py>(
    py: Python<'py>,
    results: &Bound<'py, PyAny>,
    seq_len: i64,
    pad_token_id: i64,
    truncate_long_results: bool,
    advantage_balance: f64,
    pack_results: bool,
    seed: Option<i128>,
    verbosity: i64,
) -> PyResult<Bound<'py, PyAny>> {
    let _ = verbosity;
    let opts = pack_options(seq_len, pad_token_id, truncate_long_results, advantage_balance, pack_results, seed)?;
    let results = results_arg(results)?;
    let fut = yieldtok::spawn(move || Ok(pack(&results, &opts).map(|p| PackedOut(Arc::new(p)))));
    crate::tokenizer::bridge(py, async move { fut.await.map_err(crate::errors::to_pyerr)? }, Vec::new())
}
