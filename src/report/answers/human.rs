//! The human report of scored answers: each answer with its claims, verdicts and evidence, the
//! omissions queue, the summary across answers and what the labels say about the checker.

use super::{fmt_est, one_line, opt, tag_cell, tag_width, AnswerHead};
use crate::answers::score::{AnswerResult, ClaimResult, Definition, Status};
use crate::answers::tally::{Aggregate, LabelAgreement, LabelReport, ScoreSummary};
use crate::model::case::Label;
use crate::report::{fmt_score, Paint};
use std::fmt::Write;

/// One answer in the human report: its status, claims with verdicts and one-line evidence,
/// number notes and dropped sentences.
pub fn human_answer(a: &AnswerResult, main: Definition, paint: Paint) -> String {
    let mut o = String::new();
    let head = match a.status(main) {
        Status::Refusal => "refusal (excluded from the averages)".to_string(),
        Status::NoClaims => "no claims (not a perfect score; excluded)".to_string(),
        Status::Error => "error (not scored; never a pass)".to_string(),
        Status::Scored { faithful, claims } => format!(
            "{faithful}/{claims} claims {}{}",
            main.as_str(),
            if a.partial_refusal {
                " (partial refusal: declines in part, scored on its claims)"
            } else {
                ""
            }
        ),
    };
    let tag = a
        .tag
        .as_deref()
        .map(|t| format!(" [{}]", one_line(t)))
        .unwrap_or_default();
    let label = match &a.label {
        Some(l) if l.hallucinated => format!(
            " · labelled hallucinated{}",
            if l.types.is_empty() {
                String::new()
            } else {
                format!(" ({})", one_line(&l.types.join(", ")))
            }
        ),
        Some(_) => " · labelled faithful".to_string(),
        None => String::new(),
    };
    let line = a.line.map(|l| format!(" (line {l})")).unwrap_or_default();
    let _ = writeln!(
        o,
        "\n{}{tag}{line}: {head}{label}",
        paint.head(&one_line(&a.id))
    );
    if !a.question.is_empty() {
        let _ = writeln!(o, "  Q: {}", one_line(&a.question));
    }
    if let Some(e) = &a.error {
        let _ = writeln!(o, "  {}", paint.bad(&one_line(e)));
    }
    for c in &a.claims {
        claim_lines(&mut o, c, paint);
    }
    dropped_and_omissions(&mut o, a, paint);
    o
}

/// One claim of an answer: its verdict, score and text, then its evidence (or error) and its
/// number notes, each on a line of its own.
fn claim_lines(o: &mut String, c: &ClaimResult, paint: Paint) {
    let v = c.verdict.map(Label::as_str).unwrap_or("error");
    let shown = format!("{v:<12}");
    let shown = if c.verdict == Some(Label::Supported) {
        paint.good(&shown)
    } else {
        paint.bad(&shown)
    };
    let _ = writeln!(
        o,
        "  {shown} {:>5}  {}",
        fmt_score(c.score),
        one_line(&c.text)
    );
    match (&c.evidence_passage, &c.evidence, &c.error) {
        (_, _, Some(e)) => {
            let _ = writeln!(o, "  {:<19}error: {}", "", one_line(e));
        }
        (Some(p), Some(w), _) => {
            let _ = writeln!(o, "  {:<19}{}: {}", "", one_line(p), one_line(w));
        }
        _ => {}
    }
    for n in &c.numbers {
        let note = match (&n.status[..], &n.arithmetic) {
            ("derived", Some(a)) => format!(
                "number {} is derived: {a} (check the arithmetic, not the model)",
                n.number
            ),
            ("from_question", _) => format!(
                "number {} comes from the question, not the passages",
                n.number
            ),
            _ => format!("number {} appears in no passage", n.number),
        };
        let _ = writeln!(o, "  {:<19}{}", "", paint.dim(&note));
    }
}

