//! WordPiece (BERT family): greedy longest-match-first over one pre-token, continuation pieces
//! looked up with the `continuing_subword_prefix` (`##`), the whole pre-token one unknown token
//! when any position has no match or it is longer than `max_input_chars_per_word` chars —
//! `tokenizers`' `WordPiece::tokenize`, exactly. Continuation lookups use a second table keyed
//! without the prefix (no string is built), and no candidate longer than the longest token is
//! tried (none could match).

use std::collections::HashMap;

use super::Token;
use crate::error::{EncodeError, LoadError};

/// Token → id (a duplicated key in the JSON: the last one, as `tokenizers`' map keeps it).
pub type Map = HashMap<Box<str>, u32, foldhash::fast::FixedState>;

/// The `model` of a WordPiece `tokenizer.json`.
#[derive(Debug, serde::Deserialize)]
pub struct WordPieceJson {
    #[serde(default)]
    pub vocab: Map,
    pub unk_token: String,
    #[serde(default = "default_prefix")]
    pub continuing_subword_prefix: String,
    #[serde(default = "default_max_chars")]
    pub max_input_chars_per_word: usize,
}

fn default_prefix() -> String {
    "##".into()
}

fn default_max_chars() -> usize {
    100
}

/// A loaded WordPiece model.
pub struct WordPiece {
    /// Every token (the lookups at the start of a pre-token).
    first: Map,
    /// The tokens that start with the prefix, keyed without it (the lookups after the start).
    cont: Map,
    first_max: usize,
    cont_max: usize,
    unk_token: String,
    unk: Option<u32>,
    max_chars: usize,
    cache: super::word_cache::WordCache,
}

impl WordPiece {
    /// Build from the `model` value of a `tokenizer.json` (`"type": "WordPiece"`).
    pub fn from_json(v: &serde_json::Value) -> Result<Self, LoadError> {
        Self::new(serde::Deserialize::deserialize(v).map_err(LoadError::Malformed)?)
    }

    /// Build from the text of the `model` value (one parse, no intermediate JSON tree).
    pub fn from_json_str(s: &str) -> Result<Self, LoadError> {
        Self::new(serde_json::from_str(s).map_err(LoadError::Malformed)?)
    }

    pub fn new(j: WordPieceJson) -> Result<Self, LoadError> {
        let mut cont = Map::default();
        for (token, &id) in &j.vocab {
            if id >= crate::load::MAX_ID {
                return Err(LoadError::Limit(format!("WordPiece token id {id}")));
            }
            if let Some(rest) = token.strip_prefix(j.continuing_subword_prefix.as_str()) {
                cont.insert(rest.into(), id);
            }
        }
        let first = j.vocab;
        Ok(WordPiece {
            first_max: first.keys().map(|k| k.len()).max().unwrap_or(0),
            cont_max: cont.keys().map(|k| k.len()).max().unwrap_or(0),
            unk: first.get(j.unk_token.as_str()).copied(),
            unk_token: j.unk_token,
            first,
            cont,
            max_chars: j.max_input_chars_per_word,
            cache: Default::default(),
        })
    }

    /// `tokenizers`' `get_vocab_size` (distinct tokens).
    pub fn vocab_size(&self) -> usize {
        self.first.len()
    }

    /// The id of a token (as `tokenizers`' `token_to_id`).
    pub fn token_to_id(&self, token: &str) -> Option<u32> {
        self.first.get(token).copied()
    }

    fn unk(&self, len: usize, out: &mut Vec<Token>) -> Result<(), EncodeError> {
        let id = self.unk.ok_or_else(|| {
            EncodeError::Model(format!("WordPiece error: Missing {} token from the vocabulary", self.unk_token))
        })?;
        out.push(Token { id, start: 0, end: len as u32 });
        Ok(())
    }

    /// Append the tokens of one pre-token (byte offsets within it) to `out`.
    pub fn tokenize(&self, word: &str, out: &mut Vec<Token>) -> Result<(), EncodeError> {
        self.cache.tokenize(word, out, |out| self.tokenize_uncached(word, out))
    }

    fn tokenize_uncached(&self, word: &str, out: &mut Vec<Token>) -> Result<(), EncodeError> {
        if word.len() > self.max_chars && word.chars().count() > self.max_chars {
            return self.unk(word.len(), out);
        }
        let base = out.len();
        let mut start = 0;
        while start < word.len() {
            let (map, max) = if start == 0 { (&self.first, self.first_max) } else { (&self.cont, self.cont_max) };
            let mut end = word.len().min(start + max);
            while !word.is_char_boundary(end) {
                end -= 1;
            }
            let found = loop {
                if end <= start {
                    break None;
                }
                if let Some(&id) = map.get(&word[start..end]) {
                    break Some(id);
                }
                end -= 1;
                while !word.is_char_boundary(end) {
                    end -= 1;
                }
            };
            let Some(id) = found else {
                out.truncate(base);
                return self.unk(word.len(), out);
            };
            out.push(Token { id, start: start as u32, end: end as u32 });
            start = end;
        }
        Ok(())
    }
}
