//! Placeholder until the py binding lands; it only proves the workspace builds with it present.
