//! Results: `Encoding` (one text) and `BatchEncoding` (many), plus the zero-copy numpy views.
//!
//! An `Encoding` owns the core result (ids, byte offsets, masks) and the text it came from.
//! Nothing is turned into per-token Python objects until asked for: `ids` builds a list on
//! access, `ids_array` is a numpy view of the Rust-owned ids, char offsets (what Hugging Face's
//! Python `tokenizers` reports) are computed once on first access, with the GIL released.
//!
//! Zero-copy views use numpy's `__array_interface__` protocol (the buffer protocol is not in
//! the limited API before Python 3.11, and this is an abi3-py39 module): a small `_ArrayView`
//! object owns an `Arc` of the data and describes it; `numpy.asarray(view)` wraps the memory
//! without copying and keeps the view (and so the data) alive as the array's `base`.

use std::any::Any;
use std::sync::{Arc, OnceLock};

use pyo3::exceptions::{PyImportError, PyIndexError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PySlice, PyTuple};

/// GIL is released for conversions touching at least this many tokens.
const DETACH_TOKENS: usize = 4096;

pub struct EncData {
    pub enc: yieldtok::Encoding,
    pub text: Arc<str>,
    /// A pair's second text (offsets of sequence 1 point into it).
    pub pair: Option<Arc<str>>,
    /// Whether `enc.offsets` are char offsets already (pairs: converted per sequence by the
    /// core before post-processing, see `EncodeOptions::char_offsets`).
    pub chars: bool,
    pub tok: yieldtok::Tokenizer,
    char_offsets: OnceLock<Arc<Vec<[i64; 2]>>>,
    /// `Some(add_special_tokens)` when `enc` came from an encode that stopped early (right
    /// truncation, see the core's `Tokenizer::with_overflowing`): its overflowing parts are
    /// computed on first access to `overflowing`, by `tok` (which keeps them) encoding `text`
    /// whole, and kept in `later`.
    deferred: Option<bool>,
    later: OnceLock<Vec<yieldtok::Encoding>>,
}

impl EncData {
    pub fn new(enc: yieldtok::Encoding, text: Arc<str>, tok: yieldtok::Tokenizer) -> Arc<Self> {
        Self::with_pair(enc, text, None, tok)
    }

    pub fn with_pair(
        enc: yieldtok::Encoding,
        text: Arc<str>,
        pair: Option<Arc<str>>,
        tok: yieldtok::Tokenizer,
    ) -> Arc<Self> {
        let chars = pair.is_some();
        Self::with_chars(enc, text, pair, chars, tok)
    }

    /// The encoding of one batch input (a text, a pair, or pre-tokenized words): pairs and
    /// pre-tokenized input have char offsets from the core already (per sequence, per word).
    pub fn of_input(enc: yieldtok::Encoding, input: &yieldtok::Input, tok: yieldtok::Tokenizer) -> Arc<Self> {
        use yieldtok::Input;
        let joined = |w: &[Arc<str>]| -> Arc<str> { Arc::from(w.iter().map(|w| &**w).collect::<Vec<_>>().join(" ")) };
        match input {
            Input::Single(t) => Self::with_chars(enc, t.clone(), None, false, tok),
            Input::Pair(a, b) => Self::with_chars(enc, a.clone(), Some(b.clone()), true, tok),
            Input::Words(w) => Self::with_chars(enc, joined(w), None, true, tok),
            Input::WordsPair(a, b) => Self::with_chars(enc, joined(a), Some(joined(b)), true, tok),
        }
    }

    fn with_chars(
        enc: yieldtok::Encoding,
        text: Arc<str>,
        pair: Option<Arc<str>>,
        chars: bool,
        tok: yieldtok::Tokenizer,
    ) -> Arc<Self> {
        Arc::new(EncData {
            enc,
            text,
            pair,
            chars,
            tok,
            char_offsets: OnceLock::new(),
            deferred: None,
            later: OnceLock::new(),
        })
    }

