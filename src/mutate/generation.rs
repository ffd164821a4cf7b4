//! Generating a suite's mutants: every operator on every verified claim, each edit skipped with
//! the reason, left to the hard case it equals, or kept as a mutant with a stable id and the
//! suite's review of it.

use super::set::{Mutant, MutantSet, Skipped, StaleReview};
use super::{guard, role_reversal, Input, Operator, Purpose, RealError, Rules};
use crate::error::{Error, Result};
use crate::model::case::MutantReview;
use crate::model::suite::{Claim, ReviewKind, Suite};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashSet};

/// The words of `s`, lower-cased and sorted: two texts with the same words in another order have
/// the same list.
pub(super) fn sorted_words(s: &str) -> Vec<String> {
    sorted(guard::Sentence::new(s).words())
}

/// Words (a [`guard::Sentence`]'s) sorted: the [`sorted_words`] of its text.
fn sorted(words: &[String]) -> Vec<String> {
    let mut w = words.to_vec();
    w.sort();
    w
}

/// A sentence as [`skip_reason`] compares it: trimmed, without its final stop, lower-cased.
fn sentence_key(s: &str) -> String {
    s.trim().trim_end_matches(['.', '!', '?']).to_lowercase()
}

/// Why an edit is not a case, or `None` when it is one: a fault that only reorders the claim's
/// words (the members of a list swapped) says the same thing, and a fault that is word for word a
/// sentence of the passages is supported by them. `claim_words` are the claim's
/// [`sorted_words`], `read` the edit as the guard reads it, `sentences` the passages' sentences
/// as [`sentence_key`]s.
fn skip_reason(
    op: &Operator,
    claim_words: &[String],
    (text, read): (&str, &guard::Sentence),
    sentences: &std::collections::HashSet<String>,
) -> Option<&'static str> {
    if op.purpose != Purpose::Fault {
        return None;
    }
    // a role reversal moves words by its nature: who did what to whom is in their order
    if sorted(read.words()) == claim_words && op.name != role_reversal::OPERATOR.name {
        return Some("it only reorders the claim's words (e.g. two members of a list swapped), so it says the same thing");
    }
    if sentences.contains(&sentence_key(text)) {
        return Some("it is word for word a sentence of the passages, so they support it");
    }
    None
}

/// The stable id of a mutant: `m-` and the first 16 hex digits (64 bits) of a SHA-256 over the
/// operator, the parent claim id and the mutant text.
pub(crate) fn mutant_id(operator: &str, parent_id: &str, text: &str) -> String {
    let mut h = Sha256::new();
    for part in [operator, parent_id, text] {
        h.update(part.as_bytes());
        h.update([0u8]);
    }
    let digest = h.finalize();
    format!("m-{}", crate::text::hash::hex(&digest[..8]))
}

/// The stable id of a compound fault: [`mutant_id`] with the operator marked `+compound`, so a
/// compound fault never shares an id with a plain mutant of the same text.
pub(crate) fn compound_id(operator: &str, parent_id: &str, text: &str) -> String {
    mutant_id(&format!("{operator}+compound"), parent_id, text)
}

/// How many other contexts (the next ones in suite order) an operator may borrow from.
const ELSEWHERE: usize = 4;

/// How many of the suite's real errors an operator sees with each claim.
const REAL_ERRORS: usize = 8;

/// The suite's real errors as the claims of context `ci` see them: those of the other contexts in
/// suite order from the next one (wrapping), then the context's own (a model shown its own
/// passage's error would tend to write that hard case again), at most [`REAL_ERRORS`].
/// Only the contexts that hold one are visited (`texts.with_real_errors`), so a suite without
/// real errors costs nothing here, not a pass over every context for each context.
fn real_errors_for<'a>(suite: &'a Suite, texts: &'a Texts<'a>, ci: usize) -> Vec<RealError<'a>> {
    let with = &texts.with_real_errors;
    let after = with.partition_point(|&c| c <= ci);
    let passages = &texts.passages;
    with[after..]
        .iter()
        .chain(&with[..after])
        .flat_map(|&c| {
            suite.contexts[c]
                .hard_cases
                .iter()
                .filter(|h| h.is_real_error())
                .map(move |h| RealError {
                    claim: &h.text,
                    case_type: &h.case_type,
                    label: h.label.as_str(),
                    passages: &passages[c],
                })
        })
        .take(REAL_ERRORS)
        .collect()
}

/// What every context's claims read of the whole suite: each context's passage texts, and the
/// contexts (in suite order) that hold a real error.
struct Texts<'s> {
    passages: Vec<Vec<&'s str>>,
    with_real_errors: Vec<usize>,
}

