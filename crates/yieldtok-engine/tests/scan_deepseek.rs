//! The DeepSeek-V3 scanner (fixture deepseek_v3: three chained Splits) against `tokenizers`'
//! Splits and `fancy-regex`: the corpora, large inputs, a proptest over the troublemaker
//! alphabet, and every short string of one char per class.

mod scan_common;

scanner_tests!("deepseek_v3", "deepseek_v3", scan_common::deep::DEEPSEEK, 5);

fast_path_tests!(DeepSeekV3);

/// The classes the scanner hardcodes: the ASCII punctuation class of the third pattern is
/// every ASCII `\p{P}`/`\p{S}` char, and the second pattern is two code point ranges.
#[test]
fn hardcoded_classes_are_the_patterns() {
    let ascii = fancy_regex::Regex::new(r##"^[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~]$"##).unwrap();
    let ps = fancy_regex::Regex::new(r"^[\p{P}\p{S}]$").unwrap();
    for c in (0u8..128).map(char::from) {
        let s = c.to_string();
        assert_eq!(ascii.is_match(&s).unwrap(), ps.is_match(&s).unwrap(), "{c:?}");
    }
    let cjk =
        fancy_regex::Regex::new(&format!("^(?:{})$", yieldtok_engine::pre_tokenizers::scan::DEEPSEEK_CJK_PATTERN))
            .unwrap();
    for c in (0..0x110000).filter_map(char::from_u32) {
        let want = (0x3040..=0x30FF).contains(&(c as u32)) || (0x4E00..=0x9FA5).contains(&(c as u32));
        assert_eq!(cjk.is_match(&c.to_string()).unwrap(), want, "{c:?}");
    }
}
