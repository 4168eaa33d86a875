//! The result of an encode: ids with their byte offsets into the input, word ids, the
//! attention mask, the special-tokens mask and type ids — the fields of `tokenizers::Encoding`
//! that a chunked encode reproduces exactly — and `tokenizers`' alignment methods over them
//! (`word_to_tokens`, `token_to_word`, `char_to_token`, ...). Char offsets are derived on demand,
//! and so are token strings ([`Encoding::tokens`]): from the vocabulary, except the few that
//! `tokenizers` names by their text ([`TextNamed`]), which an encoding carries.

/// An encoded text (or pair of texts). `offsets[i]` is the byte range of the input that token
/// `i` came from — of the first text for tokens of sequence 0, of the pair's second text for
/// tokens of sequence 1 — and `(0, 0)` for special tokens added by the post-processor and for
/// padding.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Encoding {
    pub ids: Vec<u32>,
    pub offsets: Vec<(usize, usize)>,
    pub type_ids: Vec<u32>,
    pub special_tokens_mask: Vec<u32>,
    pub attention_mask: Vec<u32>,
    /// `tokenizers`' `word_ids`: the word (pre-tokenizer split, added tokens in the text
    /// included) each token came from, counted per sequence over the whole text (a chunked
    /// encode shifts each piece's words by the words of the pieces before it, less one where a
    /// cut falls inside a split: `crate::pipeline::word_bases`); `None` for special tokens
    /// added by the post-processor and for padding.
    pub word_ids: Vec<Option<u32>>,
    /// The token range of each sequence, `(sequence id, range)` sorted by id, as `tokenizers`
    /// records them (its `sequence_ranges`). Empty means what it means there: one sequence
    /// that spans every token (then [`sequence_ids`](Self::sequence_ids) is all `Some(0)`).
    pub sequence_ranges: Vec<(usize, std::ops::Range<usize>)>,
    /// What truncation cut off, as `tokenizers`' `overflowing` (each one post-processed and
    /// padded like the main encoding; with a stride, each repeats the last `stride` tokens).
    pub overflowing: Vec<Encoding>,
    /// The tokens whose string in `tokenizers` (its `Encoding.tokens`) is not their id's
    /// vocabulary entry, as `(token index, string)` in index order — see [`TextNamed`].
    /// Usually empty; [`tokens`](Self::tokens) reads it.
    pub token_texts: Vec<(usize, String)>,
}

/// The ids whose token `tokenizers` may name by the text it covers instead of the id's
/// vocabulary entry (`id_to_token`), with that entry (sorted by id): a Unigram model's unknown
/// id (an unknown piece is named by its normalized text) and the added tokens that are
/// `lstrip`, `rstrip` or `normalized` (named by the raw or normalized text matched, the
/// whitespace taken in included). Every other token's string is its vocabulary entry. Read
/// once at load.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct TextNamed(Vec<(u32, String)>);

impl TextNamed {
    /// For `tok`, whose model's Unigram unknown id (from the file) is `unigram_unk`.
    pub(crate) fn of(tok: &tokenizers::Tokenizer, unigram_unk: Option<u32>) -> TextNamed {
        let loose = tok.get_added_tokens_decoder().into_iter().filter(|(_, t)| t.lstrip || t.rstrip || t.normalized);
        let ids = loose.map(|(id, _)| id).chain(unigram_unk);
        let mut v: Vec<(u32, String)> = ids.filter_map(|id| Some((id, tok.id_to_token(id)?))).collect();
        v.sort();
        v.dedup_by_key(|(id, _)| *id);
        TextNamed(v)
    }

    /// Keep `text` as token `index`'s string when `id` is one of these and `text` is not
    /// its vocabulary entry.
    fn keep(&self, index: usize, id: u32, text: &str, out: &mut Vec<(usize, String)>) {
        if let Ok(k) = self.0.binary_search_by_key(&id, |(i, _)| *i) {
            if self.0[k].1 != text {
                out.push((index, text.to_owned()));
            }
        }
    }
}

