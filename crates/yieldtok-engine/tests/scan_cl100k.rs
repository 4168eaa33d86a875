//! The Llama 3 (cl100k-style) scanner (fixture llama3_1) against `tokenizers`' Split and
//! `fancy-regex`: the corpora, large inputs, a proptest over the troublemaker alphabet, and
//! every short string of one char per class.

mod scan_common;

scanner_tests!("llama3_1", "cl100k", scan_common::deep::CL100K, 5);

/// The ASCII fast path against the scalar scanner around block edges, and against both
/// oracles on long ASCII-heavy texts.
mod fast_path {
    use super::scan_common;
    use proptest::prelude::*;
    use yieldtok_engine::pre_tokenizers::scan::{Cl100k, Scanner};

    #[test]
    fn block_edges_equal_the_scalar_scanner() {
        let (mut fast, mut scalar) = (Vec::new(), Vec::new());
        scan_common::block_edges(|text| {
            fast.clear();
            scalar.clear();
            Cl100k::<3>.scan(text, &mut fast);
            Cl100k::<3>.scan_scalar(text, &mut scalar);
            assert_eq!(fast, scalar, "{text:?}");
        });
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..scan_common::proptest_config() })]
        #[test]
        fn long_ascii_texts(text in scan_common::ascii_text(160)) {
            super::SUBJECT.check("ascii proptest", &text, true);
        }
    }
}
