//! The BPE model, exactly as `tokenizers`' `models::bpe::BPE` tokenizes one pre-token:
//! initial symbols (one per char — or per byte under ByteLevel, see below), unknown chars
//! through `byte_fallback` (`<0xXX>` tokens) or the (fused) unknown token, then merges applied
//! lowest rank first, leftmost first among equal ranks, until no adjacent pair merges;
//! `ignore_merges` first looks the whole pre-token up in the vocabulary. Token byte ranges are
//! the cumulative lengths of the symbols, as `tokenizers`' `Word` computes them.
//!
//! Under the ByteLevel pre-tokenizer the vocabulary is keyed by raw bytes (the inverse of the
//! byte-level alphabet applied at load, see [`crate::pre_tokenizers::byte_level`]): the
//! symbols are the pre-token's bytes and no byte-level string is built. Words of up to
//! [`SHORT_WORD`] symbols merge in place by repeated scans; longer ones in
//! [`super::bpe_long`] (O(n log n), interruptible).
//!
//! Loading refuses what is not reproduced: dropout, a non-empty continuing-subword prefix or
//! end-of-word suffix, an unknown token missing from the vocabulary, a ByteLevel vocabulary
//! without all 256 byte symbols.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use super::bpe_cache::{self, WordCache};
use super::bpe_long;
use super::pair_map::{PairMap, NO_RANK};
use super::Token;
use crate::error::{EncodeError, LoadError};
use crate::pre_tokenizers::byte_level;

/// Words of at most this many symbols merge by repeated scans (no allocation beyond the
/// symbol list); longer words take the O(n log n) path.
pub const SHORT_WORD: usize = 64;

const NONE: u32 = u32::MAX;

/// Scratch space of [`Bpe::tokenize_and_remember`].
#[derive(Default)]
pub struct BpeScratch {
    syms: Vec<(u32, u32)>,
    tokens: Vec<Token>,
}

/// The `model` object of a `tokenizer.json` whose `type` is `BPE`. Its strings borrow from
/// the file's text where they have no escapes (nearly all: a vocabulary entry is a copy only
/// when it has to be unescaped).
#[derive(Deserialize)]
pub struct BpeJson<'a> {
    #[serde(default)]
    dropout: Option<f64>,
    #[serde(default)]
    unk_token: Option<String>,
    #[serde(default)]
    continuing_subword_prefix: Option<String>,
    #[serde(default)]
    end_of_word_suffix: Option<String>,
    #[serde(default)]
    fuse_unk: Option<bool>,
    #[serde(default)]
    byte_fallback: Option<bool>,
    #[serde(default)]
    ignore_merges: Option<bool>,
    #[serde(borrow)]
    vocab: VocabJson<'a>,
    #[serde(borrow)]
    merges: MergesJson<'a>,
}

/// A string of the file: borrowed, or unescaped.
pub type JsonStr<'a> = Cow<'a, str>;

/// Deserializes a [`JsonStr`] (borrowed when the text has no escapes).
struct StrSeed;

impl<'de> de::DeserializeSeed<'de> for StrSeed {
    type Value = JsonStr<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<JsonStr<'de>, D::Error> {
        d.deserialize_str(StrVisitor)
    }
}

struct StrVisitor;

impl<'de> Visitor<'de> for StrVisitor {
    type Value = JsonStr<'de>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a string")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<JsonStr<'de>, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<JsonStr<'de>, E> {
        Ok(Cow::Owned(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<JsonStr<'de>, E> {
        Ok(Cow::Owned(v))
    }
}

/// `model.vocab` in file order (a later duplicate key overrides an earlier one, as in the
/// hash map `tokenizers` collects it into).
pub struct VocabJson<'a>(pub Vec<(JsonStr<'a>, u32)>);

