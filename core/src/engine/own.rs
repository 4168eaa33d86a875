//! The own engine (`yieldtok-engine`, pure Rust, native and wasm32) behind the engine seam:
//! built from the `tokenizer.json` text at load ([`build`]), proven against the reference
//! (`tokenizers`) on the load-time self-check sample before it serves anything
//! ([`OwnEngine::verify`]), then encoding pieces (ids, byte offsets and words, or ids only)
//! and assembling full pieces into an [`Encoding`].
//!
//! Assembly ([`OwnEngine::assemble`]) keeps `tokenizers`' post-processor semantics. When the
//! tokenizer has no truncation or padding and its post-processor only frames the content with
//! fixed special tokens without touching offsets (probed at load, like
//! [`SpecialFrame::probe`](crate::pipeline::SpecialFrame::probe), and checked end to end on
//! the sample), the [`Encoding`] is built directly: the frame's special tokens get offsets
//! `(0, 0)`, special-tokens mask 1 and the frame's type ids; the content keeps its offsets,
//! mask 0 and the content type id. Otherwise a `tokenizers::Encoding` is built from the
//! engine's output (token strings from the vocabulary) and `post_process` runs on it.

use std::sync::atomic::AtomicBool;

use tokenizers::Encoding as HfEncoding;
use yieldtok_engine::{EncodeError, Engine, PieceOptions, Tokens};

use crate::encoding::{Encoding, TextNamed};
use crate::error::{Error, Result};
use crate::post::RangeShape;
use crate::split::{Mode, Planner, ZoneCursor};

/// Build the engine from the text of a `tokenizer.json`; `Err(reason)` when it refuses (or
/// panics, which is caught).
pub(crate) fn build(json: &str) -> std::result::Result<Engine, String> {
    if super::selected() == super::Selected::ReferenceOnly {
        return Err("disabled by YIELDTOK_ENGINE".into());
    }
    match std::panic::catch_unwind(|| Engine::from_json(json)) {
        Ok(Ok(engine)) => Ok(engine),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err("the yieldtok engine panicked while loading".into()),
    }
}

/// One piece's output: its byte offset in the whole text and the engine's tokens (offsets
/// relative to the piece, words counted from 0 within it).
pub(crate) struct OwnPiece {
    pub(crate) start: usize,
    pub(crate) tokens: Tokens,
    /// Whether the first word may continue the previous piece's last ([`crate::split::Next`]).
    pub(crate) joins_word: bool,
}

impl OwnPiece {
    pub(crate) fn words(&self) -> crate::pipeline::PieceWords {
        crate::pipeline::PieceWords {
            n: self.tokens.n_words,
            may_join: self.joins_word,
            first_added: self.tokens.first_added,
            last_added: self.tokens.last_added,
        }
    }
}

/// How full pieces become an [`Encoding`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum Post {
    /// Directly, with this frame.
    Direct(Frame),
    /// Through `tokenizers`' `post_process`.
    PostProcess,
}

/// What the post-processor adds with `add_special_tokens`: `(id, type id)` before and after
/// the content, and the content's type id.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Frame {
    prefix: Vec<(u32, u32)>,
    suffix: Vec<(u32, u32)>,
    content_type: u32,
}

/// The own engine of one tokenizer, verified and serving.
pub(crate) struct OwnEngine {
    engine: Engine,
    post: Post,
}

fn map_err(e: EncodeError) -> Error {
    match e {
        EncodeError::Cancelled => Error::Cancelled,
        EncodeError::TooLong { len, limit } => Error::InputTooLarge { len, limit },
        EncodeError::Model(m) => Error::tokenize_message(m),
    }
}

fn opts(mode: Mode, cancel: Option<&AtomicBool>) -> PieceOptions<'_> {
    PieceOptions { continuation: mode == Mode::Continuation, cancel }
}

