//! What ART hands to the chat template for one history (`_messages_for_chat_template`,
//! `_normalize_tools_for_chat_template`, `_chat_template_kwargs` and the sentinel "token
//! template"), as JSON values for [`crate::chat_template`]:
//!
//! * a Choice becomes `{"role": "assistant", "content": content or "", "tool_calls": [...]}`
//!   (`tool_calls` only when there are some); a message dict is copied with `content: null` (or
//!   no `content`) turned into `""`;
//! * the final item, when it is a Choice with logprobs and tool calls, becomes
//!   `{"role": "assistant", "content": content}` (its tool calls are in its sampled ids);
//! * with a template containing `tool_call.arguments|items`, tool-call `arguments` are parsed
//!   from JSON strings into objects;
//! * kwargs: `enable_thinking=False` / `preserve_thinking=True` when the template mentions
//!   them, then the caller's `chat_template_kwargs`;
//! * the token template replaces each trainable message by `{"role": "assistant", "content":
//!   <sentinel>}`, keeping its `tool_calls`.

use serde_json::{Map, Value};

use super::error::{Result, TrajectoryError, TrajectoryErrorKind};
use super::input::Item;

/// How tool schemas are laid out for the template (ART's `chat_template_tool_schema_format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolSchemaFormat {
    /// As pydantic leaves them: `{"function": {...}, "type": "function"}`.
    #[default]
    Default,
    /// vLLM's OpenAI server layout: `{"type": "function", "function": {...}}`.
    VllmOpenai,
}

impl std::str::FromStr for ToolSchemaFormat {
    type Err = String;
    /// ART's names: `"default"` or `"vllm_openai"`.
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "default" => Ok(ToolSchemaFormat::Default),
            "vllm_openai" => Ok(ToolSchemaFormat::VllmOpenai),
            other => Err(format!("the tool schema format must be \"default\" or \"vllm_openai\", not {other:?}")),
        }
    }
}

/// Python truthiness of a JSON value.
pub(crate) fn py_truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|x| x != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// The template variables ART adds for a template source, overridden by the caller's.
pub(crate) fn template_kwargs(source: &str, user: Option<&Map<String, Value>>) -> Map<String, Value> {
    let mut kw = Map::new();
    if source.contains("enable_thinking") {
        kw.insert("enable_thinking".into(), Value::Bool(false));
    }
    if source.contains("preserve_thinking") {
        kw.insert("preserve_thinking".into(), Value::Bool(true));
    }
    if let Some(user) = user {
        for (k, v) in user {
            kw.insert(k.clone(), v.clone());
        }
    }
    kw
}

/// Tools as handed to the template.
pub(crate) fn template_tools(tools: Option<&Value>, format: ToolSchemaFormat) -> Option<Value> {
    let tools = tools?;
    match format {
        ToolSchemaFormat::Default => Some(tools.clone()),
        ToolSchemaFormat::VllmOpenai => {
            let Value::Array(list) = tools else { return Some(tools.clone()) };
            Some(Value::Array(list.iter().map(vllm_openai_tool).collect()))
        }
    }
}

fn vllm_openai_tool(tool: &Value) -> Value {
    let Value::Object(t) = tool else { return tool.clone() };
    if t.get("type").and_then(Value::as_str) != Some("function") {
        return tool.clone();
    }
    let Some(Value::Object(f)) = t.get("function") else { return tool.clone() };
    let mut nf = Map::new();
    for k in ["name", "description", "parameters", "strict"] {
        if let Some(v) = f.get(k) {
            nf.insert(k.into(), v.clone());
        }
    }
    for (k, v) in f {
        if !nf.contains_key(k) {
            nf.insert(k.clone(), v.clone());
        }
    }
    let mut out = Map::new();
    out.insert("type".into(), Value::String("function".into()));
    out.insert("function".into(), Value::Object(nf));
    for (k, v) in t {
        if !out.contains_key(k) {
            out.insert(k.clone(), v.clone());
        }
    }
    Value::Object(out)
}

/// `get_messages` plus ART's two fixes, for the history cut after its last trainable item.
pub(crate) fn chat_messages(items: &[Item], parse_tool_call_arguments: bool) -> Result<Vec<Value>> {
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        out.push(match item {
            Item::Choice(c) => {
                let mut m = Map::new();
                m.insert("role".into(), Value::String("assistant".into()));
                m.insert("content".into(), Value::String(c.content.clone().unwrap_or_default()));
                if !c.tool_calls.is_empty() {
                    m.insert("tool_calls".into(), Value::Array(c.tool_calls.clone()));
                }
                Value::Object(m)
            }
            Item::Message(m) => {
                let mut m = m.clone();
                if m.get("content").is_none_or(Value::is_null) {
                    m.insert("content".into(), Value::String(String::new()));
                }
                Value::Object(m)
            }
        });
    }
    if let (Some(Item::Choice(c)), Some(Value::Object(last))) = (items.last(), out.last_mut()) {
        if c.logprobs.is_some()
            && last.get("role").and_then(Value::as_str) == Some("assistant")
            && last.get("tool_calls").is_some_and(py_truthy)
        {
            let content = match last.get("content") {
                Some(v) if py_truthy(v) => v.clone(),
                _ => Value::String(String::new()),
            };
            let mut m = Map::new();
            m.insert("role".into(), Value::String("assistant".into()));
            m.insert("content".into(), content);
            *last = m;
        }
    }
    if parse_tool_call_arguments {
        for (i, m) in out.iter_mut().enumerate() {
            parse_arguments(m).map_err(|e| e.at(|l| l.item = Some(i)))?;
        }
    }
    Ok(out)
}

