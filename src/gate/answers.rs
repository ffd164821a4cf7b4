//! Paired comparison of two score records, answer by answer: the same log scored by two
//! checkers, or two generators' answers to the same sources paired by a key. Each definition of
//! "unsupported" is a row; the rows are one family (see [`super::family`]).

use super::failure::GateFailure;
use super::family::{decide, Member};
use super::pair::pair;
use crate::answers::score::{
    check_key, pair_key, AnswerResult, AnswerRule, Definition, ScoreRecord,
};
use crate::error::{Error, Exit, Result};
use crate::stats::paired::sign_flip_p_worse;
use crate::stats::{cluster_rate_of, detectable_drop_of, mcnemar_exact, Rate};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// One definition's row of an answer-level comparison.
#[derive(Debug, Clone, Serialize)]
pub struct AnswerRow {
    pub definition: Definition,
    /// Pairs scored in both records under this definition.
    pub paired: usize,
    pub base_unsupported: Rate,
    pub candidate_unsupported: Rate,
    /// Unsupported in the base, clean in the candidate.
    pub fixed: u64,
    /// Clean in the base, unsupported in the candidate.
    pub broken: u64,
    /// The two-sided exact McNemar p, for reading.
    pub p_value: f64,
    /// The one-sided p that the candidate is worse: the sign-flip test of each cluster's net
    /// change (`--cluster-by`; an answer is its own cluster without it), see
    /// [`crate::stats::paired`].
    pub p_worse: f64,
    /// Clusters whose answers changed on net: the effective n of the paired test.
    pub clusters_changed: u64,
    /// Both sides' unsupported-answer rates with a cluster-aware interval (with `--cluster-by`).
    pub base_clustered: Option<crate::stats::ClusterRate>,
    pub candidate_clustered: Option<crate::stats::ClusterRate>,
    /// `p_worse` adjusted over the definitions compared (Holm by default, Tarone's m).
    pub p_adjusted: f64,
    /// More broken than fixed with adjusted p < alpha.
    pub significantly_worse: bool,
    /// The smallest rise in the unsupported-answer rate these pairs detect with 80% power at
    /// the row's level, counted in clusters at risk as the test counts them (answers, or
    /// `--cluster-by` clusters, with an answer the base did not find unsupported); None when
    /// none could be.
    pub detectable_drop: Option<f64>,
    /// Clusters of the row (answers without `--cluster-by`), and those at risk.
    pub clusters: u64,
    pub clusters_at_risk: u64,
    /// Candidate answers newly unsupported (at most 50 listed; `broken` counts them all).
    pub newly_broken: Vec<AnswerResult>,
    /// With `--stratify-by`: the same comparison within each stratum, for reading (the gate
    /// decides on the whole row).
    pub by_stratum: Vec<StratumRow>,
}

/// One stratum of an answer comparison row.
#[derive(Debug, Clone, Serialize)]
pub struct StratumRow {
    pub stratum: String,
    pub paired: usize,
    pub base_unsupported: Rate,
    pub candidate_unsupported: Rate,
    pub fixed: u64,
    pub broken: u64,
    /// One-sided, by the row's clusters, unadjusted.
    pub p_worse: f64,
    /// `p_worse` Holm-adjusted over the row's strata: with five strata and no change at all, an
    /// unadjusted p < 0.05 shows somewhere in about one comparison in seven.
    pub p_holm: f64,
}

/// Two scorings, answer by answer: the same log scored by two checkers, or two generators'
/// answers to the same sources paired by a key.
#[derive(Debug, Clone, Serialize)]
pub struct AnswerComparison {
    /// What pairs the answers: `id`, or the key given with `--pair-by`.
    pub pair_by: String,
    /// What clusters the answers for the paired test and the intervals (`--cluster-by`).
    pub cluster_by: Option<String>,
    /// When an answer counts as unsupported (`--answer-rule`).
    pub answer_rule: AnswerRule,
    pub base_log: String,
    pub candidate_log: String,
    pub rows: Vec<AnswerRow>,
    pub only_in_base: Vec<String>,
    pub only_in_candidate: Vec<String>,
    /// Answers that have no value for the pairing key (base, candidate).
    pub without_key: (usize, usize),
    pub failures: Vec<GateFailure>,
    /// Paired answers a checker could not score (some claim an error), by id: in no row,
    /// listed, never a pass.
    pub errors_in_base: Vec<String>,
    pub errors_in_candidate: Vec<String>,
    /// Why there is no verdict although nothing failed (exit 3, never a pass).
    pub no_verdict: Vec<String>,
}

