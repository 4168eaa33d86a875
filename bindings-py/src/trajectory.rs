//! Trajectory tokenization for Python: ART 0.5.18's `tokenize_trajectory_groups` and
//! `tokenize_trajectory` on `Tokenizer` (sync, GIL released) and as awaitables on the core
//! scheduler (`Tokenizer::spawn`). Parsing, validation, tokenization and result building are the
//! core's (`yieldtok::trajectory`); this file only gets the Python input to it and the outcome
//! back.
//!
//! Input forms (groups; `tokenize_trajectory` takes one history or trajectory the same ways):
//! * `bytes` / `bytearray`, or a `str` whose first non-blank character is `[` or `{`: JSON text,
//!   parsed by the core without the GIL (the `bytes` are borrowed, not copied);
//! * an `os.PathLike`, or any other `str`: a file, read and parsed without the GIL — JSON, or
//!   JSON Lines (one group per line) when the name ends in `.jsonl` / `.ndjson`;
//! * Python objects in ART's shapes — lists, dicts, and duck-typed objects such as ART's
//!   pydantic `TrajectoryGroup` / `Trajectory` / `History` (their `trajectories` /
//!   `messages_and_choices`, `tools`, `additional_histories`, `reward` attributes) and openai
//!   `Choice` objects (`model_dump(mode="json")`): written as JSON text straight from the
//!   object graph (`pyjson.rs`; the only part that needs the GIL), then parsed like bytes.
//!
//! Outcome: a list of [`TokenizedResult`]s in ART's order. If any trajectory failed (the core
//! reports failures per trajectory and keeps the rest), `TrajectoryError` is raised instead,
//! carrying every other result (`.results`) and a [`TrajectoryFailure`] per failure
//! (`.errors`); a document that cannot be read as trajectory groups at all raises it with no
//! results. A tokenizer that cannot render trajectories (no chat template) raises
//! `TokenizerValueError`.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pybacked::{PyBackedBytes, PyBackedStr};
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyString, PyTuple};
use serde_json::{Map, Value};
use yieldtok::trajectory::{self as tj, ToolSchemaFormat, TrajectoryOptions, TrajectoryTokenizer};

use crate::errors::{to_pyerr, TokenizerValueError, TrajectoryError};
use crate::tokenized::TokenizedResult;

// ---- input ------------------------------------------------------------------------------

/// JSON for the core, taken from Python with the GIL held and parsed later without it.
pub enum JsonInput {
    Owned(Vec<u8>),
    Text(PyBackedStr),
    Bytes(PyBackedBytes),
    File(PathBuf),
}

impl JsonInput {
    /// Any of the input forms of the module docs (`groups`: a list of groups, else one
    /// history or trajectory).
    pub fn from_py(obj: &Bound<'_, PyAny>, groups: bool) -> PyResult<Self> {
        let py = obj.py();
        if obj.is_instance_of::<PyString>() {
            let text: PyBackedStr = obj.extract()?;
            if text.trim_start().starts_with(['[', '{']) {
                return Ok(JsonInput::Text(text));
            }
            return Ok(JsonInput::File(PathBuf::from(&*text)));
        }
        if obj.is_instance_of::<PyBytes>() || obj.is_instance_of::<PyByteArray>() {
            return Ok(JsonInput::Bytes(obj.extract()?));
        }
        if obj.hasattr(pyo3::intern!(py, "__fspath__"))? {
            return Ok(JsonInput::File(obj.extract()?));
        }
        Ok(JsonInput::Owned(crate::pyjson::to_json_bytes(obj, json_default, groups)?))
    }

