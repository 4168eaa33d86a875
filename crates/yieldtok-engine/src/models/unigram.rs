//! Unigram (T5 / XLM-R / SentencePiece family): the best-scoring segmentation of one
//! pre-token by Viterbi over its char boundaries, exactly as `tokenizers`' optimized encoder
//! runs it — candidates in the same order (start position, then token length), a strictly
//! better score replaces the node, a char without a single-char token gets the unknown token
//! at `min_score - 10`, consecutive unknown nodes fused into one piece — then each fused
//! unknown piece as its `<0xXX>` byte tokens when `byte_fallback` has all of them, else the
//! unknown id. Scores are summed in `f64` in the same order, so ties break identically.
//!
//! The vocabulary is a byte trie with sorted child arrays (a 256-entry table at the root);
//! a duplicated token resolves to its last id, as `tokenizers`' token map does.

use std::cell::RefCell;
use std::collections::HashMap;

use super::Token;
use crate::error::{EncodeError, LoadError};

const NONE: u32 = u32::MAX;

/// What the unknown token costs below the lowest score (`tokenizers`' `K_UNK_PENALTY`).
const UNK_PENALTY: f64 = 10.0;

/// The `model` of a Unigram `tokenizer.json`.
#[derive(Debug, serde::Deserialize)]
pub struct UnigramJson {
    pub vocab: Vec<(String, f64)>,
    #[serde(default)]
    pub unk_id: Option<usize>,
    #[serde(default)]
    pub byte_fallback: bool,
}

/// A byte trie: per node its token id (or `NONE`) and its children, sorted by byte.
struct Trie {
    root: Box<[u32; 256]>,
    value: Vec<u32>,
    /// Per node: the range of its children in `labels` / `targets`.
    children: Vec<(u32, u32)>,
    labels: Vec<u8>,
    targets: Vec<u32>,
}

impl Trie {
    /// Build from distinct non-empty keys: sorted, then each node's children laid out
    /// together (depth first), in one pass over the sorted keys.
    fn build(mut keys: Vec<(&[u8], u32)>) -> Trie {
        keys.retain(|(k, _)| !k.is_empty()); // `tokenizers`' trie never yields the empty prefix
        keys.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let mut t = Trie {
            root: Box::new([NONE; 256]),
            value: vec![NONE],
            children: vec![(0, 0)],
            labels: Vec::with_capacity(keys.len()),
            targets: Vec::with_capacity(keys.len()),
        };
        // (node, keys[lo..hi] below it, its depth): the keys share the node's path.
        let mut stack = vec![(0u32, 0usize, keys.len(), 0usize)];
        let mut groups = Vec::new();
        while let Some((node, lo, hi, depth)) = stack.pop() {
            let mut i = lo;
            if i < hi && keys[i].0.len() == depth {
                t.value[node as usize] = keys[i].1;
                i += 1;
            }
            let first = t.labels.len() as u32;
            groups.clear();
            while i < hi {
                let b = keys[i].0[depth];
                let mut j = i + 1;
                while j < hi && keys[j].0[depth] == b {
                    j += 1;
                }
                let child = t.value.len() as u32;
                t.value.push(NONE);
                t.children.push((0, 0));
                t.labels.push(b);
                t.targets.push(child);
                groups.push((child, i, j));
                i = j;
            }
            t.children[node as usize] = (first, t.labels.len() as u32);
            stack.extend(groups.iter().rev().map(|&(c, a, b)| (c, a, b, depth + 1)));
        }
        let (s, e) = t.children[0];
        for k in s..e {
            t.root[t.labels[k as usize] as usize] = t.targets[k as usize];
        }
        t
    }

    #[inline]
    fn child(&self, node: u32, b: u8) -> u32 {
        if node == 0 {
            return self.root[b as usize];
        }
        let (s, e) = self.children[node as usize];
        let labels = &self.labels[s as usize..e as usize];
        let i = if labels.len() <= 8 { labels.iter().position(|&l| l == b) } else { labels.binary_search(&b).ok() };
        i.map_or(NONE, |i| self.targets[s as usize + i])
    }
}

