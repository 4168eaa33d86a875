//! One piece through the `tokenizers` pipeline, exactly as `TokenizerImpl::encode` runs it on a
//! whole text minus the post-processor: added-token extraction and normalization, pre-tokenizer,
//! model. A continuation piece uses the normalizer without its prepend step. Offsets come back
//! shifted to the piece's place in the whole text. Assembling pieces and applying the
//! post-processor once (special tokens at the right ends, offset trimming) is [`assemble`].

use tokenizers::{Encoding as HfEncoding, Model, NormalizerWrapper, OffsetType, PreTokenizer};

use crate::encoding::Encoding;
use crate::error::{Error, Result};
use crate::split::Mode;

/// One piece's reference encoding and its number of words (pre-tokenizer splits, tokenized
/// or not: `into_encoding` numbers a token's word by its split's index), so that pieces'
/// words can be numbered over the whole text ([`merge`]).
pub(crate) struct RefPiece {
    pub(crate) enc: HfEncoding,
    pub(crate) n_words: u32,
    /// Whether the piece's first word may be the previous piece's last ([`crate::split::Next`]);
    /// [`encode_piece`] leaves it `false`, the caller sets what the planner said.
    pub(crate) joins_word: bool,
    /// Whether the piece's first / last split is an added token.
    pub(crate) first_added: bool,
    pub(crate) last_added: bool,
}

impl RefPiece {
    pub(crate) fn words(&self) -> PieceWords {
        PieceWords {
            n: self.n_words,
            may_join: self.joins_word,
            first_added: self.first_added,
            last_added: self.last_added,
        }
    }
}

/// What numbering a piece's words over the whole text needs to know of it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PieceWords {
    /// Its number of words (splits).
    pub(crate) n: u32,
    /// The planner's [`Next::joins_word`](crate::split::Next): the cut before it may fall
    /// inside a split.
    pub(crate) may_join: bool,
    /// Whether its first / last split is an added token.
    pub(crate) first_added: bool,
    pub(crate) last_added: bool,
}

/// The word base of each piece: the words of the pieces before it, less one where a piece's
/// first word continues the previous piece's last. It does where the cut may fall inside a
/// split and neither side of the cut is an added token: an added token is a split of its own
/// whatever its flags (`normalized`, `lstrip`, `rstrip`, `single_word`), and the planner knows
/// the exact edges of only some of them.
pub(crate) fn word_bases(pieces: impl Iterator<Item = PieceWords>) -> impl Iterator<Item = u32> {
    let mut next = 0u32;
    let mut prev_last_added = true;
    pieces.map(move |p| {
        let joins = p.may_join && !prev_last_added && !p.first_added && next > 0;
        let base = if joins { next - 1 } else { next };
        next = base + p.n;
        if p.n > 0 {
            prev_last_added = p.last_added;
        }
        base
    })
}

/// Encode `text[range]` (a piece chosen by the planner) in `mode`; offsets are byte offsets in
/// the whole text, words are counted from 0 within the piece. `continuation` is the normalizer
/// for [`Mode::Continuation`].
pub(crate) fn encode_piece(
    tok: &tokenizers::Tokenizer,
    continuation: Option<&Option<NormalizerWrapper>>,
    text: &str,
    range: std::ops::Range<usize>,
    mode: Mode,
    with_offsets: bool,
) -> Result<RefPiece> {
    let piece = &text[range.clone()];
    let normalizer = match (mode, continuation) {
        (Mode::Continuation, Some(cont)) => cont.as_ref(),
        _ => tok.get_normalizer(),
    };
    let mut pts = tok.get_added_vocabulary().extract_and_normalize(normalizer, piece);
    if let Some(pre) = tok.get_pre_tokenizer() {
        pre.pre_tokenize(&mut pts).map_err(Error::tokenize)?;
    }
    // Before the model runs, only the added tokens' splits have tokens.
    let (first_added, last_added) = {
        let splits = pts.get_splits(tokenizers::OffsetReferential::Original, OffsetType::None);
        (splits.first().is_some_and(|s| s.2.is_some()), splits.last().is_some_and(|s| s.2.is_some()))
    };
    tok.get_model().tokenize_in_pretokenized(&mut pts, None).map_err(Error::tokenize)?;
    let n_words = pts.get_splits(tokenizers::OffsetReferential::Original, OffsetType::None).len() as u32;
    let offset_type = if with_offsets { OffsetType::Byte } else { OffsetType::None };
    let mut enc = pts.into_encoding(None, 0, offset_type).map_err(Error::tokenize)?;
    if with_offsets && range.start != 0 {
        for o in enc.get_offsets_mut() {
            o.0 += range.start;
            o.1 += range.start;
        }
    }
    Ok(RefPiece { enc, n_words, joins_word: false, first_added, last_added })
}

