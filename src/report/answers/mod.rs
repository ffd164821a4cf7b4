//! Reports of scored answers: per answer, every claim with its verdict and evidence; across
//! answers, micro and macro faithfulness and the unsupported-answer rate under each definition.

pub mod document;

use super::{fmt_score, Paint};
use crate::answers::score::{AnswerComparison, AnswerResult, Definition, ScoreRecord, Status};
use crate::answers::tally::{Aggregate, LabelReport, ScoreSummary};
use crate::model::case::Label;
use crate::stats::agreement::Estimate;
use crate::text::escape_markup;
use std::fmt::Write;

fn opt(x: Option<f64>) -> String {
    x.map(|v| format!("{v:.2}")).unwrap_or_else(|| "-".into())
}

/// What every score report opens with.
pub struct AnswerHead<'a> {
    pub log: &'a str,
    pub checker: &'a str,
    pub decomposer: &'a str,
    pub shard: Option<crate::model::shard::Shard>,
}

impl<'a> AnswerHead<'a> {
    pub fn of(r: &'a ScoreRecord) -> AnswerHead<'a> {
        AnswerHead {
            log: &r.log,
            checker: &r.checker,
            decomposer: &r.decomposer,
            shard: r.shard,
        }
    }
    fn line(&self) -> String {
        format!(
            "checker {} · decomposer {}{}",
            self.checker,
            self.decomposer,
            self.shard
                .map(|s| format!(
                    " · shard {s} (a part of the log: merge the shards with `faithprobe merge`)"
                ))
                .unwrap_or_default()
        )
    }
}

/// Evidence on one line: whitespace runs folded to one space, cut at 200 characters.
pub(crate) fn one_line(s: &str) -> String {
    let folded = crate::text::printable(&s.split_whitespace().collect::<Vec<_>>().join(" "));
    match folded.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &folded[..i]),
        None => folded,
    }
}

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
    o
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

fn fmt_est(e: &Estimate) -> String {
    format!(
        "{} {}",
        super::fmt_rate(e.value),
        super::fmt_ci(e.ci_low, e.ci_high)
    )
}

/// The summary of the human report: across answers under each definition, per tag, and the
/// agreement with the labels when there are labels.
pub fn human_summary(head: &AnswerHead, s: &ScoreSummary, confidence: f64, paint: Paint) -> String {
    let mut o = String::new();
    let pct = (confidence * 100.0).round();
    let _ = writeln!(o, "{} · {}", paint.head(head.log), head.line());
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
        &mut o,
        &format!("unsupported-answer rate ({pct}% CI): gate on this"),
        &|a| super::fmt_kn(&a.unsupported_answers),
    );
    if let Some(c0) = &s.definitions[0].unsupported_answers_clustered {
        row(
            &mut o,
            &format!("  clustered CI ({} clusters)", c0.clusters),
            &|a| {
                a.unsupported_answers_clustered
                    .map(|c| super::fmt_ci(c.ci_low, c.ci_high))
                    .unwrap_or_default()
            },
        );
    }
    row(&mut o, "claim-level faithfulness (micro)", &|a| {
        format!("{}/{} {}", a.faithful_claims, a.claims, opt(a.micro))
    });
    row(&mut o, "answer-level faithfulness (macro)", &|a| {
        opt(a.macro_score)
    });
    let a0 = &s.definitions[0];
    let _ = writeln!(
        o,
        "  {}: {} scored ({} of them partial refusals), {}, {} with no claims, {} not scored (errors)",
        super::count(a0.answers as u64, "answer", "answers"),
        a0.unsupported_answers.n,
        a0.partial_refusals,
        super::count(a0.refusals as u64, "refusal", "refusals"),
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
        .map(|(r, x)| format!("{} {}", r.name(), super::fmt_kn(x)))
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
        .map(|(name, x)| format!("{name} {}", super::fmt_kn(x)))
        .collect();
    if parts.len() > 1 {
        let _ = writeln!(
            o,
            "  {} unsupported by answer length: {}",
            a0.definition.as_str(),
            parts.join(" · ")
        );
    }
    if s.without_passages > 0 {
        let _ = writeln!(
            o,
            "  {}",
            paint.bad(&format!(
                "{} had no passage text: none of their claims can be supported",
                super::count(s.without_passages as u64, "answer", "answers")
            ))
        );
    }
    if !s.by_tag.is_empty() {
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
                    super::fmt_kn(r),
                    super::fmt_kn(cl)
                );
            }
            if let Some(l) = &t.labelled_hallucinated {
                let _ = write!(o, "   labelled hallucinated {}", super::fmt_kn(l));
            }
            let _ = writeln!(o);
        }
    }
    if let Some(l) = &s.labels {
        human_labels(&mut o, l, pct, paint);
    }
    o
}