    /// The JSON bytes (reading the file for paths).
    fn bytes(&self) -> PyResult<std::borrow::Cow<'_, [u8]>> {
        match self {
            JsonInput::Owned(b) => Ok(b.as_slice().into()),
            JsonInput::Text(s) => Ok(s.as_bytes().into()),
            JsonInput::Bytes(b) => Ok((&**b).into()),
            JsonInput::File(path) => std::fs::read(path)
                .map_err(|source| to_pyerr(yieldtok::Error::Io { path: path.clone(), source }))
                .map(Into::into),
        }
    }

    /// A path whose name ends in `.jsonl` / `.ndjson`.
    fn is_jsonl(&self) -> bool {
        let JsonInput::File(path) = self else { return false };
        let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        matches!(ext.as_deref(), Some("jsonl" | "ndjson"))
    }

    /// Parse as a list of groups (no GIL needed); JSON Lines files hold one group per line.
    pub fn groups(&self) -> PyResult<Vec<tj::TrajectoryGroup>> {
        let bytes = self.bytes()?;
        let parsed = if self.is_jsonl() { tj::parse_groups_jsonl(&bytes) } else { tj::parse_groups(&bytes) };
        parsed.map_err(|e| trajectory_error(Vec::new(), vec![e]))
    }

    /// Parse as one history: a `{"messages_and_choices": ..., "tools": ...}` object (a
    /// trajectory gives its own history) or a bare `messages_and_choices` list.
    pub fn history(&self) -> PyResult<tj::History> {
        let value: Value = serde_json::from_slice(&self.bytes()?).map_err(|e| {
            trajectory_error(
                Vec::new(),
                vec![tj::TrajectoryError::new(tj::TrajectoryErrorKind::InvalidInput(e.to_string())).caused_by(e)],
            )
        })?;
        tj::history_from_value(&value).map_err(|e| trajectory_error(Vec::new(), vec![e]))
    }
}

/// The serialisation hook for values that are not JSON data: ART's pydantic objects and other
/// duck-typed values.
fn json_default<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = obj.py();
    let attr = |name: &Bound<'py, PyString>| -> PyResult<Option<Bound<'py, PyAny>>> {
        if obj.hasattr(name)? {
            Ok(Some(obj.getattr(name)?))
        } else {
            Ok(None)
        }
    };
    let list = |v: Bound<'py, PyAny>| -> PyResult<Bound<'py, PyAny>> {
        Ok(PyList::new(py, v.try_iter()?.collect::<PyResult<Vec<_>>>()?)?.into_any())
    };
    // Trajectory / History
    if let Some(items) = attr(pyo3::intern!(py, "messages_and_choices"))? {
        let d = PyDict::new(py);
        d.set_item("messages_and_choices", list(items)?)?;
        if let Some(tools) = attr(pyo3::intern!(py, "tools"))? {
            d.set_item("tools", tools)?;
        }
        if let Some(h) = attr(pyo3::intern!(py, "additional_histories"))? {
            d.set_item("additional_histories", list(h)?)?;
        }
        if let Some(r) = attr(pyo3::intern!(py, "reward"))? {
            d.set_item("reward", r)?;
        }
        return Ok(d.into_any());
    }
    // TrajectoryGroup
    if let Some(t) = attr(pyo3::intern!(py, "trajectories"))? {
        let d = PyDict::new(py);
        d.set_item("trajectories", list(t)?)?;
        return Ok(d.into_any());
    }
    // openai Choice and other pydantic models
    if obj.hasattr(pyo3::intern!(py, "model_dump"))? {
        let kw = PyDict::new(py);
        kw.set_item("mode", "json")?;
        return match obj.call_method(pyo3::intern!(py, "model_dump"), (), Some(&kw)) {
            Err(e) if e.is_instance_of::<PyTypeError>(py) => obj.call_method0(pyo3::intern!(py, "model_dump")),
            r => r,
        };
    }
    if obj.hasattr(pyo3::intern!(py, "keys"))? {
        return Ok(PyDict::from_sequence(&obj.call_method0(pyo3::intern!(py, "items"))?)?.into_any());
    }
    // numpy arrays and scalars
    if obj.hasattr(pyo3::intern!(py, "tolist"))? {
        return obj.call_method0(pyo3::intern!(py, "tolist"));
    }
    if let Ok(it) = obj.try_iter() {
        return Ok(PyList::new(py, it.collect::<PyResult<Vec<_>>>()?)?.into_any());
    }
    Err(PyTypeError::new_err(format!("Object of type {} is not JSON serializable", obj.get_type().name()?)))
}

// ---- options ----------------------------------------------------------------------------

