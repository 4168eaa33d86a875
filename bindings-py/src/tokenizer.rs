//! `yieldtok.Tokenizer`: loading, the sync API (GIL released for real work), the Hugging
//! Face-named awaitables (`async_encode`, …) that run on the core scheduler and are bridged to
//! asyncio by the bridge (`bridge.rs`), and the trajectory methods (ART's names; implemented in
//! `trajectory.rs`).

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::exceptions::{PyOverflowError, PyTypeError, PyUnicodeEncodeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyInt, PyList, PyString, PyTuple};

use crate::blocking::{interruptible, interruptible_core};
use crate::encoding::{BatchEncoding, EncData, Encoding};
use crate::errors::{guard, to_pyerr, TokenizerValueError};
use crate::longtext::LongText;
use crate::trajectory::{options, run_async, GroupsCall, HistoryCall, JsonInput, Prepared};
use yieldtok::{EncodeOptions, Output};

/// Work on at least this many bytes (or ids) releases the GIL; below it the GIL hand-off would
/// cost more than the work (well under a millisecond).
const DETACH_BYTES: usize = 1024;

/// A `str` argument as shared UTF-8. Non-`str` → `TypeError`; a lone surrogate →
/// `TokenizerValueError` naming its position.
pub fn text_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Arc<str>> {
    let s = obj.cast::<PyString>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{what} must be str, not {}",
            obj.get_type().name().map(|n| n.to_string()).unwrap_or_default()
        ))
    })?;
    match s.to_cow() {
        Ok(c) => Ok(Arc::from(c.as_ref())),
        Err(e) => Err(surrogate_error(s, e, what, 0)),
    }
}

/// The error for a `str` that could not be read as UTF-8: a lone surrogate becomes a
/// `TokenizerValueError` naming it and its index in `what` (`s` starts at index `offset` of
/// `what`); other errors are kept.
pub fn surrogate_error(s: &Bound<'_, PyString>, e: PyErr, what: &str, offset: usize) -> PyErr {
    let py = s.py();
    if !e.is_instance_of::<PyUnicodeEncodeError>(py) {
        return e;
    }
    let v = e.value(py);
    let start: usize = v.getattr("start").and_then(|x| x.extract()).unwrap_or(0);
    let ch: u32 = s
        .get_item(start)
        .ok()
        .and_then(|c| c.cast_into::<PyString>().ok())
        .and_then(|c| py.import("builtins").ok()?.getattr("ord").ok()?.call1((c,)).ok()?.extract().ok())
        .unwrap_or(0);
    TokenizerValueError::new_err(format!(
        "{what} contains a lone surrogate U+{ch:04X} at index {}; it is not valid Unicode and cannot be encoded as UTF-8 (decode bytes with errors='replace' or fix the input)",
        start + offset
    ))
}

/// Ids to decode: a sequence of ints (list, tuple, numpy array of any integer dtype) or one
/// plain int or numpy integer scalar (`decode(token_id)`, as vLLM and ART call it).
pub(crate) fn ids_arg(obj: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
    if obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>() {
        return Err(PyTypeError::new_err("ids must be a sequence of int"));
    }
    let overflow = |e: PyErr| {
        if e.is_instance_of::<PyOverflowError>(obj.py()) {
            TokenizerValueError::new_err("token ids must be integers in 0..2**32 (got a negative or too large id)")
        } else {
            e
        }
    };
    if obj.is_instance_of::<PyInt>() {
        return obj.extract::<u32>().map(|id| vec![id]).map_err(overflow);
    }
    // A numpy integer scalar (`arr[i]`): an int-like that is not a sequence.
    if !obj.hasattr("__len__")? && obj.hasattr("__index__")? {
        return obj.call_method0("__index__")?.extract::<u32>().map(|id| vec![id]).map_err(overflow);
    }
    obj.extract::<Vec<u32>>().map_err(overflow)
}

fn ids_batch_arg(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<u32>>> {
    if obj.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err("sequences must be a list of lists of int"));
    }
    obj.try_iter()?.map(|item| ids_arg(&item?)).collect()
}

const PRETOKENIZED_SEQUENCE: &str = "PreTokenizedInputSequence must be Union[List[str], Tuple[str]]";

/// A pre-tokenized sequence (`tokenizers`' `PreTokenizedInputSequence`): a `list` or `tuple`
/// of `str`, or a 1-D numpy array of them; `None` when `obj` is none of these (the caller
/// raises `tokenizers`' `TypeError`). A lone surrogate in a word is a `TokenizerValueError`.
fn words_of(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Option<Arc<[Arc<str>]>>> {
    let items = if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        obj.clone()
    } else if obj.hasattr("dtype")? && obj.hasattr("tolist")? && obj.getattr("ndim")?.extract::<usize>().ok() == Some(1)
    {
        obj.call_method0("tolist")?
    } else {
        return Ok(None);
    };
    let mut words = Vec::with_capacity(items.len()?);
    for (i, w) in items.try_iter()?.enumerate() {
        let w = w?;
        if !w.is_instance_of::<PyString>() {
            return Ok(None);
        }
        words.push(text_arg(&w, &format!("{what}[{i}]"))?);
    }
    Ok(Some(words.into()))
}

fn words_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Arc<[Arc<str>]>> {
    words_of(obj, what)?.ok_or_else(|| PyTypeError::new_err(PRETOKENIZED_SEQUENCE))
}

/// `encode`'s sequence and pair as one batch input: texts, or with `is_pretokenized` words
/// (`None` for a plain text without a pair, which the caller encodes itself).
fn encode_input(
    sequence: &Bound<'_, PyAny>,
    pair: Option<&Bound<'_, PyAny>>,
    is_pretokenized: bool,
) -> PyResult<Option<yieldtok::Input>> {
    let pair = pair.filter(|p| !p.is_none());
    if is_pretokenized {
        let first = words_arg(sequence, "sequence")?;
        return Ok(Some(match pair {
            None => yieldtok::Input::Words(first),
            Some(p) => yieldtok::Input::WordsPair(first, words_arg(p, "pair")?),
        }));
    }
    if pair.is_none() {
        // A plain text: the caller converts it (off the loop when it is large).
        return Ok(None);
    }
    let text = text_arg(sequence, "sequence")?;
    Ok(pair_arg(pair)?.map(|second| yieldtok::Input::Pair(text, second)))
}

/// Bytes of text an input holds.
fn input_bytes(input: &yieldtok::Input) -> usize {
    let words = |w: &[Arc<str>]| w.iter().map(|w| w.len()).sum::<usize>();
    match input {
        yieldtok::Input::Single(t) => t.len(),
        yieldtok::Input::Pair(a, b) => a.len() + b.len(),
        yieldtok::Input::Words(w) => words(w),
        yieldtok::Input::WordsPair(a, b) => words(a) + words(b),
    }
}

/// `encode`'s `pair` argument: `None` or a `str` (a bool is refused like `tokenizers` does:
/// `add_special_tokens` is the fourth parameter, pass it by keyword).
fn pair_arg(pair: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Arc<str>>> {
    match pair {
        None => Ok(None),
        Some(p) if p.is_none() => Ok(None),
        Some(p) if p.is_instance_of::<PyString>() => text_arg(p, "pair").map(Some),
        Some(_) => Err(PyTypeError::new_err(
            "pair must be str or None (TextInputSequence must be str); add_special_tokens is the fourth parameter: pass it by keyword",
        )),
    }
}

/// `encode_batch`'s input: each item a `str` or a pair of `str` (tuple or list of two), as
/// `tokenizers`' `TextEncodeInput`; with `is_pretokenized`, a pre-tokenized sequence or a pair
/// of them, as its `PreTokenizedEncodeInput` (a sequence is tried first, so `["a", "b"]` is
/// two words and `[["a"], ["b"]]` a pair). Also says whether any item is more than a text.
fn inputs_arg(obj: &Bound<'_, PyAny>, is_pretokenized: bool) -> PyResult<(Vec<yieldtok::Input>, bool)> {
    if obj.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err("input must be a list of str or (str, str) pairs, not a str"));
    }
    let mut out = Vec::with_capacity(obj.len().unwrap_or(0));
    let mut pairs = false;
    for (i, item) in obj.try_iter()?.enumerate() {
        let item = item?;
        if is_pretokenized {
            if let Some(words) = words_of(&item, &format!("input[{i}]"))? {
                out.push(yieldtok::Input::Words(words));
            } else if (item.is_instance_of::<PyTuple>() || item.is_instance_of::<PyList>()) && item.len()? == 2 {
                let a = words_arg(&item.get_item(0)?, &format!("input[{i}][0]"))?;
                let b = words_arg(&item.get_item(1)?, &format!("input[{i}][1]"))?;
                out.push(yieldtok::Input::WordsPair(a, b));
            } else {
                return Err(PyTypeError::new_err(format!(
                    "input[{i}]: PreTokenizedEncodeInput must be Union[PreTokenizedInputSequence, Tuple[PreTokenizedInputSequence, PreTokenizedInputSequence]]"
                )));
            }
            pairs = true;
        } else if item.is_instance_of::<PyString>() {
            out.push(yieldtok::Input::Single(text_arg(&item, &format!("texts[{i}]"))?));
        } else if (item.is_instance_of::<PyTuple>() || item.is_instance_of::<PyList>()) && item.len()? == 2 {
            let a = text_arg(&item.get_item(0)?, &format!("texts[{i}][0]"))?;
            let b = text_arg(&item.get_item(1)?, &format!("texts[{i}][1]"))?;
            out.push(yieldtok::Input::Pair(a, b));
            pairs = true;
        } else {
            return Err(PyTypeError::new_err(format!(
                "input[{i}]: TextEncodeInput must be Union[TextInputSequence, Tuple[InputSequence, InputSequence]]"
            )));
        }
    }
    Ok((out, pairs))
}

