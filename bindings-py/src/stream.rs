//! `yieldtok.DecodeStream`: `tokenizers.decoders.DecodeStream` (same constructor, `step`,
//! results and errors) over the core's [`yieldtok::DecodeStream`], plus `step_many`, which
//! steps many streams in one call with the GIL released (one Python call per generated token
//! of every request, instead of one per request).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyInt;

use crate::errors::{guard, to_pyerr};
use crate::tokenizer::{ids_arg, Tokenizer};

/// Streams stepped in one `step_many` call release the GIL from this many on.
const DETACH_STREAMS: usize = 64;

/// Incremental decoding of ids as they are generated (`tokenizers.decoders.DecodeStream`).
#[pyclass(module = "yieldtok")]
#[derive(Clone)]
pub struct DecodeStream {
    inner: yieldtok::DecodeStream,
}

#[pymethods]
impl DecodeStream {
    #[new]
    #[pyo3(signature = (ids=None, skip_special_tokens=false))]
    fn new(ids: Option<&Bound<'_, PyAny>>, skip_special_tokens: bool) -> PyResult<Self> {
        let ids = match ids {
            Some(ids) if !ids.is_none() => ids_arg(ids)?,
            _ => Vec::new(),
        };
        Ok(DecodeStream { inner: yieldtok::DecodeStream::new(ids, skip_special_tokens) })
    }

    /// Add the next id (or a list of ids) and return the text they complete, or `None` when
    /// more ids are needed.
    fn step(&mut self, tokenizer: PyRef<'_, Tokenizer>, id: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
        let ids = ids_arg(id)?;
        guard(|| self.inner.step(&tokenizer.tok(), &ids))
    }

    /// Step many streams at once: `streams[i]` gets `ids[i]` (an id or a list of ids). Returns
    /// the list of what each `step` would return; the GIL is released for large batches. A
    /// stream whose step fails raises (after every stream was stepped).
    #[staticmethod]
    fn step_many(
        py: Python<'_>,
        tokenizer: PyRef<'_, Tokenizer>,
        streams: &Bound<'_, PyAny>,
        ids: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<Option<String>>> {
        let mut held: Vec<PyRefMut<'_, DecodeStream>> = Vec::new();
        for (i, s) in streams.try_iter()?.enumerate() {
            let s = s?;
            let s = s.cast::<DecodeStream>().map_err(|_| {
                pyo3::exceptions::PyTypeError::new_err(format!("streams[{i}] is not a yieldtok.DecodeStream"))
            })?;
            held.push(
                s.try_borrow_mut().map_err(|_| {
                    PyValueError::new_err(format!("streams[{i}] appears twice in streams (or is in use)"))
                })?,
            );
        }
        // All new ids in one buffer (most steps bring one plain int per stream), then a slice each.
        let mut flat: Vec<u32> = Vec::with_capacity(held.len());
        let mut ends: Vec<usize> = Vec::with_capacity(held.len());
        for x in ids.try_iter()? {
            let x = x?;
            match x.cast::<PyInt>() {
                Ok(i) => flat.push(i.extract::<u32>().or_else(|_| ids_arg(&x).map(|v| v[0]))?),
                Err(_) => flat.extend(ids_arg(&x)?),
            }
            ends.push(flat.len());
        }
        if ends.len() != held.len() {
            return Err(PyValueError::new_err(format!("{} streams but {} ids", held.len(), ends.len())));
        }
        let ids: Vec<&[u32]> =
            ends.iter().scan(0, |start, &end| Some(&flat[std::mem::replace(start, end)..end])).collect();
        let tok = &tokenizer.tok();
        let mut states: Vec<&mut yieldtok::DecodeStream> = held.iter_mut().map(|s| &mut s.inner).collect();
        let results = if states.len() >= DETACH_STREAMS {
            py.detach(|| tok.step_decode_streams(&mut states, &ids))
        } else {
            tok.step_decode_streams(&mut states, &ids)
        };
        results.into_iter().collect::<yieldtok::Result<Vec<_>>>().map_err(to_pyerr)
    }

    fn __copy__(&self) -> Self {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "DecodeStream(skip_special_tokens={}, ids={})",
            if self.inner.skip_special_tokens() { "True" } else { "False" },
            self.inner.ids().len()
        )
    }
}
