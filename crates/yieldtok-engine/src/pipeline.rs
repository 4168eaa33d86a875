//! The encode loop: added tokens on the raw text, then per remaining segment the normalizer
//! (skipped when its quick check says the segment is already normal), the normalized added
//! tokens, the pre-tokenizer's ranges and the model's tokens, with `tokenizers`' word indices
//! and byte offsets (through the normalizer's alignments, or widened to char boundaries on an
//! unnormalized segment). A continuation piece's first segment uses the normalizer without
//! its `Prepend`. One loop serves `encode`, `encode_ids` and `count` through a
//! [`Sink`] (monomorphised: ids-only work computes no offsets).

use std::sync::atomic::{AtomicBool, Ordering};

use crate::added::{AddedVocab, Piece};
use crate::char_replace::CharReplace;
use crate::error::EncodeError;
use crate::models::bpe::{Bpe, BpeScratch};
use crate::models::bpe_cache::{Hit, WordCache};
use crate::models::{Model, Token};
use crate::normalized::Normalized;
use crate::normalizers::Normalize;
use crate::pre_tokenizers::{CutScratch, PreTokenizer};
use crate::unicode_chunks::Chunked;
use crate::{PieceOptions, Tokens};

/// A loaded pipeline (what [`crate::Engine`] wraps).
pub struct Pipeline {
    added: AddedVocab,
    normalizer: Option<Box<dyn Normalize>>,
    /// The normalizer of a continuation piece's first segment (without `Prepend`), when it
    /// differs from `normalizer`.
    continuation: Option<Option<Box<dyn Normalize>>>,
    /// The normalizer's fast path, when it has the SentencePiece shape (used instead of
    /// `normalizer`).
    char_replace: Option<CharReplace>,
    /// The normalizer is one Unicode form, normalized by chunks ([`crate::unicode_chunks`]).
    unicode_chunks: bool,
    pre: PreTokenizer,
    model: Model,
}

/// Where the tokens of an encode go.
trait Sink {
    /// Whether offsets are wanted (when not, they are not computed).
    const OFFSETS: bool;
    fn push(&mut self, id: u32, start: u32, end: u32, word: u32);
    /// Name the token pushed last `name` ([`Tokens::values`]); called only when `OFFSETS`.
    fn name_last(&mut self, _name: &str) {}
}

struct Full<'a>(&'a mut Tokens);
impl Sink for Full<'_> {
    const OFFSETS: bool = true;
    #[inline(always)]
    fn push(&mut self, id: u32, start: u32, end: u32, word: u32) {
        self.0.ids.push(id);
        self.0.offsets.push((start, end));
        self.0.words.push(word);
    }
    fn name_last(&mut self, name: &str) {
        self.0.values.push((self.0.ids.len() as u32 - 1, name.to_owned()));
    }
}

struct Ids<'a>(&'a mut Vec<u32>);
impl Sink for Ids<'_> {
    const OFFSETS: bool = false;
    #[inline(always)]
    fn push(&mut self, id: u32, _: u32, _: u32, _: u32) {
        self.0.push(id);
    }
}

struct Count(usize);
impl Sink for Count {
    const OFFSETS: bool = false;
    #[inline(always)]
    fn push(&mut self, _: u32, _: u32, _: u32, _: u32) {
        self.0 += 1;
    }
}

/// Scratch buffers of one encode.
#[derive(Default)]
struct Scratch {
    pieces: Vec<Piece>,
    inner: Vec<Piece>,
    ranges: Vec<(u32, u32)>,
    /// The pre-token ends of a scanner ([`PreTokenizer::scan_ends`]).
    ends: Vec<u32>,
    cut: CutScratch,
    syms: Vec<(u32, u32)>,
    tokens: Vec<Token>,
    /// A pre-token built by Metaspace's fast path.
    word: String,
    bpe: BpeScratch,
    norm_text: String,
    /// Where `char_replace` replaced chars (offsets only).
    reps: Vec<u32>,
    chunked: Chunked,
    /// The first and the last word that was an added token (raw or normalized).
    first_added_word: Option<u32>,
    last_added_word: Option<u32>,
}