/// A loaded Unigram model.
pub struct Unigram {
    scores: Vec<f64>,
    trie: Trie,
    /// Token → id (the last id of a duplicated token), for fused unknown pieces.
    ids: HashMap<Box<str>, u32, foldhash::fast::FixedState>,
    unk_id: Option<u32>,
    /// The unknown token's vocabulary entry (`tokenizers` names an unknown piece by its text).
    unk_token: Box<str>,
    unk_score: f64,
    /// With `byte_fallback`: the `<0xXX>` token of each byte (`NONE` where the vocabulary
    /// lacks it; a piece falls back to bytes only when all of its bytes have one).
    byte_ids: Option<Box<[u32; 256]>>,
    cache: super::word_cache::WordCache,
}

/// One Viterbi node: the best path ending at a position.
#[derive(Clone, Copy)]
struct Best {
    score: f64,
    id: u32,
    start: u32,
}

/// A piece of the best path: `(start, end, id)`.
type Piece = (u32, u32, u32);

thread_local! {
    /// The Viterbi nodes and the path of the last call on this thread (reused buffers).
    static SCRATCH: RefCell<(Vec<Best>, Vec<Piece>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

impl Unigram {
    /// Build from the `model` value of a `tokenizer.json` (`"type": "Unigram"`).
    pub fn from_json(v: &serde_json::Value) -> Result<Self, LoadError> {
        let j: UnigramJson = serde::Deserialize::deserialize(v).map_err(LoadError::Malformed)?;
        Self::new(&j)
    }

    /// Build from the text of the `model` value (one parse, no intermediate JSON tree).
    pub fn from_json_str(s: &str) -> Result<Self, LoadError> {
        let j: UnigramJson = serde_json::from_str(s).map_err(LoadError::Malformed)?;
        Self::new(&j)
    }

    pub fn new(j: &UnigramJson) -> Result<Self, LoadError> {
        let n = j.vocab.len();
        if n >= crate::load::MAX_ID as usize {
            return Err(LoadError::Limit(format!("a Unigram vocabulary of {n} tokens")));
        }
        if let Some(unk) = j.unk_id {
            if n == 0 {
                return Err(LoadError::Unsupported("Unigram: an empty vocabulary with an unk_id".into()));
            }
            if unk >= n {
                return Err(LoadError::Unsupported(format!("Unigram: unk_id {unk} outside the vocabulary")));
            }
        }
        let mut ids: HashMap<Box<str>, u32, _> = HashMap::with_capacity_and_hasher(n, Default::default());
        let mut min_score = f64::INFINITY;
        for (id, (token, score)) in j.vocab.iter().enumerate() {
            ids.insert(token.as_str().into(), id as u32);
            if *score < min_score {
                min_score = *score;
            }
        }
        let trie = Trie::build(ids.iter().map(|(k, &id)| (k.as_bytes(), id)).collect());
        let byte_ids = if j.byte_fallback {
            let mut t = Box::new([NONE; 256]);
            for (b, slot) in t.iter_mut().enumerate() {
                *slot = ids.get(format!("<0x{b:02X}>").as_str()).copied().unwrap_or(NONE);
            }
            Some(t)
        } else {
            None
        };
        Ok(Unigram {
            scores: j.vocab.iter().map(|(_, s)| *s).collect(),
            trie,
            ids,
            unk_id: j.unk_id.map(|u| u as u32),
            unk_token: j.unk_id.map(|u| j.vocab[u].0.as_str()).unwrap_or_default().into(),
            unk_score: min_score - UNK_PENALTY,
            byte_ids,
            cache: Default::default(),
        })
    }

    /// `tokenizers`' `get_vocab_size` (the entries of `vocab`, duplicates included).
    pub fn vocab_size(&self) -> usize {
        self.scores.len()
    }

    /// The id of a token (as `tokenizers`' `token_to_id`).
    pub fn token_to_id(&self, token: &str) -> Option<u32> {
        self.ids.get(token).copied()
    }

    /// The unknown id and its vocabulary entry: `tokenizers`' Unigram names each unknown
    /// piece by the text it covers, not by this entry.
    pub fn unk(&self) -> Option<(u32, &str)> {
        self.unk_id.map(|id| (id, &*self.unk_token))
    }

    fn missing_unk() -> EncodeError {
        EncodeError::Model("Encountered an unknown token but `unk_id` is missing".into())
    }

    /// Append the tokens of one pre-token (byte offsets within it) to `out`.
    pub fn tokenize(&self, word: &str, out: &mut Vec<Token>) -> Result<(), EncodeError> {
        if word.is_empty() {
            return Ok(());
        }
        self.cache.tokenize(word, out, |out| {
            SCRATCH.with(|s| {
                let (best, pieces) = &mut *s.borrow_mut();
                self.viterbi(word, best)?;
                self.backtrack(word, best, pieces)?;
                self.emit(word, pieces, out)
            })
        })
    }

    fn viterbi(&self, word: &str, best: &mut Vec<Best>) -> Result<(), EncodeError> {
        let bytes = word.as_bytes();
        let size = bytes.len();
        best.clear();
        best.resize(size + 1, Best { score: 0.0, id: 0, start: NONE });
        let mut at = 0;
        while at < size {
            let till = best[at].score;
            let mblen = utf8_len(bytes[at]);
            let mut has_single = false;
            let mut node = 0u32;
            for (depth, &b) in bytes[at..].iter().enumerate() {
                node = self.trie.child(node, b);
                if node == NONE {
                    break;
                }
                let id = self.trie.value[node as usize];
                if id == NONE {
                    continue;
                }
                let len = depth + 1;
                let target = &mut best[at + len];
                let cand = self.scores[id as usize] + till;
                if target.start == NONE || cand > target.score {
                    *target = Best { score: cand, id, start: at as u32 };
                }
                if len == mblen {
                    has_single = true;
                }
            }
            if !has_single {
                let target = &mut best[at + mblen];
                let cand = self.unk_score + till;
                if target.start == NONE || cand > target.score {
                    let id = self.unk_id.ok_or_else(Self::missing_unk)?;
                    *target = Best { score: cand, id, start: at as u32 };
                }
            }
            at += mblen;
        }
        Ok(())
    }

    /// The best path as pieces `(start, end, id)`, consecutive unknown nodes fused.
    fn backtrack(&self, word: &str, best: &[Best], pieces: &mut Vec<Piece>) -> Result<(), EncodeError> {
        pieces.clear();
        let mut end = word.len() as u32;
        let mut fused_end = None::<u32>;
        while end > 0 {
            let node = best[end as usize];
            if node.start == NONE {
                // `tokenizers` panics here (a position no path reaches, without an unk_id).
                return Err(Self::missing_unk());
            }
            if Some(node.id) == self.unk_id {
                fused_end.get_or_insert(end);
            } else {
                if let Some(e) = fused_end.take() {
                    pieces.push((end, e, self.unk_id.expect("fused unk")));
                }
                pieces.push((node.start, end, node.id));
            }
            end = node.start;
        }
        if let Some(e) = fused_end {
            pieces.push((0, e, self.unk_id.expect("fused unk")));
        }
        pieces.reverse();
        Ok(())
    }

    fn emit(&self, word: &str, pieces: &[Piece], out: &mut Vec<Token>) -> Result<(), EncodeError> {
        for &(start, end, id) in pieces {
            if Some(id) != self.unk_id {
                out.push(Token { id, start, end });
                continue;
            }
            let s = &word[start as usize..end as usize];
            if let Some(&id) = self.ids.get(s) {
                out.push(Token { id, start, end });
            } else if let Some(bytes) = self.byte_ids.as_ref().filter(|t| s.bytes().all(|b| t[b as usize] != NONE)) {
                out.extend(s.bytes().map(|b| Token { id: bytes[b as usize], start, end }));
            } else {
                out.push(Token { id: self.unk_id.ok_or_else(Self::missing_unk)?, start, end });
            }
        }
        Ok(())
    }
}

#[inline]
fn utf8_len(first: u8) -> usize {
    match first {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    }
}
