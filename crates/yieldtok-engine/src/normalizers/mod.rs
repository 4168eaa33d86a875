//! Normalizers: NFC, NFD, NFKC, NFKD, Replace, Prepend, Lowercase, Strip, StripAccents,
//! BertNormalizer, Precompiled, ByteLevel, Sequence — each a transform of a
//! [`Normalized`](crate::normalized::Normalized) string with `tokenizers`' exact alignments.
