//! Python `str()` / `repr()` of template values, and the output formatter.
//!
//! jinja2 prints `{{ x }}` as Python's `str(x)`: floats in `repr` form
//! (`1e-07`), containers as Python reprs (`[{'type': 'text', 'text': 'hi'}]`,
//! `True`, `None`, strings quoted the way Python picks quotes). The same
//! conversion backs the `trim` and `string` filters. Serialising a container
//! is bounded by the render's fuel and output limits (a list may hold the
//! same big string many times) and by a depth limit (namespaces can be made
//! to contain themselves).

use std::fmt::Write as _;

use minijinja::value::{Rest, Tuple, ValueKind, ValueOrKwargs};
use minijinja::{Error, ErrorKind, Output, State, Value};

use super::pyfloat;

/// Deepest container nesting printed before giving up with an error.
pub const MAX_DEPTH: usize = 256;

/// Serialised output is charged at this many bytes per fuel (like
/// minijinja's own serialisers: 16 units of 64 per byte).
pub const SERIALIZED_BYTES_PER_FUEL: u64 = 4;

/// Largest number of bytes a serialisation may produce in this render.
pub fn serialization_budget(state: &State) -> usize {
    let mut budget = super::render_state::max_output_bytes();
    if let Some((_, remaining)) = state.fuel_levels() {
        let by_fuel = remaining.saturating_mul(SERIALIZED_BYTES_PER_FUEL);
        budget = budget.min(usize::try_from(by_fuel).unwrap_or(usize::MAX));
    }
    budget
}

/// Charges fuel for `n` serialised bytes.
pub fn charge_serialized(state: &State, n: usize) -> Result<(), Error> {
    let fuel = n as u64 / SERIALIZED_BYTES_PER_FUEL;
    if fuel > 0 {
        state.consume_fuel(fuel)
    } else {
        Ok(())
    }
}

pub(crate) fn too_large() -> Error {
    super::render_state::note_output_too_large();
    Error::new(ErrorKind::InvalidOperation, "value is too large to serialize")
}

fn too_deep() -> Error {
    Error::new(ErrorKind::InvalidOperation, "value is nested too deeply to serialize")
}

struct Writer {
    out: String,
    budget: usize,
}

impl Writer {
    #[inline]
    fn push_str(&mut self, s: &str) -> Result<(), Error> {
        if self.out.len() + s.len() > self.budget {
            return Err(too_large());
        }
        self.out.push_str(s);
        Ok(())
    }
    #[inline]
    fn push(&mut self, c: char) -> Result<(), Error> {
        if self.out.len() + c.len_utf8() > self.budget {
            return Err(too_large());
        }
        self.out.push(c);
        Ok(())
    }
}

/// Python `str(value)`.
pub fn py_str(state: &State, value: &Value) -> Result<String, Error> {
    if let Some(s) = value.as_str() {
        return Ok(s.to_string());
    }
    let mut w = Writer { out: String::new(), budget: serialization_budget(state) };
    write_value(&mut w, value, false, 0)?;
    if matches!(value.kind(), ValueKind::Seq | ValueKind::Map | ValueKind::Iterable) {
        charge_serialized(state, w.out.len())?;
    }
    Ok(w.out)
}

/// Python `repr(value)`.
pub fn py_repr(state: &State, value: &Value) -> Result<String, Error> {
    let mut w = Writer { out: String::new(), budget: serialization_budget(state) };
    write_value(&mut w, value, true, 0)?;
    charge_serialized(state, w.out.len())?;
    Ok(w.out)
}

/// The environment's formatter: `{{ value }}` prints Python's `str(value)`.
pub fn formatter(out: &mut Output, state: &mut State, value: &Value) -> Result<(), Error> {
    let write_err = |_| Error::new(ErrorKind::WriteFailure, "could not write output");
    match value.kind() {
        ValueKind::String => out.write_str(value.as_str().unwrap_or_default()).map_err(write_err),
        ValueKind::Undefined => Ok(()),
        ValueKind::Number if !value.is_integer() => {
            let f = f64::try_from(value.clone()).unwrap_or(f64::NAN);
            out.write_str(&pyfloat::repr(f)).map_err(write_err)
        }
        ValueKind::Seq | ValueKind::Map | ValueKind::Iterable => {
            let s = py_str(state, value)?;
            out.write_str(&s).map_err(write_err)
        }
        _ => write!(out, "{value}").map_err(write_err),
    }
}