impl<'de: 'a, 'a> Deserialize<'de> for VocabJson<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = VocabJson<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map from token to id")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<VocabJson<'de>, A::Error> {
                let mut v = Vec::with_capacity(map.size_hint().unwrap_or(0));
                while let Some(k) = map.next_key_seed(StrSeed)? {
                    v.push((k, map.next_value::<u32>()?));
                }
                Ok(VocabJson(v))
            }
        }
        let VocabJson(v) = d.deserialize_map(V)?;
        Ok(VocabJson(v))
    }
}

/// `model.merges`: either `[["a", "b"], …]` or the legacy `["a b", …]` (not a mix).
pub struct MergesJson<'a>(pub Vec<(JsonStr<'a>, JsonStr<'a>)>);

/// One merge: a pair of strings, or a legacy `"a b"` string (split here, as `tokenizers`'
/// `convert_merges_to_hashmap` does: "#version" lines are skipped (`None`), the rest must
/// split on ' ' into exactly two parts). Deserialized without buffering (serde's untagged
/// enums buffer every element).
struct OneMerge<'a>(Option<(JsonStr<'a>, JsonStr<'a>)>, bool);

impl<'de> Deserialize<'de> for OneMerge<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> V {
            fn legacy<E: de::Error>(s: JsonStr<'de>) -> Result<OneMerge<'de>, E> {
                if s.starts_with("#version") {
                    return Ok(OneMerge(None, true));
                }
                let split = |s: &str| -> Option<(usize, usize)> {
                    let mut parts = s.split(' ');
                    match (parts.next(), parts.next(), parts.next()) {
                        (Some(a), Some(_), None) => Some((a.len(), a.len() + 1)),
                        _ => None,
                    }
                };
                let Some((a_end, b_start)) = split(&s) else {
                    return Err(de::Error::custom(format!("bad merge {s:?}")));
                };
                let pair = match s {
                    Cow::Borrowed(s) => (Cow::Borrowed(&s[..a_end]), Cow::Borrowed(&s[b_start..])),
                    Cow::Owned(s) => (Cow::Owned(s[..a_end].to_string()), Cow::Owned(s[b_start..].to_string())),
                };
                Ok(OneMerge(Some(pair), true))
            }
        }
        impl<'de> Visitor<'de> for V {
            type Value = OneMerge<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a merge: a pair of strings or a string \"a b\"")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<OneMerge<'de>, E> {
                V::legacy(Cow::Borrowed(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<OneMerge<'de>, E> {
                V::legacy(Cow::Owned(v.to_string()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<OneMerge<'de>, E> {
                V::legacy(Cow::Owned(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<OneMerge<'de>, A::Error> {
                let a = seq.next_element_seed(StrSeed)?.ok_or_else(|| de::Error::invalid_length(0, &self))?;
                let b = seq.next_element_seed(StrSeed)?.ok_or_else(|| de::Error::invalid_length(1, &self))?;
                if seq.next_element::<de::IgnoredAny>()?.is_some() {
                    return Err(de::Error::invalid_length(3, &self));
                }
                Ok(OneMerge(Some((a, b)), false))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for MergesJson<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MergesJson<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of merges")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<MergesJson<'de>, A::Error> {
                let mut v = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                let (mut pairs, mut legacy) = (false, false);
                while let Some(OneMerge(m, is_legacy)) = seq.next_element::<OneMerge<'de>>()? {
                    if is_legacy {
                        legacy = true;
                    } else {
                        pairs = true;
                    }
                    if pairs && legacy {
                        return Err(de::Error::custom("merges mix pairs and strings"));
                    }
                    v.extend(m);
                }
                Ok(MergesJson(v))
            }
        }
        let MergesJson(v) = d.deserialize_seq(V)?;
        Ok(MergesJson(v))
    }
}

/// What the initial symbols of a word are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Units {
    /// One per byte; the vocabulary is keyed by raw bytes (ByteLevel).
    Bytes,
    /// One per char (or per byte through `byte_fallback`).
    Chars,
}

/// A loaded BPE model (see the module docs).
pub struct Bpe {
    /// Token bytes (raw bytes under ByteLevel) → id.
    vocab: HashMap<Box<[u8]>, u32, foldhash::fast::FixedState>,
    merges: PairMap,
    units: Units,
    /// Id of each single byte (`Units::Bytes`: all present) or ASCII char (`Units::Chars`;
    /// [`NONE`] when absent).
    byte_ids: [u32; 256],
    /// `<0xXX>` ids when `byte_fallback` is on ([`NONE`] when absent).
    fallback: Option<Box<[u32; 256]>>,
    unk: Option<u32>,
    fuse_unk: bool,
    ignore_merges: bool,
    /// Number of entries of `model.vocab` (distinct keys), `tokenizers`' `get_vocab_size`.
    vocab_size: usize,
    /// This model's word caches ([`bpe_cache`]).
    cache_id: u64,
    /// Where a word may be cut into independent sub-words ([`Units::Chars`]).
    cuts: Option<SubwordCuts>,
}

/// The char before which SentencePiece-style vocabularies start words.
pub const WORD_START: char = '\u{2581}';

/// Cut points inside a word that no merge can cross, so that BPE of the word is BPE of its
/// pieces (and each piece goes through the word cache): before a [`WORD_START`] whose previous
/// char `x` is a token of its own and appears right before [`WORD_START`] in no token of the
/// vocabulary — every merge makes a vocabulary token, so no token can ever hold that pair.
/// Only without `ignore_merges` (a whole-word lookup would see the uncut word).
struct SubwordCuts {
    /// Chars that precede [`WORD_START`] inside some vocabulary token.
    joined: std::collections::HashSet<char, foldhash::fast::FixedState>,
    /// Per ASCII byte: whether a cut may follow it (a token of its own, not in `joined`).
    ascii_cut: [bool; 128],
}

impl SubwordCuts {
    fn new(joined: std::collections::HashSet<char, foldhash::fast::FixedState>, byte_ids: &[u32; 256]) -> Self {
        let ascii_cut = std::array::from_fn(|b| byte_ids[b] != NONE && !joined.contains(&(b as u8 as char)));
        SubwordCuts { joined, ascii_cut }
    }
}

/// The UTF-8 bytes of [`WORD_START`].
const WORD_START_UTF8: [u8; 3] = [0xE2, 0x96, 0x81];

/// Calls `f(i)` for each `i` where `word[i..]` starts with [`WORD_START`], in order: a SWAR scan
/// for its first byte, eight bytes at a time (candidates confirmed by the next two bytes; the
/// zero-byte trick's false positives are only ever candidates). `memmem` paid a call and its
/// setup per match, and SentencePiece text has one every few bytes.
#[inline(always)]
fn for_each_word_start(word: &[u8], mut f: impl FnMut(usize) -> Result<(), EncodeError>) -> Result<(), EncodeError> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let is_at = |i: usize| word.get(i + 1..i + 3) == Some(&WORD_START_UTF8[1..]);
    let mut base = 0;
    while base + 8 <= word.len() {
        let v = u64::from_le_bytes(word[base..base + 8].try_into().unwrap());
        let x = v ^ (LO * WORD_START_UTF8[0] as u64);
        let mut m = x.wrapping_sub(LO) & !x & HI;
        while m != 0 {
            let i = base + (m.trailing_zeros() / 8) as usize;
            if word[i] == WORD_START_UTF8[0] && is_at(i) {
                f(i)?;
            }
            m &= m - 1;
        }
        base += 8;
    }
    for (i, &b) in word.iter().enumerate().skip(base) {
        if b == WORD_START_UTF8[0] && is_at(i) {
            f(i)?;
        }
    }
    Ok(())
}

