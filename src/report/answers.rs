//! Reports of scored answers: per answer, every claim with its verdict and evidence; across
//! answers, micro and macro faithfulness and the unsupported-answer rate under each definition.

use super::{fmt_score, Paint};
use crate::answers::score::{aggregate, AnswerComparison, Definition, ScoreRecord, Status};
use crate::check::Label;
use crate::text::escape_markup;
use std::fmt::Write;

fn opt(x: Option<f64>) -> String {
    x.map(|v| format!("{v:.2}")).unwrap_or_else(|| "-".into())
}

/// The human report; `defs` are shown side by side (the first decides per-answer scores).
pub fn human(r: &ScoreRecord, defs: &[Definition], confidence: f64, paint: Paint) -> String {
    let mut o = String::new();
    let pct = (confidence * 100.0).round();
    let main = defs[0];
    let _ = writeln!(
        o,
        "{} · checker {} · decomposer {}",
        paint.head(&r.log),
        r.checker,
        r.decomposer
    );
    for a in &r.answers {
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
            .map(|t| format!(" [{t}]"))
            .unwrap_or_default();
        let _ = writeln!(o, "\n{}{tag}: {head}", paint.head(&a.id));
        if !a.question.is_empty() {
            let _ = writeln!(o, "  Q: {}", a.question);
        }
        if let Some(e) = &a.error {
            let _ = writeln!(o, "  {}", paint.bad(&crate::text::printable(e)));
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
                crate::text::printable(&c.text)
            );
            match (&c.evidence_passage, &c.evidence, &c.error) {
                (_, _, Some(e)) => {
                    let _ = writeln!(o, "  {:<19}error: {e}", "");
                }
                (Some(p), Some(w), _) => {
                    let _ = writeln!(o, "  {:<19}{p}: {w}", "");
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
                paint.dim(&format!(
                    "dropped ({}): {}",
                    d.reason,
                    crate::text::printable(&d.text).replace('\n', " ")
                ))
            );
        }
    }
    let queue: Vec<_> = r.answers.iter().filter(|a| a.omissions.is_some()).collect();
    if !queue.is_empty() {
        let _ = writeln!(
            o,
            "\n{}",
            paint.head("Review queue: conditions the answers may leave out (never a gate)")
        );
        for a in queue {
            match a.omissions.as_ref().expect("filtered") {
                Ok(list) if list.is_empty() => {}
                Ok(list) => {
                    for item in list {
                        let _ = writeln!(o, "  {:<14} {item}", a.id);
                    }
                }
                Err(e) => {
                    let _ = writeln!(
                        o,
                        "  {:<14} {}",
                        a.id,
                        paint.bad(&format!("check failed: {e}"))
                    );
                }
            }
        }
    }
    let _ = writeln!(o, "\n{}", paint.head("Across answers"));
    let _ = write!(o, "  {:<48}", "");
    for d in defs {
        let _ = write!(o, " {:<30}", d.as_str());
    }
    let _ = writeln!(o);
    let aggs: Vec<_> = defs
        .iter()
        .map(|d| aggregate(&r.answers, *d, confidence))
        .collect();
    let row =
        |o: &mut String, name: &str, f: &dyn Fn(&crate::answers::score::Aggregate) -> String| {
            let _ = write!(o, "  {name:<48}");
            for a in &aggs {
                let _ = write!(o, " {:<30}", f(a));
            }
            let _ = writeln!(o);
        };
    row(
        &mut o,
        &format!("unsupported-answer rate ({pct}% CI): gate on this"),
        &|a| super::fmt_kn(&a.unsupported_answers),
    );
    row(&mut o, "claim-level faithfulness (micro)", &|a| {
        format!("{}/{} {}", a.faithful_claims, a.claims, opt(a.micro))
    });
    row(&mut o, "answer-level faithfulness (macro)", &|a| {
        opt(a.macro_score)
    });
    let a0 = &aggs[0];
    let _ = writeln!(
        o,
        "  {}: {} scored, {}, {} with no claims, {} not scored (errors)",
        super::count(a0.answers as u64, "answer", "answers"),
        a0.unsupported_answers.n,
        super::count(a0.refusals as u64, "refusal", "refusals"),
        a0.no_claims,
        a0.errors
    );
    if defs.len() > 1 {
        let _ = writeln!(o, "  (same verdicts; strict counts only supported claims, non-contradiction also counts not_found)");
    }
    o
}

/// Markdown for a pull-request comment.
pub fn markdown(r: &ScoreRecord, defs: &[Definition], confidence: f64) -> String {
    let mut o = format!(
        "### faithgate score: `{}`\n\nchecker {} · decomposer {}\n\n| measure |",
        r.log, r.checker, r.decomposer
    );
    for d in defs {
        let _ = write!(o, " {} |", d.as_str());
    }
    let _ = writeln!(o, "\n|---|{}", "---|".repeat(defs.len()));
    let aggs: Vec<_> = defs
        .iter()
        .map(|d| aggregate(&r.answers, *d, confidence))
        .collect();
    let _ = write!(o, "| unsupported-answer rate |");
    for a in &aggs {
        let u = &a.unsupported_answers;
        let _ = write!(o, " {} |", super::fmt_kn(u));
    }
    let _ = write!(o, "\n| micro faithfulness |");
    for a in &aggs {
        let _ = write!(o, " {} |", opt(a.micro));
    }
    let _ = write!(o, "\n| macro faithfulness |");
    for a in &aggs {
        let _ = write!(o, " {} |", opt(a.macro_score));
    }
    let _ = writeln!(
        o,
        "\n\n{}, {} with no claims, {} not scored.",
        super::count(aggs[0].refusals as u64, "refusal", "refusals"),
        super::count(aggs[0].no_claims as u64, "answer", "answers"),
        aggs[0].errors
    );
    o
}

