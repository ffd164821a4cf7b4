//! `faithprobe review`: a person decides about mutants, rewrites and snapshot changes one at a
//! time.
//!
//! [`Walk`] is the state of a review of mutants and rewrites: the items pending when it started,
//! where it stands, and an undo history. Every decision is written to the suite's side file
//! ([`crate::model::suite::side`]) before the next item is shown, so a quit, a crash or a kill loses
//! nothing, and the next walk resumes after the last decision (`walk.rs`). [`screen`] renders one
//! item as text (the terminal shows it; tests snapshot it; `screen.rs`), with the word diff and
//! the nearest passage sentences of `diff.rs`. [`snapshots`] walks snapshot changes verdict by
//! verdict; [`terminal`] reads keys from a terminal.

pub mod claims;
mod diff;
mod screen;
pub mod snapshots;
pub mod terminal;
mod walk;

pub use diff::{nearest_sentences, word_diff};
pub use screen::{keys_line, screen, CheckerView, HELP};
pub use walk::{pending, ItemRef, Pending, Progress, Undo, Walk};
