//! Input model: OpenPipe ART's trajectory shapes as plain data, and their parsing from JSON
//! text/bytes or a `serde_json::Value`.
//!
//! * a group is a list of trajectories, or `{"trajectories": [...]}` (other keys ignored);
//! * a trajectory is `{"messages_and_choices": [...], "tools": [...] | null,
//!   "additional_histories": [{"messages_and_choices": [...], "tools": ...}], "reward": number}`
//!   (ART's defaults: `[]`, `null`, `[]`, `0.0`; a history's `messages_and_choices` is required);
//! * an item of `messages_and_choices` is a message dict (kept as given), or a **Choice**: any
//!   object with a `"message"` key and no `"role"` key (what ART only recognises as an
//!   `openai` `Choice` object). Of a Choice, ART uses `message.content`, `message.tool_calls`
//!   and `logprobs.content` / `logprobs.refusal` entries (`token`, `logprob`, `bytes`,
//!   `extra_logprobs`); everything else is dropped, as ART does;
//! * tools are normalised as pydantic validates them for ART (`ChatCompletionToolParam`):
//!   `{"function": {"name", "description", "parameters", "strict"}, "type": "function"}` in
//!   that key order, unknown keys dropped; Choice tool calls are dumped in the `openai` models'
//!   field order (`id`, `function: {arguments, name}`, `type`, then unknown keys).
//!
//! Validation errors do not abort a batch: a trajectory that fails validation is kept with
//! [`Trajectory::invalid`] set (naming the history and item), is reported when tokenized, and
//! takes no part in its group — like a failed rollout in ART's `TrajectoryGroup.exceptions`.
//! Only a document that is not JSON, or whose top level is not a list of groups, is an error
//! of the whole parse.
//!
//! Sampled tokens: `"token_id:<digits>"` entries are stored as ids without allocating; other
//! token strings are kept as text. Only the first entry's `bytes` of each list are kept (ART
//! reads no others; their contents are not validated).

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::error::{invalid, Result, TrajectoryError};

/// A trajectory group: the trajectories whose rewards are compared (GRPO).
#[derive(Debug, Clone, Default)]
pub struct TrajectoryGroup {
    pub trajectories: Vec<Trajectory>,
    /// Set when the group itself could not be read (not a list of trajectories, or a JSON
    /// Lines line whose structure is broken): it is reported with this error and has no
    /// trajectories; the other groups are kept.
    pub invalid: Option<TrajectoryError>,
}

impl TrajectoryGroup {
    /// A group that could not be read.
    pub fn failed(e: TrajectoryError) -> Self {
        TrajectoryGroup { trajectories: Vec::new(), invalid: Some(e) }
    }
}

/// One trajectory (ART's `Trajectory`, the fields tokenization reads).
#[derive(Debug, Clone, Default)]
pub struct Trajectory {
    pub messages_and_choices: Vec<Item>,
    /// Normalised tool schemas (a JSON array), or `None`.
    pub tools: Option<Value>,
    pub additional_histories: Vec<History>,
    pub reward: f64,
    /// Set when the trajectory failed validation: it is reported with this error and is not
    /// part of its group (its reward does not enter the group statistics).
    pub invalid: Option<TrajectoryError>,
}

impl Trajectory {
    /// A trajectory that failed validation (see [`Trajectory::invalid`]).
    pub fn failed(e: TrajectoryError) -> Self {
        Trajectory { invalid: Some(e), ..Default::default() }
    }
}

/// A history: messages and choices plus their own tools (not inherited from the trajectory).
#[derive(Debug, Clone, Default)]
pub struct History {
    pub messages_and_choices: Vec<Item>,
    pub tools: Option<Value>,
}

/// An item of `messages_and_choices`.
#[derive(Debug, Clone)]
pub enum Item {
    /// A message dict, exactly as given.
    Message(Map<String, Value>),
    /// A sampled completion.
    Choice(Box<Choice>),
}

/// What ART reads of an `openai` `Choice`.
#[derive(Debug, Clone, Default)]
pub struct Choice {
    /// `message.content`.
    pub content: Option<String>,
    /// `message.tool_calls`, dumped like `tool_call.model_dump(mode="json")`.
    pub tool_calls: Vec<Value>,
    /// `logprobs` (`None` = `null` or absent).
    pub logprobs: Option<ChoiceLogprobs>,
}

/// `Choice.logprobs`.
#[derive(Debug, Clone, Default)]
pub struct ChoiceLogprobs {
    pub content: Option<Vec<TokenLogprob>>,
    pub refusal: Option<Vec<TokenLogprob>>,
}

impl ChoiceLogprobs {
    /// ART's `logprobs.content or logprobs.refusal or []`.
    pub fn entries(&self) -> &[TokenLogprob] {
        match (&self.content, &self.refusal) {
            (Some(c), _) if !c.is_empty() => c,
            (_, Some(r)) if !r.is_empty() => r,
            _ => &[],
        }
    }
}

/// One sampled token. Kept small (32 bytes): a step's input holds hundreds of thousands of
/// them, and the fields most entries lack live behind one optional box.
#[derive(Debug, Clone)]
pub struct TokenLogprob {
    pub token: Token,
    pub logprob: f64,
    rare: Option<Box<RareFields>>,
}

/// The fields of a [`TokenLogprob`] that most entries lack.
#[derive(Debug, Clone, Default)]
struct RareFields {
    bytes: Option<Vec<i64>>,
    extra_logprobs: Option<Vec<(String, std::result::Result<f64, String>)>>,
}

/// A name → value list of `extra_logprobs` (a value `float()` cannot convert is kept as the
/// error message).
pub type ExtraLogprobs = Vec<(String, std::result::Result<f64, String>)>;

impl TokenLogprob {
    pub fn new(token: Token, logprob: f64, bytes: Option<Vec<i64>>, extra_logprobs: Option<ExtraLogprobs>) -> Self {
        let rare =
            (bytes.is_some() || extra_logprobs.is_some()).then(|| Box::new(RareFields { bytes, extra_logprobs }));
        TokenLogprob { token, logprob, rare }
    }