impl Scratch {
    #[inline]
    fn added_word(&mut self, word: u32) {
        self.first_added_word.get_or_insert(word);
        self.last_added_word = Some(word);
    }
}

/// What one encode says about its words: how many, and whether the first and the last are
/// added tokens.
#[derive(Debug, Clone, Copy)]
struct Words {
    n: u32,
    first_added: bool,
    last_added: bool,
}

/// Pre-tokens between two reads of the cancel flag.
const CANCEL_EVERY_WORDS: usize = 1024;

/// The widest text the engine encodes in one piece (offsets are `u32`).
pub const MAX_PIECE: usize = u32::MAX as usize;

/// Name a model token by its text when `tokenizers` does: a Unigram unknown piece (`unk`:
/// the unknown id and its vocabulary entry) whose text in `word` is not that entry.
#[inline]
fn name_unk<S: Sink>(unk: Option<(u32, &str)>, t: &crate::Token, word: &str, sink: &mut S) {
    if let Some((id, entry)) = unk {
        if S::OFFSETS && t.id == id {
            let text = &word[t.start as usize..t.end as usize];
            if text != entry {
                sink.name_last(text);
            }
        }
    }
}

fn cancelled(opts: &PieceOptions<'_>) -> bool {
    opts.cancel.is_some_and(|c: &AtomicBool| c.load(Ordering::Relaxed))
}

/// `start..end` widened to the char boundaries of `text` (the alignment of a byte-level
/// char, or of a byte-fallback byte, is its whole original char).
#[inline(always)]
fn widen(text: &str, mut start: usize, mut end: usize) -> (u32, u32) {
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    while !text.is_char_boundary(end) {
        end += 1;
    }
    (start as u32, end as u32)
}

impl Pipeline {
    pub fn new(
        added: AddedVocab,
        normalizer: Option<Box<dyn Normalize>>,
        continuation: Option<Option<Box<dyn Normalize>>>,
        char_replace: Option<CharReplace>,
        unicode_chunks: bool,
        pre: PreTokenizer,
        model: Model,
    ) -> Self {
        Pipeline { added, normalizer, continuation, char_replace, unicode_chunks, pre, model }
    }

    /// The model's part of the compact form ([`crate::compact`]).
    pub(crate) fn write_model(&self, w: &mut crate::compact::Writer) -> Result<(), crate::LoadError> {
        match &self.model {
            Model::Bpe(bpe) => {
                w.u8(1);
                bpe.write_compact(w);
                Ok(())
            }
            other => Err(crate::LoadError::Unsupported(format!("a compact form of {}", other.describe()))),
        }
    }

    pub(crate) fn read_model(r: &mut crate::compact::Reader<'_>) -> Result<Model, crate::LoadError> {
        match r.u8()? {
            1 => Ok(Model::Bpe(Bpe::read_compact(r)?)),
            k => Err(crate::compact::corrupt(format!("model kind {k}"))),
        }
    }

    pub fn added(&self) -> &AddedVocab {
        &self.added
    }

    /// Whether the model is a BPE over bytes (ByteLevel).
    pub fn byte_level(&self) -> bool {
        matches!(&self.model, Model::Bpe(b) if b.units() == crate::models::bpe::Units::Bytes)
    }

    pub fn describe(&self) -> String {
        format!("{}, pre-tokenizer: {}", self.model.describe(), self.pre.describe())
    }

    pub fn encode(&self, text: &str, opts: &PieceOptions<'_>, out: &mut Tokens) -> Result<(), EncodeError> {
        let guess = text.len() / 4 + 8;
        out.ids.reserve(guess);
        out.offsets.reserve(guess);
        out.words.reserve(guess);
        let start_word = out.n_words;
        let words = self.run(text, opts, &mut Full(out), start_word)?;
        out.n_words = start_word + words.n;
        out.first_added = words.first_added;
        out.last_added = words.last_added;
        Ok(())
    }

