//! The cut planner: given a text, a position that is a safe cut, and a target piece size,
//! finds the first safe cut at or past the target (or the end of the text), and says in which
//! mode the piece must be encoded. Planning is lazy: added-token zones are searched only as far
//! as the planner has walked, so a job over a 100 MB text costs nothing before its first piece.

use super::added::{AddedMatcher, Zone, ZoneKind};
use super::classify::CutRules;

/// How a piece is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// With the tokenizer's own pipeline.
    Normal,
    /// With the prepend step removed (the piece continues a segment of the previous piece).
    Continuation,
}

/// Bytes of text searched for added tokens at a time, past where the walk has come.
/// (A few bytes in unit tests, so that their short texts span many windows.)
const ZONE_WINDOW: usize = if cfg!(test) { 3 } else { 64 * 1024 };

/// Rules + added-token matcher of one tokenizer.
#[derive(Clone)]
pub(crate) struct Planner {
    pub(crate) rules: CutRules,
    pub(crate) added: AddedMatcher,
}

/// A planned piece: where it ends, its mode, and whether its first word (pre-tokenizer
/// split) may be the previous piece's last one: `tokenizers` numbers the words of the whole
/// text by split, so a cut inside a split (the SentencePiece family has one split between
/// added tokens) must not start a new word there. Cuts at exact added-token edges and the
/// regex family's cuts are split boundaries. A cut next to an added token the planner has no
/// exact edge for (`normalized`, stripping or single-word tokens) is one too: the pieces'
/// encodes say whether their first and last splits are added tokens, and
/// [`crate::pipeline::word_bases`] joins words only where neither is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Next {
    pub(crate) end: usize,
    pub(crate) mode: Mode,
    pub(crate) joins_word: bool,
}

/// Walk state over one text: the zones found so far that may still matter.
#[derive(Debug, Default)]
pub struct ZoneCursor {
    zones: std::collections::VecDeque<Zone>,
    /// Where the next zone search starts (the end of the last zone found, or of the last
    /// window searched without a match).
    search_from: usize,
    /// Every zone starting before this is known (see [`Planner::fill`]).
    known_to: usize,
    exhausted: bool,
}

/// Where the last char of `text[from..to]` that is not whitespace starts, if there is one
/// (`None` too when `to` is not a char boundary).
fn last_not_blank(text: &str, from: usize, to: usize) -> Option<usize> {
    let (at, _) =
        text.get(..to)?.char_indices().rev().take_while(|&(i, _)| i >= from).find(|(_, c)| !c.is_whitespace())?;
    Some(at)
}

impl Planner {
    /// Make sure every zone starting before `upto` is known. Zones are searched in windows of
    /// [`ZONE_WINDOW`] bytes, so a text without added tokens is searched only as far as the
    /// walk has come, not to its end. Every zone whose match starts before `search_from` is
    /// known; a later zone starts at its match, or, for an `lstrip` token, at the whitespace
    /// run before it, which cannot reach back past a char that is not whitespace.
    fn fill(&self, text: &str, cur: &mut ZoneCursor, upto: usize) {
        if upto <= cur.known_to {
            return;
        }
        let len = text.len();
        while !cur.exhausted && cur.zones.back().is_none_or(|z| z.start < upto) {
            if cur.search_from >= upto {
                if !self.added.strips_left() {
                    cur.known_to = cur.search_from;
                    return;
                }
                if let Some(q) = last_not_blank(text, upto, cur.search_from) {
                    cur.known_to = q + 1;
                    return;
                }
            }
            let mut until = cur.search_from.max(upto).saturating_add(ZONE_WINDOW).min(len);
            while !text.is_char_boundary(until) {
                until += 1;
            }
            match self.added.next_zone_within(text, cur.search_from, until) {
                Some(z) => {
                    cur.search_from = z.end.max(z.start + 1).min(len);
                    cur.zones.push_back(z);
                    if z.end >= len {
                        cur.exhausted = true;
                    }
                }
                None if until >= len => cur.exhausted = true,
                None => cur.search_from = until,
            }
        }
    }

    fn drop_before(cur: &mut ZoneCursor, pos: usize) {
        while cur.zones.front().is_some_and(|z| z.end < pos) {
            cur.zones.pop_front();
        }
    }

    /// The piece that starts at `start` (a safe cut): its end and its mode. `target` is the
    /// wanted size in bytes; the piece grows past it until a safe cut is found.
    pub(crate) fn next_piece(&self, text: &str, start: usize, target: usize, cur: &mut ZoneCursor) -> (usize, Mode) {
        let next = self.next(text, start, target, cur);
        (next.end, next.mode)
    }

    /// [`next_piece`](Self::next_piece) and whether the piece's first word is the previous
    /// piece's last one (see [`Next::joins_word`]).
    pub(crate) fn next(&self, text: &str, start: usize, target: usize, cur: &mut ZoneCursor) -> Next {
        let len = text.len();
        Self::drop_before(cur, start);
        self.fill(text, cur, start.saturating_add(target).min(len));
        let starts_after_added = cur.zones.iter().any(|z| z.kind == ZoneKind::Edge && z.end == start);
        let starts_at_added = cur.zones.iter().any(|z| z.kind == ZoneKind::Edge && z.start == start);
        let joins_word = start != 0 && !starts_after_added && !starts_at_added && self.rules.cuts_inside_words();
        let (end, mode) = self.piece_end(text, start, target, cur, starts_after_added || starts_at_added);
        Next { end, mode, joins_word }
    }

