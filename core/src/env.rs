//! Reading a limit from the environment (`YIELDTOK_MAX_FILE_BYTES`, `YIELDTOK_MAX_ID_HOLES`;
//! every variable is listed in `docs/environment.md`). A module of its own so that what reads
//! a limit (`load`, `engine`) does not import the other.

/// A limit set by the environment variable `name` (a whole number, read at each call), or
/// `default` when it is unset or not a number.
pub(crate) fn env_limit(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.trim().parse::<u64>().ok()).unwrap_or(default)
}
