//! The terminal report: what a person reads after `faithprobe run`. Writes to a `String` so
//! tests can snapshot it.

use crate::engine::run::SuiteRun;

use crate::engine::summary::{FaultTypeRow, Summary};
use crate::model::case::MutantReview;
use crate::model::case::{CaseKind, Outcome, Role};
use crate::report::{fmt_ci, fmt_rate, fmt_score, fmt_settings, Paint};
use crate::text::escape::printable;
use std::fmt::Write;

use crate::report::trunc;

/// Renders one suite's run.
pub fn render(run: &SuiteRun, summary: &Summary, paint: Paint) -> String {
    let mut o = String::new();
    for section in [
        header,
        rates,
        provisional,
        case_lists,
        hard_cases,
        flaky,
        errors,
    ] {
        section(&mut o, run, summary, paint);
    }
    o
}

/// The suite, the checker and its settings, what the cases are, and a shard warning.
fn header(o: &mut String, run: &SuiteRun, _summary: &Summary, paint: Paint) {
    let count = |k: CaseKind| run.results.iter().filter(|r| r.case.kind == k).count();
    let review_count = |f: &dyn Fn(&MutantReview) -> bool| {
        run.results
            .iter()
            .filter(|r| r.case.kind == CaseKind::Mutant)
            .filter(|r| r.case.review.as_ref().is_some_and(f))
            .count()
    };
    let _ = writeln!(
        o,
        "{} ({}) · checker {} ({}: {})",
        paint.head(&run.suite),
        run.suite_path,
        run.checker,
        run.checker_kind,
        fmt_settings(&run.settings)
    );
    let _ = writeln!(
        o,
        "{}: {}, {}, {} ({} faults, {} equivalent, {} unreviewed)",
        crate::report::count(run.results.len() as u64, "case", "cases"),
        crate::report::count(
            count(CaseKind::Original) as u64,
            "verified claim",
            "verified claims"
        ),
        crate::report::count(count(CaseKind::HardCase) as u64, "hard case", "hard cases"),
        crate::report::count(count(CaseKind::Mutant) as u64, "mutant", "mutants"),
        review_count(&|r| *r == MutantReview::Fault),
        review_count(&|r| matches!(r, MutantReview::Equivalent { .. })),
        review_count(&|r| *r == MutantReview::Unreviewed),
    );
    if !run.broken.is_empty() {
        let parts: Vec<String> = run
            .broken
            .iter()
            .map(|(op, n)| format!("{op} {n}"))
            .collect();
        let _ = writeln!(
            o,
            "broken mutants (reviewed `broken`: defects of their operator, in no rate): {}",
            parts.join(", ")
        );
    }
    let rewrites = count(CaseKind::Rewrite);
    if rewrites > 0 {
        let _ = writeln!(
            o,
            "and {}: the same claims in other words, each a false-alarm opportunity",
            crate::report::count(rewrites as u64, "rewrite", "rewrites")
        );
    }
    if let Some(sh) = run.shard {
        let _ = writeln!(
            o,
            "{}",
            paint.bad(&format!(
                "shard {sh}: these rates are over this part of the cases only; join the shard records with `faithprobe merge`"
            ))
        );
    }
}

/// False alarms, then the catch rate of each fault type and of all faults, with intervals.
fn rates(o: &mut String, _run: &SuiteRun, summary: &Summary, paint: Paint) {
    let pct = (summary.confidence * 100.0).round();
    false_alarms(o, summary, paint, pct);
    catch_rates(o, summary, paint, pct);
    compound_rates(o, summary, paint, pct);
}

