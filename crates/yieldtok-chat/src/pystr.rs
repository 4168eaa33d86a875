//! Python-exact string algorithms: `str.strip/lstrip/rstrip`, `split`,
//! `rsplit`, `splitlines`, `title`, `isspace`, and jinja2's `trim` filter.
//!
//! Python's whitespace set (`str.isspace`, used by argument-less
//! `strip()`/`split()`) is Unicode `White_Space` plus U+001C..U+001F, which
//! Rust's `char::is_whitespace` lacks. Python's line-break set for
//! `splitlines` is larger than `\n`/`\r\n`. `str.title()` title-cases a
//! character whenever the previous one is not cased (`It'S`, `3Rd`).

use minijinja::value::{Rest, ValueOrKwargs};
use minijinja::{Error, ErrorKind, State, Value};

/// Python `str.isspace()` for one character.
#[inline]
pub fn is_py_whitespace(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python `str.splitlines()` line boundaries.
#[inline]
fn is_py_linebreak(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{0b}' | '\u{0c}' | '\u{1c}' | '\u{1d}' | '\u{1e}' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// Python `str.strip(chars)`; `chars == None` strips Python whitespace.
pub fn strip<'a>(s: &'a str, chars: Option<&str>) -> &'a str {
    rstrip(lstrip(s, chars), chars)
}

/// Python `str.lstrip(chars)`.
pub fn lstrip<'a>(s: &'a str, chars: Option<&str>) -> &'a str {
    match chars {
        None => s.trim_start_matches(is_py_whitespace),
        Some(set) => s.trim_start_matches(|c: char| set.contains(c)),
    }
}

/// Python `str.rstrip(chars)`.
pub fn rstrip<'a>(s: &'a str, chars: Option<&str>) -> &'a str {
    match chars {
        None => s.trim_end_matches(is_py_whitespace),
        Some(set) => s.trim_end_matches(|c: char| set.contains(c)),
    }
}

/// Python `str.isspace()`.
pub fn isspace(s: &str) -> bool {
    !s.is_empty() && s.chars().all(is_py_whitespace)
}

/// Python `str.split(sep, maxsplit)`. A negative `maxsplit` means no limit.
/// `sep == Some("")` is Python's `ValueError: empty separator`.
pub fn split<'a>(s: &'a str, sep: Option<&str>, maxsplit: i64) -> Result<Vec<&'a str>, &'static str> {
    let max = if maxsplit < 0 { usize::MAX } else { maxsplit as usize };
    match sep {
        Some("") => Err("empty separator"),
        Some(sep) => {
            Ok(if max == usize::MAX { s.split(sep).collect() } else { s.splitn(max.saturating_add(1), sep).collect() })
        }
        None => {
            let mut out = Vec::new();
            let mut rest = s;
            let mut count = max;
            while count > 0 {
                rest = rest.trim_start_matches(is_py_whitespace);
                if rest.is_empty() {
                    break;
                }
                let end = rest.find(is_py_whitespace).unwrap_or(rest.len());
                out.push(&rest[..end]);
                rest = &rest[end..];
                count -= 1;
            }
            if !rest.is_empty() {
                let tail = rest.trim_start_matches(is_py_whitespace);
                if !tail.is_empty() {
                    out.push(tail);
                }
            }
            Ok(out)
        }
    }
}