/// The sentences the decomposer dropped, and what the omissions check says the answer may leave
/// out (or that it failed).
fn dropped_and_omissions(o: &mut String, a: &AnswerResult, paint: Paint) {
    for d in &a.dropped {
        let _ = writeln!(
            o,
            "  {}",
            paint.dim(&format!("dropped ({}): {}", d.reason, one_line(&d.text)))
        );
    }
    match &a.omissions {
        Some(Ok(list)) => {
            for item in list {
                let _ = writeln!(
                    o,
                    "  {}",
                    paint.dim(&format!(
                        "may leave out (review, never a gate): {}",
                        one_line(item)
                    ))
                );
            }
        }
        Some(Err(e)) => {
            let _ = writeln!(
                o,
                "  {}",
                paint.bad(&format!("omissions check failed: {}", one_line(e)))
            );
        }
        None => {}
    }
}

/// The omissions review queue: conditions the answers may leave out, per answer.
pub fn human_queue(queue: &[(String, Result<Vec<String>, String>)], paint: Paint) -> String {
    let mut o = format!(
        "\n{}\n",
        paint.head("Review queue: conditions the answers may leave out (never a gate)")
    );
    for (id, item) in queue {
        match item {
            Ok(list) => {
                for x in list {
                    let _ = writeln!(o, "  {:<14} {}", one_line(id), one_line(x));
                }
            }
            Err(e) => {
                let _ = writeln!(
                    o,
                    "  {:<14} {}",
                    one_line(id),
                    paint.bad(&format!("check failed: {}", one_line(e)))
                );
            }
        }
    }
    o
}

/// The summary of the human report: across answers under each definition, per tag, and the
/// agreement with the labels when there are labels.
pub fn human_summary(head: &AnswerHead, s: &ScoreSummary, confidence: f64, paint: Paint) -> String {
    let mut o = String::new();
    let pct = (confidence * 100.0).round();
    let _ = writeln!(o, "{} · {}", paint.head(head.log), head.line());
    across_answers(&mut o, s, pct, paint);
    if s.without_passages > 0 {
        let _ = writeln!(
            o,
            "  {}",
            paint.bad(&format!(
                "{} had no passage text: none of their claims can be supported",
                crate::report::count(s.without_passages as u64, "answer", "answers")
            ))
        );
    }
    if !s.by_tag.is_empty() {
        by_tag(&mut o, s, pct, paint);
    }
    if let Some(l) = &s.labels {
        human_labels(&mut o, l, pct, paint);
    }
    o
}

/// Writes one row of the table across answers: its name, then a cell per definition.
type Row<'a> = dyn Fn(&mut String, &str, &dyn Fn(&Aggregate) -> String) + 'a;

/// The rates corrected for the checker's errors, each with its basis, and why a correction is
/// undefined where it is.
fn corrected_rows(o: &mut String, s: &ScoreSummary, row: &Row) {
    type Get = fn(&Aggregate) -> Option<&crate::stats::correct::Corrected>;
    let answers: Get = |a| a.unsupported_answers_corrected.as_ref();
    let claims: Get = |a| a.unsupported_claims_corrected.as_ref();
    for (what, get) in [("answers", answers), ("claims", claims)] {
        let Some(c0) = get(&s.definitions[0]) else {
            continue;
        };
        if what == "claims" {
            row(o, "unsupported-claim rate", &|a| {
                crate::report::fmt_kn(&a.unsupported_claims)
            });
        }
        row(
            o,
            &format!("  corrected for the checker ({})", c0.method.as_str()),
            &|a| get(a).map(crate::report::fmt_corrected).unwrap_or_default(),
        );
        for a in &s.definitions {
            let Some(c) = get(a) else { continue };
            let _ = writeln!(
                o,
                "      {}: {}{}",
                a.definition.as_str(),
                crate::report::corrected_basis(c),
                c.undefined
                    .as_ref()
                    .map(|u| format!("; undefined: {u}"))
                    .unwrap_or_default()
            );
        }
    }
}

