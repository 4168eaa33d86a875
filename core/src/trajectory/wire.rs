//! The byte form of a [`TokenizedResult`]: what pickling (Python's `__reduce__`), Ray's object
//! store and a `datasets` cache carry between processes.
//!
//! Little-endian, deterministic (the same result always gives the same bytes, so `datasets`'
//! fingerprints are stable), versioned by an 8-byte header (`YTKRES`, a reserved byte, the
//! format version). Floats travel as their bit patterns, so NaN logprobs and `-inf` come back
//! bit for bit. Reading never trusts the bytes: every length is checked against what is left
//! before anything is allocated, strings are validated as UTF-8, nothing may be left over.

use super::result::TokenizedResult;

const MAGIC: &[u8; 6] = b"YTKRES";
const VERSION: u8 = 1;

/// Why bytes are not a [`TokenizedResult`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// Not the byte form of a result (wrong header).
    #[error("not a yieldtok TokenizedResult (bad header)")]
    BadMagic,
    /// Written by another format version of this crate.
    #[error("TokenizedResult bytes of format version {0}, this build reads version {VERSION}")]
    Version(u8),
    /// The bytes end inside `field`.
    #[error("TokenizedResult bytes end inside {0}")]
    Truncated(&'static str),
    /// `field` holds a value no result has (text that is not UTF-8, a length beyond the input).
    #[error("TokenizedResult bytes hold an invalid {0}")]
    Invalid(&'static str),
    /// Bytes follow the last field.
    #[error("TokenizedResult bytes have {0} trailing bytes")]
    Trailing(usize),
}

impl TokenizedResult {
    /// The byte form (see the module docs); [`TokenizedResult::from_bytes`] reads it back.
    pub fn to_bytes(&self) -> Vec<u8> {
        let n = self.token_ids.len();
        let extra: usize = self.extra_logprobs.iter().map(|(k, v)| 16 + k.len() + 8 * v.len()).sum();
        let mut w = Vec::with_capacity(96 + 17 * n + 8 * self.choice_offsets.len() + extra + self.chat.len());
        w.extend_from_slice(MAGIC);
        w.push(0);
        w.push(VERSION);
        put_len(&mut w, self.token_ids.len());
        self.token_ids.iter().for_each(|v| w.extend_from_slice(&v.to_le_bytes()));
        put_len(&mut w, self.assistant_mask.len());
        w.extend_from_slice(&self.assistant_mask);
        put_f64s(&mut w, &self.logprobs);
        put_len(&mut w, self.input_pos.len());
        self.input_pos.iter().for_each(|v| w.extend_from_slice(&v.to_le_bytes()));
        put_len(&mut w, self.choice_offsets.len());
        self.choice_offsets.iter().for_each(|&v| put_len(&mut w, v));
        put_len(&mut w, self.extra_logprobs.len());
        for (name, values) in &self.extra_logprobs {
            put_str(&mut w, name);
            put_f64s(&mut w, values);
        }
        w.extend_from_slice(&self.advantage.to_bits().to_le_bytes());
        w.extend_from_slice(&self.weight.to_bits().to_le_bytes());
        w.extend_from_slice(&self.prompt_id.to_le_bytes());
        put_len(&mut w, self.prompt_length);
        put_str(&mut w, &self.chat);
        put_len(&mut w, self.group_index);
        put_len(&mut w, self.trajectory_index);
        put_len(&mut w, self.history_index);
        w
    }

    /// Reads the byte form written by [`TokenizedResult::to_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<TokenizedResult, WireError> {
        let mut r = Reader(bytes);
        let header = r.take(8, "header").map_err(|_| WireError::BadMagic)?;
        if &header[..6] != MAGIC {
            return Err(WireError::BadMagic);
        }
        if header[7] != VERSION {
            return Err(WireError::Version(header[7]));
        }
        let token_ids = r.u32s("token_ids")?;
        let n = r.len(1, "assistant_mask")?;
        let assistant_mask = r.take(n, "assistant_mask")?.to_vec();
        let logprobs = r.f64s("logprobs")?;
        let input_pos = r.u32s("input_pos")?;
        let n = r.len(8, "choice_offsets")?;
        let choice_offsets = (0..n).map(|_| r.usize("choice_offsets")).collect::<Result<_, _>>()?;
        let n = r.len(16, "extra_logprobs")?;
        let mut extra_logprobs = Vec::with_capacity(n);
        for _ in 0..n {
            extra_logprobs.push((r.string("extra_logprobs name")?, r.f64s("extra_logprobs")?));
        }
        let advantage = f64::from_bits(r.u64("advantage")?);
        let weight = f64::from_bits(r.u64("weight")?);
        let prompt_id = r.u64("prompt_id")? as i64;
        let prompt_length = r.usize("prompt_length")?;
        let chat = r.string("chat")?;
        let group_index = r.usize("group_index")?;
        let trajectory_index = r.usize("trajectory_index")?;
        let history_index = r.usize("history_index")?;
        if !r.0.is_empty() {
            return Err(WireError::Trailing(r.0.len()));
        }
        Ok(TokenizedResult {
            token_ids,
            assistant_mask,
            logprobs,
            input_pos,
            choice_offsets,
            extra_logprobs,
            advantage,
            weight,
            prompt_id,
            prompt_length,
            chat,
            group_index,
            trajectory_index,
            history_index,
        })
    }
}

fn put_len(w: &mut Vec<u8>, n: usize) {
    w.extend_from_slice(&(n as u64).to_le_bytes());
}