/// Python `str.rsplit(sep, maxsplit)`.
pub fn rsplit<'a>(s: &'a str, sep: Option<&str>, maxsplit: i64) -> Result<Vec<&'a str>, &'static str> {
    let max = if maxsplit < 0 { usize::MAX } else { maxsplit as usize };
    match sep {
        Some("") => Err("empty separator"),
        Some(sep) => {
            let mut v: Vec<&str> = if max == usize::MAX {
                s.rsplit(sep).collect()
            } else {
                s.rsplitn(max.saturating_add(1), sep).collect()
            };
            v.reverse();
            Ok(v)
        }
        None => {
            let mut out = Vec::new();
            let mut rest = s;
            let mut count = max;
            while count > 0 {
                rest = rest.trim_end_matches(is_py_whitespace);
                if rest.is_empty() {
                    break;
                }
                let start = rest
                    .char_indices()
                    .rev()
                    .find(|(_, c)| is_py_whitespace(*c))
                    .map(|(i, c)| i + c.len_utf8())
                    .unwrap_or(0);
                out.push(&rest[start..]);
                rest = &rest[..start];
                count -= 1;
            }
            if !rest.is_empty() {
                let head = rest.trim_end_matches(is_py_whitespace);
                if !head.is_empty() {
                    out.push(head);
                }
            }
            out.reverse();
            Ok(out)
        }
    }
}

/// Python `str.splitlines(keepends)`.
pub fn splitlines(s: &str, keepends: bool) -> Vec<&str> {
    let mut out = Vec::new();
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut iter = s.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        if is_py_linebreak(c) {
            let mut end = i + c.len_utf8();
            if c == '\r' && bytes.get(end) == Some(&b'\n') {
                iter.next();
                end += 1;
            }
            out.push(if keepends { &s[start..end] } else { &s[start..i] });
            start = end;
        }
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// Unicode `Lt` (titlecase letters).
fn is_titlecase(c: char) -> bool {
    matches!(c as u32,
        0x01C5 | 0x01C8 | 0x01CB | 0x01F2 | 0x1F88..=0x1F8F | 0x1F98..=0x1F9F |
        0x1FA8..=0x1FAF | 0x1FBC | 0x1FCC | 0x1FFC)
}

/// Python's `_PyUnicode_IsCased` (Unicode `Cased`).
fn is_cased(c: char) -> bool {
    c.is_lowercase() || c.is_uppercase() || is_titlecase(c)
}

/// Approximation of Unicode `Case_Ignorable` for the final-sigma rule.
fn is_case_ignorable(c: char) -> bool {
    matches!(
        c,
        '\'' | '.'
            | ':'
            | '^'
            | '`'
            | '\u{a8}'
            | '\u{ad}'
            | '\u{af}'
            | '\u{b4}'
            | '\u{b7}'
            | '\u{b8}'
            | '\u{2018}'
            | '\u{2019}'
            | '\u{2024}'
            | '\u{2027}'
    ) || ('\u{300}'..='\u{36f}').contains(&c)
        || ('\u{2b0}'..='\u{2ff}').contains(&c)
        || ('\u{200b}'..='\u{200f}').contains(&c)
}

/// Full titlecase mapping where it differs from the uppercase mapping.
fn title_special(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{01C4}' | '\u{01C5}' | '\u{01C6}' => "\u{01C5}",
        '\u{01C7}' | '\u{01C8}' | '\u{01C9}' => "\u{01C8}",
        '\u{01CA}' | '\u{01CB}' | '\u{01CC}' => "\u{01CB}",
        '\u{01F1}' | '\u{01F2}' | '\u{01F3}' => "\u{01F2}",
        'ß' => "Ss",
        '\u{FB00}' => "Ff",
        '\u{FB01}' => "Fi",
        '\u{FB02}' => "Fl",
        '\u{FB03}' => "Ffi",
        '\u{FB04}' => "Ffl",
        '\u{FB05}' | '\u{FB06}' => "St",
        '\u{0587}' => "\u{0535}\u{0582}",
        '\u{FB13}' => "\u{0544}\u{0576}",
        '\u{FB14}' => "\u{0544}\u{0565}",
        '\u{FB15}' => "\u{0544}\u{056B}",
        '\u{FB16}' => "\u{054E}\u{0576}",
        '\u{FB17}' => "\u{0544}\u{056D}",
        '\u{1FB2}' => "\u{1FBA}\u{0345}",
        '\u{1FB4}' => "\u{0386}\u{0345}",
        '\u{1FB7}' => "\u{0391}\u{0342}\u{0345}",
        '\u{1FC2}' => "\u{1FCA}\u{0345}",
        '\u{1FC4}' => "\u{0389}\u{0345}",
        '\u{1FC7}' => "\u{0397}\u{0342}\u{0345}",
        '\u{1FF2}' => "\u{1FFA}\u{0345}",
        '\u{1FF4}' => "\u{038F}\u{0345}",
        '\u{1FF7}' => "\u{03A9}\u{0342}\u{0345}",
        _ => return None,
    })
}

