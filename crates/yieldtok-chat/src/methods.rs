//! The unknown-method callback: Python methods called on template values
//! (`message.content.strip()`, `s.split('</think>')`, `d.items()`, ...).
//!
//! Our Python-exact string methods from [`pystr`](super::pystr) come first
//! (`strip`/`lstrip`/`rstrip`/`split`/`rsplit`/`splitlines`/`title`/
//! `isspace`); everything else falls back to `minijinja-contrib`'s pycompat.

use minijinja::value::{Kwargs, ValueKind};
use minijinja::{Error, ErrorKind, State, Value};

use super::pystr;

/// Splits `args` into positional values and keyword arguments and matches
/// them against `names` the way Python does for `def m(self, a=..., b=...)`.
pub(crate) fn bind_args(
    method: &str,
    args: &[Value],
    names: &[&str],
    kw_allowed: bool,
) -> Result<Vec<Option<Value>>, Error> {
    let (positional, kwargs) = match args.last() {
        Some(last) if last.is_kwargs() => (&args[..args.len() - 1], Some(Kwargs::try_from(last.clone())?)),
        _ => (args, None),
    };
    if positional.len() > names.len() {
        return Err(Error::new(
            ErrorKind::TooManyArguments,
            format!("{method}() takes at most {} arguments ({} given)", names.len(), positional.len()),
        ));
    }
    let mut out: Vec<Option<Value>> = names.iter().map(|_| None).collect();
    for (i, v) in positional.iter().enumerate() {
        out[i] = Some(v.clone());
    }
    if let Some(kwargs) = kwargs {
        if !kw_allowed {
            return Err(Error::new(ErrorKind::TooManyArguments, format!("{method}() takes no keyword arguments")));
        }
        for (i, name) in names.iter().enumerate() {
            if kwargs.has(name) {
                if out[i].is_some() {
                    return Err(Error::new(
                        ErrorKind::InvalidOperation,
                        format!("{method}() got multiple values for argument '{name}'"),
                    ));
                }
                out[i] = Some(kwargs.get::<Value>(name)?);
            }
        }
        kwargs.assert_all_used()?;
    }
    Ok(out)
}

fn check_width(width: i64) -> Result<(), Error> {
    if width > super::render_state::max_output_bytes() as i64 {
        Err(super::pyrepr::too_large())
    } else {
        Ok(())
    }
}

/// Python's slice-index normalisation for `start`/`end` arguments.
fn slice_index(v: &Option<Value>, default: i64, n: i64) -> Result<i64, Error> {
    let i = match v {
        None => return Ok(default),
        Some(v) if v.is_none() => return Ok(default),
        Some(v) => i64::try_from(v.clone())
            .map_err(|_| Error::new(ErrorKind::InvalidOperation, "slice indices must be integers or None"))?,
    };
    Ok(if i < 0 { (i + n).max(0) } else { i.min(n) })
}

/// `s[start:end]` in characters; `None` when `start` is past the end (Python's startswith then answers False).
fn char_slice<'a>(s: &'a str, start: &Option<Value>, end: &Option<Value>) -> Result<Option<&'a str>, Error> {
    if start.is_none() && end.is_none() {
        return Ok(Some(s));
    }
    let n = s.chars().count() as i64;
    let raw_start = match start {
        Some(v) if !v.is_none() => i64::try_from(v.clone()).unwrap_or(0),
        _ => 0,
    };
    if raw_start > n {
        return Ok(None);
    }
    let (a, b) = (slice_index(start, 0, n)?, slice_index(end, n, n)?);
    Ok(Some(if a >= b { "" } else { char_range(s, a, b) }))
}

fn char_range(s: &str, start: i64, end: i64) -> &str {
    let byte = |ci: i64| s.char_indices().nth(ci as usize).map(|(b, _)| b).unwrap_or(s.len());
    &s[byte(start)..byte(end)]
}

/// `None`/absent → None, a string → Some, anything else → TypeError.
fn opt_str<'a>(method: &str, v: &'a Option<Value>) -> Result<Option<&'a str>, Error> {
    match v {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) => match v.as_str() {
            Some(s) => Ok(Some(s)),
            None => Err(Error::new(
                ErrorKind::InvalidOperation,
                format!("{method} arg must be None or str, not {}", v.kind()),
            )),
        },
    }
}

fn opt_int(method: &str, v: &Option<Value>, default: i64) -> Result<i64, Error> {
    match v {
        None => Ok(default),
        Some(v) if v.kind() == ValueKind::Bool => Ok(v.is_true() as i64),
        Some(v) if v.is_integer() => i64::try_from(v.clone()).or(Ok(i64::MAX)),
        Some(v) => Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("{method}(): '{}' object cannot be interpreted as an integer", v.kind()),
        )),
    }
}

