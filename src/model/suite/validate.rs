//! The checks a parsed suite passes before it is a [`Suite`](super::Suite), one named step each,
//! in the order their errors are reported: the name, that there are context sets, the entity
//! groups, each context set (its id, passages and claims), the reviews. Every error names the
//! line a person has to edit.

use super::locate::Locator;
use super::schema::{self, CaseSource, ReviewKind};
use super::{Claim, Context, EntityGroup, HardCase, Passage, Review};
use crate::error::{Error, Result};
use crate::text::words::is_blank;
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

/// Where the suite's problems are reported: its file, and the lines of its keys and ids.
pub(super) struct At<'a> {
    pub path: &'a Path,
    pub loc: &'a Locator,
}

impl At<'_> {
    fn err(&self, line: Option<usize>, msg: String, help: &str) -> Error {
        Error::input(self.path, line, msg, help)
    }
}

/// The suite's name: not blank, and safe in a file name (reports and snapshots use it).
pub(super) fn suite_name(at: &At, name: &str) -> Result<()> {
    if is_blank(name) {
        return Err(at.err(
            at.loc.key("suite"),
            "the suite has an empty name".into(),
            "give it a short name such as `billing-help`; reports and snapshot files use it",
        ));
    }
    if name
        .chars()
        .any(|c| !(c.is_alphanumeric() || c == '-' || c == '_' || c == '.'))
    {
        return Err(at.err(
            at.loc.key("suite"),
            format!("suite name `{name}` has characters a file name cannot safely carry"),
            "use letters, digits, `-`, `_` and `.` only",
        ));
    }
    Ok(())
}

/// At least one context set.
pub(super) fn has_contexts(at: &At, contexts: &[schema::ContextFile]) -> Result<()> {
    if contexts.is_empty() {
        return Err(at.err(
            at.loc.key("contexts"),
            "the suite has no context sets".into(),
            "add at least one entry under `contexts:` with passages and claims",
        ));
    }
    Ok(())
}

/// The entity groups: each of two names or more, none blank, none twice.
pub(super) fn entity_groups(
    at: &At,
    groups: &BTreeMap<String, Vec<String>>,
) -> Result<Vec<EntityGroup>> {
    let mut entities = Vec::new();
    for (name, members) in groups {
        let line = at.loc.key(name);
        if members.len() < 2 {
            return Err(at.err(
                line,
                format!("entity group `{name}` has {} member(s)", members.len()),
                "a group needs at least two names for entity_swap to exchange",
            ));
        }
        let mut seen = HashSet::new();
        for m in members {
            if is_blank(m) {
                return Err(at.err(
                    line,
                    format!("entity group `{name}` has an empty name"),
                    "remove it or write the name",
                ));
            }
            if !seen.insert(m) {
                return Err(at.err(
                    line,
                    format!("entity group `{name}` lists `{m}` twice"),
                    "list each name once",
                ));
            }
        }
        entities.push(EntityGroup {
            name: name.clone(),
            members: members.clone(),
        });
    }
    Ok(entities)
}

/// The context sets, each checked in turn (its id, its passages, its claims), with their texts
/// trimmed and each hard case's source settled (its own, else the suite's `default_source`).
pub(super) fn contexts(
    at: &At,
    files: Vec<schema::ContextFile>,
    default_source: Option<CaseSource>,
) -> Result<Vec<Context>> {
    let mut context_ids = HashSet::new();
    let mut case_ids: HashSet<String> = HashSet::new();
    let mut contexts = Vec::new();
    for c in files {
        let cline = context_id(at, &c, &mut context_ids)?;
        passages(at, &c, cline)?;
        claims(at, &c, cline, &mut case_ids)?;
        contexts.push(context(c, default_source));
    }
    Ok(contexts)
}

/// A context set's id: not blank, not used before; its line.
fn context_id(
    at: &At,
    c: &schema::ContextFile,
    context_ids: &mut HashSet<String>,
) -> Result<Option<usize>> {
    let cline = at.loc.id(&c.id, 0);
    if is_blank(&c.id) {
        return Err(at.err(
            cline,
            "a context set has an empty `id`".into(),
            "give every context set an id",
        ));
    }
    if !context_ids.insert(c.id.clone()) {
        return Err(at.err(
            at.loc.id(&c.id, 1),
            format!("context id `{}` is used twice", c.id),
            "give every context set its own id",
        ));
    }
    Ok(cline)
}

/// A context set's passages: at least one, each id once in the set, no blank text.
fn passages(at: &At, c: &schema::ContextFile, cline: Option<usize>) -> Result<()> {
    if c.passages.is_empty() {
        return Err(at.err(
            cline,
            format!("context `{}` has no passages", c.id),
            "list the passages that were in the prompt under `passages:`",
        ));
    }
    let mut passage_ids = HashSet::new();
    for p in &c.passages {
        if !passage_ids.insert(p.id.clone()) {
            return Err(at.err(
                at.loc.id_after(&p.id, cline, 1),
                format!("passage id `{}` is used twice in context `{}`", p.id, c.id),
                "give every passage of a context set its own id",
            ));
        }
        if is_blank(&p.text) {
            return Err(at.err(
                at.loc.id_after(&p.id, cline, 0),
                format!("passage `{}` has empty text", p.id),
                "paste the passage text, or remove the passage",
            ));
        }
    }
    Ok(())
}

