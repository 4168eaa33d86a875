//! Placeholder until the wasm binding lands; it only proves the workspace builds with it present.
