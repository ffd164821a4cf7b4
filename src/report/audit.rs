//! The quarterly audit: one self-contained HTML file (inline SVG, no external assets) and the same
//! content as Markdown, for each checker: rates with intervals, the sweep chart, hard cases,
//! agreement with a person's labels, flaky cases, unreviewed mutants and fingerprints.

use super::{fmt_ci, fmt_rate, fmt_score, fmt_settings};
use crate::engine::record::{RecordCase, RecordRun};
use crate::engine::summary::Summary;
use crate::engine::sweep::SweepResult;
use crate::model::case::Label;
use crate::model::case::ReviewState;
use crate::model::case::{CaseKind, Expected, Outcome, Role};
use crate::stats::{cohen_kappa_ci, Kappa, Rate};
use crate::text::escape::{escape_markup, escape_md_cell};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Everything the audit says about one checker.
pub struct CheckerAudit {
    pub checker: String,
    pub kind: String,
    pub settings: BTreeMap<String, String>,
    /// Per suite: its run record and summary.
    pub suites: Vec<(RecordRun, Summary)>,
    pub sweep: SweepResult,
    pub chart_svg: String,
    /// What the checker's LLM calls cost (and per caught fault), when it made any.
    pub cost: Option<String>,
}

/// Precision and recall of "not supported" for one hard-case type.
#[derive(Debug, Clone, PartialEq)]
pub struct HardCaseAgreement {
    pub case_type: String,
    pub n: usize,
    /// Flagged by the checker and not supported per the person.
    pub true_flags: usize,
    pub flagged: usize,
    pub not_supported: usize,
}

fn hard_cases(a: &CheckerAudit) -> Vec<(&str, &RecordCase)> {
    a.suites
        .iter()
        .flat_map(|(r, _)| {
            r.cases
                .iter()
                .filter(|c| c.kind == CaseKind::HardCase)
                .map(move |c| (r.suite.as_str(), c))
        })
        .collect()
}

fn flagged(c: &RecordCase) -> Option<bool> {
    c.verdict.map(Label::flagged)
}

/// Cohen's kappa between the person and the checker on hard cases, on "supported" versus "not
/// supported" (the checker cannot say "misleading"); cases the checker could not score are left out.
pub fn kappa(a: &CheckerAudit) -> Option<Kappa> {
    let pairs: Vec<(bool, bool)> = hard_cases(a)
        .iter()
        .filter_map(|(_, c)| flagged(c).map(|f| (c.expected != Expected::Supported, f)))
        .collect();
    cohen_kappa_ci(&pairs, confidence(a))
}

/// The confidence level of the audit's intervals.
fn confidence(a: &CheckerAudit) -> f64 {
    a.suites.first().map(|(_, s)| s.confidence).unwrap_or(0.95)
}

/// `k/n rate [low, high]` with Wilson's interval, or `-` with no case.
fn share(k: usize, n: usize, confidence: f64) -> String {
    if n == 0 {
        return "-".into();
    }
    let r = Rate::new(k as u64, n as u64, confidence);
    format!(
        "{k}/{n} {:.2} {}",
        r.rate.unwrap_or(0.0),
        super::fmt_ci(r.ci_low, r.ci_high)
    )
}

/// Precision and recall for "not supported" per hard-case type.
pub fn agreement(a: &CheckerAudit) -> Vec<HardCaseAgreement> {
    let mut by: BTreeMap<String, HardCaseAgreement> = BTreeMap::new();
    for (_, c) in hard_cases(a) {
        let Some(f) = flagged(c) else { continue };
        let t = c.fault_type.clone().unwrap_or_default();
        let e = by.entry(t.clone()).or_insert(HardCaseAgreement {
            case_type: t,
            n: 0,
            true_flags: 0,
            flagged: 0,
            not_supported: 0,
        });
        let ns = c.expected != Expected::Supported;
        e.n += 1;
        e.flagged += f as usize;
        e.not_supported += ns as usize;
        e.true_flags += (f && ns) as usize;
    }
    by.into_values().collect()
}

