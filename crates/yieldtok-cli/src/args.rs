//! A tiny argument parser: `--flag`, `--key value`, positionals. Enough for this CLI without a
//! parser dependency.

use std::collections::HashMap;

pub struct Args {
    pub positional: Vec<String>,
    options: HashMap<String, Option<String>>,
}

impl Args {
    /// Parse `argv`; `flags` are the options that take no value.
    pub fn parse(argv: impl IntoIterator<Item = String>, flags: &[&str]) -> Result<Self, String> {
        let mut positional = Vec::new();
        let mut options = HashMap::new();
        let mut it = argv.into_iter();
        while let Some(a) = it.next() {
            if let Some(name) = a.strip_prefix("--") {
                if let Some((k, v)) = name.split_once('=') {
                    options.insert(k.to_string(), Some(v.to_string()));
                } else if flags.contains(&name) {
                    options.insert(name.to_string(), None);
                } else {
                    let v = it.next().ok_or_else(|| format!("--{name} needs a value"))?;
                    options.insert(name.to_string(), Some(v));
                }
            } else {
                positional.push(a);
            }
        }
        Ok(Args { positional, options })
    }

    pub fn flag(&self, name: &str) -> bool {
        self.options.contains_key(name)
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.options.get(name).and_then(|v| v.as_deref())
    }

    pub fn num<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T, String> {
        match self.get(name) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| format!("--{name}: {v:?} is not a number")),
        }
    }
}