/// With compound faults: each fault type's plain and compound catch rates side by side.
fn compound_rates(o: &mut String, summary: &Summary, paint: Paint, pct: f64) {
    let Some(all) = &summary.all_faults_compound else {
        return;
    };
    let _ = writeln!(
        o,
        "\n{}",
        paint.head(&format!(
            "Plain and compound faults per fault type ({pct}% Wilson intervals; a compound fault is made in a rewrite of the claim)"
        ))
    );
    let w = summary.all_faults_mix.label.chars().count().max(20);
    let _ = writeln!(
        o,
        "  {:<w$} {:<24} {:<24} {:>19}",
        "fault type", "plain", "compound", "compound unreviewed"
    );
    let cell = crate::report::fmt_kn;
    for row in &summary.fault_types {
        let Some(s) = &row.compound else { continue };
        if s.plain.n + s.compound.n + s.compound_unreviewed as u64 == 0 {
            continue;
        }
        let _ = writeln!(
            o,
            "  {:<w$} {:<24} {:<24} {:>19}",
            printable(&row.fault_type),
            cell(&s.plain),
            cell(&s.compound),
            s.compound_unreviewed
        );
    }
    // the split is of the pooled count, whatever the mix
    let _ = writeln!(
        o,
        "  {:<w$} {:<24} {:<24} {:>19}",
        crate::engine::mix::label("pooled", summary.all_faults_mix.max_per_claim),
        cell(&all.plain),
        cell(&all.compound),
        all.compound_unreviewed
    );
    let _ = writeln!(
        o,
        "  {}",
        paint.dim("(plain: mutants of the claim itself and hard cases; compound: a fault operator's edit of a rewrite of the claim, counted in its fault type's row above; unreviewed compound mutants are in neither rate)")
    );
}

/// False alarms on faithful cases, and on invariance cases when there are any.
fn false_alarms(o: &mut String, summary: &Summary, paint: Paint, pct: f64) {
    let fa = &summary.false_alarms;
    let _ = writeln!(
        o,
        "\n{}",
        paint.head(
            "False alarms on faithful cases (verified claims and hard cases labelled supported)"
        )
    );
    let _ = writeln!(
        o,
        "  {}/{}  rate {}  {pct}% CI {}",
        fa.k,
        fa.n,
        fmt_rate(fa.rate),
        fmt_ci(fa.ci_low, fa.ci_high)
    );
    let inv = &summary.invariance;
    if inv.n > 0 {
        let _ = writeln!(
            o,
            "\n{}",
            paint.head(
                "Invariance: false alarms on rewrites and equivalent mutants (the same facts in other words)"
            )
        );
        let _ = writeln!(
            o,
            "  {}/{}  rate {}  {pct}% CI {}",
            inv.k,
            inv.n,
            fmt_rate(inv.rate),
            fmt_ci(inv.ci_low, inv.ci_high)
        );
    }
}

/// The catch rate of each fault type and of all faults, with what the columns count.
fn catch_rates(o: &mut String, summary: &Summary, paint: Paint, pct: f64) {
    let _ = writeln!(
        o,
        "\n{}",
        paint.head(&format!(
            "Catch rate per fault type ({pct}% Wilson intervals)"
        ))
    );
    // the first column fits the all-faults row's label, which names the mix (and any cap)
    let w = summary.all_faults_mix.label.chars().count().max(20);
    let _ = writeln!(
        o,
        "  {:<w$} {:>7}  {:>5}  {:<13} {:<13} {:>4}  {:>5}  {:>14}  {:>14}  {:>6}",
        "fault type",
        "caught",
        "rate",
        "CI",
        "clustered CI",
        "hard",
        "equiv",
        "parent flagged",
        "unreviewed",
        "errors"
    );
    for row in &summary.fault_types {
        fault_type_row(o, row, paint, w);
    }
    all_faults_row(o, summary, paint, w);
    if let Some(cap) = summary.all_faults_mix.max_per_claim {
        let _ = writeln!(
            o,
            "  {}",
            paint.dim(&format!("({})", crate::engine::mix::cap_note(cap)))
        );
    }
    if summary.parent_flagged > 0 {
        let every = &summary.all_faults_every_mutant;
        let _ = writeln!(
            o,
            "  {}",
            paint.dim(&format!(
                "({} mutant(s) of claims the checker already flags are in no rate: flagging them says nothing about the fault; counted as before, all faults would be {}/{})",
                summary.parent_flagged, every.k, every.n
            ))
        );
    }
    let _ = writeln!(
        o,
        "  {}",
        paint.dim("(a row counts mutants reviewed `fault` whose parent claim the checker passes and, under `hard`, hard cases of that type not labelled supported;")
    );
    let _ = writeln!(
        o,
        "  {}",
        paint.dim(" clustered CI: Wilson (t quantile) on the effective n of the parent claims, since a claim's mutants tend to be caught or missed together;")
    );
    let _ = writeln!(
        o,
        "  {}",
        paint.dim(" what each fault type stands for, with an example: faithprobe mutants --list)")
    );
}