    /// `bytes` (kept for the first entry of a list only; `None` = `null`/absent/not kept).
    pub fn bytes(&self) -> Option<&[i64]> {
        self.rare.as_ref()?.bytes.as_deref()
    }

    /// `extra_logprobs` when it is an object: name → value (`null` → NaN).
    pub fn extra_logprobs(&self) -> Option<&[(String, std::result::Result<f64, String>)]> {
        self.rare.as_ref()?.extra_logprobs.as_deref()
    }
}

/// A sampled token as given in `token`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// Exactly `"token_id:<id>"` (decimal, no sign or leading zeros), the vLLM
    /// `return_tokens_as_token_ids` form.
    Id(u32),
    /// Any other string.
    Text(Box<str>),
}

impl Token {
    /// The token string as given.
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Token::Id(id) => format!("token_id:{id}").into(),
            Token::Text(s) => std::borrow::Cow::Borrowed(s),
        }
    }

    fn from_str(s: &str) -> Token {
        if let Some(d) = s.strip_prefix("token_id:") {
            if !d.is_empty()
                && d.len() <= 10
                && d.bytes().all(|b| b.is_ascii_digit())
                && (d == "0" || !d.starts_with('0'))
            {
                if let Ok(id) = d.parse::<u32>() {
                    return Token::Id(id);
                }
            }
        }
        Token::Text(s.into())
    }
}

impl Trajectory {
    /// The trajectory's own history (its `messages_and_choices` with its `tools`).
    pub fn history(&self) -> History {
        History { messages_and_choices: self.messages_and_choices.clone(), tools: self.tools.clone() }
    }
}

// ---------------------------------------------------------------------------------------------
// public parsing entry points

/// Parse a list of groups from JSON text. Trajectories are parsed in parallel (on the core's
/// pool). A document the one-pass parse rejects is read group by group and trajectory by
/// trajectory instead (`lenient`): a bad value fails only its own trajectory (or group),
/// named by line and column; `NaN`, `Infinity` and `-Infinity` are read as Python's
/// `json.loads` reads them. Only a document whose structure is broken is an error.
pub fn parse_groups(json: &[u8]) -> Result<Vec<TrajectoryGroup>> {
    let one_pass = std::str::from_utf8(json).ok().and_then(|text| serde_json::from_str::<Vec<GroupSplit>>(text).ok());
    let Some(top) = one_pass else { return super::lenient::parse_groups(json) };
    // one scan split the document into groups and their trajectories
    let members: Vec<std::result::Result<Vec<Raw>, String>> =
        top.into_iter().map(|g| g.0.map(|list| list.into_iter().map(Raw).collect())).collect();
    Ok(regroup(&members, |t| trajectory_from(*t)))
}

/// Groups from an already parsed JSON value (a list of groups).
pub fn groups_from_value(value: &Value) -> Result<Vec<TrajectoryGroup>> {
    let Value::Array(groups) = value else {
        return Err(invalid("expected a list of trajectory groups"));
    };
    let members: Vec<std::result::Result<Vec<Val>, String>> = groups.iter().map(|g| Val(g).group_members()).collect();
    Ok(regroup(&members, |t| trajectory_from(*t)))
}

/// Groups from their members (a group that is not a list of trajectories is invalid), the
/// trajectories parsed in parallel.
fn regroup<S: Sync>(
    members: &[std::result::Result<Vec<S>, String>],
    parse: impl Fn(&S) -> Trajectory + Sync + Send,
) -> Vec<TrajectoryGroup> {
    let all: Vec<&S> = members.iter().flat_map(|m| m.iter().flatten()).collect();
    let mut it = super::par_map(&all, |s| parse(s)).into_iter();
    members
        .iter()
        .map(|m| match m {
            Ok(list) => TrajectoryGroup { trajectories: it.by_ref().take(list.len()).collect(), invalid: None },
            Err(why) => TrajectoryGroup::failed(invalid(why.clone())),
        })
        .collect()
}

/// The error of a group that is neither a list of trajectories nor `{"trajectories": [...]}`.
pub(crate) fn group_shape_error() -> TrajectoryError {
    invalid(GROUP_SHAPE)
}

/// One group from JSON (a list of trajectories or `{"trajectories": [...]}`).
pub fn parse_group(json: &[u8]) -> Result<TrajectoryGroup> {
    let text =
        std::str::from_utf8(json).map_err(|e| invalid(format!("input is not UTF-8 (byte {})", e.valid_up_to())))?;
    let raw: &RawValue = serde_json::from_str(text).map_err(|e| invalid(e.to_string()).caused_by(e))?;
    let trajs = Raw(raw).group_members().map_err(invalid)?;
    Ok(TrajectoryGroup { trajectories: trajs.into_iter().map(trajectory_from).collect(), invalid: None })
}

/// Groups from JSON Lines: one group (a JSON list of trajectories) per non-blank line, the
/// lines parsed in parallel. A line that cannot be parsed in one pass is read trajectory by
/// trajectory (see [`parse_groups`]); a line whose structure is broken is an invalid group
/// naming its line. The other lines are kept.
pub fn parse_groups_jsonl(data: &[u8]) -> Result<Vec<TrajectoryGroup>> {
    let mut lines: Vec<(usize, &[u8])> = Vec::new();
    let mut start = 0;
    for piece in data.split(|&b| b == b'\n') {
        let trimmed = piece.trim_ascii();
        if !trimmed.is_empty() {
            let lead = piece.len() - piece.trim_ascii_start().len();
            lines.push((start + lead, trimmed));
        }
        start += piece.len() + 1;
    }
    Ok(super::par_map(&lines, |&(at, line)| {
        parse_group(line).unwrap_or_else(|_| super::lenient::parse_group(data, at, line))
    }))
}

/// One trajectory from the raw JSON of its value (see `lenient`).
pub(crate) fn trajectory_from_raw(raw: &RawValue) -> Trajectory {
    trajectory_from(Raw(raw))
}

/// One trajectory from JSON text. Validation problems are in [`Trajectory::invalid`].
pub fn parse_trajectory(json: &[u8]) -> Result<Trajectory> {
    let text =
        std::str::from_utf8(json).map_err(|e| invalid(format!("input is not UTF-8 (byte {})", e.valid_up_to())))?;
    let raw: &RawValue = serde_json::from_str(text).map_err(|e| invalid(e.to_string()).caused_by(e))?;
    Ok(trajectory_from(Raw(raw)))
}

