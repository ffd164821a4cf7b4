//! Reports of scored answers: per answer, every claim with its verdict and evidence; across
//! answers, micro and macro faithfulness and the unsupported-answer rate under each definition.
//! One file per format (`human.rs`, `markdown.rs`, `html.rs`), the comparison of two scorings
//! (`compare.rs`), the streamed documents `score` writes (`document.rs`); this file holds what
//! they share.

pub mod compare;
pub mod document;
pub mod html;
pub mod human;
pub mod markdown;

use crate::answers::score::ScoreRecord;
use crate::stats::agreement::Estimate;

fn opt(x: Option<f64>) -> String {
    x.map(|v| format!("{v:.2}")).unwrap_or_else(|| "-".into())
}

/// What every score report opens with.
pub struct AnswerHead<'a> {
    pub log: &'a str,
    pub checker: &'a str,
    pub decomposer: &'a str,
    pub shard: Option<crate::model::shard::Shard>,
}

impl<'a> AnswerHead<'a> {
    pub fn of(r: &'a ScoreRecord) -> AnswerHead<'a> {
        AnswerHead {
            log: &r.log,
            checker: &r.checker,
            decomposer: &r.decomposer,
            shard: r.shard,
        }
    }
    fn line(&self) -> String {
        format!(
            "checker {} · decomposer {}{}",
            self.checker,
            self.decomposer,
            self.shard
                .map(|s| format!(
                    " · shard {s} (a part of the log: merge the shards with `faithprobe merge`)"
                ))
                .unwrap_or_default()
        )
    }
}

/// Evidence on one line: whitespace runs folded to one space, cut at 200 characters.
pub(crate) fn one_line(s: &str) -> String {
    let folded =
        crate::text::escape::printable(&s.split_whitespace().collect::<Vec<_>>().join(" "));
    match folded.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &folded[..i]),
        None => folded,
    }
}

fn fmt_est(e: &Estimate) -> String {
    format!(
        "{} {}",
        super::fmt_rate(e.value),
        super::fmt_ci(e.ci_low, e.ci_high)
    )
}

/// The longest tag wider than a tag column may grow before tags are cut.
const MAX_TAG_WIDTH: usize = 40;

/// The width of a tag column: the longest tag (at least `least`, at most [`MAX_TAG_WIDTH`]).
fn tag_width<'a>(tags: impl Iterator<Item = &'a str>, least: usize) -> usize {
    tags.map(|t| one_line(t).chars().count())
        .max()
        .unwrap_or(0)
        .clamp(least, MAX_TAG_WIDTH)
}

/// A tag on one line, cut with an ellipsis when it is wider than `width`.
fn tag_cell(tag: &str, width: usize) -> String {
    let t = one_line(tag);
    if t.chars().count() <= width {
        t
    } else {
        t.chars().take(width - 1).collect::<String>() + "…"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_tags_keep_the_columns_in_line() {
        let tags = [
            "gpt-4o/prompt-v7",
            "meta-llama/Llama-3.1-70B-Instruct/prompt-v12-with-context",
        ];
        let w = tag_width(tags.iter().copied(), 28);
        assert_eq!(w, MAX_TAG_WIDTH);
        let cells: Vec<String> = tags
            .iter()
            .map(|t| format!("{:<w$}|", tag_cell(t, w)))
            .collect();
        // every cell ends at the same column, the long one cut with an ellipsis
        assert!(
            cells.iter().all(|c| c.chars().count() == w + 1),
            "{cells:?}"
        );
        assert!(cells[1].contains('…'));
        assert_eq!(tag_width(["a"].iter().copied(), 28), 28);
    }
}
