//! Text helpers shared by the mutators, the sentence windows, the checkers and the reporters, one
//! concept per file: sentence splitting, word tokens with light stemming, number reading, word
//! search, output escaping, shell quoting and hashing.

pub mod escape;
pub mod hash;
pub mod numbers;
pub mod sentences;
pub mod shell;
pub mod tokens;
pub mod words;
