//! Sentence windows: the premises a claim is checked against.
//!
//! A window is one sentence, or up to `max_sentences` adjacent sentences of the same passage.
//! A window never crosses from one passage into the next: joining passages lets half-false
//! claims through (seed 001, "Joining passages lets false claims through").

use crate::model::suite::Passage;
use crate::text::{sentences::split_sentences, tokens::tokenize};
use std::collections::HashSet;

/// The words of a text that say what it is about (normalised, longer than two letters).
pub fn topic_words(text: &str) -> HashSet<String> {
    tokenize(text)
        .into_iter()
        .map(|t| t.norm)
        .filter(|w| w.len() > 2)
        .collect()
}

/// `top_windows: K`: the K windows sharing the most topic words with the claim (ties: the
/// earlier, shorter window), in their original order. All of them when there are K or fewer.
pub fn top_windows(claim: &HashSet<String>, windows: &[HashSet<String>], k: usize) -> Vec<usize> {
    if windows.len() <= k {
        return (0..windows.len()).collect();
    }
    let mut ranked: Vec<(usize, usize)> = windows
        .iter()
        .enumerate()
        .map(|(i, w)| (claim.intersection(w).count(), i))
        .collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut keep: Vec<usize> = ranked.into_iter().take(k).map(|(_, i)| i).collect();
    keep.sort_unstable();
    keep
}

#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    /// Index of the passage in its context set.
    pub passage: usize,
    /// Index of the window's first sentence within the passage.
    pub first: usize,
    /// Number of sentences in the window.
    pub len: usize,
    pub text: String,
    /// For a piece of one sentence too long for a model: the word range it covers
    /// (see [`sentence_parts`]).
    pub part: Option<(usize, usize)>,
}

impl Window {
    /// The window as evidence: a piece of an over-long sentence says which words it holds.
    pub fn evidence_text(&self) -> String {
        match self.part {
            Some((a, b)) => format!(
                "[words {}-{b} of a sentence too long for the model] {}",
                a + 1,
                self.text
            ),
            None => self.text.clone(),
        }
    }
}

/// Overlapping pieces of one over-long sentence, each as long as fits: the largest number of
/// words `w` whose piece `fits`, then pieces of `w` words every `w / 2` words (the last aligned
/// to the end), so any stretch of `w / 2` words is whole in some piece. None when not even one
/// word fits (the claim itself is too long).
pub(crate) fn sentence_parts(
    window: &Window,
    fits: &mut dyn FnMut(&str) -> Result<bool, String>,
) -> Result<Option<Vec<Window>>, String> {
    let words: Vec<&str> = window.text.split_whitespace().collect();
    if words.is_empty() || !fits(words[0])? {
        return Ok(None);
    }
    // binary search the longest prefix that fits
    let (mut lo, mut hi) = (1usize, words.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(&words[..mid].join(" "))? {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let w = lo;
    let stride = (w / 2).max(1);
    let mut starts: Vec<usize> = (0..words.len().saturating_sub(w) + 1)
        .step_by(stride)
        .collect();
    let last = words.len().saturating_sub(w);
    if starts.last() != Some(&last) {
        starts.push(last);
    }
    let mut out = Vec::with_capacity(starts.len());
    for s in starts {
        let e = (s + w).min(words.len());
        let text = words[s..e].join(" ");
        // a piece can tokenise longer than the prefix did: shrink it until it fits
        let mut e2 = e;
        let mut t = text;
        while !fits(&t)? && e2 > s + 1 {
            e2 -= 1;
            t = words[s..e2].join(" ");
        }
        out.push(Window {
            passage: window.passage,
            first: window.first,
            len: 1,
            text: t,
            part: Some((s, e2)),
        });
    }
    Ok(Some(out))
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
    window_spans(sentences.iter().map(Vec::len), max_sentences)
        .map(|(passage, first, len)| Window {
            passage,
            first,
            len,
            text: sentences[passage][first..first + len].join(" "),
            part: None,
        })
        .collect()
}

/// The (passage, first sentence, length) of every window of [`windows_of`], in its order, for
/// passages of `counts` sentences: the windows without their texts.
pub fn window_spans(
    counts: impl Iterator<Item = usize>,
    max_sentences: usize,
) -> impl Iterator<Item = (usize, usize, usize)> {
    counts.enumerate().flat_map(move |(pi, n)| {
        (1..=max_sentences.max(1))
            .flat_map(move |len| (0..n.saturating_sub(len - 1)).map(move |first| (pi, first, len)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_windows_keeps_the_k_windows_sharing_most_words_with_the_claim() {
        let ws: Vec<HashSet<String>> = [
            "Export links expire after days.",
            "Storage is pooled.",
            "Export files are ZIP archives.",
            "Links expire.",
        ]
        .iter()
        .map(|t| topic_words(t))
        .collect();
        let claim = topic_words("Export links expire after 7 days.");
        assert_eq!(top_windows(&claim, &ws, 2), vec![0, 3]);
        assert_eq!(top_windows(&claim, &ws, 1), vec![0]);
        assert_eq!(top_windows(&claim, &ws, 9), vec![0, 1, 2, 3]);
    }

    #[test]
    fn an_over_long_sentence_becomes_overlapping_pieces_that_fit() {
        let text: Vec<String> = (0..25).map(|i| format!("w{i}")).collect();
        let w = Window {
            passage: 0,
            first: 3,
            len: 1,
            text: text.join(" "),
            part: None,
        };
        // a "model" that takes 8 words
        let mut fits = |t: &str| Ok(t.split_whitespace().count() <= 8);
        let parts = sentence_parts(&w, &mut fits).unwrap().unwrap();
        let ranges: Vec<(usize, usize)> = parts.iter().map(|p| p.part.unwrap()).collect();
        assert_eq!(
            ranges,
            vec![(0, 8), (4, 12), (8, 16), (12, 20), (16, 24), (17, 25)]
        );
        assert!(parts.iter().all(|p| p.text.split_whitespace().count() <= 8));
        assert_eq!(parts[1].text, "w4 w5 w6 w7 w8 w9 w10 w11");
        // nothing fits: the claim itself is too long
        let mut none = |_: &str| Ok(false);
        assert_eq!(sentence_parts(&w, &mut none).unwrap(), None);
    }

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
