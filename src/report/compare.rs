//! Reports of a paired comparison: terminal, Markdown for a pull-request comment, JUnit.

use super::{fmt_score, Paint};
use crate::gate::compare::{Comparison, GroupRow};
use crate::model::case::Label;
use crate::text::{escape_md_cell, escape_md_code};
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
    let reach = c.rows.iter().filter(|r| r.gating && r.in_family).count();
    format!(
        "p: exact McNemar, two-sided, for reading; p (adj.): one-sided (is the candidate worse?), by sign flips of the parent claims' net changes, {} over the {reach} gating row(s) that can reach significance (Tarone's m = {}; `-`: this row cannot)",
        crate::gate::compare::adjust_name(c.adjust),
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
        out.push("a judge's verdicts can vary from run to run, and a record scored once cannot tell such a change from a regression: record both sides with `faithprobe run SUITE --repeat 5 --record FILE` (see README, \"Flaky checkers\")".into());
    }
    for r in &c.rows {
        match r.detectable_drop {
            None => {
                let good = r.base_good();
                out.push(if good == 0 {
                    format!(
                        "{}: no drop detectable: the base got none of its {} cases right, so none can get worse",
                        crate::text::printable(&r.group), r.base.n
                    )
                } else {
                    format!(
                        "{}: no drop detectable: even if all {good} of the {} cases the base got right went wrong, the test would not reach significance; a pass here is not evidence",
                        crate::text::printable(&r.group), r.base.n
                    )
                })
            }
            Some(d) if d > c.min_detectable => out.push(format!(
                "{}: too few cases to detect a drop of {:.2} ({} cases detect {:.2} with 80% power at best, if the candidate fixes no case)",
                crate::text::printable(&r.group), c.min_detectable, r.base.n, d
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
    out
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
    let _ = writeln!(
        o,
        "\n  {:<20} {:<24} {:<24} {:>6} {:>5} {:>7} {:>8} {:>6}",
        "group", "base", "candidate", "better", "worse", "p", "p (adj.)", "drop"
    );
    for r in &c.rows {
        let line = format!(
            "  {:<20} {:<24} {:<24} {:>6} {:>5} {:>7} {:>8} {:>6}",
            crate::text::printable(&r.group),
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
    for line in notes(c) {
        let _ = writeln!(o, "{}", paint.dim(&format!("note: {line}")));
    }
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
                crate::text::printable(&r.id),
                crate::text::printable(r.fault_type.as_deref().unwrap_or(r.kind.as_str())),
                verdict(&r.base_verdict, r.base_score),
                verdict(&r.candidate_verdict, r.candidate_score),
                crate::text::printable(&r.claim)
            );
        }
    }
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
                crate::text::printable(&ids.join(", "))
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
                crate::text::printable(&e.id),
                e.side,
                crate::text::printable(&e.error)
            );
        }
        if c.errors.len() > 20 {
            let _ = writeln!(o, "  ... and {} more", c.errors.len() - 20);
        }
    }
    let _ = writeln!(o);
    if c.failures.is_empty() && !c.no_verdict.is_empty() {
        for n in &c.no_verdict {
            let _ = writeln!(o, "{} {n}", paint.bad("no verdict:"));
        }
    } else if c.failures.is_empty() {
        let _ = writeln!(
            o,
            "{} {} newly missed (allowed {}), {}{}, nothing significantly worse at alpha {}",
            paint.good("gate passed:"),
            c.newly_missed,
            c.max_new_misses,
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
    o
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
    for f in c.failures.iter().chain(&c.no_verdict) {
        let _ = writeln!(o, "- **{}**", escape_md_cell(f));
    }
    if !c.failures.is_empty() || !c.no_verdict.is_empty() {
        let _ = writeln!(o);
    }
    let _ = writeln!(o, "| group | measure | base | candidate | base, clustered CI | candidate, clustered CI | better | worse | p | p (adj.) | detectable drop |\n|---|---|---|---|---|---|---|---|---|---|---|");
    for r in &c.rows {
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            escape_md_cell(&r.group),
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
