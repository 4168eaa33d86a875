//! Pre-tokenizers: cut a normalized segment into pre-tokens (splits), each of which the model
//! tokenizes on its own. Split (string / regex, every behavior), ByteLevel, Metaspace, Digits,
//! Whitespace, WhitespaceSplit, BertPreTokenizer, Punctuation, CharDelimiterSplit, Sequence.

pub mod bert;
pub mod byte_level;
pub mod char_delimiter;
pub mod char_split;
pub mod digits;
pub mod metaspace;
pub mod punctuation;
pub mod scan;
pub mod split;
pub mod whitespace;

use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::Value;

use crate::error::{EncodeError, LoadError};
use crate::normalized::{Normalized, SplitDelimiterBehavior};

/// The splits of one normalized segment, in order (the role of `tokenizers`'
/// `PreTokenizedString`): each a [`Normalized`] whose alignments point into the original.
pub type Splits = Vec<Normalized>;

/// The general form of a pre-tokenizer: replace each split by the splits it is cut into.
/// (The engine's fast paths bypass this for the common shapes; see `DESIGN.md`.)
pub trait PreTokenize: Send + Sync {
    fn pre_tokenize(&self, splits: &mut Splits) -> Result<(), EncodeError>;
}

/// Replace every split by what `f(index, split)` returns (`tokenizers`'
/// `PreTokenizedString::split`): the building block of every [`PreTokenize`]. Empty results
/// are dropped, as `tokenizers` drops them.
pub fn split_each(
    splits: &mut Splits,
    mut f: impl FnMut(usize, Normalized) -> Result<Vec<Normalized>, EncodeError>,
) -> Result<(), EncodeError> {
    let old = std::mem::take(splits);
    for (i, s) in old.into_iter().enumerate() {
        splits.extend(f(i, s)?.into_iter().filter(|n| !n.get().is_empty()));
    }
    Ok(())
}

/// What the engine runs for a `pre_tokenizer` (the dispatcher [`from_json`] builds it):
/// range-cutting steps applied in order — `Split`s, or one hand-written [`scan::Scanner`]
/// standing for all of them — and whether a ByteLevel step ends the sequence (the model then
/// runs over raw bytes; see [`byte_level`]).
pub struct PreTokenizer {
    pub splits: Vec<split::Split>,
    pub scanner: Option<Box<dyn scan::Scanner>>,
    pub byte_level: bool,
    /// One of the word-level pre-tokenizers, alone (not in a Sequence with other steps).
    pub other: Option<Other>,
}

/// The word-level pre-tokenizers (BERT / SentencePiece families), each run alone.
pub enum Other {
    Bert(bert::BertPreTokenizer),
    Whitespace(whitespace::Whitespace),
    WhitespaceSplit(whitespace::WhitespaceSplit),
    Punctuation(punctuation::Punctuation),
    Digits(digits::Digits),
    CharDelimiterSplit(char_delimiter::CharDelimiterSplit),
    /// Transforms its split (spaces, prepend) before cutting: the pipeline runs it through
    /// [`metaspace::Metaspace::transform`], not [`PreTokenizer::cut`].
    Metaspace(metaspace::Metaspace),
}

impl PreTokenizer {
    /// The Metaspace step, when that is the pre-tokenizer.
    pub fn metaspace(&self) -> Option<&metaspace::Metaspace> {
        match &self.other {
            Some(Other::Metaspace(m)) => Some(m),
            _ => None,
        }
    }
}

/// Scratch space of [`PreTokenizer::cut`], reused between calls.
#[derive(Default)]
pub struct CutScratch {
    ranges: Vec<(u32, u32)>,
    ends: Vec<u32>,
}

/// Pre-tokens cut between two reads of the cancel flag.
const CANCEL_EVERY_PIECES: usize = 1024;

impl PreTokenizer {
    /// When a hand-written scanner is the whole pre-tokenizer: the end offsets (in `text`) of
    /// the pre-tokens of `text` appended to `ends` (they tile it: [`scan::Scanner::scan`]),
    /// and `true`. `false` (nothing appended) when the pre-tokenizer is something else; then
    /// [`cut`](Self::cut) gives its ranges. The word loop reads these ends directly: no
    /// ranges are built.
    #[inline]
    pub fn scan_ends(&self, text: &str, ends: &mut Vec<u32>) -> bool {
        match (&self.other, &self.scanner) {
            (None, Some(scanner)) => {
                if !text.is_empty() {
                    scanner.scan(text, ends);
                }
                true
            }
            _ => false,
        }
    }

    /// Append the pre-tokens of `text` (at byte `base` of the encoded text) to `out` as
    /// absolute byte ranges.
    pub fn cut(
        &self,
        text: &str,
        base: u32,
        scratch: &mut CutScratch,
        out: &mut Vec<(u32, u32)>,
        cancel: Option<&AtomicBool>,
    ) -> Result<(), EncodeError> {
        if text.is_empty() {
            return Ok(());
        }
        if let Some(other) = &self.other {
            match other {
                Other::Bert(p) => p.cut(text, base, out),
                Other::Whitespace(p) => p.cut(text, base, out),
                Other::WhitespaceSplit(p) => p.cut(text, base, out),
                Other::Punctuation(p) => p.cut(text, base, out),
                Other::Digits(p) => p.cut(text, base, out),
                Other::CharDelimiterSplit(p) => p.cut(text, base, out),
                Other::Metaspace(_) => return Err(EncodeError::Model("Metaspace runs through transform".into())),
            }
            return Ok(());
        }
        if let Some(scanner) = &self.scanner {
            scratch.ends.clear();
            scanner.scan(text, &mut scratch.ends);
            let mut start = base;
            out.extend(scratch.ends.iter().map(|&e| {
                let r = (start, base + e);
                start = base + e;
                r
            }));
            return Ok(());
        }
        match self.splits.as_slice() {
            [] => out.push((base, base + text.len() as u32)),
            [only] => only.cut(text, base, out),
            [first, rest @ ..] => {
                let mut current = std::mem::take(&mut scratch.ranges);
                current.clear();
                first.cut(text, base, &mut current);
                let mut next = Vec::with_capacity(current.len());
                for (i, step) in rest.iter().enumerate() {
                    let last = i + 1 == rest.len();
                    let target = if last { &mut *out } else { &mut next };
                    for (n, &(s, e)) in current.iter().enumerate() {
                        if n % CANCEL_EVERY_PIECES == CANCEL_EVERY_PIECES - 1 && is_cancelled(cancel) {
                            return Err(EncodeError::Cancelled);
                        }
                        let piece = &text[(s - base) as usize..(e - base) as usize];
                        step.cut(piece, s, target);
                    }
                    if !last {
                        std::mem::swap(&mut current, &mut next);
                        next.clear();
                    }
                }
                scratch.ranges = current;
            }
        }
        Ok(())
    }

