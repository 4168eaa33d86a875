//! `tokenizer_config.json`: the parts of a Hugging Face model folder's tokenizer configuration
//! that yieldtok uses — the special-token strings (`bos_token`, `eos_token`, …, given as plain
//! strings or as `{"content": …}` objects), `added_tokens_decoder`, and the chat template (one
//! string, or a list of named templates), kept verbatim for the chat-template layer.

use serde_json::{Map, Value};

use crate::error::{Error, Result};

pub use crate::chat_template::TemplateSource;

/// What yieldtok keeps from `tokenizer_config.json`.
#[derive(Debug, Clone, Default)]
pub struct TokenizerConfig {
    /// Special-token strings by attribute name (`bos_token`, `eos_token`, `pad_token`,
    /// `unk_token`, `sep_token`, `cls_token`, `mask_token`, and `additional_special_tokens`
    /// as an array), exactly as transformers exposes them to chat templates.
    pub special_tokens: Map<String, Value>,
    /// `added_tokens_decoder`: id → token content and flags.
    pub added_tokens: Vec<AddedTokenEntry>,
    /// The chat template(s), if the folder has any.
    pub chat_template: Option<TemplateSource>,
    /// `add_bos_token` / `add_eos_token` as declared (informational).
    pub add_bos_token: Option<bool>,
    pub add_eos_token: Option<bool>,
    /// `model_max_length`, when declared and finite.
    pub model_max_length: Option<u64>,
    /// The whole file, for callers that need other keys.
    pub raw: Map<String, Value>,
}

/// One entry of `added_tokens_decoder`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddedTokenEntry {
    pub id: u32,
    pub content: String,
    pub special: bool,
}

const SPECIAL_KEYS: [&str; 7] =
    ["bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"];

impl TokenizerConfig {
    /// Parse the text of a `tokenizer_config.json`. `origin` names the file in errors.
    pub fn from_str(text: &str, origin: Option<&str>) -> Result<Self> {
        let bad = |message: String| Error::InvalidConfig { origin: origin.map(str::to_string), message, source: None };
        let value: Value = serde_json::from_str(text).map_err(|e| Error::InvalidConfig {
            origin: origin.map(str::to_string),
            message: e.to_string(),
            source: Some(e.into()),
        })?;
        let Value::Object(raw) = value else {
            return Err(bad("top level is not a JSON object".into()));
        };
        let mut special_tokens = Map::new();
        for key in SPECIAL_KEYS {
            match raw.get(key) {
                None | Some(Value::Null) => {}
                Some(v) => {
                    let s = token_content(v)
                        .ok_or_else(|| bad(format!("`{key}` is neither a string nor {{\"content\": ...}}")))?;
                    special_tokens.insert(key.to_string(), Value::String(s));
                }
            }
        }
        if let Some(Value::Array(extra)) = raw.get("additional_special_tokens") {
            let list: Vec<Value> = extra.iter().filter_map(token_content).map(Value::String).collect();
            special_tokens.insert("additional_special_tokens".into(), Value::Array(list));
        }
        let mut added_tokens = Vec::new();
        if let Some(dec) = raw.get("added_tokens_decoder") {
            let Value::Object(map) = dec else { return Err(bad("`added_tokens_decoder` is not an object".into())) };
            for (id, entry) in map {
                let id: u32 =
                    id.parse().map_err(|_| bad(format!("`added_tokens_decoder` key {id:?} is not a token id")))?;
                let content =
                    token_content(entry).ok_or_else(|| bad(format!("`added_tokens_decoder[{id}]` has no content")))?;
                let special = entry.get("special").and_then(Value::as_bool).unwrap_or(false);
                added_tokens.push(AddedTokenEntry { id, content, special });
            }
            added_tokens.sort_by_key(|t| t.id);
        }
        let chat_template = match raw.get("chat_template") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                TemplateSource::from_config_value(v)
                    .ok_or_else(|| bad("`chat_template` is neither a string nor a list of {name, template}".into()))?,
            ),
        };
        Ok(TokenizerConfig {
            special_tokens,
            added_tokens,
            chat_template,
            add_bos_token: raw.get("add_bos_token").and_then(Value::as_bool),
            add_eos_token: raw.get("add_eos_token").and_then(Value::as_bool),
            model_max_length: raw.get("model_max_length").and_then(Value::as_u64),
            raw,
        })
    }

    /// The special-token variables a chat template sees (transformers' `special_tokens_map`).
    pub fn template_special_tokens(&self) -> Map<String, Value> {
        crate::chat_template::special_tokens_from_config(&Value::Object(self.raw.clone()))
    }

    /// `padding_side` / `truncation_side` (`key`) as transformers reads them: the config's
    /// `"left"` or `"right"`, else `"right"`.
    pub fn side(&self, key: &str) -> &str {
        match self.raw.get(key).and_then(Value::as_str) {
            Some("left") => "left",
            _ => "right",
        }
    }

    /// The string of a special token by attribute name (`"bos_token"`, …).
    pub fn special_token(&self, key: &str) -> Option<&str> {
        self.special_tokens.get(key).and_then(Value::as_str)
    }

    /// transformers 5's named special tokens in its order (`bos_token`, `eos_token`,
    /// `unk_token`, `sep_token`, `pad_token`, `cls_token`, `mask_token`, then the model-specific
    /// ones: the keys of an `extra_special_tokens` object and any other `*_token` key), each
    /// `(attribute, token)`, unset ones left out — as `PreTrainedTokenizerBase.__init__` reads
    /// the file's keys (a later key wins).
    pub fn named_special_tokens(&self) -> Vec<(String, String)> {
        let mut attrs: Vec<String> = SPECIAL_KEYS.iter().map(|k| k.to_string()).collect();
        let mut named: Map<String, Value> = Map::new();
        let mut auto: Vec<(String, String)> = Vec::new();
        for (key, value) in &self.raw {
            if attrs.contains(key) {
                if let Some(t) = token_content(value) {
                    named.insert(key.clone(), Value::String(t));
                }
            } else if key == "extra_special_tokens"
                || (key == "additional_special_tokens" && !self.raw.contains_key("extra_special_tokens"))
            {
                if let Value::Object(map) = value {
                    for (k, v) in map {
                        if !attrs.contains(k) {
                            attrs.push(k.clone());
                        }
                        if let Some(t) = token_content(v) {
                            named.insert(k.clone(), Value::String(t));
                        }
                    }
                }
            } else if key.ends_with("_token") {
                if let Some(t) = token_content(value) {
                    auto.push((key.clone(), t));
                }
            }
        }
        for (k, t) in auto {
            if !attrs.contains(&k) {
                attrs.push(k.clone());
            }
            named.insert(k, Value::String(t));
        }
        attrs
            .into_iter()
            .filter_map(|a| named.get(&a).and_then(Value::as_str).map(|t| (a.clone(), t.to_string())))
            .collect()
    }

    /// transformers 5's `extra_special_tokens`: the `extra_special_tokens` list (or, without
    /// it, the older `additional_special_tokens` list), as strings.
    pub fn extra_special_tokens(&self) -> Vec<String> {
        let list = match self.raw.get("extra_special_tokens") {
            Some(v) => v,
            None => match self.raw.get("additional_special_tokens") {
                Some(v) => v,
                None => return Vec::new(),
            },
        };
        match list {
            Value::Array(items) => items.iter().filter_map(token_content).collect(),
            _ => Vec::new(),
        }
    }

    /// transformers 5's `all_special_tokens`: the named special tokens, then the extra ones,
    /// each string once, in that order.
    pub fn all_special_tokens(&self) -> Vec<String> {
        let mut seen = std::collections::HashSet::new();
        self.named_special_tokens()
            .into_iter()
            .map(|(_, t)| t)
            .chain(self.extra_special_tokens())
            .filter(|t| seen.insert(t.clone()))
            .collect()
    }

    /// The config as `tokenizer_config.json` text that [`from_str`](Self::from_str) reads back
    /// to the same config: the file's keys, with `chat_template` the template(s) in force (which
    /// may have come from `chat_template.jinja` / `additional_chat_templates/`), a string or a
    /// list of `{name, template}`. For pickling and other copies that must keep everything.
    pub fn to_json(&self) -> String {
        let mut raw = self.raw.clone();
        match &self.chat_template {
            None => {
                raw.remove("chat_template");
            }
            Some(TemplateSource::Single(s)) => {
                raw.insert("chat_template".into(), Value::String(s.clone()));
            }
            Some(TemplateSource::Named(list)) => {
                let items = list
                    .iter()
                    .map(|(name, template)| serde_json::json!({"name": name, "template": template}))
                    .collect();
                raw.insert("chat_template".into(), Value::Array(items));
            }
        }
        Value::Object(raw).to_string()
    }
}

