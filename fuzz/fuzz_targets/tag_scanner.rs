//! libFuzzer entry point of [`yieldtok_fuzz::targets::tag_scanner`] (the property is documented there).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| yieldtok_fuzz::targets::tag_scanner::check(data));