/// The table across answers (one column per definition), the counts, and the unsupported-answer
/// rate under each answer rule and by answer length.
fn across_answers(o: &mut String, s: &ScoreSummary, pct: f64, paint: Paint) {
    let _ = writeln!(o, "\n{}", paint.head("Across answers"));
    let _ = write!(o, "  {:<48}", "");
    for a in &s.definitions {
        let _ = write!(o, " {:<30}", a.definition.as_str());
    }
    let _ = writeln!(o);
    let row = |o: &mut String, name: &str, f: &dyn Fn(&Aggregate) -> String| {
        let _ = write!(o, "  {name:<48}");
        for a in &s.definitions {
            let _ = write!(o, " {:<30}", f(a));
        }
        let _ = writeln!(o);
    };
    row(
        o,
        &format!("unsupported-answer rate ({pct}% CI): gate on this"),
        &|a| crate::report::fmt_kn(&a.unsupported_answers),
    );
    if let Some(c0) = &s.definitions[0].unsupported_answers_clustered {
        row(
            o,
            &format!("  clustered CI ({} clusters)", c0.clusters),
            &|a| {
                a.unsupported_answers_clustered
                    .map(|c| crate::report::fmt_ci(c.ci_low, c.ci_high))
                    .unwrap_or_default()
            },
        );
    }
    corrected_rows(o, s, &row);
    row(o, "claim-level faithfulness (micro)", &|a| {
        format!("{}/{} {}", a.faithful_claims, a.claims, opt(a.micro))
    });
    row(o, "answer-level faithfulness (macro)", &|a| {
        opt(a.macro_score)
    });
    let a0 = &s.definitions[0];
    let _ = writeln!(
        o,
        "  {}: {} scored ({} of them partial refusals), {}, {} with no claims, {} not scored (errors)",
        crate::report::count(a0.answers as u64, "answer", "answers"),
        a0.unsupported_answers.n,
        a0.partial_refusals,
        crate::report::count(a0.refusals as u64, "refusal", "refusals"),
        a0.no_claims,
        a0.errors
    );
    if s.definitions.len() > 1 {
        let _ = writeln!(o, "  (same verdicts; strict counts only supported claims, non-contradiction also counts not_found)");
    }
    // the answer rule swept, and the rate by length: "any" grows with the number of claims
    let parts: Vec<String> = a0
        .by_rule
        .iter()
        .map(|(r, x)| format!("{} {}", r.name(), crate::report::fmt_kn(x)))
        .collect();
    let _ = writeln!(
        o,
        "  {} unsupported under each answer rule: {}",
        a0.definition.as_str(),
        parts.join(" · ")
    );
    let parts: Vec<String> = a0
        .by_length
        .iter()
        .filter(|(_, x)| x.n > 0)
        .map(|(name, x)| format!("{name} {}", crate::report::fmt_kn(x)))
        .collect();
    if parts.len() > 1 {
        let _ = writeln!(
            o,
            "  {} unsupported by answer length: {}",
            a0.definition.as_str(),
            parts.join(" · ")
        );
    }
}

/// The unsupported-answer (and -claim) rate of each tag under each definition, and the labels'
/// rate when there are labels.
fn by_tag(o: &mut String, s: &ScoreSummary, pct: f64, paint: Paint) {
    let _ = writeln!(
        o,
        "\n{}",
        paint.head(&format!("By tag: unsupported-answer rate ({pct}% CI)"))
    );
    let width = tag_width(s.by_tag.iter().map(|t| t.tag.as_str()), 28);
    for t in &s.by_tag {
        let _ = write!(
            o,
            "  {:<width$} {:>6} answers",
            tag_cell(&t.tag, width),
            t.answers
        );
        for ((a, r), cl) in s
            .definitions
            .iter()
            .zip(&t.unsupported_answers)
            .zip(&t.unsupported_claims)
        {
            let _ = write!(
                o,
                "   {} {} (claims {})",
                a.definition.as_str(),
                crate::report::fmt_kn(r),
                crate::report::fmt_kn(cl)
            );
        }
        if let Some(l) = &t.labelled_hallucinated {
            let _ = write!(o, "   labelled hallucinated {}", crate::report::fmt_kn(l));
        }
        let _ = writeln!(o);
    }
}