impl Encoding {
    /// A `tokenizers` encoding as a yieldtok one; the token strings of the ids in `named`
    /// that are not their vocabulary entries are kept (`token_texts`; padding aside, which
    /// [`tokens`](Self::tokens) names by the padding's token).
    pub(crate) fn from_hf(mut enc: tokenizers::Encoding, named: &TextNamed) -> Self {
        let overflowing = enc.take_overflowing().into_iter().map(|o| Encoding::from_hf(o, named)).collect();
        let mut token_texts = Vec::new();
        if !named.0.is_empty() {
            let tokens = enc.get_ids().iter().zip(enc.get_tokens()).zip(enc.get_attention_mask());
            for (i, ((&id, text), _)) in tokens.enumerate().filter(|(_, (_, &mask))| mask != 0) {
                named.keep(i, id, text, &mut token_texts);
            }
        }
        Encoding {
            ids: enc.get_ids().to_vec(),
            offsets: enc.get_offsets().to_vec(),
            type_ids: enc.get_type_ids().to_vec(),
            special_tokens_mask: enc.get_special_tokens_mask().to_vec(),
            attention_mask: enc.get_attention_mask().to_vec(),
            word_ids: enc.get_word_ids().to_vec(),
            sequence_ranges: hf_sequence_ranges(&enc),
            overflowing,
            token_texts,
        }
    }

    /// A `tokenizers` encoding as a yieldtok one, every token string that is not its id's
    /// vocabulary entry in `tok` kept (padding aside: [`tokens`](Self::tokens) names it by the
    /// padding's token) — for comparing with `tokenizers`' results; the engines record only
    /// the ids that can differ ([`TextNamed`]), which gives the same for an exact engine.
    pub fn from_reference(mut enc: tokenizers::Encoding, tok: &tokenizers::Tokenizer) -> Self {
        let overflowing = enc.take_overflowing().into_iter().map(|o| Encoding::from_reference(o, tok)).collect();
        let tokens = enc.get_ids().iter().zip(enc.get_tokens()).zip(enc.get_attention_mask());
        let token_texts = tokens
            .enumerate()
            .filter(|(_, ((&id, text), &mask))| mask != 0 && tok.id_to_token(id).as_deref() != Some(text.as_str()))
            .map(|(i, ((_, text), _))| (i, text.clone()))
            .collect();
        Encoding { overflowing, token_texts, ..Encoding::from_hf(enc, &TextNamed::default()) }
    }

    /// `tokenizers`' `Encoding.tokens`: each token's string — its vocabulary entry
    /// (`vocab`), `pad_token` for padding (attention mask 0; `None` when the tokenizer does
    /// not pad), or the text `token_texts` records for it.
    pub fn tokens(&self, vocab: impl Fn(u32) -> Option<String>, pad_token: Option<&str>) -> Vec<String> {
        let mut texts = self.token_texts.iter().peekable();
        let mut out = Vec::with_capacity(self.ids.len());
        for (i, (&id, &mask)) in self.ids.iter().zip(&self.attention_mask).enumerate() {
            if let Some((_, text)) = texts.next_if(|(k, _)| *k == i) {
                out.push(text.clone());
                continue;
            }
            out.push(match (mask, pad_token) {
                (0, Some(pad)) => pad.to_owned(),
                _ => vocab(id).unwrap_or_default(),
            });
        }
        out
    }
}

/// `tokenizers`' `sequence_ranges` of `enc`, read through its public API: the map is empty
/// exactly when `token_to_sequence(len)` is `Some(0)` (a range never contains `len`); else
/// `token_to_sequence(i)` names the key whose range holds token `i` (ranges are contiguous).
/// Keys of empty ranges are invisible there: `n_sequences` says how many keys exist, and the
/// missing ones get `0..0` under the smallest unused ids (which no token and no query can tell
/// from where they were). Sorted by key.
pub(crate) fn hf_sequence_ranges(enc: &tokenizers::Encoding) -> Vec<(usize, std::ops::Range<usize>)> {
    if enc.token_to_sequence(enc.len()).is_some() {
        return Vec::new();
    }
    let mut out: Vec<(usize, std::ops::Range<usize>)> = Vec::new();
    for i in 0..enc.len() {
        if let Some(s) = enc.token_to_sequence(i) {
            match out.iter_mut().find(|(k, _)| *k == s) {
                Some((_, r)) => r.end = i + 1,
                None => out.push((s, i..i + 1)),
            }
        }
    }
    // A missing key's id does matter to `sequence_ids` (a key in `0..n_sequences` without a
    // range falls back to every token): pick, among the few possible ids, one with which the
    // result's `sequence_ids` are `tokenizers`' own.
    let n = enc.n_sequences();
    if out.len() < n {
        let want = enc.get_sequence_ids();
        let len = enc.len();
        let mut candidates = (0..n + 2).filter(|id| !out.iter().any(|(k, _)| k == id));
        let first = candidates.clone().next().unwrap_or(n);
        let fits = |id: usize| {
            let mut trial = out.clone();
            trial.push((id, 0..0));
            trial.sort_by_key(|(k, _)| *k);
            Encoding { ids: vec![0; len], sequence_ranges: trial, ..Default::default() }.sequence_ids() == want
        };
        let id = if out.len() + 1 == n { candidates.find(|&id| fits(id)).unwrap_or(first) } else { first };
        out.push((id, 0..0));
        let mut next = 0;
        while out.len() < n {
            if !out.iter().any(|(k, _)| *k == next) {
                out.push((next, 0..0));
            }
            next += 1;
        }
    }
    out.sort_by_key(|(k, _)| *k);
    out
}

