//! The o200k scanner (fixture gptoss) against `tokenizers`' Split and `fancy-regex`: the corpora,
//! large inputs, a proptest over the troublemaker alphabet, and every short string of one char
//! per class.

mod scan_common;

scanner_tests!("gptoss", "o200k", scan_common::deep::O200K, 6);

fast_path_tests!(O200k);
