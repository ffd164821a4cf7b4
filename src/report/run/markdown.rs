//! Markdown: a summary fit for a pull-request comment.

use crate::engine::run::SuiteRun;

use crate::engine::summary::Summary;
use crate::model::case::{Outcome, Role};
use crate::report::{fmt_ci, fmt_rate, fmt_score, fmt_settings};
use crate::text::escape::{escape_md_cell, escape_md_code};
use std::fmt::Write;

/// Renders one suite's run as Markdown.
pub fn render(run: &SuiteRun, summary: &Summary) -> String {
    let mut o = String::new();
    let pct = (summary.confidence * 100.0).round();
    let _ = writeln!(
        o,
        "### faithprobe: `{}` with checker `{}`\n\n{} ({})\n",
        escape_md_code(&run.suite),
        escape_md_code(&run.checker),
        run.checker_kind,
        escape_md_cell(&fmt_settings(&run.settings))
    );
    rates_table(&mut o, summary, pct);
    compound_table(&mut o, summary);
    provisional(&mut o, summary, pct);
    missed(&mut o, run);
    if summary.errors > 0 {
        let _ = writeln!(
            o,
            "\n**{} case(s) could not be scored** (counted in no rate, never as passes).",
            summary.errors
        );
    }
    o
}

/// With compound faults: each fault type's plain and compound catch rates side by side.
fn compound_table(o: &mut String, summary: &Summary) {
    let Some(all) = &summary.all_faults_compound else {
        return;
    };
    let cell = crate::report::fmt_kn;
    let _ = writeln!(
        o,
        "\nPlain and compound faults (a compound fault is made in a rewrite of the claim):\n\n| fault type | plain | compound | compound unreviewed |\n|---|---|---|---|"
    );
    for row in &summary.fault_types {
        let Some(s) = &row.compound else { continue };
        if s.plain.n + s.compound.n + s.compound_unreviewed as u64 == 0 {
            continue;
        }
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} |",
            escape_md_cell(&row.fault_type),
            cell(&s.plain),
            cell(&s.compound),
            s.compound_unreviewed
        );
    }
    let _ = writeln!(
        o,
        "| {} | {} | {} | {} |",
        escape_md_cell(&crate::engine::mix::label(
            "pooled",
            summary.all_faults_mix.max_per_claim
        )),
        cell(&all.plain),
        cell(&all.compound),
        all.compound_unreviewed
    );
}

/// The table of rates: false alarms on faithful cases and on invariance cases, each fault type's
/// catch rate and all faults', with intervals.
fn rates_table(o: &mut String, summary: &Summary, pct: f64) {
    let fa = &summary.false_alarms;
    let _ = writeln!(
        o,
        "| measure | k/n | rate | {pct}% CI | clustered CI |\n|---|---|---|---|---|"
    );
    let _ = writeln!(
        o,
        "| false alarms on faithful cases | {}/{} | {} | {} | - |",
        fa.k,
        fa.n,
        fmt_rate(fa.rate),
        fmt_ci(fa.ci_low, fa.ci_high)
    );
    let inv = &summary.invariance;
    if inv.n > 0 {
        let _ = writeln!(
            o,
            "| false alarms on rewrites and equivalent mutants (invariance) | {}/{} | {} | {} | - |",
            inv.k,
            inv.n,
            fmt_rate(inv.rate),
            fmt_ci(inv.ci_low, inv.ci_high)
        );
    }
    for row in &summary.fault_types {
        if row.mutants == 0 && row.hard_cases == 0 {
            let _ = writeln!(
                o,
                "| {} caught | no mutants | - | - | - |",
                escape_md_cell(&row.fault_type)
            );
            continue;
        }
        let _ = writeln!(
            o,
            "| {} caught | {}/{}{} | {} | {} | {} |",
            escape_md_cell(&row.fault_type),
            row.caught.k,
            row.caught.n,
            if row.parent_flagged > 0 {
                format!(" ({} parent flagged)", row.parent_flagged)
            } else {
                String::new()
            },
            fmt_rate(row.caught.rate),
            fmt_ci(row.caught.ci_low, row.caught.ci_high),
            fmt_ci(row.clustered.ci_low, row.clustered.ci_high)
        );
    }
    all_faults_row(o, summary);
    if let Some(cap) = summary.all_faults_mix.max_per_claim {
        let _ = writeln!(o, "\n{}.", crate::engine::mix::cap_note(cap));
    }
    if summary.parent_flagged > 0 {
        let every = &summary.all_faults_every_mutant;
        let _ = writeln!(
            o,
            "\n{} fault mutant(s) of claims the checker already flags are in no rate (parent flagged: flagging them says nothing about the fault); counted as before, all faults would be {}/{}.",
            summary.parent_flagged, every.k, every.n
        );
    }
}