/// The all-faults row under its mix: the pooled count with its Wilson and clustered intervals,
/// or a weighted rate with its stratified interval and the pooled count beside it.
fn all_faults_row(o: &mut String, summary: &Summary, paint: Paint, w: usize) {
    let mix = &summary.all_faults_mix;
    if mix.method == "wilson" {
        let all = &summary.all_faults;
        let _ = writeln!(
            o,
            "  {:<w$} {:>7}  {:>5}  {:<13} {}",
            printable(&mix.label),
            format!("{}/{}", all.k, all.n),
            fmt_rate(all.rate),
            fmt_ci(all.ci_low, all.ci_high),
            fmt_ci(
                summary.all_faults_clustered.ci_low,
                summary.all_faults_clustered.ci_high
            ),
        );
        return;
    }
    let _ = writeln!(
        o,
        "  {:<w$} {:>7}  {:>5}  {:<13} -",
        printable(&mix.label),
        format!("{}/{}", mix.k, mix.n),
        fmt_rate(mix.rate),
        fmt_ci(mix.ci_low, mix.ci_high),
    );
    let all = &summary.all_faults;
    let _ = writeln!(
        o,
        "  {}",
        paint.dim(&format!(
            "(mix {}: the rate weighs each fault type's own rate ({} types); stratified interval, Wilson on an effective n of {:.1}; pooled over every fault it is {}/{} {} {})",
            printable(&mix.mix),
            mix.weights.len(),
            mix.n_effective,
            all.k,
            all.n,
            fmt_rate(all.rate),
            fmt_ci(all.ci_low, all.ci_high)
        ))
    );
    if !mix.missing.is_empty() {
        let _ = writeln!(
            o,
            "  {}",
            paint.dim(&format!(
                "(the mix weighs fault types with no scored fault here, left out and the rest renormalised: {})",
                printable(&mix.missing.join(", "))
            ))
        );
    }
    if !mix.unweighted.is_empty() {
        let _ = writeln!(
            o,
            "  {}",
            paint.dim(&format!(
                "(fault types with faults the mix gives no weight, in no all-faults figure: {})",
                printable(&mix.unweighted.join(", "))
            ))
        );
    }
}

/// One fault type's row of the catch-rate table.
fn fault_type_row(o: &mut String, row: &FaultTypeRow, paint: Paint, w: usize) {
    if row.mutants == 0 && row.hard_cases == 0 {
        let _ = writeln!(
            o,
            "  {:<w$} {}",
            printable(&row.fault_type),
            paint.dim("no mutants on this suite (no claim matches its rules)")
        );
        return;
    }
    let unreviewed = if row.unreviewed > 0 {
        format!("{} ({} flagged)", row.unreviewed, row.unreviewed_flagged)
    } else {
        "0".into()
    };
    let parent_flagged = if row.parent_flagged > 0 {
        format!(
            "{} ({} flagged)",
            row.parent_flagged, row.parent_flagged_flagged
        )
    } else {
        "0".into()
    };
    let _ = writeln!(
        o,
        "  {:<w$} {:>7}  {:>5}  {:<13} {:<13} {:>4}  {:>5}  {:>14}  {:>14}  {:>6}",
        printable(&row.fault_type),
        format!("{}/{}", row.caught.k, row.caught.n),
        fmt_rate(row.caught.rate),
        fmt_ci(row.caught.ci_low, row.caught.ci_high),
        fmt_ci(row.clustered.ci_low, row.clustered.ci_high),
        row.hard_cases,
        row.equivalent,
        parent_flagged,
        unreviewed,
        row.errors
    );
}