impl<'s> Texts<'s> {
    fn of(suite: &'s Suite) -> Texts<'s> {
        Texts {
            passages: suite
                .contexts
                .iter()
                .map(|c| c.passages.iter().map(|p| p.text.as_str()).collect())
                .collect(),
            with_real_errors: (0..suite.contexts.len())
                .filter(|&c| {
                    suite.contexts[c]
                        .hard_cases
                        .iter()
                        .any(|h| h.is_real_error())
                })
                .collect(),
        }
    }
}

/// The length of a mutant id from faithprobe 0.1 (`m-` and 8 hex digits): the same hash, cut
/// shorter, so such an id is a prefix of today's. Reviews keyed by one still apply.
const LEGACY_ID_LEN: usize = 10;

/// Generates every mutant of a suite's faithful claims and attaches the suite's reviews. A review
/// of a mutant id the suite does not generate is stale: listed in the set, never an error.
///
/// Contexts are made side by side, one thread per core, and put together in suite order, so the
/// set is the same whatever the number of threads (an operator that calls a model, which says
/// so, keeps to one thread).
pub fn generate(suite: &Suite, rules: &Rules) -> Result<MutantSet> {
    let texts = Texts::of(suite);
    let made = made_side_by_side(suite, rules, &texts)?;
    finish(suite, rules, made)
}

/// The set from what the contexts made: short review ids, stale reviews, failed mutators, the
/// cap and the operators that made nothing.
fn finish(suite: &Suite, rules: &Rules, mut made: Made<'_>) -> Result<MutantSet> {
    no_short_id_matches_twice(suite, &made.legacy)?;
    // before the cap: a review of a mutant the cap leaves out is not stale (a larger cap or
    // another seed brings it back)
    let stale_reviews = stale_reviews(suite, &made);
    no_mutator_failed(suite, rules)?;
    if let Some(cap) = rules.generation.max_per_claim {
        apply_cap(
            &mut made.mutants,
            &mut made.skipped,
            cap,
            rules.generation.seed,
        );
    }
    let operators: Vec<&'static str> = rules.operators().map(|(op, _)| op.name).collect();
    let empty_operators = operators
        .iter()
        .copied()
        .filter(|name| !made.mutants.iter().any(|m| m.operator == *name))
        .collect();
    Ok(MutantSet {
        mutants: made.mutants,
        operators,
        skipped: made.skipped,
        empty_operators,
        same_as_hard_case: made.same_as_hard_case,
        stale_reviews,
        rules_sha256: rules.fingerprint(),
        max_per_claim: rules.generation.max_per_claim,
    })
}

/// Every context's mutants, made by one worker per core taking the next context from a shared
/// counter, and joined in suite order as they come (the joining, a look-up per mutant in the
/// suite's ids, runs beside the workers instead of after them). A context that fails stops the
/// workers from taking later ones; the first failure in suite order is the one reported, as one
/// thread would.
fn made_side_by_side<'s>(suite: &'s Suite, rules: &Rules, texts: &Texts<'s>) -> Result<Made<'s>> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let n = suite.contexts.len();
    let workers = if rules.operators().all(|(_, m)| m.side_by_side()) {
        std::thread::available_parallelism()
            .map_or(1, std::num::NonZeroUsize::get)
            .min(n)
            .max(1)
    } else {
        1
    };
    let made = |ci: usize| {
        let mut made = Made::default();
        let error = made.context(suite, rules, texts, ci).err();
        (made, error)
    };
    let mut all = Made::default();
    if workers == 1 {
        for ci in 0..n {
            let (part, error) = made(ci);
            all.join(suite, part)?;
            if let Some(e) = error {
                return Err(e);
            }
        }
        return Ok(all);
    }
    let next = AtomicUsize::new(0);
    // the first context (in suite order) that failed, or whose mutants could not be joined: no
    // worker takes a later one
    let failed = AtomicUsize::new(usize::MAX);
    // the set so far, the next context it takes, and the parts made before their turn; a
    // worker joins what is ready when nobody else is joining, so no one waits for it
    let joined: std::sync::Mutex<Joined<'s>> = std::sync::Mutex::new(Joined {
        all,
        want: 0,
        early: BTreeMap::new(),
        error: None,
    });
    let join_ready = |j: &mut Joined<'s>| {
        while let Some((part, error)) = j.early.remove(&j.want) {
            let e = j.all.join(suite, part).err().or(error);
            if let Some(e) = e {
                failed.fetch_min(j.want, Ordering::Relaxed);
                j.error = Some(e);
                j.early.clear();
                return;
            }
            j.want += 1;
        }
    };
    let work = || {
        // parts this worker made while another was joining
        let mut mine: Vec<(usize, Made<'s>, Option<Error>)> = Vec::new();
        loop {
            let ci = next.fetch_add(1, Ordering::Relaxed);
            if ci >= n || ci > failed.load(Ordering::Relaxed) {
                break;
            }
            let (part, error) = made(ci);
            if error.is_some() {
                failed.fetch_min(ci, Ordering::Relaxed);
            }
            mine.push((ci, part, error));
            if let Ok(mut j) = joined.try_lock() {
                if j.error.is_none() {
                    for (ci, part, error) in mine.drain(..) {
                        j.early.insert(ci, (part, error));
                    }
                    join_ready(&mut j);
                }
            }
        }
        mine
    };
    let left: Vec<(usize, Made<'s>, Option<Error>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers).map(|_| scope.spawn(work)).collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let mut j = joined
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if j.error.is_none() {
        for (ci, part, error) in left {
            j.early.insert(ci, (part, error));
        }
        join_ready(&mut j);
    }
    match j.error {
        Some(e) => Err(e),
        None => Ok(j.all),
    }
}

/// What [`made_side_by_side`]'s workers have put together: the set in suite order up to
/// context `want`, the parts made before their turn, and the first failure in suite order.
struct Joined<'s> {
    all: Made<'s>,
    want: usize,
    early: BTreeMap<usize, (Made<'s>, Option<Error>)>,
    error: Option<Error>,
}

/// Why a mutant the cap leaves out is skipped.
pub(crate) const CAP: &str = "cap: the claim has more mutants of this operator than max_per_claim; a seeded sample of them is kept";

/// Where a mutant falls in the cap's sample: a hash of the seed and its id, so the same seed
/// keeps the same mutants whatever else the suite holds.
fn sample_key(seed: u64, id: &str) -> [u8; 8] {
    let mut h = Sha256::new();
    h.update(seed.to_le_bytes());
    h.update(id.as_bytes());
    let d = h.finalize();
    let mut k = [0u8; 8];
    k.copy_from_slice(&d[..8]);
    k
}

/// Keeps at most `cap` mutants per claim and operator (rewrites included), the ones with the
/// lowest [`sample_key`]s; the rest become skips with the reason [`CAP`]. Order is kept.
fn apply_cap(mutants: &mut Vec<Mutant>, skipped: &mut Vec<Skipped>, cap: usize, seed: u64) {
    // plain and compound mutants are capped apart: compound ones never crowd out the plain
    let mut groups: BTreeMap<(&str, &str, bool), Vec<usize>> = BTreeMap::new();
    for (i, m) in mutants.iter().enumerate() {
        groups
            .entry((&m.parent, m.operator, m.compound_of.is_some()))
            .or_default()
            .push(i);
    }
    let mut out: HashSet<usize> = HashSet::new();
    for members in groups.values().filter(|g| g.len() > cap) {
        let mut ranked = members.clone();
        ranked.sort_by_key(|&i| (sample_key(seed, &mutants[i].id), i));
        out.extend(&ranked[cap..]);
    }
    let all = std::mem::take(mutants);
    for (i, m) in all.into_iter().enumerate() {
        if out.contains(&i) {
            skipped.push(Skipped {
                operator: m.operator,
                parent: m.parent,
                text: m.text,
                why: CAP,
                compound_of: m.compound_of,
            });
        } else {
            mutants.push(m);
        }
    }
}

/// The texts around a context's claims: its passages and the passages an operator may borrow
/// from.
struct Around<'s> {
    passages: Vec<&'s str>,
    elsewhere: Vec<&'s str>,
}