fn strs(v: Vec<&str>) -> Value {
    Value::from(v.into_iter().map(Value::from).collect::<Vec<_>>())
}

fn string_method(s: &str, method: &str, args: &[Value]) -> Option<Result<Value, Error>> {
    Some((|| match method {
        "strip" | "lstrip" | "rstrip" => {
            let a = bind_args(method, args, &["chars"], false)?;
            let chars = opt_str(method, &a[0])?;
            Ok(Value::from(match method {
                "strip" => pystr::strip(s, chars),
                "lstrip" => pystr::lstrip(s, chars),
                _ => pystr::rstrip(s, chars),
            }))
        }
        "split" | "rsplit" => {
            let a = bind_args(method, args, &["sep", "maxsplit"], true)?;
            let sep = opt_str(method, &a[0])?;
            let maxsplit = opt_int(method, &a[1], -1)?;
            let parts =
                if method == "split" { pystr::split(s, sep, maxsplit) } else { pystr::rsplit(s, sep, maxsplit) };
            parts.map(strs).map_err(|msg| Error::new(ErrorKind::InvalidOperation, msg))
        }
        "splitlines" => {
            let a = bind_args(method, args, &["keepends"], true)?;
            let keepends = opt_int(method, &a[0], 0)? != 0;
            Ok(strs(pystr::splitlines(s, keepends)))
        }
        "title" => {
            bind_args(method, args, &[], false)?;
            Ok(Value::from(pystr::title(s)))
        }
        "isspace" => {
            bind_args(method, args, &[], false)?;
            Ok(Value::from(pystr::isspace(s)))
        }
        "startswith" | "endswith" => {
            let a = bind_args(method, args, &["prefix", "start", "end"], false)?;
            let Some(needle) = &a[0] else {
                return Err(Error::new(
                    ErrorKind::MissingArgument,
                    format!("{method}() takes at least 1 argument (0 given)"),
                ));
            };
            let Some(hay) = char_slice(s, &a[1], &a[2])? else {
                return Ok(Value::from(false));
            };
            let test = |p: &str| {
                if method == "startswith" {
                    hay.starts_with(p)
                } else {
                    hay.ends_with(p)
                }
            };
            if let Some(p) = needle.as_str() {
                return Ok(Value::from(test(p)));
            }
            if matches!(needle.kind(), ValueKind::Seq | ValueKind::Iterable) {
                for p in needle.try_iter()? {
                    let Some(p) = p.as_str() else {
                        return Err(Error::new(
                            ErrorKind::InvalidOperation,
                            format!("tuple for {method} must only contain str, not {}", p.kind()),
                        ));
                    };
                    if test(p) {
                        return Ok(Value::from(true));
                    }
                }
                return Ok(Value::from(false));
            }
            Err(Error::new(
                ErrorKind::InvalidOperation,
                format!("{method} first arg must be str or a tuple of str, not {}", needle.kind()),
            ))
        }
        "find" | "rfind" | "index" | "rindex" | "count" => {
            let a = bind_args(method, args, &["sub", "start", "end"], false)?;
            let sub = match &a[0] {
                Some(v) => v
                    .as_str()
                    .ok_or_else(|| Error::new(ErrorKind::InvalidOperation, format!("must be str, not {}", v.kind())))?,
                None => {
                    return Err(Error::new(
                        ErrorKind::MissingArgument,
                        format!("{method}() takes at least 1 argument (0 given)"),
                    ))
                }
            };
            let n = s.chars().count() as i64;
            let (start, end) = (slice_index(&a[1], 0, n)?, slice_index(&a[2], n, n)?);
            if start > n || start > end {
                return match method {
                    "index" | "rindex" => Err(Error::new(ErrorKind::InvalidOperation, "substring not found")),
                    "count" => Ok(Value::from(0)),
                    _ => Ok(Value::from(-1)),
                };
            }
            let hay = char_range(s, start, end.max(start));
            let to_chars = |byte: usize| hay[..byte].chars().count() as i64 + start;
            match method {
                "count" => Ok(Value::from(if sub.is_empty() {
                    hay.chars().count() as i64 + 1
                } else {
                    hay.matches(sub).count() as i64
                })),
                "find" | "index" => match hay.find(sub) {
                    Some(b) => Ok(Value::from(to_chars(b))),
                    None if method == "find" => Ok(Value::from(-1)),
                    None => Err(Error::new(ErrorKind::InvalidOperation, "substring not found")),
                },
                _ => match hay.rfind(sub) {
                    Some(b) => Ok(Value::from(to_chars(b))),
                    None if method == "rfind" => Ok(Value::from(-1)),
                    None => Err(Error::new(ErrorKind::InvalidOperation, "substring not found")),
                },
            }
        }
        "center" | "ljust" | "rjust" => {
            let a = bind_args(method, args, &["width", "fillchar"], false)?;
            let width = opt_int(method, &a[0], 0)?;
            let fill = match opt_str(method, &a[1])? {
                None => ' ',
                Some(f) if f.chars().count() == 1 => f.chars().next().unwrap(),
                Some(_) => {
                    return Err(Error::new(
                        ErrorKind::InvalidOperation,
                        "The fill character must be exactly one character long",
                    ))
                }
            };
            check_width(width)?;
            let len = s.chars().count() as i64;
            let pad = (width - len).max(0) as usize;
            Ok(Value::from(match method {
                "center" => super::pyconv::py_center(s, width, fill),
                "ljust" => format!("{s}{}", fill.to_string().repeat(pad)),
                _ => format!("{}{s}", fill.to_string().repeat(pad)),
            }))
        }
        "zfill" => {
            let a = bind_args(method, args, &["width"], false)?;
            let width = opt_int(method, &a[0], 0)?;
            check_width(width)?;
            let len = s.chars().count() as i64;
            if width <= len {
                return Ok(Value::from(s));
            }
            let zeros = "0".repeat((width - len) as usize);
            Ok(Value::from(match s.chars().next() {
                Some(c @ ('+' | '-')) => format!("{c}{zeros}{}", &s[1..]),
                _ => format!("{zeros}{s}"),
            }))
        }
        "swapcase" => {
            bind_args(method, args, &[], false)?;
            let mut out = String::with_capacity(s.len());
            for c in s.chars() {
                if c.is_uppercase() {
                    out.extend(c.to_lowercase());
                } else if c.is_lowercase() {
                    out.extend(c.to_uppercase());
                } else {
                    out.push(c);
                }
            }
            Ok(Value::from(out))
        }
        "casefold" => {
            bind_args(method, args, &[], false)?;
            Ok(Value::from(s.to_lowercase().replace('ß', "ss")))
        }
        "capitalize" => {
            bind_args(method, args, &[], false)?;
            let mut chars = s.chars();
            let Some(first) = chars.next() else {
                return Ok(Value::from(""));
            };
            let mut out = pystr::title(&first.to_string());
            out.push_str(&pystr::lower_rest(s, first.len_utf8()));
            Ok(Value::from(out))
        }
        "partition" | "rpartition" => {
            let a = bind_args(method, args, &["sep"], false)?;
            let sep = opt_str(method, &a[0])?
                .ok_or_else(|| Error::new(ErrorKind::InvalidOperation, "must be str, not None"))?;
            if sep.is_empty() {
                return Err(Error::new(ErrorKind::InvalidOperation, "empty separator"));
            }
            let found = if method == "partition" { s.find(sep) } else { s.rfind(sep) };
            let parts: [Value; 3] = match found {
                Some(i) => [Value::from(&s[..i]), Value::from(sep), Value::from(&s[i + sep.len()..])],
                None if method == "partition" => [Value::from(s), Value::from(""), Value::from("")],
                None => [Value::from(""), Value::from(""), Value::from(s)],
            };
            Ok(Value::from_object(minijinja::value::Tuple::from(parts)))
        }
        "removeprefix" | "removesuffix" => {
            let a = bind_args(method, args, &["affix"], false)?;
            let affix = opt_str(method, &a[0])?.unwrap_or("");
            Ok(Value::from(if method == "removeprefix" {
                s.strip_prefix(affix).unwrap_or(s)
            } else {
                s.strip_suffix(affix).unwrap_or(s)
            }))
        }
        "join" => {
            let a = bind_args(method, args, &["iterable"], false)?;
            let Some(items) = &a[0] else {
                return Err(Error::new(ErrorKind::MissingArgument, "join() takes exactly one argument (0 given)"));
            };
            let mut out = String::new();
            for (i, item) in items.try_iter()?.enumerate() {
                let Some(part) = item.as_str() else {
                    return Err(Error::new(
                        ErrorKind::InvalidOperation,
                        format!("sequence item {i}: expected str instance, {} found", item.kind()),
                    ));
                };
                if i > 0 {
                    out.push_str(s);
                }
                out.push_str(part);
                if out.len() > super::render_state::max_output_bytes() {
                    return Err(super::pyrepr::too_large());
                }
            }
            Ok(Value::from(out))
        }
        _ => Err(Error::from(ErrorKind::UnknownMethod)),
    })())
    .filter(|r| !matches!(r, Err(e) if e.kind() == ErrorKind::UnknownMethod))
}

/// The callback registered with `Environment::set_unknown_method_callback`.
pub fn unknown_method_callback(state: &mut State, value: &Value, method: &str, args: &[Value]) -> Result<Value, Error> {
    if let Some(s) = value.as_str() {
        if let Some(result) = string_method(s, method, args) {
            return result;
        }
    }
    minijinja_contrib::pycompat::unknown_method_callback(state, value, method, args)
}
