//! Defences for untrusted templates beyond fuel and the recursion limit.
//!
//! minijinja recurses (without a depth check) when it drops, compares or
//! prints nested values, so a template that nests a value thousands of
//! levels deep in a loop (`{% set ns.x = [ns.x] %}`), chains namespaces, or
//! makes a namespace contain itself (`{% set ns.me = ns %}`) could overflow
//! the stack, which aborts the process. Namespaces are the only mutable
//! values, and values outlive one expression only through `{% set %}`, so:
//!
//! * every `{% set target = expr %}` is rewritten to
//!   `{% set target = (expr)|__yieldtok_guard %}`, which checks (iteratively,
//!   one fuel per node) that the value is at most [`MAX_VALUE_DEPTH`] deep;
//! * when the target is a namespace attribute (`ns.attr`), the guard
//!   (`__yieldtok_guard_ns`) also refuses values that contain a namespace,
//!   and so does `namespace(...)` for its initial values. Namespaces thus
//!   never contain namespaces: no cycles, no unbounded chains, and every
//!   value stays a few hundred levels deep at most. (jinja2 would allow a
//!   namespace inside a namespace; no real chat template does that.)
//!
//! The walk costs fuel per item but skips the render's input containers
//! (messages, tools, documents and their items, known to be shallow), and a
//! lazy sequence is stored as a list, so the common
//! `{% set ns.items = ns.items + [x] %}` loop stays cheap.
//!
//! Within one expression, nesting is bounded by the parser's own limit and
//! by [`MAX_FILTERS_PER_TAG`]. Inputs are checked to be at most
//! [`MAX_INPUT_DEPTH`] levels deep.

use minijinja::value::ValueKind;
use minijinja::{Error, ErrorKind, State, Value};
use serde_json::Value as Json;

use super::render_state;
use super::scan::{self, TagKind};

/// Name of the filter that `{% set name = ... %}` values pass through.
pub const GUARD_FILTER: &str = "__yieldtok_guard";
/// Name of the filter that `{% set ns.attr = ... %}` values pass through.
pub const GUARD_NS_FILTER: &str = "__yieldtok_guard_ns";
/// Deepest value a template may store with `{% set %}`.
pub const MAX_VALUE_DEPTH: usize = 256;
/// Deepest input (messages, tools, documents, kwargs) accepted.
pub const MAX_INPUT_DEPTH: usize = 128;
/// Most filters (`|`) in one tag.
pub const MAX_FILTERS_PER_TAG: usize = 256;

/// Static checks and the `{% set %}` rewrite. Returns the edits to apply.
pub fn set_guard_edits(src: &str) -> Result<Vec<(std::ops::Range<usize>, String)>, String> {
    let mut edits = Vec::new();
    for tag in scan::tags(src) {
        let inner = tag.inner(src);
        if count_pipes(inner) > MAX_FILTERS_PER_TAG {
            return Err(format!("more than {MAX_FILTERS_PER_TAG} filters in one tag"));
        }
        if tag.kind != TagKind::Block || scan::first_word(inner) != "set" {
            continue;
        }
        let Some(eq) = top_level_assign(inner) else {
            continue;
        }; // block set: captures a string
        let expr = &inner[eq + 1..];
        if expr.trim().is_empty() {
            continue;
        }
        let target = &inner[..eq];
        let guard = if target.contains('.') || target.contains('[') { GUARD_NS_FILTER } else { GUARD_FILTER };
        let start = tag.inner_start + eq + 1;
        edits.push((start..tag.inner_end, format!(" ({})|{guard} ", expr.trim())));
    }
    Ok(edits)
}

fn count_pipes(inner: &str) -> usize {
    let b = inner.as_bytes();
    let (mut i, mut n) = (0, 0);
    while i < b.len() {
        match b[i] {
            b'\'' | b'"' => i = scan::skip_string(b, i),
            b'|' => {
                n += 1;
                i += 1
            }
            _ => i += 1,
        }
    }
    n
}