impl<'s> Around<'s> {
    fn of(suite: &'s Suite, ci: usize) -> Around<'s> {
        let ctx = &suite.contexts[ci];
        let passages: Vec<&str> = ctx.passages.iter().map(|p| p.text.as_str()).collect();
        // the next few contexts in suite order (wrapping): enough to borrow a detail from,
        // and a bounded cost per claim however large the suite
        let n = suite.contexts.len();
        let elsewhere: Vec<&str> = (1..n.min(ELSEWHERE + 1))
            .map(|k| &suite.contexts[(ci + k) % n])
            .flat_map(|c| c.passages.iter().map(|p| p.text.as_str()))
            .collect();
        Around {
            passages,
            elsewhere,
        }
    }
}

/// The claim whose edits are being made: its context's index, its [`sorted_words`], where its
/// mutants start in [`Made::mutants`], its passages' sentences.
struct ClaimAt<'a> {
    context: usize,
    claim: &'a Claim,
    words: Vec<String>,
    /// The claim as the grammar guard reads it.
    read: guard::Sentence<'a>,
    first: usize,
    sentences: &'a HashSet<String>,
}

/// What generation has made so far.
#[derive(Default)]
struct Made<'s> {
    mutants: Vec<Mutant>,
    skipped: Vec<Skipped>,
    /// id -> index in `mutants` (ids are hex hashes: the word hasher is enough, and a suite's
    /// hundreds of thousands of them are put together faster than in a sorted map)
    seen: crate::text::hash::WordMap<String, usize>,
    /// A short review id (of an older faithprobe) -> the mutants it matched.
    legacy: BTreeMap<&'s str, Vec<String>>,
    same_as_hard_case: Vec<(String, &'static str, String)>,
}

impl<'s> Made<'s> {
    /// The mutants of context `ci`'s claims, added to this (a context's own) set.
    fn context(
        &mut self,
        suite: &'s Suite,
        rules: &Rules,
        texts: &Texts<'s>,
        ci: usize,
    ) -> Result<()> {
        let ctx = &suite.contexts[ci];
        let around = Around::of(suite, ci);
        let real_errors = real_errors_for(suite, texts, ci);
        let shared = super::Shared::new(&around.passages, &around.elsewhere);
        // the passages' sentences as [`sentence_key`]s, from the split the operators share
        let sentences: HashSet<String> = Input {
            shared: Some(&shared),
            passages: &around.passages,
            elsewhere: &around.elsewhere,
            ..Input::bare("")
        }
        .sentences()
        .into_iter()
        .flatten()
        .map(sentence_key)
        .collect();
        for claim in &ctx.faithful {
            // a signal stops generation within a claim's work, not after the whole suite
            if crate::io::interrupt::requested() {
                return Err(Error::Interrupted(format!(
                    "stopped while making the mutants of {}; nothing was scored or written",
                    suite.path.display()
                )));
            }
            let read = guard::Sentence::new(&claim.text);
            let at = ClaimAt {
                context: ci,
                claim,
                words: sorted(read.words()),
                read,
                first: self.mutants.len(),
                sentences: &sentences,
            };
            let input = Input {
                claim: &claim.text,
                passages: &around.passages,
                entities: &suite.entities,
                elsewhere: &around.elsewhere,
                real_errors: &real_errors,
                shared: Some(&shared),
            };
            for (op, m) in rules.operators() {
                for text in m.mutate(&input) {
                    self.add(suite, &at, op, text)?;
                }
            }
            if rules.generation.compound {
                self.compound_faults(suite, &at, &input, rules)?;
            }
        }
        Ok(())
    }

    /// A later context's set added after this one's. Mutant ids are unique within a context;
    /// one that another context's mutant already has is a hash collision (claim ids are unique
    /// across the suite, so no two contexts make the same edit of one claim).
    fn join(&mut self, suite: &Suite, part: Made<'s>) -> Result<()> {
        for m in &part.mutants {
            if let Some(&other) = self.seen.get(&m.id) {
                let o = &self.mutants[other];
                return Err(collision(suite, &m.id, o, (m.operator, &m.parent, &m.text)));
            }
        }
        let base = self.mutants.len();
        for (id, i) in part.seen {
            self.seen.insert(id, base + i);
        }
        self.mutants.extend(part.mutants);
        self.skipped.extend(part.skipped);
        for (short, ids) in part.legacy {
            self.legacy.entry(short).or_default().extend(ids);
        }
        self.same_as_hard_case.extend(part.same_as_hard_case);
        Ok(())
    }