impl OwnEngine {
    /// Check `engine` against the reference on the self-check sample and pick the assembly:
    /// every piece the planner cuts (at every candidate, at a mid size, and whole; normal and
    /// continuation pieces) must give the reference piece's ids, byte offsets and words, and
    /// the assembled result the reference's whole-text `encode` (ids, offsets, type ids, both
    /// masks) with and without special tokens. `Err(reason)` on the first difference.
    pub(crate) fn verify(
        engine: Engine,
        tok: &tokenizers::Tokenizer,
        named: &TextNamed,
        planner: &Planner,
        range_shape: &[Option<RangeShape>; 2],
    ) -> std::result::Result<Self, String> {
        let sample = crate::selfcheck::sample(tok);
        let mut own = OwnEngine { engine, post: Post::PostProcess };
        let mut plans: Vec<(&str, usize, Vec<OwnPiece>)> = Vec::new();
        for text in ["", " ", "a", "\n\n", " Hello"] {
            plans.push((text, usize::MAX, own.check_pieces(tok, planner, text, usize::MAX)?));
        }
        for target in [1, 61, usize::MAX] {
            plans.push((&sample, target, own.check_pieces(tok, planner, &sample, target)?));
        }
        let mut candidates = Vec::new();
        if let Some(frame) = Frame::probe(tok) {
            candidates.push(Post::Direct(frame));
        }
        candidates.push(Post::PostProcess);
        let mut why = String::new();
        for post in candidates {
            own.post = post;
            match own.check_assembly(tok, named, &plans, range_shape) {
                Ok(()) => return Ok(own),
                Err(e) => {
                    log::info!("yieldtok: own engine: assembly {:?} refused: {e}", own.post);
                    why = e;
                }
            }
        }
        Err(why)
    }

    /// Encode `text` in the planner's pieces of `target` bytes with both engines; compare.
    fn check_pieces(
        &self,
        tok: &tokenizers::Tokenizer,
        planner: &Planner,
        text: &str,
        target: usize,
    ) -> std::result::Result<Vec<OwnPiece>, String> {
        let mut out = Vec::new();
        let mut cur = ZoneCursor::default();
        let mut start = 0;
        while start < text.len() || (text.is_empty() && out.is_empty()) {
            let crate::split::Next { end, mode, joins_word } = if text.is_empty() {
                crate::split::Next { end: 0, mode: Mode::Normal, joins_word: false }
            } else {
                planner.next(text, start, target, &mut cur)
            };
            let crate::pipeline::RefPiece { enc: want, n_words, first_added, last_added, .. } =
                crate::pipeline::encode_piece(tok, planner.rules.continuation.as_ref(), text, start..end, mode, true)
                    .map_err(|e| format!("reference piece encode failed: {e}"))?;
            let got = self.encode(&text[start..end], mode, None).map_err(|e| format!("engine encode failed: {e}"))?;
            let at = |what: &str| {
                format!("{what} differ from the reference in the {mode:?} piece {start}..{end} of {target}-byte pieces: {:?}", &text[start..end])
            };
            if got.ids != want.get_ids() {
                return Err(at("ids"));
            }
            let offsets: Vec<(usize, usize)> =
                got.offsets.iter().map(|&(a, b)| (start + a as usize, start + b as usize)).collect();
            if offsets != want.get_offsets() {
                return Err(at("byte offsets"));
            }
            if got.words.iter().map(|&w| Some(w)).ne(want.get_word_ids().iter().copied()) || got.n_words != n_words {
                return Err(at("words"));
            }
            if (got.first_added, got.last_added) != (first_added, last_added) {
                return Err(at("added-token words at the ends"));
            }
            if piece_tokens(tok, &got).ne(want.get_tokens().iter().map(String::as_str)) {
                return Err(at("token strings"));
            }
            out.push(OwnPiece { start, tokens: got, joins_word });
            if end == start {
                break;
            }
            start = end;
        }
        Ok(out)
    }

    /// The assembled encodings get the sequence ranges of `range_shape`, as a job's do
    /// (`crate::job`: the direct assembly records none; the post-processor's are probed once).
    fn check_assembly(
        &self,
        tok: &tokenizers::Tokenizer,
        named: &TextNamed,
        plans: &[(&str, usize, Vec<OwnPiece>)],
        range_shape: &[Option<RangeShape>; 2],
    ) -> std::result::Result<(), String> {
        for add in [false, true] {
            for (text, target, pieces) in plans {
                let want = tok.encode(*text, add).map_err(|e| format!("reference encode failed: {e}"))?;
                let want = Encoding::from_reference(want, tok);
                let copy = pieces
                    .iter()
                    .map(|p| OwnPiece { start: p.start, tokens: p.tokens.clone(), joins_word: p.joins_word })
                    .collect();
                let mut got = self.assemble(tok, named, copy, add).map_err(|e| e.to_string())?;
                if let Some(shape) = &range_shape[add as usize] {
                    got.sequence_ranges = shape.ranges(got.len());
                }
                if got != want {
                    return Err(format!(
                        "the assembled encoding of {:?} in {target}-byte pieces (add_special_tokens={add}) differs from the reference",
                        text.get(..40.min(text.len())).unwrap_or(text)
                    ));
                }
            }
        }
        Ok(())
    }

