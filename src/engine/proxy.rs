//! What a mutation score is worth as a proxy: two checkers compared at the same false-alarm rate
//! and threshold-free, and the gap between a checker's informative-mutant catch rate and its
//! recall on the suite's real errors (hard cases from labelled real output), measured on the
//! user's own data rather than assumed.
//!
//! Everything here reads finished run records; nothing is scored again. A case is flagged at a
//! threshold `t` when its score is below `t`, as in the sweep; a fault mutant is informative at
//! `t` only where its parent claim scores at least `t` (the checker supports the claim the fault
//! was made from). At a checker's own verdicts, informativeness is the record's own outcome.

use crate::engine::record::Record;
use crate::model::case::{CaseKind, Outcome, Role};
use crate::stats::bootstrap::{ratio_difference, Unit};
use crate::stats::{mcnemar_exact, Rate};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// How many resamples the context bootstrap draws.
pub const BOOTSTRAP_REPS: usize = 2000;
/// The bootstrap's seed: the same interval on every run and machine.
pub const BOOTSTRAP_SEED: u64 = 0x5EED_FA17;

/// What one case is to this module.
#[derive(Debug, Clone, Copy, PartialEq)]
enum What {
    Faithful,
    /// A fault mutant, with its parent claim's score (NaN when it has none).
    Mutant {
        parent_score: f64,
    },
    /// A hard case that is a fault; `real` when it is a real error.
    Hard {
        real: bool,
    },
}

#[derive(Debug, Clone)]
struct Item {
    key: (String, String),
    context: String,
    fault_type: String,
    what: What,
    /// NaN when the checker gave no score (an error, or a checker without scores).
    score: f64,
    /// The record's outcome at the checker's own verdict.
    outcome: Outcome,
}

impl Item {
    fn flagged_at(&self, t: f64) -> bool {
        self.score < t
    }
    fn informative_at(&self, t: f64) -> bool {
        match self.what {
            What::Mutant { parent_score } => parent_score >= t,
            _ => true,
        }
    }
    fn is_fault(&self) -> bool {
        !matches!(self.what, What::Faithful)
    }
}

/// Whether no mutant of the record has been reviewed: then, as `run`'s provisional rate does,
/// every unreviewed mutant is taken for a fault, and the output says so.
pub fn provisional(record: &Record) -> bool {
    let mutants = record
        .runs
        .iter()
        .flat_map(|r| &r.cases)
        .filter(|c| c.kind == CaseKind::Mutant);
    mutants.clone().next().is_some() && mutants.into_iter().all(|c| c.role() == Role::Unreviewed)
}

fn items(record: &Record) -> Vec<Item> {
    let provisional = provisional(record);
    let mut out = Vec::new();
    for run in &record.runs {
        let parents = run.parent_scores();
        let passed: HashMap<&str, bool> = run
            .cases
            .iter()
            .filter(|c| c.kind == CaseKind::Original)
            .map(|c| (c.id.as_str(), c.outcome == Outcome::Passed))
            .collect();
        for c in &run.cases {
            if c.outcome == Outcome::Error {
                continue;
            }
            let mut outcome = c.outcome;
            let role = match c.role() {
                // provisionally a fault, informative only where its parent passed
                Role::Unreviewed if provisional && c.kind == CaseKind::Mutant => {
                    let parent_passed = c
                        .parent
                        .as_deref()
                        .and_then(|p| passed.get(p).copied())
                        .unwrap_or(false);
                    outcome = match (parent_passed, c.outcome) {
                        (false, _) => Outcome::ParentFlagged,
                        (true, Outcome::FlaggedUnreviewed) => Outcome::Caught,
                        (true, _) => Outcome::Missed,
                    };
                    Role::Fault
                }
                r => r,
            };
            let what = match (role, c.kind) {
                (Role::FalseAlarmOpportunity, _) => What::Faithful,
                (Role::Fault, CaseKind::Mutant) => What::Mutant {
                    parent_score: c
                        .parent
                        .as_deref()
                        .and_then(|p| parents.get(p).copied())
                        .unwrap_or(f64::NAN),
                },
                (Role::Fault, _) => What::Hard { real: c.real },
                _ => continue,
            };
            out.push(Item {
                key: (run.suite.clone(), c.id.clone()),
                context: format!("{}/{}", run.suite, c.context),
                fault_type: c.fault_type.clone().unwrap_or_default(),
                what,
                score: c.score_or_nan(),
                outcome,
            });
        }
    }
    out
}

