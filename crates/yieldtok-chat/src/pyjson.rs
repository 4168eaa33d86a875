//! A clone of Python's `json.dumps` for the `tojson` filter.
//!
//! transformers replaces jinja2's `tojson` with
//! `json.dumps(x, ensure_ascii=False, indent=indent, separators=separators,
//! sort_keys=sort_keys)`, so tool schemas and tool-call arguments print as
//! `{"a": 1, "b": [1, 2]}`: `", "` / `": "` separators (`","` between items
//! when `indent` is set), insertion order kept, no HTML escaping, floats in
//! Python `repr` form, non-ASCII kept unless `ensure_ascii`.
//! The positional order of the filter's arguments is Python's:
//! `tojson(ensure_ascii, indent, separators, sort_keys)`.

use std::cmp::Ordering;
use std::fmt::Write as _;

use minijinja::value::{Rest, ValueKind, ValueOrKwargs};
use minijinja::{Error, ErrorKind, State, Value};

use super::pyfloat;
use super::pyrepr::{charge_serialized, serialization_budget};

/// Options of `json.dumps` that transformers' `tojson` passes through.
#[derive(Debug, Clone)]
pub struct DumpOptions {
    pub ensure_ascii: bool,
    /// `None` = single line; `Some(s)` = newline + `s` repeated per level.
    pub indent: Option<String>,
    pub item_separator: String,
    pub key_separator: String,
    pub sort_keys: bool,
}

impl Default for DumpOptions {
    /// transformers' defaults: `ensure_ascii=False`, compact-free `", "`/`": "`.
    fn default() -> Self {
        DumpOptions {
            ensure_ascii: false,
            indent: None,
            item_separator: ", ".into(),
            key_separator: ": ".into(),
            sort_keys: false,
        }
    }
}

/// Deepest nesting serialised (Python raises `RecursionError` near 1000).
pub const MAX_DEPTH: usize = 512;

fn type_error(msg: String) -> Error {
    Error::new(ErrorKind::InvalidOperation, msg)
}

fn py_type_name(v: &Value) -> &'static str {
    match v.kind() {
        ValueKind::Undefined => "Undefined",
        ValueKind::None => "NoneType",
        ValueKind::Bool => "bool",
        ValueKind::Number => {
            if v.is_integer() {
                "int"
            } else {
                "float"
            }
        }
        ValueKind::String => "str",
        ValueKind::Bytes => "bytes",
        ValueKind::Seq => "list",
        ValueKind::Map => "dict",
        ValueKind::Iterable => "generator",
        _ => "object",
    }
}

struct Encoder<'o> {
    out: String,
    budget: usize,
    opts: &'o DumpOptions,
}

impl Encoder<'_> {
    #[inline]
    fn check(&self) -> Result<(), Error> {
        if self.out.len() > self.budget {
            Err(super::pyrepr::too_large())
        } else {
            Ok(())
        }
    }

    fn newline_indent(&mut self, level: usize) -> Result<(), Error> {
        if let Some(indent) = &self.opts.indent {
            if self.out.len() + 1 + indent.len().saturating_mul(level) > self.budget {
                return Err(super::pyrepr::too_large());
            }
            self.out.push('\n');
            for _ in 0..level {
                self.out.push_str(indent);
            }
        }
        Ok(())
    }

    fn encode(&mut self, v: &Value, level: usize) -> Result<(), Error> {
        if level > MAX_DEPTH {
            return Err(type_error("maximum recursion depth exceeded while encoding a JSON object".into()));
        }
        match v.kind() {
            ValueKind::None => self.out.push_str("null"),
            ValueKind::Bool => self.out.push_str(if v.is_true() { "true" } else { "false" }),
            ValueKind::Number => {
                if v.is_integer() {
                    let _ = write!(self.out, "{v}");
                } else {
                    let f = f64::try_from(v.clone()).unwrap_or(f64::NAN);
                    self.out.push_str(&pyfloat::json_repr(f));
                }
            }
            ValueKind::String => {
                let s = v.as_str().unwrap_or_default();
                if self.out.len() + s.len() > self.budget {
                    return Err(super::pyrepr::too_large());
                }
                write_json_str(&mut self.out, s, self.opts.ensure_ascii);
            }
            ValueKind::Seq => {
                let len = v.len().unwrap_or(0);
                if len == 0 {
                    self.out.push_str("[]");
                    return self.check();
                }
                self.out.push('[');
                self.newline_indent(level + 1)?;
                for (i, item) in v.try_iter()?.enumerate() {
                    if i > 0 {
                        self.out.push_str(&self.opts.item_separator);
                        self.newline_indent(level + 1)?;
                    }
                    self.encode(&item, level + 1)?;
                }
                self.newline_indent(level)?;
                self.out.push(']');
            }
            ValueKind::Map => {
                let mut items: Vec<(Value, Value)> = match v.as_object().and_then(|o| o.try_iter_pairs()) {
                    Some(pairs) => pairs.collect(),
                    None => v
                        .try_iter()?
                        .map(|k| {
                            let val = v.get_item(&k).unwrap_or_default();
                            (k, val)
                        })
                        .collect(),
                };
                if items.is_empty() {
                    self.out.push_str("{}");
                    return self.check();
                }
                if self.opts.sort_keys {
                    sort_items(&mut items)?;
                }
                self.out.push('{');
                self.newline_indent(level + 1)?;
                for (i, (k, val)) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(&self.opts.item_separator);
                        self.newline_indent(level + 1)?;
                    }
                    let key = json_key(k)?;
                    write_json_str(&mut self.out, &key, self.opts.ensure_ascii);
                    self.out.push_str(&self.opts.key_separator);
                    self.encode(val, level + 1)?;
                }
                self.newline_indent(level)?;
                self.out.push('}');
            }
            _ => return Err(type_error(format!("Object of type {} is not JSON serializable", py_type_name(v)))),
        }
        self.check()
    }
}

