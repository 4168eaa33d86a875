//! The Qwen2/Qwen3 scanner (fixture qwen3) against `tokenizers`' Split and `fancy-regex`: the
//! corpora, a proptest over the troublemaker alphabet, and every short string of one char per
//! class.

mod scan_common;

use proptest::prelude::*;
use scan_common::{Subject, ATOMS, SMALL};
use std::sync::LazyLock;

static QWEN: LazyLock<Subject> = LazyLock::new(|| Subject::load("qwen3", "qwen2"));

#[test]
fn corpora() {
    for (label, text) in scan_common::corpus() {
        QWEN.check(&label, &text, true);
    }
}

#[test]
fn large_inputs() {
    for (label, text) in scan_common::large() {
        QWEN.check(&label, &text, true);
    }
}

#[test]
fn every_short_string() {
    scan_common::enumerate(SMALL, 4, |s| QWEN.check_regex(s));
    scan_common::enumerate(ATOMS, 2, |s| QWEN.check_regex(s));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]
    #[test]
    fn troublemakers(text in scan_common::trouble_text(24)) {
        QWEN.check("proptest", &text, true);
    }
}
