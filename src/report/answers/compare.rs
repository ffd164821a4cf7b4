//! The answer-level comparison of two score records, for a person, for a pull-request comment
//! and as JUnit XML.

use super::markdown::{markdown_answer_row, MARKDOWN_ANSWERS_HEAD};
use super::{one_line, tag_cell, tag_width};
use crate::gate::answers::AnswerComparison;
use crate::model::case::Label;
use crate::report::Paint;
use std::fmt::Write;

fn drop_text(d: Option<f64>) -> String {
    d.map(|d| format!("{d:.2}"))
        .unwrap_or_else(|| "none (too few answers)".into())
}

/// The answer-level comparison, for a person.
pub fn comparison(c: &AnswerComparison, paint: Paint) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} vs {}: answers paired by {}",
        paint.head(&c.base_log),
        paint.head(&c.candidate_log),
        c.pair_by
    );
    pairs_per_definition(&mut o, c, paint);
    within_strata(&mut o, c);
    newly_unsupported(&mut o, c, paint);
    not_compared(&mut o, c, paint);
    gate(&mut o, c, paint);
    o
}

/// Per definition: the paired rates, fixed and broken pairs, the exact McNemar test, the
/// adjusted p and the rise the comparison could detect.
fn pairs_per_definition(o: &mut String, c: &AnswerComparison, paint: Paint) {
    let r = crate::report::fmt_kn;
    for row in &c.rows {
        let _ = writeln!(
            o,
            "\n  {} ({} pairs): unsupported-answer rate base {}  candidate {}",
            row.definition.as_str(),
            row.paired,
            r(&row.base_unsupported),
            r(&row.candidate_unsupported)
        );
        if let (Some(b), Some(cand)) = (&row.base_clustered, &row.candidate_clustered) {
            let _ = writeln!(
                o,
                "    clustered by {} ({} clusters): base {}  candidate {}",
                c.cluster_by.as_deref().unwrap_or("?"),
                b.clusters,
                crate::report::fmt_ci(b.ci_low, b.ci_high),
                crate::report::fmt_ci(cand.ci_low, cand.ci_high)
            );
        }
        let _ = writeln!(
            o,
            "    fixed {}  broken {}  exact McNemar p = {} (two-sided); one-sided p = {} over {} changed {}, adjusted {}  detectable rise with 80% power: {}{}",
            row.fixed,
            row.broken,
            crate::stats::fmt_p(row.p_value),
            crate::stats::fmt_p(row.p_worse),
            row.clusters_changed,
            if c.cluster_by.is_some() { "clusters" } else { "answers" },
            crate::stats::fmt_p(row.p_adjusted),
            drop_text(row.detectable_drop),
            if row.significantly_worse {
                format!("  {}", paint.bad("significantly worse"))
            } else {
                String::new()
            }
        );
    }
}

/// Per definition and stratum: the paired rates and the one-sided p, for reading.
fn within_strata(o: &mut String, c: &AnswerComparison) {
    let r = crate::report::fmt_kn;
    for row in c.rows.iter().filter(|r| !r.by_stratum.is_empty()) {
        let _ = writeln!(
            o,
            "\n  {} within each stratum (for reading: one-sided p unadjusted, and Holm-adjusted over the strata):",
            row.definition.as_str()
        );
        let width = tag_width(row.by_stratum.iter().map(|x| x.stratum.as_str()), 12);
        for x in &row.by_stratum {
            let _ = writeln!(
                o,
                "    {:<width$} {:>4} pairs  base {}  candidate {}  fixed {}  broken {}  p = {}  Holm p = {}",
                tag_cell(&x.stratum, width),
                x.paired,
                r(&x.base_unsupported),
                r(&x.candidate_unsupported),
                x.fixed,
                x.broken,
                crate::stats::fmt_p(x.p_worse),
                crate::stats::fmt_p(x.p_holm)
            );
        }
    }
}

/// The answers the candidate newly leaves unsupported, with their failing claims.
fn newly_unsupported(o: &mut String, c: &AnswerComparison, paint: Paint) {
    if let Some(row) = c.rows.iter().find(|r| !r.newly_broken.is_empty()) {
        let _ = writeln!(
            o,
            "\n{}",
            paint.head(&format!(
                "Newly unsupported answers ({}; read these before celebrating an average)",
                row.definition.as_str()
            ))
        );
        for a in &row.newly_broken {
            let _ = writeln!(o, "  {}: {}", one_line(&a.id), one_line(&a.answer));
            for cl in a
                .claims
                .iter()
                .filter(|cl| cl.verdict.is_none_or(|v| !row.definition.faithful(v)))
            {
                let _ = writeln!(
                    o,
                    "    {:<12} {}",
                    cl.verdict.map(Label::as_str).unwrap_or("error"),
                    one_line(&cl.text)
                );
            }
        }
        if (row.broken as usize) > row.newly_broken.len() {
            let _ = writeln!(
                o,
                "  ... and {} more (all in --format json)",
                row.broken as usize - row.newly_broken.len()
            );
        }
    }
}

