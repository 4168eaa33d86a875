//! jinja2 built-ins whose minijinja versions behave differently: the `int`
//! and `float` filters (Python conversion, `default` on failure), `center`,
//! `wordcount`, the `sequence` test (strings and dicts are sequences), and
//! transformers' `namespace` (no underscore-prefixed names).

use minijinja::value::{Kwargs, Rest, ValueKind, ValueOrKwargs};
use minijinja::{Error, ErrorKind, State, Value};

use super::methods::bind_args;
use super::pyrepr::py_str;

/// Python `int(s, base)` for a string (whitespace, sign, `_` separators,
/// base prefixes); `None` when Python raises `ValueError`.
pub fn parse_py_int(s: &str, base: u32) -> Option<i128> {
    let t = s.trim_matches(super::pystr::is_py_whitespace);
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let lower = t.to_ascii_lowercase();
    let (base, digits) = match (base, lower.get(..2)) {
        (0 | 16, Some("0x")) => (16, &t[2..]),
        (0 | 8, Some("0o")) => (8, &t[2..]),
        (0 | 2, Some("0b")) => (2, &t[2..]),
        (0, _) => {
            if t.len() > 1 && t.starts_with('0') && t.trim_start_matches(['0', '_']).is_empty() {
                return Some(0);
            }
            if t.starts_with('0') && t.len() > 1 {
                return None;
            }
            (10, t)
        }
        (b, _) => (b, t),
    };
    if !(2..=36).contains(&base) {
        return None;
    }
    let digits = digits.strip_prefix('_').filter(|_| base != 10 || s.contains("0")).unwrap_or(digits);
    if digits.is_empty() || digits.starts_with('_') || digits.ends_with('_') || digits.contains("__") {
        return None;
    }
    let mut v: i128 = 0;
    for c in digits.chars() {
        if c == '_' {
            continue;
        }
        let d = c.to_digit(base)? as i128;
        v = v.checked_mul(base as i128)?.checked_add(d)?;
    }
    Some(if neg { -v } else { v })
}

/// Python `float(s)` for a string; `None` when Python raises `ValueError`.
pub fn parse_py_float(s: &str) -> Option<f64> {
    let t = s.trim_matches(super::pystr::is_py_whitespace);
    let lower = t.to_ascii_lowercase();
    let unsigned = lower.trim_start_matches(['+', '-']);
    if lower.len() - unsigned.len() > 1 {
        return None;
    }
    let neg = lower.starts_with('-');
    let special = match unsigned {
        "inf" | "infinity" => Some(f64::INFINITY),
        "nan" => Some(f64::NAN),
        _ => None,
    };
    if let Some(v) = special {
        return Some(if neg { -v } else { v });
    }
    if t.is_empty() || t.contains("__") || t.starts_with('_') || t.ends_with('_') {
        return None;
    }
    let cleaned: String = t.chars().filter(|c| *c != '_').collect();
    if !cleaned.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-')) {
        return None;
    }
    cleaned.parse::<f64>().ok()
}

fn number_value(v: &Value) -> Option<f64> {
    match v.kind() {
        ValueKind::Bool => Some(v.is_true() as i64 as f64),
        ValueKind::Number => f64::try_from(v.clone()).ok(),
        _ => None,
    }
}

/// jinja2's `int(value, default=0, base=10)`.
pub fn int_filter(value: Value, args: Rest<ValueOrKwargs>) -> Result<Value, Error> {
    let a = bind_args("int", &args.into_values(), &["default", "base"], true)?;
    let default = a[0].clone().unwrap_or(Value::from(0));
    let base = a[1].as_ref().and_then(|b| i64::try_from(b.clone()).ok()).unwrap_or(10);
    let from_float = |f: f64| -> Result<Value, Error> {
        if f.is_finite() {
            Ok(Value::from(f.trunc() as i128))
        } else {
            Err(Error::new(ErrorKind::InvalidOperation, "cannot convert float infinity or NaN to integer"))
        }
    };
    match value.kind() {
        ValueKind::String => {
            let s = value.as_str().unwrap_or_default();
            if let Some(i) = parse_py_int(s, base as u32) {
                return Ok(Value::from(i));
            }
            match parse_py_float(s) {
                Some(f) => from_float(f),
                None => Ok(default),
            }
        }
        ValueKind::Bool => Ok(Value::from(value.is_true() as i64)),
        ValueKind::Number if value.is_integer() => Ok(value),
        ValueKind::Number => from_float(number_value(&value).unwrap_or(0.0)),
        _ => Ok(default),
    }
}