fn single_text(input: &yieldtok::Input) -> Arc<str> {
    match input {
        yieldtok::Input::Single(t) => t.clone(),
        _ => unreachable!("only called on batches of plain texts"),
    }
}

fn truncation_params(
    max_length: usize,
    stride: usize,
    strategy: &str,
    direction: &str,
) -> PyResult<yieldtok::TruncationParams> {
    let Some(strategy) = yieldtok::post::truncation_strategy(strategy) else {
        return Err(PyValueError::new_err(format!(
            "Unknown `strategy`: `{strategy}`. Use one of `longest_first`, `only_first`, or `only_second`"
        )));
    };
    let Some(direction) = yieldtok::post::truncation_direction(direction) else {
        return Err(PyValueError::new_err(format!(
            "Unknown `direction`: `{direction}`. Use one of `left` or `right`."
        )));
    };
    Ok(yieldtok::TruncationParams { max_length, stride, strategy, direction })
}

fn padding_params(
    direction: &str,
    pad_id: u32,
    pad_type_id: u32,
    pad_token: &str,
    length: Option<usize>,
    pad_to_multiple_of: Option<usize>,
) -> PyResult<yieldtok::PaddingParams> {
    let Some(direction) = yieldtok::post::padding_direction(direction) else {
        return Err(PyValueError::new_err(format!("Unknown `direction`: `{direction}`. Use one of `left` or `right`")));
    };
    Ok(yieldtok::post::padding_params(direction, pad_id, pad_type_id, pad_token, length, pad_to_multiple_of))
}

pub(crate) use crate::bridge::bridge;

/// A tokenizer (thread-safe; share one across threads and tasks).
#[pyclass(frozen, module = "yieldtok")]
#[derive(Clone)]
pub struct Tokenizer {
    /// The core tokenizer and its trajectory cache; `enable_truncation`/`enable_padding`,
    /// `add_tokens`/`add_special_tokens` and `encode_special_tokens = ...` swap in a new core
    /// handle (the core's handles are immutable: a call in flight, sync or async, keeps the
    /// handle it started with and finishes with the vocabulary it started with).
    core: Arc<std::sync::RwLock<Core>>,
    /// Held while a change is computed and swapped in, so that concurrent changes from several
    /// threads apply one after the other and none is lost (readers never wait on it).
    edit: Arc<std::sync::Mutex<()>>,
}

/// What [`Tokenizer`] swaps as one.
struct Core {
    tok: yieldtok::Tokenizer,
    /// The tokenizer prepared for trajectories (chat template compiled), built on first use;
    /// a new one with each change of the vocabulary.
    trajectories: Prepared,
}

impl Tokenizer {
    pub fn new(tok: yieldtok::Tokenizer) -> Self {
        Tokenizer {
            core: Arc::new(std::sync::RwLock::new(Core { tok, trajectories: Prepared::default() })),
            edit: Default::default(),
        }
    }

    /// The core tokenizer as it is now (settings included).
    pub fn tok(&self) -> yieldtok::Tokenizer {
        self.core.read().unwrap_or_else(|e| e.into_inner()).tok.clone()
    }

    /// The core tokenizer and its trajectory cache, read together.
    fn tok_and_cache(&self) -> (yieldtok::Tokenizer, Prepared) {
        let core = self.core.read().unwrap_or_else(|e| e.into_inner());
        (core.tok.clone(), core.trajectories.clone())
    }

    /// Swap in `f(current)` (settings only: the trajectory cache is kept), under the edit lock.
    fn update<R>(&self, f: impl FnOnce(&yieldtok::Tokenizer) -> PyResult<(yieldtok::Tokenizer, R)>) -> PyResult<R> {
        let _edit = self.edit.lock().unwrap_or_else(|e| e.into_inner());
        let (tok, r) = f(&self.tok())?;
        self.core.write().unwrap_or_else(|e| e.into_inner()).tok = tok;
        Ok(r)
    }

    fn set_tok_with(&self, f: impl FnOnce(&yieldtok::Tokenizer) -> PyResult<yieldtok::Tokenizer>) -> PyResult<()> {
        self.update(|t| Ok((f(t)?, ())))
    }

    /// Swap in a tokenizer with a changed vocabulary (`f` runs with the GIL released: it
    /// rebuilds the tokenizer), with a fresh trajectory cache, under the edit lock (waited for
    /// with the GIL released).
    fn change_vocab<R: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&yieldtok::Tokenizer) -> yieldtok::Result<(yieldtok::Tokenizer, R)> + Send,
    ) -> PyResult<R> {
        py.detach(|| {
            let _edit = self.edit.lock().unwrap_or_else(|e| e.into_inner());
            let (tok, r) = guard(|| f(&self.tok()))?;
            *self.core.write().unwrap_or_else(|e| e.into_inner()) = Core { tok, trajectories: Prepared::default() };
            Ok(r)
        })
    }

    fn special(&self, key: &str) -> Option<String> {
        self.tok().config().and_then(|c| c.special_token(key)).map(str::to_string)
    }

    fn special_id(&self, key: &str) -> Option<u32> {
        self.special(key).and_then(|t| self.tok().token_to_id(&t))
    }

    fn side(&self, key: &str) -> &'static str {
        match self.tok().config().map(|c| c.side(key)) {
            Some("left") => "left",
            _ => "right",
        }
    }

    /// transformers' `_convert_token_to_id_with_added_voc`: the id, else `unk_token_id`.
    fn token_or_unk(&self, tok: &yieldtok::Tokenizer, token: &str) -> Option<u32> {
        tok.token_to_id(token).or_else(|| self.special_id("unk_token"))
    }

    fn pad_id(&self) -> u32 {
        self.tok().padding().map(|p| p.pad_id).unwrap_or(0)
    }

    fn wrap(&self, enc: yieldtok::Encoding, text: Arc<str>) -> Arc<EncData> {
        EncData::new(enc, text, self.tok().clone())
    }

    /// The tokenizer to encode single texts with and, when their overflowing parts are
    /// deferred, the one that computes them: under right truncation the core's
    /// `with_overflowing(false)` stops early (and skips building the parts), and
    /// `Encoding.overflowing` computes them from the whole text on first read with the same
    /// handle (`EncData::deferred`). In a batch only without padding to the batch's longest,
    /// which pads each item's overflowing parts to the batch's length too.
    fn single_text_tok(&self, batch: bool) -> (yieldtok::Tokenizer, Option<yieldtok::Tokenizer>) {
        let whole = self.tok();
        let defer = whole.keeps_overflowing()
            && whole.truncation().is_some_and(|t| t.direction == yieldtok::TruncationDirection::Right)
            && !(batch
                && whole.padding().is_some_and(|p| matches!(p.strategy, yieldtok::PaddingStrategy::BatchLongest)));
        if defer {
            (whole.with_overflowing(false), Some(whole))
        } else {
            (whole, None)
        }
    }

    fn load(py: Python<'_>, f: impl FnOnce() -> yieldtok::Result<yieldtok::Tokenizer> + Send) -> PyResult<Self> {
        py.detach(|| guard(f)).map(Tokenizer::new)
    }
}

#[pymethods]
impl Tokenizer {
    // ---- constructors -------------------------------------------------------------------

    /// Load a `tokenizer.json` file.
    #[staticmethod]
    fn from_file(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        Self::load(py, || yieldtok::Tokenizer::from_file(&path))
    }