fn rate(r: &Rate) -> (String, String, String) {
    (
        format!("{}/{}", r.k, r.n),
        fmt_rate(r.rate),
        fmt_ci(r.ci_low, r.ci_high),
    )
}

/// A neutral table: a title, header and rows, rendered as HTML or Markdown.
struct Table {
    title: String,
    head: Vec<String>,
    rows: Vec<Vec<String>>,
    note: Option<String>,
}

/// The audit's tables of one checker: one per suite with the missed faults and false alarms,
/// then the tables across suites (the sweep section goes between the two).
fn tables(a: &CheckerAudit) -> (Vec<Table>, Vec<Table>) {
    let mut per_suite: Vec<Table> = a
        .suites
        .iter()
        .flat_map(|(run, summary)| {
            std::iter::once(suite_table(run, summary)).chain(compound_table(run, summary))
        })
        .collect();
    wrong_table(a, &mut per_suite);
    let mut out = vec![fault_type_table(a)];
    hard_tables(a, &mut out);
    review_and_fingerprint_tables(a, &mut out);
    (per_suite, out)
}

/// What each fault type of the audit stands for, with its names in the public typologies.
fn fault_type_table(a: &CheckerAudit) -> Table {
    let used: Vec<&str> = a
        .suites
        .iter()
        .flat_map(|(_, s)| s.fault_types.iter())
        .filter(|f| f.mutants > 0 || f.hard_cases > 0)
        .map(|f| f.fault_type.as_str())
        .collect();
    let rows = crate::mutate::REGISTRY
        .iter()
        .filter(|op| op.purpose == crate::mutate::Purpose::Invariance || used.contains(&op.name))
        .map(|op| {
            vec![
                op.name.to_string(),
                op.stands_for.to_string(),
                op.typologies.to_string(),
            ]
        })
        .collect();
    Table {
        title: "What each fault type stands for".into(),
        head: vec![
            "fault type".into(),
            "stands for".into(),
            "in FRANK, RAGTruth, FaithBench, TofuEval".into(),
        ],
        rows,
        note: Some("Fault types with mutants or hard cases in these suites, and the rewrites, whose false alarms make the invariance row. A hard-case type that is no operator's name stands for what its suite says it is.".into()),
    }
}

/// One suite's table: false alarms, each fault type, all faults, with Wilson and clustered
/// intervals, detectable drops, equivalent and unreviewed counts.
fn suite_table(run: &RecordRun, summary: &Summary) -> Table {
    let pct = (summary.confidence * 100.0).round();
    let rows = suite_rows(summary);
    Table {
        title: format!(
            "Suite {} (sha256 {}…)",
            run.suite,
            &run.suite_sha256[..12.min(run.suite_sha256.len())]
        ),
        head: vec![
            "measure".into(),
            "k/n".into(),
            "rate".into(),
            format!("{pct}% CI"),
            "clustered CI".into(),
            "detectable drop".into(),
            "equivalent".into(),
            "parent flagged".into(),
            "unreviewed".into(),
        ],
        rows,
        note: Some(suite_note(summary) + &broken_note(run)),
    }
}

/// The mutants a person reviewed broken, per operator: the operators' defects, in no rate.
fn broken_note(run: &RecordRun) -> String {
    if run.broken_mutants.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = run
        .broken_mutants
        .iter()
        .map(|(op, n)| format!("{op} {n}"))
        .collect();
    format!(
        " Mutants reviewed broken (ungrammatical or nonsense: defects of their operator, in no rate): {}.",
        parts.join(", ")
    )
}

