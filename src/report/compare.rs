//! Reports of a paired comparison: terminal, Markdown for a pull-request comment, JUnit.

use super::{fmt_score, Paint};
use crate::gate::compare::{Comparison, GroupRow};
use crate::model::case::Label;
use crate::text::escape::{escape_md_cell, escape_md_code};
use std::fmt::Write;

use super::fmt_kn as side;

fn what(row: &GroupRow) -> &'static str {
    if row.faithful {
        "false-alarm rate"
    } else {
        "catch rate"
    }
}

fn verdict(v: &Option<Label>, s: Option<f64>) -> String {
    format!(
        "{} {}",
        v.map(Label::as_str).unwrap_or("error"),
        fmt_score(s)
    )
}

/// A row's adjusted one-sided p; `not_gating` for a row outside the gate, `cannot` for a
/// gating row that could not reach significance (outside Tarone's family).
fn adjusted(r: &GroupRow, not_gating: &str, cannot: &str) -> String {
    if !r.gating {
        not_gating.to_string()
    } else if !r.in_family {
        cannot.to_string()
    } else {
        crate::stats::fmt_p(r.p_adjusted)
    }
}

/// What the p columns are, in a sentence.
fn p_legend(c: &Comparison) -> String {
    let reach = c
        .rows
        .iter()
        .filter(|r| r.gating && r.in_family && !r.is_fault_type())
        .count();
    let types = match c.fault_types {
        Some((m, level)) => format!(
            "; all faults was significantly worse, so the fault types were tested at the level {} it passed on (Tarone's m = {m})",
            crate::stats::fmt_p(level)
        ),
        None => "; the fault types are tested only once all faults is significantly worse (a gatekeeping family: no type's evidence counts twice)".into(),
    };
    format!(
        "p: exact McNemar, two-sided, for reading; p (adj.): one-sided (is the candidate worse?), by sign flips of the {} net changes, {} over the {reach} gating row(s) that can reach significance (Tarone's m = {}; `-`: this row cannot){types}",
        match c.cluster_by {
            crate::gate::compare::ClusterBy::Claim => "parent claims'",
            crate::gate::compare::ClusterBy::Context => "contexts'",
        },
        crate::gate::failure::adjust_name(c.adjust),
        c.family_size
    )
}

fn fmt_drop(d: Option<f64>) -> String {
    d.map(|d| format!("{d:.2}"))
        .unwrap_or_else(|| "none".into())
}

/// What a reader should know before trusting a row: too few cases to see a drop the size of
/// `min_detectable`, and worse cases that come from few parent claims.
fn notes(c: &Comparison) -> Vec<String> {
    let mut out = Vec::new();
    if !c.flaky.is_empty() {
        let changed = c.flaky.iter().filter(|f| f.changed).count();
        out.push(format!(
            "{} case(s) gave different verdicts across the repeats of a record (base scored {}x, candidate {}x): they are in no row and no rule; {changed} of them came out differently in the two records, a change within the checker's own run-to-run variation",
            c.flaky.len(),
            c.repeats.0,
            c.repeats.1
        ));
    }
    if c.parent_flagged.left_out > 0 {
        let p = &c.parent_flagged;
        out.push(format!(
            "{} fault mutant(s) left out of every row: their parent claim is flagged by the base ({}) or the candidate ({}), so flagging them says nothing about the fault; the paired test uses the mutants informative on both sides",
            p.left_out, p.base, p.candidate
        ));
    }
    if c.judge_scored_once {
        out.push("a judge's verdicts can vary from run to run, and a record scored once cannot tell such a change from a regression: record both sides with `faithprobe run SUITE --repeat 5 --record FILE` (see docs/src/concepts/gate-statistics.md, \"Flaky checkers\")".into());
    }
    let mut too_few: Vec<&GroupRow> = Vec::new();
    for r in &c.rows {
        let unit = c.cluster_by.plural();
        match r.detectable_drop {
            None => {
                let good = r.base_good();
                if good == 0 {
                    out.push(format!(
                        "{}: no drop detectable: the base got none of its {} cases right, so none can get worse",
                        crate::text::escape::printable(&r.group), r.base.n
                    ));
                } else {
                    too_few.push(r);
                }
            }
            Some(d) if d > c.min_detectable => out.push(format!(
                "{}: too few {unit} to detect a drop of {:.2} ({} {unit} at risk detect {:.2} with 80% power at best, if the candidate fixes none)",
                crate::text::escape::printable(&r.group), c.min_detectable, r.clusters_at_risk, d
            )),
            _ => {}
        }
        if r.worse >= 3 && r.worse_parents * 2 <= r.worse {
            out.push(format!(
                "{}: the {} worse cases come from {} parent claim(s): the change broke a few claims rather than the fault type",
                r.group, r.worse, r.worse_parents
            ));
        }
    }
    if !too_few.is_empty() {
        out.push(few_clusters(c, &too_few));
    }
    out
}

