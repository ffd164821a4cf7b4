//! Words for the proxy checks: two checkers at the same false-alarm rate and threshold-free, and
//! the gap between mutation scores and recall on real errors. Renders [`crate::engine::proxy`] results;
//! computes nothing.

use super::{fmt_ci, fmt_kn, fmt_rate, Paint};
use crate::engine::proxy::{Better, Matched, RealErrors};
use crate::text::escape::printable;
use std::fmt::Write;

const PROVISIONAL: &str = "PROVISIONAL: no mutant is reviewed yet, so every unreviewed mutant is taken for a fault; review them (faithprobe review SUITE) before trusting these figures";

fn better_words(b: Better, m: &Matched) -> String {
    match b {
        Better::Base => format!("{} catches more", printable(&m.sides[0].checker)),
        Better::Candidate => format!("{} catches more", printable(&m.sides[1].checker)),
        Better::Neither => "no significant difference".into(),
    }
}

/// The matched comparison as terminal text (`markdown`: the same lines for a PR comment).
pub fn matched(m: &Matched, paint: Paint, markdown: bool) -> String {
    let mut o = String::new();
    let head = format!(
        "At the same false-alarm rate: {:.2} ({})",
        m.budget, m.budget_from
    );
    if markdown {
        let _ = writeln!(o, "\n#### {head}\n");
    } else {
        let _ = writeln!(o, "\n{}", paint.head(&head));
    }
    if m.provisional {
        let _ = writeln!(o, "  {}", paint.bad(PROVISIONAL));
    }
    if m.own_verdicts_only {
        let _ = writeln!(
            o,
            "  a checker gives no scores, so no threshold can match the false-alarm rates: both are compared at their own verdicts"
        );
    }
    for s in &m.sides {
        let at = match s.threshold {
            // the cut above every score flags every case
            Some(t) if t > 1.0 => "a threshold above every score (every case flagged)".into(),
            Some(t) => format!("threshold {t:.4}"),
            None => "its own verdicts".into(),
        };
        let _ = writeln!(
            o,
            "{}{} at {at}: false alarms {}",
            if markdown { "- " } else { "  " },
            printable(&s.checker),
            fmt_kn(&s.false_alarms)
        );
    }
    fault_type_table(&mut o, m, markdown);
    verdicts(&mut o, m, paint, markdown);
    o
}

/// Each fault type caught by either checker at the matched thresholds, the faults only one
/// catches, and the exact test.
fn fault_type_table(o: &mut String, m: &Matched, markdown: bool) {
    let name = |i: usize| printable(&m.sides[i].checker);
    if markdown {
        let _ = writeln!(
            o,
            "\n| fault type | {} | {} | only {} | only {} | p |\n|---|---|---|---|---|---|",
            name(0),
            name(1),
            name(0),
            name(1)
        );
    } else {
        let _ = writeln!(
            o,
            "  {:<24} {:<24} {:<24} {:>9} {:>9}  p",
            "fault type",
            super::trunc(&name(0), 24),
            super::trunc(&name(1), 24),
            "only base",
            "only cand",
        );
    }
    for r in &m.rows {
        // the matched comparison counts all faults pooled, and says so
        let row_name = if r.fault_type == "all faults" {
            crate::engine::mix::label("pooled", m.max_per_claim)
        } else {
            r.fault_type.clone()
        };
        let cells = [
            printable(&row_name),
            fmt_kn(&r.base),
            fmt_kn(&r.candidate),
            r.base_only.to_string(),
            r.candidate_only.to_string(),
            crate::stats::fmt_p(r.p_value),
        ];
        if markdown {
            let _ = writeln!(
                o,
                "| {} |",
                cells
                    .map(|c| crate::text::escape::escape_md_cell(&c))
                    .join(" | ")
            );
        } else {
            let _ = writeln!(
                o,
                "  {:<24} {:<24} {:<24} {:>9} {:>9}  {}",
                cells[0], cells[1], cells[2], cells[3], cells[4], cells[5]
            );
        }
    }
}

