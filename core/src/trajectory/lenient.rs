//! Reading trajectory JSON that the one-pass parse rejects, without losing the rest of the
//! batch: the parse of a whole document (`input::parse_groups`) stops at the first problem;
//! this module splits the document into its groups and their trajectories by a structural scan
//! (brackets and strings only), so that each trajectory is parsed on its own and one bad value
//! fails only its own trajectory, with the line and column where it is.
//!
//! * Non-finite floats: Python's `json.dumps` and pydantic write `NaN`, `Infinity` and
//!   `-Infinity`, which JSON lacks. Outside strings they are rewritten to marker strings
//!   ([`NAN_MARKER`] & co.) that the parser's float fields read as those values; front ends
//!   that write JSON themselves (Python objects, JS values) write the markers directly.
//! * A trajectory that is not valid JSON (a syntax error, invalid UTF-8, a lone surrogate
//!   escape) is kept as an invalid trajectory naming the line and column.
//! * A group that is not a list of trajectories (or `{"trajectories": [...]}`) is an invalid
//!   group; its neighbours are kept.
//! * Only a document whose structure is broken (unbalanced brackets, an unterminated string,
//!   something other than `,` between elements, a top level that is not a list) is an error of
//!   the whole input, located by line and column.

use serde_json::value::RawValue;

use super::error::{invalid, Result, TrajectoryError};
use super::input::{group_shape_error, trajectory_from_raw, Trajectory, TrajectoryGroup};

/// How trajectory input spells NaN in JSON (see the module docs).
pub const NAN_MARKER: &str = "\u{0}NaN";
/// How trajectory input spells +∞ in JSON.
pub const INFINITY_MARKER: &str = "\u{0}Infinity";
/// How trajectory input spells -∞ in JSON.
pub const NEG_INFINITY_MARKER: &str = "\u{0}-Infinity";

/// What a front end writes in place of a trajectory it could not write as JSON (a lone
/// surrogate in a Python `str`, an object it cannot convert): this prefix, then the reason.
/// The trajectory is then invalid with that reason; the rest of the batch is kept.
pub const INVALID_MARKER: &str = "\u{0}invalid:";

/// The marker a front end writes for a trajectory it could not write: `path` is the place of
/// the bad value inside the trajectory (`messages_and_choices[2].content`; empty if unknown),
/// `reason` what is wrong with it. The core reads it back as an invalid trajectory located at
/// that history and item ([`marker_error`]).
pub fn invalid_marker(path: &str, reason: &str) -> String {
    format!("{INVALID_MARKER}{path}\u{0}{reason}")
}

/// The error an invalid marker's body (the text after [`INVALID_MARKER`]) stands for.
pub(crate) fn marker_error(body: &str) -> TrajectoryError {
    let (path, reason) = body.split_once('\u{0}').unwrap_or(("", body));
    let message = if path.is_empty() { reason.to_string() } else { format!("{path}: {reason}") };
    let (history, item) = path_location(path);
    invalid(message).at(|l| {
        l.history = history;
        l.item = item;
    })
}

/// The history and item a field path inside a trajectory points into:
/// `messages_and_choices[i]…` → (0, i), `additional_histories[k].messages_and_choices[i]…` →
/// (k + 1, i), `additional_histories[k]…` → (k + 1, none).
fn path_location(path: &str) -> (Option<usize>, Option<usize>) {
    let take = |s: &str, name: &str| -> Option<(usize, usize)> {
        let rest = s.strip_prefix(name)?.strip_prefix('[')?;
        let close = rest.find(']')?;
        Some((rest[..close].parse().ok()?, name.len() + 1 + close + 1))
    };
    let (history, rest) = match take(path, "additional_histories") {
        Some((k, used)) => (k + 1, path[used..].strip_prefix('.').unwrap_or("")),
        None => (0, path),
    };
    match take(rest, "messages_and_choices") {
        Some((i, _)) => (Some(history), Some(i)),
        None if history > 0 => (Some(history), None),
        None => (None, None),
    }
}