    pub fn encode_ids(&self, text: &str, opts: &PieceOptions<'_>, out: &mut Vec<u32>) -> Result<(), EncodeError> {
        out.reserve(text.len() / 4 + 8);
        self.run(text, opts, &mut Ids(out), 0).map(drop)
    }

    pub fn count(&self, text: &str, opts: &PieceOptions<'_>) -> Result<usize, EncodeError> {
        let mut c = Count(0);
        self.run(text, opts, &mut c, 0)?;
        Ok(c.0)
    }

    /// Encode `text` into `sink`; returns its words. Word indices start at `first_word`.
    fn run<S: Sink>(
        &self,
        text: &str,
        opts: &PieceOptions<'_>,
        sink: &mut S,
        first_word: u32,
    ) -> Result<Words, EncodeError> {
        if text.len() > MAX_PIECE {
            return Err(EncodeError::TooLong { len: text.len(), limit: MAX_PIECE });
        }
        match &self.model {
            Model::Bpe(bpe) => bpe.with_cache(|cache| self.run_cached(text, opts, sink, first_word, cache)),
            // WordPiece and Unigram keep their own caches; the BPE word cache stays unused.
            _ => self.run_cached(text, opts, sink, first_word, &mut WordCache::unused()),
        }
    }

    fn run_cached<S: Sink>(
        &self,
        text: &str,
        opts: &PieceOptions<'_>,
        sink: &mut S,
        first_word: u32,
        cache: &mut WordCache,
    ) -> Result<Words, EncodeError> {
        let mut s = Scratch::default();
        let mut word = first_word;
        let mut pieces = std::mem::take(&mut s.pieces);
        match &self.added.raw {
            Some(m) => m.split(text, 0, &mut pieces),
            None if text.is_empty() => {}
            None => pieces.push(Piece::Text { start: 0, end: text.len() as u32 }),
        }
        for &p in &pieces {
            match p {
                Piece::Added { id, start, end } => {
                    sink.push(id, start, end, word);
                    if S::OFFSETS {
                        self.name_added(id, &text[start as usize..end as usize], sink);
                    }
                    s.added_word(word);
                    word += 1;
                }
                Piece::Text { start, end } => {
                    let continuation = opts.continuation && start == 0;
                    word = self.segment(text, start, end, continuation, opts, &mut s, cache, sink, word)?;
                }
            }
        }
        let n = word - first_word;
        Ok(Words {
            n,
            first_added: n > 0 && s.first_added_word == Some(first_word),
            last_added: n > 0 && s.last_added_word == Some(word - 1),
        })
    }

    /// Name an added token by the text it matched (`matched`, raw or normalized) when that is
    /// not its vocabulary entry, as `tokenizers` does.
    #[inline]
    fn name_added<S: Sink>(&self, id: u32, matched: &str, sink: &mut S) {
        if self.added.entry(id).is_some_and(|e| e != matched) {
            sink.name_last(matched);
        }
    }