/// While no mutant is reviewed: the catch rate that treats every unreviewed mutant as a fault.
fn provisional(o: &mut String, _run: &SuiteRun, summary: &Summary, paint: Paint) {
    if let Some(rows) = &summary.provisional {
        let _ = writeln!(
            o,
            "\n{}",
            paint.head("PROVISIONAL catch rate: no mutant is reviewed yet, so every unreviewed mutant is treated as a fault")
        );
        for p in rows {
            let _ = writeln!(
                o,
                "  {:<20} {:>7}  {:>5}  {}",
                printable(&p.fault_type),
                format!("{}/{}", p.flagged.k, p.flagged.n),
                fmt_rate(p.flagged.rate),
                fmt_ci(p.flagged.ci_low, p.flagged.ci_high),
            );
        }
        let _ = writeln!(
            o,
            "  {}",
            paint.dim("Some mutants may still be faithful: review them (`faithprobe mutants SUITE --format yaml`) before trusting these rates.")
        );
    }
}

/// Missed faults, false alarms, invariance false alarms, equivalent and unreviewed mutants, case
/// by case.
fn case_lists(o: &mut String, run: &SuiteRun, _summary: &Summary, paint: Paint) {
    let listed =
        |o: &mut String, title: &str, want: &dyn Fn(&crate::engine::run::CaseResult) -> bool| {
            let rows: Vec<_> = run.results.iter().filter(|r| want(r)).collect();
            if rows.is_empty() {
                return;
            }
            let _ = writeln!(o, "\n{}", paint.head(title));
            for r in rows {
                let (label, score, ev) = match &r.result {
                    Ok(v) => (
                        v.label.as_str().to_string(),
                        fmt_score(v.score),
                        v.evidence
                            .as_ref()
                            .map(|e| printable(&e.passage))
                            .unwrap_or_else(|| "-".into()),
                    ),
                    Err(_) => ("error".into(), "-".into(), "-".into()),
                };
                let origin = match (&r.case.fault_type, &r.case.parent) {
                    (Some(ft), Some(p)) => format!("{} of {}", printable(ft), printable(p)),
                    (Some(ft), None) => printable(ft),
                    _ => r.case.kind.as_str().to_string(),
                };
                let _ = writeln!(
                    o,
                    "  {:<18} {:<26} {:<12} {:>5}  {:<8} {}",
                    printable(&r.case.id),
                    trunc(&origin, 26),
                    label,
                    score,
                    trunc(&ev, 8),
                    printable(&r.case.claim)
                );
                if let Some(MutantReview::Equivalent { why }) = &r.case.review {
                    let _ = writeln!(o, "  {:<18} why: {}", "", printable(why.trim()));
                }
            }
        };
    listed(o, "Missed faults", &|r| r.outcome == Outcome::Missed);
    listed(o, "False alarms", &|r| {
        r.outcome == Outcome::FalseAlarm && r.case.role() == Role::FalseAlarmOpportunity
    });
    listed(
        o,
        "Invariance false alarms (flagged rewrites and equivalent mutants)",
        &|r| r.outcome == Outcome::FalseAlarm && r.case.role() == Role::Invariance,
    );
    listed(
        o,
        "Equivalent mutants (still faithful: false-alarm opportunities in the invariance row)",
        &|r| {
            r.case.kind == CaseKind::Mutant
                && matches!(r.case.review, Some(MutantReview::Equivalent { .. }))
        },
    );
    listed(
        o,
        "Unreviewed mutants (in no rate until a person reviews them)",
        &|r| r.case.role() == Role::Unreviewed,
    );
}