fn write_value(w: &mut Writer, value: &Value, repr: bool, depth: usize) -> Result<(), Error> {
    if depth > MAX_DEPTH {
        return Err(too_deep());
    }
    match value.kind() {
        ValueKind::Undefined => w.push_str(if repr { "Undefined" } else { "" }),
        ValueKind::None => w.push_str("None"),
        ValueKind::Bool => w.push_str(if value.is_true() { "True" } else { "False" }),
        ValueKind::Number => {
            if value.is_integer() {
                w.push_str(&value.to_string())
            } else {
                let f = f64::try_from(value.clone()).unwrap_or(f64::NAN);
                w.push_str(&pyfloat::repr(f))
            }
        }
        ValueKind::String => {
            let s = value.as_str().unwrap_or_default();
            if repr {
                if w.out.len() + s.len() > w.budget {
                    return Err(too_large());
                }
                write_str_repr(&mut w.out, s);
                if w.out.len() > w.budget {
                    return Err(too_large());
                }
                Ok(())
            } else {
                w.push_str(s)
            }
        }
        ValueKind::Bytes => {
            let b = value.as_bytes().unwrap_or_default();
            w.push_str("b'")?;
            for &byte in b {
                match byte {
                    b'\'' => w.push_str("\\'")?,
                    b'\\' => w.push_str("\\\\")?,
                    b'\t' => w.push_str("\\t")?,
                    b'\n' => w.push_str("\\n")?,
                    b'\r' => w.push_str("\\r")?,
                    0x20..=0x7e => w.push(byte as char)?,
                    _ => w.push_str(&format!("\\x{byte:02x}"))?,
                }
            }
            w.push('\'')
        }
        ValueKind::Seq if value.downcast_object_ref::<Tuple>().is_some() => {
            let items: Vec<Value> = value.try_iter()?.collect();
            w.push('(')?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    w.push_str(", ")?;
                }
                write_value(w, item, true, depth + 1)?;
            }
            if items.len() == 1 {
                w.push(',')?;
            }
            w.push(')')
        }
        ValueKind::Seq | ValueKind::Iterable => {
            w.push('[')?;
            for (i, item) in value.try_iter()?.enumerate() {
                if i > 0 {
                    w.push_str(", ")?;
                }
                write_value(w, &item, true, depth + 1)?;
            }
            w.push(']')
        }
        ValueKind::Map => {
            w.push('{')?;
            let obj = value.as_object();
            let pairs = obj.and_then(|o| o.try_iter_pairs());
            match pairs {
                Some(pairs) => {
                    for (i, (k, v)) in pairs.enumerate() {
                        if i > 0 {
                            w.push_str(", ")?;
                        }
                        write_value(w, &k, true, depth + 1)?;
                        w.push_str(": ")?;
                        write_value(w, &v, true, depth + 1)?;
                    }
                }
                None => {
                    for (i, k) in value.try_iter()?.enumerate() {
                        if i > 0 {
                            w.push_str(", ")?;
                        }
                        let v = value.get_item(&k).unwrap_or_default();
                        write_value(w, &k, true, depth + 1)?;
                        w.push_str(": ")?;
                        write_value(w, &v, true, depth + 1)?;
                    }
                }
            }
            w.push('}')
        }
        _ => w.push_str(&value.to_string()),
    }
}

/// Python `repr(str)`.
pub fn write_str_repr(out: &mut String, s: &str) {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    out.push(quote);
    for c in s.chars() {
        match c {
            c if c == quote || c == '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (c as u32) < 0x7f => out.push(c),
            c if is_printable(c) => out.push(c),
            c => {
                let cp = c as u32;
                let _ = if cp <= 0xff {
                    write!(out, "\\x{cp:02x}")
                } else if cp <= 0xffff {
                    write!(out, "\\u{cp:04x}")
                } else {
                    write!(out, "\\U{cp:08x}")
                };
            }
        }
    }
    out.push(quote);
}

