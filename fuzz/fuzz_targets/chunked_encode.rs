//! libFuzzer entry point of [`yieldtok_fuzz::targets::chunked_encode`] (the property is
//! documented there). The six tokenizers load before the first input.
#![no_main]

libfuzzer_sys::fuzz_target!(init: yieldtok_fuzz::targets::chunked_encode::init(), |data: &[u8]| {
    yieldtok_fuzz::targets::chunked_encode::check(data)
});
