//! libFuzzer entry point of [`yieldtok_fuzz::targets::trajectory_parse`] (the property is documented there).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| yieldtok_fuzz::targets::trajectory_parse::check(data));