/// Position of the assignment `=` (outside strings and brackets, not part of `==`, `!=`, `<=`, `>=`).
fn top_level_assign(inner: &str) -> Option<usize> {
    let b = inner.as_bytes();
    let (mut i, mut depth) = (0usize, 0i32);
    while i < b.len() {
        match b[i] {
            b'\'' | b'"' => {
                i = scan::skip_string(b, i);
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b'=' if depth == 0 => {
                let prev = if i > 0 { b[i - 1] } else { b' ' };
                let next = b.get(i + 1).copied().unwrap_or(b' ');
                if next != b'=' && !matches!(prev, b'=' | b'!' | b'<' | b'>') {
                    return Some(i);
                }
                if next == b'=' {
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Is `v` one of minijinja's namespace objects?
pub fn is_namespace(v: &Value) -> bool {
    v.kind() == ValueKind::Map && v.as_object().is_some_and(|o| o.type_name().ends_with("::Namespace"))
}

/// Walks `value` without recursion, one fuel per node: fails past
/// [`MAX_VALUE_DEPTH`] levels, or on a namespace when `forbid_namespaces`.
pub fn check_value(state: &State, value: &Value, forbid_namespaces: bool) -> Result<(), Error> {
    fn is_container(v: &Value) -> bool {
        matches!(v.kind(), ValueKind::Seq | ValueKind::Map | ValueKind::Iterable)
    }
    if !is_container(value) {
        return Ok(());
    }
    let render = render_state::current();
    let known = |addr: usize| render.as_ref().is_some_and(|r| r.known_shallow.contains(&addr));
    let mut stack: Vec<(Value, usize)> = vec![(value.clone(), 1)];
    while let Some((v, depth)) = stack.pop() {
        if depth > MAX_VALUE_DEPTH {
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                format!("value stored with set is nested more than {MAX_VALUE_DEPTH} levels deep"),
            ));
        }
        if forbid_namespaces && is_namespace(&v) {
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                "a namespace cannot be stored inside a namespace (it could contain itself)",
            ));
        }
        state.consume_fuel(1)?;
        let children: Box<dyn Iterator<Item = Value>> = match v.kind() {
            ValueKind::Seq | ValueKind::Iterable => Box::new(v.try_iter()?),
            ValueKind::Map => match v.as_object().and_then(|o| o.try_iter_pairs()) {
                Some(pairs) => Box::new(pairs.map(|(_, item)| item)),
                None => Box::new(std::iter::empty()),
            },
            _ => Box::new(std::iter::empty()),
        };
        // Every item costs fuel: lazy sequences (`a + b`, `x * n`) that share
        // sub-values can be exponentially longer than the memory they take.
        // Input containers (messages, tools, ...) are known to be shallow and
        // namespace-free: one fuel, no descent. Anything else: four fuel.
        for item in children {
            if !is_container(&item) || container_addr(&item).is_some_and(known) {
                state.consume_fuel(1)?;
            } else {
                state.consume_fuel(4)?;
                stack.push((item, depth + 1));
            }
        }
    }
    Ok(())
}

/// The address of a list or map's storage (stable while the value lives),
/// for the engine's own list (`Vec<Value>`) and map (`IndexMap`) objects.
pub fn container_addr(v: &Value) -> Option<usize> {
    if let Some(seq) = v.downcast_object_ref::<Vec<Value>>() {
        return Some(seq as *const Vec<Value> as usize);
    }
    v.downcast_object_ref::<indexmap::IndexMap<Value, Value>>()
        .map(|map| map as *const indexmap::IndexMap<Value, Value> as usize)
}

/// A lazy sequence of known length (`a + b`, `x * n`, a filter's result)
/// becomes a list when stored: a chain of lazy concatenations built in a
/// loop (`ns.items = ns.items + [x]`) would otherwise get slower to walk and
/// iterate with every step, and jinja2 stores a list there too.
fn materialize(state: &State, value: Value) -> Result<Value, Error> {
    if value.kind() != ValueKind::Iterable || value.len().is_none() {
        return Ok(value);
    }
    let mut items = Vec::with_capacity(value.len().unwrap_or(0).min(1 << 16));
    for item in value.try_iter()? {
        state.consume_fuel(1)?;
        items.push(item);
    }
    Ok(Value::from(items))
}

/// The guard of `{% set name = ... %}`.
pub fn guard_filter(state: &State, value: Value) -> Result<Value, Error> {
    let value = materialize(state, value)?;
    check_value(state, &value, false)?;
    Ok(value)
}

/// The guard of `{% set ns.attr = ... %}`.
pub fn guard_ns_filter(state: &State, value: Value) -> Result<Value, Error> {
    let value = materialize(state, value)?;
    check_value(state, &value, true)?;
    Ok(value)
}

/// Depth of a JSON value, computed without recursion; `Err(())` past `limit`.
pub fn check_json_depth(v: &Json, limit: usize) -> Result<(), ()> {
    let mut stack: Vec<(&Json, usize)> = vec![(v, 1)];
    while let Some((v, d)) = stack.pop() {
        if d > limit {
            return Err(());
        }
        match v {
            Json::Array(items) => {
                stack.extend(items.iter().filter(|i| i.is_array() || i.is_object()).map(|i| (i, d + 1)))
            }
            Json::Object(m) => stack.extend(m.values().filter(|i| i.is_array() || i.is_object()).map(|i| (i, d + 1))),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_set_statements() {
        let src = "{% set x = a == b %}{%- set ns.y = [1, {'k': '='}] -%}{% set z %}blk{% endset %}{% set a, b = 1, 2 %}{{ x }}";
        let out = scan::apply_edits(src, set_guard_edits(src).unwrap());
        assert_eq!(
            out,
            "{% set x = (a == b)|__yieldtok_guard %}{%- set ns.y = ([1, {'k': '='}])|__yieldtok_guard_ns -%}{% set z %}blk{% endset %}{% set a, b = (1, 2)|__yieldtok_guard %}{{ x }}"
        );
        assert_eq!(top_level_assign(" x <= 1"), None);
    }

    #[test]
    fn engine_containers_have_addresses() {
        let seq = Value::from(vec![Value::from(1)]);
        let map = Value::from_pairs([("a", 1)]);
        assert!(container_addr(&seq).is_some());
        assert!(container_addr(&map).is_some(), "minijinja's map type is no longer IndexMap<Value, Value>");
        assert_eq!(container_addr(&seq.clone()), container_addr(&seq));
    }

    #[test]
    fn json_depth() {
        let mut v = serde_json::json!(1);
        for _ in 0..10 {
            v = serde_json::json!([v]);
        }
        assert!(check_json_depth(&v, 10).is_ok());
        assert!(check_json_depth(&v, 9).is_err());
    }
}