/// Whether every case that counts has a score: the condition for thresholds of one's own.
fn has_scores(items: &[Item]) -> bool {
    !items.is_empty() && items.iter().all(|i| !i.score.is_nan())
}

/// The highest threshold whose false-alarm rate on the faithful cases is at most `budget`:
/// the one that catches most at that budget. Cut points are the scores, as in the sweep.
fn threshold_at_budget(items: &[Item], budget: f64) -> f64 {
    let faithful: Vec<f64> = items
        .iter()
        .filter(|i| i.what == What::Faithful)
        .map(|i| i.score)
        .collect();
    let mut cuts: Vec<f64> = items.iter().map(|i| i.score).collect();
    cuts.sort_by(f64::total_cmp);
    cuts.dedup();
    if let Some(max) = cuts.last().copied() {
        cuts.push(max + 1e-6);
    }
    let allowed = (budget * faithful.len() as f64 + 1e-9).floor() as usize;
    let mut best = cuts.first().copied().unwrap_or(0.0);
    for t in cuts {
        if faithful.iter().filter(|s| **s < t).count() <= allowed {
            best = t;
        } else {
            break;
        }
    }
    best
}

/// One checker's operating point at the matched false-alarm rate.
#[derive(Debug, Clone, Serialize)]
pub struct SideAt {
    pub checker: String,
    /// The threshold that gives this checker the matched false-alarm rate (None: the checker's
    /// own verdicts, for a checker without scores).
    pub threshold: Option<f64>,
    pub false_alarms: Rate,
}

/// One fault type (or all faults) at the matched false-alarm rate.
#[derive(Debug, Clone, Serialize)]
pub struct MatchedRow {
    pub fault_type: String,
    /// Faults caught of those informative on both sides.
    pub base: Rate,
    pub candidate: Rate,
    /// Caught by the candidate only, and by the base only.
    pub candidate_only: u64,
    pub base_only: u64,
    /// Two-sided exact McNemar p of the difference.
    pub p_value: f64,
}

/// The threshold-free view: for each fault, the chance the checker scores it below what it was
/// made from (a mutant against its parent claim; a hard case against the faithful cases).
#[derive(Debug, Clone, Serialize)]
pub struct ThresholdFree {
    pub base: f64,
    pub candidate: f64,
    /// candidate - base, with a context-bootstrap interval.
    pub difference: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    pub faults: u64,
}

/// Which checker a view finds better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Better {
    Base,
    Candidate,
    /// No significant difference.
    Neither,
}

/// Two checkers at the same false-alarm rate.
#[derive(Debug, Clone, Serialize)]
pub struct Matched {
    /// The false-alarm budget both are held to.
    pub budget: f64,
    /// Where the budget came from: `--at-false-alarm`, or the base's own false-alarm rate.
    pub budget_from: &'static str,
    pub sides: [SideAt; 2],
    /// `all faults` first, then each fault type.
    pub rows: Vec<MatchedRow>,
    /// None for checkers without scores.
    pub threshold_free: Option<ThresholdFree>,
    /// All faults at each checker's own verdicts (informative on both sides).
    pub own: MatchedRow,
    pub better_at_own: Better,
    pub better_matched: Better,
    /// Set when a checker has no scores: the comparison is at its own verdicts only.
    pub own_verdicts_only: bool,
    /// Set when no mutant is reviewed yet and every unreviewed mutant was taken for a fault.
    pub provisional: bool,
    /// The cap on mutants per claim and operator the records were made with, if any.
    pub max_per_claim: Option<usize>,
}