    /// One edit of a claim: skipped with the reason, left to the hard case it equals, or kept as
    /// a mutant with its review.
    fn add(
        &mut self,
        suite: &'s Suite,
        at: &ClaimAt<'_>,
        op: &'static Operator,
        text: String,
    ) -> Result<()> {
        let claim = at.claim;
        if text == claim.text || crate::text::words::is_blank(&text) {
            return Ok(());
        }
        // this claim's mutants are the last ones pushed: look only at those
        let twin = self.mutants[at.first..]
            .iter()
            .any(|m| m.text == text && m.operator != op.name);
        let read = guard::Sentence::new(&text);
        let why = skip_reason(op, &at.words, (&text, &read), at.sentences)
            .or(twin
                .then_some("another operator made the same edit of this claim; it is kept there"))
            .or_else(|| guard::refuse_read(&at.read, &read));
        if let Some(why) = why {
            self.skipped.push(Skipped {
                operator: op.name,
                parent: claim.id.clone(),
                text,
                why,
                compound_of: None,
            });
            return Ok(());
        }
        self.keep(suite, at, op, text, None)
    }

    /// Compound faults of a claim: every registry fault operator on each of the claim's
    /// rewrites made so far (none reviewed `not_equivalent`), so the fault sits in text that
    /// says the claim in other words, as real errors do. An LLM mutator is left out (a model
    /// call per rewrite).
    fn compound_faults(
        &mut self,
        suite: &'s Suite,
        at: &ClaimAt<'_>,
        input: &Input<'_>,
        rules: &Rules,
    ) -> Result<()> {
        let rewrites: Vec<(String, String)> = self.mutants[at.first..]
            .iter()
            .filter(|m| m.is_rewrite())
            .filter(|m| !matches!(m.review, MutantReview::NotEquivalent { .. }))
            .map(|m| (m.id.clone(), m.text.clone()))
            .collect();
        for (rewrite_id, rewrite) in &rewrites {
            let on = Input {
                claim: rewrite,
                ..*input
            };
            let words = sorted_words(rewrite);
            let faults = rules.operators().filter(|(op, _)| {
                op.purpose == Purpose::Fault && super::operator(op.name).is_some()
            });
            for (op, m) in faults {
                for text in m.mutate(&on) {
                    self.add_compound(suite, at, op, (rewrite_id, rewrite, &words), text)?;
                }
            }
        }
        Ok(())
    }

    /// One compound edit: `rewrite` is the rewrite's id, text and [`sorted_words`]. It is
    /// skipped with the reason when it is the claim, the rewrite, another of the claim's
    /// mutants or rewrites, a reordering of either, a sentence of the passages, or what the
    /// grammar guard refuses (against the rewrite, which is what the operator edited).
    fn add_compound(
        &mut self,
        suite: &'s Suite,
        at: &ClaimAt<'_>,
        op: &'static Operator,
        rewrite: (&str, &str, &[String]),
        text: String,
    ) -> Result<()> {
        let (rewrite_id, rewrite_text, rewrite_words) = rewrite;
        let claim = at.claim;
        if text == claim.text || text == rewrite_text || crate::text::words::is_blank(&text) {
            return Ok(());
        }
        let same = self.mutants[at.first..].iter().find(|m| m.text == text);
        let why = match same {
            Some(m) if m.is_rewrite() => {
                Some("a compound fault that is word for word a rewrite of the claim, so it says the same thing")
            }
            Some(m) if m.compound_of.is_none() => {
                Some("a compound fault that is word for word a plain mutant of the claim; it is kept as the plain one")
            }
            Some(m) if m.operator != op.name => {
                Some("another operator made the same compound edit of this claim; it is kept there")
            }
            _ => None,
        }
        .or_else(|| {
            let read = guard::Sentence::new(&text);
            skip_reason(op, rewrite_words, (&text, &read), at.sentences)
                .or_else(|| skip_reason(op, &at.words, (&text, &read), at.sentences))
                .or_else(|| guard::refuse_read(&guard::Sentence::new(rewrite_text), &read))
        });
        if let Some(why) = why {
            self.skipped.push(Skipped {
                operator: op.name,
                parent: claim.id.clone(),
                text,
                why,
                compound_of: Some(rewrite_id.to_string()),
            });
            return Ok(());
        }
        self.keep(suite, at, op, text, Some(rewrite_id.to_string()))
    }

    /// An edit that passed every check: left to the hard case it equals, or kept as a mutant
    /// with its id (a compound fault's from its operator marked `+compound`) and its review.
    fn keep(
        &mut self,
        suite: &'s Suite,
        at: &ClaimAt<'_>,
        op: &'static Operator,
        text: String,
        compound_of: Option<String>,
    ) -> Result<()> {
        let claim = at.claim;
        let ctx = &suite.contexts[at.context];
        if let Some(h) = ctx.hard_cases.iter().find(|h| h.text == text) {
            let hit = (h.id.clone(), op.name, claim.id.clone());
            if !self.same_as_hard_case.contains(&hit) {
                self.same_as_hard_case.push(hit);
            }
            return Ok(());
        }
        let id = match &compound_of {
            None => mutant_id(op.name, &claim.id, &text),
            Some(_) => compound_id(op.name, &claim.id, &text),
        };
        if let Some(&other) = self.seen.get(&id) {
            let o = &self.mutants[other];
            if o.operator == op.name && o.parent == claim.id && o.text == text {
                return Ok(()); // the same edit reached twice (e.g. two matching patterns)
            }
            return Err(collision(suite, &id, o, (op.name, &claim.id, &text)));
        }
        let review = self.review_of(suite, &id, op)?;
        self.seen.insert(id.clone(), self.mutants.len());
        self.mutants.push(Mutant {
            id,
            operator: op.name,
            parent: claim.id.clone(),
            context: at.context,
            text,
            review,
            compound_of,
        });
        Ok(())
    }

