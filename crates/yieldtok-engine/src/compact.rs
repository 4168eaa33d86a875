//! The compact form of a loaded engine: bytes [`crate::Engine::to_bytes`] writes and
//! [`crate::Engine::from_bytes`] reads back, so that a browser can cache a tokenizer (Cache API,
//! IndexedDB) and build it again without parsing `tokenizer.json` — at most 30 ms for qwen3.
//!
//! Layout (little-endian): a 32-byte header — magic `YTKENGIN`, format version (`u32`), the
//! crate version's hash (`u32`: an image is read only by the engine version that wrote it,
//! whose tables it holds), payload length (`u64`), a 64-bit checksum of the payload — then the
//! payload: the small parts of the file as JSON (`added_tokens`, `normalizer`,
//! `pre_tokenizer`: rebuilt by the same `from_json` as a file load, so they cannot drift), the
//! model ids of the added tokens' contents, and the model's tables in binary (for BPE: the
//! byte-keyed vocabulary, the merge table, the byte ids; [`crate::models::bpe`]). Every read is
//! bounds-checked and every value range-checked: truncated, altered or foreign bytes give
//! [`LoadError::Compact`], never a panic.

use crate::error::LoadError;

pub const MAGIC: &[u8; 8] = b"YTKENGIN";
/// Bumped whenever the payload layout changes.
pub const FORMAT_VERSION: u32 = 1;
const HEADER: usize = 32;

fn bad(what: impl Into<String>) -> LoadError {
    LoadError::Compact(what.into())
}

/// A hash of the crate version (an image from another engine version is refused).
fn engine_version_tag() -> u32 {
    let mut h: u32 = 0x811C_9DC5;
    for &b in env!("CARGO_PKG_VERSION").as_bytes() {
        h = (h ^ b as u32).wrapping_mul(0x0100_0193);
    }
    h
}

/// A 64-bit checksum: per 8-byte word `h = (h ^ w) * K` then a rotation (each step a
/// bijection of `h`, so a change confined to one word always changes the result), the tail
/// and the length mixed in at the end.
pub fn checksum(data: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h: u64 = 0x243F_6A88_85A3_08D3;
    let mut words = data.chunks_exact(8);
    for w in &mut words {
        h = ((h ^ u64::from_le_bytes(w.try_into().unwrap())).wrapping_mul(K)).rotate_left(29);
    }
    let mut tail = [0u8; 8];
    tail[..words.remainder().len()].copy_from_slice(words.remainder());
    h = ((h ^ u64::from_le_bytes(tail)).wrapping_mul(K)).rotate_left(29);
    h ^= data.len() as u64;
    h ^= h >> 31;
    h.wrapping_mul(K) ^ (h >> 29)
}

/// Appends little-endian values to a payload.
#[derive(Default)]
pub struct Writer {
    pub buf: Vec<u8>,
}

impl Writer {
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    pub fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.buf.extend_from_slice(b);
    }
    pub fn u32s(&mut self, v: &[u32]) {
        self.u64(v.len() as u64);
        self.buf.reserve(v.len() * 4);
        for &x in v {
            self.u32(x);
        }
    }

    /// The image: header (with the checksum of the payload) + payload.
    pub fn finish(self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER + self.buf.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&engine_version_tag().to_le_bytes());
        out.extend_from_slice(&(self.buf.len() as u64).to_le_bytes());
        out.extend_from_slice(&checksum(&self.buf).to_le_bytes());
        out.extend_from_slice(&self.buf);
        out
    }
}

/// Reads a payload, every read bounds-checked.
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// Check the header of `image` and return a reader over its payload.
    pub fn open(image: &'a [u8]) -> Result<Reader<'a>, LoadError> {
        if image.len() < HEADER {
            return Err(bad(format!("{} bytes, shorter than the {HEADER}-byte header", image.len())));
        }
        if &image[..8] != MAGIC {
            return Err(bad("not a yieldtok engine image (wrong magic)"));
        }
        let u32_at = |i: usize| u32::from_le_bytes(image[i..i + 4].try_into().unwrap());
        let u64_at = |i: usize| u64::from_le_bytes(image[i..i + 8].try_into().unwrap());
        if u32_at(8) != FORMAT_VERSION {
            return Err(bad(format!("format version {} (this engine reads {FORMAT_VERSION})", u32_at(8))));
        }
        if u32_at(12) != engine_version_tag() {
            return Err(bad(format!("written by another engine version (this is {})", env!("CARGO_PKG_VERSION"))));
        }
        let len = u64_at(16);
        let payload = &image[HEADER..];
        if len != payload.len() as u64 {
            return Err(bad(format!("payload of {} bytes, the header says {len} (truncated?)", payload.len())));
        }
        if checksum(payload) != u64_at(24) {
            return Err(bad("checksum mismatch (corrupt bytes)"));
        }
        Ok(Reader { data: payload, pos: 0 })
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], LoadError> {
        if n > self.data.len() - self.pos {
            return Err(bad(format!("truncated payload at byte {} (wanted {n} more)", self.pos)));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    pub fn u8(&mut self) -> Result<u8, LoadError> {
        Ok(self.take(1)?[0])
    }
    pub fn bool(&mut self) -> Result<bool, LoadError> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(bad(format!("flag {v} at byte {}", self.pos - 1))),
        }
    }
    pub fn u32(&mut self) -> Result<u32, LoadError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    pub fn u64(&mut self) -> Result<u64, LoadError> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
    /// A length for items of `item` bytes each, checked against what is left.
    pub fn len(&mut self, item: usize) -> Result<usize, LoadError> {
        let n = self.u64()?;
        let left = (self.data.len() - self.pos) as u64;
        if n.checked_mul(item.max(1) as u64).is_none_or(|b| b > left) {
            return Err(bad(format!("a length of {n} at byte {} exceeds the payload", self.pos - 8)));
        }
        Ok(n as usize)
    }
    pub fn bytes(&mut self) -> Result<&'a [u8], LoadError> {
        let n = self.len(1)?;
        self.take(n)
    }
    pub fn str(&mut self) -> Result<&'a str, LoadError> {
        std::str::from_utf8(self.bytes()?).map_err(|_| bad("a string that is not UTF-8"))
    }
    /// `u32` values, as a slice of raw little-endian bytes (decode with [`le_u32s`]).
    pub fn u32s(&mut self) -> Result<&'a [u8], LoadError> {
        let n = self.len(4)?;
        self.take(n * 4)
    }
    pub fn end(&self) -> Result<(), LoadError> {
        if self.pos != self.data.len() {
            return Err(bad(format!("{} bytes left over after the payload", self.data.len() - self.pos)));
        }
        Ok(())
    }
}

/// The `u32` values of a slice returned by [`Reader::u32s`].
pub fn le_u32s(b: &[u8]) -> impl ExactSizeIterator<Item = u32> + '_ {
    b.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap()))
}

pub fn corrupt(what: impl Into<String>) -> LoadError {
    bad(what)
}