/// A checker's informative-mutant catch rate next to its recall on the real errors.
#[derive(Debug, Clone, Serialize)]
pub struct Gap {
    pub checker: String,
    /// At the checker's own verdicts.
    pub mutants: Rate,
    pub real: Rate,
    /// mutants - real, with a context-bootstrap interval.
    pub gap: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    /// At the matched false-alarm threshold, when there is one.
    pub matched: Option<GapAt>,
    /// Set when the gap's size exceeds the margin.
    pub exceeds: bool,
}

/// The gap at one threshold.
#[derive(Debug, Clone, Serialize)]
pub struct GapAt {
    pub threshold: f64,
    pub mutants: Rate,
    pub real: Rate,
    pub gap: f64,
    pub ci_low: f64,
    pub ci_high: f64,
}

/// The gap to real errors for one or two checkers, and the warnings.
#[derive(Debug, Clone, Serialize)]
pub struct RealErrors {
    /// Set when no mutant is reviewed yet and every unreviewed mutant was taken for a fault.
    pub provisional: bool,
    pub real_errors: u64,
    pub contexts: u64,
    pub max_gap: f64,
    pub gaps: Vec<Gap>,
    /// Set when mutants and real errors rank two checkers differently.
    pub ranks_differ: bool,
    pub warnings: Vec<String>,
}

/// Settings of the proxy checks.
#[derive(Debug, Clone, Copy)]
pub struct ProxyOptions {
    pub confidence: f64,
    pub alpha: f64,
    /// `--at-false-alarm`: the budget; None for the base's own false-alarm rate.
    pub at_false_alarm: Option<f64>,
    /// `--max-gap`: the margin past which a gap is warned about.
    pub max_gap: f64,
}

/// Counts (caught, informative) over faults of one kind at a threshold, or at own verdicts.
fn catch(items: &[&Item], at: Option<f64>) -> (u64, u64) {
    let mut k = 0;
    let mut n = 0;
    for i in items {
        let (informative, caught) = match at {
            Some(t) => (i.informative_at(t), i.flagged_at(t)),
            None => (
                i.outcome != Outcome::ParentFlagged,
                i.outcome == Outcome::Caught,
            ),
        };
        if informative {
            n += 1;
            k += u64::from(caught);
        }
    }
    (k, n)
}

/// A checker's gap between mutants and real errors at a threshold (None: own verdicts).
fn gap_at(items: &[Item], at: Option<f64>, confidence: f64) -> Option<(Rate, Rate, f64, f64, f64)> {
    let mut by_context: BTreeMap<&str, Unit> = BTreeMap::new();
    for i in items {
        let u = by_context.entry(i.context.as_str()).or_default();
        match i.what {
            What::Mutant { .. } => {
                let (k, n) = catch(&[i], at);
                u.a_num += k as f64;
                u.a_den += n as f64;
            }
            What::Hard { real: true } => {
                let (k, n) = catch(&[i], at);
                u.b_num += k as f64;
                u.b_den += n as f64;
            }
            _ => {}
        }
    }
    let units: Vec<Unit> = by_context.into_values().collect();
    let (mk, mn, rk, rn) = units.iter().fold((0.0, 0.0, 0.0, 0.0), |s, u| {
        (s.0 + u.a_num, s.1 + u.a_den, s.2 + u.b_num, s.3 + u.b_den)
    });
    let (d, lo, hi) = ratio_difference(&units, BOOTSTRAP_REPS, BOOTSTRAP_SEED, confidence)?;
    Some((
        Rate::new(mk as u64, mn as u64, confidence),
        Rate::new(rk as u64, rn as u64, confidence),
        d,
        lo,
        hi,
    ))
}