impl AnswerComparison {
    /// 1 when the gate failed; 3 when nothing failed but answers could not be scored; else 0.
    pub fn exit_code(&self) -> Exit {
        super::exit_code(&self.failures, &self.no_verdict)
    }
}

/// Options of an answer-level comparison.
#[derive(Debug, Clone)]
pub struct AnswerCompareOptions {
    pub definitions: Vec<Definition>,
    pub alpha: f64,
    /// A rule (no error rate): fail when more answers than this are newly unsupported.
    pub max_new_broken: Option<u64>,
    pub confidence: f64,
    pub adjust: crate::stats::Adjust,
    /// None: pair by answer id. Some(key): by `question`, `tag`, `context` or a metadata key.
    pub pair_by: Option<String>,
    /// Answers that share this key's value (a source, a context, a question) are one cluster;
    /// None: every answer is its own.
    pub cluster_by: Option<String>,
    /// When an answer counts as unsupported.
    pub answer_rule: AnswerRule,
    /// Each row is also shown within each value of this key.
    pub stratify_by: Option<String>,
}

/// Answers by pairing key; two answers with one key make the pairing ambiguous: an error.
fn keyed<'a>(
    r: &'a ScoreRecord,
    key: Option<&str>,
    which: &str,
) -> Result<(HashMap<String, &'a AnswerResult>, usize)> {
    let mut m = HashMap::new();
    let mut missing = 0;
    for a in &r.answers {
        let Some(k) = pair_key(a, key) else {
            missing += 1;
            continue;
        };
        if let Some(other) = m.insert(k.clone(), a) {
            return Err(crate::error::Refusal::DuplicateKey.with(format!(
                "the {which} record ({}) has two answers with {} `{k}` (`{}` and `{}`): pair by a key that is unique in each record",
                r.log,
                key.unwrap_or("id"),
                other.id,
                a.id
            )));
        }
    }
    Ok((m, missing))
}

/// Each cluster's net change (fixed minus broken) over (base unsupported, candidate
/// unsupported, answer) triples.
fn nets<'a>(
    xs: impl Iterator<Item = &'a (bool, bool, &'a AnswerResult)>,
    cluster_of: &dyn Fn(&AnswerResult) -> String,
) -> Vec<i64> {
    let mut net: BTreeMap<String, i64> = Default::default();
    for (ub, uc, a) in xs {
        let d = i64::from(*ub) - i64::from(*uc);
        if d != 0 {
            *net.entry(cluster_of(a)).or_default() += d;
        }
    }
    net.into_values().collect()
}

/// Whether a checker failed on the answer or one of its claims.
fn errored(a: &AnswerResult) -> bool {
    a.error.is_some() || a.claims.iter().any(|c| c.error.is_some())
}

/// The cluster of an answer under `--cluster-by`; an answer without the key is its own.
fn cluster_of(opts: &AnswerCompareOptions) -> impl Fn(&AnswerResult) -> String + '_ {
    move |a: &AnswerResult| match &opts.cluster_by {
        Some(k) => pair_key(a, Some(k)).unwrap_or_else(|| format!("\0{}", a.id)),
        None => a.id.clone(),
    }
}

/// A record's answers with their pairing key (those that have one), in the log's order.
fn keyed_answers<'a>(r: &'a ScoreRecord, key: Option<&str>) -> Vec<(String, &'a AnswerResult)> {
    r.answers
        .iter()
        .filter_map(|a| pair_key(a, key).map(|k| (k, a)))
        .collect()
}

type Pairs<'a> = Vec<(&'a AnswerResult, &'a AnswerResult)>;