    /// Load from the text of a `tokenizer.json`.
    #[staticmethod]
    fn from_str(py: Python<'_>, json: &Bound<'_, PyAny>) -> PyResult<Self> {
        let json = text_arg(json, "json")?;
        Self::load(py, || yieldtok::Tokenizer::from_str(&json))
    }

    /// Load from the bytes of a `tokenizer.json`.
    #[staticmethod]
    fn from_buffer(py: Python<'_>, buffer: Vec<u8>) -> PyResult<Self> {
        Self::load(py, || yieldtok::Tokenizer::from_bytes(&buffer))
    }

    /// Load a model folder (`tokenizer.json`, optional `tokenizer_config.json`).
    #[staticmethod]
    fn from_dir(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        Self::load(py, || yieldtok::Tokenizer::from_dir(&path))
    }

    /// Load `repo_id` from the local Hugging Face cache (never downloads).
    #[staticmethod]
    #[pyo3(signature = (repo_id, revision=None, cache_dir=None))]
    fn from_pretrained(
        py: Python<'_>,
        repo_id: String,
        revision: Option<String>,
        cache_dir: Option<PathBuf>,
    ) -> PyResult<Self> {
        Self::load(py, || yieldtok::Tokenizer::from_pretrained(&repo_id, revision.as_deref(), cache_dir.as_deref()))
    }

    /// The `tokenizer.json` text of this tokenizer.
    #[pyo3(signature = (pretty=false))]
    fn to_str(&self, py: Python<'_>, pretty: bool) -> PyResult<String> {
        py.detach(|| guard(|| self.tok().to_json_with(pretty)))
    }