    /// A single text's encoding from an encode that stopped early; `tok` keeps overflowing
    /// parts and computes them when they are asked for.
    pub fn deferred(
        enc: yieldtok::Encoding,
        text: Arc<str>,
        tok: yieldtok::Tokenizer,
        add_special_tokens: bool,
    ) -> Arc<Self> {
        Arc::new(EncData {
            enc,
            text,
            pair: None,
            chars: false,
            tok,
            char_offsets: OnceLock::new(),
            deferred: Some(add_special_tokens),
            later: OnceLock::new(),
        })
    }

    /// The overflowing parts: `enc`'s, or (deferred) the whole text's encode's, once.
    fn overflowing(&self, py: Python<'_>) -> PyResult<&[yieldtok::Encoding]> {
        let Some(add) = self.deferred else { return Ok(&self.enc.overflowing) };
        if let Some(v) = self.later.get() {
            return Ok(v);
        }
        let parts = py.detach(|| crate::errors::guard(|| self.tok.encode(&self.text, add)))?.overflowing;
        Ok(self.later.get_or_init(|| parts))
    }

    fn char_offsets(&self, py: Python<'_>) -> Arc<Vec<[i64; 2]>> {
        if let Some(v) = self.char_offsets.get() {
            return v.clone();
        }
        let compute = || {
            let converted;
            let offsets = if self.chars {
                &self.enc.offsets
            } else {
                converted = self.enc.char_offsets(&self.text);
                &converted
            };
            let v: Vec<[i64; 2]> = offsets.iter().map(|&(s, e)| [s as i64, e as i64]).collect();
            Arc::new(v)
        };
        let v = if self.enc.len() >= DETACH_TOKENS { py.detach(compute) } else { compute() };
        self.char_offsets.get_or_init(|| v).clone()
    }
}

// ---- numpy views ------------------------------------------------------------------------

/// A read-only description of Rust-owned memory for `numpy.asarray` (`__array_interface__`).
#[pyclass(frozen, module = "yieldtok", name = "_ArrayView")]
pub struct ArrayView {
    _owner: Arc<dyn Any + Send + Sync>,
    ptr: usize,
    shape: Vec<usize>,
    typestr: &'static str,
}

#[pymethods]
impl ArrayView {
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("version", 3)?;
        d.set_item("shape", PyTuple::new(py, &self.shape)?)?;
        d.set_item("typestr", self.typestr)?;
        d.set_item("data", (self.ptr, true))?;
        Ok(d)
    }
}

/// numpy `typestr`s of the element types the views use (native byte order).
#[cfg(target_endian = "little")]
mod typestr {
    pub const U32: &str = "<u4";
    pub const I64: &str = "<i8";
    pub const F64: &str = "<f8";
    pub const F32: &str = "<f4";
    #[cfg(target_pointer_width = "64")]
    pub const USIZE: &str = "<u8";
    #[cfg(target_pointer_width = "32")]
    pub const USIZE: &str = "<u4";
}
#[cfg(target_endian = "big")]
mod typestr {
    pub const U32: &str = ">u4";
    pub const I64: &str = ">i8";
    pub const F64: &str = ">f8";
    pub const F32: &str = ">f4";
    #[cfg(target_pointer_width = "64")]
    pub const USIZE: &str = ">u8";
    #[cfg(target_pointer_width = "32")]
    pub const USIZE: &str = ">u4";
}
pub(crate) use typestr::{F32, F64, I64, U32, USIZE};
/// One-byte types (`u8`, `bool`) have no byte order.
pub(crate) const U8: &str = "|u1";
pub(crate) const BOOL: &str = "|b1";

/// Whether numpy can be imported (views need it; without it, results fall back to lists).
pub(crate) fn numpy_available(py: Python<'_>) -> bool {
    numpy_asarray(py).is_ok()
}

fn numpy_asarray(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    static ASARRAY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    ASARRAY
        .get_or_try_init(py, || -> PyResult<Py<PyAny>> {
            let np = py
                .import("numpy")
                .map_err(|e| PyImportError::new_err(format!("numpy views need numpy (pip install numpy): {e}")))?;
            Ok(np.getattr("asarray")?.unbind())
        })
        .map(|f| f.bind(py))
}

