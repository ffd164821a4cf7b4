//! What a scoring adds up to, built one answer at a time so a log of any size streams through in
//! bounded memory: the aggregates under each definition, the unsupported-answer rate per `tag`,
//! the worst answers (a bounded list), and, when answers carry a person's label, the checker's
//! agreement with the labels.

use super::score::{AnswerResult, AnswerRule, Definition, Status, RULE_GRID};
use crate::stats::agreement::{auroc, Auroc, Confusion};
use crate::stats::correct::{self, Calibration, Corrected, PpiCounts};
use crate::stats::sweep::{at, recommend, split, sweep, SweepItem, SweepPoint};
use crate::stats::{cluster_rate, ClusterRate, Rate};
use serde::Serialize;
use std::collections::BTreeMap;

/// Aggregates under one definition.
#[derive(Debug, Clone, Serialize)]
pub struct Aggregate {
    pub definition: Definition,
    pub answers: usize,
    pub refusals: usize,
    /// Scored on their claims though they decline in part.
    pub partial_refusals: usize,
    pub no_claims: usize,
    pub errors: usize,
    pub claims: usize,
    pub faithful_claims: usize,
    /// Faithful claims / claims over scored answers.
    pub micro: Option<f64>,
    /// Mean of per-answer scores.
    pub macro_score: Option<f64>,
    /// Share of scored answers with at least one claim that is not faithful: the number to gate on.
    pub unsupported_answers: Rate,
    /// The same rate with a cluster-aware interval (`--cluster-by`): answers to one source are
    /// not independent.
    pub unsupported_answers_clustered: Option<ClusterRate>,
    /// With labels on part of the log: the unsupported-answer rate corrected for the checker's
    /// errors (prediction-powered: the checker's rate plus the labelled sample's mean of label
    /// minus flag), its interval clustered by `--cluster-by`.
    pub unsupported_answers_corrected: Option<Corrected>,
    /// Claims not faithful / claims over scored answers.
    pub unsupported_claims: Rate,
    /// With `--correct-with`: the unsupported-claim rate corrected for the checker's
    /// sensitivity and specificity on a suite's real errors and verified claims (Rogan-Gladen),
    /// its interval clustered by answer (or by `--cluster-by`).
    pub unsupported_claims_corrected: Option<Corrected>,
    /// The unsupported-answer rate under each rule of [`RULE_GRID`] (`any`, more than a
    /// quarter, half, three quarters of the claims), for a sweep of the rule.
    pub by_rule: Vec<(AnswerRule, Rate)>,
    /// Unsupported answers by their number of claims (1, 2, 3-5, 6 or more): "any" grows with
    /// length.
    pub by_length: Vec<(&'static str, Rate)>,
}

/// The unsupported-answer rate of one tag (generating model or prompt version) per definition.
#[derive(Debug, Clone, Serialize)]
pub struct TagRates {
    pub tag: String,
    pub answers: usize,
    /// One per definition, in the order asked for.
    pub unsupported_answers: Vec<Rate>,
    /// Claims not faithful / claims, one per definition: a rate that does not grow with the
    /// length of the tag's answers.
    pub unsupported_claims: Vec<Rate>,
    /// With labels: the share of the tag's labelled answers a person marked hallucinated.
    pub labelled_hallucinated: Option<Rate>,
}

/// LabelAgreement of the checker with the labels under one definition.
#[derive(Debug, Clone, Serialize)]
pub struct LabelAgreement {
    pub definition: Definition,
    pub all: Confusion,
    pub by_tag: BTreeMap<String, Confusion>,
    /// Per label type: the share of answers labelled with that type that the checker flagged.
    pub recall_by_type: BTreeMap<String, Rate>,
    /// Per stratum (`--stratify-by`): the agreement within it.
    pub by_stratum: BTreeMap<String, Confusion>,
    /// The mean of the strata's balanced accuracies (strata with both classes).
    pub macro_balanced_accuracy: Option<f64>,
    /// The pooled balanced accuracy is above every stratum's: the pooled figure mostly tells
    /// the strata apart, not good answers from bad.
    pub pooled_exceeds_every_stratum: bool,
    /// With `--cluster-by`: recall and specificity with cluster-aware intervals (the answers
    /// of one source move together).
    pub recall_clustered: Option<ClusterRate>,
    pub specificity_clustered: Option<ClusterRate>,
    /// Balanced accuracy under each rule of [`RULE_GRID`].
    pub by_rule: Vec<(AnswerRule, crate::stats::agreement::Estimate)>,
    /// With three tags or more: Spearman's rank correlation, over tags, of the labels'
    /// hallucination rate with the checker's unsupported-answer rate and with its
    /// unsupported-claim rate. A ranking of generators is only as good as this.
    pub tag_rank_correlation: Option<(f64, f64)>,
}

/// An answer-level threshold sweep on the lowest claim score (flag when below the threshold).
#[derive(Debug, Clone, Serialize)]
pub struct AnswerSweep {
    pub points: Vec<SweepPoint>,
    pub max_false_alarm: Option<f64>,
    pub recommended: Option<SweepPoint>,
    pub calibrate_on: Option<f64>,
    pub calibration_answers: usize,
    pub held_out_answers: usize,
    /// The held-out answers' rates at the recommended threshold (with `--calibrate-on`).
    pub held_out: Option<SweepPoint>,
}

/// Everything the labels say about the checker.
#[derive(Debug, Clone, Serialize)]
pub struct LabelReport {
    /// Scored answers that carry a label.
    pub labelled: usize,
    pub hallucinated: usize,
    /// Labelled answers left out: refusals, answers without claims, errors.
    pub labelled_not_scored: usize,
    /// Scored answers with no label.
    pub unlabelled: usize,
    pub by_definition: Vec<LabelAgreement>,
    /// AUROC of the lowest claim score; None when the checker gives no scores or one class is
    /// missing.
    pub auroc: Option<Auroc>,
    /// Labelled answers whose claims all have a score (the AUROC and the sweep use these).
    pub with_scores: usize,
    pub sweep: Option<AnswerSweep>,
}

/// The summary of a scoring.
#[derive(Debug, Clone, Serialize)]
pub struct ScoreSummary {
    pub definitions: Vec<Aggregate>,
    pub by_tag: Vec<TagRates>,
    pub labels: Option<LabelReport>,
    /// Answers whose passages are all empty (their claims cannot be supported).
    pub without_passages: usize,
}

#[derive(Default, Clone)]
struct AggState {
    refusals: usize,
    partial: usize,
    no_claims: usize,
    errors: usize,
    claims: usize,
    faithful: usize,
    score_sum: f64,
    scored: u64,
    unsupported: u64,
    /// With `--cluster-by`: (unsupported, scored) per cluster.
    clusters: BTreeMap<String, (u64, u64)>,
    /// Unsupported answers under each rule of the grid.
    by_rule: [u64; 4],
    /// Every scored answer's flag and label, for the prediction-powered rate.
    ppi: PpiCounts,
    /// Running sums of (bad claims k, claims n) per cluster: k, n, k^2, k n, n^2, and the
    /// clusters counted (answers, without `--cluster-by`).
    claim_sums: [f64; 5],
    claim_units: u64,
    /// With `--cluster-by`: (bad claims, claims) per cluster.
    claim_clusters: BTreeMap<String, (u64, u64)>,
    /// (unsupported, scored) by claim count: 1, 2, 3-5, 6+.
    by_length: [(u64, u64); 4],
}

struct LabelRow {
    /// The `--cluster-by` value (the id without it): a split keeps a cluster together.
    cluster: String,
    /// The `--stratify-by` value, if any.
    stratum: Option<String>,
    tag: Option<String>,
    hallucinated: bool,
    types: Vec<String>,
    min_score: Option<f64>,
    /// Per definition.
    flagged: Vec<bool>,
    /// Per definition: (faithful, claims).
    counts: Vec<(usize, usize)>,
}

/// Options of the summary.
#[derive(Debug, Clone)]
pub struct TallyOptions {
    pub definitions: Vec<Definition>,
    pub confidence: f64,
    /// How many of the worst answers to keep (usize::MAX: all of them).
    pub worst: usize,
    pub max_false_alarm: Option<f64>,
    pub calibrate_on: Option<f64>,
    /// Answers sharing this key's value are one cluster (`--cluster-by`).
    pub cluster_by: Option<String>,
    /// Agreement is also reported within each value of this key (`--stratify-by`).
    pub stratify_by: Option<String>,
    /// When an answer counts as unsupported (`--answer-rule`).
    pub answer_rule: AnswerRule,
    /// The checker's claim-level sensitivity and specificity from a suite run
    /// (`--correct-with`), one per definition: the unsupported-claim rate is corrected for them.
    pub calibration: Option<Vec<Calibration>>,
}

/// Per tag: answers, then per definition (unsupported, scored) answers and (bad, all) claims.
type TagCounts = (usize, Vec<(u64, u64)>, Vec<(u64, u64)>);

/// Adds answers one at a time.
pub struct Tally {
    opts: TallyOptions,
    answers: usize,
    aggs: Vec<AggState>,
    /// Per tag: answers, per definition (unsupported, scored) answers and (bad, all) claims.
    tags: BTreeMap<String, TagCounts>,
    labelled: Vec<LabelRow>,
    labelled_not_scored: usize,
    unlabelled: usize,
    worst: Vec<(WorstKey, AnswerResult)>,
    pub without_passages: usize,
    /// Every key an answer carried, and whether any carried the `--cluster-by` and
    /// `--stratify-by` keys: a key no answer carries is an error, not a silent no-op.
    keys: std::collections::BTreeSet<String>,
    cluster_seen: bool,
    stratum_seen: bool,
    /// With `--cluster-by`: each cluster's index, for the prediction-powered variance.
    cluster_index: std::collections::HashMap<String, usize>,
}

/// Worse answers sort first: errors, then the lowest share of faithful claims, then the lowest
/// claim score, then log order.
#[derive(Debug, Clone, PartialEq, PartialOrd)]
struct WorstKey(u8, f64, f64, usize);

impl Tally {
    pub fn new(opts: TallyOptions) -> Tally {
        let n = opts.definitions.len();
        Tally {
            opts,
            answers: 0,
            aggs: vec![AggState::default(); n],
            tags: BTreeMap::new(),
            labelled: Vec::new(),
            labelled_not_scored: 0,
            unlabelled: 0,
            worst: Vec::new(),
            without_passages: 0,
            keys: Default::default(),
            cluster_seen: false,
            stratum_seen: false,
            cluster_index: Default::default(),
        }
    }