    /// Pickles (and `copy`/`deepcopy`) everything it was loaded with: `tokenizer.json` with the
    /// truncation/padding in force and added tokens, `tokenizer_config.json` and the chat
    /// templates (core `to_bundle`), so `apply_chat_template` works in a spawned worker.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let bundle = py.detach(|| guard(|| self.tok().to_bundle()))?;
        let ctor = py.import("yieldtok._yieldtok")?.getattr("_tokenizer_from_bundle")?;
        PyTuple::new(py, [ctor, PyTuple::new(py, [bundle])?.into_any()])
    }

    fn __repr__(&self) -> String {
        format!(
            "Tokenizer(origin={:?}, vocab_size={}, chunking={:?})",
            self.tok().origin().unwrap_or("<str>"),
            self.tok().vocab_size(true),
            self.tok().cut_rules().describe()
        )
    }

    // ---- transformers-style attributes (from tokenizer_config.json, as PreTrainedTokenizerFast) --

    /// ``bos_token`` of ``tokenizer_config.json`` (``None`` when absent), as transformers.
    #[getter]
    fn bos_token(&self) -> Option<String> {
        self.special("bos_token")
    }

    /// ``eos_token`` of ``tokenizer_config.json`` (``None`` when absent), as transformers.
    #[getter]
    fn eos_token(&self) -> Option<String> {
        self.special("eos_token")
    }

    /// ``pad_token`` of ``tokenizer_config.json`` (``None`` when absent), as transformers.
    #[getter]
    fn pad_token(&self) -> Option<String> {
        self.special("pad_token")
    }

    /// ``unk_token`` of ``tokenizer_config.json`` (``None`` when absent), as transformers.
    #[getter]
    fn unk_token(&self) -> Option<String> {
        self.special("unk_token")
    }

    /// The id of :attr:`bos_token` (``None`` when there is none).
    #[getter]
    fn bos_token_id(&self) -> Option<u32> {
        self.special_id("bos_token")
    }

    /// The id of :attr:`eos_token` (``None`` when there is none).
    #[getter]
    fn eos_token_id(&self) -> Option<u32> {
        self.special_id("eos_token")
    }

    /// The id of :attr:`pad_token` (``None`` when there is none).
    #[getter]
    fn pad_token_id(&self) -> Option<u32> {
        self.special_id("pad_token")
    }

    /// The id of :attr:`unk_token` (``None`` when there is none).
    #[getter]
    fn unk_token_id(&self) -> Option<u32> {
        self.special_id("unk_token")
    }

    /// ``model_max_length`` of ``tokenizer_config.json``; transformers' ``int(1e30)`` when
    /// absent or not a finite integer.
    #[getter]
    fn model_max_length(&self) -> u128 {
        self.tok()
            .config()
            .and_then(|c| c.model_max_length)
            .map_or(1_000_000_000_000_000_019_884_624_838_656, u128::from)
    }

    /// ``padding_side`` of ``tokenizer_config.json`` (``"left"`` or ``"right"``, default ``"right"``).
    #[getter]
    fn padding_side(&self) -> &'static str {
        self.side("padding_side")
    }

    /// ``truncation_side`` of ``tokenizer_config.json`` (``"left"`` or ``"right"``, default ``"right"``).
    #[getter]
    fn truncation_side(&self) -> &'static str {
        self.side("truncation_side")
    }

    /// ``sep_token`` of ``tokenizer_config.json`` (``None`` when absent), as transformers.
    #[getter]
    fn sep_token(&self) -> Option<String> {
        self.special("sep_token")
    }

    /// ``cls_token`` of ``tokenizer_config.json`` (``None`` when absent), as transformers.
    #[getter]
    fn cls_token(&self) -> Option<String> {
        self.special("cls_token")
    }

    /// ``mask_token`` of ``tokenizer_config.json`` (``None`` when absent), as transformers.
    #[getter]
    fn mask_token(&self) -> Option<String> {
        self.special("mask_token")
    }

    /// The id of :attr:`sep_token` (``None`` when there is none).
    #[getter]
    fn sep_token_id(&self) -> Option<u32> {
        self.special_id("sep_token")
    }

    /// The id of :attr:`cls_token` (``None`` when there is none).
    #[getter]
    fn cls_token_id(&self) -> Option<u32> {
        self.special_id("cls_token")
    }

    /// The id of :attr:`mask_token` (``None`` when there is none).
    #[getter]
    fn mask_token_id(&self) -> Option<u32> {
        self.special_id("mask_token")
    }

    /// transformers 5's ``all_special_tokens``: the named special tokens (bos, eos, unk, sep,
    /// pad, cls, mask, then model-specific ones such as gemma3's ``boi_token``), then
    /// :attr:`extra_special_tokens`, each once.
    #[getter]
    fn all_special_tokens(&self) -> Vec<String> {
        self.tok().config().map(|c| c.all_special_tokens()).unwrap_or_default()
    }

    /// transformers' ``all_special_ids``: :meth:`convert_tokens_to_ids` of
    /// :attr:`all_special_tokens` (``None`` for a token the vocabulary lacks when there is no unk).
    #[getter]
    fn all_special_ids(&self) -> Vec<Option<u32>> {
        let tok = self.tok();
        self.all_special_tokens().iter().map(|t| self.token_or_unk(&tok, t)).collect()
    }

    /// transformers 5's ``extra_special_tokens``: the config's ``extra_special_tokens`` list
    /// (or, without it, ``additional_special_tokens``), as strings.
    #[getter]
    fn extra_special_tokens(&self) -> Vec<String> {
        self.tok().config().map(|c| c.extra_special_tokens()).unwrap_or_default()
    }

    /// The ids of :attr:`extra_special_tokens`, as transformers' ``extra_special_tokens_ids``.
    #[getter]
    fn extra_special_tokens_ids(&self) -> Vec<Option<u32>> {
        let tok = self.tok();
        self.extra_special_tokens().iter().map(|t| self.token_or_unk(&tok, t)).collect()
    }

    /// transformers 4's name for :attr:`extra_special_tokens` (transformers 5 renamed it and
    /// no longer has this attribute; kept for code written against 4).
    #[getter]
    fn additional_special_tokens(&self) -> Vec<String> {
        self.extra_special_tokens()
    }

    /// transformers' ``convert_ids_to_tokens``: an ``int`` gives its token (``None`` when the
    /// vocabulary lacks it), a sequence gives a list, without :attr:`all_special_ids` when
    /// ``skip_special_tokens``.
    #[pyo3(signature = (ids, skip_special_tokens=false))]
    fn convert_ids_to_tokens<'py>(
        &self,
        py: Python<'py>,
        ids: &Bound<'py, PyAny>,
        skip_special_tokens: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let tok = self.tok();
        if ids.is_instance_of::<PyInt>() {
            return Ok(match ids.extract::<u32>() {
                Ok(id) => tok.id_to_token(id).into_pyobject(py)?.into_any(),
                Err(_) => py.None().into_bound(py),
            });
        }
        let ids = ids_arg(ids)?;
        let skip: std::collections::HashSet<u32> = if skip_special_tokens {
            self.all_special_ids().into_iter().flatten().collect()
        } else {
            Default::default()
        };
        let tokens: Vec<Option<String>> =
            ids.into_iter().filter(|id| !skip.contains(id)).map(|id| tok.id_to_token(id)).collect();
        Ok(tokens.into_pyobject(py)?.into_any())
    }

    /// transformers' ``convert_tokens_to_ids``: a ``str`` gives its id, a list gives a list; a
    /// token the vocabulary lacks gives :attr:`unk_token_id` (``None`` without one).
    fn convert_tokens_to_ids<'py>(&self, py: Python<'py>, tokens: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let tok = self.tok();
        if let Ok(t) = tokens.cast::<PyString>() {
            return Ok(self.token_or_unk(&tok, t.to_str()?).into_pyobject(py)?.into_any());
        }
        let mut out = Vec::new();
        for t in tokens.try_iter()? {
            let t = t?;
            let t =
                t.cast::<PyString>().map_err(|_| PyTypeError::new_err("tokens must be str or a sequence of str"))?;
            out.push(self.token_or_unk(&tok, t.to_str()?));
        }
        Ok(out.into_pyobject(py)?.into_any())
    }

    /// transformers' ``convert_tokens_to_string``: the tokenizer's decoder over the tokens (a
    /// space-joined string without a decoder).
    fn convert_tokens_to_string(&self, tokens: Vec<String>) -> PyResult<String> {
        guard(|| self.tok().tokens_to_string(tokens))
    }

    /// transformers' ``get_added_vocab()``: added token -> id, in id order.
    fn get_added_vocab<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (id, t) in self.tok().added_tokens_decoder() {
            d.set_item(t.content, id)?;
        }
        Ok(d)
    }

    /// transformers' ``vocab_size``: the model vocabulary without added tokens.
    #[getter(vocab_size)]
    fn base_vocab_size(&self) -> usize {
        self.tok().vocab_size(false)
    }

    /// transformers' ``len(tokenizer)``: the vocabulary with added tokens.
    fn __len__(&self) -> usize {
        self.tok().vocab_size(true)
    }

    /// transformers' ``chat_template``: the template (``str``), or ``{name: template}`` when the
    /// folder has several, or ``None``.
    #[getter]
    fn chat_template<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let tok = self.tok();
        Ok(match tok.config().and_then(|c| c.chat_template.as_ref()) {
            None => py.None().into_bound(py),
            Some(yieldtok::TemplateSource::Single(s)) => s.into_pyobject(py)?.into_any(),
            Some(yieldtok::TemplateSource::Named(list)) => {
                let d = PyDict::new(py);
                for (name, template) in list {
                    d.set_item(name, template)?;
                }
                d.into_any()
            }
        })
    }

    /// Where the tokenizer was loaded from (path), if known.
    #[getter]
    fn origin(&self) -> Option<String> {
        self.tok().origin().map(str::to_string)
    }

    /// How long texts are cut into exact pieces for this tokenizer (or why they are not).
    #[getter]
    fn chunking(&self) -> String {
        self.tok().cut_rules().describe()
    }

    // ---- vocabulary ---------------------------------------------------------------------

    /// The engine serving ids-only work now: ``"fastokens"`` on byte-level BPE models once the
    /// fast engine has loaded and passed its check against the reference, else ``"yieldtok"`` (the own engine, when
    /// it serves this tokenizer), else ``"tokenizers"``.
    #[getter]
    fn engine(&self) -> &'static str {
        self.tok().engine()
    }

    /// The engine serving full encodings (ids, offsets, masks): ``"yieldtok"`` (the own
    /// engine, checked against ``tokenizers`` at load) or ``"tokenizers"`` (when the own engine
    /// refused this tokenizer; :attr:`encoding_engine_unavailable_reason` says why).
    #[getter]
    fn encoding_engine(&self) -> &'static str {
        self.tok().encoding_engine()
    }

    /// Why the own engine does not serve this tokenizer (``None`` when it does).
    #[getter]
    fn encoding_engine_unavailable_reason(&self) -> Option<String> {
        self.tok().encoding_engine_unavailable_reason().map(str::to_string)
    }

    /// Wait until the fast engine has loaded (or been ruled out) and return :attr:`engine`.
    /// The engine loads on a background thread after the tokenizer; ids are identical either way.
    fn wait_for_engine(&self, py: Python<'_>) -> &'static str {
        py.detach(|| self.tok().wait_for_engine())
    }

    #[pyo3(signature = (with_added_tokens=true))]
    fn get_vocab_size(&self, with_added_tokens: bool) -> usize {
        self.tok().vocab_size(with_added_tokens)
    }

    fn token_to_id(&self, token: &str) -> Option<u32> {
        self.tok().token_to_id(token)
    }

    /// The token of `id`; ``None`` for any id the vocabulary lacks, negative or huge ones included.
    fn id_to_token(&self, id: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
        match id.extract::<u32>() {
            Ok(v) => Ok(self.tok().id_to_token(v)),
            Err(e) if e.is_instance_of::<PyOverflowError>(id.py()) => Ok(None),
            Err(_) => Err(PyTypeError::new_err("id must be int")),
        }
    }

    /// `token -> id` (added tokens included unless `with_added_tokens=False`), as `tokenizers`.
    #[pyo3(signature = (with_added_tokens=true))]
    fn get_vocab(&self, py: Python<'_>, with_added_tokens: bool) -> std::collections::HashMap<String, u32> {
        py.detach(|| self.tok().vocab(with_added_tokens))
    }

    /// `id -> AddedToken` for every added token, as `tokenizers`' `get_added_tokens_decoder`.
    fn get_added_tokens_decoder(&self) -> std::collections::BTreeMap<u32, AddedToken> {
        self.tok()
            .added_tokens_decoder()
            .into_iter()
            .map(|(id, t)| {
                let (content, single_word, lstrip, rstrip, normalized, special) =
                    (t.content, t.single_word, t.lstrip, t.rstrip, t.normalized, t.special);
                (id, AddedToken { content, single_word, lstrip, rstrip, normalized: Some(normalized), special })
            })
            .collect()
    }

    /// Write the `tokenizer.json` text to `path` (indented when `pretty`), as `tokenizers`.
    #[pyo3(signature = (path, pretty=true))]
    fn save(&self, py: Python<'_>, path: PathBuf, pretty: bool) -> PyResult<()> {
        py.detach(|| guard(|| self.tok().save(&path, pretty)))
    }

    /// `tokenizers`' `add_tokens`: add `tokens` (a list of `str` or :class:`AddedToken`; a
    /// `str` is a non-special token) to the vocabulary and return how many were new. This
    /// tokenizer changes (every handle on it sees the new vocabulary); encodes already running
    /// finish with the vocabulary they started with. The addition is `tokenizers`' own; the
    /// tokenizer is then rebuilt from the result (the GIL released meanwhile).
    fn add_tokens(&self, py: Python<'_>, tokens: &Bound<'_, PyAny>) -> PyResult<usize> {
        let tokens = added_tokens_arg(tokens, false)?;
        self.change_vocab(py, |t| t.with_added_tokens(&tokens))
    }

    /// `tokenizers`' `add_special_tokens`: as :meth:`add_tokens`, as special tokens (an
    /// :class:`AddedToken` passed is marked ``special``, as `tokenizers` does).
    fn add_special_tokens(&self, py: Python<'_>, tokens: &Bound<'_, PyAny>) -> PyResult<usize> {
        let tokens = added_tokens_arg(tokens, true)?;
        self.change_vocab(py, |t| t.with_added_special_tokens(&tokens))
    }

    /// `tokenizers`' `encode_special_tokens`: when ``True``, special tokens in the input text
    /// are encoded as text (the post-processor's special tokens are still added).
    #[getter]
    fn get_encode_special_tokens(&self) -> bool {
        self.tok().encode_special_tokens()
    }

    #[setter]
    fn set_encode_special_tokens(&self, py: Python<'_>, value: bool) -> PyResult<()> {
        self.change_vocab(py, |t| Ok((t.with_encode_special_tokens(value)?, ())))
    }

    // ---- sync ---------------------------------------------------------------------------

    /// Encode one text, or a pair (`pair`: the second text), like `tokenizers`' `encode`: the
    /// post-processor's pair template, the tokenizer's truncation and padding (GIL released;
    /// long texts run in parallel pieces). `is_pretokenized=True` raises `NotImplementedError`.
    #[pyo3(signature = (sequence, pair=None, is_pretokenized=false, add_special_tokens=true))]
    fn encode(
        &self,
        py: Python<'_>,
        sequence: &Bound<'_, PyAny>,
        pair: Option<&Bound<'_, PyAny>>,
        is_pretokenized: bool,
        add_special_tokens: bool,
    ) -> PyResult<Encoding> {
        if let Some(input) = encode_input(sequence, pair, is_pretokenized)? {
            // Offsets in chars per sequence (per word), converted by the core before
            // post-processing.
            let opts = EncodeOptions { add_special_tokens, char_offsets: true, ..Default::default() };
            let tok = self.tok();
            let enc = if input_bytes(&input) >= DETACH_BYTES {
                let i = input.clone();
                interruptible_core(py, &tok, move |tok, cancel| tok.encode_input_with_cancel(&i, &opts, cancel))?
            } else {
                guard(|| tok.encode_input_with_cancel(&input, &opts, &yieldtok::CancelFlag::new()))?
            };
            let enc = enc.into_encoding().expect("full output requested");
            return Ok(Encoding { d: EncData::of_input(enc, &input, tok) });
        }
        let text = text_arg(sequence, "sequence")?;
        let (tok, defer) = self.single_text_tok(false);
        let enc = if text.len() >= yieldtok::PARALLEL_MIN_BYTES {
            let (t, opts) = (text.clone(), EncodeOptions { add_special_tokens, ..Default::default() });
            interruptible_core(py, &tok, move |tok, cancel| {
                Ok(tok.encode_shared_with_cancel(t, &opts, cancel)?.into_encoding().expect("full output requested"))
            })?
        } else {
            let work = || guard(|| tok.encode(&text, add_special_tokens));
            if text.len() >= DETACH_BYTES {
                py.detach(work)?
            } else {
                work()?
            }
        };
        if let Some(whole) = defer {
            return Ok(Encoding { d: EncData::deferred(enc, text, whole, add_special_tokens) });
        }
        Ok(Encoding { d: self.wrap(enc, text) })
    }

    /// Number of tokens of `text` (ids only; faster), before truncation and padding: the
    /// length `encode(text, add_special_tokens=...)` gives with them off.
    #[pyo3(signature = (text, add_special_tokens=true))]
    fn count(&self, py: Python<'_>, text: &Bound<'_, PyAny>, add_special_tokens: bool) -> PyResult<usize> {
        let text = text_arg(text, "text")?;
        if text.len() >= yieldtok::PARALLEL_MIN_BYTES {
            let opts = EncodeOptions {
                add_special_tokens,
                output: Output::Ids,
                truncate_and_pad: false,
                ..Default::default()
            };
            return interruptible_core(py, &self.tok(), move |tok, cancel| {
                Ok(tok.encode_shared_with_cancel(text, &opts, cancel)?.ids().len())
            });
        }
        let work = || guard(|| self.tok().count(&text, add_special_tokens));
        if text.len() >= DETACH_BYTES {
            py.detach(work)
        } else {
            work()
        }
    }

    /// Encode many texts and pairs (`(str, str)` items) in parallel on the core's pool, like
    /// `tokenizers`' `encode_batch`: truncated, then padded over the batch when padding is on.
    #[pyo3(signature = (input, is_pretokenized=false, add_special_tokens=true))]
    fn encode_batch(
        &self,
        py: Python<'_>,
        input: &Bound<'_, PyAny>,
        is_pretokenized: bool,
        add_special_tokens: bool,
    ) -> PyResult<BatchEncoding> {
        let (inputs, has_pairs) = inputs_arg(input, is_pretokenized)?;
        if has_pairs {
            let inputs = Arc::new(inputs);
            let (i, opts) =
                (inputs.clone(), EncodeOptions { add_special_tokens, char_offsets: true, ..Default::default() });
            let outs = interruptible_core(py, &self.tok(), move |tok, cancel| {
                tok.encode_inputs_with_cancel(&i, &opts, cancel)
            })?;
            return Ok(self.batch_result(outs, &inputs));
        }
        let texts: Arc<Vec<Arc<str>>> = Arc::new(inputs.iter().map(single_text).collect());
        let bytes: usize = texts.iter().map(|t| t.len()).sum();
        let (tok, defer) = self.single_text_tok(true);
        let encs = if bytes >= DETACH_BYTES {
            let (t, opts) = (texts.clone(), EncodeOptions { add_special_tokens, ..Default::default() });
            interruptible_core(py, &tok, move |tok, cancel| tok.encode_batch_with_cancel(&t, &opts, cancel))?
                .into_iter()
                .map(|o| o.into_encoding().expect("full output requested"))
                .collect()
        } else {
            guard(|| tok.encode_batch(&texts, add_special_tokens))?
        };
        let item = |(e, t)| match &defer {
            Some(whole) => EncData::deferred(e, t, whole.clone(), add_special_tokens),
            None => self.wrap(e, t),
        };
        let items = encs.into_iter().zip(texts.iter().cloned()).map(item).collect();
        Ok(BatchEncoding::new(items, self.pad_id()))
    }

    /// Same as `encode_batch` (offsets are cheap here; kept for Hugging Face compatibility).
    #[pyo3(signature = (input, is_pretokenized=false, add_special_tokens=true))]
    fn encode_batch_fast(
        &self,
        py: Python<'_>,
        input: &Bound<'_, PyAny>,
        is_pretokenized: bool,
        add_special_tokens: bool,
    ) -> PyResult<BatchEncoding> {
        self.encode_batch(py, input, is_pretokenized, add_special_tokens)
    }

    // ---- truncation and padding (tokenizers' names and semantics) ------------------------

    /// Truncate every encode to `max_length` tokens (special tokens included), as
    /// `tokenizers`: `strategy` `longest_first` / `only_first` / `only_second`, `direction`
    /// `right` / `left`, `stride` tokens repeated between overflowing parts. `ValueError` for
    /// an unknown strategy or direction, or a stride not below the effective max length.
    /// `count`, chat templates and trajectories never truncate.
    #[pyo3(signature = (max_length, stride=0, strategy="longest_first", direction="right"))]
    fn enable_truncation(&self, max_length: usize, stride: usize, strategy: &str, direction: &str) -> PyResult<()> {
        let params = truncation_params(max_length, stride, strategy, direction)?;
        self.set_tok_with(|t| {
            t.with_truncation(Some(params)).map_err(|e| match e {
                yieldtok::Error::InvalidArgument(m) => PyValueError::new_err(m),
                other => to_pyerr(other),
            })
        })
    }

    /// Turn truncation off.
    fn no_truncation(&self) -> PyResult<()> {
        self.set_tok_with(|t| t.with_truncation(None).map_err(to_pyerr))
    }

    /// The truncation in force as `tokenizers` reports it (`max_length`, `stride`, `strategy`,
    /// `direction`), or `None`.
    #[getter]
    fn truncation<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(t) = self.tok().truncation().cloned() else { return Ok(None) };
        let d = PyDict::new(py);
        d.set_item("max_length", t.max_length)?;
        d.set_item("stride", t.stride)?;
        d.set_item("strategy", t.strategy.as_ref())?;
        d.set_item("direction", t.direction.as_ref())?;
        Ok(Some(d))
    }

    /// Pad every encode, as `tokenizers`: to `length` tokens, or (`length=None`) a batch to its
    /// longest item; then up to a multiple of `pad_to_multiple_of`; on the `direction` side,
    /// with `pad_id` / `pad_type_id` / `pad_token`. Keyword arguments only, as `tokenizers`.
    #[pyo3(signature = (*, direction="right", pad_id=0, pad_type_id=0, pad_token="[PAD]", length=None, pad_to_multiple_of=None))]
    fn enable_padding(
        &self,
        direction: &str,
        pad_id: u32,
        pad_type_id: u32,
        pad_token: &str,
        length: Option<usize>,
        pad_to_multiple_of: Option<usize>,
    ) -> PyResult<()> {
        let params = padding_params(direction, pad_id, pad_type_id, pad_token, length, pad_to_multiple_of)?;
        self.set_tok_with(|t| Ok(t.with_padding(Some(params))))
    }

    /// A tokenizer sharing everything with this one but the truncation
    /// (`(max_length, stride, strategy, direction)`) and padding (`(length, direction, pad_id,
    /// pad_type_id, pad_token, pad_to_multiple_of)`), `None` for off: the core settings
    /// `__call__` maps transformers' arguments onto (this tokenizer is left alone). With
    /// `overflowing=False` its encodes report no overflowing parts, and right truncation stops
    /// early (the core's `with_overflowing`).
    #[pyo3(signature = (truncation=None, padding=None, overflowing=true))]
    #[allow(clippy::type_complexity)]
    fn _with_settings(
        &self,
        truncation: Option<(usize, usize, String, String)>,
        padding: Option<(Option<usize>, String, u32, u32, String, Option<usize>)>,
        overflowing: bool,
    ) -> PyResult<Tokenizer> {
        let truncation = match truncation {
            Some((max_length, stride, strategy, direction)) => {
                Some(truncation_params(max_length, stride, &strategy, &direction)?)
            }
            None => None,
        };
        let padding = match padding {
            Some((length, direction, pad_id, pad_type_id, pad_token, multiple)) => {
                Some(padding_params(&direction, pad_id, pad_type_id, &pad_token, length, multiple)?)
            }
            None => None,
        };
        let tok = guard(|| self.tok().with_truncation(truncation))?.with_padding(padding).with_overflowing(overflowing);
        Ok(Tokenizer::new(tok))
    }

    /// transformers' ``tokenizer(text | texts, text_pair=None, ...)`` (``PreTrainedTokenizerFast.__call__``):
    /// a dict equal to its ``BatchEncoding``'s (see ``yieldtok._transformers``: the arguments
    /// become the core's truncation and padding for one batch encode).
    #[pyo3(signature = (*args, **kwargs))]
    fn __call__<'py>(
        slf: &Bound<'py, Self>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        forward(slf, "call", args, kwargs)
    }

    /// transformers' ``model_input_names``: the config's, else ``PreTrainedTokenizerFast``'s
    /// default ``["input_ids", "attention_mask"]`` (5.24).
    #[getter]
    fn model_input_names(&self) -> Vec<String> {
        let from_config = self.tok().config().and_then(|c| c.raw.get("model_input_names").cloned());
        match from_config {
            Some(serde_json::Value::Array(v)) => v.iter().filter_map(|x| x.as_str().map(str::to_string)).collect(),
            _ => ["input_ids", "attention_mask"].map(str::to_string).to_vec(),
        }
    }

    /// Turn padding off.
    fn no_padding(&self) -> PyResult<()> {
        self.set_tok_with(|t| Ok(t.with_padding(None)))
    }

    /// The padding in force as `tokenizers` reports it (`length`, `pad_to_multiple_of`,
    /// `pad_id`, `pad_token`, `pad_type_id`, `direction`), or `None`.
    #[getter]
    fn padding<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(p) = self.tok().padding().cloned() else { return Ok(None) };
        let d = PyDict::new(py);
        match p.strategy {
            yieldtok::PaddingStrategy::Fixed(n) => d.set_item("length", n)?,
            yieldtok::PaddingStrategy::BatchLongest => d.set_item("length", py.None())?,
        }
        d.set_item("pad_to_multiple_of", p.pad_to_multiple_of)?;
        d.set_item("pad_id", p.pad_id)?;
        d.set_item("pad_token", p.pad_token.as_str())?;
        d.set_item("pad_type_id", p.pad_type_id)?;
        d.set_item("direction", p.direction.as_ref())?;
        Ok(Some(d))
    }

    /// transformers 5.24's ``apply_chat_template`` (``PreTrainedTokenizerFast``'s signature,
    /// defaults and results; see ``yieldtok._transformers``): renders one conversation or a
    /// batch, byte-identical to transformers, and by default returns the dict ``tokenizer(render,
    /// add_special_tokens=False, padding=..., truncation=..., max_length=..., return_tensors=...,
    /// **tokenizer_kwargs)`` returns. GIL released while rendering and encoding.
    #[pyo3(signature = (*args, **kwargs))]
    fn apply_chat_template<'py>(
        slf: &Bound<'py, Self>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        forward(slf, "apply_chat_template", args, kwargs)
    }

    /// Awaitable ``apply_chat_template`` (same arguments and results), rendered and encoded on
    /// the core scheduler.
    #[pyo3(signature = (*args, **kwargs))]
    fn async_apply_chat_template<'py>(
        slf: &Bound<'py, Self>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        forward(slf, "async_apply_chat_template", args, kwargs)
    }

    /// The core's ``chat_batch`` for ``yieldtok._transformers``: renders (and with ``tokenize``
    /// encodes, with this handle's truncation and padding; ids only when ``ids_only`` and
    /// nothing needs more) on the calling thread with the GIL released. Returns ``(batched, texts,
    /// encodings, assistant_masks)``.
    #[pyo3(signature = (conversation, tools, documents, chat_template, add_generation_prompt, continue_final_message, tokenize, return_assistant_tokens_mask, return_dict, kwargs, ids_only))]
    #[allow(clippy::too_many_arguments)]
    fn _chat(
        &self,
        py: Python<'_>,
        conversation: &Bound<'_, PyAny>,
        tools: Option<&Bound<'_, PyAny>>,
        documents: Option<&Bound<'_, PyAny>>,
        chat_template: Option<String>,
        add_generation_prompt: bool,
        continue_final_message: Option<&Bound<'_, PyAny>>,
        tokenize: bool,
        return_assistant_tokens_mask: bool,
        return_dict: bool,
        kwargs: Option<&Bound<'_, PyDict>>,
        ids_only: bool,
    ) -> PyResult<crate::chat::ChatBatchResult> {
        let call = crate::chat::call(
            conversation,
            tools,
            documents,
            chat_template,
            add_generation_prompt,
            continue_final_message,
            tokenize,
            return_assistant_tokens_mask,
            return_dict,
            kwargs,
        )?;
        let output = if ids_only { Output::Ids } else { Output::Full };
        let tok = self.tok();
        let batch = py.detach(|| guard(|| tok.chat_batch(call, output)))?;
        Ok(crate::chat::ChatBatchResult { batch, tok, pad_id: self.pad_id() })
    }

    /// Awaitable ``_chat``, on the core scheduler (dropping it cancels the encode).
    #[pyo3(signature = (conversation, tools, documents, chat_template, add_generation_prompt, continue_final_message, tokenize, return_assistant_tokens_mask, return_dict, kwargs, ids_only))]
    #[allow(clippy::too_many_arguments)]
    fn _async_chat<'py>(
        &self,
        py: Python<'py>,
        conversation: &Bound<'py, PyAny>,
        tools: Option<&Bound<'py, PyAny>>,
        documents: Option<&Bound<'py, PyAny>>,
        chat_template: Option<String>,
        add_generation_prompt: bool,
        continue_final_message: Option<&Bound<'py, PyAny>>,
        tokenize: bool,
        return_assistant_tokens_mask: bool,
        return_dict: bool,
        kwargs: Option<&Bound<'py, PyDict>>,
        ids_only: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let call = crate::chat::call(
            conversation,
            tools,
            documents,
            chat_template,
            add_generation_prompt,
            continue_final_message,
            tokenize,
            return_assistant_tokens_mask,
            return_dict,
            kwargs,
        )?;
        let output = if ids_only { Output::Ids } else { Output::Full };
        let (tok, pad_id) = (self.tok(), self.pad_id());
        let fut = tok.spawn_cancellable(move |t, cancel| t.chat_batch_with_cancel(call, output, cancel));
        bridge(
            py,
            async move { Ok(crate::chat::ChatBatchResult { batch: fut.await.map_err(to_pyerr)?, tok, pad_id }) },
            Vec::new(),
        )
    }

    /// Decode ids (or one int id) to text; ids the vocabulary lacks are skipped, as `tokenizers`.
    #[pyo3(signature = (ids, skip_special_tokens=true))]
    fn decode(&self, py: Python<'_>, ids: &Bound<'_, PyAny>, skip_special_tokens: bool) -> PyResult<String> {
        let ids = ids_arg(ids)?;
        let work = || guard(|| self.tok().decode(&ids, skip_special_tokens));
        if ids.len() >= DETACH_BYTES / 4 {
            py.detach(work)
        } else {
            work()
        }
    }

    /// Decode many id sequences in parallel.
    #[pyo3(signature = (sequences, skip_special_tokens=true))]
    fn decode_batch(
        &self,
        py: Python<'_>,
        sequences: &Bound<'_, PyAny>,
        skip_special_tokens: bool,
    ) -> PyResult<Vec<String>> {
        let seqs = ids_batch_arg(sequences)?;
        let n: usize = seqs.iter().map(Vec::len).sum();
        if n >= DETACH_BYTES / 4 {
            interruptible_core(py, &self.tok(), move |tok, _| tok.decode_batch(&seqs, skip_special_tokens))
        } else {
            guard(|| self.tok().decode_batch(&seqs, skip_special_tokens))
        }
    }

    // ---- awaitables (Hugging Face names) --------------------------------------------------

    /// Awaitable `encode`, run in pieces on the core scheduler. Must be called with a running
    /// event loop. Cancelling the awaiting task cancels the remaining pieces.
    #[pyo3(signature = (sequence, pair=None, is_pretokenized=false, add_special_tokens=true))]
    fn async_encode<'py>(
        &self,
        py: Python<'py>,
        sequence: &Bound<'py, PyAny>,
        pair: Option<&Bound<'py, PyAny>>,
        is_pretokenized: bool,
        add_special_tokens: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let opts = EncodeOptions { add_special_tokens, ..Default::default() };
        let this = self.clone();
        if let Some(input) = encode_input(sequence, pair, is_pretokenized)? {
            let tok = self.tok();
            let fut = tok.encode_inputs_async(vec![input.clone()], EncodeOptions { char_offsets: true, ..opts });
            return bridge(
                py,
                async move {
                    let out = fut.await.map_err(to_pyerr)?.pop().expect("one input, one output");
                    let enc = out.into_encoding().expect("full output requested");
                    Ok(Encoding { d: EncData::of_input(enc, &input, tok) })
                },
                Vec::new(),
            );
        }
        match LongText::from_arg(sequence, "sequence")? {
            LongText::Ready(text) => {
                let fut = self.tok().encode_async(text.clone(), opts);
                let handles = vec![fut.handle()];
                bridge(py, async move { this.finish_encode(fut.await, text) }, handles)
            }
            // read off the loop (see `longtext`); dropping the future cancels the encode
            long => bridge(
                py,
                async move {
                    let text = long.read().await?;
                    let out = this.tok().encode_async(text.clone(), opts).await;
                    this.finish_encode(out, text)
                },
                Vec::new(),
            ),
        }
    }

    /// Awaitable `encode_batch`: one job per text, all queued on the core scheduler at once.
    #[pyo3(signature = (input, is_pretokenized=false, add_special_tokens=true))]
    fn async_encode_batch<'py>(
        &self,
        py: Python<'py>,
        input: &Bound<'py, PyAny>,
        is_pretokenized: bool,
        add_special_tokens: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (inputs, has_pairs) = inputs_arg(input, is_pretokenized)?;
        if has_pairs {
            let fut = self.tok().encode_inputs_async(
                inputs.clone(),
                EncodeOptions { add_special_tokens, char_offsets: true, ..Default::default() },
            );
            let this = self.clone();
            return bridge(py, async move { Ok(this.batch_result(fut.await.map_err(to_pyerr)?, &inputs)) }, Vec::new());
        }
        let texts: Vec<Arc<str>> = inputs.iter().map(single_text).collect();
        // One job per text, queued at the first poll; dropping the future (task cancelled)
        // cancels every job still running.
        let batch = self
            .tok()
            .encode_batch_async(texts.iter().cloned(), EncodeOptions { add_special_tokens, ..Default::default() });
        let handles = batch.handle().jobs().to_vec();
        let this = self.clone();
        let fut = async move {
            let outs = batch.await.map_err(to_pyerr)?;
            let items = outs
                .into_iter()
                .zip(texts)
                .map(|(o, t)| this.wrap(o.into_encoding().expect("full output requested"), t))
                .collect();
            Ok(BatchEncoding::new(items, this.pad_id()))
        };
        bridge(py, fut, handles)
    }

    /// Same as `async_encode_batch` (kept for Hugging Face compatibility).
    #[pyo3(signature = (input, is_pretokenized=false, add_special_tokens=true))]
    fn async_encode_batch_fast<'py>(
        &self,
        py: Python<'py>,
        input: &Bound<'py, PyAny>,
        is_pretokenized: bool,
        add_special_tokens: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.async_encode_batch(py, input, is_pretokenized, add_special_tokens)
    }

    /// Awaitable `count` (ids only).
    #[pyo3(signature = (text, add_special_tokens=true))]
    fn async_count<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyAny>,
        add_special_tokens: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let opts = EncodeOptions { add_special_tokens, output: Output::Ids, ..Default::default() };
        match LongText::from_arg(text, "text")? {
            LongText::Ready(text) => {
                let fut = self.tok().encode_async(text, opts);
                let handles = vec![fut.handle()];
                bridge(py, async move { Ok(fut.await.map_err(to_pyerr)?.ids().len()) }, handles)
            }
            long => {
                let tok = self.tok().clone();
                bridge(
                    py,
                    async move { Ok(tok.encode_async(long.read().await?, opts).await.map_err(to_pyerr)?.ids().len()) },
                    Vec::new(),
                )
            }
        }
    }

    /// Awaitable `decode`.
    #[pyo3(signature = (ids, skip_special_tokens=true))]
    fn async_decode<'py>(
        &self,
        py: Python<'py>,
        ids: &Bound<'py, PyAny>,
        skip_special_tokens: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let fut = self.tok().decode_async(ids_arg(ids)?, skip_special_tokens);
        bridge(py, async move { fut.await.map_err(to_pyerr) }, Vec::new())
    }

    /// Awaitable `decode_batch`.
    #[pyo3(signature = (sequences, skip_special_tokens=true))]
    fn async_decode_batch<'py>(
        &self,
        py: Python<'py>,
        sequences: &Bound<'py, PyAny>,
        skip_special_tokens: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let fut = self.tok().decode_batch_async(ids_batch_arg(sequences)?, skip_special_tokens);
        bridge(py, async move { fut.await.map_err(to_pyerr) }, Vec::new())
    }

    // ---- trajectories (ART 0.5.18's names and arguments) ----------------------------------

    /// ART's `tokenize_trajectory_groups`: every history of every kept trajectory tokenized in
    /// parallel with the GIL released. Returns the results in ART's order; raises
    /// `TrajectoryError` (carrying the other results) if some trajectories fail.
    #[pyo3(signature = (groups, allow_training_without_logprobs=false, scale_rewards=true, shuffle_group_trajectories=true, drop_zero_advantage_trajectories=true, chat_template_kwargs=None, seed=None, *, chat_template_tool_schema_format="default", validate_sampled_tokens=true, chat_template=None))]
    #[allow(clippy::too_many_arguments)]
    fn tokenize_trajectory_groups(
        &self,
        py: Python<'_>,
        groups: &Bound<'_, PyAny>,
        allow_training_without_logprobs: bool,
        scale_rewards: bool,
        shuffle_group_trajectories: bool,
        drop_zero_advantage_trajectories: bool,
        chat_template_kwargs: Option<&Bound<'_, PyAny>>,
        seed: Option<i128>,
        chat_template_tool_schema_format: &str,
        validate_sampled_tokens: bool,
        chat_template: Option<String>,
    ) -> PyResult<Vec<crate::tokenized::TokenizedResult>> {
        let call = self.groups_call(
            groups,
            options(
                allow_training_without_logprobs,
                scale_rewards,
                shuffle_group_trajectories,
                drop_zero_advantage_trajectories,
                chat_template_kwargs,
                seed,
                chat_template_tool_schema_format,
                validate_sampled_tokens,
                chat_template,
            )?,
        )?;
        interruptible(py, &self.tok(), move |_, cancel| call.run(Some(cancel)))
    }

    /// Awaitable `tokenize_trajectory_groups`, run on the core scheduler; cancelling the awaiting
    /// task skips the histories not yet started.
    #[pyo3(signature = (groups, allow_training_without_logprobs=false, scale_rewards=true, shuffle_group_trajectories=true, drop_zero_advantage_trajectories=true, chat_template_kwargs=None, seed=None, *, chat_template_tool_schema_format="default", validate_sampled_tokens=true, chat_template=None))]
    #[allow(clippy::too_many_arguments)]
    fn async_tokenize_trajectory_groups<'py>(
        &self,
        py: Python<'py>,
        groups: &Bound<'py, PyAny>,
        allow_training_without_logprobs: bool,
        scale_rewards: bool,
        shuffle_group_trajectories: bool,
        drop_zero_advantage_trajectories: bool,
        chat_template_kwargs: Option<&Bound<'py, PyAny>>,
        seed: Option<i128>,
        chat_template_tool_schema_format: &str,
        validate_sampled_tokens: bool,
        chat_template: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let call = self.groups_call(
            groups,
            options(
                allow_training_without_logprobs,
                scale_rewards,
                shuffle_group_trajectories,
                drop_zero_advantage_trajectories,
                chat_template_kwargs,
                seed,
                chat_template_tool_schema_format,
                validate_sampled_tokens,
                chat_template,
            )?,
        )?;
        run_async(py, &self.tok(), move |cancel| call.run(Some(cancel)))
    }

    /// ART's `tokenize_trajectory` for one history (a `History`, a `Trajectory` — its own
    /// `messages_and_choices` and `tools` — or a bare `messages_and_choices` list) with the
    /// given advantage. `None` when the history has no trainable message.
    #[pyo3(signature = (history, advantage=0.0, allow_training_without_logprobs=false, chat_template_kwargs=None, *, chat_template_tool_schema_format="default", validate_sampled_tokens=true, chat_template=None))]
    #[allow(clippy::too_many_arguments)]
    fn tokenize_trajectory(
        &self,
        py: Python<'_>,
        history: &Bound<'_, PyAny>,
        advantage: f64,
        allow_training_without_logprobs: bool,
        chat_template_kwargs: Option<&Bound<'_, PyAny>>,
        chat_template_tool_schema_format: &str,
        validate_sampled_tokens: bool,
        chat_template: Option<String>,
    ) -> PyResult<Option<crate::tokenized::TokenizedResult>> {
        let opts = options(
            allow_training_without_logprobs,
            true,
            false,
            true,
            chat_template_kwargs,
            None,
            chat_template_tool_schema_format,
            validate_sampled_tokens,
            chat_template,
        )?;
        let call = self.history_call(history, advantage, opts)?;
        interruptible(py, &self.tok(), move |_, _| call.run())
    }

    /// Awaitable `tokenize_trajectory`, run on the core scheduler.
    #[pyo3(signature = (history, advantage=0.0, allow_training_without_logprobs=false, chat_template_kwargs=None, *, chat_template_tool_schema_format="default", validate_sampled_tokens=true, chat_template=None))]
    #[allow(clippy::too_many_arguments)]
    fn async_tokenize_trajectory<'py>(
        &self,
        py: Python<'py>,
        history: &Bound<'py, PyAny>,
        advantage: f64,
        allow_training_without_logprobs: bool,
        chat_template_kwargs: Option<&Bound<'py, PyAny>>,
        chat_template_tool_schema_format: &str,
        validate_sampled_tokens: bool,
        chat_template: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let opts = options(
            allow_training_without_logprobs,
            true,
            false,
            true,
            chat_template_kwargs,
            None,
            chat_template_tool_schema_format,
            validate_sampled_tokens,
            chat_template,
        )?;
        let call = self.history_call(history, advantage, opts)?;
        run_async(py, &self.tok(), move |_| call.run())
    }
}

