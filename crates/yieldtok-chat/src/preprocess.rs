//! transformers 5.x input handling around the render (not the engine):
//!
//! * messages: a non-empty list of objects; top-level keys whose value is
//!   `null` are dropped (`{"content": null}` becomes a message without
//!   `content`); a non-null `reasoning_content` / `thinking` / `reasoning`
//!   value `r` (first found in that order) turns the message into
//!   `{"thinking": r, **message, "reasoning_content": r}`;
//! * tools must be objects, documents must be objects;
//! * `continue_final_message`: the final message's field gets the tag
//!   `"CONTINUE_FINAL_MESSAGE_TAG "` appended before rendering, and the
//!   output is cut at the tag afterwards (with `rstrip()` when the template
//!   trimmed the space after it), exactly as `render_jinja_template` does.

use minijinja::Value;
use serde_json::{Map, Value as Json};

use super::error::ChatTemplateError;
use super::pystr;

/// The names a message's reasoning may come under; the first is canonical.
pub const REASONING_FIELDS: [&str; 3] = ["reasoning_content", "thinking", "reasoning"];

/// What transformers appends to the continued field.
pub const CONTINUE_TAG: &str = "CONTINUE_FINAL_MESSAGE_TAG ";

/// Converts JSON to a template value (maps keep their key order).
/// Recursion depth is bounded by the input depth check done before.
pub fn json_to_value(v: &Json) -> Value {
    match v {
        Json::Null => Value::from(()),
        Json::Bool(b) => Value::from(*b),
        Json::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::from(i)
            } else if let Some(u) = n.as_u64() {
                Value::from(u)
            } else {
                Value::from(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Json::String(s) => Value::from(s.as_str()),
        Json::Array(items) => Value::from(items.iter().map(json_to_value).collect::<Vec<_>>()),
        Json::Object(m) => Value::from_pairs(m.iter().map(|(k, v)| (Value::from(k.as_str()), json_to_value(v)))),
    }
}

/// Checks that `messages` is a non-empty list of objects (transformers'
/// `ValueError` / `TypeError` otherwise).
pub fn validate_messages(messages: &Json) -> Result<&[Json], ChatTemplateError> {
    let list = match messages {
        Json::Array(list) => list,
        other => {
            return Err(ChatTemplateError::invalid(format!(
                "messages must be a list of message objects, got {}",
                json_type(other)
            )))
        }
    };
    if list.is_empty() {
        return Err(ChatTemplateError::argument(
            "Cannot apply chat template to an empty conversation. Provide at least one message.",
        ));
    }
    if let Some(m) = list.iter().find(|m| !m.is_object()) {
        return Err(ChatTemplateError::invalid(format!(
            "Chat messages should be dicts, dataclasses or pydantic models, but got {}",
            json_type(m)
        )));
    }
    Ok(list)
}

/// One message as the template sees it, built straight from the input:
/// the same result as `json_to_value(&normalize_message(m))` without the
/// intermediate copy.
pub fn message_to_value(m: &Map<String, Json>) -> Value {
    let reasoning = REASONING_FIELDS.iter().find_map(|k| m.get(*k).filter(|v| !v.is_null()));
    let present = |(_, v): &(&String, &Json)| !v.is_null();
    match reasoning {
        None => Value::from_pairs(m.iter().filter(present).map(|(k, v)| (Value::from(k.as_str()), json_to_value(v)))),
        Some(r) => {
            let r_value = json_to_value(r);
            let thinking = match m.get("thinking").filter(|v| !v.is_null()) {
                Some(t) => json_to_value(t),
                None => r_value.clone(),
            };
            let has_rc = m.get("reasoning_content").is_some_and(|v| !v.is_null());
            let mut pairs: Vec<(Value, Value)> = Vec::with_capacity(m.len() + 2);
            pairs.push((Value::from("thinking"), thinking));
            for (k, v) in m.iter().filter(present) {
                match k.as_str() {
                    "thinking" => {}
                    "reasoning_content" => pairs.push((Value::from("reasoning_content"), r_value.clone())),
                    _ => pairs.push((Value::from(k.as_str()), json_to_value(v))),
                }
            }
            if !has_rc {
                pairs.push((Value::from("reasoning_content"), r_value));
            }
            Value::from_pairs(pairs)
        }
    }
}

/// One message normalised like transformers 5.x: `null` values dropped,
/// reasoning aliased.
pub fn normalize_message(m: &Map<String, Json>) -> Map<String, Json> {
    let mut msg: Map<String, Json> =
        m.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.clone(), v.clone())).collect();
    if let Some(r) = REASONING_FIELDS.iter().find_map(|k| msg.get(*k)).cloned() {
        let mut aliased = Map::with_capacity(msg.len() + 2);
        aliased.insert("thinking".to_string(), r.clone());
        for (k, v) in std::mem::take(&mut msg) {
            aliased.insert(k, v);
        }
        aliased.insert("reasoning_content".to_string(), r);
        msg = aliased;
    }
    msg
}