impl Encoding {
    /// `tokenizers`' `n_sequences`: 1 for a single text, 2 for a pair.
    pub fn n_sequences(&self) -> usize {
        self.sequence_ranges.len().max(1)
    }

    /// The token range of sequence `id` (`tokenizers`' `sequence_range`: every token when no
    /// range is recorded for it).
    pub fn sequence_range(&self, id: usize) -> std::ops::Range<usize> {
        self.sequence_ranges.iter().find(|(s, _)| *s == id).map(|(_, r)| r.clone()).unwrap_or(0..self.len())
    }

    /// `tokenizers`' `sequence_ids`: the sequence each token belongs to, `None` for special
    /// tokens added by the post-processor and for padding.
    pub fn sequence_ids(&self) -> Vec<Option<usize>> {
        let mut out = vec![None; self.len()];
        for id in 0..self.n_sequences() {
            let r = self.sequence_range(id);
            let end = r.end.min(out.len());
            out[r.start.min(end)..end].fill(Some(id));
        }
        out
    }

    /// `tokenizers`' `token_to_sequence(token)`.
    pub fn token_to_sequence(&self, token: usize) -> Option<usize> {
        if token > self.len() {
            None
        } else if self.sequence_ranges.is_empty() {
            Some(0)
        } else {
            self.sequence_ranges.iter().find(|(_, r)| r.contains(&token)).map(|(s, _)| *s)
        }
    }

    /// `tokenizers`' `word_to_tokens(word, sequence_id)`: the token range `(start, end)` of
    /// word `word` of sequence `sequence_id`. As there, the scan of the sequence's tokens stops
    /// at the first token of a later word (tokens without a word are passed over).
    pub fn word_to_tokens(&self, word: u32, sequence_id: usize) -> Option<(usize, usize)> {
        let range = self.sequence_range(sequence_id);
        let words = self.word_ids.get(range.clone())?;
        let (mut start, mut end) = (None, None);
        for (i, w) in words.iter().enumerate().take_while(|(_, w)| **w <= Some(word)) {
            if *w == Some(word) {
                start.get_or_insert(i);
                end = Some(i + 1);
            }
        }
        Some((range.start + start?, range.start + end?))
    }

    /// `tokenizers`' `word_to_chars` over `offsets` (this encoding's, or the same converted to
    /// chars or UTF-16 units): the start of the word's first token and the end of its last.
    pub fn word_to_offsets<O: Span>(&self, word: u32, sequence_id: usize, offsets: &[O]) -> Option<(usize, usize)> {
        let (start, end) = self.word_to_tokens(word, sequence_id)?;
        if end == 0 {
            return None;
        }
        Some((offsets.get(start)?.span().0, offsets.get(end - 1)?.span().1))
    }

    /// `tokenizers`' `token_to_word(token)`: `(sequence, word)`.
    pub fn token_to_word(&self, token: usize) -> Option<(usize, u32)> {
        Some((self.token_to_sequence(token)?, (*self.word_ids.get(token)?)?))
    }

    /// `tokenizers`' `token_to_chars(token)` over `offsets`: `(sequence, offsets[token])`.
    pub fn token_to_offsets<O: Span>(&self, token: usize, offsets: &[O]) -> Option<(usize, (usize, usize))> {
        Some((self.token_to_sequence(token)?, offsets.get(token)?.span()))
    }

    /// `tokenizers`' `char_to_token(pos, sequence_id)` over `offsets`: the first token of
    /// sequence `sequence_id` whose range `[start, end)` holds `pos`.
    pub fn offset_to_token<O: Span>(&self, pos: usize, sequence_id: usize, offsets: &[O]) -> Option<usize> {
        let range = self.sequence_range(sequence_id);
        offsets
            .get(range.clone())?
            .iter()
            .position(|o| {
                let (s, e) = o.span();
                pos >= s && pos < e
            })
            .map(|i| range.start + i)
    }