/// `_normalize_tool_call_arguments_for_chat_template` for one message.
fn parse_arguments(message: &mut Value) -> Result<()> {
    let bad = |m: String| TrajectoryError::new(TrajectoryErrorKind::InvalidInput(m));
    let Some(calls) = message.get_mut("tool_calls") else { return Ok(()) };
    if calls.is_null() {
        return Ok(());
    }
    let Value::Array(calls) = calls else { return Err(bad("tool_calls must be a list (AssertionError)".into())) };
    for call in calls {
        let Value::Object(call) = call else { return Err(bad("a tool call must be a dict (AssertionError)".into())) };
        let Some(function) = call.get_mut("function") else {
            return Err(bad("tool call without 'function' (KeyError)".into()));
        };
        let Value::Object(function) = function else {
            return Err(bad("tool call 'function' must be a dict (AssertionError)".into()));
        };
        let Some(args) = function.get_mut("arguments") else {
            return Err(bad("tool call without 'arguments' (KeyError)".into()));
        };
        let Value::String(text) = args else {
            return Err(bad("tool call 'arguments' must be a str (AssertionError)".into()));
        };
        let parsed: Value =
            serde_json::from_str(text).map_err(|e| bad(format!("tool call arguments are not JSON: {e}")))?;
        if !parsed.is_object() {
            return Err(bad("tool call arguments must decode to a dict (AssertionError)".into()));
        }
        *args = parsed;
    }
    Ok(())
}

/// Whether ART renders this item with the sentinel (and splices it).
pub(crate) fn is_sentinel_item(item: &Item, allow_training_without_logprobs: bool) -> bool {
    match item {
        Item::Choice(c) => c.logprobs.is_some(),
        Item::Message(m) => {
            allow_training_without_logprobs && m.get("role").and_then(Value::as_str) == Some("assistant")
        }
    }
}

/// The token template: every sentinel item replaced by `{"role": "assistant", "content":
/// sentinel}` (+ its `tool_calls` when truthy).
pub(crate) fn token_template_messages(items: &[Item], messages: Vec<Value>, sentinel: &str, allow: bool) -> Vec<Value> {
    items
        .iter()
        .zip(messages)
        .map(|(item, message)| {
            if !is_sentinel_item(item, allow) {
                return message;
            }
            let mut m = Map::new();
            m.insert("role".into(), Value::String("assistant".into()));
            m.insert("content".into(), Value::String(sentinel.to_string()));
            if let Some(tc) = message.get("tool_calls").filter(|v| py_truthy(v)) {
                m.insert("tool_calls".into(), tc.clone());
            }
            Value::Object(m)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trajectory::input::history_from_value;
    use serde_json::json;

    #[test]
    fn choices_dicts_and_the_final_tool_calling_choice() {
        let h = history_from_value(&json!([
            {"role": "user"},
            {"role": "assistant", "content": null, "tool_calls": null, "x": 1},
            {"message": {"content": "a", "tool_calls": [{"id": "1", "type": "function", "function": {"name": "f", "arguments": "{\"a\": 1}"}}]}, "logprobs": {"content": []}},
            {"message": {"content": null, "tool_calls": [{"id": "2", "type": "function", "function": {"name": "g", "arguments": "{}"}}]}, "logprobs": {"content": []}},
        ]))
        .unwrap();
        let m = chat_messages(&h.messages_and_choices, false).unwrap();
        assert_eq!(m[0], json!({"role": "user", "content": ""}));
        assert_eq!(
            serde_json::to_string(&m[1]).unwrap(),
            r#"{"role":"assistant","content":"","tool_calls":null,"x":1}"#
        );
        assert_eq!(m[2]["tool_calls"][0]["function"]["arguments"], "{\"a\": 1}");
        assert_eq!(m[3], json!({"role": "assistant", "content": ""}));
        let parsed = chat_messages(&h.messages_and_choices, true).unwrap();
        assert_eq!(parsed[2]["tool_calls"][0]["function"]["arguments"], json!({"a": 1}));
        let t = token_template_messages(&h.messages_and_choices, m, "S", false);
        assert_eq!(t[1]["content"], "");
        assert_eq!(t[2]["content"], "S");
        assert!(t[2].get("tool_calls").is_some());
        assert_eq!(t[3], json!({"role": "assistant", "content": "S"}));
    }

    #[test]
    fn kwargs_and_tool_formats() {
        let kw = template_kwargs("{{ enable_thinking }}", Some(&json!({"x": 1}).as_object().unwrap().clone()));
        assert_eq!(Value::Object(kw), json!({"enable_thinking": false, "x": 1}));
        let tools = json!([{"function": {"name": "n"}, "type": "function"}]);
        let v = template_tools(Some(&tools), ToolSchemaFormat::VllmOpenai).unwrap();
        assert_eq!(serde_json::to_string(&v).unwrap(), r#"[{"type":"function","function":{"name":"n"}}]"#);
        assert_eq!(template_tools(Some(&tools), ToolSchemaFormat::Default).unwrap(), tools);
    }
}
