//! The self-contained HTML page of scored answers: the summary, then one section per answer.

use super::{fmt_est, opt, AnswerHead};
use crate::answers::score::AnswerResult;
use crate::answers::tally::ScoreSummary;
use crate::model::case::Label;
use crate::report::fmt_score;
use crate::text::escape::escape_markup;
use std::fmt::Write;

/// The top of the self-contained HTML page: the summary under each definition and per tag.
/// Answers follow from [`html_answer`], then [`HTML_END`].
pub fn html_head(head: &AnswerHead, s: &ScoreSummary) -> String {
    let mut o = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>faithprobe score: {0}</title><style>
body{{font-family:system-ui,sans-serif;max-width:1100px;margin:2rem auto;padding:0 1rem;color:#222}}
table{{border-collapse:collapse;margin:.5rem 0;font-size:.9rem}} th,td{{border:1px solid #ccc;padding:.3rem .5rem;text-align:left;vertical-align:top}}
th{{background:#f3f3f3}} .supported{{color:#1a7f37}} .bad{{color:#b42318;font-weight:600}} .note{{color:#555;font-size:.85rem}}
</style></head><body><h1>faithprobe score: {0}</h1><p class=\"note\">{1}</p>\n",
        escape_markup(head.log),
        escape_markup(&head.line()),
    );
    o.push_str("<table><tr><th>measure</th>");
    for a in &s.definitions {
        let _ = write!(o, "<th>{}</th>", a.definition.as_str());
    }
    o.push_str("</tr>");
    o.push_str("<tr><td>unsupported-answer rate (gate on this)</td>");
    for a in &s.definitions {
        let _ = write!(
            o,
            "<td>{}</td>",
            crate::report::fmt_kn(&a.unsupported_answers)
        );
    }
    o.push_str("</tr><tr><td>claim-level faithfulness (micro)</td>");
    for a in &s.definitions {
        let _ = write!(o, "<td>{}</td>", opt(a.micro));
    }
    o.push_str("</tr><tr><td>answer-level faithfulness (macro)</td>");
    for a in &s.definitions {
        let _ = write!(o, "<td>{}</td>", opt(a.macro_score));
    }
    for t in &s.by_tag {
        let _ = write!(
            o,
            "</tr><tr><td>unsupported answers, tag {}</td>",
            escape_markup(&t.tag)
        );
        for r in &t.unsupported_answers {
            let _ = write!(o, "<td>{}</td>", crate::report::fmt_kn(r));
        }
    }
    if let Some(l) = &s.labels {
        for g in &l.by_definition {
            let _ = write!(
                o,
                "</tr><tr><td>agreement with labels ({})</td><td colspan=\"{}\">precision {} · recall {} · F1 {} · balanced accuracy {}</td>",
                g.definition.as_str(),
                s.definitions.len(),
                crate::report::fmt_kn(&g.all.precision),
                crate::report::fmt_kn(&g.all.recall),
                fmt_est(&g.all.f1),
                fmt_est(&g.all.balanced_accuracy)
            );
        }
    }
    let a0 = &s.definitions[0];
    let _ = writeln!(
        o,
        "</tr></table><p class=\"note\">{} refusals and {} answers with no claims are counted apart; {} not scored.</p>",
        a0.refusals, a0.no_claims, a0.errors
    );
    o
}

/// The end of the HTML page.
pub const HTML_END: &str = "</body></html>\n";

/// One answer of the HTML page.
pub fn html_answer(a: &AnswerResult) -> String {
    let mut o = String::new();
    let _ = write!(o, "<h2>{}</h2>", escape_markup(&a.id));
    let mut meta = Vec::new();
    if let Some(t) = &a.tag {
        meta.push(format!("tag {}", escape_markup(t)));
    }
    if let Some(l) = a.line {
        meta.push(format!("log line {l}"));
    }
    match &a.label {
        Some(l) if l.hallucinated => meta.push(format!(
            "labelled hallucinated{}",
            if l.types.is_empty() {
                String::new()
            } else {
                format!(" ({})", escape_markup(&l.types.join(", ")))
            }
        )),
        Some(_) => meta.push("labelled faithful".into()),
        None => {}
    }
    if a.partial_refusal {
        meta.push("partial refusal: scored on its claims".into());
    }
    if !meta.is_empty() {
        let _ = write!(o, "<p class=\"note\">{}</p>", meta.join(" · "));
    }
    o.push_str("<p>");
    if !a.question.is_empty() {
        let _ = write!(o, "<b>Q:</b> {}<br>", escape_markup(&a.question));
    }
    let _ = write!(o, "<b>A:</b> {}</p>", escape_markup(&a.answer));
    if a.refusal {
        o.push_str("<p class=\"note\">refusal: excluded from the averages</p>");
        return o;
    }
    if let Some(e) = &a.error {
        let _ = write!(o, "<p class=\"bad\">{}</p>", escape_markup(e));
    }
    if a.claims.is_empty() {
        o.push_str("<p class=\"note\">no claims: not a perfect score</p>");
        return o;
    }
    o.push_str("<table><tr><th>verdict</th><th>score</th><th>claim</th><th>evidence</th><th>numbers</th></tr>");
    for c in &a.claims {
        let v = c.verdict.map(Label::as_str).unwrap_or("error");
        let class = if c.verdict == Some(Label::Supported) {
            "supported"
        } else {
            "bad"
        };
        let ev = match (&c.evidence_passage, &c.evidence, &c.error) {
            (_, _, Some(e)) => format!("error: {e}"),
            (Some(p), Some(w), _) => format!("{p}: {w}"),
            _ => String::new(),
        };
        let nums: Vec<String> = c
            .numbers
            .iter()
            .map(|n| match &n.arithmetic {
                Some(a) => format!("{} derived: {a}", n.number),
                None => format!("{} {}", n.number, n.status.replace('_', " ")),
            })
            .collect();
        let _ = write!(
            o,
            "<tr><td class=\"{class}\">{v}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            fmt_score(c.score),
            escape_markup(&c.text),
            escape_markup(&ev),
            escape_markup(&nums.join("; "))
        );
    }
    o.push_str("</table>\n");
    if let Some(Ok(list)) = &a.omissions {
        if !list.is_empty() {
            let _ = write!(
                o,
                "<p class=\"note\">review queue (may leave out): {}</p>",
                escape_markup(&list.join(" · "))
            );
        }
    }
    o
}
