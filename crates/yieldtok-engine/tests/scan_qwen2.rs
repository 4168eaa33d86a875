//! The Qwen2/Qwen3 scanner (fixture qwen3) against `tokenizers`' Split and `fancy-regex`: the
//! corpora, large inputs, a proptest over the troublemaker alphabet, and every short string of
//! one char per class.

mod scan_common;

scanner_tests!("qwen3", "qwen2", scan_common::deep::CL100K, 5);

fast_path_tests!(Cl100k::<1>);