/// One trajectory from a JSON value.
pub fn trajectory_from_value(value: &Value) -> Trajectory {
    trajectory_from(Val(value))
}

/// One history (`{"messages_and_choices": [...], "tools": ...}`) or, if `value` is a list, a
/// bare `messages_and_choices` list.
pub fn history_from_value(value: &Value) -> Result<History> {
    let (items, tools) = match value {
        Value::Array(_) => (Some(Val(value)), None),
        _ => {
            let fields = Val(value).fields().map_err(invalid)?;
            let get = |k: &str| fields.iter().find(|(n, _)| n == k).map(|(_, v)| *v);
            (get("messages_and_choices"), get("tools"))
        }
    };
    let items = items.ok_or_else(|| invalid("history: missing field `messages_and_choices`"))?;
    let (history, err) = history_from(items, tools, 0);
    match err {
        Some(e) => Err(e),
        None => Ok(history),
    }
}

/// One item from a JSON value (a message dict or a Choice dict).
pub fn item_from_value(value: &Value) -> Result<Item> {
    Item::deserialize(value).map_err(|e| invalid(e.to_string()).caused_by(e))
}

// ---------------------------------------------------------------------------------------------
// sources: borrowed raw JSON or a parsed value

trait Src: Copy {
    fn de<T: de::DeserializeOwned>(self) -> std::result::Result<T, String>;
    fn list(self) -> std::result::Result<Vec<Self>, String>;
    fn fields(self) -> std::result::Result<Vec<(String, Self)>, String>;
    fn is_null(self) -> bool;
    fn is_list(self) -> bool;
    fn item(self) -> std::result::Result<Item, String>;
    /// The whole trajectory in one typed pass; `None` on any problem (the caller then takes
    /// the field-by-field path that locates it).
    fn fast(self) -> Option<FastTrajectory>;
    /// The string this value is, if it is one.
    fn string(self) -> Option<String>;
    fn tools(self) -> std::result::Result<Option<Value>, String> {
        if self.is_null() {
            return Ok(None);
        }
        normalize_tools(self.de::<Value>()?).map(Some)
    }
    /// A group: a list of trajectories, or an object with `trajectories`.
    fn group_members(self) -> std::result::Result<Vec<Self>, String> {
        if self.is_list() {
            return self.list();
        }
        let fields = self.fields().map_err(|_| GROUP_SHAPE.to_string())?;
        match fields.into_iter().rev().find(|(k, _)| k == "trajectories") {
            Some((_, v)) => v.list().map_err(|e| format!("trajectories: {e}")),
            None => Err("trajectory group: missing field `trajectories`".into()),
        }
    }
}

#[derive(Clone, Copy)]
struct Raw<'a>(&'a RawValue);
#[derive(Clone, Copy)]
struct Val<'a>(&'a Value);

/// A serde_json error without its position (positions inside a fragment mislead; the
/// location is given as group/trajectory/history/item instead).
fn message(e: serde_json::Error) -> String {
    let s = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let s = s.strip_suffix(&suffix).map(str::to_string).unwrap_or(s);
    if e.is_syntax() {
        super::lenient::explain_escape(s)
    } else {
        s
    }
}

impl<'a> Src for Raw<'a> {
    fn de<T: de::DeserializeOwned>(self) -> std::result::Result<T, String> {
        serde_json::from_str(self.0.get()).map_err(message)
    }
    fn list(self) -> std::result::Result<Vec<Self>, String> {
        let v: Vec<&'a RawValue> =
            serde_json::from_str(self.0.get()).map_err(|_| format!("expected a list, got {}", kind_of_raw(self.0)))?;
        Ok(v.into_iter().map(Raw).collect())
    }
    fn fields(self) -> std::result::Result<Vec<(String, Self)>, String> {
        let v: Vec<(String, &'a RawValue)> = serde_json::from_str::<RawObject<'a>>(self.0.get())
            .map_err(|_| format!("expected an object, got {}", kind_of_raw(self.0)))?
            .0;
        Ok(v.into_iter().map(|(k, v)| (k, Raw(v))).collect())
    }
    fn is_null(self) -> bool {
        self.0.get() == "null"
    }
    fn is_list(self) -> bool {
        self.0.get().starts_with('[')
    }
    fn item(self) -> std::result::Result<Item, String> {
        // The streaming parse reads a Choice's `logprobs` typed as it goes, so with a key given
        // twice it judges the first value, where json.loads (and so ART) keeps the last. On
        // failure the item is read again as a value (later duplicates win) and that verdict
        // stands; only text that is not JSON keeps the streaming parse's error.
        serde_json::from_str(self.0.get()).or_else(|e| match serde_json::from_str::<Value>(self.0.get()) {
            Ok(value) => Val(&value).item(),
            Err(_) => Err(message(e)),
        })
    }
    fn fast(self) -> Option<FastTrajectory> {
        serde_json::from_str(self.0.get()).ok()
    }
    fn string(self) -> Option<String> {
        self.0.get().starts_with('"').then(|| serde_json::from_str(self.0.get()).ok()).flatten()
    }
}

impl<'a> Src for Val<'a> {
    fn de<T: de::DeserializeOwned>(self) -> std::result::Result<T, String> {
        T::deserialize(self.0).map_err(|e| e.to_string())
    }
    fn list(self) -> std::result::Result<Vec<Self>, String> {
        match self.0 {
            Value::Array(a) => Ok(a.iter().map(Val).collect()),
            other => Err(format!("expected a list, got {}", kind_of(other))),
        }
    }
    fn fields(self) -> std::result::Result<Vec<(String, Self)>, String> {
        match self.0 {
            Value::Object(m) => Ok(m.iter().map(|(k, v)| (k.clone(), Val(v))).collect()),
            other => Err(format!("expected an object, got {}", kind_of(other))),
        }
    }
    fn is_null(self) -> bool {
        self.0.is_null()
    }
    fn is_list(self) -> bool {
        self.0.is_array()
    }
    fn item(self) -> std::result::Result<Item, String> {
        Item::deserialize(self.0).map_err(|e| e.to_string())
    }
    fn fast(self) -> Option<FastTrajectory> {
        FastTrajectory::deserialize(self.0).ok()
    }
    fn string(self) -> Option<String> {
        self.0.as_str().map(str::to_string)
    }
}

/// A trajectory as one typed document (duplicate keys, a wrong type anywhere, ... fail it).
#[derive(Deserialize)]
struct FastTrajectory {
    #[serde(default)]
    messages_and_choices: Vec<Item>,
    #[serde(default)]
    tools: Option<Value>,
    #[serde(default)]
    additional_histories: Vec<FastHistory>,
    #[serde(default)]
    reward: Float,
}

#[derive(Deserialize)]
struct FastHistory {
    messages_and_choices: Vec<Item>,
    #[serde(default)]
    tools: Option<Value>,
}

impl FastTrajectory {
    fn finish(self) -> Option<Trajectory> {
        let tools = |t: Option<Value>| match t {
            None | Some(Value::Null) => Some(None),
            Some(v) => normalize_tools(v).ok().map(Some),
        };
        let mut additional_histories = Vec::with_capacity(self.additional_histories.len());
        for h in self.additional_histories {
            additional_histories.push(History { messages_and_choices: h.messages_and_choices, tools: tools(h.tools)? });
        }
        Some(Trajectory {
            messages_and_choices: self.messages_and_choices,
            tools: tools(self.tools)?,
            additional_histories,
            reward: self.reward.0,
            invalid: None,
        })
    }
}

const GROUP_SHAPE: &str = "a trajectory group must be a list of trajectories or {\"trajectories\": [...]}";

/// A group split into its trajectories' raw JSON, or why it cannot be.
struct GroupSplit<'a>(std::result::Result<Vec<&'a RawValue>, String>);