/// The marker string for a non-finite float (`None` for a finite one).
pub fn non_finite_marker(x: f64) -> Option<&'static str> {
    if x.is_nan() {
        Some(NAN_MARKER)
    } else if x == f64::INFINITY {
        Some(INFINITY_MARKER)
    } else if x == f64::NEG_INFINITY {
        Some(NEG_INFINITY_MARKER)
    } else {
        None
    }
}

/// The float a marker string stands for.
pub(crate) fn marker_value(s: &str) -> Option<f64> {
    match s {
        NAN_MARKER => Some(f64::NAN),
        INFINITY_MARKER => Some(f64::INFINITY),
        NEG_INFINITY_MARKER => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

/// A document with its non-finite literals rewritten, and the map back to original offsets.
struct Rewritten<'a> {
    text: std::borrow::Cow<'a, [u8]>,
    /// (offset in `text` just after an inserted marker, bytes added by it so far in total).
    shifts: Vec<(usize, usize)>,
}

impl Rewritten<'_> {
    /// The original offset of `pos` in the rewritten text.
    fn original(&self, pos: usize) -> usize {
        let i = self.shifts.partition_point(|&(at, _)| at <= pos);
        pos - if i == 0 { 0 } else { self.shifts[i - 1].1 }
    }
}

/// `NaN`, `Infinity`, `-Infinity` outside strings → their marker strings.
fn rewrite_non_finite(doc: &[u8]) -> Rewritten<'_> {
    const LITERALS: [(&[u8], &str); 3] =
        [(b"-Infinity", "\"\\u0000-Infinity\""), (b"Infinity", "\"\\u0000Infinity\""), (b"NaN", "\"\\u0000NaN\"")];
    let mut out: Option<Vec<u8>> = None;
    let mut shifts = Vec::new();
    let (mut i, mut copied, mut in_string, mut added) = (0, 0, false, 0);
    while i < doc.len() {
        let b = doc[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if b == b'"' {
            in_string = true;
            i += 1;
            continue;
        }
        if matches!(b, b'N' | b'I' | b'-') {
            if let Some((lit, marker)) = LITERALS.iter().find(|(lit, _)| doc[i..].starts_with(lit)) {
                let o = out.get_or_insert_with(|| Vec::with_capacity(doc.len() + 64));
                o.extend_from_slice(&doc[copied..i]);
                o.extend_from_slice(marker.as_bytes());
                added += marker.len() - lit.len();
                shifts.push((o.len(), added));
                i += lit.len();
                copied = i;
                continue;
            }
        }
        i += 1;
    }
    match out {
        None => Rewritten { text: doc.into(), shifts },
        Some(mut o) => {
            o.extend_from_slice(&doc[copied..]);
            Rewritten { text: o.into(), shifts }
        }
    }
}