/// The string vocabulary of the file, kept only while loading (added tokens look contents
/// up in it).
pub struct StrVocab<'a> {
    pub map: HashMap<&'a str, u32, foldhash::fast::FixedState>,
}

impl<'a> StrVocab<'a> {
    pub fn get(&self, s: &str) -> Option<u32> {
        self.map.get(s).copied()
    }
}

fn unsupported(s: impl Into<String>) -> LoadError {
    LoadError::Unsupported(s.into())
}

impl Bpe {
    /// Build from `model` (its `type` already checked); `units` is [`Units::Bytes`] when the
    /// pre-tokenizer ends with ByteLevel. Also returns the string vocabulary for the added
    /// tokens' id assignment.
    pub fn from_json<'a>(json: &'a BpeJson<'_>, units: Units) -> Result<(Bpe, StrVocab<'a>), LoadError> {
        match json.dropout {
            None => {}
            Some(0.0) => {}
            Some(p) if (0.0..=1.0).contains(&p) => return Err(unsupported(format!("BPE dropout {p}"))),
            Some(p) => return Err(unsupported(format!("BPE dropout {p} out of range (tokenizers refuses it too)"))),
        }
        if json.continuing_subword_prefix.as_deref().is_some_and(|s| !s.is_empty()) {
            return Err(unsupported("BPE continuing_subword_prefix"));
        }
        if json.end_of_word_suffix.as_deref().is_some_and(|s| !s.is_empty()) {
            return Err(unsupported("BPE end_of_word_suffix"));
        }
        let mut map: HashMap<&str, u32, _> = HashMap::with_capacity_and_hasher(json.vocab.0.len(), Default::default());
        for (k, id) in &json.vocab.0 {
            if *id > crate::load::MAX_ID {
                return Err(LoadError::Limit(format!("token id {id} of {k:?}")));
            }
            map.insert(k.as_ref(), *id);
        }
        let vocab_size = map.len();
        let str_vocab = StrVocab { map };

        let mut merges = PairMap::with_capacity(json.merges.0.len());
        let mut buf = String::new();
        for (rank, (a, b)) in json.merges.0.iter().enumerate() {
            let missing = |t: &str| LoadError::Unsupported(format!("merge token {t:?} is not in the vocabulary"));
            let ai = str_vocab.get(a).ok_or_else(|| missing(a))?;
            let bi = str_vocab.get(b).ok_or_else(|| missing(b))?;
            buf.clear();
            buf.push_str(a);
            buf.push_str(b);
            let m = str_vocab.get(&buf).ok_or_else(|| missing(&buf))?;
            merges.insert(ai, bi, rank as u32, m);
        }

        let mut vocab: HashMap<Box<[u8]>, u32, _> = HashMap::with_capacity_and_hasher(vocab_size, Default::default());
        let mut byte_ids = [NONE; 256];
        match units {
            Units::Bytes => {
                let mut raw = Vec::new();
                for (k, id) in &str_vocab.map {
                    if byte_level::decode_str(k, &mut raw) {
                        vocab.insert(raw.as_slice().into(), *id);
                    }
                }
                for (b, slot) in byte_ids.iter_mut().enumerate() {
                    let c = byte_level::BYTE_CHARS[b];
                    *slot = str_vocab.get(c.encode_utf8(&mut [0; 4])).ok_or_else(|| {
                        unsupported(format!("ByteLevel vocabulary without the symbol of byte {b:#04x}"))
                    })?;
                }
            }
            Units::Chars => {
                for (k, id) in &str_vocab.map {
                    vocab.insert(k.as_bytes().into(), *id);
                }
                for (b, slot) in byte_ids.iter_mut().enumerate().take(128) {
                    *slot = str_vocab.get(char::from(b as u8).encode_utf8(&mut [0; 4])).unwrap_or(NONE);
                }
            }
        }
        let fallback = if json.byte_fallback.unwrap_or(false) {
            let mut f = Box::new([NONE; 256]);
            for (b, slot) in f.iter_mut().enumerate() {
                *slot = str_vocab.get(&format!("<{b:#04X}>")).unwrap_or(NONE);
            }
            Some(f)
        } else {
            None
        };
        let unk = match &json.unk_token {
            None => None,
            Some(u) => Some(
                str_vocab.get(u).ok_or_else(|| unsupported(format!("unknown token {u:?} is not in the vocabulary")))?,
            ),
        };
        let bpe = Bpe {
            vocab,
            merges,
            units,
            byte_ids,
            fallback,
            unk,
            fuse_unk: json.fuse_unk.unwrap_or(false),
            ignore_merges: json.ignore_merges.unwrap_or(false),
            vocab_size,
            cache_id: bpe_cache::new_cache_id(),
            cuts: None,
        };
        let mut bpe = bpe;
        let mut buf = [0; 4];
        if units == Units::Chars
            && !bpe.ignore_merges
            && bpe.vocab.contains_key(WORD_START.encode_utf8(&mut buf).as_bytes())
        {
            let mut joined = std::collections::HashSet::default();
            for k in str_vocab.map.keys() {
                let mut prev = None;
                for c in k.chars() {
                    if let (Some(p), WORD_START) = (prev, c) {
                        joined.insert(p);
                    }
                    prev = Some(c);
                }
            }
            bpe.cuts = Some(SubwordCuts::new(joined, &bpe.byte_ids));
        }
        Ok((bpe, str_vocab))
    }

    pub fn units(&self) -> Units {
        self.units
    }

    /// `tokenizers`' `get_vocab_size` (distinct keys of `model.vocab`).
    pub fn vocab_size(&self) -> usize {
        self.vocab_size
    }

    /// The id of a token given by its bytes (raw bytes under ByteLevel).
    pub fn token_id(&self, bytes: &[u8]) -> Option<u32> {
        self.vocab.get(bytes).copied()
    }

    /// Run `f` with this thread's word cache for this model.
    pub fn with_cache<R>(&self, f: impl FnOnce(&mut WordCache) -> R) -> R {
        bpe_cache::with_cache(self.cache_id, f)
    }

    /// Call `f(start, end)` for the independent sub-words of `word` ([`SubwordCuts`]; the
    /// whole word when it has no cut).
    #[inline]
    pub fn sub_words(
        &self,
        word: &[u8],
        mut f: impl FnMut(usize, usize) -> Result<(), EncodeError>,
    ) -> Result<(), EncodeError> {
        let Some(cuts) = &self.cuts else {
            return f(0, word.len());
        };
        let mut start = 0;
        for_each_word_start(word, |i| {
            if i == 0 {
                return Ok(());
            }
            // The char before the cut.
            let b = word[i - 1];
            let cut = if b < 0x80 {
                cuts.ascii_cut[b as usize]
            } else {
                let mut p = i - 1;
                while word[p] & 0xC0 == 0x80 {
                    p -= 1;
                }
                let x = &word[p..i];
                // SAFETY-free decode: `x` is one whole UTF-8 char of a `str`.
                let c = std::str::from_utf8(x).ok().and_then(|s| s.chars().next());
                self.vocab.contains_key(x) && c.is_some_and(|c| !cuts.joined.contains(&c))
            };
            if cut {
                f(start, i)?;
                start = i;
            }
            Ok(())
        })?;
        f(start, word.len())
    }

    /// Whether words may be cut into sub-words ([`Self::sub_words`]).
    #[inline(always)]
    pub fn has_cuts(&self) -> bool {
        self.cuts.is_some()
    }

    /// The token of a one-byte pre-token under ByteLevel (no lookup needed).
    #[inline(always)]
    pub fn byte_token(&self, word: &[u8]) -> Option<u32> {
        (self.units == Units::Bytes && word.len() == 1).then(|| self.byte_ids[word[0] as usize])
    }

    /// A word the cache does not know: tokenized into `scratch` and remembered.
    #[cold]
    #[inline(never)]
    pub fn tokenize_and_remember<'a>(
        &self,
        word: &str,
        cache: &mut WordCache,
        scratch: &'a mut BpeScratch,
        cancel: Option<&AtomicBool>,
    ) -> Result<&'a [Token], EncodeError> {
        scratch.tokens.clear();
        self.tokenize(word, &mut scratch.syms, &mut scratch.tokens, cancel)?;
        cache.insert(word.as_bytes(), &scratch.tokens);
        Ok(&scratch.tokens)
    }

    /// Tokenize one pre-token (non-empty): tokens appended to `out` with byte ranges relative
    /// to `word`. `syms` is scratch space.
    pub fn tokenize(
        &self,
        word: &str,
        syms: &mut Vec<(u32, u32)>,
        out: &mut Vec<Token>,
        cancel: Option<&AtomicBool>,
    ) -> Result<(), EncodeError> {
        if self.ignore_merges {
            if let Some(&id) = self.vocab.get(word.as_bytes()) {
                out.push(Token { id, start: 0, end: word.len() as u32 });
                return Ok(());
            }
        }
        if self.units == Units::Bytes && word.len() == 1 {
            out.push(Token { id: self.byte_ids[word.as_bytes()[0] as usize], start: 0, end: 1 });
            return Ok(());
        }
        if self.units == Units::Bytes && word.len() > SHORT_WORD {
            return bpe_long::tokenize_long(self, word, None, out, cancel);
        }
        syms.clear();
        self.initial_symbols(word, |id, len| syms.push((id, len)));
        if syms.len() > SHORT_WORD {
            return bpe_long::tokenize_long(self, word, Some(std::mem::take(syms)), out, cancel);
        }
        self.merge_short(syms);
        let mut pos = 0;
        out.extend(syms.iter().map(|&(id, len)| {
            let t = Token { id, start: pos, end: pos + len };
            pos += len;
            t
        }));
        Ok(())
    }

    /// The initial symbols of `word` as `(id, byte length)`, exactly as `tokenizers`'
    /// `BPE::merge_word` builds them (including its order of a pending unknown token and
    /// byte-fallback tokens, and chars dropped when there is no unknown token).
    pub(crate) fn initial_symbols(&self, word: &str, mut push: impl FnMut(u32, u32)) {
        if self.units == Units::Bytes {
            for &b in word.as_bytes() {
                push(self.byte_ids[b as usize], 1);
            }
            return;
        }
        let mut unk: Option<(u32, u32)> = None;
        let bytes = word.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let b0 = bytes[i];
            let len = utf8_len(b0);
            let s = &bytes[i..i + len];
            i += len;
            let id = if b0 < 0x80 { self.byte_ids[b0 as usize] } else { self.vocab.get(s).copied().unwrap_or(NONE) };
            if id != NONE {
                if let Some((u, l)) = unk.take() {
                    push(u, l);
                }
                push(id, len as u32);
                continue;
            }
            if let Some(f) = &self.fallback {
                if s.iter().all(|&b| f[b as usize] != NONE) {
                    for &b in s {
                        push(f[b as usize], 1);
                    }
                    continue;
                }
            }
            if let Some(unk_id) = self.unk {
                unk = match unk {
                    Some((u, l)) if self.fuse_unk => Some((u, l + len as u32)),
                    Some((u, l)) => {
                        push(u, l);
                        Some((unk_id, len as u32))
                    }
                    None => Some((unk_id, len as u32)),
                };
            }
        }
        if let Some((u, l)) = unk {
            push(u, l);
        }
    }

    /// Merge a short symbol list in place: repeatedly the lowest-ranked adjacent pair,
    /// leftmost first — the order of `tokenizers`' priority queue.
    fn merge_short(&self, syms: &mut Vec<(u32, u32)>) {
        let n = syms.len();
        if n < 2 {
            return;
        }
        let mut ranks = [NO_RANK; SHORT_WORD + 8];
        let mut merged = [0u32; SHORT_WORD + 8];
        let mut n = n;
        for i in 0..n - 1 {
            if let Some((r, m)) = self.merges.get(syms[i].0, syms[i + 1].0) {
                ranks[i] = r;
                merged[i] = m;
            }
        }
        loop {
            let mut best = NO_RANK;
            let mut at = 0;
            for (i, &r) in ranks[..n - 1].iter().enumerate() {
                if r < best {
                    best = r;
                    at = i;
                }
            }
            if best == NO_RANK {
                break;
            }
            syms[at] = (merged[at], syms[at].1 + syms[at + 1].1);
            syms.remove(at + 1);
            ranks.copy_within(at + 2..n, at + 1);
            merged.copy_within(at + 2..n, at + 1);
            n -= 1;
            ranks[n - 1] = NO_RANK;
            if at + 1 < n {
                let (r, m) = self.merges.get(syms[at].0, syms[at + 1].0).unwrap_or((NO_RANK, 0));
                ranks[at] = r;
                merged[at] = m;
            } else {
                ranks[at] = NO_RANK;
            }
            if at > 0 {
                let (r, m) = self.merges.get(syms[at - 1].0, syms[at].0).unwrap_or((NO_RANK, 0));
                ranks[at - 1] = r;
                merged[at - 1] = m;
            }
            if n < 2 {
                break;
            }
        }
    }

    pub(crate) fn merges(&self) -> &PairMap {
        &self.merges
    }
}

