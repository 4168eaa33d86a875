//! String literals with jinja2's (Python's) escape rules.
//!
//! jinja2 decodes a string literal with Python's `unicode_escape`: a
//! backslash before a newline is a line continuation (Mistral's templates
//! rely on it), `\a`/`\v`/`\U0001F600`/`\N{...}` exist, and an unknown escape
//! such as `\/` or `\d` stays as written. minijinja's rules differ, so every
//! literal that contains a backslash is decoded the Python way before
//! compiling and written back with only the escapes both engines agree on.

use super::scan::{self, skip_string};

/// Decodes the body of a literal (between the quotes) like Python's
/// `unicode_escape` codec; `Err` where Python raises.
pub fn python_unescape(body: &str) -> Result<String, String> {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    let hex = |chars: &mut std::iter::Peekable<std::str::Chars>, n: usize| -> Result<u32, String> {
        let mut v = 0u32;
        for _ in 0..n {
            match chars.next().and_then(|c| c.to_digit(16)) {
                Some(d) => v = v * 16 + d,
                None => return Err(format!("truncated \\x/\\u/\\U escape (expected {n} hex digits)")),
            }
        }
        Ok(v)
    };
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(d) = chars.next() else {
            return Err("\\ at end of string".into());
        };
        match d {
            '\n' => {}
            '\\' | '\'' | '"' => out.push(d),
            'a' => out.push('\u{07}'),
            'b' => out.push('\u{08}'),
            'f' => out.push('\u{0c}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\u{0b}'),
            '0'..='7' => {
                let mut v = d.to_digit(8).unwrap();
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(o) => {
                            v = v * 8 + o;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(v).ok_or("invalid octal escape")?);
            }
            'x' => out.push(char::from_u32(hex(&mut chars, 2)?).ok_or("invalid \\x escape")?),
            'u' => {
                out.push(char::from_u32(hex(&mut chars, 4)?).ok_or("\\u escape of a lone surrogate is not supported")?)
            }
            'U' => out.push(char::from_u32(hex(&mut chars, 8)?).ok_or("illegal Unicode character")?),
            'N' => return Err("\\N{...} escapes are not supported".into()),
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    Ok(out)
}

/// Writes `value` as a literal that minijinja decodes back to `value`.
pub fn minijinja_literal(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Edits re-encoding every string literal (inside tags) that has a backslash.
pub fn literal_edits(src: &str) -> Result<Vec<(std::ops::Range<usize>, String)>, String> {
    let b = src.as_bytes();
    let mut edits = Vec::new();
    for tag in scan::tags(src) {
        let mut i = tag.inner_start;
        while i < tag.inner_end {
            match b[i] {
                b'\'' | b'"' => {
                    let end = skip_string(b, i).min(tag.inner_end);
                    let literal = &src[i..end];
                    if literal.len() >= 2 && literal.contains('\\') {
                        let value = python_unescape(&literal[1..literal.len() - 1])?;
                        edits.push((i..end, minijinja_literal(&value)));
                    }
                    i = end;
                }
                _ => i += 1,
            }
        }
    }
    Ok(edits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_escapes() {
        assert_eq!(python_unescape("a\\\nb").unwrap(), "ab");
        assert_eq!(python_unescape("\\/\\d\\a\\v").unwrap(), "\\/\\d\u{7}\u{b}");
        assert_eq!(python_unescape("\\U0001F600\\u00e9\\x41\\101\\n").unwrap(), "😀éAA\n");
        assert!(python_unescape("\\x4").is_err());
        assert_eq!(minijinja_literal("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\nd\\u0001\"");
        let src = "{{ 'it\\'s\\\n ok' }}{% set x = \"\\/\" %}";
        let out = scan::apply_edits(src, literal_edits(src).unwrap());
        assert_eq!(out, "{{ \"it's ok\" }}{% set x = \"\\\\/\" %}");
    }
}
