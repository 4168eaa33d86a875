//! The trajectory parse paths agree: on a document that is valid JSON, the one-pass parse
//! (`input::parse_groups`), the lenient parse it falls back on (`lenient::fuzz_parse_groups`, one
//! bad value fails only its own trajectory) and the parse of an already-built JSON value
//! (`groups_from_value`, what the Python and JS front ends use) give the same groups, invalid
//! trajectories and their errors included. On any input none of them panics.
use yieldtok::trajectory::{input, lenient};

/// One input: panics (fails the fuzz run) when the property does not hold.
pub fn check(data: &[u8]) {
    let one_pass = input::parse_groups(data);
    let lenient = lenient::fuzz_parse_groups(data);
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else { return };
    let from_value = input::groups_from_value(&value);
    let show = |r: &Result<_, _>| match r {
        Ok(groups) => format!("{groups:?}"),
        Err(e) => format!("error: {e}"),
    };
    let (one_pass, lenient, from_value) = (show(&one_pass), show(&lenient), show(&from_value));
    assert_eq!(one_pass, lenient, "one-pass vs lenient on {:?}", String::from_utf8_lossy(data));
    assert_eq!(one_pass, from_value, "one-pass vs from a value on {:?}", String::from_utf8_lossy(data));
}
