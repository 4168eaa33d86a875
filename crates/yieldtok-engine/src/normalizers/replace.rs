//! `Replace`: every match of a literal or a `fancy-regex` pattern replaced by a fixed string;
//! the new chars align with the last char of the match (`tokenizers`' `NormalizedString::replace`).

use super::{parse, Normalize};
use crate::error::{EncodeError, LoadError};
use crate::normalized::{find_matches_regex, find_matches_str, Normalized};

/// What `Replace` looks for.
enum Pattern {
    /// A non-empty literal.
    Literal(Box<memchr::memmem::Finder<'static>>),
    /// A regex (or the empty literal, which matches everywhere, as its escaped regex does).
    Regex(Box<fancy_regex::Regex>),
}

/// `tokenizers`' `Replace` normalizer.
pub struct Replace {
    pattern: Pattern,
    content: String,
}

#[derive(serde::Deserialize)]
enum PatternJson {
    String(String),
    Regex(String),
}

#[derive(serde::Deserialize)]
struct ReplaceJson {
    pattern: PatternJson,
    content: String,
}

impl Replace {
    /// Replace a literal string.
    pub fn literal(pattern: &str, content: &str) -> Result<Self, LoadError> {
        let pattern = if pattern.is_empty() {
            Pattern::Regex(Box::new(regex("")?))
        } else {
            Pattern::Literal(Box::new(memchr::memmem::Finder::new(pattern.as_bytes()).into_owned()))
        };
        Ok(Replace { pattern, content: content.to_owned() })
    }

    /// Replace the matches of a regex (`fancy-regex` syntax, as `tokenizers` builds it).
    pub fn regex(pattern: &str, content: &str) -> Result<Self, LoadError> {
        Ok(Replace { pattern: Pattern::Regex(Box::new(regex(pattern)?)), content: content.to_owned() })
    }

    pub(crate) fn from_json(v: &serde_json::Value) -> Result<Self, LoadError> {
        let j: ReplaceJson = parse(v)?;
        match j.pattern {
            PatternJson::String(s) => Self::literal(&s, &j.content),
            PatternJson::Regex(r) => Self::regex(&r, &j.content),
        }
    }
}

fn regex(pattern: &str) -> Result<fancy_regex::Regex, LoadError> {
    fancy_regex::Regex::new(pattern).map_err(|e| LoadError::Unsupported(format!("Replace pattern {pattern:?}: {e}")))
}

impl Normalize for Replace {
    fn normalize(&self, n: &mut Normalized) -> Result<(), EncodeError> {
        if self.is_identity_on(n.get()) {
            return Ok(());
        }
        let matches = match &self.pattern {
            Pattern::Literal(f) => {
                if f.find(n.get().as_bytes()).is_none() {
                    return Ok(());
                }
                find_matches_str(n.get(), f)
            }
            Pattern::Regex(re) => find_matches_regex(n.get(), re),
        };
        n.replace_matches(&matches, &self.content);
        Ok(())
    }

    /// No match, or every match is one char that the content repeats (`\p{Zs}` → `" "` on
    /// plain spaces): such a replacement keeps the text and each char's own alignment.
    fn is_identity_on(&self, text: &str) -> bool {
        let keeps = |m: &str| m == self.content && m.chars().nth(1).is_none();
        match &self.pattern {
            Pattern::Literal(f) => {
                keeps(std::str::from_utf8(f.needle()).unwrap_or("")) || f.find(text.as_bytes()).is_none()
            }
            Pattern::Regex(re) => {
                text.is_empty()
                    || re.find_iter(text).all(|m| m.is_ok_and(|m| !m.as_str().is_empty() && keeps(m.as_str())))
            }
        }
    }
}
