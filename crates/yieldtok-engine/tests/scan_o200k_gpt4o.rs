//! The o200k scanner (fixture gpt4o, whose Split is `Removed` with `invert`: the same tiling)
//! against `tokenizers`' Split and `fancy-regex`: the corpora, large inputs, a proptest over the
//! troublemaker alphabet. (The enumerations against `fancy-regex` alone, the same scanner and
//! pattern, run in `scan_o200k_gptoss.rs`.)

mod scan_common;

scanner_tests!("gpt4o", "o200k");