/// Python's `str.isprintable()` for one non-ASCII character: false for the
/// categories Cc, Cf, Co, Zl, Zp, Zs and the noncharacters. Unassigned code
/// points (Cn) are not tracked and count as printable here.
pub fn is_printable(c: char) -> bool {
    let cp = c as u32;
    !matches!(cp,
        0x80..=0xa0 | 0xad | 0x600..=0x605 | 0x61c | 0x6dd | 0x70f | 0x890..=0x891 | 0x8e2 |
        0x1680 | 0x180e | 0x2000..=0x200f | 0x2028..=0x202f | 0x205f..=0x2064 | 0x2066..=0x206f |
        0x3000 | 0xd800..=0xf8ff | 0xfdd0..=0xfdef | 0xfeff | 0xfff9..=0xfffb | 0xfffe..=0xffff |
        0x110bd | 0x110cd | 0x13430..=0x1343f | 0x1bca0..=0x1bca3 | 0x1d173..=0x1d17a |
        0xe0001 | 0xe0020..=0xe007f | 0xf0000..=0x10ffff)
        && (cp & 0xfffe) != 0xfffe
}

/// jinja2's `string` filter: Python `str(value)`.
pub fn string_filter(state: &State, value: Value) -> Result<Value, Error> {
    if value.kind() == ValueKind::String {
        return Ok(value);
    }
    py_str(state, &value).map(Value::from)
}

/// jinja2's `attr` filter: Python `getattr` only, never item lookup. Plain
/// data (dicts, lists, strings, numbers) has no template-visible attributes,
/// so it gives undefined; engine objects (`loop`, ...) keep their attributes.
/// (Namespaces are maps here and also give undefined, unlike jinja2.)
pub fn attr_filter(value: Value, name: Value) -> Result<Value, Error> {
    match value.kind() {
        ValueKind::Plain => match name.as_str() {
            Some(n) => Ok(value.get_attr(n).unwrap_or(Value::UNDEFINED)),
            None => Ok(Value::UNDEFINED),
        },
        _ => Ok(Value::UNDEFINED),
    }
}

/// jinja2's `pprint` (Python's `pformat`; here its one-line form, `repr`).
pub fn pprint_filter(state: &State, value: Value) -> Result<Value, Error> {
    py_repr(state, &value).map(Value::from)
}

fn lookup_path(value: &Value, path: &str) -> Value {
    let mut cur = value.clone();
    for part in path.split('.') {
        cur = match part.parse::<usize>() {
            Ok(i) => cur.get_item_by_index(i).unwrap_or(Value::UNDEFINED),
            Err(_) => cur.get_attr(part).unwrap_or(Value::UNDEFINED),
        };
    }
    cur
}

/// jinja2's `join(d='', attribute=None)`: `str(d).join(map(str, value))`.
pub fn join_filter(state: &State, value: Value, args: Rest<ValueOrKwargs>) -> Result<Value, Error> {
    let a = super::methods::bind_args("join", &args.into_values(), &["d", "attribute"], true)?;
    let sep = match &a[0] {
        None => String::new(),
        Some(d) => py_str(state, d)?,
    };
    let attribute = a[1].as_ref().filter(|v| !v.is_none() && !v.is_undefined()).map(|v| v.to_string());
    if value.is_none() {
        return Err(super::forloop::not_iterable());
    }
    if value.is_undefined() {
        return Ok(Value::from(""));
    }
    let budget = serialization_budget(state);
    let mut out = String::new();
    for (i, item) in value.try_iter()?.enumerate() {
        if i > 0 {
            out.push_str(&sep);
        }
        let item = match &attribute {
            Some(path) => lookup_path(&item, path),
            None => item,
        };
        out.push_str(&py_str(state, &item)?);
        if out.len() > budget {
            return Err(too_large());
        }
    }
    charge_serialized(state, out.len())?;
    Ok(Value::from(out))
}

/// jinja2's `items`: the `(key, value)` tuples of a mapping.
pub fn items_filter(value: Value) -> Result<Value, Error> {
    if value.is_undefined() {
        return Ok(Value::from(Vec::<Value>::new()));
    }
    if value.kind() != ValueKind::Map {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("Can only get item pairs from a mapping, not {}", value.kind()),
        ));
    }
    let pairs = value.as_object().and_then(|o| o.try_iter_pairs()).into_iter().flatten();
    Ok(Value::from(pairs.map(|(k, v)| Value::from_object(Tuple::from([k, v]))).collect::<Vec<_>>()))
}

