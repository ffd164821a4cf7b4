//! Infrastructure: the one safe writer, which file a path names, bounded YAML, the shipped prompt
//! templates, the HTTP client of OpenAI-compatible endpoints, Ctrl-C, and notes for a person.

pub mod interrupt;
pub mod llm;
pub mod notes;
pub mod paths;
pub mod prompts;
pub mod write;
pub mod yaml;