    /// An error when no answer carried the `--cluster-by` or `--stratify-by` key, naming the
    /// keys the answers do carry.
    pub fn check_keys(&self, log: &str) -> crate::error::Result<()> {
        for (flag, key, seen) in [
            ("--cluster-by", &self.opts.cluster_by, self.cluster_seen),
            ("--stratify-by", &self.opts.stratify_by, self.stratum_seen),
        ] {
            if let (Some(k), false, true) = (key, seen, self.answers > 0) {
                let mut known = vec!["id".to_string()];
                known.extend(
                    ["question", "tag", "context"]
                        .iter()
                        .filter(|b| self.keys.contains(**b))
                        .map(|b| b.to_string()),
                );
                known.extend(
                    self.keys
                        .iter()
                        .filter(|k| !["question", "tag", "context"].contains(&k.as_str()))
                        .cloned(),
                );
                return Err(crate::error::Refusal::UnknownKey.with(format!(
                    "{flag} {k}: no answer of {log} carries the key `{k}`; the keys its answers carry are: {}",
                    known.join(", ")
                )));
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_lines)] // one answer into every running aggregate, in one pass
    pub fn add(&mut self, a: &AnswerResult) {
        self.answers += 1;
        if self.opts.cluster_by.is_some() || self.opts.stratify_by.is_some() {
            for k in super::score::keys_carried(std::iter::once(a)) {
                if !self.keys.contains(&k) {
                    self.keys.insert(k);
                }
            }
            let has = |k: &Option<String>| {
                k.as_deref()
                    .is_some_and(|k| super::score::pair_key(a, Some(k)).is_some())
            };
            self.cluster_seen |= has(&self.opts.cluster_by);
            self.stratum_seen |= has(&self.opts.stratify_by);
        }
        let n_defs = self.opts.definitions.len();
        if let Some(t) = &a.tag {
            self.tags
                .entry(t.clone())
                .or_insert_with(|| (0, vec![(0, 0); n_defs], vec![(0, 0); n_defs]))
                .0 += 1;
        }
        let mut flagged = Vec::with_capacity(n_defs);
        let mut counts = Vec::with_capacity(n_defs);
        let key = |k: &Option<String>| {
            k.as_deref()
                .and_then(|k| super::score::pair_key(a, Some(k)))
        };
        let cluster = key(&self.opts.cluster_by);
        // an answer without the key is a cluster of its own
        let cluster_key = self
            .opts
            .cluster_by
            .as_ref()
            .map(|_| cluster.clone().unwrap_or_else(|| format!("\0{}", a.id)));
        let cluster_no = match &cluster_key {
            Some(c) => {
                let next = self.cluster_index.len();
                *self.cluster_index.entry(c.clone()).or_insert(next)
            }
            None => 0,
        };
        let label = a.label.as_ref().map(|l| l.hallucinated);
        for (i, d) in self.opts.definitions.iter().enumerate() {
            let s = &mut self.aggs[i];
            match a.status(*d) {
                Status::Refusal => s.refusals += 1,
                Status::NoClaims => s.no_claims += 1,
                Status::Error => s.errors += 1,
                Status::Scored { faithful, claims } => {
                    s.claims += claims;
                    s.faithful += faithful;
                    s.score_sum += faithful as f64 / claims as f64;
                    s.scored += 1;
                    if a.partial_refusal {
                        s.partial += 1;
                    }
                    let bad = self.opts.answer_rule.flags(faithful, claims);
                    if bad {
                        s.unsupported += 1;
                    }
                    for (g, rule) in RULE_GRID.iter().enumerate() {
                        s.by_rule[g] += u64::from(rule.flags(faithful, claims));
                    }
                    let bin = match claims {
                        1 => 0,
                        2 => 1,
                        3..=5 => 2,
                        _ => 3,
                    };
                    s.by_length[bin].0 += u64::from(bad);
                    s.by_length[bin].1 += 1;
                    counts.push((faithful, claims));
                    s.ppi.add(correct::Answer {
                        cluster: cluster_no,
                        flagged: bad,
                        label,
                    });
                    let (k, n) = ((claims - faithful) as u64, claims as u64);
                    if let Some(c) = &cluster_key {
                        let e = s.clusters.entry(c.clone()).or_default();
                        e.0 += u64::from(bad);
                        e.1 += 1;
                        let e = s.claim_clusters.entry(c.clone()).or_default();
                        e.0 += k;
                        e.1 += n;
                    } else {
                        add_claim_unit(&mut s.claim_sums, k, n);
                        s.claim_units += 1;
                    }
                    if let Some(t) = &a.tag {
                        let entry = self.tags.get_mut(t).expect("inserted above");
                        let e = &mut entry.1[i];
                        e.1 += 1;
                        if bad {
                            e.0 += 1;
                        }
                        let c = &mut entry.2[i];
                        c.0 += (claims - faithful) as u64;
                        c.1 += claims as u64;
                    }
                    flagged.push(bad);
                }
            }
        }
        let scored = flagged.len() == n_defs;
        match (&a.label, scored) {
            (Some(l), true) => self.labelled.push(LabelRow {
                cluster: cluster.clone().unwrap_or_else(|| a.id.clone()),
                stratum: key(&self.opts.stratify_by),
                tag: a.tag.clone(),
                hallucinated: l.hallucinated,
                types: l.types.clone(),
                min_score: a.min_score(),
                flagged,
                counts,
            }),
            (Some(_), false) => self.labelled_not_scored += 1,
            (None, true) => self.unlabelled += 1,
            (None, false) => {}
        }
        if let Some(key) = worst_key(a, self.opts.definitions[0]) {
            if self.opts.worst > 0 {
                self.worst.push((key, a.clone()));
                if self.worst.len() >= self.opts.worst.saturating_mul(2).max(64) {
                    self.trim_worst();
                }
            }
        }
    }

    fn trim_worst(&mut self) {
        self.worst
            .sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
        self.worst.truncate(self.opts.worst);
    }

    /// The worst answers under the first definition, worst first.
    pub fn worst(&mut self) -> Vec<AnswerResult> {
        self.trim_worst();
        self.worst.iter().map(|(_, a)| a.clone()).collect()
    }

    pub fn summary(&self) -> ScoreSummary {
        let c = self.opts.confidence;
        let definitions = self
            .opts
            .definitions
            .iter()
            .zip(&self.aggs)
            .enumerate()
            .map(|(i, (d, s))| Aggregate {
                definition: *d,
                answers: self.answers,
                refusals: s.refusals,
                partial_refusals: s.partial,
                no_claims: s.no_claims,
                errors: s.errors,
                claims: s.claims,
                faithful_claims: s.faithful,
                micro: (s.claims > 0).then(|| s.faithful as f64 / s.claims as f64),
                macro_score: (s.scored > 0).then(|| s.score_sum / s.scored as f64),
                unsupported_answers: Rate::new(s.unsupported, s.scored, c),
                unsupported_answers_clustered: self
                    .opts
                    .cluster_by
                    .as_ref()
                    .map(|_| cluster_rate(&s.clusters.values().copied().collect::<Vec<_>>(), c)),
                unsupported_answers_corrected: (s.ppi.labelled > 0).then(|| {
                    correct::prediction_powered(&s.ppi, self.opts.cluster_by.is_some(), c)
                }),
                unsupported_claims: Rate::new((s.claims - s.faithful) as u64, s.claims as u64, c),
                unsupported_claims_corrected: self
                    .opts
                    .calibration
                    .as_ref()
                    .and_then(|cal| cal.get(i))
                    .map(|cal| claims_corrected(s, *cal, c)),
                by_rule: RULE_GRID
                    .iter()
                    .zip(s.by_rule)
                    .map(|(r, k)| (*r, Rate::new(k, s.scored, c)))
                    .collect(),
                by_length: ["1 claim", "2 claims", "3-5 claims", "6+ claims"]
                    .into_iter()
                    .zip(s.by_length)
                    .map(|(name, (k, n))| (name, Rate::new(k, n, c)))
                    .collect(),
            })
            .collect();
        let by_tag = self
            .tags
            .iter()
            .map(|(t, (n, per, claims))| TagRates {
                tag: t.clone(),
                answers: *n,
                unsupported_answers: per.iter().map(|(k, n)| Rate::new(*k, *n, c)).collect(),
                unsupported_claims: claims.iter().map(|(k, n)| Rate::new(*k, *n, c)).collect(),
                labelled_hallucinated: {
                    let rows: Vec<&LabelRow> = self
                        .labelled
                        .iter()
                        .filter(|r| r.tag.as_deref() == Some(t.as_str()))
                        .collect();
                    (!rows.is_empty()).then(|| {
                        Rate::new(
                            rows.iter().filter(|r| r.hallucinated).count() as u64,
                            rows.len() as u64,
                            c,
                        )
                    })
                },
            })
            .collect();
        ScoreSummary {
            definitions,
            by_tag,
            labels: (!self.labelled.is_empty() || self.labelled_not_scored > 0)
                .then(|| self.label_report()),
            without_passages: self.without_passages,
        }
    }

    fn label_report(&self) -> LabelReport {
        let c = self.opts.confidence;
        let rows = &self.labelled;
        let by_definition = self
            .opts
            .definitions
            .iter()
            .enumerate()
            .map(|(i, d)| self.agreement(i, d))
            .collect();
        // keyed by cluster: `--calibrate-on` never puts one source's answers on both sides
        let scored: Vec<(String, f64, bool)> = rows
            .iter()
            .filter_map(|r| r.min_score.map(|s| (r.cluster.clone(), s, r.hallucinated)))
            .collect();
        let pairs: Vec<(f64, bool)> = scored.iter().map(|(_, s, h)| (*s, *h)).collect();
        let sweep = (!scored.is_empty()).then(|| self.answer_sweep(&scored));
        LabelReport {
            labelled: rows.len(),
            hallucinated: rows.iter().filter(|r| r.hallucinated).count(),
            labelled_not_scored: self.labelled_not_scored,
            unlabelled: self.unlabelled,
            by_definition,
            auroc: auroc(&pairs, c),
            with_scores: pairs.len(),
            sweep,
        }
    }

    /// How the labels agree with the checker's flags under the `i`th definition: overall, per
    /// tag, per label type, per stratum, under each answer rule, and as a ranking of tags.
    fn agreement(&self, i: usize, d: &Definition) -> LabelAgreement {
        let c = self.opts.confidence;
        let rows = &self.labelled;
        let (tags, types) = tags_and_types(rows, i);
        let mut strata: BTreeMap<String, Vec<(bool, bool)>> = BTreeMap::new();
        for r in rows {
            if let Some(s) = &r.stratum {
                strata
                    .entry(s.clone())
                    .or_default()
                    .push((r.hallucinated, r.flagged[i]));
            }
        }
        let by_stratum: BTreeMap<String, Confusion> = strata
            .into_iter()
            .map(|(s, p)| (s, Confusion::of(p, c)))
            .collect();
        let all = Confusion::of(rows.iter().map(|r| (r.hallucinated, r.flagged[i])), c);
        let within: Vec<f64> = by_stratum
            .values()
            .filter_map(|x| x.balanced_accuracy.value)
            .collect();
        let macro_balanced_accuracy =
            (!within.is_empty()).then(|| within.iter().sum::<f64>() / within.len() as f64);
        let pooled_exceeds_every_stratum = within.len() >= 2
            && all
                .balanced_accuracy
                .value
                .is_some_and(|p| within.iter().all(|w| p > *w));
        let by_rule = by_rule(rows, i, c);
        let tag_rank_correlation = tag_rank_correlation(rows, i);
        let clustered = |hallucinated: bool| {
            self.opts.cluster_by.as_ref().map(|_| {
                crate::stats::cluster_rate_of(
                    rows.iter()
                        .filter(|r| r.hallucinated == hallucinated)
                        .map(|r| (r.cluster.as_str(), r.flagged[i] == hallucinated)),
                    c,
                )
            })
        };
        LabelAgreement {
            definition: *d,
            recall_clustered: clustered(true),
            specificity_clustered: clustered(false),
            by_rule,
            tag_rank_correlation,
            by_stratum,
            macro_balanced_accuracy,
            pooled_exceeds_every_stratum,
            all,
            by_tag: tags
                .into_iter()
                .map(|(t, p)| (t, Confusion::of(p, c)))
                .collect(),
            recall_by_type: types
                .into_iter()
                .map(|(t, (k, n))| (t, Rate::new(k, n, c)))
                .collect(),
        }
    }

    /// The answer-level threshold sweep on the lowest claim score of each labelled answer
    /// (`scored`: its cluster, score and label), calibrated on a share of the clusters with
    /// `--calibrate-on`.
    fn answer_sweep(&self, scored: &[(String, f64, bool)]) -> AnswerSweep {
        let c = self.opts.confidence;
        let keyed: Vec<(String, SweepItem)> = scored
            .iter()
            .map(|(id, s, h)| {
                (
                    id.clone(),
                    SweepItem {
                        invariance: false,
                        score: *s,
                        fault_type: h.then(|| "hallucinated".to_string()),
                        cluster: id.clone(),
                        parent_score: None,
                    },
                )
            })
            .collect();
        let all: Vec<SweepItem> = keyed.iter().map(|(_, i)| i.clone()).collect();
        let points = sweep(&all, c);
        let (cal, held) = match self.opts.calibrate_on {
            Some(f) => split(&keyed, f),
            None => (all.clone(), Vec::new()),
        };
        let cal_points = if self.opts.calibrate_on.is_some() {
            sweep(&cal, c)
        } else {
            points.clone()
        };
        let recommended = self
            .opts
            .max_false_alarm
            .and_then(|r| recommend(&cal_points, r).cloned());
        let held_out = match (self.opts.calibrate_on, &recommended) {
            (Some(_), Some(rec)) => Some(at(&held, rec.threshold, c)),
            _ => None,
        };
        AnswerSweep {
            points,
            max_false_alarm: self.opts.max_false_alarm,
            recommended,
            calibrate_on: self.opts.calibrate_on,
            calibration_answers: cal.len(),
            held_out_answers: held.len(),
            held_out,
        }
    }
}

/// Adds one cluster's (bad claims, claims) to the running sums of the claim rate's variance.
fn add_claim_unit(sums: &mut [f64; 5], k: u64, n: u64) {
    let (k, n) = (k as f64, n as f64);
    sums[0] += k;
    sums[1] += n;
    sums[2] += k * k;
    sums[3] += k * n;
    sums[4] += n * n;
}

/// The unsupported-claim rate corrected for the checker's claim-level sensitivity and
/// specificity, its variance clustered by answer (or by `--cluster-by`).
fn claims_corrected(s: &AggState, cal: Calibration, confidence: f64) -> Corrected {
    let (mut sums, mut units) = (s.claim_sums, s.claim_units);
    for (k, n) in s.claim_clusters.values() {
        add_claim_unit(&mut sums, *k, *n);
        units += 1;
    }
    let obs = correct::Observed {
        k: (s.claims - s.faithful) as f64,
        n: s.claims as f64,
        cluster_variance: correct::ratio_cluster_variance(sums, units),
    };
    correct::rogan_gladen(obs, cal, confidence)
}

/// Per tag, each labelled answer's (label, flag).
type ByTag = BTreeMap<String, Vec<(bool, bool)>>;
/// Per label type, (flagged, all) of the answers labelled hallucinated with it.
type ByType = BTreeMap<String, (u64, u64)>;

/// The answers per tag and per label type, flagged under the `i`th definition.
fn tags_and_types(rows: &[LabelRow], i: usize) -> (ByTag, ByType) {
    let mut tags: ByTag = BTreeMap::new();
    let mut types: ByType = BTreeMap::new();
    for r in rows {
        if let Some(t) = &r.tag {
            tags.entry(t.clone())
                .or_default()
                .push((r.hallucinated, r.flagged[i]));
        }
        if r.hallucinated {
            let mut seen = std::collections::BTreeSet::new();
            for t in &r.types {
                if seen.insert(t) {
                    let e = types.entry(t.clone()).or_default();
                    e.1 += 1;
                    if r.flagged[i] {
                        e.0 += 1;
                    }
                }
            }
        }
    }
    (tags, types)
}

/// Balanced accuracy under each rule of [`RULE_GRID`] (the `i`th definition's claim counts).
fn by_rule(
    rows: &[LabelRow],
    i: usize,
    c: f64,
) -> Vec<(AnswerRule, crate::stats::agreement::Estimate)> {
    RULE_GRID
        .iter()
        .map(|rule| {
            let conf = Confusion::of(
                rows.iter().map(|r| {
                    let (f, n) = r.counts[i];
                    (r.hallucinated, rule.flags(f, n))
                }),
                c,
            );
            (*rule, conf.balanced_accuracy)
        })
        .collect()
}

/// With three tags or more: Spearman's rank correlation, over tags, of the labels'
/// hallucination rate with the checker's unsupported-answer and unsupported-claim rates.
fn tag_rank_correlation(rows: &[LabelRow], i: usize) -> Option<(f64, f64)> {
    // per tag: answers, labelled hallucinated, flagged, bad claims, claims
    let mut per_tag: BTreeMap<&str, [f64; 5]> = BTreeMap::new();
    for r in rows {
        if let Some(t) = &r.tag {
            let e = per_tag.entry(t.as_str()).or_default();
            let (f, n) = r.counts[i];
            e[0] += 1.0;
            e[1] += f64::from(u8::from(r.hallucinated));
            e[2] += f64::from(u8::from(r.flagged[i]));
            e[3] += (n - f) as f64;
            e[4] += n as f64;
        }
    }
    (per_tag.len() >= 3).then(|| {
        let label: Vec<f64> = per_tag.values().map(|v| v[1] / v[0]).collect();
        let answers: Vec<f64> = per_tag.values().map(|v| v[2] / v[0]).collect();
        let claims: Vec<f64> = per_tag
            .values()
            .map(|v| if v[4] > 0.0 { v[3] / v[4] } else { 0.0 })
            .collect();
        (
            crate::stats::agreement::spearman(&label, &answers),
            crate::stats::agreement::spearman(&label, &claims),
        )
    })
}

fn worst_key(a: &AnswerResult, def: Definition) -> Option<WorstKey> {
    let min = a.min_score().unwrap_or(f64::INFINITY);
    match a.status(def) {
        Status::Error => Some(WorstKey(0, 0.0, min, a.position)),
        Status::Scored { faithful, claims } if faithful < claims => Some(WorstKey(
            1,
            faithful as f64 / claims as f64,
            if min.is_nan() { f64::INFINITY } else { min },
            a.position,
        )),
        _ => None,
    }
}

/// The aggregates of a finished list of answers under one definition.
pub fn aggregate(answers: &[AnswerResult], def: Definition, confidence: f64) -> Aggregate {
    let mut t = Tally::new(TallyOptions {
        definitions: vec![def],
        confidence,
        worst: 0,
        max_false_alarm: None,
        calibrate_on: None,
        cluster_by: None,
        stratify_by: None,
        answer_rule: AnswerRule::Any,
        calibration: None,
    });
    for a in answers {
        t.add(a);
    }
    t.summary().definitions.remove(0)
}