/// Concatenate piece encodings (in order), each piece's words shifted by its word base
/// ([`word_bases`]; `Encoding::merge` keeps them as they are): the whole text's encoding.
pub(crate) fn merge(pieces: Vec<RefPiece>) -> HfEncoding {
    if pieces.len() == 1 {
        return pieces.into_iter().next().unwrap().enc;
    }
    let bases: Vec<u32> = word_bases(pieces.iter().map(RefPiece::words)).collect();
    let encs: Vec<HfEncoding> = pieces
        .into_iter()
        .zip(bases)
        .map(|(mut p, base)| {
            if base != 0 {
                for w in p.enc.get_word_ids_mut().iter_mut().flatten() {
                    *w += base;
                }
            }
            p.enc
        })
        .collect();
    HfEncoding::merge(encs, false)
}

/// Concatenate piece encodings (in order) and apply the tokenizer's post-processor once.
pub(crate) fn assemble(
    tok: &tokenizers::Tokenizer,
    named: &crate::encoding::TextNamed,
    pieces: Vec<RefPiece>,
    add_special_tokens: bool,
) -> Result<Encoding> {
    let merged = merge(pieces);
    let processed = tok.post_process(merged, None, add_special_tokens).map_err(Error::tokenize)?;
    Ok(Encoding::from_hf(processed, named))
}

/// Ids-only assembly: the post-processor's special tokens around the content, read once at
/// load time by [`SpecialFrame::probe`].
#[derive(Debug, Clone, Default)]
pub(crate) struct SpecialFrame {
    pub prefix: Vec<u32>,
    pub suffix: Vec<u32>,
}

impl SpecialFrame {
    /// Post-process a probe encoding of 1 and of 3 placeholder tokens and read off what comes
    /// before and after them. `None` when the post-processor does anything but add a fixed
    /// prefix and suffix (then ids-only results go through full assembly).
    pub(crate) fn probe(tok: &tokenizers::Tokenizer) -> Option<SpecialFrame> {
        const MARK: u32 = u32::MAX - 7;
        let frame_for = |n: usize| -> Option<(Vec<u32>, Vec<u32>)> {
            let ids = vec![MARK; n];
            let enc = HfEncoding::new(
                ids,
                vec![0; n],
                vec!["\u{0}".to_string(); n],
                vec![None; n],
                (0..n).map(|i| (i, i + 1)).collect(),
                vec![0; n],
                vec![1; n],
                vec![],
                Default::default(),
            );
            let out = tok.post_process(enc, None, true).ok()?;
            let ids = out.get_ids();
            let first = ids.iter().position(|&i| i == MARK)?;
            let count = ids.iter().filter(|&&i| i == MARK).count();
            if count != n || ids[first..first + n].iter().any(|&i| i != MARK) {
                return None;
            }
            Some((ids[..first].to_vec(), ids[first + n..].to_vec()))
        };
        let one = frame_for(1)?;
        let three = frame_for(3)?;
        (one == three).then_some(SpecialFrame { prefix: one.0, suffix: one.1 })
    }

    pub(crate) fn wrap(&self, content: Vec<u32>) -> Vec<u32> {
        if self.prefix.is_empty() && self.suffix.is_empty() {
            return content;
        }
        let mut out = Vec::with_capacity(self.prefix.len() + content.len() + self.suffix.len());
        out.extend_from_slice(&self.prefix);
        out.extend_from_slice(&content);
        out.extend_from_slice(&self.suffix);
        out
    }
}