    /// One segment between raw added tokens: normalized (unless the normalizer is the
    /// identity on it, checked first), then [`Self::tokenize_segment`].
    #[allow(clippy::too_many_arguments)]
    fn segment<S: Sink>(
        &self,
        text: &str,
        start: u32,
        end: u32,
        continuation: bool,
        opts: &PieceOptions<'_>,
        s: &mut Scratch,
        cache: &mut WordCache,
        sink: &mut S,
        word: u32,
    ) -> Result<u32, EncodeError> {
        let seg = &text[start as usize..end as usize];
        if let Some(cr) = &self.char_replace {
            let with_prepend = !(continuation && cr.has_prepend());
            let mut norm = std::mem::take(&mut s.norm_text);
            let mut reps = std::mem::take(&mut s.reps);
            cr.normalize(seg, with_prepend, &mut norm, S::OFFSETS.then_some(&mut reps));
            // The ids-only path records no replacements: its map must not see a previous
            // segment's.
            let map = cr.map(seg, start, with_prepend, if S::OFFSETS { &reps } else { &[] });
            let r = self.tokenize_segment(&norm, &map, continuation, opts, s, cache, sink, word);
            s.norm_text = norm;
            s.reps = reps;
            return r;
        }
        let normalizer = match (continuation, &self.continuation) {
            (true, Some(c)) => c.as_deref(),
            _ => self.normalizer.as_deref(),
        };
        match normalizer {
            // The chunks' own quick checks are the segment's (`Chunked::normalize` returns
            // `false` when every chunk passes): no whole-segment check first.
            Some(n) if self.unicode_chunks && !seg.is_ascii() => {
                let mut chunked = std::mem::take(&mut s.chunked);
                let r = if chunked.normalize(n, seg)? {
                    let map = chunked.map(start);
                    self.tokenize_segment(&chunked.text, &map, continuation, opts, s, cache, sink, word)
                } else {
                    let map = Identity { text: seg, base: start };
                    self.tokenize_segment(seg, &map, continuation, opts, s, cache, sink, word)
                };
                s.chunked = chunked;
                r
            }
            Some(n) if !n.is_identity_on(seg) => {
                let mut norm = Normalized::new(seg, start);
                n.normalize(&mut norm)?;
                let map = Aligned { alignments: &norm.alignments, shift: start };
                self.tokenize_segment(norm.get(), &map, continuation, opts, s, cache, sink, word)
            }
            _ => self.tokenize_segment(
                seg,
                &Identity { text: seg, base: start },
                continuation,
                opts,
                s,
                cache,
                sink,
                word,
            ),
        }
    }

    /// A normalized segment (`seg`, with `map` to the original): the normalized added tokens,
    /// then the pre-tokenizer's pieces through the model. `continuation`: the segment is the
    /// first of a continuation piece (its first text part gets no Metaspace prepend).
    #[allow(clippy::too_many_arguments)]
    fn tokenize_segment<S: Sink, M: OffsetMap>(
        &self,
        seg: &str,
        map: &M,
        continuation: bool,
        opts: &PieceOptions<'_>,
        s: &mut Scratch,
        cache: &mut WordCache,
        sink: &mut S,
        mut word: u32,
    ) -> Result<u32, EncodeError> {
        let mut inner = std::mem::take(&mut s.inner);
        inner.clear();
        match &self.added.normalized {
            Some(m) => m.split(seg, 0, &mut inner),
            None if seg.is_empty() => {}
            None => inner.push(Piece::Text { start: 0, end: seg.len() as u32 }),
        }
        for &p in &inner {
            match p {
                Piece::Added { id, start, end } => {
                    let (a, b) = if S::OFFSETS { map.map(start, end) } else { (0, 0) };
                    sink.push(id, a, b, word);
                    if S::OFFSETS {
                        self.name_added(id, &seg[start as usize..end as usize], sink);
                    }
                    s.added_word(word);
                    word += 1;
                }
                Piece::Text { start, end } if self.pre.metaspace().is_some() => {
                    word =
                        self.metaspace_part(seg, start, end, map, continuation && start == 0, opts, s, sink, word)?;
                }
                Piece::Text { start, end } => {
                    // A scanner's ends go to the BPE word loop as they are (no ranges built).
                    if let Model::Bpe(bpe) = &self.model {
                        if !bpe.has_cuts() {
                            s.ends.clear();
                            if self.pre.scan_ends(&seg[start as usize..end as usize], &mut s.ends) {
                                word = self
                                    .words_ends(bpe, seg, start, &s.ends, map, cache, &mut s.bpe, opts, sink, word)?;
                                continue;
                            }
                        }
                    }
                    s.ranges.clear();
                    self.pre.cut(&seg[start as usize..end as usize], start, &mut s.cut, &mut s.ranges, opts.cancel)?;
                    word = match &self.model {
                        Model::Bpe(bpe) => self.words(bpe, seg, &s.ranges, map, cache, &mut s.bpe, opts, sink, word)?,
                        model => {
                            let unk = model.unk_named_by_text();
                            let mut since_check = 0usize;
                            for &(rs, re) in &s.ranges {
                                let w = &seg[rs as usize..re as usize];
                                s.tokens.clear();
                                model.tokenize(w, &mut s.syms, &mut s.tokens, opts.cancel)?;
                                for t in &s.tokens {
                                    let (a, b) = if S::OFFSETS { map.map(rs + t.start, rs + t.end) } else { (0, 0) };
                                    sink.push(t.id, a, b, word);
                                    name_unk(unk, t, w, sink);
                                }
                                word += 1;
                                since_check += w.len();
                                if since_check >= 1 << 14 {
                                    since_check = 0;
                                    if cancelled(opts) {
                                        return Err(EncodeError::Cancelled);
                                    }
                                }
                            }
                            word
                        }
                    };
                }
            }
        }
        s.inner = inner;
        Ok(word)
    }