fn name_of(r: &Record) -> String {
    r.runs
        .first()
        .map(|x| x.checker.name.clone())
        .unwrap_or_default()
}

/// The gap to real errors of each record's checker (one record for `run`, two for `compare`),
/// at its own verdicts and, when `matched` gives thresholds, at the matched false-alarm rate.
/// None when the records hold no real error or no informative mutant.
#[allow(clippy::too_many_lines)] // the gap at own verdicts and at matched thresholds
pub fn real_errors(
    records: &[&Record],
    matched: Option<&Matched>,
    opts: &ProxyOptions,
) -> Option<RealErrors> {
    let all: Vec<Vec<Item>> = records.iter().map(|r| items(r)).collect();
    let first = all.first()?;
    let real: Vec<&Item> = first
        .iter()
        .filter(|i| i.what == What::Hard { real: true })
        .collect();
    if real.is_empty() {
        return None;
    }
    let mut gaps = Vec::new();
    for (side, (rec, its)) in records.iter().zip(&all).enumerate() {
        let Some((mutants, realr, gap, lo, hi)) = gap_at(its, None, opts.confidence) else {
            continue;
        };
        let matched_at = matched.and_then(|m| m.sides[side].threshold).and_then(|t| {
            gap_at(its, Some(t), opts.confidence).map(|(m, r, g, l, h)| GapAt {
                threshold: t,
                mutants: m,
                real: r,
                gap: g,
                ci_low: l,
                ci_high: h,
            })
        });
        // two records of one checker (a prompt change): say which side a row is
        let same = records.len() == 2 && name_of(records[0]) == name_of(records[1]);
        let checker = match (same, side) {
            (true, 0) => format!("{} (base)", name_of(rec)),
            (true, _) => format!("{} (candidate)", name_of(rec)),
            _ => name_of(rec),
        };
        gaps.push(Gap {
            checker,
            mutants,
            real: realr,
            exceeds: gap.abs() > opts.max_gap,
            gap,
            ci_low: lo,
            ci_high: hi,
            matched: matched_at,
        });
    }
    let mut warnings = Vec::new();
    if gaps.is_empty() {
        warnings.push("no informative mutant to set beside the real errors: no verified claim the checker passes has a reviewed fault mutant (add verified claims, review their mutants)".into());
    }
    for g in &gaps {
        if g.exceeds {
            warnings.push(format!(
                "{}: the informative-mutant catch rate ({}) is {:+.2} [{:.2}, {:.2}] from its recall on real errors ({}), more than --max-gap {:.2}: on this suite mutation scores {} how often real errors are caught",
                g.checker,
                kn(&g.mutants),
                g.gap,
                g.ci_low,
                g.ci_high,
                kn(&g.real),
                opts.max_gap,
                if g.gap > 0.0 { "overstate" } else { "understate" }
            ));
        }
    }
    // with two checkers: do mutants and real errors rank them the same way (at the matched
    // false-alarm rate when there is one, else at their own verdicts)?
    let mut ranks_differ = false;
    if gaps.len() == 2 {
        let pick = |g: &Gap| match &g.matched {
            Some(m) => (m.mutants.rate, m.real.rate),
            None => (g.mutants.rate, g.real.rate),
        };
        let (a, b) = (pick(&gaps[0]), pick(&gaps[1]));
        if let (Some(am), Some(ar), Some(bm), Some(br)) = (a.0, a.1, b.0, b.1) {
            let by_mutants = (bm - am).signum();
            let by_real = (br - ar).signum();
            if by_mutants != 0.0 && by_real != 0.0 && by_mutants != by_real {
                ranks_differ = true;
                let at = if gaps[0].matched.is_some() {
                    "at the same false-alarm rate"
                } else {
                    "at their own verdicts"
                };
                let better = |s: f64| {
                    if s > 0.0 {
                        &gaps[1].checker
                    } else {
                        &gaps[0].checker
                    }
                };
                warnings.push(format!(
                    "mutants and real errors rank the two checkers differently {at}: mutants say {} catches more ({:+.2}), real errors say {} does ({:+.2}); trust the real errors, and add more of them",
                    better(by_mutants),
                    bm - am,
                    better(by_real),
                    br - ar
                ));
            }
        }
    }
    let contexts = real
        .iter()
        .map(|i| i.context.as_str())
        .collect::<std::collections::HashSet<_>>()
        .len() as u64;
    Some(RealErrors {
        provisional: records.iter().any(|r| provisional(r)),
        real_errors: real.len() as u64,
        contexts,
        max_gap: opts.max_gap,
        gaps,
        ranks_differ,
        warnings,
    })
}