/// `yieldtok._transformers.<name>(tok, *args, **kwargs)`: the transformers-style methods whose
/// argument handling and result shaping live there.
fn forward<'py>(
    slf: &Bound<'py, Tokenizer>,
    name: &str,
    args: &Bound<'py, PyTuple>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = slf.py();
    let f = py.import("yieldtok._transformers")?.getattr(name)?;
    let mut all: Vec<Bound<'py, PyAny>> = vec![slf.clone().into_any()];
    all.extend(args.iter());
    f.call(PyTuple::new(py, all)?, kwargs)
}

impl Tokenizer {
    /// A batch of texts and pairs' outputs as a `BatchEncoding`.
    fn batch_result(&self, outs: Vec<yieldtok::JobOutput>, inputs: &[yieldtok::Input]) -> BatchEncoding {
        let tok = self.tok();
        let items = outs
            .into_iter()
            .zip(inputs)
            .map(|(o, i)| EncData::of_input(o.into_encoding().expect("full output requested"), i, tok.clone()))
            .collect();
        BatchEncoding::new(items, self.pad_id())
    }

    /// An awaited encode's output as an `Encoding` of `text`.
    fn finish_encode(&self, out: yieldtok::Result<yieldtok::JobOutput>, text: Arc<str>) -> PyResult<Encoding> {
        let enc = out.map_err(to_pyerr)?.into_encoding().expect("full output requested");
        Ok(Encoding { d: self.wrap(enc, text) })
    }