    /// The engine itself (its compact form: [`crate::compact`]).
    pub(crate) fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The frame of a direct assembly (`None`: the post-processor runs): `(id, type id)` before
    /// and after the content, and the content's type id.
    #[allow(clippy::type_complexity)]
    pub(crate) fn direct_frame(&self) -> Option<(&[(u32, u32)], &[(u32, u32)], u32)> {
        match &self.post {
            Post::Direct(f) => Some((&f.prefix, &f.suffix, f.content_type)),
            Post::PostProcess => None,
        }
    }

    /// An engine that assembles directly with this frame, without the reference: for a
    /// tokenizer read from its compact form ([`crate::compact`]), whose frame was verified
    /// when the form was written (and whose results are checked again when it is read).
    pub(crate) fn with_direct_frame(
        engine: Engine,
        prefix: Vec<(u32, u32)>,
        suffix: Vec<(u32, u32)>,
        content_type: u32,
    ) -> OwnEngine {
        OwnEngine { engine, post: Post::Direct(Frame { prefix, suffix, content_type }) }
    }

    /// [`assemble`](Self::assemble) for a direct frame (`None` if the engine has none), of
    /// the first `keep` content tokens only (`usize::MAX`: all of them): what `tokenizers`
    /// gives for the pieces right-truncated to `keep` tokens, then post-processed.
    pub(crate) fn assemble_direct(
        &self,
        pieces: &[OwnPiece],
        add_special_tokens: bool,
        keep: usize,
    ) -> Option<Encoding> {
        match &self.post {
            Post::Direct(frame) => Some(frame.assemble(pieces, add_special_tokens, keep)),
            Post::PostProcess => None,
        }
    }

    /// What the engine runs, and how it assembles (for logs).
    /// Whether the model is a byte-level BPE (where fastokens is still faster on ids).
    pub(crate) fn byte_level(&self) -> bool {
        self.engine.byte_level()
    }

    pub(crate) fn describe(&self) -> String {
        let post = match &self.post {
            Post::Direct(_) => "special tokens framed directly",
            Post::PostProcess => "tokenizers' post-processor",
        };
        format!("{}; {post}", self.engine.describe())
    }

    /// One piece: ids, byte offsets (relative to the piece) and words.
    pub(crate) fn encode(&self, piece: &str, mode: Mode, cancel: Option<&AtomicBool>) -> Result<Tokens> {
        let mut out = Tokens::default();
        self.engine.encode(piece, &opts(mode, cancel), &mut out).map_err(map_err)?;
        Ok(out)
    }

    /// One piece, ids only.
    pub(crate) fn encode_ids(&self, piece: &str, mode: Mode, cancel: Option<&AtomicBool>) -> Result<Vec<u32>> {
        let mut out = Vec::new();
        self.engine.encode_ids(piece, &opts(mode, cancel), &mut out).map_err(map_err)?;
        Ok(out)
    }

    /// One piece, ids only, appended to `out`.
    pub(crate) fn encode_ids_into(
        &self,
        piece: &str,
        mode: Mode,
        cancel: Option<&AtomicBool>,
        out: &mut Vec<u32>,
    ) -> Result<()> {
        self.engine.encode_ids(piece, &opts(mode, cancel), out).map_err(map_err)
    }

    /// Concatenate pieces (in text order) and post-process once, as `tokenizers` does for the
    /// whole text.
    pub(crate) fn assemble(
        &self,
        tok: &tokenizers::Tokenizer,
        named: &TextNamed,
        pieces: Vec<OwnPiece>,
        add_special_tokens: bool,
    ) -> Result<Encoding> {
        match &self.post {
            Post::Direct(frame) => Ok(frame.assemble(&pieces, add_special_tokens, usize::MAX)),
            Post::PostProcess => {
                let enc = to_hf(tok, &pieces);
                let processed = tok.post_process(enc, None, add_special_tokens).map_err(Error::tokenize)?;
                Ok(Encoding::from_hf(processed, named))
            }
        }
    }
}

/// One piece's token strings as `tokenizers` names them: the vocabulary's, except those the
/// engine names by their text ([`Tokens::values`]).
fn piece_tokens<'a>(tok: &'a tokenizers::Tokenizer, t: &'a Tokens) -> impl Iterator<Item = String> + 'a {
    let mut named = t.values.iter().peekable();
    t.ids.iter().enumerate().map(move |(i, &id)| match named.next_if(|(k, _)| *k as usize == i) {
        Some((_, text)) => text.clone(),
        None => tok.id_to_token(id).unwrap_or_default(),
    })
}