    /// `tokenizers`' `char_to_word(pos, sequence_id)` over `offsets`.
    pub fn offset_to_word<O: Span>(&self, pos: usize, sequence_id: usize, offsets: &[O]) -> Option<u32> {
        Some(self.token_to_word(self.offset_to_token(pos, sequence_id, offsets)?)?.1)
    }

    /// `tokenizers`' `Encoding::pad`: pad to `target` tokens (nothing when already as long),
    /// overflowing encodings included; padding tokens have offsets `(0, 0)`, no word, attention
    /// mask 0 and special-tokens mask 1, and left padding shifts the sequence ranges.
    pub fn pad(&mut self, target: usize, pad_id: u32, pad_type_id: u32, left: bool) {
        for o in &mut self.overflowing {
            o.pad(target, pad_id, pad_type_id, left);
        }
        let n = self.ids.len();
        if n >= target {
            return;
        }
        let k = target - n;
        fn grow<T: Clone>(v: &mut Vec<T>, k: usize, x: T, left: bool) {
            if left {
                v.splice(0..0, std::iter::repeat_n(x, k));
            } else {
                v.extend(std::iter::repeat_n(x, k));
            }
        }
        grow(&mut self.ids, k, pad_id, left);
        grow(&mut self.type_ids, k, pad_type_id, left);
        grow(&mut self.attention_mask, k, 0, left);
        grow(&mut self.special_tokens_mask, k, 1, left);
        grow(&mut self.offsets, k, (0, 0), left);
        grow(&mut self.word_ids, k, None, left);
        if left {
            for (i, _) in &mut self.token_texts {
                *i += k;
            }
            // An empty range stays `0..0`: where it sits is not observable, and `From` can
            // only rebuild it as `0..0` (see `hf_sequence_ranges`).
            for (_, r) in self.sequence_ranges.iter_mut().filter(|(_, r)| !r.is_empty()) {
                *r = r.start + k..r.end + k;
            }
        }
    }

    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Offsets in chars (Unicode scalar values) instead of bytes, for the `text` that was
    /// encoded — what Python's `tokenizers` reports. One pass over the text.
    pub fn char_offsets(&self, text: &str) -> Vec<(usize, usize)> {
        byte_to_char_offsets(text, &self.offsets)
    }

    /// Offsets in UTF-16 code units (JavaScript string indices) for the `text` that was encoded.
    pub fn utf16_offsets(&self, text: &str) -> Vec<(usize, usize)> {
        byte_to_utf16_offsets(text, &self.offsets)
    }

    /// The byte offsets cut into runs of consecutive tokens of one sequence, each given to `f`
    /// with the text it points into: `texts[sequence id]` (a pair's second sequence is offsets
    /// into the second text). Tokens of no sequence (special tokens, padding: offsets `(0, 0)`)
    /// and everything of a single text go with `texts[0]`. How a front end converts a pair's
    /// offsets to its own units, run by run.
    pub fn for_each_sequence_run(&self, texts: &[&str], mut f: impl FnMut(&str, &[(usize, usize)])) {
        let Some(&first) = texts.first() else { return };
        if texts.len() < 2 || self.sequence_ranges.len() < 2 {
            return f(first, &self.offsets);
        }
        let seqs = self.sequence_ids();
        let text_of = |i: usize| texts[seqs[i].unwrap_or(0).min(texts.len() - 1)];
        let mut from = 0;
        while from < seqs.len() {
            let to = (from + 1..seqs.len()).find(|&i| seqs[i] != seqs[from]).unwrap_or(seqs.len());
            f(text_of(from), &self.offsets[from..to]);
            from = to;
        }
    }

    /// [`utf16_offsets`](Self::utf16_offsets) of a pair: each token's in the text of its own
    /// sequence ([`for_each_sequence_run`](Self::for_each_sequence_run)).
    pub fn utf16_offsets_in(&self, texts: &[&str]) -> Vec<(usize, usize)> {
        let mut out = Vec::with_capacity(self.len());
        self.for_each_sequence_run(texts, |text, offsets| out.extend(byte_to_utf16_offsets(text, offsets)));
        out
    }
}

/// A `(start, end)` offset pair as the alignment methods read it (the byte offsets of an
/// [`Encoding`], or char / UTF-16 offsets a binding derived from them, in its own layout).
pub trait Span {
    fn span(&self) -> (usize, usize);
}