/// ART's arguments (plus the seed, token validation and an explicit template) as core options.
#[allow(clippy::too_many_arguments)]
pub fn options(
    allow_training_without_logprobs: bool,
    scale_rewards: bool,
    shuffle_group_trajectories: bool,
    drop_zero_advantage_trajectories: bool,
    chat_template_kwargs: Option<&Bound<'_, PyAny>>,
    seed: Option<i128>,
    chat_template_tool_schema_format: &str,
    validate_sampled_tokens: bool,
    chat_template: Option<String>,
) -> PyResult<TrajectoryOptions> {
    let chat_template_kwargs: Option<Map<String, Value>> = match chat_template_kwargs {
        Some(k) if !k.is_none() => match crate::chat::to_json(k, "chat_template_kwargs")? {
            Value::Object(m) => Some(m),
            _ => return Err(PyTypeError::new_err("chat_template_kwargs must be a dict")),
        },
        _ => None,
    };
    let tool_schema_format: ToolSchemaFormat = chat_template_tool_schema_format
        .parse()
        .map_err(|e: String| TokenizerValueError::new_err(format!("chat_template_tool_schema_format: {e}")))?;
    Ok(TrajectoryOptions {
        allow_training_without_logprobs,
        scale_rewards,
        shuffle_group_trajectories,
        drop_zero_advantage_trajectories,
        chat_template_kwargs,
        tool_schema_format,
        seed,
        validate_sampled_tokens,
        chat_template,
    })
}

// ---- the prepared tokenizer ---------------------------------------------------------------

/// The tokenizer prepared for trajectories with its own chat template, built on first use.
pub type Prepared = Arc<OnceLock<Arc<TrajectoryTokenizer>>>;

/// The prepared tokenizer for `opts.chat_template` (its own template: cached in `cache`).
fn prepared(
    tok: &yieldtok::Tokenizer,
    cache: &Prepared,
    opts: &TrajectoryOptions,
) -> PyResult<Arc<TrajectoryTokenizer>> {
    if opts.chat_template.is_none() {
        if let Some(t) = cache.get() {
            return Ok(t.clone());
        }
    }
    let t = Arc::new(
        TrajectoryTokenizer::new(tok, opts.chat_template.as_deref())
            .map_err(|e| TokenizerValueError::new_err(e.to_string()))?,
    );
    if opts.chat_template.is_none() {
        let _ = cache.set(t.clone());
    }
    Ok(t)
}

// ---- running ----------------------------------------------------------------------------

/// Everything a call needs, movable to a worker thread.
pub struct GroupsCall {
    pub tok: yieldtok::Tokenizer,
    pub cache: Prepared,
    pub input: JsonInput,
    pub opts: TrajectoryOptions,
}

impl GroupsCall {
    /// Parse, tokenize and collect (no GIL needed); with `cancel`, histories not yet started
    /// are skipped once it is set (the awaitable's task was cancelled).
    pub fn run(self, cancel: Option<&yieldtok::CancelFlag>) -> PyResult<Vec<TokenizedResult>> {
        let GroupsCall { tok, cache, input, opts } = self;
        let tt = prepared(&tok, &cache, &opts)?;
        let groups = input.groups()?;
        drop(input); // the JSON text (ours when converted from Python objects) is not needed any more
        let out = match cancel {
            Some(flag) => tt.tokenize_trajectory_groups_cancellable(&groups, &opts, flag).map_err(to_pyerr)?,
            None => tt.tokenize_trajectory_groups(&groups, &opts),
        };
        drop(groups);
        collect(out)
    }
}

/// One history.
pub struct HistoryCall {
    pub tok: yieldtok::Tokenizer,
    pub cache: Prepared,
    pub input: JsonInput,
    pub advantage: f64,
    pub opts: TrajectoryOptions,
}

impl HistoryCall {
    pub fn run(self) -> PyResult<Option<TokenizedResult>> {
        let tt = prepared(&self.tok, &self.cache, &self.opts)?;
        let history = self.input.history()?;
        match tt.tokenize_trajectory(&history, self.advantage, &self.opts) {
            Ok(r) => Ok(r.map(|r| TokenizedResult { r: Arc::new(r) })),
            Err(e) => Err(trajectory_error(Vec::new(), vec![e])),
        }
    }
}

/// Run `f` on the calling thread with the GIL released; a panic becomes
/// `TokenizerInternalError`.
pub fn run_detached<T: Send>(py: Python<'_>, f: impl FnOnce() -> PyResult<T> + Send) -> PyResult<T> {
    py.detach(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|p| Err(crate::errors::panic_err(p)))
    })
}