/// The pieces as one `tokenizers::Encoding` before post-processing (what the reference
/// pipeline's `into_encoding` gives for the whole text): token strings from the vocabulary
/// (or the text the engine names a token by), words numbered over the whole text, type ids
/// 0, masks of an unprocessed encoding.
pub(crate) fn to_hf(tok: &tokenizers::Tokenizer, pieces: &[OwnPiece]) -> HfEncoding {
    let n: usize = pieces.iter().map(|p| p.tokens.ids.len()).sum();
    let mut ids = Vec::with_capacity(n);
    let mut tokens = Vec::with_capacity(n);
    let mut words = Vec::with_capacity(n);
    let mut offsets = Vec::with_capacity(n);
    let bases = crate::pipeline::word_bases(pieces.iter().map(OwnPiece::words));
    for (p, word_base) in pieces.iter().zip(bases) {
        ids.extend_from_slice(&p.tokens.ids);
        tokens.extend(piece_tokens(tok, &p.tokens));
        words.extend(p.tokens.words.iter().map(|&w| Some(word_base + w)));
        offsets.extend(p.tokens.offsets.iter().map(|&(a, b)| (p.start + a as usize, p.start + b as usize)));
    }
    HfEncoding::new(ids, vec![0; n], tokens, words, offsets, vec![0; n], vec![1; n], vec![], Default::default())
}

impl Frame {
    /// Read the frame off the post-processor: `None` unless the tokenizer has no truncation or
    /// padding and post-processing probe encodings of 0, 1 and 3 tokens (distinct offsets)
    /// only adds the same special tokens around them, with offsets `(0, 0)` and
    /// special-tokens mask 1, keeps the content's offsets, words and masks, and without
    /// special tokens changes nothing.
    fn probe(tok: &tokenizers::Tokenizer) -> Option<Frame> {
        if tok.get_truncation().is_some() || tok.get_padding().is_some() {
            return None;
        }
        const MARK: u32 = u32::MAX - 7;
        let probe = |n: usize, add: bool| -> Option<Frame> {
            let offsets: Vec<(usize, usize)> = (0..n).map(|i| (2 * i + 1, 2 * i + 2)).collect();
            let enc = HfEncoding::new(
                vec![MARK; n],
                vec![0; n],
                vec!["\u{0}".to_string(); n],
                (0..n as u32).map(Some).collect(),
                offsets.clone(),
                vec![0; n],
                vec![1; n],
                vec![],
                Default::default(),
            );
            let out = tok.post_process(enc, None, add).ok()?;
            let ids = out.get_ids();
            let first = if n == 0 {
                ids.iter().position(|&i| i == MARK).unwrap_or(0)
            } else {
                ids.iter().position(|&i| i == MARK)?
            };
            if ids.iter().filter(|&&i| i == MARK).count() != n || ids[first..first + n].iter().any(|&i| i != MARK) {
                return None;
            }
            let content = first..first + n;
            let (types, special, attention) =
                (out.get_type_ids(), out.get_special_tokens_mask(), out.get_attention_mask());
            if out.get_offsets()[content.clone()] != offsets[..]
                || out.get_word_ids()[content.clone()].iter().copied().ne((0..n as u32).map(Some))
                || special[content.clone()].iter().any(|&m| m != 0)
                || attention.iter().any(|&m| m != 1)
                || !out.get_overflowing().is_empty()
            {
                return None;
            }
            let content_type = if n == 0 { 0 } else { types[first] };
            if types[content.clone()].iter().any(|&t| t != content_type) {
                return None;
            }
            for i in (0..first).chain(first + n..ids.len()) {
                if out.get_offsets()[i] != (0, 0) || special[i] != 1 || out.get_word_ids()[i].is_some() {
                    return None;
                }
            }
            let pair = |r: std::ops::Range<usize>| r.map(|i| (ids[i], types[i])).collect::<Vec<_>>();
            Some(Frame { prefix: pair(0..first), suffix: pair(first + n..ids.len()), content_type })
        };
        // Without special tokens: the content unchanged, type id 0.
        for n in [0, 1, 3] {
            let f = probe(n, false)?;
            if !f.prefix.is_empty() || !f.suffix.is_empty() || f.content_type != 0 {
                return None;
            }
        }
        let one = probe(1, true)?;
        let three = probe(3, true)?;
        let zero = probe(0, true)?;
        let framed: Vec<(u32, u32)> = one.prefix.iter().chain(&one.suffix).copied().collect();
        (one == three && zero.prefix.iter().chain(&zero.suffix).copied().eq(framed)).then_some(one)
    }