    /// The suite's review of the mutant `id`, under its full id or the short one of an older
    /// faithprobe (never both), as the operator's purpose allows it.
    fn review_of(&mut self, suite: &'s Suite, id: &str, op: &Operator) -> Result<MutantReview> {
        let full = suite.reviews.get_key_value(id);
        let short = suite.reviews.get_key_value(&id[..LEGACY_ID_LEN]);
        if let (Some(f), Some(s)) = (full, short) {
            return Err(reviewed_twice(suite, id, f, s));
        }
        let key = full.or(short);
        if let Some((k, _)) = key.filter(|(k, _)| k.len() == LEGACY_ID_LEN) {
            self.legacy
                .entry(k.as_str())
                .or_default()
                .push(id.to_string());
        }
        Ok(match key.map(|(_, r)| r) {
            None => MutantReview::Unreviewed,
            Some(r) => match (r.kind, op.purpose) {
                (ReviewKind::Fault, Purpose::Fault) => MutantReview::Fault,
                (ReviewKind::Equivalent, _) => MutantReview::Equivalent {
                    why: r.why.clone().unwrap_or_default(),
                },
                (ReviewKind::NotEquivalent, Purpose::Invariance) => MutantReview::NotEquivalent {
                    why: r.why.clone().unwrap_or_default(),
                },
                (ReviewKind::Broken, Purpose::Fault) => MutantReview::Broken { why: r.why.clone() },
                (kind, purpose) => {
                    return Err(Error::input(
                        &r.file,
                        r.line,
                        format!(
                            "`{id}` is a {} of {} and cannot be reviewed `{}`",
                            if purpose == Purpose::Fault {
                                "mutant"
                            } else {
                                "rewrite"
                            },
                            op.name,
                            kind.as_str()
                        ),
                        if purpose == Purpose::Fault {
                            "review a mutant `fault`, `equivalent` (with a `why`) or `broken`"
                        } else {
                            "review a rewrite `equivalent` or `not_equivalent` (with a `why`)"
                        },
                    ));
                }
            },
        })
    }
}

/// Two different mutants with one id: `o` made first, then (operator, parent, text).
fn collision(
    suite: &Suite,
    id: &str,
    o: &Mutant,
    (operator, parent, text): (&str, &str, &str),
) -> Error {
    Error::input(
        &suite.path,
        None,
        format!(
            "two different mutants share the id {id}: {:?} ({} of {}) and {text:?} ({operator} of {parent})",
            o.text, o.operator, o.parent
        ),
        "this is a 64-bit hash collision; rename one of the two parent claims' ids and report it",
    )
}

/// A short review id (of an older faithprobe) must name one mutant.
fn no_short_id_matches_twice(suite: &Suite, legacy: &BTreeMap<&str, Vec<String>>) -> Result<()> {
    for (short, ids) in legacy {
        if ids.len() > 1 {
            return Err(Error::input(
                &suite.reviews[*short].file,
                suite.reviews[*short].line,
                format!(
                    "the review of `{short}` (a short id from an older faithprobe) now matches {} mutants: {}",
                    ids.len(),
                    ids.join(", ")
                ),
                "replace it with the full ids from `faithprobe mutants SUITE --format yaml`",
            ));
        }
    }
    Ok(())
}

/// The reviews whose mutant is gone (its claim was edited, a rule changed, a typo): listed, never
/// a reason the suite cannot load.
fn stale_reviews(suite: &Suite, made: &Made<'_>) -> Vec<StaleReview> {
    suite
        .reviews
        .iter()
        .filter(|(id, _)| {
            !(made.seen.contains_key(*id)
                || (id.len() == LEGACY_ID_LEN && made.legacy.contains_key(id.as_str())))
        })
        .map(|(id, r)| StaleReview {
            id: id.clone(),
            file: r.file.clone(),
            line: r.line,
        })
        .collect()
}

/// A mutator that could not write its cache (an output failure), or could not make its mutants
/// (a model that did not answer), stops generation: no claim is silently without them.
fn no_mutator_failed(suite: &Suite, rules: &Rules) -> Result<()> {
    for (_, m) in rules.operators() {
        if let Some(e) = m.write_error() {
            return Err(e);
        }
    }
    for (op, m) in rules.operators() {
        if let Some(why) = m.error() {
            return Err(crate::error::Refusal::MutatorFailed.with(format!(
                "the mutator {} could not make its mutants for {}: {why}; fix the server or the model, or remove it from `mutators:` in faithprobe.yaml (its replies so far are cached)",
                op.name,
                suite.path.display()
            )));
        }
    }
    Ok(())
}