    /// One text part of a segment under Metaspace: the part as a [`Normalized`] of its own
    /// (spaces replaced, the replacement prepended, cut before each), each pre-token through
    /// the model; offsets through the part's alignments, then the segment's `map`.
    #[allow(clippy::too_many_arguments)]
    fn metaspace_part<S: Sink, M: OffsetMap>(
        &self,
        seg: &str,
        start: u32,
        end: u32,
        map: &M,
        continuation: bool,
        opts: &PieceOptions<'_>,
        s: &mut Scratch,
        sink: &mut S,
        mut word: u32,
    ) -> Result<u32, EncodeError> {
        let Some(ms) = self.pre.metaspace() else { return Ok(word) };
        let part = &seg[start as usize..end as usize];
        if part.is_empty() {
            return Ok(word);
        }
        // `first` prepends only to the split at offset 0 of the encoded text (never in a
        // continuation piece, which does not start the text).
        let at_text_start = !opts.continuation && map.map(start, end).0 == 0;
        let mut buf = std::mem::take(&mut s.word);
        let (tokens, syms) = (&mut s.tokens, &mut s.syms);
        let unk = self.model.unk_named_by_text();
        let fast = ms.pre_tokens(part, at_text_start, continuation, &mut buf, |w, m| {
            tokens.clear();
            self.model.tokenize(w, syms, tokens, opts.cancel)?;
            for t in tokens.iter() {
                let (a, b) = if S::OFFSETS {
                    let (x0, x1) = m.map(t.start, t.end);
                    map.map(start + x0, start + x1)
                } else {
                    (0, 0)
                };
                sink.push(t.id, a, b, word);
                name_unk(unk, t, w, sink);
            }
            word += 1;
            Ok::<(), EncodeError>(())
        })?;
        s.word = buf;
        if !fast {
            for split in ms.transform(Normalized::new(part, 0), at_text_start, continuation) {
                s.tokens.clear();
                self.model.tokenize(split.get(), &mut s.syms, &mut s.tokens, opts.cancel)?;
                for t in &s.tokens {
                    let (a, b) = if S::OFFSETS {
                        let shift = start + split.original_shift;
                        let x0 = split.alignments[t.start as usize].0;
                        let x1 = split.alignments[t.end as usize - 1].1;
                        map.map(shift + x0, shift + x1)
                    } else {
                        (0, 0)
                    };
                    sink.push(t.id, a, b, word);
                    name_unk(unk, t, split.get(), sink);
                }
                word += 1;
            }
        }
        if cancelled(opts) {
            return Err(EncodeError::Cancelled);
        }
        Ok(word)
    }