/// The answer-level comparison.
pub fn comparison(c: &AnswerComparison, paint: Paint) -> String {
    let mut o = String::new();
    let r = super::fmt_kn;
    let _ = writeln!(
        o,
        "{} answers paired by id ({} definition)",
        c.paired,
        c.definition.as_str()
    );
    let _ = writeln!(
        o,
        "  unsupported-answer rate: base {}  candidate {}",
        r(&c.base_unsupported),
        r(&c.candidate_unsupported)
    );
    let _ = writeln!(
        o,
        "  fixed {}  broken {}  exact McNemar p = {:.4} (one row: no adjustment)  detectable rise with 80% power: {}",
        c.fixed,
        c.broken,
        c.p_value,
        c.detectable_drop
            .map(|d| format!("{d:.2}"))
            .unwrap_or_else(|| "none (too few answers)".into())
    );
    if !c.newly_broken.is_empty() {
        let _ = writeln!(
            o,
            "\n{}",
            paint.head("Newly broken answers (read these before celebrating an average)")
        );
        for a in &c.newly_broken {
            let _ = writeln!(o, "  {}: {}", a.id, a.answer);
            for cl in a
                .claims
                .iter()
                .filter(|cl| cl.verdict != Some(Label::Supported))
            {
                let _ = writeln!(
                    o,
                    "    {:<12} {}",
                    cl.verdict.map(Label::as_str).unwrap_or("error"),
                    cl.text
                );
            }
        }
    }
    for (what, ids) in [
        ("only in the base", &c.only_in_base),
        ("only in the candidate", &c.only_in_candidate),
    ] {
        if !ids.is_empty() {
            let _ = writeln!(
                o,
                "\n{} answers {what} (not compared): {}",
                ids.len(),
                ids.join(", ")
            );
        }
    }
    let _ = writeln!(o);
    if c.failures.is_empty() {
        let _ = writeln!(
            o,
            "{} {} broken, {} fixed",
            paint.good("gate passed:"),
            c.broken,
            c.fixed
        );
    } else {
        for f in &c.failures {
            let _ = writeln!(o, "{} {f}", paint.bad("gate failed:"));
        }
    }
    o
}

/// A self-contained HTML page: the summary under each definition, then every answer with its
/// claims, verdicts, evidence and number notes.
pub fn html(r: &ScoreRecord, defs: &[Definition], confidence: f64) -> String {
    let mut o = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>faithgate score: {0}</title><style>
body{{font-family:system-ui,sans-serif;max-width:1100px;margin:2rem auto;padding:0 1rem;color:#222}}
table{{border-collapse:collapse;margin:.5rem 0;font-size:.9rem}} th,td{{border:1px solid #ccc;padding:.3rem .5rem;text-align:left;vertical-align:top}}
th{{background:#f3f3f3}} .supported{{color:#1a7f37}} .bad{{color:#b42318;font-weight:600}} .note{{color:#555;font-size:.85rem}}
</style></head><body><h1>faithgate score: {0}</h1><p class=\"note\">checker {1} · decomposer {2}</p>\n",
        escape_markup(&r.log),
        escape_markup(&r.checker),
        escape_markup(&r.decomposer)
    );
    o.push_str("<table><tr><th>measure</th>");
    for d in defs {
        let _ = write!(o, "<th>{}</th>", d.as_str());
    }
    o.push_str("</tr>");
    let aggs: Vec<_> = defs
        .iter()
        .map(|d| aggregate(&r.answers, *d, confidence))
        .collect();
    o.push_str("<tr><td>unsupported-answer rate (gate on this)</td>");
    for a in &aggs {
        let u = &a.unsupported_answers;
        let _ = write!(o, "<td>{}</td>", super::fmt_kn(u));
    }
    o.push_str("</tr><tr><td>claim-level faithfulness (micro)</td>");
    for a in &aggs {
        let _ = write!(o, "<td>{}</td>", opt(a.micro));
    }
    o.push_str("</tr><tr><td>answer-level faithfulness (macro)</td>");
    for a in &aggs {
        let _ = write!(o, "<td>{}</td>", opt(a.macro_score));
    }
    let _ = writeln!(
        o,
        "</tr></table><p class=\"note\">{} refusals and {} answers with no claims are counted apart; {} not scored.</p>",
        aggs[0].refusals, aggs[0].no_claims, aggs[0].errors
    );
    for a in &r.answers {
        let _ = write!(
            o,
            "<h2>{}</h2><p><b>Q:</b> {}<br><b>A:</b> {}</p>",
            escape_markup(&a.id),
            escape_markup(&a.question),
            escape_markup(&a.answer)
        );
        if a.refusal {
            o.push_str("<p class=\"note\">refusal: excluded from the averages</p>");
            continue;
        }
        if let Some(e) = &a.error {
            let _ = write!(o, "<p class=\"bad\">{}</p>", escape_markup(e));
        }
        if a.claims.is_empty() {
            o.push_str("<p class=\"note\">no claims: not a perfect score</p>");
            continue;
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
    }
    o.push_str("</body></html>\n");
    o
}