/// A rank correlation, or `-` when it is undefined (a list with no spread).
fn fmt_rho(r: f64) -> String {
    if r.is_finite() {
        format!("{r:.2}")
    } else {
        "-".into()
    }
}

/// The longest tag wider than a tag column may grow before tags are cut.
const MAX_TAG_WIDTH: usize = 40;

/// The width of a tag column: the longest tag (at least `least`, at most [`MAX_TAG_WIDTH`]).
fn tag_width<'a>(tags: impl Iterator<Item = &'a str>, least: usize) -> usize {
    tags.map(|t| one_line(t).chars().count())
        .max()
        .unwrap_or(0)
        .clamp(least, MAX_TAG_WIDTH)
}

/// A tag on one line, cut with an ellipsis when it is wider than `width`.
fn tag_cell(tag: &str, width: usize) -> String {
    let t = one_line(tag);
    if t.chars().count() <= width {
        t
    } else {
        t.chars().take(width - 1).collect::<String>() + "…"
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
            super::fmt_kn(&c.precision),
            super::fmt_kn(&c.recall),
            super::fmt_kn(&c.specificity)
        );
        if let (Some(r), Some(sp)) = (&g.recall_clustered, &g.specificity_clustered) {
            let _ = writeln!(
                o,
                "    clustered CIs: recall {} ({} clusters)   specificity {} ({} clusters)",
                super::fmt_ci(r.ci_low, r.ci_high),
                r.clusters,
                super::fmt_ci(sp.ci_low, sp.ci_high),
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
        let width = tag_width(g.by_tag.keys().map(|t| t.as_str()), 24);
        for (t, c) in &g.by_tag {
            let _ = writeln!(
                o,
                "    tag {:<width$} precision {}  recall {}  F1 {}  balanced accuracy {}",
                tag_cell(t, width),
                super::fmt_rate(c.precision.rate),
                super::fmt_rate(c.recall.rate),
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
                super::fmt_kn(r)
            );
        }
    }
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
                    super::fmt_kn(&p.false_alarms),
                    super::fmt_kn(&p.detection)
                );
                if let Some(h) = &sw.held_out {
                    let _ = writeln!(
                        o,
                        "    on the {} held-out answers: false alarms {}, caught {}",
                        sw.held_out_answers,
                        super::fmt_kn(&h.false_alarms),
                        super::fmt_kn(&h.detection)
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

/// The summary for a pull-request comment: across answers, per tag and agreement with labels.
/// Answer rows follow from [`markdown_answer_row`] under [`MARKDOWN_ANSWERS_HEAD`].
pub fn markdown_summary(head: &AnswerHead, s: &ScoreSummary) -> String {
    let cell = crate::text::escape_md_cell;
    let mut o = format!(
        "### faithprobe score: `{}`\n\n{}\n\n| measure |",
        crate::text::escape_md_code(head.log),
        cell(&head.line())
    );
    for a in &s.definitions {
        let _ = write!(o, " {} |", a.definition.as_str());
    }
    let _ = writeln!(o, "\n|---|{}", "---|".repeat(s.definitions.len()));
    let _ = write!(o, "| unsupported-answer rate |");
    for a in &s.definitions {
        let _ = write!(o, " {} |", super::fmt_kn(&a.unsupported_answers));
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
            crate::text::escape_md_code(&t.tag)
        );
        for r in &t.unsupported_answers {
            let _ = write!(o, " {} |", super::fmt_kn(r));
        }
    }
    let a0 = &s.definitions[0];
    let _ = writeln!(
        o,
        "\n\n{} ({} partial, scored), {} with no claims, {} not scored.",
        super::count(a0.refusals as u64, "refusal", "refusals"),
        a0.partial_refusals,
        super::count(a0.no_claims as u64, "answer", "answers"),
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
                super::fmt_kn(&c.precision),
                super::fmt_kn(&c.recall),
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
    let cell = crate::text::escape_md_cell;
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

fn drop_text(d: Option<f64>) -> String {
    d.map(|d| format!("{d:.2}"))
        .unwrap_or_else(|| "none (too few answers)".into())
}

/// The answer-level comparison, for a person.
pub fn comparison(c: &AnswerComparison, paint: Paint) -> String {
    let mut o = String::new();
    let r = super::fmt_kn;
    let _ = writeln!(
        o,
        "{} vs {}: answers paired by {}",
        paint.head(&c.base_log),
        paint.head(&c.candidate_log),
        c.pair_by
    );
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
    for row in c.rows.iter().filter(|r| !r.by_stratum.is_empty()) {
        let _ = writeln!(
            o,
            "\n  {} within each stratum (for reading; one-sided p unadjusted):",
            row.definition.as_str()
        );
        let width = tag_width(row.by_stratum.iter().map(|x| x.stratum.as_str()), 12);
        for x in &row.by_stratum {
            let _ = writeln!(
                o,
                "    {:<width$} {:>4} pairs  base {}  candidate {}  fixed {}  broken {}  p = {}",
                tag_cell(&x.stratum, width),
                x.paired,
                r(&x.base_unsupported),
                r(&x.candidate_unsupported),
                x.fixed,
                x.broken,
                crate::stats::fmt_p(x.p_worse)
            );
        }
    }
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
    o
}

/// The answer-level comparison for a pull-request comment.
pub fn comparison_markdown(c: &AnswerComparison) -> String {
    let cell = crate::text::escape_md_cell;
    let mut o = format!(
        "### faithprobe compare: `{}` vs `{}` (answers paired by {})\n\n{}\n\n| definition | pairs | base unsupported | candidate unsupported | fixed | broken | p (two-sided) | adjusted one-sided p | detectable rise |\n|---|---|---|---|---|---|---|---|---|\n",
        crate::text::escape_md_code(&c.base_log),
        crate::text::escape_md_code(&c.candidate_log),
        cell(&c.pair_by),
        if !c.failures.is_empty() {
            format!("**gate failed**: {}", cell(&c.failures.join("; ")))
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
            super::fmt_kn(&r.base_unsupported),
            super::fmt_kn(&r.candidate_unsupported),
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
    use super::junit::{case, document, suite, Status};
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
        let _ = write!(o, "<td>{}</td>", super::fmt_kn(&a.unsupported_answers));
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
            let _ = write!(o, "<td>{}</td>", super::fmt_kn(r));
        }
    }
    if let Some(l) = &s.labels {
        for g in &l.by_definition {
            let _ = write!(
                o,
                "</tr><tr><td>agreement with labels ({})</td><td colspan=\"{}\">precision {} · recall {} · F1 {} · balanced accuracy {}</td>",
                g.definition.as_str(),
                s.definitions.len(),
                super::fmt_kn(&g.all.precision),
                super::fmt_kn(&g.all.recall),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_tags_keep_the_columns_in_line() {
        let tags = [
            "gpt-4o/prompt-v7",
            "meta-llama/Llama-3.1-70B-Instruct/prompt-v12-with-context",
        ];
        let w = tag_width(tags.iter().copied(), 28);
        assert_eq!(w, MAX_TAG_WIDTH);
        let cells: Vec<String> = tags
            .iter()
            .map(|t| format!("{:<w$}|", tag_cell(t, w)))
            .collect();
        // every cell ends at the same column, the long one cut with an ellipsis
        assert!(
            cells.iter().all(|c| c.chars().count() == w + 1),
            "{cells:?}"
        );
        assert!(cells[1].contains('…'));
        assert_eq!(tag_width(["a"].iter().copied(), 28), 28);
    }
}