/// Validates and normalises `messages` like transformers 5.x (owned copies).
#[cfg(test)]
pub fn preprocess_messages(messages: &Json) -> Result<Vec<Map<String, Json>>, ChatTemplateError> {
    let list = validate_messages(messages)?;
    Ok(list.iter().map(|m| normalize_message(m.as_object().expect("validated"))).collect())
}

/// Checks `tools` (objects) and `documents` (objects) like transformers.
/// `null` means absent.
pub fn validate_tools_and_documents(tools: Option<&Json>, documents: Option<&Json>) -> Result<(), ChatTemplateError> {
    if let Some(t) = tools.filter(|t| !t.is_null()) {
        let ok = match t {
            Json::Array(items) => items.iter().all(Json::is_object),
            _ => false,
        };
        if !ok {
            return Err(ChatTemplateError::argument(
                "Tools should either be a JSON schema, or a callable function with type hints and a docstring suitable for auto-conversion to a schema.",
            ));
        }
    }
    if let Some(d) = documents.filter(|d| !d.is_null()) {
        let ok = match d {
            Json::Array(items) => items.iter().all(Json::is_object),
            Json::Object(m) => m.is_empty(),
            Json::String(s) => s.is_empty(),
            _ => false,
        };
        if !ok {
            return Err(ChatTemplateError::invalid(
                "Documents should be a list of dicts with 'title' and 'text' keys!",
            ));
        }
    }
    Ok(())
}

fn json_type(v: &Json) -> &'static str {
    match v {
        Json::Null => "None",
        Json::Bool(_) => "bool",
        Json::Number(n) if n.is_f64() => "float",
        Json::Number(_) => "int",
        Json::String(_) => "str",
        Json::Array(_) => "list",
        Json::Object(_) => "dict",
    }
}

/// Tags the continued field of the final message. Returns the text to
/// continue (`final_message` in transformers), needed by [`finish_continue`].
pub fn prepare_continue(
    messages: &mut [Map<String, Json>],
    field: &str,
    template_source: &str,
) -> Result<String, ChatTemplateError> {
    let Some(last) = messages.last_mut() else {
        return Err(ChatTemplateError::argument("continue_final_message is set but the conversation is empty!"));
    };
    let final_message = match last.get(field) {
        Some(v) if !v.is_null() => v.clone(),
        _ => {
            return Err(ChatTemplateError::argument(format!(
                "continue_final_message is set but the final message has no \"{field}\" to continue!"
            )))
        }
    };
    let continue_fields: Vec<String> = if REASONING_FIELDS.contains(&field) {
        REASONING_FIELDS.iter().filter(|f| last.get(**f) == Some(&final_message)).map(|f| f.to_string()).collect()
    } else {
        vec![field.to_string()]
    };
    if !continue_fields.iter().any(|f| template_source.contains(f.as_str())) {
        return Err(ChatTemplateError::argument(format!(
            "continue_final_message is set to \"{field}\" but this is not an accepted field in the chat_template"
        )));
    }
    match final_message {
        Json::Array(_) => {
            let Some(Json::Array(blocks)) = last.get_mut(field) else { unreachable!() };
            for block in blocks.iter_mut().rev() {
                let has_text = match block {
                    Json::Object(b) => b.contains_key("text"),
                    Json::String(s) if s.contains("text") => {
                        return Err(ChatTemplateError::invalid("string indices must be integers"))
                    }
                    Json::Array(items) => items.iter().any(|i| i.as_str() == Some("text")),
                    _ => false,
                };
                if has_text {
                    let Json::Object(b) = block else {
                        return Err(ChatTemplateError::invalid("list indices must be integers or slices, not str"));
                    };
                    let text = match b.get("text") {
                        Some(Json::String(s)) => s.clone(),
                        Some(other) => {
                            return Err(ChatTemplateError::invalid(format!(
                                "can only concatenate str (not \"{}\") to str",
                                json_type(other)
                            )))
                        }
                        None => unreachable!(),
                    };
                    b.insert("text".into(), Json::String(format!("{text}{CONTINUE_TAG}")));
                    return Ok(text);
                }
            }
            Err(ChatTemplateError::argument(
                "continue_final_message is set but we could not find any text to continue in the final message!",
            ))
        }
        Json::String(s) => {
            for f in &continue_fields {
                match last.get_mut(f) {
                    Some(Json::String(v)) => v.push_str(CONTINUE_TAG),
                    Some(other) => {
                        return Err(ChatTemplateError::invalid(format!(
                            "unsupported operand type(s) for +: '{}' and 'str'",
                            json_type(other)
                        )))
                    }
                    None => {}
                }
            }
            Ok(s)
        }
        other => Err(ChatTemplateError::invalid(format!(
            "unsupported operand type(s) for +: '{}' and 'str'",
            json_type(&other)
        ))),
    }
}