/// Python's conversion of dict keys: str as is; int, float, bool, None to
/// their JSON spelling; anything else is a `TypeError`.
fn json_key(k: &Value) -> Result<String, Error> {
    Ok(match k.kind() {
        ValueKind::String => k.as_str().unwrap_or_default().to_string(),
        ValueKind::Bool => (if k.is_true() { "true" } else { "false" }).to_string(),
        ValueKind::None => "null".to_string(),
        ValueKind::Number if k.is_integer() => k.to_string(),
        ValueKind::Number => pyfloat::json_repr(f64::try_from(k.clone()).unwrap_or(f64::NAN)),
        _ => return Err(type_error(format!("keys must be str, int, float, bool or None, not {}", py_type_name(k)))),
    })
}

/// `sorted(dct.items())` on the original keys: strings by code point,
/// numbers (and bools) numerically, anything mixed is a `TypeError`.
fn sort_items(items: &mut [(Value, Value)]) -> Result<(), Error> {
    let all_str = items.iter().all(|(k, _)| k.kind() == ValueKind::String);
    let all_num = items.iter().all(|(k, _)| matches!(k.kind(), ValueKind::Number | ValueKind::Bool));
    if all_str {
        items.sort_by(|a, b| a.0.as_str().unwrap_or_default().cmp(b.0.as_str().unwrap_or_default()));
        Ok(())
    } else if all_num {
        let num = |v: &Value| -> f64 {
            if v.kind() == ValueKind::Bool {
                v.is_true() as i64 as f64
            } else {
                f64::try_from(v.clone()).unwrap_or(f64::NAN)
            }
        };
        items.sort_by(|a, b| num(&a.0).partial_cmp(&num(&b.0)).unwrap_or(Ordering::Equal));
        Ok(())
    } else if items.len() <= 1 {
        Ok(())
    } else {
        Err(type_error("'<' not supported between instances of 'str' and 'int'".into()))
    }
}