fn token_content(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => o.get("content").and_then(Value::as_str).map(str::to_string),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_strings_objects_and_named_templates() {
        let cfg = TokenizerConfig::from_str(
            r#"{"bos_token": {"content": "<s>", "lstrip": false}, "eos_token": "</s>", "pad_token": null,
                "added_tokens_decoder": {"2": {"content": "</s>", "special": true}, "1": {"content": "<s>", "special": true}},
                "chat_template": [{"name": "default", "template": "A"}, {"name": "tool_use", "template": "B"}]}"#,
            None,
        )
        .unwrap();
        assert_eq!(cfg.special_token("bos_token"), Some("<s>"));
        assert_eq!(cfg.special_token("eos_token"), Some("</s>"));
        assert_eq!(cfg.special_token("pad_token"), None);
        assert_eq!(cfg.added_tokens.iter().map(|t| t.id).collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(
            cfg.chat_template,
            Some(TemplateSource::Named(vec![("default".into(), "A".into()), ("tool_use".into(), "B".into())]))
        );
    }

    #[test]
    fn to_json_reads_back_with_the_templates_in_force() {
        let text = r#"{"eos_token": {"content": "</s>"}, "padding_side": "left", "chat_template": "old"}"#;
        let mut cfg = TokenizerConfig::from_str(text, None).unwrap();
        // As from a folder whose chat_template.jinja and additional_chat_templates/ win.
        cfg.chat_template = Some(TemplateSource::Named(vec![("default".into(), "A".into()), ("x".into(), "B".into())]));
        let again = TokenizerConfig::from_str(&cfg.to_json(), None).unwrap();
        assert_eq!(again.chat_template, cfg.chat_template);
        assert_eq!(again.special_tokens, cfg.special_tokens);
        assert_eq!(again.side("padding_side"), "left");
        assert_eq!(again.to_json(), cfg.to_json());
        let none = TokenizerConfig { chat_template: None, ..cfg };
        assert_eq!(TokenizerConfig::from_str(&none.to_json(), None).unwrap().chat_template, None);
    }

    #[test]
    fn rejects_malformed_files_with_context() {
        let err = TokenizerConfig::from_str("[1]", Some("x/tokenizer_config.json")).unwrap_err();
        assert!(err.to_string().contains("x/tokenizer_config.json"), "{err}");
        let err = TokenizerConfig::from_str(r#"{"chat_template": 3}"#, None).unwrap_err();
        assert!(err.to_string().contains("chat_template"), "{err}");
        assert!(TokenizerConfig::from_str("{", None).is_err());
    }
}