/// Two checkers' records compared at the same false-alarm rate and threshold-free.
#[allow(clippy::too_many_lines)] // thresholds, rows and the threshold-free comparison
pub fn matched(base: &Record, candidate: &Record, opts: &ProxyOptions) -> Option<Matched> {
    let b = items(base);
    let c = items(candidate);
    let scored = has_scores(&b) && has_scores(&c);
    let fa_own = |its: &[Item]| {
        let f: Vec<&Item> = its.iter().filter(|i| i.what == What::Faithful).collect();
        let k = f
            .iter()
            .filter(|i| i.outcome == Outcome::FalseAlarm)
            .count();
        Rate::new(k as u64, f.len() as u64, opts.confidence)
    };
    let (budget, budget_from) = match opts.at_false_alarm {
        Some(r) => (r, "--at-false-alarm"),
        None => (fa_own(&b).rate?, "the base's own false-alarm rate"),
    };
    let cb: HashMap<&(String, String), &Item> = c.iter().map(|i| (&i.key, i)).collect();
    let pairs: Vec<(&Item, &Item)> = b
        .iter()
        .filter(|i| i.is_fault())
        .filter_map(|i| cb.get(&i.key).map(|j| (i, *j)))
        .collect();
    if pairs.is_empty() {
        return None;
    }
    let (tb, tc) = if scored {
        (
            Some(threshold_at_budget(&b, budget)),
            Some(threshold_at_budget(&c, budget)),
        )
    } else {
        (None, None)
    };
    let side = |its: &[Item], t: Option<f64>, name: String| SideAt {
        checker: name,
        threshold: t,
        false_alarms: match t {
            Some(t) => {
                let f: Vec<&Item> = its.iter().filter(|i| i.what == What::Faithful).collect();
                let k = f.iter().filter(|i| i.flagged_at(t)).count();
                Rate::new(k as u64, f.len() as u64, opts.confidence)
            }
            None => fa_own(its),
        },
    };
    let row = |name: &str, of: &dyn Fn(&Item) -> bool, at: (Option<f64>, Option<f64>)| {
        let state = |i: &Item, t: Option<f64>| match t {
            Some(t) => (i.informative_at(t), i.flagged_at(t)),
            None => (
                i.outcome != Outcome::ParentFlagged,
                i.outcome == Outcome::Caught,
            ),
        };
        let (mut n, mut kb, mut kc, mut bo, mut co) = (0u64, 0u64, 0u64, 0u64, 0u64);
        for (x, y) in pairs.iter().filter(|(x, _)| of(x)) {
            let ((ib, cbt), (ic, cct)) = (state(x, at.0), state(y, at.1));
            if !(ib && ic) {
                continue;
            }
            n += 1;
            kb += u64::from(cbt);
            kc += u64::from(cct);
            bo += u64::from(cbt && !cct);
            co += u64::from(cct && !cbt);
        }
        MatchedRow {
            fault_type: name.to_string(),
            base: Rate::new(kb, n, opts.confidence),
            candidate: Rate::new(kc, n, opts.confidence),
            candidate_only: co,
            base_only: bo,
            p_value: mcnemar_exact(co, bo),
        }
    };
    let mut types: Vec<String> = pairs.iter().map(|(x, _)| x.fault_type.clone()).collect();
    types.sort();
    types.dedup();
    let at = (tb, tc);
    let mut rows = vec![row("all faults", &|_| true, at)];
    for t in &types {
        let r = row(t, &|i: &Item| &i.fault_type == t, at);
        // a type with no fault informative on both sides says nothing here
        if r.base.n > 0 {
            rows.push(r);
        }
    }
    let own = row("all faults", &|_| true, (None, None));
    let better = |r: &MatchedRow| {
        if r.p_value >= opts.alpha || r.candidate_only == r.base_only {
            Better::Neither
        } else if r.candidate_only > r.base_only {
            Better::Candidate
        } else {
            Better::Base
        }
    };
    Some(Matched {
        budget,
        budget_from,
        sides: [
            side(&b, tb, name_of(base)),
            side(&c, tc, name_of(candidate)),
        ],
        better_at_own: better(&own),
        better_matched: better(&rows[0]),
        threshold_free: scored.then(|| threshold_free(&b, &c, &pairs, opts.confidence)),
        rows,
        own,
        own_verdicts_only: !scored,
        provisional: provisional(base) || provisional(candidate),
        max_per_claim: base
            .runs
            .iter()
            .chain(&candidate.runs)
            .filter_map(|r| r.max_per_claim)
            .max(),
    })
}