/// The rows of a suite's table: false alarms (on faithful and on invariance cases), each fault
/// type, all faults.
fn suite_rows(summary: &Summary) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let (k, r, ci) = rate(&summary.false_alarms);
    rows.push(vec![
        "false alarms on faithful cases".into(),
        k,
        r,
        ci,
        "-".into(),
        "-".into(),
        "-".into(),
        "-".into(),
        "-".into(),
    ]);
    if summary.invariance.n > 0 {
        let (k, r, ci) = rate(&summary.invariance);
        rows.push(vec![
            "false alarms on rewrites and equivalent mutants (invariance)".into(),
            k,
            r,
            ci,
            "-".into(),
            "-".into(),
            "-".into(),
            "-".into(),
            "-".into(),
        ]);
    }
    for ft in &summary.fault_types {
        if ft.mutants == 0 && ft.hard_cases == 0 {
            rows.push(vec![
                format!("{} caught", ft.fault_type),
                "no mutants".into(),
                "-".into(),
                "-".into(),
                "-".into(),
                "-".into(),
                "0".into(),
                "0".into(),
                "0".into(),
            ]);
            continue;
        }
        let (k, r, ci) = rate(&ft.caught);
        rows.push(vec![
            format!("{} caught", ft.fault_type),
            k,
            r,
            ci,
            fmt_ci(ft.clustered.ci_low, ft.clustered.ci_high),
            ft.detectable_drop
                .map(|d| format!("{d:.2}"))
                .unwrap_or_else(|| "none".into()),
            ft.equivalent.to_string(),
            ft.parent_flagged.to_string(),
            ft.unreviewed.to_string(),
        ]);
    }
    let mix = &summary.all_faults_mix;
    let (k, r, ci, clustered) = if mix.method == "wilson" {
        let (k, r, ci) = rate(&summary.all_faults);
        let c = &summary.all_faults_clustered;
        (k, r, ci, fmt_ci(c.ci_low, c.ci_high))
    } else {
        (
            format!("{}/{}", mix.k, mix.n),
            fmt_rate(mix.rate),
            fmt_ci(mix.ci_low, mix.ci_high),
            "-".into(),
        )
    };
    rows.push(vec![
        mix.label.replacen("all faults", "all faults caught", 1),
        k,
        r,
        ci,
        clustered,
        "-".into(),
        summary
            .fault_types
            .iter()
            .map(|f| f.equivalent)
            .sum::<usize>()
            .to_string(),
        summary.parent_flagged.to_string(),
        summary
            .fault_types
            .iter()
            .map(|f| f.unreviewed)
            .sum::<usize>()
            .to_string(),
    ]);
    rows
}

/// With compound faults: a suite's plain and compound catch rates per fault type.
fn compound_table(run: &RecordRun, summary: &Summary) -> Option<Table> {
    let all = summary.all_faults_compound.as_ref()?;
    let cell = |r: &Rate| {
        let (k, r, ci) = rate(r);
        format!("{k} {r} {ci}")
    };
    let mut rows: Vec<Vec<String>> = summary
        .fault_types
        .iter()
        .filter_map(|ft| ft.compound.as_ref().map(|s| (ft, s)))
        .filter(|(_, s)| s.plain.n + s.compound.n + s.compound_unreviewed as u64 > 0)
        .map(|(ft, s)| {
            vec![
                ft.fault_type.clone(),
                cell(&s.plain),
                cell(&s.compound),
                s.compound_unreviewed.to_string(),
            ]
        })
        .collect();
    rows.push(vec![
        crate::engine::mix::label("pooled", summary.all_faults_mix.max_per_claim),
        cell(&all.plain),
        cell(&all.compound),
        all.compound_unreviewed.to_string(),
    ]);
    Some(Table {
        title: format!("Suite {}: plain and compound faults", run.suite),
        head: vec![
            "fault type".into(),
            "plain".into(),
            "compound".into(),
            "compound unreviewed".into(),
        ],
        rows,
        note: Some("A compound fault is a fault operator's edit of a rewrite of the claim (the fault sits in paraphrased text, as real errors do); it counts in its fault type's row above. Plain: mutants of the claim itself and hard cases. Unreviewed compound mutants are in neither rate.".into()),
    })
}

