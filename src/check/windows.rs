//! Sentence windows: the premises a claim is checked against.
//!
//! A window is one sentence, or up to `max_sentences` adjacent sentences of the same passage.
//! A window never crosses from one passage into the next: joining passages lets half-false
//! claims through (seed 001, "Joining passages lets false claims through").

use crate::suite::Passage;
use crate::text::split_sentences;

#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    /// Index of the passage in its context set.
    pub passage: usize,
    /// Index of the window's first sentence within the passage.
    pub first: usize,
    /// Number of sentences in the window.
    pub len: usize,
    pub text: String,
}

/// The sentences of each passage.
pub fn passage_sentences(passages: &[Passage]) -> Vec<Vec<String>> {
    passages
        .iter()
        .map(|p| {
            split_sentences(&p.text)
                .into_iter()
                .map(str::to_string)
                .collect()
        })
        .collect()
}

/// Every window of 1..=`max_sentences` adjacent sentences, passage by passage, shortest first.
pub fn windows(passages: &[Passage], max_sentences: usize) -> Vec<Window> {
    windows_of(&passage_sentences(passages), max_sentences)
}

/// [`windows`] over passages already split into sentences.
pub fn windows_of(sentences: &[Vec<String>], max_sentences: usize) -> Vec<Window> {
    let mut out = Vec::new();
    for (pi, sents) in sentences.iter().enumerate() {
        for len in 1..=max_sentences.max(1) {
            for first in 0..sents.len().saturating_sub(len - 1) {
                out.push(Window {
                    passage: pi,
                    first,
                    len,
                    text: sents[first..first + len].join(" "),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(id: &str, text: &str) -> Passage {
        Passage {
            id: id.into(),
            text: text.into(),
        }
    }

    #[test]
    fn windows_are_single_sentences_and_adjacent_pairs_within_one_passage() {
        let ps = [p("a", "One. Two. Three."), p("b", "Four.")];
        let w = windows(&ps, 2);
        let texts: Vec<_> = w.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(
            texts,
            vec![
                "One.",
                "Two.",
                "Three.",
                "One. Two.",
                "Two. Three.",
                "Four."
            ]
        );
        // never across passages: the last window is passage b's alone
        let passages: Vec<usize> = w.iter().map(|w| w.passage).collect();
        assert_eq!(passages, vec![0, 0, 0, 0, 0, 1]);
    }
}