/// A rank correlation, or `-` when it is undefined (a list with no spread).
fn fmt_rho(r: f64) -> String {
    if r.is_finite() {
        format!("{r:.2}")
    } else {
        "-".into()
    }
}

fn human_labels(o: &mut String, l: &LabelReport, pct: f64, paint: Paint) {
    let _ = writeln!(
        o,
        "\n{}",
        paint.head(&format!(
            "Agreement with the labels ({} labelled answers scored, {} hallucinated; {pct}% CIs)",
            l.labelled, l.hallucinated
        ))
    );
    if l.labelled_not_scored > 0 || l.unlabelled > 0 {
        let _ = writeln!(
            o,
            "  left out: {} labelled but not scored (refusals, no claims, errors), {} scored without a label",
            l.labelled_not_scored, l.unlabelled
        );
    }
    for g in &l.by_definition {
        confusion(o, g);
        breakdowns(o, g, paint);
    }
    auroc_and_sweep(o, l, pct);
}

/// Under one definition: the confusion matrix of labels and flags, precision, recall and
/// specificity (clustered when asked), F1 and balanced accuracy against flagging everything.
fn confusion(o: &mut String, g: &LabelAgreement) {
    let c = &g.all;
    let _ = writeln!(
        o,
        "  {}: flagged = some claim not {}",
        g.definition.as_str(),
        if g.definition == Definition::Strict {
            "supported"
        } else {
            "passing (contradicted)"
        }
    );
    let _ = writeln!(o, "    {:<22} {:>8} {:>8}", "", "flagged", "passed");
    let _ = writeln!(
        o,
        "    {:<22} {:>8} {:>8}",
        "labelled hallucinated", c.tp, c.fn_
    );
    let _ = writeln!(o, "    {:<22} {:>8} {:>8}", "labelled faithful", c.fp, c.tn);
    let _ = writeln!(
        o,
        "    precision {}   recall {}   specificity {}",
        crate::report::fmt_kn(&c.precision),
        crate::report::fmt_kn(&c.recall),
        crate::report::fmt_kn(&c.specificity)
    );
    if let (Some(r), Some(sp)) = (&g.recall_clustered, &g.specificity_clustered) {
        let _ = writeln!(
            o,
            "    clustered CIs: recall {} ({} clusters)   specificity {} ({} clusters)",
            crate::report::fmt_ci(r.ci_low, r.ci_high),
            r.clusters,
            crate::report::fmt_ci(sp.ci_low, sp.ci_high),
            sp.clusters
        );
    }
    let n = c.tp + c.fp + c.fn_ + c.tn;
    let pos = c.tp + c.fn_;
    let _ = writeln!(
        o,
        "    F1 {}   balanced accuracy {}   (flagging every answer: F1 {}, balanced accuracy 0.50)",
        fmt_est(&c.f1),
        fmt_est(&c.balanced_accuracy),
        if n + pos > 0 {
            format!("{:.2}", 2.0 * pos as f64 / (n + pos) as f64)
        } else {
            "-".into()
        }
    );
}