impl<'de: 'a, 'a> Deserialize<'de> for GroupSplit<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = GroupSplit<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(GROUP_SHAPE)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> std::result::Result<Self::Value, A::Error> {
                let mut out = Vec::with_capacity(a.size_hint().unwrap_or(8));
                while let Some(t) = a.next_element::<&'a RawValue>()? {
                    out.push(t);
                }
                Ok(GroupSplit(Ok(out)))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> std::result::Result<Self::Value, A::Error> {
                let mut found = None;
                while let Some(k) = a.next_key::<String>()? {
                    if k == "trajectories" {
                        let raw: &'a RawValue = a.next_value()?;
                        found = Some(
                            Raw(raw)
                                .list()
                                .map(|v| v.into_iter().map(|r| r.0).collect())
                                .map_err(|e| format!("trajectories: {e}")),
                        );
                    } else {
                        a.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(GroupSplit(found.unwrap_or_else(|| Err("trajectory group: missing field `trajectories`".into()))))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> std::result::Result<Self::Value, E> {
                Ok(GroupSplit(Err(GROUP_SHAPE.into())))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> std::result::Result<Self::Value, E> {
                Ok(GroupSplit(Err(GROUP_SHAPE.into())))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> std::result::Result<Self::Value, E> {
                Ok(GroupSplit(Err(GROUP_SHAPE.into())))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> std::result::Result<Self::Value, E> {
                Ok(GroupSplit(Err(GROUP_SHAPE.into())))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> std::result::Result<Self::Value, E> {
                Ok(GroupSplit(Err(GROUP_SHAPE.into())))
            }
            fn visit_unit<E: de::Error>(self) -> std::result::Result<Self::Value, E> {
                Ok(GroupSplit(Err(GROUP_SHAPE.into())))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A JSON object as (key, raw value) pairs in document order.
struct RawObject<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for RawObject<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = RawObject<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> std::result::Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(k) = a.next_key::<String>()? {
                    let v: &'a RawValue = a.next_value()?;
                    out.push((k, v));
                }
                Ok(RawObject(out))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

fn kind_of_raw(v: &RawValue) -> &'static str {
    match v.get().as_bytes().first() {
        Some(b'n') => "null",
        Some(b't' | b'f') => "a boolean",
        Some(b'"') => "a string",
        Some(b'[') => "a list",
        Some(b'{') => "an object",
        _ => "a number",
    }
}

fn trajectory_from<S: Src>(src: S) -> Trajectory {
    if let Some(t) = src.fast().and_then(FastTrajectory::finish) {
        return t;
    }
    if let Some(body) = src.string().as_deref().and_then(|s| s.strip_prefix(super::lenient::INVALID_MARKER)) {
        return Trajectory::failed(super::lenient::marker_error(body));
    }
    let mut t = Trajectory::default();
    let fail = |t: &mut Trajectory, e: TrajectoryError| {
        if t.invalid.is_none() {
            t.invalid = Some(e);
        }
    };
    let fields = match src.fields() {
        Ok(f) => f,
        Err(m) => {
            t.invalid = Some(invalid(format!("trajectory: {m}")));
            return t;
        }
    };
    // later duplicates win, like json.loads
    let get = |k: &str| fields.iter().rev().find(|(n, _)| n == k).map(|(_, v)| *v);
    if let Some(r) = get("reward") {
        match r.de::<Float>() {
            Ok(x) => t.reward = x.0,
            Err(e) => fail(&mut t, invalid(format!("reward: {e}"))),
        }
    }
    let own = match get("messages_and_choices") {
        Some(items) => {
            let (h, err) = history_from(items, get("tools"), 0);
            if let Some(e) = err {
                fail(&mut t, e);
            }
            h
        }
        None => {
            let (h, err) = history_from_parts(Ok(Vec::new()), get("tools"), 0);
            if let Some(e) = err {
                fail(&mut t, e);
            }
            h
        }
    };
    t.messages_and_choices = own.messages_and_choices;
    t.tools = own.tools;
    if let Some(hs) = get("additional_histories") {
        match hs.list() {
            Err(e) => fail(&mut t, invalid(format!("additional_histories: {e}"))),
            Ok(list) => {
                for (k, h) in list.into_iter().enumerate() {
                    let hi = k + 1;
                    let fields = match h.fields() {
                        Ok(f) => f,
                        Err(m) => {
                            fail(&mut t, invalid(format!("history: {m}")).at(|l| l.history = Some(hi)));
                            continue;
                        }
                    };
                    let get = |k: &str| fields.iter().rev().find(|(n, _)| n == k).map(|(_, v)| *v);
                    let (history, err) = match get("messages_and_choices") {
                        Some(items) => history_from(items, get("tools"), hi),
                        None => (
                            History::default(),
                            Some(invalid("history: missing field `messages_and_choices`").at(|l| l.history = Some(hi))),
                        ),
                    };
                    if let Some(e) = err {
                        fail(&mut t, e);
                    }
                    t.additional_histories.push(history);
                }
            }
        }
    }
    t
}

fn history_from<S: Src>(items: S, tools: Option<S>, hi: usize) -> (History, Option<TrajectoryError>) {
    let list = items.list().map_err(|e| invalid(format!("messages_and_choices: {e}")).at(|l| l.history = Some(hi)));
    history_from_parts(list, tools, hi)
}

fn history_from_parts<S: Src>(list: Result<Vec<S>>, tools: Option<S>, hi: usize) -> (History, Option<TrajectoryError>) {
    let mut h = History::default();
    let mut err = None;
    match list {
        Err(e) => err = Some(e),
        Ok(list) => {
            h.messages_and_choices.reserve(list.len());
            for (i, it) in list.into_iter().enumerate() {
                match it.item() {
                    Ok(item) => h.messages_and_choices.push(item),
                    Err(m) => {
                        if err.is_none() {
                            err = Some(invalid(m).at(|l| {
                                l.history = Some(hi);
                                l.item = Some(i);
                            }));
                        }
                    }
                }
            }
        }
    }
    if let Some(tools) = tools {
        match tools.tools() {
            Ok(t) => h.tools = t,
            Err(m) => {
                if err.is_none() {
                    err = Some(invalid(format!("tools: {m}")).at(|l| l.history = Some(hi)));
                }
            }
        }
    }
    (h, err)
}

// ---------------------------------------------------------------------------------------------
// pydantic normalisation of tools and tool calls

/// Tools as pydantic validates `list[ChatCompletionToolParam]` (a function tool TypedDict).
pub fn normalize_tools(tools: Value) -> std::result::Result<Value, String> {
    let Value::Array(list) = tools else { return Err(format!("expected a list of tools, got {}", kind_of(&tools))) };
    let mut out = Vec::with_capacity(list.len());
    for (i, tool) in list.into_iter().enumerate() {
        out.push(normalize_tool(tool).map_err(|e| format!("tools[{i}]: {e}"))?);
    }
    Ok(Value::Array(out))
}

fn normalize_tool(tool: Value) -> std::result::Result<Value, String> {
    let Value::Object(mut t) = tool else { return Err(format!("expected an object, got {}", kind_of(&tool))) };
    match t.get("type") {
        Some(Value::String(s)) if s == "function" => {}
        Some(other) => return Err(format!("`type` must be 'function', got {other}")),
        None => return Err("missing field `type`".into()),
    }
    let Some(Value::Object(mut f)) = t.remove("function") else {
        return Err("`function` is missing or not an object".into());
    };
    let mut nf = Map::new();
    match f.remove("name") {
        Some(Value::String(s)) => nf.insert("name".into(), Value::String(s)),
        Some(_) => return Err("function.name must be a string".into()),
        None => return Err("missing field `function.name`".into()),
    };
    if let Some(d) = f.remove("description") {
        if !d.is_string() {
            return Err("function.description must be a string".into());
        }
        nf.insert("description".into(), d);
    }
    if let Some(p) = f.remove("parameters") {
        if !p.is_object() {
            return Err("function.parameters must be an object".into());
        }
        nf.insert("parameters".into(), p);
    }
    if let Some(s) = f.remove("strict") {
        if !(s.is_boolean() || s.is_null()) {
            return Err("function.strict must be a boolean or null".into());
        }
        nf.insert("strict".into(), s);
    }
    let mut out = Map::new();
    out.insert("function".into(), Value::Object(nf));
    out.insert("type".into(), Value::String("function".into()));
    Ok(Value::Object(out))
}

/// A Choice tool call as `model_dump(mode="json")` of `ChatCompletionMessageFunctionToolCall`
/// (or the custom-tool model): declared fields in order, then unknown keys.
fn dump_tool_call(tc: Value) -> std::result::Result<Value, String> {
    let Value::Object(mut m) = tc else { return Err(format!("a tool call must be an object, got {}", kind_of(&tc))) };
    let (inner_key, inner_fields): (&str, [&str; 2]) = match m.get("type").and_then(Value::as_str) {
        Some("function") => ("function", ["arguments", "name"]),
        Some("custom") => ("custom", ["input", "name"]),
        _ => return Err("a tool call needs `type` 'function' or 'custom'".into()),
    };
    let mut out = Map::new();
    match m.remove("id") {
        Some(Value::String(s)) => out.insert("id".into(), Value::String(s)),
        _ => return Err("a tool call needs a string `id`".into()),
    };
    let Some(Value::Object(mut inner)) = m.remove(inner_key) else {
        return Err(format!("a tool call needs an object `{inner_key}`"));
    };
    let mut ni = Map::new();
    for k in inner_fields {
        match inner.remove(k) {
            Some(Value::String(s)) => ni.insert(k.into(), Value::String(s)),
            _ => return Err(format!("tool call `{inner_key}.{k}` must be a string")),
        };
    }
    ni.extend(inner);
    out.insert(inner_key.into(), Value::Object(ni));
    out.insert("type".into(), m.remove("type").expect("checked"));
    out.extend(m);
    Ok(Value::Object(out))
}

// ---------------------------------------------------------------------------------------------
// what the parser reads of an item: for front ends that write trajectories as JSON from their
// own objects (the Python binding), which may leave out what would only be skipped

/// Whether an item with these keys is a Choice (it has `message` and no `role`); anything else
/// is a message, kept whole.
pub fn is_choice(has_message: bool, has_role: bool) -> bool {
    has_message && !has_role
}

/// Whether the parser reads `key` of a Choice's `logprobs` object.
pub fn choice_logprobs_key_read(key: &str) -> bool {
    matches!(key, "content" | "refusal")
}

/// Whether the parser reads `key` of the `index`-th entry of a Choice's `logprobs.content` (or
/// `.refusal`): `token`, `logprob`, `extra_logprobs`, and `bytes` of the first entry only (for
/// the `<think>` check). `top_logprobs` and the rest are skipped.
pub fn logprob_entry_key_read(index: usize, key: &str) -> bool {
    matches!(key, "token" | "logprob" | "extra_logprobs") || (key == "bytes" && index == 0)
}

// ---------------------------------------------------------------------------------------------
// items

impl<'de> Deserialize<'de> for Item {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_map(ItemVisitor)
    }
}

struct ItemVisitor;

impl<'de> Visitor<'de> for ItemVisitor {
    type Value = Item;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a message or Choice object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> std::result::Result<Item, A::Error> {
        let mut map = Map::new();
        // `logprobs` is parsed typed (fast) unless a `role` came first (then it is a message)
        let mut typed: Option<Option<ChoiceLogprobs>> = None;
        let mut seen_role = false;
        while let Some(key) = a.next_key::<String>()? {
            if key == "logprobs" && !seen_role {
                typed = Some(a.next_value::<Option<ChoiceLogprobs>>()?);
                map.shift_remove("logprobs");
            } else {
                if key == "role" {
                    seen_role = true;
                }
                let v: Value = a.next_value()?;
                map.insert(key, v);
            }
        }
        if !is_choice(map.contains_key("message"), map.contains_key("role")) {
            if let Some(lp) = typed {
                map.insert("logprobs".into(), lp.map(|l| l.to_value()).unwrap_or(Value::Null));
            }
            return Ok(Item::Message(map));
        }
        let logprobs = match typed {
            Some(lp) => lp,
            None => match map.remove("logprobs") {
                None | Some(Value::Null) => None,
                Some(v) => Some(ChoiceLogprobs::deserialize(&v).map_err(de::Error::custom)?),
            },
        };
        let message = map.remove("message").expect("checked");
        let Value::Object(mut msg) = message else {
            return Err(de::Error::custom(format!("Choice.message must be an object, got {}", kind_of(&message))));
        };
        let content = match msg.remove("content") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s),
            Some(other) => {
                return Err(de::Error::custom(format!(
                    "Choice.message.content must be a string or null, got {}",
                    kind_of(&other)
                )))
            }
        };
        let tool_calls = match msg.remove("tool_calls") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(list)) => list
                .into_iter()
                .map(dump_tool_call)
                .collect::<std::result::Result<_, _>>()
                .map_err(de::Error::custom)?,
            Some(other) => {
                return Err(de::Error::custom(format!(
                    "Choice.message.tool_calls must be a list, got {}",
                    kind_of(&other)
                )))
            }
        };
        Ok(Item::Choice(Box::new(Choice { content, tool_calls, logprobs })))
    }
}

impl ChoiceLogprobs {
    fn to_value(&self) -> Value {
        let list = |l: &Option<Vec<TokenLogprob>>| match l {
            None => Value::Null,
            Some(v) => Value::Array(
                v.iter()
                    .map(|e| {
                        let mut m = Map::new();
                        m.insert("token".into(), Value::String(e.token.text().into_owned()));
                        m.insert(
                            "logprob".into(),
                            serde_json::Number::from_f64(e.logprob).map(Value::Number).unwrap_or(Value::Null),
                        );
                        m.insert("bytes".into(), e.bytes().map(|b| Value::from(b.to_vec())).unwrap_or(Value::Null));
                        m
                    })
                    .map(Value::Object)
                    .collect(),
            ),
        };
        let mut m = Map::new();
        m.insert("content".into(), list(&self.content));
        m.insert("refusal".into(), list(&self.refusal));
        Value::Object(m)
    }
}

impl<'de> Deserialize<'de> for ChoiceLogprobs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ChoiceLogprobs;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a logprobs object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> std::result::Result<ChoiceLogprobs, A::Error> {
                let mut out = ChoiceLogprobs::default();
                while let Some(key) = a.next_key::<KeyName>()? {
                    match key.0 {
                        Some("content") => out.content = a.next_value_seed(EntriesSeed)?,
                        Some("refusal") => out.refusal = a.next_value_seed(EntriesSeed)?,
                        _ => {
                            a.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(out)
            }
        }
        d.deserialize_map(V)
    }
}

/// A map key, kept only when it is one we look at (no allocation otherwise).
struct KeyName(Option<&'static str>);

const KNOWN_KEYS: [&str; 6] = ["content", "refusal", "token", "logprob", "bytes", "extra_logprobs"];

impl<'de> Deserialize<'de> for KeyName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = KeyName;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<KeyName, E> {
                Ok(KeyName(KNOWN_KEYS.iter().find(|k| **k == s).copied()))
            }
        }
        d.deserialize_str(V)
    }
}