/// Each fault's rank score: a mutant against its parent claim, a hard case against every
/// faithful case of its checker (ties count half).
fn rank_score(i: &Item, faithful: &[f64]) -> Option<f64> {
    let below = |a: f64, b: f64| {
        if a < b {
            1.0
        } else if a == b {
            0.5
        } else {
            0.0
        }
    };
    match i.what {
        What::Mutant { parent_score } if !parent_score.is_nan() => {
            Some(below(i.score, parent_score))
        }
        What::Hard { .. } if !faithful.is_empty() => {
            Some(faithful.iter().map(|f| below(i.score, *f)).sum::<f64>() / faithful.len() as f64)
        }
        _ => None,
    }
}

fn threshold_free(
    base: &[Item],
    candidate: &[Item],
    pairs: &[(&Item, &Item)],
    confidence: f64,
) -> ThresholdFree {
    let faithful = |its: &[Item]| -> Vec<f64> {
        its.iter()
            .filter(|i| i.what == What::Faithful)
            .map(|i| i.score)
            .collect()
    };
    let (fb, fc) = (faithful(base), faithful(candidate));
    let mut by_context: BTreeMap<&str, Unit> = BTreeMap::new();
    let mut faults = 0;
    for (x, y) in pairs {
        let (Some(rb), Some(rc)) = (rank_score(x, &fb), rank_score(y, &fc)) else {
            continue;
        };
        faults += 1;
        let u = by_context.entry(x.context.as_str()).or_default();
        u.a_num += rc;
        u.a_den += 1.0;
        u.b_num += rb;
        u.b_den += 1.0;
    }
    let units: Vec<Unit> = by_context.into_values().collect();
    let (sb, sc, n) = units.iter().fold((0.0, 0.0, 0.0), |s, u| {
        (s.0 + u.b_num, s.1 + u.a_num, s.2 + u.a_den)
    });
    let (d, lo, hi) = ratio_difference(&units, BOOTSTRAP_REPS, BOOTSTRAP_SEED, confidence)
        .unwrap_or((0.0, 0.0, 0.0));
    let mean = |x: f64| if n > 0.0 { x / n } else { 0.0 };
    ThresholdFree {
        base: mean(sb),
        candidate: mean(sc),
        difference: d,
        ci_low: lo,
        ci_high: hi,
        faults,
    }
}

/// `k/n` of a rate, for the warnings (engines word no figure through `report`).
fn kn(r: &Rate) -> String {
    format!("{}/{}", r.k, r.n)
}