    /// A short description for logs (`"scanner o200k + ByteLevel"`, `"2 Splits"`, …).
    pub fn describe(&self) -> String {
        if let Some(o) = &self.other {
            return match o {
                Other::Bert(_) => "BertPreTokenizer",
                Other::Whitespace(_) => "Whitespace",
                Other::WhitespaceSplit(_) => "WhitespaceSplit",
                Other::Punctuation(_) => "Punctuation",
                Other::Digits(_) => "Digits",
                Other::CharDelimiterSplit(_) => "CharDelimiterSplit",
                Other::Metaspace(_) => "Metaspace",
            }
            .into();
        }
        let mut s = match &self.scanner {
            Some(sc) => format!("scanner {}", sc.name()),
            None => format!("{} Split(s)", self.splits.len()),
        };
        if self.byte_level {
            s.push_str(" + ByteLevel");
        }
        s
    }
}

fn is_cancelled(cancel: Option<&AtomicBool>) -> bool {
    cancel.is_some_and(|c| c.load(Ordering::Relaxed))
}

fn unsupported(s: impl Into<String>) -> LoadError {
    LoadError::Unsupported(s.into())
}

/// The dispatcher: build what the engine runs for a `pre_tokenizer` value (`None` or `null`:
/// nothing). Refuses what the engine does not reproduce exactly.
pub fn from_json(v: Option<&Value>) -> Result<PreTokenizer, LoadError> {
    let mut pre = PreTokenizer { splits: Vec::new(), scanner: None, byte_level: false, other: None };
    if let Some(v) = v.filter(|v| !v.is_null()) {
        add_step(&mut pre, v)?;
    }
    // One hand-written scanner for the whole chain of regex Splits, when one is known: its
    // contract is the chain of Isolated splits (and, for the main patterns, which match every
    // char, a single Removed + invert split, which tiles the same).
    let isolated = pre.splits.iter().all(|s| s.behavior == SplitDelimiterBehavior::Isolated && !s.invert);
    let removed_inverted =
        matches!(pre.splits.as_slice(), [s] if s.behavior == SplitDelimiterBehavior::Removed && s.invert);
    if !pre.splits.is_empty() && (isolated || removed_inverted) {
        if let Some(patterns) = pre.splits.iter().map(|s| s.regex_source()).collect::<Option<Vec<&str>>>() {
            pre.scanner = scan::scanner_for(&patterns);
        }
    }
    Ok(pre)
}

fn add_step(pre: &mut PreTokenizer, v: &Value) -> Result<(), LoadError> {
    if pre.byte_level {
        return Err(unsupported("a pre-tokenizer after ByteLevel"));
    }
    let ty = v.get("type").and_then(Value::as_str).unwrap_or("");
    let alone = |pre: &PreTokenizer| pre.splits.is_empty() && pre.other.is_none();
    if pre.other.is_some() && ty != "Sequence" {
        return Err(unsupported(format!("pre-tokenizer {ty:?} in a Sequence after a word-level one")));
    }
    let other = match ty {
        "BertPreTokenizer" => Some(Other::Bert(bert::BertPreTokenizer)),
        "Whitespace" => Some(Other::Whitespace(whitespace::Whitespace)),
        "WhitespaceSplit" => Some(Other::WhitespaceSplit(whitespace::WhitespaceSplit)),
        "Punctuation" => Some(Other::Punctuation(punctuation::Punctuation::from_json(v)?)),
        "Digits" => Some(Other::Digits(digits::Digits::from_json(v)?)),
        "CharDelimiterSplit" => Some(Other::CharDelimiterSplit(char_delimiter::CharDelimiterSplit::from_json(v)?)),
        "Metaspace" => Some(Other::Metaspace(metaspace::Metaspace::from_json(v)?)),
        _ => None,
    };
    if let Some(o) = other {
        if !alone(pre) {
            return Err(unsupported(format!("pre-tokenizer {ty:?} in a Sequence with other steps")));
        }
        pre.other = Some(o);
        return Ok(());
    }
    match ty {
        "Sequence" => {
            let steps = v.get("pretokenizers").and_then(Value::as_array).ok_or_else(|| {
                LoadError::Malformed(serde::de::Error::custom("pre-tokenizer Sequence without pretokenizers"))
            })?;
            for s in steps {
                add_step(pre, s)?;
            }
        }
        "Split" => pre.splits.push(split::Split::from_json(v)?),
        "ByteLevel" => {
            pre.splits.extend(byte_level::from_json(v)?);
            pre.byte_level = true;
        }
        other => return Err(unsupported(format!("pre-tokenizer {other:?}"))),
    }
    Ok(())
}