/// A numpy array viewing `shape` items of type `typestr` at `ptr`, owned by `owner`.
pub(crate) fn view<'py>(
    py: Python<'py>,
    owner: Arc<dyn Any + Send + Sync>,
    ptr: *const u8,
    shape: Vec<usize>,
    typestr: &'static str,
) -> PyResult<Bound<'py, PyAny>> {
    let asarray = numpy_asarray(py)?;
    let v = Bound::new(py, ArrayView { _owner: owner, ptr: ptr as usize, shape, typestr })?;
    asarray.call1((v,))
}

// ---- Encoding ---------------------------------------------------------------------------

/// The result of encoding one text.
#[pyclass(frozen, module = "yieldtok")]
pub struct Encoding {
    pub d: Arc<EncData>,
}

fn u32_list<'py>(py: Python<'py>, v: &[u32]) -> PyResult<Bound<'py, PyList>> {
    PyList::new(py, v.iter().copied())
}

#[pymethods]
impl Encoding {
    /// Token ids (a new list on each access; prefer `ids_array` for long texts).
    #[getter]
    fn ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        u32_list(py, &self.d.enc.ids)
    }

    #[getter]
    fn type_ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        u32_list(py, &self.d.enc.type_ids)
    }

    #[getter]
    fn attention_mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        u32_list(py, &self.d.enc.attention_mask)
    }

    #[getter]
    fn special_tokens_mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        u32_list(py, &self.d.enc.special_tokens_mask)
    }

    /// `(start, end)` character offsets into the encoded text, like Hugging Face's Python
    /// `tokenizers`; `(0, 0)` for special tokens added by the post-processor.
    #[getter]
    fn offsets<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let co = self.d.char_offsets(py);
        PyList::new(py, co.iter().map(|[s, e]| (*s, *e)))
    }

    /// The same offsets in UTF-8 bytes (for a pair's encoding: the char offsets, which the
    /// core computes per text before post-processing).
    #[getter]
    fn byte_offsets<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.d.enc.offsets.iter().copied())
    }

    /// The string of each token, as ``tokenizers``: the vocabulary's, the padding's
    /// ``pad_token`` for padding (whatever ``pad_id`` names), and the text a Unigram unknown
    /// piece or a stripping/normalized added token covers.
    #[getter]
    fn tokens<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let d = &self.d;
        let work = || d.tok.tokens(&d.enc);
        let toks = if d.enc.len() >= DETACH_TOKENS { py.detach(work) } else { work() };
        PyList::new(py, toks)
    }

    /// Zero-copy read-only numpy view of the ids (`uint32`, shape `(n,)`).
    #[getter]
    fn ids_array<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let d = self.d.clone();
        let ptr = d.enc.ids.as_ptr().cast();
        let n = d.enc.ids.len();
        view(py, d, ptr, vec![n], U32)
    }

    /// Read-only numpy view of the attention mask (`uint32`, shape `(n,)`).
    #[getter]
    fn attention_mask_array<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let d = self.d.clone();
        let ptr = d.enc.attention_mask.as_ptr().cast();
        let n = d.enc.attention_mask.len();
        view(py, d, ptr, vec![n], U32)
    }

    /// Read-only numpy view of the character offsets (`int64`, shape `(n, 2)`).
    #[getter]
    fn offsets_array<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let co = self.d.char_offsets(py);
        let ptr = co.as_ptr().cast();
        let n = co.len();
        view(py, co, ptr, vec![n, 2], I64)
    }

    /// The text that was encoded (a pair's first text; for pre-tokenized input its words
    /// joined by single spaces, while offsets are into each word, as ``tokenizers``').
    #[getter]
    fn text(&self) -> &str {
        &self.d.text
    }

    /// What truncation cut off, as ``tokenizers``: each part an ``Encoding`` (post-processed
    /// and padded like this one; with a stride, each repeats the previous part's last
    /// ``stride`` tokens).
    ///
    /// After an encode that stopped early (right truncation of one text: only the text the kept
    /// tokens come from was encoded), the first access encodes the whole text for them.
    #[getter]
    fn overflowing(&self, py: Python<'_>) -> PyResult<Vec<Encoding>> {
        let d = &self.d;
        Ok(d.overflowing(py)?
            .iter()
            .map(|o| Encoding {
                d: EncData::with_chars(o.clone(), d.text.clone(), d.pair.clone(), d.chars, d.tok.clone()),
            })
            .collect())
    }

    /// The sequence of each token: 0 (the text, or a pair's first text), 1 (a pair's second
    /// text) or ``None`` (special tokens added by the post-processor, padding), as ``tokenizers``.
    #[getter]
    fn sequence_ids(&self) -> Vec<Option<usize>> {
        self.d.enc.sequence_ids()
    }

    /// Number of sequences: 1 for a text, 2 for a pair.
    #[getter]
    fn n_sequences(&self) -> usize {
        self.d.enc.n_sequences()
    }

    /// The sequence that token ``token_index`` belongs to, as ``tokenizers``.
    fn token_to_sequence(&self, token_index: usize) -> Option<usize> {
        self.d.enc.token_to_sequence(token_index)
    }

    /// The word of each token (pre-tokenizer split, counted over the whole text), ``None``
    /// for special tokens added by the post-processor and for padding, as ``tokenizers``.
    #[getter]
    fn word_ids(&self) -> Vec<Option<u32>> {
        self.d.enc.word_ids.clone()
    }

    /// ``word_ids`` (deprecated there, as in ``tokenizers``: a ``DeprecationWarning``).
    #[getter]
    fn words(&self, py: Python<'_>) -> PyResult<Vec<Option<u32>>> {
        let warning = py.get_type::<pyo3::exceptions::PyDeprecationWarning>();
        PyErr::warn(
            py,
            &warning,
            c"Deprecated in 0.9.4: Encoding.words is deprecated, please use Encoding.word_ids instead.",
            1,
        )?;
        Ok(self.word_ids())
    }

    /// The token range ``(start, end)`` of word ``word_index`` of sequence ``sequence_index``.
    #[pyo3(signature = (word_index, sequence_index = 0))]
    fn word_to_tokens(&self, word_index: u32, sequence_index: usize) -> Option<(usize, usize)> {
        self.d.enc.word_to_tokens(word_index, sequence_index)
    }

    /// The character span ``(start, end)`` of word ``word_index`` of sequence ``sequence_index``.
    #[pyo3(signature = (word_index, sequence_index = 0))]
    fn word_to_chars(&self, py: Python<'_>, word_index: u32, sequence_index: usize) -> Option<(usize, usize)> {
        self.d.enc.word_to_offsets(word_index, sequence_index, &self.d.char_offsets(py))
    }

    /// The character span of token ``token_index``.
    fn token_to_chars(&self, py: Python<'_>, token_index: usize) -> Option<(usize, usize)> {
        Some(self.d.enc.token_to_offsets(token_index, &self.d.char_offsets(py))?.1)
    }

    /// The word of token ``token_index`` within its sequence.
    fn token_to_word(&self, token_index: usize) -> Option<u32> {
        Some(self.d.enc.token_to_word(token_index)?.1)
    }

    /// The first token of sequence ``sequence_index`` whose character span holds ``char_pos``.
    #[pyo3(signature = (char_pos, sequence_index = 0))]
    fn char_to_token(&self, py: Python<'_>, char_pos: usize, sequence_index: usize) -> Option<usize> {
        self.d.enc.offset_to_token(char_pos, sequence_index, &self.d.char_offsets(py))
    }

    /// The word of the token that holds ``char_pos`` in sequence ``sequence_index``.
    #[pyo3(signature = (char_pos, sequence_index = 0))]
    fn char_to_word(&self, py: Python<'_>, char_pos: usize, sequence_index: usize) -> Option<u32> {
        self.d.enc.offset_to_word(char_pos, sequence_index, &self.d.char_offsets(py))
    }

    fn __len__(&self) -> usize {
        self.d.enc.len()
    }

    fn __repr__(&self) -> String {
        format!("Encoding(num_tokens={}, attributes=[ids, type_ids, tokens, offsets, attention_mask, special_tokens_mask, overflowing])", self.d.enc.len())
    }
}