/// `null` or a list of entries; only the first entry keeps its `bytes`.
struct EntriesSeed;

impl<'de> DeserializeSeed<'de> for EntriesSeed {
    type Value = Option<Vec<TokenLogprob>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Self::Value, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Option<Vec<TokenLogprob>>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("null or a list of token logprobs")
            }
            fn visit_unit<E: de::Error>(self) -> std::result::Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_none<E: de::Error>(self) -> std::result::Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Self::Value, D::Error> {
                d.deserialize_any(V)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> std::result::Result<Self::Value, A::Error> {
                let mut out = Vec::with_capacity(a.size_hint().unwrap_or(16));
                while let Some(e) =
                    a.next_element_seed(EntrySeed { keep_bytes: logprob_entry_key_read(out.len(), "bytes") })?
                {
                    out.push(e);
                }
                out.shrink_to_fit();
                Ok(Some(out))
            }
        }
        d.deserialize_option(V)
    }
}

struct EntrySeed {
    keep_bytes: bool,
}

impl<'de> DeserializeSeed<'de> for EntrySeed {
    type Value = TokenLogprob;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<TokenLogprob, D::Error> {
        struct V {
            keep_bytes: bool,
        }
        impl<'de> Visitor<'de> for V {
            type Value = TokenLogprob;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a token logprob object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> std::result::Result<TokenLogprob, A::Error> {
                let mut token = None;
                let mut logprob = None;
                let mut bytes = None;
                let mut extra = None;
                while let Some(key) = a.next_key::<KeyName>()? {
                    match key.0 {
                        Some("token") => token = Some(a.next_value::<TokenField>()?.0),
                        Some("logprob") => logprob = Some(a.next_value::<Float>()?.0),
                        Some("bytes") if self.keep_bytes => bytes = a.next_value::<Option<Vec<i64>>>()?,
                        Some("extra_logprobs") => extra = extra_logprobs(a.next_value::<Value>()?),
                        _ => {
                            a.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(TokenLogprob::new(
                    token.ok_or_else(|| de::Error::missing_field("token"))?,
                    logprob.ok_or_else(|| de::Error::missing_field("logprob"))?,
                    bytes,
                    extra,
                ))
            }
        }
        d.deserialize_map(V { keep_bytes: self.keep_bytes })
    }
}

/// A JSON number, or a non-finite float's marker string (see `lenient`).
#[derive(Default)]
struct Float(f64);

impl<'de> Deserialize<'de> for Float {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Float;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number")
            }
            fn visit_f64<E: de::Error>(self, x: f64) -> std::result::Result<Float, E> {
                Ok(Float(x))
            }
            fn visit_i64<E: de::Error>(self, x: i64) -> std::result::Result<Float, E> {
                Ok(Float(x as f64))
            }
            fn visit_u64<E: de::Error>(self, x: u64) -> std::result::Result<Float, E> {
                Ok(Float(x as f64))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<Float, E> {
                super::lenient::marker_value(s).map(Float).ok_or_else(|| E::invalid_type(de::Unexpected::Str(s), &self))
            }
        }
        d.deserialize_any(V)
    }
}

struct TokenField(Token);

impl<'de> Deserialize<'de> for TokenField {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = TokenField;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a token string")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<TokenField, E> {
                Ok(TokenField(Token::from_str(s)))
            }
        }
        d.deserialize_str(V)
    }
}