fn push_title(out: &mut String, c: char) {
    if let Some(s) = title_special(c) {
        out.push_str(s);
        return;
    }
    let cp = c as u32;
    // Greek with ypogegrammeni: the titlecase is one (Lt) character.
    let greek = match cp {
        0x1F80..=0x1F87 | 0x1F90..=0x1F97 | 0x1FA0..=0x1FA7 => Some(cp + 8),
        0x1F88..=0x1F8F | 0x1F98..=0x1F9F | 0x1FA8..=0x1FAF | 0x1FBC | 0x1FCC | 0x1FFC => Some(cp),
        0x1FB3 => Some(0x1FBC),
        0x1FC3 => Some(0x1FCC),
        0x1FF3 => Some(0x1FFC),
        // Georgian Mkhedruli: titlecase is the letter itself (uppercase is Mtavruli).
        0x10D0..=0x10FA | 0x10FD..=0x10FF => Some(cp),
        _ => None,
    };
    if let Some(g) = greek.and_then(char::from_u32) {
        out.push(g);
        return;
    }
    out.extend(c.to_uppercase());
}

/// Python `str.title()`.
pub fn title(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut previous_is_cased = false;
    for (i, &c) in chars.iter().enumerate() {
        if previous_is_cased {
            if c == '\u{03A3}' {
                out.push(final_sigma(&chars, i));
            } else {
                out.extend(c.to_lowercase());
            }
        } else {
            push_title(&mut out, c);
        }
        previous_is_cased = is_cased(c);
    }
    out
}

/// `s[from..]` lowercased the way Python's `capitalize` does (final sigma included).
pub fn lower_rest(s: &str, from: usize) -> String {
    let chars: Vec<char> = s.chars().collect();
    let skip = s[..from].chars().count();
    let mut out = String::with_capacity(s.len() - from);
    for (i, &c) in chars.iter().enumerate().skip(skip) {
        if c == '\u{03A3}' {
            out.push(final_sigma(&chars, i));
        } else {
            out.extend(c.to_lowercase());
        }
    }
    out
}

fn final_sigma(chars: &[char], i: usize) -> char {
    let before = chars[..i].iter().rev().find(|c| !is_case_ignorable(**c));
    let mut is_final = matches!(before, Some(c) if is_cased(*c));
    if is_final {
        let after = chars[i + 1..].iter().find(|c| !is_case_ignorable(**c));
        is_final = !matches!(after, Some(c) if is_cased(*c));
    }
    if is_final {
        '\u{03C2}'
    } else {
        '\u{03C3}'
    }
}

