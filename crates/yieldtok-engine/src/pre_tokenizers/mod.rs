//! Pre-tokenizers: cut a normalized segment into pre-tokens (splits), each of which the model
//! tokenizes on its own. Split (string / regex, every behavior), ByteLevel, Metaspace, Digits,
//! Whitespace, WhitespaceSplit, BertPreTokenizer, Punctuation, CharDelimiterSplit, Sequence.

pub mod scan;

use crate::error::EncodeError;
use crate::normalized::Normalized;

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