// ---- BatchEncoding ----------------------------------------------------------------------

struct Padded {
    ids: Vec<u32>,
    mask: Vec<u32>,
    rows: usize,
    cols: usize,
}

/// The results of a batch: a read-only sequence of `Encoding`s plus padded 2-D numpy views.
#[pyclass(frozen, sequence, module = "yieldtok")]
pub struct BatchEncoding {
    pub items: Vec<Arc<EncData>>,
    pub pad_id: u32,
    padded: OnceLock<Arc<Padded>>,
}

impl BatchEncoding {
    pub fn new(items: Vec<Arc<EncData>>, pad_id: u32) -> Self {
        BatchEncoding { items, pad_id, padded: OnceLock::new() }
    }

    fn padded(&self, py: Python<'_>) -> Arc<Padded> {
        if let Some(p) = self.padded.get() {
            return p.clone();
        }
        let build = || {
            let rows = self.items.len();
            let cols = self.items.iter().map(|e| e.enc.len()).max().unwrap_or(0);
            let mut ids = vec![self.pad_id; rows * cols];
            let mut mask = vec![0u32; rows * cols];
            for (r, e) in self.items.iter().enumerate() {
                let n = e.enc.len();
                ids[r * cols..r * cols + n].copy_from_slice(&e.enc.ids);
                mask[r * cols..r * cols + n].copy_from_slice(&e.enc.attention_mask);
            }
            Arc::new(Padded { ids, mask, rows, cols })
        };
        let total: usize = self.items.iter().map(|e| e.enc.len()).sum();
        let p = if total >= DETACH_TOKENS { py.detach(build) } else { build() };
        self.padded.get_or_init(|| p).clone()
    }
}