/// Writes a JSON string literal the way Python's encoder does.
pub fn write_json_str(out: &mut String, s: &str, ensure_ascii: bool) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if ensure_ascii && (c as u32) > 0x7e => {
                let cp = c as u32;
                if cp > 0xffff {
                    let v = cp - 0x10000;
                    let hi = 0xd800 | ((v >> 10) & 0x3ff);
                    let lo = 0xdc00 | (v & 0x3ff);
                    let _ = write!(out, "\\u{hi:04x}\\u{lo:04x}");
                } else {
                    let _ = write!(out, "\\u{cp:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `json.dumps(value, **opts)`, failing once the output would exceed `budget` bytes.
pub fn dumps(value: &Value, opts: &DumpOptions, budget: usize) -> Result<String, Error> {
    let mut enc = Encoder { out: String::new(), budget, opts };
    enc.encode(value, 0)?;
    Ok(enc.out)
}

/// Parses `tojson`'s arguments, Python style.
pub fn options_from_args(args: &[Value]) -> Result<DumpOptions, Error> {
    let a = super::methods::bind_args("tojson", args, &["ensure_ascii", "indent", "separators", "sort_keys"], true)?;
    let mut opts = DumpOptions::default();
    if let Some(v) = &a[0] {
        opts.ensure_ascii = v.is_true();
    }
    if let Some(v) = &a[1] {
        opts.indent = match v.kind() {
            ValueKind::None | ValueKind::Undefined => None,
            ValueKind::String => Some(v.as_str().unwrap_or_default().to_string()),
            ValueKind::Bool => Some(if v.is_true() { " ".into() } else { String::new() }),
            ValueKind::Number if v.is_integer() => {
                let n = i64::try_from(v.clone()).unwrap_or(0).max(0);
                if n > 1 << 20 {
                    return Err(super::pyrepr::too_large());
                }
                Some(" ".repeat(n as usize))
            }
            _ => return Err(type_error(format!("can't multiply sequence by non-int of type '{}'", py_type_name(v)))),
        };
        if opts.indent.is_some() {
            opts.item_separator = ",".into();
        }
    }
    if let Some(v) = &a[2] {
        if !v.is_none() && !v.is_undefined() {
            let parts: Vec<Value> = v.try_iter().map(|it| it.collect()).unwrap_or_default();
            match (parts.len(), parts.first().and_then(|p| p.as_str()), parts.get(1).and_then(|p| p.as_str())) {
                (2, Some(item), Some(key)) => {
                    opts.item_separator = item.to_string();
                    opts.key_separator = key.to_string();
                }
                _ => return Err(type_error("separators must be a pair of strings".into())),
            }
        }
    }
    if let Some(v) = &a[3] {
        opts.sort_keys = v.is_true();
    }
    Ok(opts)
}

/// The `tojson` filter: `tojson(ensure_ascii=False, indent=None, separators=None, sort_keys=False)`.
pub fn tojson_filter(state: &State, value: Value, args: Rest<ValueOrKwargs>) -> Result<Value, Error> {
    let opts = options_from_args(&args.into_values())?;
    let out = dumps(&value, &opts, serialization_budget(state))?;
    charge_serialized(state, out.len())?;
    Ok(Value::from(out))
}

/// `json.dumps` of a `serde_json::Value` with transformers' defaults (used by tests and callers outside templates).
pub fn dumps_json(value: &serde_json::Value, opts: &DumpOptions) -> Result<String, Error> {
    dumps(&super::preprocess::json_to_value(value), opts, usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn d(v: serde_json::Value) -> String {
        dumps_json(&v, &DumpOptions::default()).unwrap()
    }

    #[test]
    fn python_json_dumps_defaults() {
        assert_eq!(
            d(json!({"a": 1, "b": [1, 2.5, null, true], "c": {}})),
            r#"{"a": 1, "b": [1, 2.5, null, true], "c": {}}"#
        );
        assert_eq!(d(json!({"z": 1, "a": 2})), r#"{"z": 1, "a": 2}"#);
        assert_eq!(d(json!([])), "[]");
        assert_eq!(d(json!("it's <b>&</b> é 日本 😀")), "\"it's <b>&</b> é 日本 😀\"");
        assert_eq!(
            d(json!("\u{1b}\n\t\"\\\u{7f}\u{08}\u{0c}")),
            r#""\u001b\n\t\"\\\u007f\b\f""#.replace("\\u007f", "\u{7f}")
        );
        assert_eq!(d(json!(1e-7)), "1e-07");
        assert_eq!(d(json!(1.0)), "1.0");
        assert_eq!(d(json!(1e20)), "1e+20");
        assert_eq!(d(json!(-0.0)), "-0.0");
        assert_eq!(d(json!(12345678901234567890u64)), "12345678901234567890");
    }

    #[test]
    fn python_json_dumps_options() {
        let v = json!({"b": [1, {"x": []}], "a": "é"});
        let mut o = DumpOptions { indent: Some("  ".into()), item_separator: ",".into(), ..Default::default() };
        assert_eq!(
            dumps_json(&v, &o).unwrap(),
            "{\n  \"b\": [\n    1,\n    {\n      \"x\": []\n    }\n  ],\n  \"a\": \"é\"\n}"
        );
        o.indent = Some(String::new());
        assert_eq!(dumps_json(&json!([1, 2]), &o).unwrap(), "[\n1,\n2\n]");
        let o = DumpOptions { sort_keys: true, ensure_ascii: true, ..Default::default() };
        assert_eq!(dumps_json(&v, &o).unwrap(), r#"{"a": "\u00e9", "b": [1, {"x": []}]}"#);
        assert_eq!(dumps_json(&json!("😀"), &o).unwrap(), r#""\ud83d\ude00""#);
        let o = DumpOptions { item_separator: ",".into(), key_separator: ":".into(), ..Default::default() };
        assert_eq!(dumps_json(&v, &o).unwrap(), r#"{"b":[1,{"x":[]}],"a":"é"}"#);
    }

    #[test]
    fn budget_is_enforced() {
        let v = Value::from(minijinja::value::Serde(json!({"a": "x".repeat(100)})));
        assert!(dumps(&v, &DumpOptions::default(), 50).is_err());
        assert!(dumps(&v, &DumpOptions::default(), 200).is_ok());
    }
}