/// One note for the rows that cannot fail for want of clusters: which, how many clusters they
/// have at risk, and what a row would need.
fn few_clusters(c: &Comparison, rows: &[&GroupRow]) -> String {
    let (one, many) = (c.cluster_by.singular(), c.cluster_by.plural());
    let most = rows.iter().map(|r| r.clusters_at_risk).max().unwrap_or(0);
    let needed = crate::stats::power::pairs_needed(c.alpha);
    let which = if rows.len() == c.rows.iter().filter(|r| r.base_good() > 0).count() {
        "every row".to_string()
    } else {
        rows.iter()
            .map(|r| crate::text::escape::printable(&r.group))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "no drop detectable in {which}: at most {} at risk in a row (the smallest reachable p is {}), so the test cannot reach significance and a pass there is not evidence; a row needs at least {needed} {many} at risk to fail at alpha {}{}",
        super::count(most, one, many),
        crate::stats::fmt_p(0.5f64.powi(most.min(1100) as i32)),
        c.alpha,
        match c.cluster_by {
            crate::gate::compare::ClusterBy::Context => ": add contexts, or pass --cluster-by claim if the claims of one context do not move together (the error rate then assumes they do not)",
            crate::gate::compare::ClusterBy::Claim => "",
        }
    )
}

/// The terminal report.
pub fn human(c: &Comparison, paint: Paint) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} base {} → candidate {}",
        paint.head("compare"),
        c.base,
        c.candidate
    );
    for s in &c.suites_changed {
        let _ = writeln!(o, "{}", paint.bad(&format!("note: suite {s} differs between the records (its file changed); cases are paired by id")));
    }
    rows_table(&mut o, c, paint);
    regressions(&mut o, c, paint);
    not_compared_and_errors(&mut o, c, paint);
    gate_line(&mut o, c, paint);
    o
}

/// A row's name as printed: `all faults` says its mix (the gate's test is on pooled counts).
fn shown(c: &Comparison, group: &str) -> String {
    if group == "all faults" {
        crate::engine::mix::label(c.all_faults_mix, c.max_per_claim)
    } else {
        group.to_string()
    }
}

/// The paired rows: each group's base and candidate rates, the changed pairs, the exact test
/// (adjusted), the drop the cases can detect, and what the columns mean.
fn rows_table(o: &mut String, c: &Comparison, paint: Paint) {
    let _ = writeln!(
        o,
        "\n  {:<24} {:<24} {:<24} {:>6} {:>5} {:>7} {:>8} {:>6}",
        "group", "base", "candidate", "better", "worse", "p", "p (adj.)", "drop"
    );
    for r in &c.rows {
        let line = format!(
            "  {:<24} {:<24} {:<24} {:>6} {:>5} {:>7} {:>8} {:>6}",
            crate::text::escape::printable(&shown(c, &r.group)),
            side(&r.base),
            side(&r.candidate),
            r.better,
            r.worse,
            crate::stats::fmt_p(r.p_value),
            adjusted(r, "no gate", "-"),
            fmt_drop(r.detectable_drop)
        );
        let _ = writeln!(
            o,
            "{}",
            if r.significantly_worse {
                paint.bad(&line)
            } else {
                line
            }
        );
    }
    let _ = writeln!(
        o,
        "  {}",
        paint.dim(&format!(
            "rates are false-alarm rates for `false alarms`, catch rates otherwise; {}; drop: the smallest drop these cases detect with 80% power",
            p_legend(c)
        ))
    );
    if let Some(line) = margin_line(c) {
        let _ = writeln!(o, "  {line}");
    }
    for line in notes(c) {
        let _ = writeln!(o, "{}", paint.dim(&format!("note: {line}")));
    }
}