    /// The pre-tokens `ranges` of `seg` through the model: one-byte ByteLevel pre-tokens by
    /// table, others through the word cache, misses through the model. Returns the next word.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn words<S: Sink, M: OffsetMap>(
        &self,
        bpe: &Bpe,
        seg: &str,
        ranges: &[(u32, u32)],
        map: &M,
        cache: &mut WordCache,
        scratch: &mut BpeScratch,
        opts: &PieceOptions<'_>,
        sink: &mut S,
        mut word: u32,
    ) -> Result<u32, EncodeError> {
        let bytes = seg.as_bytes();
        if bpe.has_cuts() {
            for (k, &(rs, re)) in ranges.iter().enumerate() {
                if k % CANCEL_EVERY_WORDS == CANCEL_EVERY_WORDS - 1 && cancelled(opts) {
                    return Err(EncodeError::Cancelled);
                }
                let w = &bytes[rs as usize..re as usize];
                bpe.sub_words(w, |a, b| {
                    self.one(bpe, seg, rs + a as u32, rs + b as u32, map, cache, scratch, opts, sink, word)
                })?;
                word += 1;
            }
            return Ok(word);
        }
        // The cancel flag is read between chunks of words (not before the first), so the
        // inner loop carries nothing but the word: a one-token word (nearly all) costs one
        // probe of the cache (`one_at`) and a push; the rest take `one`.
        for (k, chunk) in ranges.chunks(CANCEL_EVERY_WORDS).enumerate() {
            if k > 0 && cancelled(opts) {
                return Err(EncodeError::Cancelled);
            }
            let mut at = 0;
            while at < chunk.len() {
                let done = one_token_words(cache, bytes, &chunk[at..], map, sink, word);
                at += done;
                word += done as u32;
                if let Some(&(rs, re)) = chunk.get(at) {
                    self.one(bpe, seg, rs, re, map, cache, scratch, opts, sink, word)?;
                    at += 1;
                    word += 1;
                }
            }
        }
        Ok(word)
    }

    /// [`Self::words`] of a BPE without sub-word cuts, over a scanner's pre-tokens: `ends`
    /// relative to `base` (the first pre-token starts there, each next one where the previous
    /// ended). Returns the next word.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn words_ends<S: Sink, M: OffsetMap>(
        &self,
        bpe: &Bpe,
        seg: &str,
        base: u32,
        ends: &[u32],
        map: &M,
        cache: &mut WordCache,
        scratch: &mut BpeScratch,
        opts: &PieceOptions<'_>,
        sink: &mut S,
        mut word: u32,
    ) -> Result<u32, EncodeError> {
        let bytes = seg.as_bytes();
        let mut start = base;
        for (k, chunk) in ends.chunks(CANCEL_EVERY_WORDS).enumerate() {
            if k > 0 && cancelled(opts) {
                return Err(EncodeError::Cancelled);
            }
            let mut at = 0;
            while at < chunk.len() {
                let done = one_token_ends(cache, bytes, base, start, &chunk[at..], map, sink, word);
                if done > 0 {
                    start = base + chunk[at + done - 1];
                }
                at += done;
                word += done as u32;
                if let Some(&e) = chunk.get(at) {
                    let end = base + e;
                    self.one(bpe, seg, start, end, map, cache, scratch, opts, sink, word)?;
                    start = end;
                    at += 1;
                    word += 1;
                }
            }
        }
        Ok(word)
    }

    /// One (sub-)word `seg[rs..re]` of word `word`: a one-byte ByteLevel word by table, others
    /// through the word cache, misses through the model.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn one<S: Sink, M: OffsetMap>(
        &self,
        bpe: &Bpe,
        seg: &str,
        rs: u32,
        re: u32,
        map: &M,
        cache: &mut WordCache,
        scratch: &mut BpeScratch,
        opts: &PieceOptions<'_>,
        sink: &mut S,
        word: u32,
    ) -> Result<(), EncodeError> {
        let offsets = |a: u32, b: u32| if S::OFFSETS { map.map(a, b) } else { (0, 0) };
        // One-byte ByteLevel words go through the cache too (a miss remembers them): a
        // separate branch for them mispredicted on real text.
        match cache.get_at(seg.as_bytes(), rs as usize, re as usize) {
            Some(Hit::One(id)) => {
                let (a, b) = offsets(rs, re);
                sink.push(id, a, b, word);
            }
            Some(Hit::Many { offset, count }) => {
                let (ids, ends) = cache.values(offset, count);
                let mut start = rs;
                for (&id, &end) in ids.iter().zip(ends) {
                    let (a, b) = offsets(start, rs + end);
                    sink.push(id, a, b, word);
                    start = rs + end;
                }
            }
            None => {
                let ws = &seg[rs as usize..re as usize];
                for t in bpe.tokenize_and_remember(ws, cache, scratch, opts.cancel)? {
                    let (a, b) = offsets(rs + t.start, rs + t.end);
                    sink.push(t.id, a, b, word);
                }
            }
        }
        Ok(())
    }
}

