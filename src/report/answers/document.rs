//! The documents `score` writes, streamed from the spool so a log of any size is written in
//! bounded memory: the JSON document (summary, then every answer), the human and Markdown
//! reports (summary, the omissions queue, then the worst answers or all of them), and the
//! self-contained HTML page. Every writer takes any `Write`: stdout, a file, a test's buffer.

use super::html::{html_answer, html_head, HTML_END};
use super::human::{human_answer, human_queue, human_summary};
use super::markdown::{markdown_answer_row, markdown_summary, MARKDOWN_ANSWERS_HEAD};
use super::AnswerHead;
use crate::answers::pipeline::Omissions;
use crate::answers::score::{AnswerResult, Definition, ScoreRecord};
use crate::answers::tally::{ScoreSummary, Tally};
use crate::error::Result;
use crate::report::Paint;
use std::io::Write;

/// Which answers the human and Markdown reports list after the summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Show {
    /// The worst answers (errors, then the lowest share of supported claims).
    Worst,
    /// Every answer, in log order.
    All,
    /// The summary only.
    None,
}

/// What the writers read: the record's head, the summary, the tally (for the worst answers) and
/// the answers in log order.
pub struct Document<'a> {
    pub head: &'a ScoreRecord,
    pub summary: &'a ScoreSummary,
    pub tally: &'a mut Tally,
    pub queue: &'a [Omissions],
    /// The first definition: the one answers are judged by in the listings.
    pub main: Definition,
    pub confidence: f64,
}

type Answers<'b> = Box<dyn Iterator<Item = Result<AnswerResult>> + 'b>;

/// The JSON document: the summary object, then every answer, one JSON value per line's worth.
pub fn write_json(
    out: &mut dyn Write,
    d: &Document<'_>,
    answers: Answers<'_>,
) -> Result<(), std::io::Error> {
    let lead = serde_json::json!({
        "log": d.head.log, "checker": d.head.checker, "decomposer": d.head.decomposer,
        "shard": d.head.shard, "summary": d.summary.definitions, "by_tag": d.summary.by_tag,
        "labels": d.summary.labels, "without_passages": d.summary.without_passages,
    })
    .to_string();
    out.write_all(&lead.as_bytes()[..lead.len() - 1])?;
    out.write_all(b",\"answers\":[")?;
    for (i, a) in answers.enumerate() {
        let a = a.map_err(std::io::Error::other)?;
        if i > 0 {
            out.write_all(b",")?;
        }
        serde_json::to_writer(&mut *out, &a)?;
    }
    out.write_all(b"]}\n")
}

/// The human report: the summary, the omissions queue, then the answers `show` asks for.
pub fn write_human(
    out: &mut dyn Write,
    d: &mut Document<'_>,
    show: Show,
    paint: Paint,
    answers: Answers<'_>,
) -> Result<(), std::io::Error> {
    let rhead = AnswerHead::of(d.head);
    out.write_all(human_summary(&rhead, d.summary, d.confidence, paint).as_bytes())?;
    if !d.queue.is_empty() {
        out.write_all(human_queue(d.queue, paint).as_bytes())?;
    }
    match show {
        Show::All => {
            for a in answers {
                let a = a.map_err(std::io::Error::other)?;
                out.write_all(human_answer(&a, d.main, paint).as_bytes())?;
            }
        }
        Show::Worst => {
            let worst = d.tally.worst();
            let bad = d.summary.definitions[0].unsupported_answers.k as usize
                + d.summary.definitions[0].errors;
            if !worst.is_empty() {
                writeln!(
                    out,
                    "\n{}",
                    paint.head(&format!(
                        "The {} worst of {bad} answers not faithful ({}) or not scored; --show all lists every answer",
                        worst.len(),
                        d.main.as_str()
                    ))
                )?;
            }
            for a in &worst {
                out.write_all(human_answer(a, d.main, paint).as_bytes())?;
            }
        }
        Show::None => {}
    }
    Ok(())
}

/// The Markdown report: the summary, then the answers `show` asks for as one table.
pub fn write_markdown(
    out: &mut dyn Write,
    d: &mut Document<'_>,
    show: Show,
    answers: Answers<'_>,
) -> Result<(), std::io::Error> {
    out.write_all(markdown_summary(&AnswerHead::of(d.head), d.summary).as_bytes())?;
    let rows: Answers<'_> = match show {
        Show::All => answers,
        Show::Worst => Box::new(d.tally.worst().into_iter().map(Ok)),
        Show::None => Box::new(std::iter::empty()),
    };
    let mut first = true;
    for a in rows {
        let a = a.map_err(std::io::Error::other)?;
        if first {
            let what = if show == Show::All {
                "Every answer"
            } else {
                "The worst answers"
            };
            write!(out, "\n**{what}**\n\n{MARKDOWN_ANSWERS_HEAD}")?;
            first = false;
        }
        out.write_all(markdown_answer_row(&a, d.main).as_bytes())?;
    }
    Ok(())
}

/// The self-contained HTML page: the summary, then every answer.
pub fn write_html(
    out: &mut dyn Write,
    head: &ScoreRecord,
    summary: &ScoreSummary,
    answers: Answers<'_>,
) -> Result<(), std::io::Error> {
    out.write_all(html_head(&AnswerHead::of(head), summary).as_bytes())?;
    for a in answers {
        let a = a.map_err(std::io::Error::other)?;
        out.write_all(html_answer(&a).as_bytes())?;
    }
    out.write_all(HTML_END.as_bytes())
}