/// With `--false-alarm-margin`: the false-alarm rise's upper bound against the margin.
fn margin_line(c: &Comparison) -> Option<String> {
    let margin = c.false_alarm_margin?;
    let r = c.rows.iter().find(|r| r.rise_upper.is_some())?;
    let upper = r.rise_upper?;
    Some(format!(
        "false-alarm margin {margin}: the rise is at most {upper:.3} (one-sided {}% upper bound, {} clusters by {}): {}",
        (1.0 - c.alpha) * 100.0,
        r.clusters,
        c.cluster_by.singular(),
        if upper < margin {
            "within the margin"
        } else {
            "not shown within the margin"
        }
    ))
}

/// The cases the candidate got wrong that the base got right.
fn regressions(o: &mut String, c: &Comparison, paint: Paint) {
    if !c.regressions.is_empty() {
        let _ = writeln!(
            o,
            "\n{}",
            paint.head("Regressions (read these before celebrating an average)")
        );
        for r in &c.regressions {
            let _ = writeln!(
                o,
                "  {:<16} {:<18} {:<18} base {:<18} candidate {:<18} {}",
                r.change.as_str(),
                crate::text::escape::printable(&r.id),
                crate::text::escape::printable(r.fault_type.as_deref().unwrap_or(r.kind.as_str())),
                verdict(&r.base_verdict, r.base_score),
                verdict(&r.candidate_verdict, r.candidate_score),
                crate::text::escape::printable(&r.claim)
            );
        }
    }
}

/// The cases in one record only, and the paired cases a side could not score.
fn not_compared_and_errors(o: &mut String, c: &Comparison, paint: Paint) {
    for (title, list) in [
        ("only in the base record", &c.only_in_base),
        ("only in the candidate record", &c.only_in_candidate),
    ] {
        if !list.is_empty() {
            let ids: Vec<String> = list.iter().map(|(s, i)| format!("{s}/{i}")).collect();
            let _ = writeln!(
                o,
                "\n{} cases {title} (not compared): {}",
                list.len(),
                crate::text::escape::printable(&ids.join(", "))
            );
        }
    }
    if !c.errors.is_empty() {
        let _ = writeln!(
            o,
            "\n{}",
            paint.bad(&format!(
                "Errors: {} paired case(s) could not be scored; they count in no row and never as passes",
                c.errors.len()
            ))
        );
        for e in c.errors.iter().take(20) {
            let _ = writeln!(
                o,
                "  {:<18} {:<9} {}",
                crate::text::escape::printable(&e.id),
                e.side,
                crate::text::escape::printable(&e.error)
            );
        }
        if c.errors.len() > 20 {
            let _ = writeln!(o, "  ... and {} more", c.errors.len() - 20);
        }
    }
}

/// The gate's verdict: passed (with what it allowed), failed (each failure), or no verdict.
fn gate_line(o: &mut String, c: &Comparison, paint: Paint) {
    let _ = writeln!(o);
    if c.failures.is_empty() && !c.no_verdict.is_empty() {
        for n in &c.no_verdict {
            let _ = writeln!(o, "{} {n}", paint.bad("no verdict:"));
        }
    } else if c.failures.is_empty() {
        let _ = writeln!(
            o,
            "{} {} newly missed{}, {}{}, nothing significantly worse at alpha {}",
            paint.good("gate passed:"),
            c.newly_missed,
            c.max_new_misses
                .map(|m| format!(" (allowed {m})"))
                .unwrap_or_default(),
            super::count(c.new_false_alarms, "new false alarm", "new false alarms"),
            c.max_new_false_alarms
                .map(|m| format!(" (allowed {m})"))
                .unwrap_or_default(),
            c.alpha
        );
    } else {
        for f in &c.failures {
            let _ = writeln!(o, "{} {f}", paint.bad("gate failed:"));
        }
    }
}

