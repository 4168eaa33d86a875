//! `{% for x in none %}` raises like jinja2 (`'NoneType' object is not
//! iterable`) instead of looping zero times as minijinja does: the iterable
//! of every `for` tag is rewritten to `(iterable)|__yieldtok_iter`, a filter
//! that refuses `none` and returns anything else unchanged. (Phi-4-mini's
//! template, for one, loops over `tools` whenever it is defined, so
//! `tools=None` must raise.)

use minijinja::{Error, ErrorKind, Value};

use super::scan::{self, skip_string, TagKind};

/// Name of the filter wrapped around `for` iterables.
pub const ITER_FILTER: &str = "__yieldtok_iter";

/// The filter: `none` is not iterable.
pub fn iter_filter(value: Value) -> Result<Value, Error> {
    if value.is_none() {
        return Err(not_iterable());
    }
    Ok(value)
}

pub fn not_iterable() -> Error {
    Error::new(ErrorKind::InvalidOperation, "'NoneType' object is not iterable")
}

/// Byte offsets (within `inner`) of the top-level words of a tag.
fn top_level_words(inner: &str) -> Vec<(usize, &str)> {
    let b = inner.as_bytes();
    let (mut i, mut depth, mut out) = (0usize, 0i32, Vec::new());
    while i < b.len() {
        match b[i] {
            b'\'' | b'"' => {
                i = skip_string(b, i);
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            c if (c.is_ascii_alphabetic() || c == b'_') && depth == 0 => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                // `.if` / `x.in` are attributes, not keywords
                if start == 0 || b[start - 1] != b'.' {
                    out.push((start, &inner[start..i]));
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Edits wrapping the iterable of each `for` tag.
pub fn for_edits(src: &str) -> Vec<(std::ops::Range<usize>, String)> {
    let mut edits = Vec::new();
    for tag in scan::tags(src) {
        let inner = tag.inner(src);
        if tag.kind != TagKind::Block || scan::first_word(inner) != "for" {
            continue;
        }
        let words = top_level_words(inner);
        let Some(in_pos) = words.iter().skip(1).position(|(_, w)| *w == "in").map(|p| p + 1) else {
            continue;
        };
        let iter_start = words[in_pos].0 + 2;
        let iter_end = words[in_pos + 1..]
            .iter()
            .find(|(_, w)| *w == "if" || *w == "recursive")
            .map(|(p, _)| *p)
            .unwrap_or(inner.len());
        let iterable = inner[iter_start..iter_end].trim();
        if iterable.is_empty() {
            continue;
        }
        let range = tag.inner_start + iter_start..tag.inner_start + iter_end;
        edits.push((range, format!(" ({iterable})|{ITER_FILTER} ")));
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_iterables() {
        let src = "{% for m in messages if m.in_stock %}{%- for k, v in d.items() recursive -%}{% for x in [1, 'if in'] %}{% endfor %}";
        let out = scan::apply_edits(src, for_edits(src));
        assert_eq!(
            out,
            "{% for m in (messages)|__yieldtok_iter if m.in_stock %}{%- for k, v in (d.items())|__yieldtok_iter recursive -%}{% for x in ([1, 'if in'])|__yieldtok_iter %}{% endfor %}"
        );
    }
}