/// jinja2's `trim` filter: `str(value).strip(chars)` with Python's
/// whitespace set and Python's `str()` of non-string values.
pub fn trim_filter(state: &State, value: Value, args: Rest<ValueOrKwargs>) -> Result<Value, Error> {
    let args = args.into_values();
    let a = super::methods::bind_args("trim", &args, &["chars"], true)?;
    let chars = match &a[0] {
        None => None,
        Some(v) if v.is_none() || v.is_undefined() => None,
        Some(v) => match v.as_str() {
            Some(s) => Some(s.to_string()),
            None => return Err(Error::new(ErrorKind::InvalidOperation, "strip arg must be None or str")),
        },
    };
    let s = super::pyrepr::py_str(state, &value)?;
    Ok(Value::from(strip(&s, chars.as_deref())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_set_includes_info_separators() {
        for c in ['\u{1c}', '\u{1d}', '\u{1e}', '\u{1f}', ' ', '\t', '\u{85}', '\u{a0}', '\u{3000}', '\u{2028}'] {
            assert!(is_py_whitespace(c), "{:?}", c);
        }
        for c in ['\u{200b}', '\u{feff}', 'a', '\u{180e}'] {
            assert!(!is_py_whitespace(c), "{:?}", c);
        }
        assert_eq!(strip("\u{1c} a b \u{1f}\n", None), "a b");
        assert_eq!(strip("xxhixyx", Some("xy")), "hi");
        assert_eq!(lstrip("\n\nhi\n", Some("\n")), "hi\n");
        assert_eq!(rstrip("\n\nhi\n", Some("\n")), "\n\nhi");
        assert!(isspace("\u{1c}\u{3000}"));
        assert!(!isspace(""));
    }

    #[test]
    fn python_split() {
        assert_eq!(split("  a b  c  ", None, -1).unwrap(), vec!["a", "b", "c"]);
        assert_eq!(split("  a b  c  ", None, 1).unwrap(), vec!["a", "b  c  "]);
        assert_eq!(split("  a b  c  ", None, 0).unwrap(), vec!["a b  c  "]);
        assert_eq!(split("", None, -1).unwrap(), Vec::<&str>::new());
        assert_eq!(split("   ", None, -1).unwrap(), Vec::<&str>::new());
        assert_eq!(split("a\u{1c}b", None, -1).unwrap(), vec!["a", "b"]);
        assert_eq!(split("a,b,,c", Some(","), -1).unwrap(), vec!["a", "b", "", "c"]);
        assert_eq!(split("a,b,,c", Some(","), 2).unwrap(), vec!["a", "b", ",c"]);
        assert_eq!(split("", Some(","), -1).unwrap(), vec![""]);
        assert!(split("abc", Some(""), -1).is_err());
        assert_eq!(split("x</think>y</think>z", Some("</think>"), -1).unwrap(), vec!["x", "y", "z"]);
    }

    #[test]
    fn python_rsplit() {
        assert_eq!(rsplit("  a b  c  ", None, 1).unwrap(), vec!["  a b", "c"]);
        assert_eq!(rsplit("  a b  c  ", None, -1).unwrap(), vec!["a", "b", "c"]);
        assert_eq!(rsplit("  a b  c  ", None, 0).unwrap(), vec!["  a b  c"]);
        assert_eq!(rsplit("a,b,c", Some(","), 1).unwrap(), vec!["a,b", "c"]);
        assert_eq!(rsplit("aaa", Some("aa"), -1).unwrap(), vec!["a", ""]);
        assert_eq!(rsplit("", None, -1).unwrap(), Vec::<&str>::new());
    }

    #[test]
    fn python_splitlines() {
        assert_eq!(
            splitlines("a\nb\r\nc\rd\u{2028}e\u{85}f\u{1c}g\u{0b}h", false),
            vec!["a", "b", "c", "d", "e", "f", "g", "h"]
        );
        assert_eq!(splitlines("a\r\n\nb\n", true), vec!["a\r\n", "\n", "b\n"]);
        assert_eq!(splitlines("a\r\n\nb\n", false), vec!["a", "", "b"]);
        assert_eq!(splitlines("", false), Vec::<&str>::new());
        assert_eq!(splitlines("\n", false), vec![""]);
    }

    #[test]
    fn python_title() {
        assert_eq!(title("it's 3rd time"), "It'S 3Rd Time");
        assert_eq!(title("hello WORLD"), "Hello World");
        assert_eq!(title("straße"), "Straße");
        assert_eq!(title("ßa"), "Ssa");
        assert_eq!(title("ǆemal"), "ǅemal");
        assert_eq!(title("ΟΔΟΣ"), "Οδος");
        assert_eq!(title("ΟΔΟΣ ΣΑ"), "Οδος Σα");
        assert_eq!(title("ﬁsh"), "Fish");
        assert_eq!(title("hello_world-foo"), "Hello_World-Foo");
        assert_eq!(title(""), "");
    }
}