/// What a weighted all-faults row is, said under the table (nothing under `pooled`).
fn mix_note(mix: &crate::engine::mix::MixedRate, all: &crate::stats::Rate) -> String {
    if mix.method == "wilson" {
        return String::new();
    }
    let (k, r, ci) = rate(all);
    format!(
        " Mix {}: the all-faults rate weighs each fault type's own rate ({} types); its interval is stratified (Wilson on an effective n of {:.1}); pooled over every fault it is {k} {r} {ci}.{}",
        mix.mix,
        mix.weights.len(),
        mix.n_effective,
        if mix.missing.is_empty() {
            String::new()
        } else {
            format!(
                " The mix weighs fault types with no scored fault here, left out and the rest renormalised: {}.",
                mix.missing.join(", ")
            )
        }
    )
}

/// What a suite's table counts, said under it.
fn suite_note(summary: &Summary) -> String {
    format!(
        "Clustered CI: the Wilson interval (with a t quantile) on the parent claims' effective number, from an upper bound on how alike a claim's mutants are caught, since the mutants of one claim tend to be caught or missed together. Detectable drop: the smallest fall in a catch rate that a paired comparison of this many faults detects with 80% power (the gate's one-sided test, alpha 0.05 shared by Holm over the rows); \"none\" means a comparison of this row cannot show any drop. Parent flagged: fault mutants of claims the checker already flags, in no catch rate.{}{}{}",
        mix_note(&summary.all_faults_mix, &summary.all_faults)
            + &summary
                .all_faults_mix
                .max_per_claim
                .map(|c| format!(" {}.", crate::engine::mix::cap_note(c)))
                .unwrap_or_default(),
        if summary.parent_flagged > 0 {
            format!(
                " Counted as before (every flagged fault mutant caught), all faults would be {}/{}.",
                summary.all_faults_every_mutant.k, summary.all_faults_every_mutant.n
            )
        } else {
            String::new()
        },
        if summary.errors > 0 {
            format!(
                " {} case(s) could not be scored: in no rate, never a pass.",
                summary.errors
            )
        } else {
            String::new()
        }
    )
}

/// Each missed fault and each false alarm, case by case: what a person acts on.
fn wrong_table(a: &CheckerAudit, out: &mut Vec<Table>) {
    // what a person acts on: each missed fault and each false alarm, case by case
    let wrong: Vec<Vec<String>> = a
        .suites
        .iter()
        .flat_map(|(r, _)| {
            r.cases
                .iter()
                // by role, as the rates count them: a flagged equivalent mutant is in no rate
                .filter(|c| {
                    matches!(
                        (c.role(), c.outcome),
                        (Role::Fault, Outcome::Missed)
                            | (Role::FalseAlarmOpportunity, Outcome::FalseAlarm)
                    )
                })
                .map(move |c| {
                    vec![
                        r.suite.clone(),
                        match c.outcome {
                            Outcome::Missed => "missed fault".into(),
                            _ => "false alarm".into(),
                        },
                        c.id.clone(),
                        c.fault_type.clone().unwrap_or_else(|| "-".into()),
                        c.verdict.map(Label::as_str).unwrap_or("error").to_string(),
                        fmt_score(c.score),
                        c.claim.clone(),
                        c.evidence_window.clone().unwrap_or_default(),
                    ]
                })
        })
        .collect();
    out.push(Table {
        title: "Missed faults and false alarms".into(),
        head: vec![
            "suite".into(),
            "what".into(),
            "id".into(),
            "fault type".into(),
            "checker".into(),
            "score".into(),
            "claim".into(),
            "evidence".into(),
        ],
        note: wrong
            .is_empty()
            .then(|| "None: every fault was caught and no faithful case was flagged.".into()),
        rows: wrong,
    });
}

