//! `scanner_for` recognises exactly the patterns it has scanners for: the fixtures' patterns
//! (each scanner test loads its fixture through it), nothing near them.

use yieldtok_engine::pre_tokenizers::scan::*;

#[test]
fn known_patterns_and_nothing_near_them() {
    let name = |p: &[&str]| scanner_for(p).map(|s| s.name());
    assert_eq!(name(&[QWEN2_PATTERN]), Some("qwen2"));
    assert_eq!(name(&[CL100K_PATTERN]), Some("cl100k"));
    assert_eq!(name(&[O200K_PATTERN]), Some("o200k"));
    assert_eq!(name(&[DEEPSEEK_DIGITS_PATTERN, DEEPSEEK_CJK_PATTERN, DEEPSEEK_MAIN_PATTERN]), Some("deepseek_v3"));
    let near = [
        vec![],
        vec![""],
        vec![r"\p{N}{1,3}"],
        vec![DEEPSEEK_MAIN_PATTERN],
        vec![DEEPSEEK_CJK_PATTERN, DEEPSEEK_DIGITS_PATTERN, DEEPSEEK_MAIN_PATTERN],
        vec![DEEPSEEK_DIGITS_PATTERN, DEEPSEEK_CJK_PATTERN],
        vec![QWEN2_PATTERN, QWEN2_PATTERN],
    ];
    for p in &near {
        assert_eq!(name(p), None, "{p:?}");
    }
    let variants = [
        format!("{QWEN2_PATTERN} "),
        QWEN2_PATTERN.replace("(?i:", "(?:"),
        CL100K_PATTERN.replace(r"\p{N}{1,3}", r"\p{N}{1,2}"),
        O200K_PATTERN.replace(r"[\r\n/]*", r"[\r\n]*"),
    ];
    for v in &variants {
        assert_eq!(name(&[v.as_str()]), None, "{v:?}");
    }
    // The same regex with `\r` escaped instead of literal: a different string, not recognised.
    let escaped = DEEPSEEK_MAIN_PATTERN.replace('\r', r"\r");
    assert_eq!(name(&[DEEPSEEK_DIGITS_PATTERN, DEEPSEEK_CJK_PATTERN, &escaped]), None);
}

#[test]
fn empty_text_has_no_pre_tokens() {
    for p in [
        &[QWEN2_PATTERN][..],
        &[CL100K_PATTERN],
        &[O200K_PATTERN],
        &[DEEPSEEK_DIGITS_PATTERN, DEEPSEEK_CJK_PATTERN, DEEPSEEK_MAIN_PATTERN],
    ] {
        let mut ends = vec![7];
        scanner_for(p).unwrap().scan("", &mut ends);
        assert_eq!(ends, [7], "{p:?}");
    }
}
