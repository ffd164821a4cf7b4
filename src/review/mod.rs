//! `faithprobe review`: a person decides about mutants, rewrites and snapshot changes one at a
//! time.
//!
//! [`Walk`] is the state of a review of mutants and rewrites: the items pending when it started,
//! where it stands, and an undo history. Every decision is written to the suite's side file
//! ([`crate::model::suite::side`]) before the next item is shown, so a quit, a crash or a kill loses
//! nothing, and the next walk resumes after the last decision. [`screen`] renders one item as
//! text (the terminal shows it; tests snapshot it). [`snapshots`] walks snapshot changes verdict
//! by verdict; [`terminal`] reads keys from a terminal.

pub mod snapshots;
pub mod terminal;

use crate::check::CheckResult;
use crate::error::Result;
use crate::model::case::MutantReview;
use crate::model::suite::side::{self, Decision, SideFile};
use crate::model::suite::{Context, ReviewKind, Suite};
use crate::mutate::{self, Mutant, MutantSet, Purpose};
use owo_colors::OwoColorize;
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

/// What the checker said about an item, for the screen.
pub struct CheckerView<'a> {
    pub name: &'a str,
    pub result: &'a CheckResult,
}

/// The tokens of a text for a word diff: words, with the punctuation around them apart, each
/// with whether a space came before it (so "month." and "month excluding VAT." differ by two
/// words, not by one).
fn diff_tokens(s: &str) -> Vec<(&str, bool)> {
    const OPEN: &[char] = &['(', '[', '"', '\'', '“', '‘'];
    const CLOSE: &[char] = &[
        '.', ',', ';', ':', '!', '?', ')', ']', '"', '\'', '”', '’', '…',
    ];
    let mut out = Vec::new();
    for word in s.split_whitespace() {
        let core_start = word.len() - word.trim_start_matches(OPEN).len();
        let core = &word[core_start..];
        let core_end = core.trim_end_matches(CLOSE).len();
        let mut pieces: Vec<&str> = Vec::new();
        // each punctuation mark its own token
        for (i, c) in word[..core_start].char_indices() {
            pieces.push(&word[i..i + c.len_utf8()]);
        }
        pieces.push(&core[..core_end]);
        let tail = &core[core_end..];
        for (i, c) in tail.char_indices() {
            pieces.push(&tail[i..i + c.len_utf8()]);
        }
        let mut first = true;
        for p in pieces.into_iter().filter(|p| !p.is_empty()) {
            out.push((p, first));
            first = false;
        }
    }
    out
}

/// The words that changed from `a` to `b`, removed ones struck through in red and added ones
/// in bold green when `color`, else in `[-...-]` and `{+...+}`.
pub fn word_diff(a: &str, b: &str, color: bool) -> String {
    let ta = diff_tokens(a);
    let tb = diff_tokens(b);
    let wa: Vec<&str> = ta.iter().map(|t| t.0).collect();
    let wb: Vec<&str> = tb.iter().map(|t| t.0).collect();
    // words are escaped before they are painted: the colour is the only sequence left raw
    let chunk = |toks: &[(&str, bool)]| {
        let mut s = String::new();
        for (i, (t, space)) in toks.iter().enumerate() {
            if i > 0 && *space {
                s.push(' ');
            }
            s.push_str(&crate::text::escape::printable(t));
        }
        s
    };
    let del = |s: String| {
        if color {
            s.red().strikethrough().to_string()
        } else {
            format!("[-{s}-]")
        }
    };
    let ins = |s: String| {
        if color {
            s.green().bold().to_string()
        } else {
            format!("{{+{s}+}}")
        }
    };
    let mut out = String::new();
    let put = |out: &mut String, space: bool, s: String| {
        if space && !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&s);
    };
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &wa, &wb) {
        let (tag, old, new) = op.as_tag_tuple();
        match tag {
            similar::DiffTag::Equal => {
                for (t, space) in &ta[old] {
                    put(&mut out, *space, crate::text::escape::printable(t));
                }
            }
            similar::DiffTag::Delete => put(&mut out, ta[old.start].1, del(chunk(&ta[old]))),
            similar::DiffTag::Insert => put(&mut out, tb[new.start].1, ins(chunk(&tb[new]))),
            similar::DiffTag::Replace => {
                put(&mut out, ta[old.start].1, del(chunk(&ta[old])));
                put(&mut out, true, ins(chunk(&tb[new])));
            }
        }
    }
    out
}