/// jinja2's `float(value, default=0.0)`.
pub fn float_filter(value: Value, args: Rest<ValueOrKwargs>) -> Result<Value, Error> {
    let a = bind_args("float", &args.into_values(), &["default"], true)?;
    let default = a[0].clone().unwrap_or(Value::from(0.0));
    Ok(match value.kind() {
        ValueKind::String => parse_py_float(value.as_str().unwrap_or_default()).map(Value::from).unwrap_or(default),
        ValueKind::Bool | ValueKind::Number => Value::from(number_value(&value).unwrap_or(0.0)),
        _ => default,
    })
}

/// Python `str.center(width, fill)`.
pub fn py_center(s: &str, width: i64, fill: char) -> String {
    let len = s.chars().count() as i64;
    let marg = width - len;
    if marg <= 0 {
        return s.to_string();
    }
    let left = marg / 2 + (marg & width & 1);
    let mut out = String::with_capacity(s.len() + marg as usize);
    out.extend(std::iter::repeat_n(fill, left as usize));
    out.push_str(s);
    out.extend(std::iter::repeat_n(fill, (marg - left) as usize));
    out
}

/// jinja2's `center(value, width=80)`.
pub fn center_filter(state: &State, value: Value, args: Rest<ValueOrKwargs>) -> Result<Value, Error> {
    let a = bind_args("center", &args.into_values(), &["width"], true)?;
    let width = a[0].as_ref().map(|w| i64::try_from(w.clone())).transpose()?.unwrap_or(80);
    if width > super::render_state::max_output_bytes() as i64 {
        return Err(super::pyrepr::too_large());
    }
    let s = py_str(state, &value)?;
    Ok(Value::from(py_center(&s, width, ' ')))
}

/// jinja2's `wordcount`: the number of `\w+` runs.
pub fn wordcount_filter(state: &State, value: Value) -> Result<Value, Error> {
    let s = py_str(state, &value)?;
    let mut n = 0;
    let mut in_word = false;
    for c in s.chars() {
        let w = c.is_alphanumeric() || c == '_';
        if w && !in_word {
            n += 1;
        }
        in_word = w;
    }
    Ok(Value::from(n))
}

/// jinja2's `truncate(length=255, killwords=False, end='...', leeway=5)`.
pub fn truncate_filter(state: &State, value: Value, args: Rest<ValueOrKwargs>) -> Result<Value, Error> {
    let a = bind_args("truncate", &args.into_values(), &["length", "killwords", "end", "leeway"], true)?;
    let length = a[0].as_ref().map(|v| i64::try_from(v.clone())).transpose()?.unwrap_or(255);
    let killwords = a[1].as_ref().is_some_and(|v| v.is_true());
    let end = match &a[2] {
        Some(v) => py_str(state, v)?,
        None => "...".to_string(),
    };
    let leeway = a[3].as_ref().filter(|v| !v.is_none()).map(|v| i64::try_from(v.clone())).transpose()?.unwrap_or(5);
    let end_len = end.chars().count() as i64;
    if length < end_len {
        return Err(Error::new(ErrorKind::InvalidOperation, format!("expected length >= {end_len}, got {length}")));
    }
    if leeway < 0 {
        return Err(Error::new(ErrorKind::InvalidOperation, format!("expected leeway >= 0, got {leeway}")));
    }
    let s = py_str(state, &value)?;
    let n = s.chars().count() as i64;
    if n <= length + leeway {
        return Ok(Value::from(s));
    }
    let cut: String = s.chars().take((length - end_len) as usize).collect();
    if killwords {
        return Ok(Value::from(cut + &end));
    }
    let kept = match cut.rfind(' ') {
        Some(i) => &cut[..i],
        None => &cut[..],
    };
    Ok(Value::from(format!("{kept}{end}")))
}

/// jinja2's `iterable` test: `iter(value)` works (not for `none`).
pub fn is_iterable(value: Value) -> bool {
    !value.is_none() && value.try_iter().is_ok()
}

fn not_none(value: &Value) -> Result<(), Error> {
    if value.is_none() {
        Err(super::forloop::not_iterable())
    } else {
        Ok(())
    }
}

// jinja2's list-consuming filters raise on `none` (minijinja treats it as empty)

pub fn list_filter(state: &State, value: Value) -> Result<Value, Error> {
    not_none(&value)?;
    minijinja::filters::list(state, value)
}