/// The error for two records with no answer in common.
fn nothing_paired(base: &ScoreRecord, cand: &ScoreRecord, key: Option<&str>) -> Error {
    crate::error::Refusal::NothingPaired.with(format!(
        "nothing to compare: no answer pairs by {} (base: {} answers from {}; candidate: {} answers from {}); {}",
        key.unwrap_or("id"),
        base.answers.len(),
        base.log,
        cand.answers.len(),
        cand.log,
        if key.is_none() {
            "compare scorings of the same log, or pair two logs by a shared key with --pair-by KEY"
        } else {
            "check that both logs carry the key with the same values"
        }
    ))
}

/// One definition's row, before the family decides.
fn row(def: Definition, pairs: &Pairs<'_>, opts: &AnswerCompareOptions) -> AnswerRow {
    let scored: Vec<(bool, bool, &AnswerResult)> = pairs
        .iter()
        .filter_map(|(x, a)| {
            match (
                x.unsupported_by(def, opts.answer_rule),
                a.unsupported_by(def, opts.answer_rule),
            ) {
                (Some(ub), Some(uc)) => Some((ub, uc, *a)),
                _ => None,
            }
        })
        .collect();
    let n = scored.len() as u64;
    let fixed = scored.iter().filter(|(ub, uc, _)| *ub && !*uc).count() as u64;
    let broken = scored.iter().filter(|(ub, uc, _)| !*ub && *uc).count() as u64;
    let p = mcnemar_exact(fixed, broken);
    let cluster_of = cluster_of(opts);
    let net = nets(scored.iter(), &cluster_of);
    let clustered = |side: usize| {
        opts.cluster_by.as_ref().map(|_| {
            cluster_rate_of(
                scored
                    .iter()
                    .map(|(ub, uc, a)| (cluster_of(a), if side == 0 { *ub } else { *uc })),
                opts.confidence,
            )
        })
    };
    let rate = |side: usize| {
        let k = scored
            .iter()
            .filter(|p| if side == 0 { p.0 } else { p.1 })
            .count() as u64;
        Rate::new(k, n, opts.confidence)
    };
    AnswerRow {
        by_stratum: strata(&scored, opts),
        p_worse: sign_flip_p_worse(&net),
        clusters_changed: net.iter().filter(|d| **d != 0).count() as u64,
        base_clustered: clustered(0),
        candidate_clustered: clustered(1),
        definition: def,
        paired: scored.len(),
        base_unsupported: rate(0),
        candidate_unsupported: rate(1),
        fixed,
        broken,
        p_value: p,
        p_adjusted: p,
        significantly_worse: false,
        detectable_drop: None,
        clusters: scored
            .iter()
            .map(|(_, _, a)| cluster_of(a))
            .collect::<std::collections::BTreeSet<_>>()
            .len() as u64,
        clusters_at_risk: scored
            .iter()
            .filter(|(ub, _, _)| !*ub)
            .map(|(_, _, a)| cluster_of(a))
            .collect::<std::collections::BTreeSet<_>>()
            .len() as u64,
        newly_broken: scored
            .iter()
            .filter(|(ub, uc, _)| !*ub && *uc)
            .take(50)
            .map(|(_, _, a)| (*a).clone())
            .collect(),
    }
}

/// With `--stratify-by`: the row within each value of the key, for reading.
fn strata(scored: &[(bool, bool, &AnswerResult)], opts: &AnswerCompareOptions) -> Vec<StratumRow> {
    let Some(k) = &opts.stratify_by else {
        return Vec::new();
    };
    let cluster_of = cluster_of(opts);
    let mut strata: BTreeMap<String, Vec<&(bool, bool, &AnswerResult)>> = Default::default();
    for x in scored {
        let key = pair_key(x.2, Some(k)).unwrap_or_else(|| "(none)".into());
        strata.entry(key).or_default().push(x);
    }
    let mut rows = strata
        .into_iter()
        .map(|(stratum, xs)| {
            let n = xs.len() as u64;
            let net = nets(xs.iter().copied(), &cluster_of);
            StratumRow {
                stratum,
                paired: xs.len(),
                base_unsupported: Rate::new(
                    xs.iter().filter(|x| x.0).count() as u64,
                    n,
                    opts.confidence,
                ),
                candidate_unsupported: Rate::new(
                    xs.iter().filter(|x| x.1).count() as u64,
                    n,
                    opts.confidence,
                ),
                fixed: xs.iter().filter(|x| x.0 && !x.1).count() as u64,
                broken: xs.iter().filter(|x| !x.0 && x.1).count() as u64,
                p_worse: sign_flip_p_worse(&net),
                p_holm: 1.0,
            }
        })
        .collect::<Vec<_>>();
    let holm = holm(&rows.iter().map(|r| r.p_worse).collect::<Vec<_>>());
    for (r, p) in rows.iter_mut().zip(holm) {
        r.p_holm = p;
    }
    rows
}