/// The content words of a text, stemmed and lower-cased.
fn content_words(s: &str) -> HashSet<String> {
    crate::text::tokens::tokenize(s)
        .into_iter()
        .map(|t| s[t.start..t.end].to_lowercase())
        .filter(|w| w.chars().any(char::is_alphanumeric) && !crate::check::lexical::is_stopword(w))
        .map(|w| crate::text::tokens::stem(&w))
        .collect()
}

/// The passage sentences nearest the change from `claim` to `mutant`, best first, at most
/// `k`: a sentence scores two for each word the edit removed or added and one for each other
/// word of the claim it shares. Sentences that share nothing are left out.
pub fn nearest_sentences<'c>(
    context: &'c Context,
    claim: &str,
    mutant: &str,
    k: usize,
) -> Vec<(&'c str, &'c str)> {
    let before = content_words(claim);
    let after = content_words(mutant);
    let changed: HashSet<&String> = before.symmetric_difference(&after).collect();
    let mut scored: Vec<(usize, usize, &str, &str)> = Vec::new();
    for p in &context.passages {
        for s in crate::text::sentences::split_sentences(&p.text) {
            let words = content_words(s);
            let score: usize = words
                .iter()
                .map(|w| {
                    if changed.contains(w) {
                        2
                    } else if before.contains(w) {
                        1
                    } else {
                        0
                    }
                })
                .sum();
            if score > 0 {
                scored.push((score, scored.len(), p.id.as_str(), s));
            }
        }
    }
    // best first; ties in passage order
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored
        .into_iter()
        .take(k)
        .map(|(_, _, p, s)| (p, s))
        .collect()
}

/// What a verdict on the item would mean under each decision, in a phrase.
fn verdict_meaning(rewrite: bool, result: &CheckResult) -> String {
    match result {
        Err(e) => format!("could not score it ({e}): an error counts as no pass"),
        Ok(v) => {
            let score = v
                .score
                .map(|s| format!(" ({})", crate::report::fmt_score(Some(s))))
                .unwrap_or_default();
            let flagged = v.label.flagged();
            let meaning = match (rewrite, flagged) {
                (false, true) => "reviewed fault: caught; equivalent: counted in nothing",
                (false, false) => "reviewed fault: a miss; equivalent: counted in nothing",
                (true, true) => "equivalent: a false alarm; not equivalent: no case",
                (true, false) => "equivalent: passes; not equivalent: no case",
            };
            format!("says {}{score}. If {meaning}", v.label.as_str())
        }
    }
}

/// The text of the verified claim a mutant was made from.
fn parent_text<'c>(context: &'c Context, m: &Mutant) -> &'c str {
    context
        .faithful
        .iter()
        .find(|c| c.id == m.parent)
        .map(|c| c.text.as_str())
        .unwrap_or("")
}

/// The keys of an item, in a line.
pub fn keys_line(rewrite: bool) -> &'static str {
    if rewrite {
        "[e] says the same  [n] not equivalent (asks why)  [s] skip  [u] undo  [?] help  [q] quit"
    } else {
        "[f] real fault  [e] equivalent (asks why)  [s] skip  [u] undo  [?] help  [q] quit"
    }
}