/// Markdown for a pull-request comment.
pub fn markdown(c: &Comparison) -> String {
    let mut o = String::new();
    let status = if c.exit_code() == crate::error::Exit::Ok {
        "✅"
    } else {
        "❌"
    };
    let _ = writeln!(
        o,
        "### faithprobe compare: `{}` → `{}` — {status} {}\n",
        escape_md_code(&c.base),
        escape_md_code(&c.candidate),
        escape_md_cell(&c.headline())
    );
    let reasons = c.failures.iter().map(ToString::to_string);
    for f in reasons.chain(c.no_verdict.iter().cloned()) {
        let _ = writeln!(o, "- **{}**", escape_md_cell(&f));
    }
    if !c.failures.is_empty() || !c.no_verdict.is_empty() {
        let _ = writeln!(o);
    }
    let _ = writeln!(o, "| group | measure | base | candidate | base, clustered CI | candidate, clustered CI | better | worse | p | p (adj.) | detectable drop |\n|---|---|---|---|---|---|---|---|---|---|---|");
    for r in &c.rows {
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            escape_md_cell(&shown(c, &r.group)),
            what(r),
            side(&r.base),
            side(&r.candidate),
            super::fmt_ci(r.base_clustered.ci_low, r.base_clustered.ci_high),
            super::fmt_ci(r.candidate_clustered.ci_low, r.candidate_clustered.ci_high),
            r.better,
            r.worse,
            crate::stats::fmt_p(r.p_value),
            adjusted(r, "not gating", "cannot reach"),
            fmt_drop(r.detectable_drop)
        );
    }
    let _ = writeln!(o, "\n{}", escape_md_cell(&p_legend(c)));
    if let Some(line) = margin_line(c) {
        let _ = writeln!(o, "\n{}", escape_md_cell(&line));
    }
    let notes = notes(c);
    if !notes.is_empty() {
        let _ = writeln!(o);
        for n in notes {
            let _ = writeln!(o, "- {}", escape_md_cell(&n));
        }
    }
    if !c.regressions.is_empty() {
        let _ = writeln!(o, "\n**Regressions** ({} newly missed, {})\n\n| change | id | fault type | base | candidate | claim |\n|---|---|---|---|---|---|", c.newly_missed, super::count(c.new_false_alarms, "new false alarm", "new false alarms"));
        for r in &c.regressions {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} | {} |",
                r.change.as_str(),
                escape_md_cell(&r.id),
                escape_md_cell(r.fault_type.as_deref().unwrap_or(r.kind.as_str())),
                verdict(&r.base_verdict, r.base_score),
                verdict(&r.candidate_verdict, r.candidate_score),
                escape_md_cell(&r.claim)
            );
        }
    }
    let unpaired = c.only_in_base.len() + c.only_in_candidate.len();
    if unpaired > 0 {
        let _ = writeln!(
            o,
            "\n{unpaired} case(s) are in only one record and were not compared."
        );
    }
    o
}

/// JUnit XML: one test case per regression group row, failing where the gate fails.
pub fn junit(c: &Comparison) -> String {
    use super::junit::{case, document, suite, Status};
    let rows = c.rows.iter().map(|r| {
        let status = if r.significantly_worse {
            Status::Failed {
                message: format!(
                    "significantly worse: p = {}",
                    crate::stats::fmt_p(r.p_value)
                ),
                text: Some(format!("{} worse, {} better", r.worse, r.better)),
            }
        } else {
            Status::Passed
        };
        case("compare", &r.group, status)
    });
    let regressions = c.regressions.iter().map(|r| {
        case(
            &format!(
                "{}.{}",
                r.suite,
                r.fault_type.as_deref().unwrap_or(r.kind.as_str())
            ),
            &r.id,
            Status::Failed {
                message: r.change.as_str().to_string(),
                text: Some(format!(
                    "{}: base {} candidate {}",
                    r.claim,
                    verdict(&r.base_verdict, r.base_score),
                    verdict(&r.candidate_verdict, r.candidate_score)
                )),
            },
        )
    });
    let errors = c.errors.iter().map(|e| {
        case(
            &e.suite,
            &e.id,
            Status::Error {
                message: format!("not scored ({})", e.side),
                text: Some(e.error.clone()),
            },
        )
    });
    document(
        "faithprobe compare",
        [suite(
            &format!("{} vs {}", c.base, c.candidate),
            rows.chain(regressions).chain(errors),
        )],
    )
}
