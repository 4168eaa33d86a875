//! `BertPreTokenizer`: cut at whitespace (dropped), then isolate each punctuation char.

use super::char_split;
use super::punctuation::is_punctuation;
use super::{PreTokenize, Splits};
use crate::error::EncodeError;
use crate::normalized::SplitDelimiterBehavior;

/// `tokenizers`' `BertPreTokenizer`.
#[derive(Debug, Clone, Copy)]
pub struct BertPreTokenizer;

impl BertPreTokenizer {
    /// Append the pre-tokens of `text` as byte ranges shifted by `base`: each whitespace-free
    /// run cut around each punctuation char.
    pub fn cut(&self, text: &str, base: u32, out: &mut Vec<(u32, u32)>) {
        let mut start = None::<usize>;
        let mut cats = crate::normalizers::Categories::new();
        for (i, c) in text.char_indices() {
            let punct = if c.is_ascii() {
                c.is_ascii_punctuation()
            } else {
                cats.get(c) & crate::normalizers::Categories::PUNCT != 0
            };
            if c.is_whitespace() {
                if let Some(s) = start.take() {
                    out.push((base + s as u32, base + i as u32));
                }
            } else if punct {
                if let Some(s) = start.take() {
                    out.push((base + s as u32, base + i as u32));
                }
                out.push((base + i as u32, base + (i + c.len_utf8()) as u32));
            } else if start.is_none() {
                start = Some(i);
            }
        }
        if let Some(s) = start {
            out.push((base + s as u32, base + text.len() as u32));
        }
    }
}

impl PreTokenize for BertPreTokenizer {
    fn pre_tokenize(&self, splits: &mut Splits) -> Result<(), EncodeError> {
        char_split::split_splits(splits, char::is_whitespace, SplitDelimiterBehavior::Removed)?;
        char_split::split_splits(splits, is_punctuation, SplitDelimiterBehavior::Isolated)
    }
}