#[inline(always)]
pub(crate) fn utf8_len(b0: u8) -> usize {
    match b0 {
        0..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}

/// The compact form (see [`crate::compact`]): the tables of a loaded model, read back
/// without the string vocabulary or the merge list.
impl Bpe {
    pub(crate) fn write_compact(&self, w: &mut crate::compact::Writer) {
        w.u8(match self.units {
            Units::Bytes => 0,
            Units::Chars => 1,
        });
        w.u8(self.fuse_unk as u8);
        w.u8(self.ignore_merges as u8);
        w.u32(self.unk.unwrap_or(NONE));
        w.u64(self.vocab_size as u64);
        w.u32s(&self.byte_ids);
        match &self.fallback {
            None => w.u8(0),
            Some(f) => {
                w.u8(1);
                w.u32s(&f[..]);
            }
        }
        let mut ids = Vec::with_capacity(self.vocab.len());
        let mut lens = Vec::with_capacity(self.vocab.len());
        let mut blob = Vec::new();
        for (k, &id) in &self.vocab {
            ids.push(id);
            lens.push(k.len() as u32);
            blob.extend_from_slice(k);
        }
        w.u32s(&ids);
        w.u32s(&lens);
        w.bytes(&blob);
        let merges: Vec<u32> = self.merges.entries().flat_map(|(a, b, r, m)| [a, b, r, m]).collect();
        w.u32s(&merges);
        match &self.cuts {
            None => w.u8(0),
            Some(c) => {
                w.u8(1);
                let mut joined: Vec<u32> = c.joined.iter().map(|&c| c as u32).collect();
                joined.sort_unstable();
                w.u32s(&joined);
            }
        }
    }

    pub(crate) fn read_compact(r: &mut crate::compact::Reader<'_>) -> Result<Bpe, LoadError> {
        use crate::compact::{corrupt, le_u32s};
        let id_ok = |id: u32, what: &str| {
            if id <= crate::load::MAX_ID {
                Ok(id)
            } else {
                Err(corrupt(format!("{what} id {id} out of range")))
            }
        };
        let units = match r.u8()? {
            0 => Units::Bytes,
            1 => Units::Chars,
            u => return Err(corrupt(format!("BPE units {u}"))),
        };
        let fuse_unk = r.bool()?;
        let ignore_merges = r.bool()?;
        let unk = match r.u32()? {
            NONE => None,
            u => Some(id_ok(u, "unknown token")?),
        };
        let vocab_size = r.u64()?;
        if vocab_size > crate::load::MAX_ID as u64 + 1 {
            return Err(corrupt(format!("vocabulary size {vocab_size}")));
        }
        let vocab_size = vocab_size as usize;
        let table = |b: &[u8], what: &str| -> Result<[u32; 256], LoadError> {
            if b.len() != 256 * 4 {
                return Err(corrupt(format!("{what}: {} bytes", b.len())));
            }
            let mut t = [NONE; 256];
            for (slot, v) in t.iter_mut().zip(le_u32s(b)) {
                *slot = if v == NONE { v } else { id_ok(v, what)? };
            }
            Ok(t)
        };
        let byte_ids = table(r.u32s()?, "byte ids")?;
        if units == Units::Bytes && byte_ids.contains(&NONE) {
            return Err(corrupt("a ByteLevel model without the id of every byte"));
        }
        let fallback = if r.bool()? { Some(Box::new(table(r.u32s()?, "fallback ids")?)) } else { None };
        let ids = r.u32s()?;
        let lens = r.u32s()?;
        let blob = r.bytes()?;
        if ids.len() != lens.len() {
            return Err(corrupt("vocabulary ids and lengths differ in number"));
        }
        let mut vocab: HashMap<Box<[u8]>, u32, _> =
            HashMap::with_capacity_and_hasher(ids.len() / 4, Default::default()); // 4 bytes per id
        let mut at = 0usize;
        for (id, len) in le_u32s(ids).zip(le_u32s(lens)) {
            let end = at.checked_add(len as usize).filter(|&e| e <= blob.len());
            let end = end.ok_or_else(|| corrupt("vocabulary keys run past their bytes"))?;
            let key = &blob[at..end];
            if units == Units::Chars && std::str::from_utf8(key).is_err() {
                return Err(corrupt("a vocabulary key that is not UTF-8"));
            }
            vocab.insert(key.into(), id_ok(id, "vocabulary")?);
            at = end;
        }
        if at != blob.len() {
            return Err(corrupt("vocabulary bytes left over"));
        }
        let m = r.u32s()?;
        if m.len() % 16 != 0 {
            return Err(corrupt("merge table not in quadruples"));
        }
        let mut merges = PairMap::with_capacity(m.len() / 16);
        let mut vals = le_u32s(m);
        while let (Some(a), Some(b), Some(rank), Some(merged)) = (vals.next(), vals.next(), vals.next(), vals.next()) {
            if rank == NO_RANK {
                return Err(corrupt("a merge without a rank"));
            }
            merges.insert(id_ok(a, "merge")?, id_ok(b, "merge")?, rank, id_ok(merged, "merge")?);
        }
        let cuts = if r.bool()? {
            let mut joined = std::collections::HashSet::default();
            for c in le_u32s(r.u32s()?) {
                joined.insert(char::from_u32(c).ok_or_else(|| corrupt(format!("char {c:#x}")))?);
            }
            Some(SubwordCuts::new(joined, &byte_ids))
        } else {
            None
        };
        Ok(Bpe {
            vocab,
            merges,
            units,
            byte_ids,
            fallback,
            unk,
            fuse_unk,
            ignore_merges,
            vocab_size,
            cache_id: bpe_cache::new_cache_id(),
            cuts,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The SWAR scan finds exactly the matches of `memmem` for `▁`, at every alignment, among
    /// chars that share its first byte (`▂`, `…`) or its first two (`▂`), at the ends.
    #[test]
    fn word_starts_equal_memmem() {
        let parts = ["▁", "▂", "…", "a", "é", "東", "\u{96}", "▁▁", "x▁"];
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..3000 {
            let mut w = String::new();
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            for k in 0..(rng % 24) {
                w.push_str(parts[((rng >> (k * 2 % 60)) as usize) % parts.len()]);
            }
            let want: Vec<usize> = memchr::memmem::find_iter(w.as_bytes(), "▁".as_bytes()).collect();
            let mut got = Vec::new();
            for_each_word_start(w.as_bytes(), |i| {
                got.push(i);
                Ok(())
            })
            .unwrap();
            assert_eq!(got, want, "{w:?}");
        }
    }
}
