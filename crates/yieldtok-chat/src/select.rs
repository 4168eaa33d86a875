//! Choosing the template source: a tokenizer's single `chat_template`, or its
//! named templates (`[{"name": ..., "template": ...}]`), following
//! transformers' `get_chat_template`.

use super::error::ChatTemplateError;

/// A tokenizer's chat template(s), as found in `tokenizer_config.json`
/// (`chat_template`: a string or a list of `{name, template}`) or a
/// `chat_template.jinja` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateSource {
    Single(String),
    Named(Vec<(String, String)>),
}

impl TemplateSource {
    /// Reads `tokenizer_config.json`'s `chat_template` value (string, list
    /// of `{name, template}` objects, or a `{name: template}` object).
    /// `None` when it is absent, null or malformed.
    pub fn from_config_value(v: &serde_json::Value) -> Option<TemplateSource> {
        match v {
            serde_json::Value::String(s) => Some(TemplateSource::Single(s.clone())),
            serde_json::Value::Array(items) => {
                let mut named = Vec::with_capacity(items.len());
                for item in items {
                    let name = item.get("name")?.as_str()?;
                    let template = item.get("template")?.as_str()?;
                    named.push((name.to_string(), template.to_string()));
                }
                Some(TemplateSource::Named(named))
            }
            serde_json::Value::Object(map) => {
                let mut named = Vec::with_capacity(map.len());
                for (k, v) in map {
                    named.push((k.clone(), v.as_str()?.to_string()));
                }
                Some(TemplateSource::Named(named))
            }
            _ => None,
        }
    }

    /// transformers' loading rule for a tokenizer folder: template files win
    /// over `tokenizer_config.json`. `chat_template_jinja` is the content of
    /// `chat_template.jinja` (the "default" template), `additional` the
    /// `additional_chat_templates/<name>.jinja` files; with neither, the
    /// config's `chat_template` value is used.
    pub fn from_parts(
        config_value: Option<&serde_json::Value>,
        chat_template_jinja: Option<String>,
        additional: Vec<(String, String)>,
    ) -> Option<TemplateSource> {
        if chat_template_jinja.is_none() && additional.is_empty() {
            return config_value.and_then(TemplateSource::from_config_value);
        }
        match (chat_template_jinja, additional.is_empty()) {
            (Some(default), true) => Some(TemplateSource::Single(default)),
            (default, _) => {
                let mut named: Vec<(String, String)> =
                    default.map(|d| ("default".to_string(), d)).into_iter().collect();
                named.extend(additional);
                Some(TemplateSource::Named(named))
            }
        }
    }

    /// The template names (just `"default"` for a single template).
    pub fn names(&self) -> Vec<String> {
        match self {
            TemplateSource::Single(_) => vec!["default".to_string()],
            TemplateSource::Named(v) => v.iter().map(|(n, _)| n.clone()).collect(),
        }
    }

    fn get(&self, name: &str) -> Option<&str> {
        match self {
            TemplateSource::Single(_) => None,
            TemplateSource::Named(v) => v.iter().rev().find(|(n, _)| n == name).map(|(_, t)| t.as_str()),
        }
    }
}

/// Picks a template by *name*: `name` if given (for a single template only
/// `"default"` names it), else `"tool_use"` when `has_tools` and such a
/// template exists, else `"default"`. `has_tools` is transformers'
/// `tools is not None` (an empty list counts).
pub fn select_template<'a>(
    src: &'a TemplateSource,
    name: Option<&str>,
    has_tools: bool,
) -> Result<&'a str, ChatTemplateError> {
    match (src, name) {
        (TemplateSource::Single(s), None) => Ok(s),
        (TemplateSource::Single(s), Some("default")) => Ok(s),
        (TemplateSource::Single(_), Some(n)) => {
            Err(ChatTemplateError::UnknownTemplateName { name: n.to_string(), available: src.names() })
        }
        (TemplateSource::Named(_), Some(n)) => src
            .get(n)
            .ok_or_else(|| ChatTemplateError::UnknownTemplateName { name: n.to_string(), available: src.names() }),
        (TemplateSource::Named(_), None) => {
            if has_tools {
                if let Some(t) = src.get("tool_use") {
                    return Ok(t);
                }
            }
            src.get("default").ok_or_else(|| ChatTemplateError::NoDefaultTemplate { available: src.names() })
        }
    }
}

/// transformers' exact `get_chat_template(chat_template, tools)`, where the
/// `chat_template` argument is either a template *name* (when the tokenizer
/// has named templates and one has that name) or the template *source*
/// itself (every other case, including an unknown name).
pub fn resolve_chat_template_arg<'a>(
    src: Option<&'a TemplateSource>,
    chat_template: Option<&'a str>,
    has_tools: bool,
) -> Result<&'a str, ChatTemplateError> {
    match (src, chat_template) {
        (Some(named @ TemplateSource::Named(_)), Some(arg)) => Ok(named.get(arg).unwrap_or(arg)),
        (_, Some(arg)) => Ok(arg),
        (Some(src), None) => select_template(src, None, has_tools),
        (None, None) => Err(ChatTemplateError::NoTemplate),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_rules() {
        let named = TemplateSource::Named(vec![
            ("default".into(), "D".into()),
            ("tool_use".into(), "T".into()),
            ("rag".into(), "R".into()),
        ]);
        assert_eq!(select_template(&named, None, false).unwrap(), "D");
        assert_eq!(select_template(&named, None, true).unwrap(), "T");
        assert_eq!(select_template(&named, Some("rag"), true).unwrap(), "R");
        assert!(matches!(
            select_template(&named, Some("nope"), false),
            Err(ChatTemplateError::UnknownTemplateName { .. })
        ));
        let only_tools = TemplateSource::Named(vec![("tool_use".into(), "T".into())]);
        assert!(matches!(select_template(&only_tools, None, false), Err(ChatTemplateError::NoDefaultTemplate { .. })));
        let single = TemplateSource::Single("S".into());
        assert_eq!(select_template(&single, None, true).unwrap(), "S");
        // transformers: an unknown name is taken as the template source itself
        assert_eq!(resolve_chat_template_arg(Some(&named), Some("{{ x }}"), false).unwrap(), "{{ x }}");
        assert_eq!(resolve_chat_template_arg(Some(&named), Some("rag"), false).unwrap(), "R");
        assert_eq!(resolve_chat_template_arg(Some(&single), Some("rag"), false).unwrap(), "rag");
        assert!(matches!(resolve_chat_template_arg(None, None, false), Err(ChatTemplateError::NoTemplate)));
        let cfg_single = serde_json::json!("C");
        assert_eq!(
            TemplateSource::from_parts(Some(&cfg_single), None, vec![]),
            Some(TemplateSource::Single("C".into()))
        );
        assert_eq!(
            TemplateSource::from_parts(Some(&cfg_single), Some("J".into()), vec![]),
            Some(TemplateSource::Single("J".into()))
        );
        assert_eq!(
            TemplateSource::from_parts(Some(&cfg_single), Some("J".into()), vec![("tool_use".into(), "T".into())]),
            Some(TemplateSource::Named(vec![("default".into(), "J".into()), ("tool_use".into(), "T".into())]))
        );
        assert_eq!(TemplateSource::from_parts(None, None, vec![]), None);
        let cfg = serde_json::json!([{"name": "default", "template": "D"}, {"name": "tool_use", "template": "T"}]);
        assert_eq!(
            TemplateSource::from_config_value(&cfg),
            Some(TemplateSource::Named(vec![("default".into(), "D".into()), ("tool_use".into(), "T".into())]))
        );
    }
}