/// The answers in one record only, without the pairing key, or that a side could not score.
fn not_compared(o: &mut String, c: &AnswerComparison, paint: Paint) {
    for (what, ids) in [
        ("only in the base", &c.only_in_base),
        ("only in the candidate", &c.only_in_candidate),
    ] {
        if !ids.is_empty() {
            let shown: Vec<&str> = ids.iter().take(20).map(String::as_str).collect();
            let _ = writeln!(
                o,
                "\n{} answers {what} (not compared): {}{}",
                ids.len(),
                shown.join(", "),
                if ids.len() > 20 { ", ..." } else { "" }
            );
        }
    }
    if c.without_key != (0, 0) {
        let _ = writeln!(
            o,
            "\nwithout `{}` (not compared): {} in the base, {} in the candidate",
            c.pair_by, c.without_key.0, c.without_key.1
        );
    }
    for (side, ids) in [
        ("base", &c.errors_in_base),
        ("candidate", &c.errors_in_candidate),
    ] {
        if !ids.is_empty() {
            let shown: Vec<&str> = ids.iter().take(20).map(String::as_str).collect();
            let _ = writeln!(
                o,
                "\n{}",
                paint.bad(&format!(
                    "{} answer(s) the {side} could not score (in no row, never a pass): {}{}",
                    ids.len(),
                    shown.join(", "),
                    if ids.len() > 20 { ", ..." } else { "" }
                ))
            );
        }
    }
}

/// The gate's verdict: passed, failed (with each failure), or no verdict.
fn gate(o: &mut String, c: &AnswerComparison, paint: Paint) {
    let _ = writeln!(o);
    if c.failures.is_empty() && !c.no_verdict.is_empty() {
        for n in &c.no_verdict {
            let _ = writeln!(o, "{} {n}", paint.bad("no verdict:"));
        }
    } else if c.failures.is_empty() {
        let _ = writeln!(
            o,
            "{} no definition significantly worse",
            paint.good("gate passed:")
        );
    } else {
        for f in &c.failures {
            let _ = writeln!(o, "{} {f}", paint.bad("gate failed:"));
        }
    }
}

/// The answer-level comparison for a pull-request comment.
pub fn comparison_markdown(c: &AnswerComparison) -> String {
    let cell = crate::text::escape::escape_md_cell;
    let mut o = format!(
        "### faithprobe compare: `{}` vs `{}` (answers paired by {})\n\n{}\n\n| definition | pairs | base unsupported | candidate unsupported | fixed | broken | p (two-sided) | adjusted one-sided p | detectable rise |\n|---|---|---|---|---|---|---|---|---|\n",
        crate::text::escape::escape_md_code(&c.base_log),
        crate::text::escape::escape_md_code(&c.candidate_log),
        cell(&c.pair_by),
        if !c.failures.is_empty() {
            format!("**gate failed**: {}", cell(
                &c.failures
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ")
            ))
        } else if !c.no_verdict.is_empty() {
            format!("**no verdict**: {}", cell(&c.no_verdict.join("; ")))
        } else {
            "**gate passed**".to_string()
        }
    );
    for r in &c.rows {
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {} | {} | {} | {}{} | {} |",
            r.definition.as_str(),
            r.paired,
            crate::report::fmt_kn(&r.base_unsupported),
            crate::report::fmt_kn(&r.candidate_unsupported),
            r.fixed,
            r.broken,
            crate::stats::fmt_p(r.p_value),
            crate::stats::fmt_p(r.p_adjusted),
            if r.significantly_worse {
                " **worse**"
            } else {
                ""
            },
            drop_text(r.detectable_drop)
        );
    }
    if let Some(row) = c.rows.iter().find(|r| !r.newly_broken.is_empty()) {
        let _ = write!(
            o,
            "\n**Newly unsupported answers** ({})\n\n{}",
            row.definition.as_str(),
            MARKDOWN_ANSWERS_HEAD
        );
        for a in &row.newly_broken {
            o.push_str(&markdown_answer_row(a, row.definition));
        }
    }
    o
}

/// The answer-level comparison as JUnit XML: one test case per definition.
pub fn comparison_junit(c: &AnswerComparison) -> String {
    use crate::report::junit::{case, document, suite, Status};
    let rows = c.rows.iter().map(|r| {
        let status = if r.significantly_worse {
            Status::Failed {
                message: format!(
                    "significantly worse: adjusted p = {}",
                    crate::stats::fmt_p(r.p_adjusted)
                ),
                text: Some(format!(
                    "{} broken, {} fixed of {} pairs",
                    r.broken, r.fixed, r.paired
                )),
            }
        } else {
            Status::Passed
        };
        case(
            "compare.answers",
            &format!("unsupported answers ({})", r.definition.as_str()),
            status,
        )
    });
    document(
        "faithprobe compare",
        [suite(
            &format!("{} vs {}", c.base_log, c.candidate_log),
            rows,
        )],
    )
}