/// The leading words of `ranges` that the cache holds as one token each (word indices from
/// `word`), pushed; returns how many. A loop of its own, so that it keeps its few values in
/// registers.
#[inline(never)]
fn one_token_words<S: Sink, M: OffsetMap>(
    cache: &WordCache,
    bytes: &[u8],
    ranges: &[(u32, u32)],
    map: &M,
    sink: &mut S,
    word: u32,
) -> usize {
    for (k, &(rs, re)) in ranges.iter().enumerate() {
        let Some(id) = cache.one_at(bytes, rs as usize, re as usize) else { return k };
        let (a, b) = if S::OFFSETS { map.map(rs, re) } else { (0, 0) };
        sink.push(id, a, b, word + k as u32);
    }
    ranges.len()
}

/// [`one_token_words`] over pre-token ends (relative to `base`; the first pre-token starts at
/// `start`): the leading words that the cache holds as one token each, pushed; returns how many.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn one_token_ends<S: Sink, M: OffsetMap>(
    cache: &WordCache,
    bytes: &[u8],
    base: u32,
    start: u32,
    ends: &[u32],
    map: &M,
    sink: &mut S,
    word: u32,
) -> usize {
    let mut rs = start;
    for (k, &e) in ends.iter().enumerate() {
        let re = base + e;
        let Some(id) = cache.one_at(bytes, rs as usize, re as usize) else { return k };
        let (a, b) = if S::OFFSETS { map.map(rs, re) } else { (0, 0) };
        sink.push(id, a, b, word + k as u32);
        rs = re;
    }
    ends.len()
}

/// From a byte range of a (normalized) segment to byte offsets in the encoded text.
pub(crate) trait OffsetMap {
    fn map(&self, start: u32, end: u32) -> (u32, u32);
}

/// A segment that is its own normalization: offsets widened to char boundaries (the
/// alignment of a byte-level char or a fallback byte is its whole char), shifted by `base`.
struct Identity<'a> {
    text: &'a str,
    base: u32,
}

impl OffsetMap for Identity<'_> {
    #[inline(always)]
    fn map(&self, start: u32, end: u32) -> (u32, u32) {
        let (a, b) = widen(self.text, start as usize, end as usize);
        (self.base + a, self.base + b)
    }
}

/// A normalized segment: `tokenizers`' `convert_offsets` (first alignment's start, last
/// alignment's end), shifted by the segment's start.
struct Aligned<'a> {
    alignments: &'a [(u32, u32)],
    shift: u32,
}

impl OffsetMap for Aligned<'_> {
    #[inline(always)]
    fn map(&self, start: u32, end: u32) -> (u32, u32) {
        let (a, b) = (self.alignments[start as usize].0, self.alignments[end as usize - 1].1);
        (self.shift + a, self.shift + b)
    }
}