/// Holm's step-down adjustment of `p` (each adjusted p is at least the one before it in
/// ascending order, and at most 1).
fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|a, b| p[*a].total_cmp(&p[*b]));
    let mut out = vec![1.0; m];
    let mut running = 0.0f64;
    for (rank, &i) in order.iter().enumerate() {
        running = running.max(((m - rank) as f64 * p[i]).min(1.0));
        out[i] = running;
    }
    out
}

/// One decision over the rows: one-sided, by clusters, adjusted over the definitions that can
/// reach significance; then the count rule.
fn decide_rows(rows: &mut [AnswerRow], opts: &AnswerCompareOptions) -> Vec<GateFailure> {
    let members: Vec<Member> = rows
        .iter()
        .map(|r| Member {
            min_p: 0.5f64.powi(r.clusters_changed as i32),
            p_worse: r.p_worse,
        })
        .collect();
    let family = decide(&members, opts.alpha, opts.adjust);
    let mut failures = Vec::new();
    for (r, p) in rows.iter_mut().zip(family.adjusted) {
        let p = p.unwrap_or(1.0);
        r.p_adjusted = p;
        r.detectable_drop =
            detectable_drop_of(r.clusters, r.clusters_at_risk, family.row_alpha, 0.8);
        r.significantly_worse = r.broken > r.fixed && p < opts.alpha;
        if r.significantly_worse {
            failures.push(GateFailure::AnswersWorse {
                definition: r.definition.as_str(),
                broken: r.broken,
                fixed: r.fixed,
                clusters_changed: r.clusters_changed,
                cluster_by: opts.cluster_by.clone(),
                p_worse: r.p_worse,
                p_adjusted: p,
                alpha: opts.alpha,
            });
        }
        if let Some(max) = opts.max_new_broken.filter(|m| r.broken > *m) {
            failures.push(GateFailure::NewlyBroken {
                definition: r.definition.as_str(),
                count: r.broken,
                max,
            });
        }
    }
    failures
}

/// A gate never passes on nothing: when no row could reach significance whatever the
/// candidate did (too few answers or clusters at risk) and no count rule is set, there is no
/// verdict.
fn nothing_can_fail(rows: &[AnswerRow], opts: &AnswerCompareOptions) -> Option<String> {
    let scored: Vec<&AnswerRow> = rows.iter().filter(|r| r.paired > 0).collect();
    if scored.is_empty()
        || opts.max_new_broken.is_some()
        || scored.iter().any(|r| r.detectable_drop.is_some())
    {
        return None;
    }
    let most = scored.iter().map(|r| r.clusters_at_risk).max().unwrap_or(0);
    let needed = crate::stats::power::pairs_needed(opts.alpha);
    let unit = match &opts.cluster_by {
        Some(k) => format!("clusters (values of `{k}`)"),
        None => "answers".into(),
    };
    Some(format!(
        "no definition's row can fail: at most {most} {unit} at risk (with an answer the base found supported), and a row needs at least {needed} at alpha {}; score more answers{}, or set a rule such as --max-new-misses 0 (a rule has no error rate)",
        opts.alpha,
        if opts.cluster_by.is_some() { " from more sources" } else { "" }
    ))
}