/// Each hard case: the person's label next to the checker's verdict.
fn hard_cases(o: &mut String, run: &SuiteRun, summary: &Summary, paint: Paint) {
    let hard: Vec<_> = run
        .results
        .iter()
        .filter(|r| r.case.kind == CaseKind::HardCase)
        .collect();
    if !hard.is_empty() {
        let ag = &summary.hard_cases_agree;
        let _ = writeln!(
            o,
            "\n{} (the checker agrees with the person on {}/{})",
            paint.head("Hard cases"),
            ag.k,
            ag.n
        );
        let _ = writeln!(
            o,
            "  {:<6} {:<22} {:<13} {:<13} {:>5}  claim",
            "id", "type", "person", "checker", "score"
        );
        for r in hard {
            let (label, score) = match &r.result {
                Ok(v) => (v.label.as_str(), fmt_score(v.score)),
                Err(_) => ("error", "-".into()),
            };
            let agree = r.outcome.good();
            let shown = format!("{label:<13}");
            let _ = writeln!(
                o,
                "  {:<6} {:<22} {:<13} {} {:>5}  {}",
                printable(&r.case.id),
                trunc(&printable(r.case.fault_type.as_deref().unwrap_or("")), 22),
                r.case.expected.as_str(),
                if agree {
                    paint.good(&shown)
                } else {
                    paint.bad(&shown)
                },
                score,
                printable(&r.case.claim)
            );
        }
    }
}

/// With `--repeat`: the cases whose verdict changed between repeats.
fn flaky(o: &mut String, run: &SuiteRun, _summary: &Summary, paint: Paint) {
    if run.repeats > 1 {
        let _ = writeln!(
            o,
            "\n{} ({} of {} cases changed verdict over {} repeats)",
            paint.head("Flaky cases"),
            run.flaky.len(),
            run.results.len(),
            run.repeats
        );
        let mut by_type: std::collections::BTreeMap<String, usize> = Default::default();
        for f in &run.flaky {
            *by_type
                .entry(
                    f.fault_type
                        .clone()
                        .unwrap_or_else(|| f.kind.as_str().to_string()),
                )
                .or_default() += 1;
        }
        for (t, n) in by_type {
            let _ = writeln!(o, "  {:<22} {n}", printable(&t));
        }
        for f in &run.flaky {
            let _ = writeln!(
                o,
                "  {:<18} {:<30} {}",
                printable(&f.id),
                f.verdicts.join(" → "),
                printable(&f.claim)
            );
        }
    }
}

/// The cases the checker could not score, one line per distinct reason.
fn errors(o: &mut String, run: &SuiteRun, _summary: &Summary, paint: Paint) {
    let errors: Vec<_> = run
        .results
        .iter()
        .filter(|r| r.outcome == Outcome::Error)
        .collect();
    if !errors.is_empty() {
        let _ = writeln!(
            o,
            "\n{}",
            paint.bad(&format!(
                "Errors: the checker could not score {} case(s); they count in no rate and never as passes",
                errors.len()
            ))
        );
        // one line per distinct reason: a dead server is one error, not one per case
        let mut reasons: Vec<(String, Vec<&str>)> = Vec::new();
        for r in errors {
            if let Err(e) = &r.result {
                let msg = e.to_string();
                match reasons.iter_mut().find(|(m, _)| *m == msg) {
                    Some((_, ids)) => ids.push(&r.case.id),
                    None => reasons.push((msg, vec![&r.case.id])),
                }
            }
        }
        for (msg, ids) in reasons {
            if ids.len() == 1 {
                let _ = writeln!(o, "  {:<18} {}", printable(ids[0]), printable(&msg));
            } else {
                let shown: Vec<&str> = ids.iter().take(6).copied().collect();
                let more = if ids.len() > 6 {
                    format!(", and {} more", ids.len() - 6)
                } else {
                    String::new()
                };
                let _ = writeln!(
                    o,
                    "  {} cases ({}{more}): {}",
                    ids.len(),
                    printable(&shown.join(", ")),
                    printable(&msg)
                );
            }
        }
    }
}
