//! Pre-tokenizers: cut a normalized segment into pre-tokens (splits), each of which the model
//! tokenizes on its own. Split (string / regex, every behavior), ByteLevel, Metaspace, Digits,
//! Whitespace, WhitespaceSplit, BertPreTokenizer, Punctuation, CharDelimiterSplit, Sequence.

pub mod scan;