impl Span for (usize, usize) {
    fn span(&self) -> (usize, usize) {
        *self
    }
}

impl Span for [i64; 2] {
    fn span(&self) -> (usize, usize) {
        (self[0] as usize, self[1] as usize)
    }
}

/// Convert byte offsets into `text` to char offsets (Unicode scalar values, what Python
/// indexes by). A position inside a char maps to that char's start; positions past the end
/// clamp. Offsets need not be sorted.
pub fn byte_to_char_offsets(text: &str, offsets: &[(usize, usize)]) -> Vec<(usize, usize)> {
    convert_offsets(text, offsets, |_| 1)
}

/// Convert byte offsets into `text` to UTF-16 code-unit offsets (what JavaScript strings index
/// by), with the same rules as [`byte_to_char_offsets`].
pub fn byte_to_utf16_offsets(text: &str, offsets: &[(usize, usize)]) -> Vec<(usize, usize)> {
    convert_offsets(text, offsets, char::len_utf16)
}

/// Map every byte position to the units counted before the char that contains it. Only the
/// text up to the last position named is read: a truncated encoding of a long text names a
/// short prefix of it, and its conversion then costs that prefix, not the text.
fn convert_offsets(text: &str, offsets: &[(usize, usize)], units_of: impl Fn(char) -> usize) -> Vec<(usize, usize)> {
    let full = text.len();
    let mut len = offsets.iter().map(|&(s, e)| s.max(e).min(full)).max().unwrap_or(0);
    while !text.is_char_boundary(len) {
        len += 1;
    }
    let text = &text[..len];
    if text.is_ascii() {
        return offsets.iter().map(|&(s, e)| (s.min(len), e.min(len))).collect();
    }
    let mut index = vec![0u32; len + 1];
    let mut units = 0u32;
    let mut pos = 0usize;
    for ch in text.chars() {
        let w = ch.len_utf8();
        index[pos..pos + w].fill(units);
        pos += w;
        units += units_of(ch) as u32;
    }
    index[len] = units;
    offsets.iter().map(|&(s, e)| (index[s.min(len)] as usize, index[e.min(len)] as usize)).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn char_offsets() {
        let text = "aé😀b";
        let byte = [(0, 1), (1, 3), (3, 7), (7, 8), (0, 0)];
        assert_eq!(super::byte_to_char_offsets(text, &byte), vec![(0, 1), (1, 2), (2, 3), (3, 4), (0, 0)]);
        assert_eq!(super::byte_to_utf16_offsets(text, &byte), vec![(0, 1), (1, 2), (2, 4), (4, 5), (0, 0)]);
        // Inside a char -> its start; past the end -> the end.
        assert_eq!(super::byte_to_utf16_offsets(text, &[(4, 99)]), vec![(2, 5)]);
    }

    /// The conversion reads only a prefix of the text: the same results as a whole-text index,
    /// for offsets anywhere (inside chars, past the end, empty, out of order).
    #[test]
    fn prefix_conversion_equals_the_whole_text_index() {
        fn whole(text: &str, offsets: &[(usize, usize)], units_of: fn(char) -> usize) -> Vec<(usize, usize)> {
            let mut index = vec![0usize; text.len() + 1];
            let (mut pos, mut units) = (0, 0);
            for ch in text.chars() {
                index[pos..pos + ch.len_utf8()].fill(units);
                pos += ch.len_utf8();
                units += units_of(ch);
            }
            index[text.len()] = units;
            offsets.iter().map(|&(s, e)| (index[s.min(text.len())], index[e.min(text.len())])).collect()
        }
        let texts = ["", "abc", "aé😀b", "ascii then é", "é then ascii", "😀😀 x 中文 y \u{10ffff}"];
        let mut seed = 12345u64;
        let mut next = |n: usize| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        for text in texts {
            for _ in 0..300 {
                let k = next(4);
                let offsets: Vec<(usize, usize)> =
                    (0..k).map(|_| (next(text.len() + 3), next(text.len() + 3))).collect();
                assert_eq!(
                    super::byte_to_utf16_offsets(text, &offsets),
                    whole(text, &offsets, char::len_utf16),
                    "{text:?} {offsets:?}"
                );
                assert_eq!(
                    super::byte_to_char_offsets(text, &offsets),
                    whole(text, &offsets, |_| 1),
                    "{text:?} {offsets:?}"
                );
            }
        }
    }
}