pub fn sort_filter(state: &State, value: Value, kwargs: Kwargs) -> Result<Value, Error> {
    not_none(&value)?;
    minijinja::filters::sort(state, value, kwargs)
}

pub fn unique_filter(state: &State, value: Value, kwargs: Kwargs) -> Result<Value, Error> {
    not_none(&value)?;
    minijinja::filters::unique(state, value, kwargs)
}

pub fn sum_filter(
    state: &State,
    value: Value,
    attribute: Option<&str>,
    start: Option<Value>,
    kwargs: Kwargs,
) -> Result<Value, Error> {
    not_none(&value)?;
    minijinja::filters::sum(state, value, attribute, start, kwargs)
}

pub fn min_filter(state: &State, value: Value, kwargs: Kwargs) -> Result<Value, Error> {
    not_none(&value)?;
    minijinja::filters::min(state, value, kwargs)
}

pub fn max_filter(state: &State, value: Value, kwargs: Kwargs) -> Result<Value, Error> {
    not_none(&value)?;
    minijinja::filters::max(state, value, kwargs)
}

pub fn batch_filter(state: &State, value: Value, count: usize, fill_with: Option<Value>) -> Result<Value, Error> {
    not_none(&value)?;
    minijinja::filters::batch(state, value, count, fill_with)
}

pub fn slice_filter(state: &State, value: Value, count: usize, fill_with: Option<Value>) -> Result<Value, Error> {
    not_none(&value)?;
    minijinja::filters::slice(state, value, count, fill_with)
}

/// jinja2's `sequence` test: anything with a length and indexing.
pub fn is_sequence(value: Value) -> bool {
    match value.kind() {
        // jinja2's Undefined has a length (0) and __getitem__
        ValueKind::String | ValueKind::Seq | ValueKind::Map | ValueKind::Undefined => true,
        ValueKind::Iterable => value.len().is_some(),
        _ => false,
    }
}

fn reject_underscore(name: &str) -> Result<(), Error> {
    if name.starts_with('_') {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("Chat templates cannot store underscore-prefixed attributes on a namespace, but got {name:?}. Please rename the attribute."),
        ));
    }
    Ok(())
}

/// transformers' `namespace(*args, **kwargs)`: like `dict(...)`, rejecting
/// underscore-prefixed names.
pub fn namespace(state: &State, args: Rest<ValueOrKwargs>) -> Result<Value, Error> {
    let values = args.into_values();
    let mut pairs: Vec<(String, Value)> = Vec::new();
    for v in &values {
        if v.is_kwargs() {
            let kw = Kwargs::try_from(v.clone())?;
            for name in kw.args().map(str::to_string).collect::<Vec<_>>() {
                let val: Value = kw.get(&name)?;
                pairs.push((name, val));
            }
        } else if let Some(it) = v.as_object().and_then(|o| o.try_iter_pairs()) {
            for (k, val) in it {
                pairs.push((k.as_str().map(str::to_string).unwrap_or_else(|| k.to_string()), val));
            }
        } else if !v.is_undefined() && !v.is_none() {
            return Err(Error::new(ErrorKind::InvalidOperation, format!("cannot convert {} to a dict", v.kind())));
        }
    }
    for (k, v) in &pairs {
        reject_underscore(k)?;
        super::sandbox::check_value(state, v, true)?;
    }
    if pairs.is_empty() {
        return minijinja::functions::namespace(None);
    }
    let kwargs: Kwargs = pairs.into_iter().collect();
    minijinja::functions::namespace(Some(ValueOrKwargs::from(Value::from(kwargs))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_int_and_float_parsing() {
        assert_eq!(parse_py_int(" 42 ", 10), Some(42));
        assert_eq!(parse_py_int("-1_000", 10), Some(-1000));
        assert_eq!(parse_py_int("0x1A", 16), Some(26));
        assert_eq!(parse_py_int("1A", 16), Some(26));
        assert_eq!(parse_py_int("3.7", 10), None);
        assert_eq!(parse_py_int("abc", 10), None);
        assert_eq!(parse_py_int("1__0", 10), None);
        assert_eq!(parse_py_float("1e3"), Some(1000.0));
        assert_eq!(parse_py_float(" -inf "), Some(f64::NEG_INFINITY));
        assert_eq!(parse_py_float("x"), None);
        assert_eq!(py_center("hello world", 21, ' '), "     hello world     ");
        assert_eq!(py_center("ab", 5, '*'), "**ab*");
        assert_eq!(py_center("abc", 6, '*'), "*abc**");
    }
}
