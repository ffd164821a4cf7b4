//! The walk over the suites' unreviewed mutants and rewrites: the items pending at the start, the
//! cursor, decisions saved to the side file before the cursor moves, skips and undo; and the
//! pending list of `review --list`.

use crate::error::Result;
use crate::model::case::MutantReview;
use crate::model::suite::side::{self, Decision, SideFile};
use crate::model::suite::{Context, ReviewKind, Suite};
use crate::mutate::{Mutant, MutantSet};
use std::collections::HashSet;

/// One mutant or rewrite to decide about: its suite and its index in the suite's mutants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemRef {
    pub suite: usize,
    pub mutant: usize,
}

/// What a step of the walk did, for undo.
#[derive(Debug, Clone)]
enum Step {
    Decided {
        at: usize,
        before: Option<Decision>,
        made: Decision,
    },
    Skipped {
        at: usize,
    },
}

/// A review in progress over the suites' unreviewed mutants and rewrites.
pub struct Walk<'a> {
    pub suites: &'a [(Suite, MutantSet)],
    sides: Vec<SideFile>,
    /// The items pending when the walk started, in suite order.
    pub items: Vec<ItemRef>,
    /// Index into `items` of the item shown, or `items.len()` at the end.
    pub cursor: usize,
    skipped: HashSet<usize>,
    history: Vec<Step>,
    /// Decisions made in this walk (undone ones taken off).
    pub decided_now: usize,
}

/// What an undo did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Undo {
    /// Nothing to undo in this walk.
    Nothing,
    Done,
    /// Another writer changed the decision since: it stays, and this says so.
    Conflict(String),
}

/// What the progress line counts, over every mutant and rewrite of the suites.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// The position of the item shown among all mutants and rewrites (1-based).
    pub position: usize,
    pub total: usize,
    pub decided: usize,
    pub equivalent: usize,
    pub skipped: usize,
}

impl<'a> Walk<'a> {
    /// Starts a walk: every unreviewed mutant and rewrite, the cursor on the first one after the
    /// newest decision of the side files (where the last walk stopped), else on the first.
    pub fn new(suites: &'a [(Suite, MutantSet)]) -> Result<Walk<'a>> {
        let mut sides = Vec::new();
        let mut items = Vec::new();
        let mut resume: Option<ItemRef> = None;
        for (si, (suite, set)) in suites.iter().enumerate() {
            let path = side::path_of(&suite.path);
            let file = SideFile::load_or_new(path)?;
            if let Some((last, _, _)) = file.entries.last() {
                if let Some(mi) = set.mutants.iter().position(|m| &m.id == last) {
                    resume = Some(ItemRef {
                        suite: si,
                        mutant: mi,
                    });
                }
            }
            sides.push(file);
            for (mi, m) in set.mutants.iter().enumerate() {
                if m.review == MutantReview::Unreviewed {
                    items.push(ItemRef {
                        suite: si,
                        mutant: mi,
                    });
                }
            }
        }
        let cursor = resume
            .and_then(|r| {
                items
                    .iter()
                    .position(|i| (i.suite, i.mutant) > (r.suite, r.mutant))
            })
            .unwrap_or(0);
        Ok(Walk {
            suites,
            sides,
            items,
            cursor,
            skipped: HashSet::new(),
            history: Vec::new(),
            decided_now: 0,
        })
    }

    /// The item shown, or `None` when the walk is over.
    pub fn current(&self) -> Option<ItemRef> {
        self.items.get(self.cursor).copied()
    }

    /// The mutant of an item.
    pub fn mutant(&self, item: ItemRef) -> &'a Mutant {
        &self.suites[item.suite].1.mutants[item.mutant]
    }

    fn decision(&self, at: usize) -> Option<&Decision> {
        let item = self.items[at];
        self.sides[item.suite].get(&self.mutant(item).id)
    }

    /// Items of the walk still without a decision.
    pub fn pending(&self) -> usize {
        (0..self.items.len())
            .filter(|&i| self.decision(i).is_none())
            .count()
    }

    /// Records a decision about the item shown, writes the side file, and moves on.
    ///
    /// The side file is read again under its lock and written with this decision added, so a
    /// decision another writer saved meanwhile (`review --set`, a second terminal) stays; when
    /// that writer decided this item differently, nothing is written and the conflict comes back
    /// as a note to show (the walk moves on: the item is decided).
    pub fn decide(&mut self, decision: Decision) -> Result<Option<String>> {
        let Some(item) = self.current() else {
            return Ok(None);
        };
        let id = self.mutant(item).id.clone();
        let suite = &self.suites[item.suite].0;
        let seen = self.sides[item.suite].get(&id).cloned();
        let path = self.sides[item.suite].path.clone();
        let made = decision.clone();
        let (before, file) = SideFile::update(&path, &suite.path, |file| {
            if let Some(now) = file.get(&id) {
                if Some(now) != seen.as_ref() && now != &decision {
                    return Ok(Err(side::conflict(file, &id, now, &decision).to_string()));
                }
            }
            Ok(Ok(file.set(&id, Some(decision))))
        })?;
        // what is on disk now, others' decisions included
        self.sides[item.suite] = file;
        let before = match before {
            Ok(b) => b,
            Err(conflict) => {
                self.advance();
                return Ok(Some(conflict));
            }
        };
        if before.is_none() {
            self.decided_now += 1;
        }
        self.history.push(Step::Decided {
            at: self.cursor,
            before,
            made,
        });
        self.skipped.remove(&self.cursor);
        self.advance();
        Ok(None)
    }

