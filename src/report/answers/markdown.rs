//! The Markdown report of scored answers, for a pull-request comment: the summary and a table of
//! answers.

use super::{fmt_est, one_line, opt, AnswerHead};
use crate::answers::score::{AnswerResult, Definition, Status};
use crate::answers::tally::ScoreSummary;
use crate::model::case::Label;
use std::fmt::Write;

/// The summary for a pull-request comment: across answers, per tag and agreement with labels.
/// Answer rows follow from [`markdown_answer_row`] under [`MARKDOWN_ANSWERS_HEAD`].
pub fn markdown_summary(head: &AnswerHead, s: &ScoreSummary) -> String {
    let cell = crate::text::escape::escape_md_cell;
    let mut o = format!(
        "### faithprobe score: `{}`\n\n{}\n\n| measure |",
        crate::text::escape::escape_md_code(head.log),
        cell(&head.line())
    );
    for a in &s.definitions {
        let _ = write!(o, " {} |", a.definition.as_str());
    }
    let _ = writeln!(o, "\n|---|{}", "---|".repeat(s.definitions.len()));
    let _ = write!(o, "| unsupported-answer rate |");
    for a in &s.definitions {
        let _ = write!(o, " {} |", crate::report::fmt_kn(&a.unsupported_answers));
    }
    for (name, get) in [
        (
            "unsupported answers, corrected for the checker",
            (|a: &crate::answers::tally::Aggregate| a.unsupported_answers_corrected.as_ref())
                as fn(
                    &crate::answers::tally::Aggregate,
                ) -> Option<&crate::stats::correct::Corrected>,
        ),
        ("unsupported claims, corrected for the checker", |a| {
            a.unsupported_claims_corrected.as_ref()
        }),
    ] {
        if let Some(c0) = get(&s.definitions[0]) {
            let _ = write!(
                o,
                "\n| {name} ({}) |",
                cell(&crate::report::corrected_basis(c0))
            );
            for a in &s.definitions {
                let v = get(a).map(crate::report::fmt_corrected).unwrap_or_default();
                let _ = write!(o, " {} |", cell(&v));
            }
        }
    }
    let _ = write!(o, "\n| micro faithfulness |");
    for a in &s.definitions {
        let _ = write!(o, " {} |", opt(a.micro));
    }
    let _ = write!(o, "\n| macro faithfulness |");
    for a in &s.definitions {
        let _ = write!(o, " {} |", opt(a.macro_score));
    }
    for t in &s.by_tag {
        let _ = write!(
            o,
            "\n| unsupported answers, tag `{}` |",
            crate::text::escape::escape_md_code(&t.tag)
        );
        for r in &t.unsupported_answers {
            let _ = write!(o, " {} |", crate::report::fmt_kn(r));
        }
    }
    let a0 = &s.definitions[0];
    let _ = writeln!(
        o,
        "\n\n{} ({} partial, scored), {} with no claims, {} not scored.",
        crate::report::count(a0.refusals as u64, "refusal", "refusals"),
        a0.partial_refusals,
        crate::report::count(a0.no_claims as u64, "answer", "answers"),
        a0.errors
    );
    if let Some(l) = &s.labels {
        let _ = writeln!(
            o,
            "\n**Agreement with the labels** ({} labelled answers scored, {} hallucinated)\n\n| definition | flagged & hallucinated | flagged & faithful | passed & hallucinated | passed & faithful | precision | recall | F1 | balanced accuracy |\n|---|---|---|---|---|---|---|---|---|",
            l.labelled, l.hallucinated
        );
        for g in &l.by_definition {
            let c = &g.all;
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                g.definition.as_str(),
                c.tp,
                c.fp,
                c.fn_,
                c.tn,
                crate::report::fmt_kn(&c.precision),
                crate::report::fmt_kn(&c.recall),
                fmt_est(&c.f1),
                fmt_est(&c.balanced_accuracy)
            );
        }
        if let Some(a) = &l.auroc {
            let _ = writeln!(
                o,
                "\nAUROC of the lowest claim score: {:.3} [{:.3}, {:.3}].",
                a.auroc, a.ci_low, a.ci_high
            );
        }
    }
    o
}

/// The header of the table of answers in the Markdown report.
pub const MARKDOWN_ANSWERS_HEAD: &str =
    "| answer | status | claims not supported (verdict: claim) |\n|---|---|---|\n";

/// One answer as a Markdown table row.
pub fn markdown_answer_row(a: &AnswerResult, main: Definition) -> String {
    let cell = crate::text::escape::escape_md_cell;
    let status = match a.status(main) {
        Status::Refusal => "refusal".to_string(),
        Status::NoClaims => "no claims".to_string(),
        Status::Error => "error".to_string(),
        Status::Scored { faithful, claims } => format!("{faithful}/{claims} {}", main.as_str()),
    };
    let bad: Vec<String> = a
        .claims
        .iter()
        .filter(|c| c.verdict.is_none_or(|v| !main.faithful(v)))
        .map(|c| {
            format!(
                "{}: {}",
                c.verdict.map(Label::as_str).unwrap_or("error"),
                one_line(&c.text)
            )
        })
        .collect();
    format!(
        "| {} | {} | {} |\n",
        cell(&one_line(&a.id)),
        status,
        cell(&bad.join(" · "))
    )
}