/// `extra_logprobs` when it is an object (ART ignores anything else).
fn extra_logprobs(v: Value) -> Option<Vec<(String, std::result::Result<f64, String>)>> {
    let Value::Object(m) = v else { return None };
    Some(m.into_iter().map(|(k, v)| (k, py_float(&v))).collect())
}

/// Python's `float(value)` for a JSON value (`None` → NaN, as ART maps it).
fn py_float(v: &Value) -> std::result::Result<f64, String> {
    match v {
        Value::Null => Ok(f64::NAN),
        Value::Bool(b) => Ok(if *b { 1.0 } else { 0.0 }),
        Value::Number(n) => n.as_f64().ok_or_else(|| format!("cannot convert {n} to float")),
        Value::String(s) if super::lenient::marker_value(s).is_some() => {
            Ok(super::lenient::marker_value(s).expect("checked"))
        }
        Value::String(s) => {
            let t = s.trim();
            let lower = t.to_ascii_lowercase();
            let body = lower.trim_start_matches(['+', '-']);
            let neg = lower.starts_with('-');
            let special = match body {
                "nan" => Some(f64::NAN),
                "inf" | "infinity" => Some(if neg { f64::NEG_INFINITY } else { f64::INFINITY }),
                _ => None,
            };
            if let Some(x) = special {
                if lower.len() - body.len() <= 1 {
                    return Ok(x);
                }
            }
            let digits_ok =
                !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'));
            match t.parse::<f64>() {
                Ok(x) if digits_ok => Ok(x),
                _ => Err(format!("could not convert string to float: {s:?}")),
            }
        }
        other => Err(format!("float() argument must be a string or a real number, not {}", kind_of(other))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tokens_are_parsed_without_allocation_when_canonical() {
        assert_eq!(Token::from_str("token_id:123"), Token::Id(123));
        assert_eq!(Token::from_str("token_id:0"), Token::Id(0));
        assert_eq!(Token::from_str("token_id:0123"), Token::Text("token_id:0123".into()));
        assert_eq!(Token::from_str("token_id:99999999999"), Token::Text("token_id:99999999999".into()));
        assert_eq!(Token::from_str("Ġhello"), Token::Text("Ġhello".into()));
        assert_eq!(Token::Id(7).text(), "token_id:7");
    }

    #[test]
    fn choices_and_messages_are_told_apart() {
        let items = json!([
            {"role": "user", "content": "hi", "x": null},
            {"finish_reason": "stop", "index": 0,
             "logprobs": {"content": [{"token": "token_id:5", "logprob": -1.5, "bytes": [60, 116], "top_logprobs": []},
                                      {"token": "b", "logprob": -0.5, "bytes": [98], "extra_logprobs": {"k": null, "j": 2}}]},
             "message": {"role": "assistant", "content": null, "refusal": null,
                         "tool_calls": [{"type": "function", "zz": 1, "function": {"name": "f", "arguments": "{}", "q": 2}, "id": "x"}]}},
            {"message": {"content": "c"}},
        ]);
        let h = history_from_value(&items).unwrap();
        assert!(matches!(&h.messages_and_choices[0], Item::Message(m) if m.len() == 3));
        let Item::Choice(c) = &h.messages_and_choices[1] else { panic!() };
        assert_eq!(c.content, None);
        assert_eq!(
            serde_json::to_string(&c.tool_calls[0]).unwrap(),
            r#"{"id":"x","function":{"arguments":"{}","name":"f","q":2},"type":"function","zz":1}"#
        );
        let e = c.logprobs.as_ref().unwrap().entries();
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].token, Token::Id(5));
        assert_eq!(e[0].bytes(), Some(&[60i64, 116][..]));
        assert_eq!(e[1].bytes(), None, "only the first entry keeps bytes");
        assert_eq!(std::mem::size_of::<TokenLogprob>(), 32);
        let x = e[1].extra_logprobs().unwrap();
        assert_eq!(x[0].0, "k");
        assert!(x[0].1.as_ref().unwrap().is_nan());
        assert_eq!(x[1].1, Ok(2.0));
        let Item::Choice(c) = &h.messages_and_choices[2] else { panic!() };
        assert!(c.logprobs.is_none());
        assert_eq!(c.content.as_deref(), Some("c"));
    }

    #[test]
    fn tools_are_normalized_like_pydantic() {
        let t = normalize_tools(json!([{"type": "function", "x": 1, "function": {"strict": null, "parameters": {"b": 1, "a": 2}, "y": 3, "description": "d", "name": "n"}}])).unwrap();
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            r#"[{"function":{"name":"n","description":"d","parameters":{"b":1,"a":2},"strict":null},"type":"function"}]"#
        );
        assert!(normalize_tools(json!([{"function": {"name": "n"}}])).is_err());
        assert!(normalize_tools(json!([{"type": "function", "function": {"name": "n", "description": 5}}])).is_err());
    }

    #[test]
    fn bytes_and_value_paths_agree_and_errors_stay_local() {
        let doc = json!([
            [{"messages_and_choices": [{"role": "user", "content": "a"}], "reward": 1},
             {"messages_and_choices": [{"message": {"content": "x"}, "logprobs": {"content": [{"logprob": 1.0}]}}], "reward": 2.0},
             {"messages_and_choices": [], "tools": [{"type": "nope"}]}],
            {"trajectories": [{"reward": 3, "additional_histories": [{"messages_and_choices": [{"role": "user", "content": "h"}], "tools": null}]}]},
        ]);
        let text = serde_json::to_vec(&doc).unwrap();
        for groups in [parse_groups(&text).unwrap(), groups_from_value(&doc).unwrap()] {
            assert_eq!(groups.len(), 2);
            let g0 = &groups[0].trajectories;
            assert!(g0[0].invalid.is_none());
            assert_eq!(g0[0].reward, 1.0);
            let e = g0[1].invalid.as_ref().unwrap();
            assert_eq!(e.location.item, Some(0));
            assert!(e.to_string().contains("token"), "{e}");
            assert!(g0[2].invalid.as_ref().unwrap().to_string().contains("tools"));
            let t = &groups[1].trajectories[0];
            assert_eq!(t.reward, 3.0);
            assert_eq!(t.additional_histories.len(), 1);
        }
        assert!(parse_groups(b"{").is_err());
        assert!(parse_groups(b"{}").is_err());
    }

    #[test]
    fn a_key_given_twice_keeps_its_last_value_on_both_paths() {
        // json.loads keeps the last of duplicate keys; the streaming parse read the first
        // `logprobs` typed and failed the trajectory on it (found by fuzz/trajectory_parse).
        let text = br#"[[{"messages_and_choices": [{"role": "user", "content": "u"},
            {"finish_reason": "stop", "logprobs": {"content": "a"}, "logprobs": null},
            {"message": {"content": "c"}, "logprobs": {"content": 5}, "logprobs": {"content": [{"token": "b", "logprob": -0.5}]}}],
            "reward": 1.0}]]"#;
        let value: Value = serde_json::from_slice(text).unwrap();
        let (a, b) = (parse_groups(text).unwrap(), groups_from_value(&value).unwrap());
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
        let t = &a[0].trajectories[0];
        assert!(t.invalid.is_none(), "{:?}", t.invalid);
        let Item::Choice(c) = &t.messages_and_choices[2] else { panic!("a Choice") };
        assert_eq!(c.logprobs.as_ref().unwrap().entries().len(), 1);
    }

    #[test]
    fn py_float_rules() {
        assert_eq!(py_float(&json!("1.5")), Ok(1.5));
        assert!(py_float(&json!(" nan ")).unwrap().is_nan());
        assert_eq!(py_float(&json!("-inf")), Ok(f64::NEG_INFINITY));
        assert!(py_float(&json!("x")).is_err());
        assert!(py_float(&json!([1])).is_err());
        assert_eq!(py_float(&json!(true)), Ok(1.0));
    }
}