/// Compares two scorings answer by answer. Records with no pair, or whose every pair has an
/// error, give no verdict: an error, never a passing gate.
pub fn compare_answers(
    base: &ScoreRecord,
    cand: &ScoreRecord,
    opts: &AnswerCompareOptions,
) -> Result<AnswerComparison> {
    let key = opts.pair_by.as_deref();
    for (flag, k) in [
        ("--cluster-by", opts.cluster_by.as_deref()),
        ("--stratify-by", opts.stratify_by.as_deref()),
    ] {
        check_key(
            base.answers.iter().chain(&cand.answers),
            flag,
            k,
            "either record",
        )?;
    }
    let (_, b_missing) = keyed(base, key, "base")?;
    let (_, c_missing) = keyed(cand, key, "candidate")?;
    let paired = pair(keyed_answers(base, key), keyed_answers(cand, key));
    // candidate order: the order of its log
    let pairs: Pairs<'_> = paired.pairs.iter().map(|(_, b, c)| (*b, *c)).collect();
    if pairs.is_empty() {
        return Err(nothing_paired(base, cand, key));
    }
    // an answer a checker failed on is in no row (under any definition), and is listed
    let ids = |side: usize| -> Vec<String> {
        pairs
            .iter()
            .map(|p| if side == 0 { p.0 } else { p.1 })
            .filter(|a| errored(a))
            .map(|a| a.id.clone())
            .collect()
    };
    let (errors_in_base, errors_in_candidate) = (ids(0), ids(1));
    let pairs: Pairs<'_> = pairs
        .into_iter()
        .filter(|(x, a)| !errored(x) && !errored(a))
        .collect();
    if pairs.is_empty() {
        return Err(crate::error::Refusal::AllErrored.with(format!(
            "nothing to compare: every answer pair has an error (the base could not score {}, the candidate {}); a checker that fails is never a pass: fix it and score again",
            errors_in_base.len(),
            errors_in_candidate.len()
        )));
    }
    let mut no_verdict = Vec::new();
    if !errors_in_candidate.is_empty() {
        no_verdict.push(format!(
            "the candidate could not score {} answer(s) (first: {}); they are in no row, and a gate cannot pass on what was not scored",
            errors_in_candidate.len(),
            errors_in_candidate[0]
        ));
    }
    let mut rows: Vec<AnswerRow> = opts
        .definitions
        .iter()
        .map(|d| row(*d, &pairs, opts))
        .collect();
    if rows.iter().all(|r| r.paired == 0) {
        return Err(crate::error::Refusal::AllErrored.with(format!(
            "nothing to compare: no answer pair was scored under any definition ({} pair(s) where the base or candidate failed, {} without claims); a checker that fails is never a pass",
            errors_in_base.len().max(errors_in_candidate.len()),
            pairs.len()
        )));
    }
    for r in rows.iter().filter(|r| r.paired == 0) {
        no_verdict.push(format!(
            "{}: no answer pair was scored under this definition",
            r.definition.as_str()
        ));
    }
    let failures = decide_rows(&mut rows, opts);
    no_verdict.extend(nothing_can_fail(&rows, opts));
    let sorted_ids = |xs: &[(String, &AnswerResult)]| {
        let mut ids: Vec<String> = xs.iter().map(|(_, a)| a.id.clone()).collect();
        ids.sort();
        ids
    };
    Ok(AnswerComparison {
        pair_by: key.unwrap_or("id").to_string(),
        cluster_by: opts.cluster_by.clone(),
        answer_rule: opts.answer_rule,
        base_log: base.log.clone(),
        candidate_log: cand.log.clone(),
        rows,
        only_in_base: sorted_ids(&paired.only_in_base),
        only_in_candidate: sorted_ids(&paired.only_in_candidate),
        without_key: (b_missing, c_missing),
        failures,
        errors_in_base,
        errors_in_candidate,
        no_verdict,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn holm_steps_down_and_stays_monotone() {
        let p = super::holm(&[0.01, 0.04, 0.03, 0.5]);
        // sorted 0.01, 0.03, 0.04, 0.5 -> 0.04, 0.09, 0.09 (monotone), 0.5
        let want = [0.04, 0.09, 0.09, 0.5];
        for (g, w) in p.iter().zip(want) {
            assert!((g - w).abs() < 1e-12, "{p:?}");
        }
    }
}