/// The hard cases and the agreement with a person on them.
fn hard_tables(a: &CheckerAudit, out: &mut Vec<Table>) {
    let hard = hard_cases(a);
    if !hard.is_empty() {
        out.push(Table {
            title: "Hard cases".into(),
            head: vec![
                "suite".into(),
                "id".into(),
                "type".into(),
                "person".into(),
                "checker".into(),
                "score".into(),
                "claim".into(),
            ],
            rows: hard
                .iter()
                .map(|(s, c)| {
                    vec![
                        s.to_string(),
                        c.id.clone(),
                        c.fault_type.clone().unwrap_or_default(),
                        c.expected.as_str().to_string(),
                        c.verdict.map(Label::as_str).unwrap_or("error").to_string(),
                        fmt_score(c.score),
                        c.claim.clone(),
                    ]
                })
                .collect(),
            note: None,
        });
        out.push(Table {
            title: "Agreement with a person on hard cases".into(),
            head: vec!["hard-case type".into(), "cases".into(), "precision (not supported)".into(), "recall (not supported)".into()],
            rows: agreement(a)
                .iter()
                .map(|g| {
                    let c = confidence(a);
                    vec![
                        g.case_type.clone(),
                        g.n.to_string(),
                        share(g.true_flags, g.flagged, c),
                        share(g.true_flags, g.not_supported, c),
                    ]
                })
                .collect(),
            note: Some(format!(
                "Cohen's kappa (supported vs not supported): {}. Precision: of the cases the checker flagged, the share a person says are not supported; recall: of those a person says are not supported, the share the checker flagged; each with its count and {}% Wilson interval.",
                match kappa(a) {
                    Some(k) => format!(
                        "{:.2} ({}% CI {}, n = {}; large-sample standard error {:.2})",
                        k.kappa,
                        (confidence(a) * 100.0).round(),
                        super::fmt_ci(k.ci_low, k.ci_high),
                        k.n,
                        k.std_err
                    ),
                    None => "- (no case, or every case one label)".into(),
                },
                (confidence(a) * 100.0).round()
            )),
        });
    }
}

/// Unreviewed mutants, flaky cases and the fingerprints of checker and suites.
fn review_and_fingerprint_tables(a: &CheckerAudit, out: &mut Vec<Table>) {
    let unreviewed: Vec<Vec<String>> = a
        .suites
        .iter()
        .flat_map(|(r, _)| {
            r.cases
                .iter()
                .filter(|c| c.review == Some(ReviewState::Unreviewed))
                .map(move |c| {
                    vec![
                        r.suite.clone(),
                        c.id.clone(),
                        c.fault_type.clone().unwrap_or_default(),
                        c.parent.clone().unwrap_or_default(),
                        c.claim.clone(),
                    ]
                })
        })
        .collect();
    out.push(Table {
        title: "Unreviewed mutants (need a person)".into(),
        head: vec![
            "suite".into(),
            "id".into(),
            "operator".into(),
            "parent".into(),
            "text".into(),
        ],
        note: unreviewed
            .is_empty()
            .then(|| "None: every generated mutant has a person's review.".into()),
        rows: unreviewed,
    });
    out.push(Table {
        title: "Flaky cases".into(),
        head: vec!["suite".into(), "id".into(), "verdicts".into()],
        rows: Vec::new(),
        note: Some("These runs scored each case once, so flakiness could not be measured; a repeated run is needed to see verdicts that change.".into()),
    });
    let mut fp = vec![
        vec!["checker".into(), format!("{} ({})", a.checker, a.kind)],
        vec!["settings".into(), fmt_settings(&a.settings)],
    ];
    if let Some(c) = &a.cost {
        fp.push(vec!["LLM cost".into(), c.clone()]);
    }
    for (run, _) in &a.suites {
        fp.push(vec![
            format!("suite {}", run.suite),
            format!("{} sha256 {}", run.path, run.suite_sha256),
        ]);
    }
    out.push(Table {
        title: "Fingerprints".into(),
        head: vec!["what".into(), "value".into()],
        rows: fp,
        note: None,
    });
}