    /// Leaves the item shown undecided for now and moves on.
    pub fn skip(&mut self) {
        if self.current().is_none() {
            return;
        }
        self.history.push(Step::Skipped { at: self.cursor });
        self.skipped.insert(self.cursor);
        self.advance();
    }

    /// Takes the last step back (its decision off the side file) and shows its item again.
    /// A decision another writer changed since is not undone: the conflict comes back as a note.
    pub fn undo(&mut self) -> Result<Undo> {
        let Some(step) = self.history.pop() else {
            return Ok(Undo::Nothing);
        };
        match step {
            Step::Skipped { at } => {
                self.skipped.remove(&at);
                self.cursor = at;
            }
            Step::Decided { at, before, made } => {
                let item = self.items[at];
                let id = self.mutant(item).id.clone();
                let suite = self.suites[item.suite].0.path.clone();
                let path = self.sides[item.suite].path.clone();
                let restore = before.clone();
                let (undone, file) = SideFile::update(&path, &suite, |file| match file.get(&id) {
                    Some(now) if now == &made => {
                        file.set(&id, restore);
                        Ok(None)
                    }
                    Some(now) => Ok(Some(side::conflict(file, &id, now, &made).to_string())),
                    None => Ok(Some(format!(
                        "`{id}` was undecided by another review meanwhile: nothing to undo"
                    ))),
                })?;
                self.sides[item.suite] = file;
                if let Some(conflict) = undone {
                    return Ok(Undo::Conflict(conflict));
                }
                if before.is_none() {
                    self.decided_now -= 1;
                }
                self.cursor = at;
            }
        }
        Ok(Undo::Done)
    }

    /// To the next item after the cursor without a decision that was not skipped in this walk.
    fn advance(&mut self) {
        let next = (self.cursor + 1..self.items.len())
            .find(|&i| self.decision(i).is_none() && !self.skipped.contains(&i));
        self.cursor = next.unwrap_or(self.items.len());
    }

    /// After the end: back to the first item still pending before the cursor that was not
    /// skipped (a resumed walk starts part-way). `false` when none is left but skipped ones.
    pub fn wrap(&mut self) -> bool {
        match (0..self.items.len())
            .find(|&i| self.decision(i).is_none() && !self.skipped.contains(&i))
        {
            Some(i) => {
                self.cursor = i;
                true
            }
            None => false,
        }
    }

    /// Skipped items still without a decision.
    pub fn skipped_pending(&self) -> usize {
        self.skipped
            .iter()
            .filter(|&&i| self.decision(i).is_none())
            .count()
    }

    /// What the progress line shows.
    pub fn progress(&self) -> Progress {
        let mut p = Progress {
            position: 0,
            total: 0,
            decided: 0,
            equivalent: 0,
            skipped: self.skipped_pending(),
        };
        let in_walk: HashSet<(usize, usize)> =
            self.items.iter().map(|i| (i.suite, i.mutant)).collect();
        let current = self.current();
        for (si, (_, set)) in self.suites.iter().enumerate() {
            for (mi, m) in set.mutants.iter().enumerate() {
                p.total += 1;
                if current
                    == Some(ItemRef {
                        suite: si,
                        mutant: mi,
                    })
                {
                    p.position = p.total;
                }
                let kind = if in_walk.contains(&(si, mi)) {
                    self.sides[si].get(&m.id).map(|d| d.kind)
                } else {
                    match &m.review {
                        MutantReview::Unreviewed => None,
                        MutantReview::Fault => Some(ReviewKind::Fault),
                        MutantReview::Equivalent { .. } => Some(ReviewKind::Equivalent),
                        MutantReview::NotEquivalent { .. } => Some(ReviewKind::NotEquivalent),
                        MutantReview::Broken { .. } => Some(ReviewKind::Broken),
                    }
                };
                if let Some(k) = kind {
                    p.decided += 1;
                    if k == ReviewKind::Equivalent {
                        p.equivalent += 1;
                    }
                }
            }
        }
        p
    }
}

/// The text of the verified claim a mutant was made from.
pub(super) fn parent_text<'c>(context: &'c Context, m: &Mutant) -> &'c str {
    context
        .faithful
        .iter()
        .find(|c| c.id == m.parent)
        .map(|c| c.text.as_str())
        .unwrap_or("")
}

/// One pending item, as `review --list` prints it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Pending<'a> {
    pub suite: &'a str,
    pub id: &'a str,
    pub kind: &'static str,
    pub operator: &'a str,
    pub context: &'a str,
    pub parent: &'a str,
    pub claim: &'a str,
    pub text: &'a str,
}

/// Every unreviewed mutant and rewrite of the suites.
pub fn pending(suites: &[(Suite, MutantSet)]) -> Vec<Pending<'_>> {
    let mut out = Vec::new();
    for (suite, set) in suites {
        for m in &set.mutants {
            if m.review != MutantReview::Unreviewed {
                continue;
            }
            let context = &suite.contexts[m.context];
            out.push(Pending {
                suite: &suite.name,
                id: &m.id,
                kind: if m.is_rewrite() { "rewrite" } else { "mutant" },
                operator: m.operator,
                context: &context.id,
                parent: &m.parent,
                claim: parent_text(context, m),
                text: &m.text,
            });
        }
        // claims from logged answers waiting for verification: `operator` is the answer's
        // tag, `parent` the answer's id
        for (ci, p) in suite.pending() {
            out.push(Pending {
                suite: &suite.name,
                id: &p.id,
                kind: "claim",
                operator: p.tag.as_deref().unwrap_or("-"),
                context: &suite.contexts[ci].id,
                parent: p.answer.as_deref().unwrap_or("-"),
                claim: "",
                text: &p.text,
            });
        }
    }
    out
}