/// Run `f` on the core scheduler (`Tokenizer::spawn_cancellable`) and bridge it to asyncio;
/// cancelling the asyncio future drops the task, which sets the flag `f` gets.
pub fn run_async<'py, T>(
    py: Python<'py>,
    tok: &yieldtok::Tokenizer,
    f: impl FnOnce(&yieldtok::CancelFlag) -> PyResult<T> + Send + 'static,
) -> PyResult<Bound<'py, PyAny>>
where
    T: for<'a> IntoPyObject<'a> + Send + 'static,
{
    let fut = tok.spawn_cancellable(move |_, cancel| Ok(f(cancel)));
    crate::tokenizer::bridge(py, async move { fut.await.map_err(to_pyerr)? }, Vec::new())
}

/// The results in order, or `TrajectoryError` with them if any trajectory failed.
fn collect(groups: Vec<tj::GroupResult>) -> PyResult<Vec<TokenizedResult>> {
    let mut results = Vec::with_capacity(groups.iter().map(|g| g.results.len()).sum());
    let mut errors = Vec::new();
    for g in groups {
        results.extend(g.results.into_iter().map(Arc::new));
        errors.extend(g.errors);
    }
    if errors.is_empty() {
        Ok(results.into_iter().map(|r| TokenizedResult { r }).collect())
    } else {
        Err(trajectory_error(results, errors))
    }
}

// ---- errors -----------------------------------------------------------------------------

/// `TrajectoryError(message, results, errors)`, built lazily (no GIL needed here).
pub fn trajectory_error(results: Vec<Arc<tj::TokenizedResult>>, mut errors: Vec<tj::TrajectoryError>) -> PyErr {
    let key = |e: &tj::TrajectoryError| {
        let l = e.location;
        (l.group, l.trajectory, l.history, l.item)
    };
    errors.sort_by_key(key);
    let n = errors.len();
    let mut message = match n {
        1 => format!("{}", errors[0]),
        _ => format!("{n} trajectories failed; first: {}", errors[0]),
    };
    if !results.is_empty() {
        message.push_str(&format!(" (the {} other results are in .results)", results.len()));
    }
    PyErr::new::<TrajectoryError, _>(ErrorArgs { message, results, errors })
}

struct ErrorArgs {
    message: String,
    results: Vec<Arc<tj::TokenizedResult>>,
    errors: Vec<tj::TrajectoryError>,
}

impl<'py> IntoPyObject<'py> for ErrorArgs {
    type Target = PyTuple;
    type Output = Bound<'py, PyTuple>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let results = PyList::new(py, self.results.into_iter().map(|r| TokenizedResult { r }))?;
        let errors = PyList::new(py, self.errors.iter().map(TrajectoryFailure::from))?;
        PyTuple::new(py, [self.message.into_pyobject(py)?.into_any(), results.into_any(), errors.into_any()])
    }
}

/// One failed trajectory (or history): where, what, and the exception ART raises there.
#[pyclass(frozen, get_all, module = "yieldtok")]
pub struct TrajectoryFailure {
    /// Index of the group in the input (`None` when the whole input is at fault).
    group: Option<usize>,
    /// Index of the trajectory in its group.
    trajectory: Option<usize>,
    /// 0: the trajectory's `messages_and_choices`; k > 0: `additional_histories[k - 1]`.
    history: Option<usize>,
    /// Index in the history's `messages_and_choices`.
    item: Option<usize>,
    /// The core's error kind, a stable name (`invalid_input`, `missing_role`,
    /// `sentinel_not_found`, ...).
    kind: String,
    /// What went wrong (without the location).
    message: String,
    /// The exception type ART 0.5.18 raises in this situation (`None`: ART has none).
    art_exception: Option<&'static str>,
    /// Where, as text (`"group 0, trajectory 2, messages_and_choices, item 3"`).
    location: String,
}

impl From<&tj::TrajectoryError> for TrajectoryFailure {
    fn from(e: &tj::TrajectoryError) -> Self {
        let kind = e.kind.name().to_string();
        let l = e.location;
        TrajectoryFailure {
            group: l.group,
            trajectory: l.trajectory,
            history: l.history,
            item: l.item,
            kind,
            message: e.kind.to_string(),
            art_exception: e.kind.art_exception(),
            location: l.to_string(),
        }
    }
}

#[pymethods]
impl TrajectoryFailure {
    fn __str__(&self) -> String {
        format!("{}: {}", self.location, self.message)
    }

    fn __repr__(&self) -> String {
        format!("TrajectoryFailure({}, kind={:?}, message={:?})", self.location, self.kind, self.message)
    }
}