/// The audit as one self-contained HTML page.
pub fn html(title: &str, audits: &[CheckerAudit], proxy: &Proxy) -> String {
    let mut o = String::new();
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>
body{{font-family:system-ui,sans-serif;margin:2rem auto;max-width:1100px;color:#222;padding:0 1rem}}
h1{{font-size:1.6rem}} h2{{margin-top:2.5rem;border-bottom:2px solid #ddd;padding-bottom:.3rem}} h3{{margin-top:1.6rem}}
table{{border-collapse:collapse;margin:.6rem 0;font-size:.9rem}} th,td{{border:1px solid #ccc;padding:.3rem .55rem;text-align:left;vertical-align:top}}
th{{background:#f3f3f3}} .note{{color:#555;font-size:.9rem}} .chart{{margin:1rem 0}}
</style></head><body>\n<h1>{}</h1>\n<p class=\"note\">Rates carry Wilson intervals; a dozen cases find bugs in a checker but cannot choose a threshold. Errors count in no rate and never as passes.</p>\n",
        escape_markup(title),
        escape_markup(title)
    );
    for a in audits {
        let _ = writeln!(
            o,
            "<h2>Checker {} <small>({})</small></h2>",
            escape_markup(&a.checker),
            escape_markup(&a.kind)
        );
        let (per_suite, across) = tables(a);
        for (i, t) in per_suite.iter().chain(&across).enumerate() {
            if i == per_suite.len() {
                let _ = writeln!(
                    o,
                    "<h3>Threshold sweep (all suites together)</h3><div class=\"chart\">{}</div>",
                    a.chart_svg
                );
                for l in crate::report::sweep::findings(&a.sweep) {
                    let _ = writeln!(o, "<p class=\"note\">{}</p>", escape_markup(&l));
                }
            }
            html_table(&mut o, t);
        }
    }
    let across = proxy_tables(proxy);
    if !across.is_empty() {
        let _ = writeln!(o, "<h2>What the mutation scores are worth</h2>");
        for t in &across {
            html_table(&mut o, t);
        }
    }
    o.push_str("</body></html>\n");
    o
}

fn html_table(o: &mut String, t: &Table) {
    let _ = writeln!(o, "<h3>{}</h3>", escape_markup(&t.title));
    if !t.rows.is_empty() {
        let _ = write!(o, "<table><thead><tr>");
        for h in &t.head {
            let _ = write!(o, "<th>{}</th>", escape_markup(h));
        }
        let _ = writeln!(o, "</tr></thead><tbody>");
        for r in &t.rows {
            let _ = write!(o, "<tr>");
            for c in r {
                let _ = write!(o, "<td>{}</td>", escape_markup(c));
            }
            let _ = writeln!(o, "</tr>");
        }
        let _ = writeln!(o, "</tbody></table>");
    }
    if let Some(n) = &t.note {
        let _ = writeln!(o, "<p class=\"note\">{}</p>", escape_markup(n));
    }
}

/// The same audit as Markdown (the chart goes in a file beside it).
pub fn markdown(
    title: &str,
    audits: &[CheckerAudit],
    chart_files: &[String],
    proxy: &Proxy,
) -> String {
    let mut o = format!(
        "# {}\n\nRates carry Wilson intervals. Errors count in no rate and never as passes.\n",
        escape_md_cell(title)
    );
    for (i, a) in audits.iter().enumerate() {
        let _ = writeln!(
            o,
            "\n## Checker {} ({})",
            escape_md_cell(&a.checker),
            escape_md_cell(&a.kind)
        );
        let (per_suite, across) = tables(a);
        for (j, t) in per_suite.iter().chain(&across).enumerate() {
            if j == per_suite.len() {
                let _ = writeln!(
                    o,
                    "\n### Threshold sweep (all suites together)\n\n![sweep]({})\n",
                    chart_files.get(i).cloned().unwrap_or_default()
                );
                for l in crate::report::sweep::findings(&a.sweep) {
                    let _ = writeln!(o, "- {}", escape_md_cell(&l));
                }
            }
            md_table(&mut o, t);
        }
    }
    let across = proxy_tables(proxy);
    if !across.is_empty() {
        let _ = writeln!(o, "\n## What the mutation scores are worth");
        for t in &across {
            md_table(&mut o, t);
        }
    }
    o
}

fn md_table(o: &mut String, t: &Table) {
    let _ = writeln!(o, "\n### {}\n", escape_md_cell(&t.title));
    if !t.rows.is_empty() {
        let _ = writeln!(
            o,
            "| {} |",
            t.head
                .iter()
                .map(|h| escape_md_cell(h))
                .collect::<Vec<_>>()
                .join(" | ")
        );
        let _ = writeln!(o, "|{}", "---|".repeat(t.head.len()));
        for r in &t.rows {
            let _ = writeln!(
                o,
                "| {} |",
                r.iter()
                    .map(|c| escape_md_cell(c))
                    .collect::<Vec<_>>()
                    .join(" | ")
            );
        }
    }
    if let Some(n) = &t.note {
        let _ = writeln!(o, "\n{}", escape_md_cell(n));
    }
}

/// What the audit shows across checkers: computed by [`crate::engine::proxy`], worded here.
#[derive(Debug, Clone, Default)]
pub struct Proxy {
    /// The first checker against each other one, at the same false-alarm rate.
    pub matched: Vec<crate::engine::proxy::Matched>,
    /// Each checker's gap between mutation scores and recall on real errors.
    pub real: Option<crate::engine::proxy::RealErrors>,
}

fn proxy_tables(p: &Proxy) -> Vec<Table> {
    use crate::report::fmt_kn;
    let mut out = Vec::new();
    for m in &p.matched {
        let (a, b) = (&m.sides[0], &m.sides[1]);
        let at = |s: &crate::engine::proxy::SideAt| match s.threshold {
            Some(t) => format!("{t:.3}"),
            None => "own verdicts".into(),
        };
        let mut rows: Vec<Vec<String>> = m
            .rows
            .iter()
            .map(|r| {
                vec![
                    r.fault_type.clone(),
                    fmt_kn(&r.base),
                    fmt_kn(&r.candidate),
                    format!("{} / {}", r.base_only, r.candidate_only),
                    crate::stats::fmt_p(r.p_value),
                ]
            })
            .collect();
        rows.insert(
            0,
            vec![
                "false alarms (held equal)".into(),
                format!("{} at {}", fmt_kn(&a.false_alarms), at(a)),
                format!("{} at {}", fmt_kn(&b.false_alarms), at(b)),
                "-".into(),
                "-".into(),
            ],
        );
        let mut note = format!(
            "Both checkers at the false-alarm rate {:.2} ({}); a mutant counts where both pass its parent claim; p: two-sided exact McNemar.",
            m.budget, m.budget_from
        );
        if let Some(f) = &m.threshold_free {
            note.push_str(&format!(
                " Threshold-free (a fault scored below what it was made from): {:.2} and {:.2}, difference {:+.2} [{:.2}, {:.2}] by a context bootstrap.",
                f.base, f.candidate, f.difference, f.ci_low, f.ci_high
            ));
        }
        if m.better_at_own != m.better_matched {
            note.push_str(" The verdict at each checker's own threshold differs from the one at the same false-alarm rate: trust the matched one.");
        }
        out.push(Table {
            title: format!(
                "{} against {} at the same false-alarm rate",
                b.checker, a.checker
            ),
            head: vec![
                "fault type".into(),
                a.checker.clone(),
                b.checker.clone(),
                "caught by one only".into(),
                "p".into(),
            ],
            rows,
            note: Some(note),
        });
    }
    if let Some(r) = &p.real {
        out.push(Table {
            title: format!(
                "Mutants against real errors ({} in {})",
                crate::report::count(r.real_errors, "real error", "real errors"),
                crate::report::count(r.contexts, "context", "contexts")
            ),
            head: vec![
                "checker".into(),
                "informative mutants caught".into(),
                "real errors caught".into(),
                "gap [context bootstrap]".into(),
            ],
            rows: r
                .gaps
                .iter()
                .map(|g| {
                    vec![
                        g.checker.clone(),
                        fmt_kn(&g.mutants),
                        fmt_kn(&g.real),
                        format!("{:+.2} [{:.2}, {:.2}]", g.gap, g.ci_low, g.ci_high),
                    ]
                })
                .collect(),
            note: (!r.warnings.is_empty() || r.provisional).then(|| {
                let mut w = r.warnings.clone();
                if r.provisional {
                    w.insert(0, "PROVISIONAL: no mutant is reviewed yet, so every unreviewed mutant is taken for a fault.".into());
                }
                w.join(" ")
            }),
        });
    }
    out
}