fn put_str(w: &mut Vec<u8>, s: &str) {
    put_len(w, s.len());
    w.extend_from_slice(s.as_bytes());
}

fn put_f64s(w: &mut Vec<u8>, values: &[f64]) {
    put_len(w, values.len());
    values.iter().for_each(|v| w.extend_from_slice(&v.to_bits().to_le_bytes()));
}

/// A bounds-checked cursor over the bytes.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, field: &'static str) -> Result<&'a [u8], WireError> {
        if n > self.0.len() {
            return Err(WireError::Truncated(field));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn u64(&mut self, field: &'static str) -> Result<u64, WireError> {
        Ok(u64::from_le_bytes(self.take(8, field)?.try_into().expect("8 bytes")))
    }

    fn usize(&mut self, field: &'static str) -> Result<usize, WireError> {
        usize::try_from(self.u64(field)?).map_err(|_| WireError::Invalid(field))
    }

    /// A count of items of `item` bytes each, checked against the bytes left.
    fn len(&mut self, item: usize, field: &'static str) -> Result<usize, WireError> {
        let n = self.usize(field)?;
        match n.checked_mul(item) {
            Some(bytes) if bytes <= self.0.len() => Ok(n),
            _ => Err(WireError::Truncated(field)),
        }
    }

    fn u32s(&mut self, field: &'static str) -> Result<Vec<u32>, WireError> {
        let n = self.len(4, field)?;
        let bytes = self.take(4 * n, field)?;
        Ok(bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes"))).collect())
    }

    fn f64s(&mut self, field: &'static str) -> Result<Vec<f64>, WireError> {
        let n = self.len(8, field)?;
        let bytes = self.take(8 * n, field)?;
        Ok(bytes.chunks_exact(8).map(|c| f64::from_bits(u64::from_le_bytes(c.try_into().expect("8 bytes")))).collect())
    }

    fn string(&mut self, field: &'static str) -> Result<String, WireError> {
        let n = self.len(1, field)?;
        let bytes = self.take(n, field)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| WireError::Invalid(field))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> TokenizedResult {
        TokenizedResult {
            token_ids: vec![1, 2, 3, u32::MAX],
            assistant_mask: vec![0, 0, 1, 1],
            logprobs: vec![f64::NAN, f64::NEG_INFINITY, -0.5, -0.0],
            input_pos: vec![0, 1, 2, 3],
            choice_offsets: vec![2],
            extra_logprobs: vec![("ref".into(), vec![f64::NAN, 1.0, -2.0, 3.5]), ("é".into(), vec![])],
            advantage: -1.25,
            weight: 0.5,
            prompt_id: -7,
            prompt_length: 2,
            chat: "<|im_start|>user\nhé 🙂<|im_end|>\n".into(),
            group_index: 3,
            trajectory_index: 1,
            history_index: 2,
        }
    }

    fn same(a: &TokenizedResult, b: &TokenizedResult) -> bool {
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        a.token_ids == b.token_ids
            && a.assistant_mask == b.assistant_mask
            && bits(&a.logprobs) == bits(&b.logprobs)
            && a.input_pos == b.input_pos
            && a.choice_offsets == b.choice_offsets
            && a.extra_logprobs.len() == b.extra_logprobs.len()
            && a.extra_logprobs
                .iter()
                .zip(&b.extra_logprobs)
                .all(|((ka, va), (kb, vb))| ka == kb && bits(va) == bits(vb))
            && a.advantage.to_bits() == b.advantage.to_bits()
            && a.weight.to_bits() == b.weight.to_bits()
            && (a.prompt_id, a.prompt_length, &a.chat) == (b.prompt_id, b.prompt_length, &b.chat)
            && (a.group_index, a.trajectory_index, a.history_index)
                == (b.group_index, b.trajectory_index, b.history_index)
    }

    #[test]
    fn round_trip_is_bit_exact_and_deterministic() {
        let r = sample();
        let bytes = r.to_bytes();
        assert_eq!(bytes, sample().to_bytes());
        assert!(same(&TokenizedResult::from_bytes(&bytes).unwrap(), &r));
        let p = r.without_prompt();
        assert!(same(&TokenizedResult::from_bytes(&p.to_bytes()).unwrap(), &p));
    }

    #[test]
    fn every_truncation_and_bad_header_is_refused() {
        let bytes = sample().to_bytes();
        for cut in 0..bytes.len() {
            assert!(TokenizedResult::from_bytes(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut extra = bytes.clone();
        extra.push(0);
        assert_eq!(TokenizedResult::from_bytes(&extra).unwrap_err(), WireError::Trailing(1));
        let mut other = bytes.clone();
        other[7] = VERSION + 1;
        assert_eq!(TokenizedResult::from_bytes(&other).unwrap_err(), WireError::Version(VERSION + 1));
        assert_eq!(TokenizedResult::from_bytes(b"not a result at all").unwrap_err(), WireError::BadMagic);
    }

    #[test]
    fn huge_lengths_do_not_allocate() {
        let mut bytes = sample().to_bytes();
        bytes[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(TokenizedResult::from_bytes(&bytes).unwrap_err(), WireError::Truncated("token_ids"));
        let mut bad_utf8 = sample().to_bytes();
        let at = bad_utf8.windows(3).position(|w| w == "hé".as_bytes()).unwrap() + 1;
        bad_utf8[at] = 0xff;
        assert_eq!(TokenizedResult::from_bytes(&bad_utf8).unwrap_err(), WireError::Invalid("chat"));
    }
}