    fn piece_end(
        &self,
        text: &str,
        start: usize,
        target: usize,
        cur: &mut ZoneCursor,
        at_added_edge: bool,
    ) -> (usize, Mode) {
        let len = text.len();
        let mode = if self.rules.continuation.is_some() && start != 0 && !at_added_edge {
            Mode::Continuation
        } else {
            Mode::Normal
        };
        let want = start.saturating_add(target.max(1)).min(len);
        // A continuation piece must not contain an added token: it ends at the first exact
        // added-token match after its start, even before the target. (Past the target, the
        // walk below stops at the first edge anyway.)
        if mode == Mode::Continuation {
            self.fill(text, cur, want);
            if let Some(z) = cur.zones.iter().find(|z| z.kind == ZoneKind::Edge && z.start > start) {
                if z.start < want {
                    return (z.start, mode);
                }
            }
        }
        if want >= len {
            return (len, mode);
        }
        let end = self.first_cut_at_or_after(text, start, want, cur);
        (end, mode)
    }

    /// First safe cut `p` with `p >= want` (and `p > start`), or `len`.
    fn first_cut_at_or_after(&self, text: &str, start: usize, want: usize, cur: &mut ZoneCursor) -> usize {
        let bytes = text.as_bytes();
        let len = bytes.len();
        let r = &self.rules;
        let space_ok = r.before_space && r.is_chunked() && !self.added.blocks.before_space;
        let newline_ok = r.after_newline && r.is_chunked() && !self.added.blocks.after_newline;
        let mut p = want.max(start + 1);
        let mut zi = 0usize; // index into cur.zones of the first zone whose end >= p
        loop {
            if p >= len {
                return len;
            }
            self.fill(text, cur, p + 1);
            while zi < cur.zones.len() && cur.zones[zi].end < p {
                zi += 1;
            }
            if let Some(z) = cur.zones.get(zi).copied() {
                if z.start < p && p < z.end {
                    // Inside a zone: jump to its end (a candidate if it is an exact edge).
                    p = z.end;
                    continue;
                }
                if z.kind == ZoneKind::Edge && (z.start == p || z.end == p) {
                    return p;
                }
            }
            let b = bytes[p];
            if b == b' ' && space_ok {
                if let Some(prev) = text[..p].chars().next_back() {
                    if !prev.is_whitespace() && !r.forbid_before_space.contains(&prev) {
                        return p;
                    }
                }
            }
            if newline_ok && bytes[p - 1] == b'\n' {
                if let Some(next) = text[p..].chars().next() {
                    if !next.is_whitespace() && !r.forbid_after_newline.contains(&next) {
                        return p;
                    }
                }
            }
            // Advance to the next char boundary.
            p += 1;
            while p < len && !text.is_char_boundary(p) {
                p += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::split::added::{Blocks, PatternInfo};
    use proptest::prelude::*;

    /// A planner whose tokens are `<a>` (exact), `<bb>` (lstrip), `<c>` (rstrip) and `aa`
    /// (exact), with `strips`: without the lstrip one.
    fn planner(strips: bool) -> Planner {
        let mut patterns = vec!["<a>", "<c>", "aa"];
        let mut info = vec![
            PatternInfo { exact: true, lstrip: false, rstrip: false },
            PatternInfo { exact: false, lstrip: false, rstrip: true },
            PatternInfo { exact: true, lstrip: false, rstrip: false },
        ];
        if strips {
            patterns.push("<bb>");
            info.push(PatternInfo { exact: false, lstrip: true, rstrip: false });
        }
        let added = AddedMatcher::from_parts(patterns.into_iter().map(String::from).collect(), info, Blocks::default())
            .unwrap();
        Planner { rules: CutRules::unchunked("test"), added }
    }

    /// The zones of `text` as the unbounded search finds them, in order.
    fn all_zones(p: &Planner, text: &str) -> Vec<Zone> {
        let mut out = Vec::new();
        let mut from = 0;
        while let Some(z) = p.added.next_zone_within(text, from, text.len()) {
            from = z.end.max(z.start + 1).min(text.len());
            out.push(z);
            if z.end >= text.len() {
                break;
            }
        }
        out
    }

    fn text() -> impl Strategy<Value = String> {
        let atom = prop::sample::select(vec![
            "<a>", "<bb>", "<c>", "aa", "a", "<", ">", "b", " ", "  ", "\n", "\u{3000}", "\u{a0}", "é", "日本",
        ]);
        prop::collection::vec((atom, 1usize..6), 0..60).prop_map(|v| v.into_iter().map(|(a, n)| a.repeat(n)).collect())
    }

    proptest! {
        /// `fill`, searching in windows, knows every zone that starts before the position
        /// it is asked for, and only zones of the unbounded search, in its order — whatever
        /// the positions asked for (tiny windows under `cfg(test)`: see [`ZONE_WINDOW`]).
        #[test]
        fn windowed_fill_finds_the_unbounded_zones(s in text(), strips in any::<bool>(), steps in prop::collection::vec(0usize..40, 1..20)) {
            let p = planner(strips);
            let want = all_zones(&p, &s);
            let mut cur = ZoneCursor::default();
            let mut upto = 0;
            for step in steps.into_iter().chain([s.len() + 1]) {
                upto = (upto + step).min(s.len() + 1);
                p.fill(&s, &mut cur, upto);
                let got: Vec<Zone> = cur.zones.iter().copied().collect();
                prop_assert_eq!(&got[..], &want[..got.len().min(want.len())], "{:?} upto {}", s, upto);
                prop_assert!(got.len() <= want.len());
                let needed = want.iter().filter(|z| z.start < upto).count();
                prop_assert!(got.len() >= needed, "{:?} upto {}: {} zones known, {} start before", s, upto, got.len(), needed);
            }
        }
    }
}
