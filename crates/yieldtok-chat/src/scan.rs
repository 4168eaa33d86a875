//! A minimal scanner over Jinja source for the source rewrites done before
//! compiling (`{% generation %}`, guarded `{% set %}`): finds the `{% %}`
//! and `{{ }}` tags, skipping comments, `{% raw %}` bodies and string
//! literals, and reports where each tag's inner text starts and ends (inside
//! the delimiters and the `-`/`+` whitespace markers).

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TagKind {
    /// `{% ... %}`
    Block,
    /// `{{ ... }}`
    Expr,
}

#[derive(Debug, Clone, Copy)]
pub struct Tag {
    pub kind: TagKind,
    /// Byte range of the inner text (between the delimiters and any `-`/`+`).
    pub inner_start: usize,
    pub inner_end: usize,
}

impl Tag {
    pub fn inner<'a>(&self, src: &'a str) -> &'a str {
        &src[self.inner_start..self.inner_end]
    }
}

/// Skips a string literal starting at `i` (a quote); returns the index after it.
pub fn skip_string(b: &[u8], mut i: usize) -> usize {
    let q = b[i];
    i += 1;
    while i < b.len() && b[i] != q {
        if b[i] == b'\\' {
            i += 1;
        }
        i += 1;
    }
    (i + 1).min(b.len())
}

/// Finds `end` (`%}` or `}}`) outside string literals and brackets, from `i`. As minijinja's
/// lexer, an end marker counts only where every `(`, `[` and `{` opened inside the tag is
/// closed: `{{ {'a': 1}}}` ends at its last two braces.
fn find_close(b: &[u8], mut i: usize, end: &[u8; 2]) -> Option<usize> {
    let mut depth = 0isize;
    while i < b.len() {
        match b[i] {
            b'\'' | b'"' => i = skip_string(b, i),
            c if depth == 0 && c == end[0] && b.get(i + 1) == Some(&end[1]) => return Some(i),
            c => {
                match c {
                    b'(' | b'[' | b'{' => depth += 1,
                    b')' | b']' | b'}' => depth -= 1,
                    _ => {}
                }
                i += 1;
            }
        }
    }
    None
}

/// Whether `rest` (the text after a `{%`) is an `endraw` tag as minijinja's lexer reads one:
/// an optional `-`/`+`, blanks, `endraw`, blanks, an optional `-`/`+`, `%}`. (`raw` itself
/// likewise: a block tag whose whole inner text is `raw`.)
fn is_endraw(rest: &str) -> bool {
    let rest = rest.strip_prefix(['-', '+']).unwrap_or(rest).trim_ascii_start();
    let Some(rest) = rest.strip_prefix("endraw") else { return false };
    let rest = rest.trim_ascii_start();
    rest.strip_prefix(['-', '+']).unwrap_or(rest).starts_with("%}")
}

/// All tags of `src`, in order. Unterminated tags end the scan (the
/// compiler reports them).
pub fn tags(src: &str) -> Vec<Tag> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] != b'{' {
            i += 1;
            continue;
        }
        let (kind, close) = match b[i + 1] {
            b'#' => {
                match src[i + 2..].find("#}") {
                    Some(p) => i = i + 2 + p + 2,
                    None => break,
                }
                continue;
            }
            b'%' => (TagKind::Block, b"%}"),
            b'{' => (TagKind::Expr, b"}}"),
            _ => {
                i += 1;
                continue;
            }
        };
        let mut start = i + 2;
        if start < b.len() && (b[start] == b'-' || b[start] == b'+') {
            start += 1;
        }
        let Some(close_at) = find_close(b, start, close) else {
            break;
        };
        let mut end = close_at;
        if end > start && (b[end - 1] == b'-' || b[end - 1] == b'+') {
            end -= 1;
        }
        let tag = Tag { kind, inner_start: start, inner_end: end };
        out.push(tag);
        i = close_at + 2;
        if kind == TagKind::Block && tag.inner(src).trim_ascii() == "raw" {
            // the body of a raw block is data: jump to its endraw tag
            let mut k = i;
            loop {
                let Some(p) = src[k..].find("{%") else {
                    return out;
                };
                if is_endraw(&src[k + p + 2..]) {
                    i = k + p;
                    break;
                }
                k = k + p + 2;
            }
        }
    }
    out
}

/// The first identifier of a tag's inner text (`set`, `for`, `generation`, ...).
pub fn first_word(inner: &str) -> &str {
    let t = inner.trim_start();
    let end = t.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(t.len());
    &t[..end]
}

/// Applies non-overlapping `(range, replacement)` edits.
pub fn apply_edits(src: &str, mut edits: Vec<(std::ops::Range<usize>, String)>) -> String {
    edits.sort_by_key(|e| e.0.start);
    let mut out = String::with_capacity(src.len() + edits.len() * 32);
    let mut at = 0;
    for (range, text) in edits {
        out.push_str(&src[at..range.start]);
        out.push_str(&text);
        at = range.end;
    }
    out.push_str(&src[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_tags() {
        let src = "a{%- set x = '%}' -%}b{{ y }}{# {% no %} #}{% raw %}{% set z = 1 %}{{ q }}{% endraw %}{%+ if x +%}";
        let t = tags(src);
        let inner: Vec<&str> = t.iter().map(|t| t.inner(src)).collect();
        assert_eq!(inner, vec![" set x = '%}' ", " y ", " raw ", " endraw ", " if x "]);
        assert_eq!(t[1].kind, TagKind::Expr);
    }

    /// Found by `fuzz/fuzz_targets/tag_scanner.rs` (`{{(}}}`): an end marker inside brackets
    /// does not end the tag, as in minijinja's lexer.
    #[test]
    fn end_markers_inside_brackets_do_not_end_a_tag() {
        for (src, want) in [
            ("{{ {'a': 1}}}", vec![" {'a': 1}"]),
            ("{{(}}}", vec!["(}"]),
            ("{% set d = {'k': [1, 2]} %}{{ d['k'][0] }}", vec![" set d = {'k': [1, 2]} ", " d['k'][0] "]),
            ("{{ f('}}') }}", vec![" f('}}') "]),
            // raw blocks as the lexer reads them: `{% raw x %}` is no raw tag, `endrawx` no end
            ("{% raw x %}{{ y }}", vec![" raw x ", " y "]),
            ("{% raw -%}{{ y }}{% endrawx %}{%- endraw %}{{ z }}", vec![" raw ", " endraw ", " z "]),
        ] {
            let got: Vec<&str> = tags(src).iter().map(|t| t.inner(src)).collect();
            assert_eq!(got, want, "{src}");
        }
    }
}