/// Line and column (1-based; the column counts bytes) of `offset` in `doc`.
pub(crate) fn line_column(doc: &[u8], offset: usize) -> (usize, usize) {
    let before = &doc[..offset.min(doc.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = offset - before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1) + 1;
    (line, column)
}

/// A structural problem at an offset.
struct Broken {
    at: usize,
    what: String,
}

fn broken(at: usize, what: impl Into<String>) -> Broken {
    Broken { at, what: what.into() }
}

fn skip_ws(d: &[u8], mut i: usize) -> usize {
    while i < d.len() && matches!(d[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// The end of the string starting at `i` (a `"`).
fn string_end(d: &[u8], mut i: usize) -> std::result::Result<usize, Broken> {
    let start = i;
    i += 1;
    while i < d.len() {
        match d[i] {
            b'\\' => i += 2,
            b'"' => return Ok(i + 1),
            _ => i += 1,
        }
    }
    Err(broken(start, "unterminated string"))
}

/// The end of the value starting at `i`: brackets matched and strings skipped, contents not
/// checked (the parse of the value does that).
fn value_end(d: &[u8], i: usize) -> std::result::Result<usize, Broken> {
    match d.get(i) {
        None => Err(broken(i, "a value was expected")),
        Some(b'"') => string_end(d, i),
        Some(b'[' | b'{') => {
            let mut stack = Vec::new();
            let mut j = i;
            while j < d.len() {
                match d[j] {
                    b'"' => {
                        j = string_end(d, j)?;
                        continue;
                    }
                    b'[' => stack.push(b']'),
                    b'{' => stack.push(b'}'),
                    c @ (b']' | b'}') => {
                        if stack.pop() != Some(c) {
                            return Err(broken(j, format!("unexpected `{}`", c as char)));
                        }
                        if stack.is_empty() {
                            return Ok(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            Err(broken(i, format!("`{}` is never closed", d[i] as char)))
        }
        Some(b']' | b'}' | b',' | b':') => Err(broken(i, format!("unexpected `{}`", d[i] as char))),
        Some(_) => {
            let mut j = i;
            while j < d.len() && !matches!(d[j], b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r') {
                j += 1;
            }
            Ok(j)
        }
    }
}

/// The elements of the list at `i` (a `[`): their spans, and the end of the list.
fn list_elements(d: &[u8], i: usize) -> std::result::Result<(Vec<(usize, usize)>, usize), Broken> {
    let mut out = Vec::new();
    let mut j = skip_ws(d, i + 1);
    if d.get(j) == Some(&b']') {
        return Ok((out, j + 1));
    }
    loop {
        let end = value_end(d, j)?;
        out.push((j, end));
        j = skip_ws(d, end);
        match d.get(j) {
            Some(b',') => j = skip_ws(d, j + 1),
            Some(b']') => return Ok((out, j + 1)),
            Some(&c) => {
                return Err(broken(j, format!("expected `,` or `]` after a list element, found `{}`", c as char)))
            }
            None => return Err(broken(i, "`[` is never closed")),
        }
    }
}

/// The span of the value of the last `"trajectories"` key of the object at `i` (a `{`).
fn trajectories_value(d: &[u8], i: usize) -> std::result::Result<Option<(usize, usize)>, Broken> {
    let mut found = None;
    let mut j = skip_ws(d, i + 1);
    if d.get(j) == Some(&b'}') {
        return Ok(None);
    }
    loop {
        if d.get(j) != Some(&b'"') {
            return Err(broken(j, "expected a key (a string)"));
        }
        let key_end = string_end(d, j)?;
        let key = std::str::from_utf8(&d[j..key_end]).ok().and_then(|k| serde_json::from_str::<String>(k).ok());
        j = skip_ws(d, key_end);
        if d.get(j) != Some(&b':') {
            return Err(broken(j, "expected `:` after a key"));
        }
        j = skip_ws(d, j + 1);
        let end = value_end(d, j)?;
        if key.as_deref() == Some("trajectories") {
            found = Some((j, end));
        }
        j = skip_ws(d, end);
        match d.get(j) {
            Some(b',') => j = skip_ws(d, j + 1),
            Some(b'}') => return Ok(found),
            Some(&c) => return Err(broken(j, format!("expected `,` or `}}` in an object, found `{}`", c as char))),
            None => return Err(broken(i, "`{` is never closed")),
        }
    }
}

/// What a document (or a JSON Lines line) is parsed in: the rewritten text and where it sits
/// in the caller's input (for line and column numbers).
struct Doc<'a> {
    rw: Rewritten<'a>,
    /// The original input, and this document's offset in it.
    input: &'a [u8],
    base: usize,
}

impl Doc<'_> {
    /// "line L column C" of an offset in the rewritten text.
    fn place(&self, pos: usize) -> String {
        let (line, column) = line_column(self.input, self.base + self.rw.original(pos));
        format!("line {line} column {column}")
    }

    fn whole_error(&self, b: Broken) -> TrajectoryError {
        invalid(format!("not valid JSON at {}: {}", self.place(b.at), b.what))
    }

    /// One trajectory from its span: parsed on its own; an invalid one names its place.
    fn trajectory(&self, (start, end): (usize, usize)) -> Trajectory {
        let bytes = &self.rw.text[start..end];
        let text = match std::str::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                let at = start + e.valid_up_to();
                return Trajectory::failed(invalid(format!(
                    "not UTF-8 at {} (byte {})",
                    self.place(at),
                    self.base + self.rw.original(at)
                )));
            }
        };
        match serde_json::from_str::<&RawValue>(text) {
            Ok(raw) => trajectory_from_raw(raw),
            Err(e) => {
                let (line, column) = (e.line(), e.column());
                // position of the error in the rewritten text
                let line_start = text.split('\n').take(line.saturating_sub(1)).map(|l| l.len() + 1).sum::<usize>();
                let at = start + line_start + column.saturating_sub(1);
                Trajectory::failed(invalid(format!("not valid JSON at {}: {}", self.place(at), json_message(&e))))
            }
        }
    }

    /// One group from the span of its value.
    fn group(&self, (start, end): (usize, usize)) -> std::result::Result<TrajectoryGroup, Broken> {
        let d = &self.rw.text[..];
        let list = match d[start] {
            b'[' => Some(start),
            b'{' => match trajectories_value(d, start)? {
                Some((v, _)) if d[v] == b'[' => Some(v),
                Some(_) => return Ok(TrajectoryGroup::failed(invalid("trajectories: expected a list"))),
                None => return Ok(TrajectoryGroup::failed(invalid("trajectory group: missing field `trajectories`"))),
            },
            _ => None,
        };
        let Some(list) = list else {
            if let Err(e) = std::str::from_utf8(&d[start..end]) {
                let at = start + e.valid_up_to();
                return Ok(TrajectoryGroup::failed(invalid(format!(
                    "not UTF-8 at {} (byte {})",
                    self.place(at),
                    self.base + self.rw.original(at)
                ))));
            }
            return Ok(TrajectoryGroup::failed(group_shape_error()));
        };
        let (spans, _) = list_elements(d, list)?;
        Ok(TrajectoryGroup { trajectories: super::par_map(&spans, |&s| self.trajectory(s)), invalid: None })
    }
}

/// A serde_json error's message without its position (which is relative to a fragment), with
/// a lone surrogate escape explained.
fn json_message(e: &serde_json::Error) -> String {
    let s = e.to_string();
    let s = s.strip_suffix(&format!(" at line {} column {}", e.line(), e.column())).map(str::to_string).unwrap_or(s);
    if e.is_syntax() {
        explain_escape(s)
    } else {
        s
    }
}

/// A serde_json message about a `\u` escape that is a lone surrogate, explained (serde_json
/// says "unexpected end of hex escape" for `"\ud800?"`). Only for syntax errors: a data
/// error's message quotes the input, which may hold these words (found by the fuzz target
/// `trajectory_parse`: a reward of `"bsurrogatead"` got the explanation).
pub(crate) fn explain_escape(s: String) -> String {
    if s.contains("surrogate") || s.contains("end of hex escape") {
        format!("{s}: a lone surrogate (a \\uD800-\\uDFFF escape without its pair is not valid Unicode)")
    } else {
        s
    }
}

/// [`parse_groups`], for the fuzz target that checks it against the one-pass parse (feature
/// `fuzzing`; not a stable API).
#[cfg(feature = "fuzzing")]
pub fn fuzz_parse_groups(doc: &[u8]) -> Result<Vec<TrajectoryGroup>> {
    parse_groups(doc)
}

/// A list of groups from a document the one-pass parse rejected (see the module docs).
pub(crate) fn parse_groups(doc: &[u8]) -> Result<Vec<TrajectoryGroup>> {
    let d = Doc { rw: rewrite_non_finite(doc), input: doc, base: 0 };
    let text = &d.rw.text[..];
    let i = skip_ws(text, 0);
    if text.get(i) != Some(&b'[') {
        // valid JSON of the wrong shape reads as in `input::groups_from_value`
        if serde_json::from_slice::<serde::de::IgnoredAny>(doc).is_ok() {
            return Err(invalid("expected a list of trajectory groups"));
        }
        return Err(d.whole_error(broken(i, "expected a list of trajectory groups")));
    }
    let (spans, end) = list_elements(text, i).map_err(|b| d.whole_error(b))?;
    let rest = skip_ws(text, end);
    if rest < text.len() {
        return Err(d.whole_error(broken(rest, "unexpected text after the list of groups")));
    }
    spans.into_iter().map(|s| d.group(s).map_err(|b| d.whole_error(b))).collect()
}

/// One group (a JSON Lines line) the one-pass parse rejected: its bad trajectories invalid,
/// or the whole group invalid if its structure is broken. `base` is the line's offset in
/// `input` (for line and column numbers).
pub(crate) fn parse_group(input: &[u8], base: usize, line: &[u8]) -> TrajectoryGroup {
    let d = Doc { rw: rewrite_non_finite(line), input, base };
    let text = &d.rw.text[..];
    let i = skip_ws(text, 0);
    let group = value_end(text, i).and_then(|end| {
        let rest = skip_ws(text, end);
        if rest < text.len() {
            return Err(broken(rest, "unexpected text after the group"));
        }
        d.group((i, end))
    });
    group.unwrap_or_else(|b| TrajectoryGroup::failed(d.whole_error(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_literals_become_markers_outside_strings_only() {
        let doc = br#"{"a": NaN, "b": -Infinity, "s": "NaN Infinity", "c": [Infinity]}"#;
        let rw = rewrite_non_finite(doc);
        let v: serde_json::Value = serde_json::from_slice(&rw.text).unwrap();
        assert_eq!(v["a"], NAN_MARKER);
        assert_eq!(v["b"], NEG_INFINITY_MARKER);
        assert_eq!(v["s"], "NaN Infinity");
        assert_eq!(v["c"][0], INFINITY_MARKER);
        // offsets map back to the original text
        let pos = rw.text.windows(3).position(|w| w == b"\"s\"").unwrap();
        assert_eq!(rw.original(pos), doc.windows(3).position(|w| w == b"\"s\"").unwrap());
        assert!(matches!(rewrite_non_finite(b"[1, 2]").text, std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn marker_paths_locate_history_and_item() {
        assert_eq!(path_location("messages_and_choices[2].content"), (Some(0), Some(2)));
        assert_eq!(path_location("additional_histories[1].messages_and_choices[3]"), (Some(2), Some(3)));
        assert_eq!(path_location("additional_histories[0].tools"), (Some(1), None));
        assert_eq!(path_location("reward"), (None, None));
        assert_eq!(path_location(""), (None, None));
        let e = marker_error(
            invalid_marker("messages_and_choices[1].content", "bad").strip_prefix(INVALID_MARKER).unwrap(),
        );
        assert_eq!((e.location.history, e.location.item), (Some(0), Some(1)));
        assert_eq!(e.kind.to_string(), "invalid input: messages_and_choices[1].content: bad");
    }

    #[test]
    fn line_and_column() {
        assert_eq!(line_column(b"ab\ncd", 4), (2, 2));
        assert_eq!(line_column(b"ab", 0), (1, 1));
    }

    #[test]
    fn structure_errors_are_located() {
        for (doc, want) in [
            (&b"[[{}], [{]]"[..], "line 1 column 10"),
            (b"[[{}]\n, 5 x]", "line 2 column 5"),
            // valid JSON of the wrong shape: the error `groups_from_value` gives (no place)
            (b"{}", "expected a list of trajectory groups"),
            (b"[[\"abc]", "line 1 column 3"),
            (b"[[]] x", "line 1 column 6"),
        ] {
            let e = parse_groups(doc).unwrap_err();
            assert!(e.to_string().contains(want), "{}: {e}", String::from_utf8_lossy(doc));
            assert_eq!(e.location.group, None);
        }
    }
}