#[cfg(test)]
mod read_rules {
    use super::*;
    use serde_json::json;

    /// A Choice's JSON without what the parser skips, by the public rules.
    fn prune(item: &Value) -> Value {
        let mut item = item.clone();
        let Value::Object(m) = &mut item else { return item };
        if !is_choice(m.contains_key("message"), m.contains_key("role")) {
            return item;
        }
        if let Some(Value::Object(lp)) = m.get_mut("logprobs") {
            lp.retain(|k, _| choice_logprobs_key_read(k));
            for list in lp.values_mut() {
                if let Value::Array(entries) = list {
                    for (i, e) in entries.iter_mut().enumerate() {
                        if let Value::Object(e) = e {
                            e.retain(|k, _| logprob_entry_key_read(i, k));
                        }
                    }
                }
            }
        }
        item
    }

    #[test]
    fn what_the_rules_leave_out_changes_nothing() {
        let items = json!([
            {"role": "user", "content": "hi", "logprobs": {"content": [{"token": "a", "logprob": -1.0, "bytes": [97], "top_logprobs": []}], "z": 1}},
            {"finish_reason": "stop", "index": 0, "message": {"role": "assistant", "content": "ab"},
             "logprobs": {"z": [1, 2], "content": [
                 {"top_logprobs": [{"token": "q", "logprob": -3.0}], "token": "token_id:5", "logprob": -1.5, "bytes": [60, 116], "other": 1},
                 {"token": "b", "logprob": -0.5, "bytes": [98], "extra_logprobs": {"k": null, "j": 2}, "top_logprobs": []}],
                 "refusal": [{"token": "r", "logprob": -0.1, "bytes": [114], "top_logprobs": []}, {"token": "s", "logprob": -0.2, "bytes": [115]}]}},
            {"message": {"content": "c"}, "logprobs": null},
        ]);
        let pruned = Value::Array(items.as_array().unwrap().iter().map(prune).collect());
        assert_ne!(pruned, items, "the example has something to leave out");
        let a = format!("{:?}", history_from_value(&items).unwrap().messages_and_choices);
        let b = format!("{:?}", history_from_value(&pruned).unwrap().messages_and_choices);
        assert_eq!(a, b);
    }
}