/// Python's `<` ordering between two template values (`TypeError` for mixed types).
pub fn py_cmp(a: &Value, b: &Value) -> Result<std::cmp::Ordering, Error> {
    use std::cmp::Ordering;
    let num = |v: &Value| -> Option<f64> {
        match v.kind() {
            ValueKind::Bool => Some(v.is_true() as i64 as f64),
            ValueKind::Number => f64::try_from(v.clone()).ok(),
            _ => None,
        }
    };
    match (a.kind(), b.kind()) {
        (ValueKind::String, ValueKind::String) => {
            Ok(a.as_str().unwrap_or_default().cmp(b.as_str().unwrap_or_default()))
        }
        (ValueKind::Number | ValueKind::Bool, ValueKind::Number | ValueKind::Bool) => {
            if a.is_integer() && b.is_integer() {
                if let (Ok(x), Ok(y)) = (i128::try_from(a.clone()), i128::try_from(b.clone())) {
                    return Ok(x.cmp(&y));
                }
            }
            Ok(num(a).partial_cmp(&num(b)).unwrap_or(Ordering::Equal))
        }
        (ValueKind::Seq, ValueKind::Seq) => {
            let (xs, ys): (Vec<Value>, Vec<Value>) = (a.try_iter()?.collect(), b.try_iter()?.collect());
            for (x, y) in xs.iter().zip(ys.iter()) {
                let o = py_cmp(x, y)?;
                if o != Ordering::Equal {
                    return Ok(o);
                }
            }
            Ok(xs.len().cmp(&ys.len()))
        }
        (ka, kb) => Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("'<' not supported between instances of {ka} and {kb}"),
        )),
    }
}

/// jinja2's `dictsort(case_sensitive=False, by='key', reverse=False)`.
pub fn dictsort_filter(state: &State, value: Value, args: Rest<ValueOrKwargs>) -> Result<Value, Error> {
    let a = super::methods::bind_args("dictsort", &args.into_values(), &["case_sensitive", "by", "reverse"], true)?;
    let case_sensitive = a[0].as_ref().is_some_and(|v| v.is_true());
    let pos = match a[1].as_ref().and_then(|v| v.as_str().map(str::to_string)).as_deref() {
        None | Some("key") => 0,
        Some("value") => 1,
        Some(_) => {
            return Err(Error::new(ErrorKind::InvalidOperation, "You can only sort by either \"key\" or \"value\""))
        }
    };
    let reverse = a[2].as_ref().is_some_and(|v| v.is_true());
    if value.kind() != ValueKind::Map {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("'{}' object has no attribute 'items'", value.kind()),
        ));
    }
    let mut items: Vec<(Value, Value)> =
        value.as_object().and_then(|o| o.try_iter_pairs()).into_iter().flatten().collect();
    state.consume_fuel(items.len() as u64)?;
    let key = |item: &(Value, Value)| -> Value {
        let v = if pos == 0 { item.0.clone() } else { item.1.clone() };
        match (case_sensitive, v.as_str()) {
            (false, Some(s)) => Value::from(s.to_lowercase()),
            _ => v,
        }
    };
    let mut err = None;
    // Python's sort is stable; `reverse=True` keeps equal items in order too
    items.sort_by(|x, y| {
        let o = py_cmp(&key(x), &key(y)).unwrap_or_else(|e| {
            err.get_or_insert(e);
            std::cmp::Ordering::Equal
        });
        if reverse {
            o.reverse()
        } else {
            o
        }
    });
    if let Some(e) = err {
        return Err(e);
    }
    Ok(Value::from(items.into_iter().map(|(k, v)| Value::from_object(Tuple::from([k, v]))).collect::<Vec<_>>()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repr_of(s: &str) -> String {
        let mut out = String::new();
        write_str_repr(&mut out, s);
        out
    }

    #[test]
    fn python_str_repr() {
        assert_eq!(repr_of("abc"), "'abc'");
        assert_eq!(repr_of("it's"), "\"it's\"");
        assert_eq!(repr_of("it's \"x\""), "'it\\'s \"x\"'");
        assert_eq!(repr_of("a\nb\tc\\"), "'a\\nb\\tc\\\\'");
        assert_eq!(repr_of("\u{1b}\u{7f}"), "'\\x1b\\x7f'");
        assert_eq!(repr_of("\u{a0}é\u{200b}\u{3000}日本"), "'\\xa0é\\u200b\\u3000日本'");
        assert_eq!(repr_of("😀\u{e000}\u{10ffff}"), "'😀\\ue000\\U0010ffff'");
    }
}
