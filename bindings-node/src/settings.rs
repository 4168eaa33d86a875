//! Truncation, padding and the vocabulary, with the `tokenizers` npm package's semantics
//! (`setTruncation`, `setPadding`, `getVocab`, `addTokens`, ...; the JS names and defaults are
//! `yieldtok.js`'s). A setter puts a new core handle in force for the calls that start after it.

use std::collections::HashMap;

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::errors::{guard, invalid_arg};
use crate::NativeTokenizer;

/// An added token as the JS `AddedToken` holds it (`tokenizers`' `AddedToken` fields).
#[napi(object)]
pub struct AddedTokenSpec {
    pub content: String,
    pub special: bool,
    pub single_word: bool,
    pub left_strip: bool,
    pub right_strip: bool,
    pub normalized: bool,
}

impl From<AddedTokenSpec> for yieldtok::AddedToken {
    fn from(t: AddedTokenSpec) -> Self {
        yieldtok::AddedToken {
            content: t.content,
            single_word: t.single_word,
            lstrip: t.left_strip,
            rstrip: t.right_strip,
            normalized: t.normalized,
            special: t.special,
        }
    }
}

#[napi]
impl NativeTokenizer {
    /// Truncate every encode to `max_length` tokens (`strategy`: `longest_first`,
    /// `only_first`, `only_second`; `direction`: `left`, `right`). Encodings carry no
    /// overflowing parts here, so right truncation of a text stops encoding once the kept
    /// tokens are certain (the core's early stop).
    #[napi]
    pub fn set_truncation(&self, max_length: u32, stride: u32, strategy: String, direction: String) -> Result<()> {
        let strategy = yieldtok::post::truncation_strategy(&strategy)
            .ok_or_else(|| invalid_arg(format!("unknown truncation strategy {strategy:?}")))?;
        let direction = yieldtok::post::truncation_direction(&direction)
            .ok_or_else(|| invalid_arg(format!("unknown truncation direction {direction:?}")))?;
        let params = yieldtok::TruncationParams {
            max_length: max_length as usize,
            stride: stride as usize,
            strategy,
            direction,
        };
        let tok = guard(|| self.tok().with_truncation(Some(params)))?;
        self.set_tok(tok.with_overflowing(false));
        Ok(())
    }

    #[napi]
    pub fn disable_truncation(&self) -> Result<()> {
        let tok = guard(|| self.tok().with_truncation(None))?;
        self.set_tok(tok);
        Ok(())
    }

    /// Pad every encode (`length`: to that many tokens; none: a batch to its longest item).
    #[napi]
    pub fn set_padding(
        &self,
        direction: String,
        pad_id: u32,
        pad_type_id: u32,
        pad_token: String,
        length: Option<u32>,
        pad_to_multiple_of: Option<u32>,
    ) -> Result<()> {
        let direction = yieldtok::post::padding_direction(&direction)
            .ok_or_else(|| invalid_arg(format!("unknown padding direction {direction:?}")))?;
        let params = yieldtok::post::padding_params(
            direction,
            pad_id,
            pad_type_id,
            &pad_token,
            length.map(|n| n as usize),
            pad_to_multiple_of.map(|n| n as usize),
        );
        self.set_tok(self.tok().with_padding(Some(params)));
        Ok(())
    }

    #[napi]
    pub fn disable_padding(&self) {
        self.set_tok(self.tok().with_padding(None));
    }

    /// Token -> id, with or without the added tokens (`tokenizers`' `get_vocab`).
    #[napi]
    pub fn get_vocab(&self, with_added_tokens: bool) -> HashMap<String, u32> {
        self.tok().vocab(with_added_tokens)
    }

    /// Add `tokens` (as special tokens when `special`, as `tokenizers`' `add_special_tokens`);
    /// returns how many were new.
    #[napi]
    pub fn add_tokens(&self, tokens: Vec<AddedTokenSpec>, special: bool) -> Result<u32> {
        let tokens: Vec<yieldtok::AddedToken> = tokens.into_iter().map(Into::into).collect();
        let tok = self.tok();
        let (tok, n) =
            guard(|| if special { tok.with_added_special_tokens(&tokens) } else { tok.with_added_tokens(&tokens) })?;
        self.set_tok(tok);
        Ok(n as u32)
    }
}