/// The help screen.
pub const HELP: &str = "\
Each mutant is a claim a person verified, edited by an operator to make a fault. Decide whether
the edit really makes it wrong against the passages:
  f  a real fault: the checker should flag it (it counts in its fault type's catch rate)
  e  equivalent: still supported by the passages; you say why (it counts in nothing)
Each rewrite says its claim another way; flagging it is a false alarm:
  e  says the same: it counts in the invariance row
  n  not equivalent: the rewrite changed the meaning; you say why (it counts in nothing)
  s  skip: decide later (the next `faithprobe review` shows it again)
  u  undo the last decision or skip
  q  quit: every decision is already saved; `faithprobe review` resumes after the last one
Decisions go to the suite's side file (NAME.reviews.yaml beside NAME.yaml); the suite itself is
never rewritten. Press any key to go back.";

/// The screen of the item shown: progress, context, claim, mutant, the change, the operator,
/// the nearest passage sentences, the checker's verdict when asked, and the keys.
pub fn screen(walk: &Walk, checker: Option<CheckerView>, color: bool) -> String {
    let head = |s: &str| {
        if color {
            s.bold().to_string()
        } else {
            s.to_string()
        }
    };
    let dim = |s: &str| {
        if color {
            s.dimmed().to_string()
        } else {
            s.to_string()
        }
    };
    let p = walk.progress();
    let Some(item) = walk.current() else {
        return String::new();
    };
    let (suite, _) = &walk.suites[item.suite];
    let m = walk.mutant(item);
    let context = &suite.contexts[m.context];
    let parent = parent_text(context, m);
    let rewrite = m.is_rewrite();
    let mut o = String::new();
    o.push_str(&head(&format!(
        "faithprobe review · {} · {} of {} · {} decided, {} equivalent so far{}",
        suite.name,
        p.position,
        p.total,
        p.decided,
        p.equivalent,
        if p.skipped > 0 {
            format!(", {} skipped", p.skipped)
        } else {
            String::new()
        }
    )));
    o.push_str("\n\n");
    let printable = crate::text::escape::printable;
    o.push_str(&format!("context   {}\n", printable(&context.id)));
    if let Some(q) = &context.question {
        o.push_str(&format!("question  {}\n", printable(q)));
    }
    o.push_str(&format!(
        "claim     {}  {}\n",
        printable(&m.parent),
        printable(parent)
    ));
    o.push_str(&format!(
        "{}  {}  {}\n",
        if rewrite { "rewrite " } else { "mutant  " },
        m.id,
        printable(&m.text)
    ));
    o.push_str(&format!(
        "change    {}\n",
        word_diff(parent, &m.text, color)
    ));
    match mutate::operator(m.operator) {
        Some(op) => o.push_str(&format!(
            "operator  {} ({}): {}\n          rules: mutators/{}\n",
            op.name,
            if op.purpose == Purpose::Fault {
                "fault"
            } else {
                "rewrite"
            },
            op.stands_for,
            op.rules
        )),
        None => o.push_str(&format!(
            "operator  {} (a model's edit: mutators: in faithprobe.yaml)\n",
            m.operator
        )),
    }
    let near = nearest_sentences(context, parent, &m.text, 2);
    if near.is_empty() {
        o.push_str("passages  (no sentence shares a word with the claim)\n");
    } else {
        o.push_str("passages  nearest the change:\n");
        let width = near
            .iter()
            .map(|(p, _)| p.chars().count())
            .max()
            .unwrap_or(0);
        for (pid, s) in near {
            let pad = " ".repeat(width - pid.chars().count());
            o.push_str(&format!("  {}{pad}  {}\n", dim(pid), printable(s)));
        }
    }
    if let Some(c) = checker {
        o.push_str(&format!(
            "checker   {} {}\n",
            c.name,
            printable(&verdict_meaning(rewrite, c.result))
        ));
    }
    o.push('\n');
    o.push_str(&head(keys_line(rewrite)));
    o.push('\n');
    o
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
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::suite::Passage;

    #[test]
    fn the_nearest_sentence_is_the_one_holding_the_changed_words() {
        let ctx = Context {
            id: "c".into(),
            question: None,
            passages: vec![
                Passage {
                    id: "plans".into(),
                    text: "Larkspur has three plans. Refunds are issued within 14 days of cancellation. Support answers in 24 hours.".into(),
                },
                Passage {
                    id: "other".into(),
                    text: "Nothing about it here.".into(),
                },
            ],
            faithful: vec![],
            hard_cases: vec![],
        };
        let near = nearest_sentences(
            &ctx,
            "Refunds are issued within 14 days.",
            "Refunds are issued within 30 days.",
            2,
        );
        assert_eq!(
            near[0],
            (
                "plans",
                "Refunds are issued within 14 days of cancellation."
            )
        );
        assert_eq!(near.len(), 1, "{near:?}");
    }

    #[test]
    fn the_plain_diff_marks_what_changed() {
        assert_eq!(
            word_diff("within 14 days", "within 30 days", false),
            "within [-14-] {+30+} days"
        );
        // punctuation is its own token: an added phrase before the stop is only that phrase
        assert_eq!(
            word_diff(
                "The Team plan costs €12 per user per month.",
                "The Team plan costs €12 per user per month excluding VAT.",
                false
            ),
            "The Team plan costs €12 per user per month {+excluding VAT+}."
        );
        assert_eq!(
            word_diff(
                "\"It is free,\" she said.",
                "\"It is not free,\" she said.",
                false
            ),
            "\"It is {+not+} free,\" she said."
        );
    }
}
