//! Placeholder until the node binding lands; it only proves the workspace builds with it present.
