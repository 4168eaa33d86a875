//! One piece through the `tokenizers` pipeline, exactly as `TokenizerImpl::encode` runs it on a
//! whole text minus the post-processor: added-token extraction and normalization, pre-tokenizer,
//! model. A continuation piece uses the normalizer without its prepend step. Offsets come back
//! shifted to the piece's place in the whole text. Assembling pieces and applying the
//! post-processor once (special tokens at the right ends, offset trimming) is [`assemble`].

use tokenizers::{Encoding as HfEncoding, Model, NormalizerWrapper, OffsetType, PreTokenizer};

use crate::encoding::Encoding;
use crate::error::{Error, Result};
use crate::split::Mode;

/// Encode `text[range]` (a piece chosen by the planner) in `mode`; offsets are byte offsets in
/// the whole text. `continuation` is the normalizer for [`Mode::Continuation`].
pub(crate) fn encode_piece(
    tok: &tokenizers::Tokenizer,
    continuation: Option<&Option<NormalizerWrapper>>,
    text: &str,
    range: std::ops::Range<usize>,
    mode: Mode,
    with_offsets: bool,
) -> Result<HfEncoding> {
    let piece = &text[range.clone()];
    let normalizer = match (mode, continuation) {
        (Mode::Continuation, Some(cont)) => cont.as_ref(),
        _ => tok.get_normalizer(),
    };
    let mut pts = tok.get_added_vocabulary().extract_and_normalize(normalizer, piece);
    if let Some(pre) = tok.get_pre_tokenizer() {
        pre.pre_tokenize(&mut pts).map_err(Error::tokenize)?;
    }
    tok.get_model().tokenize_in_pretokenized(&mut pts, None).map_err(Error::tokenize)?;
    let offset_type = if with_offsets { OffsetType::Byte } else { OffsetType::None };
    let mut enc = pts.into_encoding(None, 0, offset_type).map_err(Error::tokenize)?;
    if with_offsets && range.start != 0 {
        for o in enc.get_offsets_mut() {
            o.0 += range.start;
            o.1 += range.start;
        }
    }
    Ok(enc)
}

/// Concatenate piece encodings (in order) and apply the tokenizer's post-processor once.
pub(crate) fn assemble(
    tok: &tokenizers::Tokenizer,
    pieces: Vec<HfEncoding>,
    add_special_tokens: bool,
) -> Result<Encoding> {
    let merged = if pieces.len() == 1 { pieces.into_iter().next().unwrap() } else { HfEncoding::merge(pieces, false) };
    let processed = tok.post_process(merged, None, add_special_tokens).map_err(Error::tokenize)?;
    Ok(Encoding::from(processed))
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
        (one == three).then(|| SpecialFrame { prefix: one.0, suffix: one.1 })
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