    fn groups_call(
        &self,
        groups: &Bound<'_, PyAny>,
        opts: yieldtok::trajectory::TrajectoryOptions,
    ) -> PyResult<GroupsCall> {
        let (tok, cache) = self.tok_and_cache();
        Ok(GroupsCall { tok, cache, input: JsonInput::from_py(groups, true)?, opts })
    }

    fn history_call(
        &self,
        history: &Bound<'_, PyAny>,
        advantage: f64,
        opts: yieldtok::trajectory::TrajectoryOptions,
    ) -> PyResult<HistoryCall> {
        let (tok, cache) = self.tok_and_cache();
        Ok(HistoryCall { tok, cache, input: JsonInput::from_py(history, false)?, advantage, opts })
    }
}

/// Unpickling entry point of pickles made before the bundle (`tokenizer.json` alone).
#[pyfunction]
pub fn _tokenizer_from_json(py: Python<'_>, json: String) -> PyResult<Tokenizer> {
    Tokenizer::load(py, || yieldtok::Tokenizer::from_str(&json))
}

/// Unpickling entry point: `Tokenizer` pickles as `(_tokenizer_from_bundle, (bundle,))`.
#[pyfunction]
pub fn _tokenizer_from_bundle(py: Python<'_>, bundle: String) -> PyResult<Tokenizer> {
    Tokenizer::load(py, || yieldtok::Tokenizer::from_bundle(&bundle))
}