    /// The first `keep` content tokens of `pieces` in this frame (all: `usize::MAX`).
    fn assemble(&self, pieces: &[OwnPiece], add: bool, keep: usize) -> Encoding {
        let n = pieces.iter().map(|p| p.tokens.ids.len()).sum::<usize>().min(keep);
        type Ids<'a> = &'a [(u32, u32)];
        let (prefix, suffix, content_type): (Ids, Ids, u32) =
            if add { (&self.prefix, &self.suffix, self.content_type) } else { (&[], &[], 0) };
        let total = prefix.len() + n + suffix.len();
        let mut e = Encoding {
            ids: Vec::with_capacity(total),
            offsets: Vec::with_capacity(total),
            word_ids: Vec::with_capacity(total),
            type_ids: Vec::with_capacity(total),
            special_tokens_mask: Vec::with_capacity(total),
            attention_mask: vec![1; total],
            ..Default::default()
        };
        let special = |e: &mut Encoding, frame: &[(u32, u32)]| {
            for &(id, ty) in frame {
                e.ids.push(id);
                e.offsets.push((0, 0));
                e.type_ids.push(ty);
                e.special_tokens_mask.push(1);
            }
        };
        special(&mut e, prefix);
        e.word_ids.resize(prefix.len(), None);
        let bases = crate::pipeline::word_bases(pieces.iter().map(OwnPiece::words));
        for (p, word_base) in pieces.iter().zip(bases) {
            let at = e.ids.len();
            let left = prefix.len() + n - at;
            if left == 0 {
                break;
            }
            let take = p.tokens.ids.len().min(left);
            let named = p.tokens.values.iter().take_while(|(k, _)| (*k as usize) < take);
            e.token_texts.extend(named.map(|(k, text)| (at + *k as usize, text.clone())));
            e.ids.extend_from_slice(&p.tokens.ids[..take]);
            let offsets = &p.tokens.offsets[..take];
            e.offsets.extend(offsets.iter().map(|&(a, b)| (p.start + a as usize, p.start + b as usize)));
            e.word_ids.extend(p.tokens.words[..take].iter().map(|&w| Some(word_base + w)));
        }
        e.type_ids.resize(prefix.len() + n, content_type);
        e.special_tokens_mask.resize(prefix.len() + n, 0);
        special(&mut e, suffix);
        e.word_ids.resize(total, None);
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(start: usize, ids: &[u32], named: &[u32]) -> OwnPiece {
        let n = ids.len() as u32;
        let tokens = Tokens {
            ids: ids.to_vec(),
            offsets: (0..n).map(|i| (i, i + 1)).collect(),
            words: (0..n).collect(),
            n_words: n,
            values: named.iter().map(|&k| (k, format!("t{k}"))).collect(),
            ..Tokens::default()
        };
        OwnPiece { start, tokens, joins_word: false }
    }

    /// Keeping the first `keep` content tokens gives the whole assembly's first `keep` tokens
    /// in the frame, across a piece with no tokens (whitespace a model drops) and named tokens.
    #[test]
    fn a_frame_keeps_the_first_tokens_across_empty_pieces() {
        let frame = Frame { prefix: vec![(1, 0)], suffix: vec![(2, 1)], content_type: 0 };
        let pieces = [piece(0, &[10, 11], &[1]), piece(2, &[], &[]), piece(2, &[12, 13], &[0])];
        let all = frame.assemble(&pieces, true, usize::MAX);
        assert_eq!(all.ids, [1, 10, 11, 12, 13, 2]);
        for keep in 0..=5 {
            let k = keep.min(4);
            let e = frame.assemble(&pieces, true, keep);
            let head = |v: &[u32]| [&v[..1 + k], &v[v.len() - 1..]].concat();
            assert_eq!(e.ids, head(&all.ids), "keep {keep}");
            assert_eq!(e.type_ids, head(&all.type_ids), "keep {keep}");
            assert_eq!(e.special_tokens_mask, head(&all.special_tokens_mask), "keep {keep}");
            assert_eq!(e.attention_mask, head(&all.attention_mask), "keep {keep}");
            assert_eq!(e.offsets[..1 + k], all.offsets[..1 + k], "keep {keep}");
            assert_eq!(e.word_ids[..1 + k], all.word_ids[..1 + k], "keep {keep}");
            assert_eq!(e.offsets.len(), e.ids.len());
            assert_eq!(e.word_ids.len(), e.ids.len());
            let named: Vec<_> = all.token_texts.iter().filter(|(i, _)| *i <= k).cloned().collect();
            assert_eq!(e.token_texts, named, "keep {keep}");
        }
    }
}