/// Under one definition: the agreement per tag, within each stratum, under each answer rule, as
/// a ranking of tags, and the recall per label type.
fn breakdowns(o: &mut String, g: &LabelAgreement, paint: Paint) {
    let width = tag_width(g.by_tag.keys().map(|t| t.as_str()), 24);
    for (t, c) in &g.by_tag {
        let _ = writeln!(
            o,
            "    tag {:<width$} precision {}  recall {}  F1 {}  balanced accuracy {}",
            tag_cell(t, width),
            crate::report::fmt_rate(c.precision.rate),
            crate::report::fmt_rate(c.recall.rate),
            fmt_est(&c.f1),
            fmt_est(&c.balanced_accuracy)
        );
    }
    let width = tag_width(g.by_stratum.keys().map(|t| t.as_str()), 24);
    for (t, c) in &g.by_stratum {
        let _ = writeln!(
            o,
            "    within {:<width$} {:>5} answers  F1 {}  balanced accuracy {}",
            tag_cell(t, width),
            c.tp + c.fp + c.fn_ + c.tn,
            fmt_est(&c.f1),
            fmt_est(&c.balanced_accuracy)
        );
    }
    if let Some(m) = g.macro_balanced_accuracy {
        let _ = writeln!(
            o,
            "    balanced accuracy, the mean over strata: {m:.2} (pooled: {})",
            fmt_est(&g.all.balanced_accuracy)
        );
    }
    let parts: Vec<String> = g
        .by_rule
        .iter()
        .map(|(r, e)| format!("{} {}", r.name(), fmt_est(e)))
        .collect();
    let _ = writeln!(
        o,
        "    balanced accuracy under each answer rule: {}",
        parts.join(" · ")
    );
    if let Some((answers, claims)) = g.tag_rank_correlation {
        let _ = writeln!(
            o,
            "    ranking the tags: Spearman's rho with the labels' hallucination rate {} by unsupported answers, {} by unsupported claims",
            fmt_rho(answers),
            fmt_rho(claims)
        );
    }
    if g.pooled_exceeds_every_stratum {
        let _ = writeln!(
            o,
            "    {}",
            paint.bad("warning: the pooled balanced accuracy is above every stratum's: it mostly tells the strata apart, not faithful answers from hallucinated ones; judge the checker by the strata")
        );
    }
    for (t, r) in &g.recall_by_type {
        let _ = writeln!(
            o,
            "    caught, labelled {:<24} {}",
            one_line(t),
            crate::report::fmt_kn(r)
        );
    }
}

/// The AUROC of the lowest claim score, and the threshold the sweep recommends on it.
fn auroc_and_sweep(o: &mut String, l: &LabelReport, pct: f64) {
    match &l.auroc {
        Some(a) => {
            let _ = writeln!(
                o,
                "  AUROC of the lowest claim score: {:.3} [{:.3}, {:.3}] ({} faithful, {} hallucinated; Hanley-McNeil interval)",
                a.auroc, a.ci_low, a.ci_high, a.faithful, a.hallucinated
            );
        }
        None => {
            let _ = writeln!(
                o,
                "  AUROC: none ({} of {} labelled answers have a score on every claim, and both labels are needed)",
                l.with_scores, l.labelled
            );
        }
    }
    if let Some(sw) = &l.sweep {
        match (&sw.max_false_alarm, &sw.recommended) {
            (Some(r), Some(p)) => {
                let _ = writeln!(
                    o,
                    "  threshold on the lowest claim score for at most {r:.2} false alarms{}: {:.3} (flag below it): false alarms {}, caught {}",
                    sw.calibrate_on
                        .map(|f| format!(" (chosen on {} answers, {:.0}% of them)", sw.calibration_answers, f * 100.0))
                        .unwrap_or_default(),
                    p.threshold,
                    crate::report::fmt_kn(&p.false_alarms),
                    crate::report::fmt_kn(&p.detection)
                );
                if let Some(h) = &sw.held_out {
                    let _ = writeln!(
                        o,
                        "    on the {} held-out answers: false alarms {}, caught {}",
                        sw.held_out_answers,
                        crate::report::fmt_kn(&h.false_alarms),
                        crate::report::fmt_kn(&h.detection)
                    );
                }
            }
            (Some(r), None) => {
                let _ = writeln!(
                    o,
                    "  no threshold on the lowest claim score has a false-alarm upper bound ({}% CI) at or under {r:.2} and catches anything: more labelled faithful answers would narrow it",
                    (pct).round()
                );
            }
            (None, _) => {
                let _ = writeln!(
                    o,
                    "  {} thresholds on the lowest claim score in the JSON output; add --max-false-alarm R for a recommendation",
                    sw.points.len()
                );
            }
        }
    }
}