/// `add_tokens`' argument: a `list` of `str` or [`AddedToken`], as `tokenizers` (which refuses
/// any other container). For `add_special_tokens` (`special`), a `str` is a special token and
/// each `AddedToken` passed is marked special (`tokenizers` sets `special` on the object).
fn added_tokens_arg(obj: &Bound<'_, PyAny>, special: bool) -> PyResult<Vec<yieldtok::AddedToken>> {
    let list = obj.cast::<PyList>().map_err(|_| {
        PyTypeError::new_err(format!(
            "'{}' object is not an instance of 'list'",
            obj.get_type().name().map(|n| n.to_string()).unwrap_or_default()
        ))
    })?;
    let mut out = Vec::with_capacity(list.len());
    for item in list.iter() {
        if let Ok(s) = item.cast::<PyString>() {
            out.push(yieldtok::AddedToken::from(s.to_str()?.to_string(), special));
        } else if let Ok(t) = item.cast::<AddedToken>() {
            let mut t = t.borrow_mut();
            if special {
                t.special = true;
            }
            out.push(t.core());
        } else {
            return Err(PyTypeError::new_err("Input must be a List[Union[str, AddedToken]]"));
        }
    }
    Ok(out)
}

/// An added token of the vocabulary, with `tokenizers`' `AddedToken` fields, repr and equality
/// (`normalized`, unless given, is `not special`; `add_special_tokens` makes a token passed
/// to it special, as `tokenizers`).
#[pyclass(module = "yieldtok")]
#[derive(Clone)]
pub struct AddedToken {
    #[pyo3(get)]
    content: String,
    #[pyo3(get)]
    single_word: bool,
    #[pyo3(get)]
    lstrip: bool,
    #[pyo3(get)]
    rstrip: bool,
    normalized: Option<bool>,
    #[pyo3(get)]
    special: bool,
}

