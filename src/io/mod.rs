//! Infrastructure: the one safe writer, which file a path names, bounded YAML, the shipped prompt
//! templates, the HTTP client of OpenAI-compatible endpoints, the verdict cache, the providers'
//! batch APIs and the replies they return, Ctrl-C, and notes for a person.

pub mod batch;
pub mod cache;
pub mod interrupt;
pub mod llm;
pub mod notes;
pub mod paths;
pub mod price;
pub mod prompts;
pub mod replies;
pub mod write;
pub mod yaml;