#[pymethods]
impl BatchEncoding {
    fn __len__(&self) -> usize {
        self.items.len()
    }

    fn __getitem__<'py>(&self, py: Python<'py>, index: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        if let Ok(slice) = index.cast::<PySlice>() {
            let ind = slice.indices(self.items.len() as isize)?;
            let mut out = Vec::with_capacity(ind.slicelength);
            let mut i = ind.start;
            for _ in 0..ind.slicelength {
                out.push(Encoding { d: self.items[i as usize].clone() });
                i += ind.step;
            }
            return Ok(PyList::new(py, out)?.into_any());
        }
        let i: isize =
            index.extract().map_err(|_| PyTypeError::new_err("BatchEncoding indices must be integers or slices"))?;
        let n = self.items.len() as isize;
        let j = if i < 0 { i + n } else { i };
        if j < 0 || j >= n {
            return Err(PyIndexError::new_err("BatchEncoding index out of range"));
        }
        Ok(Bound::new(py, Encoding { d: self.items[j as usize].clone() })?.into_any())
    }

    fn __iter__<'py>(slf: PyRef<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let list = PyList::new(py, slf.items.iter().map(|d| Encoding { d: d.clone() }))?;
        list.try_iter().map(|it| it.into_any())
    }

    /// Number of tokens of each encoding.
    #[getter]
    fn lengths(&self) -> Vec<usize> {
        self.items.iter().map(|e| e.enc.len()).collect()
    }

    /// The ids of each encoding, as lists.
    #[getter]
    fn ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let rows = self.items.iter().map(|e| u32_list(py, &e.enc.ids)).collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, rows)
    }

    /// The padding id used by `ids_array` (the tokenizer's padding id, else 0).
    #[getter]
    fn pad_id(&self) -> u32 {
        self.pad_id
    }

    /// Ids padded on the right with `pad_id` to the longest encoding: read-only numpy array
    /// (`uint32`, shape `(len(batch), max_len)`), built once and then shared.
    #[getter]
    fn ids_array<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let p = self.padded(py);
        let (ptr, shape) = (p.ids.as_ptr().cast(), vec![p.rows, p.cols]);
        view(py, p, ptr, shape, U32)
    }

    /// Attention mask matching `ids_array` (1 for tokens, 0 for padding).
    #[getter]
    fn attention_mask_array<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let p = self.padded(py);
        let (ptr, shape) = (p.mask.as_ptr().cast(), vec![p.rows, p.cols]);
        view(py, p, ptr, shape, U32)
    }

    fn __repr__(&self) -> String {
        format!(
            "BatchEncoding(len={}, max_tokens={})",
            self.items.len(),
            self.items.iter().map(|e| e.enc.len()).max().unwrap_or(0)
        )
    }
}