/// A context set's verified claims, then its hard cases: each an id unique across the suite and
/// a text; a hard case also a type.
fn claims(
    at: &At,
    c: &schema::ContextFile,
    cline: Option<usize>,
    case_ids: &mut HashSet<String>,
) -> Result<()> {
    for f in &c.faithful {
        claim(at, cline, case_ids, &f.id, &f.claim)?;
    }
    for p in &c.pending {
        claim(at, cline, case_ids, &p.id, &p.claim)?;
    }
    for h in &c.hard_cases {
        claim(at, cline, case_ids, &h.id, &h.claim)?;
        if is_blank(&h.case_type) {
            return Err(at.err(
                at.loc.id(&h.id, 0),
                format!("hard case `{}` has an empty `type`", h.id),
                "name the kind of case, e.g. `paraphrase`",
            ));
        }
    }
    Ok(())
}

/// One claim: an id, not used before in the suite, and a text.
fn claim(
    at: &At,
    cline: Option<usize>,
    case_ids: &mut HashSet<String>,
    id: &str,
    claim: &str,
) -> Result<()> {
    if is_blank(id) {
        return Err(at.err(
            at.loc.id_after(id, cline, 0),
            "a claim has an empty `id`".into(),
            "give every claim an id",
        ));
    }
    if !case_ids.insert(id.to_string()) {
        return Err(at.err(
            at.loc.id(id, 1),
            format!("claim id `{id}` is used twice"),
            "claim ids (faithful and hard cases) must be unique across the suite",
        ));
    }
    if is_blank(claim) {
        return Err(at.err(
            at.loc.id(id, 0),
            format!("claim `{id}` is empty"),
            "write the claim as one standalone sentence, or remove the entry",
        ));
    }
    Ok(())
}

/// A checked context set as the suite holds it: texts trimmed, hard-case sources settled.
fn context(c: schema::ContextFile, default_source: Option<CaseSource>) -> Context {
    Context {
        id: c.id,
        question: c.question,
        passages: c
            .passages
            .into_iter()
            .map(|p| Passage {
                id: p.id,
                text: p.text.trim().to_string(),
            })
            .collect(),
        faithful: c
            .faithful
            .into_iter()
            .map(|f| Claim {
                id: f.id,
                text: f.claim.trim().to_string(),
            })
            .collect(),
        hard_cases: c
            .hard_cases
            .into_iter()
            .map(|h| HardCase {
                id: h.id,
                case_type: h.case_type,
                text: h.claim.trim().to_string(),
                label: h.label,
                source: h.source.or(default_source).unwrap_or_default(),
                why: h.why.filter(|w| !is_blank(w)),
            })
            .collect(),
        pending: c
            .pending
            .into_iter()
            .map(|p| super::PendingClaim {
                id: p.id,
                text: p.claim.trim().to_string(),
                answer: p.answer,
                tag: p.tag,
            })
            .collect(),
    }
}

/// The reviews written in the suite: an `equivalent` one needs a `why`.
pub(super) fn reviews(
    at: &At,
    files: BTreeMap<String, schema::ReviewFile>,
) -> Result<BTreeMap<String, Review>> {
    let mut reviews = BTreeMap::new();
    for (id, r) in files {
        let line = at.loc.key(&id);
        let why = r.why.filter(|w| !is_blank(w));
        if let Some((message, help)) = decision_problem(
            &id,
            r.review,
            why.as_deref(),
            r.case_type.as_deref(),
            r.label,
        ) {
            return Err(at.err(line, message, help));
        }
        reviews.insert(
            id,
            Review {
                kind: r.review,
                why,
                case_type: r.case_type.filter(|t| !is_blank(t)),
                label: r.label,
                file: at.path.to_path_buf(),
                line,
            },
        );
    }
    Ok(reviews)
}

/// What is missing from a decision, as (message, help): an `equivalent` needs a `why`; a pending
/// claim made a hard case needs its `type`; a `borderline` also needs its `label` and its rule
/// (`why`); `type` and `label` fit only those.
pub(crate) fn decision_problem(
    id: &str,
    kind: ReviewKind,
    why: Option<&str>,
    case_type: Option<&str>,
    label: Option<crate::model::case::HardCaseLabel>,
) -> Option<(String, &'static str)> {
    let blank = |x: Option<&str>| x.is_none_or(is_blank);
    let hard = kind.makes_hard_case();
    if kind == ReviewKind::Equivalent && blank(why) {
        return Some((
            format!("the review of `{id}` says `equivalent` without a `why`"),
            "say why the mutant is still faithful, e.g. `why: \"still true: ...\"`",
        ));
    }
    if hard && blank(case_type) {
        return Some((
            format!("the review of `{id}` says `{}` without a `type`", kind.as_str()),
            "a claim decided contradicted, not_found or borderline becomes a hard case: give its error type, e.g. `type: number` (an operator's name joins its row)",
        ));
    }
    if kind == ReviewKind::Borderline && (label.is_none() || blank(why)) {
        return Some((
            format!("the review of `{id}` says `borderline` without a `label` and the rule (`why`)"),
            "say the rule you decided in a sentence and the label it gives: `{review: borderline, type: T, label: supported, why: \"...\"}`",
        ));
    }
    if !hard && !blank(case_type) {
        return Some((
            format!(
                "the review of `{id}` says `{}` with a `type`",
                kind.as_str()
            ),
            "`type` belongs to a pending claim decided contradicted, not_found or borderline",
        ));
    }
    if kind != ReviewKind::Borderline && label.is_some() {
        return Some((
            format!(
                "the review of `{id}` says `{}` with a `label`",
                kind.as_str()
            ),
            "`label` belongs to a pending claim decided borderline",
        ));
    }
    None
}
