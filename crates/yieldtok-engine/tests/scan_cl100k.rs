//! The Llama 3 (cl100k-style) scanner (fixture llama3_1) against `tokenizers`' Split and
//! `fancy-regex`: the corpora, large inputs, a proptest over the troublemaker alphabet, and
//! every short string of one char per class.

mod scan_common;

scanner_tests!("llama3_1", "cl100k", scan_common::deep::CL100K, 5);

fast_path_tests!(Cl100k::<3>);