/// The error for a mutant reviewed under its full id and under its short one (from an older
/// faithprobe): named at the side file's line when one of the two is there, as a review in both
/// the suite and its side file is.
fn reviewed_twice(
    suite: &Suite,
    id: &str,
    full: (&String, &crate::model::suite::Review),
    short: (&String, &crate::model::suite::Review),
) -> Error {
    let (here, there) = if full.1.file != suite.path {
        (full, short)
    } else {
        (short, full)
    };
    Error::input(
        &here.1.file,
        here.1.line,
        format!(
            "`{}` is reviewed here and in {}{} (as `{}`): both are reviews of the mutant {id}",
            here.0,
            there.1.file.display(),
            there.1.line.map(|l| format!(":{l}")).unwrap_or_default(),
            there.0
        ),
        "keep one review: delete this line, or the other one",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutate::reviews_yaml;

    #[test]
    fn a_reordered_list_and_a_sentence_of_the_passages_are_skipped_with_the_reason() {
        let yaml = "suite: s\nentities:\n  item: [books, DVDs]\ncontexts:\n  - id: c\n    passages: [{id: p, text: \"Members borrow books and DVDs. Members borrow DVDs for a week.\"}]\n    faithful: [{id: f1, claim: \"Members borrow books and DVDs.\"}, {id: f2, claim: \"Members borrow books for a week.\"}]\n";
        let suite = Suite::from_yaml(std::path::Path::new("s.yaml"), yaml).unwrap();
        let set = generate(&suite, &Rules::builtin()).unwrap();
        assert!(set
            .mutants
            .iter()
            .all(|m| m.text != "Members borrow DVDs and books."));
        assert!(set
            .mutants
            .iter()
            .all(|m| m.text != "Members borrow DVDs for a week."));
        let why = |t: &str| set.skipped.iter().find(|s| s.text == t).map(|s| s.why);
        assert!(why("Members borrow DVDs and books.")
            .unwrap()
            .contains("reorders"));
        assert!(why("Members borrow DVDs for a week.")
            .unwrap()
            .contains("sentence of the passages"));
    }

    /// A news-style claim with several quantities, so number_swap makes one mutant per quantity.
    fn budget_suite(reviews: &str) -> Suite {
        let yaml = format!(
            "suite: budget\ncontexts:\n  - id: council\n    passages: [{{id: p1, text: \"The council approved £38 million for 12 schools and 4 clinics, a rise of 17 per cent on last year.\"}}]\n    faithful: [{{id: f1, claim: \"The council approved £38 million for 12 schools and 4 clinics, a rise of 17 per cent.\"}}]\n{reviews}"
        );
        Suite::from_yaml(std::path::Path::new("budget.yaml"), &yaml).unwrap()
    }

    fn capped(cap: usize, seed: u64) -> Rules {
        Rules::builtin().with_generation(crate::mutate::Generation {
            compound: false,
            max_per_claim: Some(cap),
            seed,
        })
    }

    fn of_op<'a>(set: &'a MutantSet, op: &str) -> Vec<&'a str> {
        set.mutants
            .iter()
            .filter(|m| m.operator == op)
            .map(|m| m.id.as_str())
            .collect()
    }

    #[test]
    fn the_cap_keeps_at_most_n_per_claim_and_operator_and_lists_the_rest_as_skips() {
        let suite = budget_suite("");
        let all = generate(&suite, &Rules::builtin()).unwrap();
        let swaps = of_op(&all, "number_swap");
        assert!(swaps.len() >= 3, "{:?}", all.mutants);
        let set = generate(&suite, &capped(2, 0)).unwrap();
        assert_eq!(set.max_per_claim, Some(2));
        let kept = of_op(&set, "number_swap");
        assert_eq!(kept.len(), 2);
        assert!(kept.iter().all(|id| swaps.contains(id)));
        let dropped: Vec<&Skipped> = set.skipped.iter().filter(|s| s.why == CAP).collect();
        let over: usize = all.counts().iter().map(|(_, n)| n.saturating_sub(2)).sum();
        assert_eq!(dropped.len(), over);
        assert!(dropped.iter().all(|s| s.why.starts_with("cap")));
        for op in all.operators.iter() {
            assert!(of_op(&set, op).len() <= 2, "{op}");
        }
        // a capped rules set has its own fingerprint; the default one is unchanged
        assert_ne!(set.rules_sha256, all.rules_sha256);
        assert_eq!(all.rules_sha256, Rules::builtin().fingerprint());
    }

    #[test]
    fn the_same_seed_keeps_the_same_mutants_and_another_seed_may_not() {
        let suite = budget_suite("");
        let a = generate(&suite, &capped(1, 7)).unwrap();
        let b = generate(&suite, &capped(1, 7)).unwrap();
        assert_eq!(a.mutants, b.mutants);
        assert_eq!(a.skipped, b.skipped);
        let kept: std::collections::BTreeSet<Vec<String>> = (0..16)
            .map(|seed| generate(&suite, &capped(1, seed)).unwrap())
            .map(|s| {
                of_op(&s, "number_swap")
                    .into_iter()
                    .map(str::to_owned)
                    .collect()
            })
            .collect();
        assert!(
            kept.len() > 1,
            "16 seeds all kept the same number_swap mutant"
        );
    }

    #[test]
    fn a_review_of_a_mutant_the_cap_leaves_out_is_not_stale() {
        let all = generate(&budget_suite(""), &Rules::builtin()).unwrap();
        let set = generate(&budget_suite(""), &capped(1, 0)).unwrap();
        let out = all
            .mutants
            .iter()
            .find(|m| !set.mutants.iter().any(|k| k.id == m.id))
            .expect("the cap leaves some mutant out");
        let reviewed = budget_suite(&format!("reviews:\n  {}: {{review: fault}}\n", out.id));
        let set = generate(&reviewed, &capped(1, 0)).unwrap();
        assert!(set.stale_reviews.is_empty(), "{:?}", set.stale_reviews);
        assert!(set.mutants.iter().all(|m| m.id != out.id));
    }

    /// An answer sentence with a number and a condition, so both rewrite operators apply.
    fn refund_suite() -> Suite {
        let yaml = "suite: refunds\ncontexts:\n  - id: policy\n    passages: [{id: p1, text: \"Refunds on annual plans are approximately 17 per cent lower if the order is cancelled after 30 days. Monthly plans are not refunded.\"}]\n    faithful: [{id: f1, claim: \"Refunds are approximately 17 per cent lower if the order is cancelled after 30 days.\"}]\n";
        Suite::from_yaml(std::path::Path::new("refunds.yaml"), yaml).unwrap()
    }

    fn compound_rules() -> Rules {
        Rules::builtin().with_generation(crate::mutate::Generation {
            compound: true,
            ..Default::default()
        })
    }

    #[test]
    fn compound_faults_sit_in_a_rewrite_and_pass_every_check_a_plain_mutant_passes() {
        let suite = refund_suite();
        let plain = generate(&suite, &Rules::builtin()).unwrap();
        let set = generate(&suite, &compound_rules()).unwrap();
        let rewrites: Vec<&Mutant> = set.mutants.iter().filter(|m| m.is_rewrite()).collect();
        assert!(rewrites.len() >= 2, "{:?}", set.mutants);
        let compound: Vec<&Mutant> = set
            .mutants
            .iter()
            .filter(|m| m.compound_of.is_some())
            .collect();
        assert!(!compound.is_empty(), "{:?}", set.mutants);
        let claim = &suite.contexts[0].faithful[0].text;
        for m in &compound {
            let r = rewrites
                .iter()
                .find(|r| Some(&r.id) == m.compound_of.as_ref())
                .expect("a compound fault names a rewrite of its claim");
            assert_eq!(m.parent, "f1");
            assert!(
                !m.is_rewrite(),
                "its operator is a fault operator: {}",
                m.operator
            );
            assert_ne!(&m.text, claim);
            assert!(rewrites.iter().all(|r| r.text != m.text), "{}", m.text);
            assert!(plain.mutants.iter().all(|p| p.text != m.text), "{}", m.text);
            assert_eq!(guard::refuse(&r.text, &m.text), None, "{}", m.text);
            assert_ne!(sorted_words(&m.text), sorted_words(&r.text));
        }
        // a number swapped in the rewrite that moved the condition to the front
        assert!(
            compound
                .iter()
                .any(|m| m.operator == "number_swap" && m.text.starts_with("If the order")),
            "{compound:?}"
        );
        // the plain mutants are what they were, and the fingerprint says compound is on
        let kept: Vec<&Mutant> = set
            .mutants
            .iter()
            .filter(|m| m.compound_of.is_none())
            .collect();
        assert_eq!(kept, plain.mutants.iter().collect::<Vec<_>>());
        assert_ne!(set.rules_sha256, plain.rules_sha256);
        assert!(plain.mutants.iter().all(|m| m.compound_of.is_none()));
    }

    #[test]
    fn compound_faults_are_stable_and_their_reviews_are_found_by_id() {
        let suite = refund_suite();
        let a = generate(&suite, &compound_rules()).unwrap();
        let b = generate(&suite, &compound_rules()).unwrap();
        assert_eq!(a.mutants, b.mutants);
        assert_eq!(a.skipped, b.skipped);
        let ids: HashSet<&str> = a.mutants.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(ids.len(), a.mutants.len(), "ids are unique");
        // a compound fault reviewed in the suite is found by its id
        let m = a.mutants.iter().find(|m| m.compound_of.is_some()).unwrap();
        let yaml = format!(
            "suite: refunds\ncontexts:\n  - id: policy\n    passages: [{{id: p1, text: \"Refunds on annual plans are approximately 17 per cent lower if the order is cancelled after 30 days. Monthly plans are not refunded.\"}}]\n    faithful: [{{id: f1, claim: \"Refunds are approximately 17 per cent lower if the order is cancelled after 30 days.\"}}]\nreviews:\n  {}: {{review: fault}}\n",
            m.id
        );
        let reviewed = Suite::from_yaml(std::path::Path::new("refunds.yaml"), &yaml).unwrap();
        let set = generate(&reviewed, &compound_rules()).unwrap();
        let again = set.mutants.iter().find(|x| x.id == m.id).unwrap();
        assert_eq!(again.review, MutantReview::Fault);
        // without compound the review is stale, as a review of any mutant the rules stop making
        let off = generate(&reviewed, &Rules::builtin()).unwrap();
        assert_eq!(off.stale_reviews.len(), 1);
    }

    #[test]
    fn mutant_ids_are_short_stable_hashes() {
        let a = mutant_id("number_swap", "f01", "x");
        assert_eq!(a, mutant_id("number_swap", "f01", "x"));
        assert_ne!(a, mutant_id("negation_flip", "f01", "x"));
        assert_eq!(a.len(), 18, "m- and 16 hex digits: 64 bits");
        assert!(a.starts_with("m-"));
    }

    fn suite(reviews: &str) -> Suite {
        let yaml = format!(
            "suite: s\ncontexts:\n  - id: c\n    passages: [{{id: p, text: \"Refunds are issued within 14 days.\"}}]\n    faithful: [{{id: f1, claim: \"Refunds are issued within 14 days.\"}}]\n{reviews}"
        );
        Suite::from_yaml(std::path::Path::new("s.yaml"), &yaml).unwrap()
    }

    #[test]
    fn a_review_keyed_by_an_old_short_id_still_applies() {
        let set = generate(&suite(""), &Rules::builtin()).unwrap();
        let m = &set.mutants[0];
        let short = &m.id[..LEGACY_ID_LEN];
        let reviewed = generate(
            &suite(&format!(
                "reviews:\n  {short}: {{review: equivalent, why: \"still true\"}}\n"
            )),
            &Rules::builtin(),
        )
        .unwrap();
        let again = reviewed.mutants.iter().find(|x| x.id == m.id).unwrap();
        assert_eq!(
            again.review.state(),
            crate::model::case::ReviewState::Equivalent
        );
        // and a short id that matches nothing is a stale review
        let set = generate(
            &suite("reviews:\n  m-00000000: {review: fault}\n"),
            &Rules::builtin(),
        )
        .unwrap();
        assert_eq!(set.stale_reviews[0].id, "m-00000000");
    }

    /// 200 contexts, each a council claim with its own amount; `reviews` appended.
    fn many_contexts(reviews: &str) -> Suite {
        let mut yaml = String::from("suite: many\ncontexts:\n");
        for c in 0..200 {
            yaml.push_str(&format!(
                "  - id: c{c}\n    passages: [{{id: p, text: \"The council of ward {c} approved £{} million for 12 schools.\"}}]\n    faithful: [{{id: f{c}, claim: \"The council of ward {c} approved £{} million for 12 schools.\"}}]\n",
                c + 3,
                c + 3
            ));
        }
        yaml.push_str(reviews);
        Suite::from_yaml(std::path::Path::new("many.yaml"), &yaml).unwrap()
    }

    #[test]
    fn the_first_failing_context_in_suite_order_is_the_one_reported_and_the_set_is_in_suite_order()
    {
        let set = generate(&many_contexts(""), &Rules::builtin()).unwrap();
        // joined in suite order whatever worker made which context
        let order: Vec<usize> = set.mutants.iter().map(|m| m.context).collect();
        assert!(order.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(order.iter().copied().max(), Some(199));
        // a fault mutant cannot be reviewed `not_equivalent`: reviews of contexts 150 and 30
        let fault_of = |c: usize| {
            set.mutants
                .iter()
                .find(|m| {
                    m.context == c
                        && m.review.state() == crate::model::case::ReviewState::Unreviewed
                        && m.operator == "number_swap"
                })
                .unwrap()
                .id
                .clone()
        };
        let reviews = format!(
            "reviews:\n  {}: {{review: not_equivalent, why: \"x\"}}\n  {}: {{review: not_equivalent, why: \"y\"}}\n",
            fault_of(150),
            fault_of(30)
        );
        for _ in 0..5 {
            let e = generate(&many_contexts(&reviews), &Rules::builtin()).unwrap_err();
            assert!(e.to_string().contains(&fault_of(30)), "{e}");
        }
    }

    #[test]
    fn each_context_sees_the_real_errors_of_the_next_contexts_wrapping_then_its_own() {
        // real errors in contexts 1, 3 (two) and 4 of six; none in the others
        let mut yaml = String::from("suite: r\ncontexts:\n");
        for c in 0..6 {
            yaml.push_str(&format!(
                "  - id: c{c}\n    passages: [{{id: p, text: \"Ward {c} got £{c} million.\"}}]\n    faithful: [{{id: f{c}, claim: \"Ward {c} got £{c} million.\"}}]\n"
            ));
            let errors: &[&str] = match c {
                1 => &["a"],
                3 => &["b", "c"],
                4 => &["d"],
                _ => &[],
            };
            if !errors.is_empty() {
                yaml.push_str("    hard_cases:\n");
                for e in errors {
                    yaml.push_str(&format!("      - {{id: h{c}{e}, type: number, claim: \"Ward {c} got {e}.\", label: contradicted, source: real}}\n"));
                }
                yaml.push_str(&format!("      - {{id: h{c}w, type: paraphrase, claim: \"Ward {c} received £{c} million.\", label: supported}}\n"));
            }
        }
        let suite = Suite::from_yaml(std::path::Path::new("r.yaml"), &yaml).unwrap();
        let texts = Texts::of(&suite);
        assert_eq!(texts.with_real_errors, [1, 3, 4]);
        let seen = |ci: usize| -> Vec<String> {
            real_errors_for(&suite, &texts, ci)
                .iter()
                .map(|r| r.claim.trim_start_matches("Ward ").to_string())
                .collect()
        };
        assert_eq!(seen(0), ["1 got a.", "3 got b.", "3 got c.", "4 got d."]);
        assert_eq!(seen(3), ["4 got d.", "1 got a.", "3 got b.", "3 got c."]);
        assert_eq!(seen(5), ["1 got a.", "3 got b.", "3 got c.", "4 got d."]);
        assert_eq!(seen(4), ["1 got a.", "3 got b.", "3 got c.", "4 got d."]);
    }

    #[test]
    fn stale_reviews_are_listed_in_one_warning_and_left_out_of_the_yaml_block() {
        let set = generate(&suite(""), &Rules::builtin()).unwrap();
        let live = &set.mutants[0].id;
        let s = suite(&format!(
            "reviews:\n  {live}: {{review: fault}}\n  m-1111111111111111: {{review: fault}}\n  m-2222222222222222: {{review: equivalent, why: old}}\n"
        ));
        let set = generate(&s, &Rules::builtin()).unwrap();
        let ids: Vec<&str> = set.stale_reviews.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["m-1111111111111111", "m-2222222222222222"]);
        let w = set.stale_warning(&s).unwrap();
        assert!(
            w.contains("2 reviews")
                && w.contains("s.yaml:8: m-1111111111111111")
                && w.contains("s.yaml:9: m-2222222222222222"),
            "{w}"
        );
        let yaml = reviews_yaml(&s, &set);
        assert!(
            yaml.contains(&format!("{live}: {{review: fault}}")),
            "{yaml}"
        );
        assert!(!yaml.contains("m-1111111111111111: {"), "{yaml}");
        // the block pastes back as a suite with no stale review
        let text = format!(
            "suite: s\ncontexts:\n  - id: c\n    passages: [{{id: p, text: \"Refunds are issued within 14 days.\"}}]\n    faithful: [{{id: f1, claim: \"Refunds are issued within 14 days.\"}}]\n{yaml}"
        );
        let pasted = Suite::from_yaml(std::path::Path::new("s.yaml"), &text).unwrap();
        assert!(generate(&pasted, &Rules::builtin())
            .unwrap()
            .stale_reviews
            .is_empty());
    }

    #[test]
    fn an_edit_that_gives_a_hard_case_is_left_to_the_hard_case() {
        let yaml = "suite: s\ncontexts:\n  - id: c\n    passages: [{id: p, text: \"Refunds are issued within 14 days.\"}]\n    faithful: [{id: f1, claim: \"Refunds are issued within 14 days.\"}]\n    hard_cases: [{id: h1, type: negation_flip, claim: \"Refunds are not issued within 14 days.\", label: contradicted}]\n";
        let suite = Suite::from_yaml(std::path::Path::new("s.yaml"), yaml).unwrap();
        let set = generate(&suite, &Rules::builtin()).unwrap();
        assert!(set
            .mutants
            .iter()
            .all(|m| m.text != "Refunds are not issued within 14 days."));
        assert_eq!(
            set.same_as_hard_case,
            vec![("h1".to_string(), "negation_flip", "f1".to_string())]
        );
    }
}