/// What the rows count, the threshold-free comparison, and the verdicts at each checker's own
/// threshold and at the same false-alarm rate (and a warning when they differ).
fn verdicts(o: &mut String, m: &Matched, paint: Paint, markdown: bool) {
    let name = |i: usize| printable(&m.sides[i].checker);
    let pad = if markdown { "\n" } else { "  " };
    let _ = writeln!(
        o,
        "{pad}{}",
        paint.dim("(informative faults on both sides: a mutant counts where both checkers pass its parent claim at their matched thresholds; p: two-sided exact McNemar)")
    );
    if let Some(f) = &m.threshold_free {
        let _ = writeln!(
            o,
            "{pad}threshold-free: a fault scored below what it was made from (a mutant below its parent claim, a hard case below the faithful cases): {} {}, {} {}; difference {:+.2} {} (context bootstrap, {} faults)",
            name(0),
            fmt_rate(Some(f.base)),
            name(1),
            fmt_rate(Some(f.candidate)),
            f.difference,
            fmt_ci(f.ci_low, f.ci_high),
            f.faults
        );
    }
    let own = &m.own;
    let _ = writeln!(
        o,
        "{pad}at each checker's own threshold: all faults (mix: pooled) {} vs {} ({}); at the same false-alarm rate: {}",
        fmt_kn(&own.base),
        fmt_kn(&own.candidate),
        better_words(m.better_at_own, m),
        better_words(m.better_matched, m)
    );
    if m.better_at_own != m.better_matched {
        let _ = writeln!(
            o,
            "{pad}{}",
            paint.bad("the verdict at each checker's own threshold differs from the verdict at the same false-alarm rate: a lower threshold buys catches with false alarms, so trust the matched one")
        );
    }
}

/// The gap to real errors as terminal text (`markdown`: for a PR comment or report).
pub fn real_errors(r: &RealErrors, paint: Paint, markdown: bool) -> String {
    let mut o = String::new();
    let head = format!(
        "Mutants against real errors ({} in {})",
        super::count(r.real_errors, "real error", "real errors"),
        super::count(r.contexts, "context", "contexts")
    );
    if markdown {
        let _ = writeln!(o, "\n#### {head}\n");
        let _ = writeln!(
            o,
            "| checker | informative mutants caught | real errors caught | gap (context bootstrap CI) | at matched false alarms |\n|---|---|---|---|---|"
        );
    } else {
        let _ = writeln!(o, "\n{}", paint.head(&head));
        let _ = writeln!(
            o,
            "  {:<20} {:<26} {:<26} {:<22} at matched false alarms",
            "checker", "informative mutants", "real errors (recall)", "gap",
        );
    }
    for g in &r.gaps {
        let matched = match &g.matched {
            Some(m) => format!(
                "{:+.2} {} at {:.4} ({} vs {})",
                m.gap,
                fmt_ci(m.ci_low, m.ci_high),
                m.threshold,
                fmt_rate(m.mutants.rate),
                fmt_rate(m.real.rate)
            ),
            None => "-".into(),
        };
        let cells = [
            printable(&g.checker),
            fmt_kn(&g.mutants),
            fmt_kn(&g.real),
            format!("{:+.2} {}", g.gap, fmt_ci(g.ci_low, g.ci_high)),
            matched,
        ];
        if markdown {
            let _ = writeln!(
                o,
                "| {} |",
                cells
                    .map(|c| crate::text::escape::escape_md_cell(&c))
                    .join(" | ")
            );
        } else {
            let _ = writeln!(
                o,
                "  {:<20} {:<26} {:<26} {:<22} {}",
                cells[0], cells[1], cells[2], cells[3], cells[4]
            );
        }
    }
    let pad = if markdown { "\n" } else { "  " };
    if r.contexts < 10 {
        let _ = writeln!(
            o,
            "{pad}{}",
            paint.dim(&format!("(only {} context(s) hold real errors: the bootstrap interval is rough; add real errors from more contexts)", r.contexts))
        );
    }
    let _ = writeln!(
        o,
        "{pad}{}",
        paint.dim("(gap: the informative-mutant catch rate minus the recall on real errors, at the checker's own verdicts; the interval resamples contexts, seeded)")
    );
    if r.provisional {
        let _ = writeln!(o, "{pad}{}", paint.bad(PROVISIONAL));
    }
    for w in &r.warnings {
        let _ = writeln!(
            o,
            "{pad}{}",
            paint.bad(&format!("warning: {}", printable(w)))
        );
    }
    o
}