/// The all-faults row under its mix, and what a weighted one rests on.
fn all_faults_row(o: &mut String, summary: &Summary) {
    let all = &summary.all_faults;
    let mix = &summary.all_faults_mix;
    let label = escape_md_cell(&mix.label.replacen("all faults", "all faults caught", 1));
    if mix.method == "wilson" {
        let _ = writeln!(
            o,
            "| {label} | {}/{} | {} | {} | {} |",
            all.k,
            all.n,
            fmt_rate(all.rate),
            fmt_ci(all.ci_low, all.ci_high),
            fmt_ci(
                summary.all_faults_clustered.ci_low,
                summary.all_faults_clustered.ci_high
            )
        );
    } else {
        let _ = writeln!(
            o,
            "| {label} | {}/{} | {} | {} | - |",
            mix.k,
            mix.n,
            fmt_rate(mix.rate),
            fmt_ci(mix.ci_low, mix.ci_high),
        );
        let _ = writeln!(
            o,
            "\nUnder mix {} the all-faults rate weighs each fault type's own rate ({} types; stratified interval, Wilson on an effective n of {:.1}); pooled over every fault it is {}/{} {} {}.{}",
            escape_md_cell(&mix.mix),
            mix.weights.len(),
            mix.n_effective,
            all.k,
            all.n,
            fmt_rate(all.rate),
            fmt_ci(all.ci_low, all.ci_high),
            if mix.missing.is_empty() {
                String::new()
            } else {
                format!(
                    " The mix weighs fault types with no scored fault here (left out, the rest renormalised): {}.",
                    escape_md_cell(&mix.missing.join(", "))
                )
            }
        );
    }
}

/// While no mutant is reviewed: the provisional catch rates.
fn provisional(o: &mut String, summary: &Summary, pct: f64) {
    if let Some(rows) = &summary.provisional {
        let _ = writeln!(
            o,
            "\n**Provisional** (no mutant reviewed yet; unreviewed mutants treated as faults):\n\n| fault type | flagged | rate | {pct}% CI |\n|---|---|---|---|"
        );
        for p in rows {
            let _ = writeln!(
                o,
                "| {} | {}/{} | {} | {} |",
                escape_md_cell(&p.fault_type),
                p.flagged.k,
                p.flagged.n,
                fmt_rate(p.flagged.rate),
                fmt_ci(p.flagged.ci_low, p.flagged.ci_high)
            );
        }
    }
}

/// The missed faults, false alarms and errors, folded away.
fn missed(o: &mut String, run: &SuiteRun) {
    let missed: Vec<_> = run
        .results
        .iter()
        .filter(|r| {
            matches!(
                r.case.role(),
                Role::FalseAlarmOpportunity | Role::Invariance | Role::Fault
            ) && matches!(
                r.outcome,
                Outcome::Missed | Outcome::FalseAlarm | Outcome::Error
            )
        })
        .collect();
    if !missed.is_empty() {
        let _ = writeln!(
            o,
            "\n<details><summary>{} missed faults, false alarms and errors</summary>\n\n| id | fault type | outcome | verdict | score | claim |\n|---|---|---|---|---|---|",
            missed.len()
        );
        for r in missed {
            let (label, score) = match &r.result {
                Ok(v) => (v.label.as_str(), fmt_score(v.score)),
                Err(_) => ("error", "-".into()),
            };
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} | {} |",
                escape_md_cell(&r.case.id),
                escape_md_cell(r.case.fault_type.as_deref().unwrap_or("original")),
                r.outcome.as_str(),
                label,
                score,
                escape_md_cell(&r.case.claim)
            );
        }
        let _ = writeln!(o, "\n</details>");
    }
}