/// Cuts the rendered text at the continuation tag (transformers' rules).
/// Returns the new text; its length bounds the generation spans.
pub fn finish_continue(rendered: &str, final_message: &str) -> Result<String, ChatTemplateError> {
    let stripped_tag = CONTINUE_TAG.trim_end();
    let final_stripped = pystr::strip(final_message, None);
    if !rendered.contains(final_stripped) || !rendered.contains(stripped_tag) {
        return Err(ChatTemplateError::argument(format!(
            "continue_final_message is set but the final message does not appear in the chat after applying the chat template! This can happen if the chat template deletes portions of the final message. Please verify the chat template and final message in your chat to ensure they are compatible.Final message to continue: {final_stripped}\nRendered chat:\n{rendered}"
        )));
    }
    let tag_loc = rendered.rfind(stripped_tag).expect("checked above");
    if rendered[tag_loc..].starts_with(CONTINUE_TAG) {
        Ok(rendered[..tag_loc].to_string())
    } else {
        Ok(pystr::rstrip(&rendered[..tag_loc], None).to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn drops_nulls_and_aliases_reasoning() {
        let m = preprocess_messages(&json!([
            {"role": "assistant", "content": null, "tool_calls": [{"x": null}]},
            {"role": "assistant", "content": "a", "reasoning": "r", "thinking": null},
            {"role": "assistant", "reasoning_content": "rc", "content": "b", "thinking": "t"},
        ]))
        .unwrap();
        assert_eq!(Json::Object(m[0].clone()), json!({"role": "assistant", "tool_calls": [{"x": null}]}));
        let keys: Vec<_> = m[1].keys().cloned().collect();
        assert_eq!(keys, ["thinking", "role", "content", "reasoning", "reasoning_content"]);
        assert_eq!(m[1]["thinking"], "r");
        let keys: Vec<_> = m[2].keys().cloned().collect();
        assert_eq!(keys, ["thinking", "role", "reasoning_content", "content"]);
        assert_eq!(m[2]["thinking"], "t"); // the message's own value wins
        assert_eq!(m[2]["reasoning_content"], "rc");
        assert!(preprocess_messages(&json!([])).is_err());
        assert!(preprocess_messages(&json!(["hi"])).is_err());
    }

    #[test]
    fn fast_message_conversion_equals_normalize_then_convert() {
        for m in [
            json!({"role": "assistant", "content": null, "tool_calls": [{"x": null}]}),
            json!({"role": "assistant", "content": "a", "reasoning": "r", "thinking": null}),
            json!({"role": "assistant", "reasoning_content": "rc", "content": "b", "thinking": "t"}),
            json!({"thinking": "t", "role": "assistant", "reasoning_content": null, "content": "c"}),
            json!({"role": "user", "content": [{"type": "text", "text": "x"}], "n": 1.5, "i": -3, "u": 18446744073709551615u64}),
        ] {
            let m = m.as_object().unwrap();
            let fast = message_to_value(m);
            let slow = json_to_value(&Json::Object(normalize_message(m)));
            assert_eq!(format!("{fast:?}"), format!("{slow:?}"));
        }
    }

    #[test]
    fn continue_final_message_rules() {
        let mut m = preprocess_messages(&json!([{"role": "assistant", "content": "Hello  "}])).unwrap();
        let f = prepare_continue(&mut m, "content", "{{ m.content }}").unwrap();
        assert_eq!(f, "Hello  ");
        assert_eq!(m[0]["content"], "Hello  CONTINUE_FINAL_MESSAGE_TAG ");
        assert_eq!(finish_continue("<a>Hello  CONTINUE_FINAL_MESSAGE_TAG </a>", &f).unwrap(), "<a>Hello  ");
        assert_eq!(finish_continue("<a>Hello  CONTINUE_FINAL_MESSAGE_TAG</a>", &f).unwrap(), "<a>Hello");
        assert!(finish_continue("<a></a>", &f).is_err());
    }
}
