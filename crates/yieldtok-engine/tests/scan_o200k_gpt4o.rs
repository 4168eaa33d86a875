//! The o200k scanner (fixture gpt4o, whose Split is `Removed` with `invert`: the same tiling)
//! against `tokenizers`' Split and `fancy-regex`: the corpora, large inputs, a proptest over the
//! troublemaker alphabet, and every short string of one char per class.

mod scan_common;

scanner_tests!("gpt4o", "o200k");