impl AddedToken {
    /// The core's (`tokenizers`') added token with these flags.
    fn core(&self) -> yieldtok::AddedToken {
        yieldtok::AddedToken::from(self.content.clone(), self.special)
            .single_word(self.single_word)
            .lstrip(self.lstrip)
            .rstrip(self.rstrip)
            .normalized(self.get_normalized())
    }
}

impl PartialEq for AddedToken {
    fn eq(&self, other: &Self) -> bool {
        self.core() == other.core()
    }
}

#[pymethods]
impl AddedToken {
    /// Same defaults as `tokenizers.AddedToken` (`normalized` defaults to `not special`).
    #[new]
    #[pyo3(signature = (content="", single_word=false, lstrip=false, rstrip=false, normalized=None, special=false))]
    fn new(
        content: &str,
        single_word: bool,
        lstrip: bool,
        rstrip: bool,
        normalized: Option<bool>,
        special: bool,
    ) -> Self {
        AddedToken { content: content.to_string(), single_word, lstrip, rstrip, normalized, special }
    }

    #[getter(normalized)]
    fn get_normalized(&self) -> bool {
        self.normalized.unwrap_or(!self.special)
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: pyo3::basic::CompareOp) -> PyResult<Py<PyAny>> {
        let py = other.py();
        let Ok(other) = other.cast::<AddedToken>() else { return Ok(py.NotImplemented()) };
        let eq = *self == *other.borrow();
        Ok(match op {
            pyo3::basic::CompareOp::Eq => eq.into_pyobject(py)?.to_owned().into_any().unbind(),
            pyo3::basic::CompareOp::Ne => (!eq).into_pyobject(py)?.to_owned().into_any().unbind(),
            _ => py.NotImplemented(),
        })
    }

    fn __str__(&self) -> &str {
        &self.content
    }

    fn __repr__(&self) -> String {
        let b = |v: bool| if v { "True" } else { "False" };
        format!(
            "AddedToken(\"{}\", rstrip={}, lstrip={}, single_word={}, normalized={}, special={})",
            self.content,
            b(self.rstrip),
            b(self.lstrip),
            b(self.single_word),
            b(self.get_normalized()),
            b(self.special)
        )
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.content.hash(&mut h);
        h.finish()
    }
}
