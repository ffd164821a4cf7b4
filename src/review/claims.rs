//! The walk over the suites' pending claims (from `suite from-log`): a person says what each is
//! (supported, contradicted, not found, borderline with its rule, or not a claim), each decision
//! saved to the side file before the next claim is shown, with skip and undo; and the screen of
//! one claim.

use crate::error::Result;
use crate::model::suite::side::{self, Decision, SideFile};
use crate::model::suite::{PendingClaim, Suite};
use crate::mutate::MutantSet;

/// One pending claim: its suite, its context, and the claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClaimRef {
    pub suite: usize,
    pub context: usize,
    pub claim: usize,
}

/// A review in progress over pending claims.
pub struct ClaimWalk<'a> {
    pub suites: &'a [(Suite, MutantSet)],
    sides: Vec<SideFile>,
    pub items: Vec<ClaimRef>,
    pub cursor: usize,
    /// (item, the decision before) of each decision made, for undo; `None` for a skip.
    history: Vec<(usize, Option<Option<Decision>>)>,
    pub decided_now: usize,
}

impl<'a> ClaimWalk<'a> {
    /// Every pending claim of the suites, in suite order.
    pub fn new(suites: &'a [(Suite, MutantSet)]) -> Result<ClaimWalk<'a>> {
        let mut sides = Vec::new();
        let mut items = Vec::new();
        for (si, (suite, _)) in suites.iter().enumerate() {
            sides.push(SideFile::load_or_new(side::path_of(&suite.path))?);
            for (ci, c) in suite.contexts.iter().enumerate() {
                for pi in 0..c.pending.len() {
                    items.push(ClaimRef {
                        suite: si,
                        context: ci,
                        claim: pi,
                    });
                }
            }
        }
        Ok(ClaimWalk {
            suites,
            sides,
            items,
            cursor: 0,
            history: Vec::new(),
            decided_now: 0,
        })
    }

    pub fn current(&self) -> Option<ClaimRef> {
        self.items.get(self.cursor).copied()
    }

    pub fn claim(&self, item: ClaimRef) -> &'a PendingClaim {
        &self.suites[item.suite].0.contexts[item.context].pending[item.claim]
    }

    /// Saves the decision about the claim shown (under the side file's lock: another writer's
    /// decisions stay, and one it made about this claim is a conflict, returned as a note) and
    /// moves on.
    pub fn decide(&mut self, decision: Decision) -> Result<Option<String>> {
        let Some(item) = self.current() else {
            return Ok(None);
        };
        let id = self.claim(item).id.clone();
        let suite = &self.suites[item.suite].0;
        let seen = self.sides[item.suite].get(&id).cloned();
        let path = self.sides[item.suite].path.clone();
        let (before, file) = SideFile::update(&path, &suite.path, |file| {
            if let Some(now) = file.get(&id) {
                if Some(now) != seen.as_ref() && now != &decision {
                    return Ok(Err(side::conflict(file, &id, now, &decision).to_string()));
                }
            }
            Ok(Ok(file.set(&id, Some(decision))))
        })?;
        self.sides[item.suite] = file;
        match before {
            Ok(b) => {
                if b.is_none() {
                    self.decided_now += 1;
                }
                self.history.push((self.cursor, Some(b)));
                self.cursor += 1;
                Ok(None)
            }
            Err(conflict) => {
                self.cursor += 1;
                Ok(Some(conflict))
            }
        }
    }

    pub fn skip(&mut self) {
        if self.current().is_some() {
            self.history.push((self.cursor, None));
            self.cursor += 1;
        }
    }

    /// Takes the last step back: a decision off the side file (as it was before), or a skip.
    pub fn undo(&mut self) -> Result<Option<String>> {
        let Some((at, step)) = self.history.pop() else {
            return Ok(Some("nothing to undo in this review".into()));
        };
        if let Some(before) = step {
            let item = self.items[at];
            let id = self.claim(item).id.clone();
            let suite = self.suites[item.suite].0.path.clone();
            let path = self.sides[item.suite].path.clone();
            let restore = before.clone();
            let (_, file) = SideFile::update(&path, &suite, |file| {
                file.set(&id, restore);
                Ok(())
            })?;
            self.sides[item.suite] = file;
            if before.is_none() {
                self.decided_now -= 1;
            }
        }
        self.cursor = at;
        Ok(None)
    }

    /// The decision saved for an item, if any.
    pub fn decision(&self, at: usize) -> Option<&Decision> {
        let item = self.items[at];
        self.sides[item.suite].get(&self.claim(item).id)
    }
}

/// The keys of a pending claim, in a line.
pub const CLAIM_KEYS: &str = "[y] supported  [c] contradicted  [n] not found  [b] borderline  [x] not a claim  [s] skip  [u] undo  [?] help  [q] quit";

/// The help screen of the claim walk, in the words of the guide's "What counts where".
pub const CLAIM_HELP: &str = "\
Each claim comes from a logged answer. Read it against the passages and say what it is:
  y  supported: the passages say it; it becomes a verified claim (a false-alarm opportunity,
     and the parent of mutants)
  c  contradicted: the passages say otherwise; it becomes a real hard case of the error type you
     type (a fault in that type's row, and a real error for the gap to recall)
  n  not found: the passages do not say it; a real hard case of the type you type, as for c
  b  borderline: you decide by a rule; say the label it gives, the type and the rule in a
     sentence: a real hard case that keeps the rule, so the line holds after the next prompt edit
  x  not a claim: a greeting, an opinion, a question; dropped (with a reason if you give one)
  s  skip: decide later    u  undo the last step    q  quit: every decision is already saved
Decisions go to the suite's side file (NAME.reviews.yaml beside NAME.yaml); the suite itself is
never rewritten. Press any key to go back.";

/// The screen of the claim shown: where it stands, the claim and its answer, the passages
/// nearest it, and a checker's verdict when one is given.
pub fn claim_screen(
    walk: &ClaimWalk,
    checker: Option<(&str, &crate::check::CheckResult)>,
) -> String {
    let printable = crate::text::escape::printable;
    let Some(item) = walk.current() else {
        return String::new();
    };
    let (suite, _) = &walk.suites[item.suite];
    let context = &suite.contexts[item.context];
    let p = walk.claim(item);
    let mut o = format!(
        "{} · pending claim {} of {} · {} decided in this review\n\n",
        printable(&suite.name),
        walk.cursor + 1,
        walk.items.len(),
        walk.decided_now
    );
    o.push_str(&format!("context   {}\n", printable(&context.id)));
    if let Some(q) = &context.question {
        o.push_str(&format!("question  {}\n", printable(q)));
    }
    o.push_str(&format!(
        "answer    {}{}\n",
        printable(p.answer.as_deref().unwrap_or("-")),
        p.tag
            .as_deref()
            .map(|t| format!(" ({})", printable(t)))
            .unwrap_or_default()
    ));
    o.push_str(&format!(
        "claim     {}  {}\n",
        printable(&p.id),
        printable(&p.text)
    ));
    o.push_str("passages  nearest the claim:\n");
    for (pid, s) in super::diff::nearest_sentences(context, &p.text, &p.text, 3) {
        o.push_str(&format!("  {}  {}\n", printable(pid), printable(s)));
    }
    if let Some((name, result)) = checker {
        let says = match result {
            Ok(v) => format!(
                "says {}{}{}",
                v.label.as_str(),
                v.score
                    .map(|s| format!(" ({})", crate::report::fmt_score(Some(s))))
                    .unwrap_or_default(),
                v.evidence
                    .as_ref()
                    .map(|e| format!("; evidence {}: {}", e.passage, e.window))
                    .unwrap_or_default()
            ),
            Err(e) => format!("could not score it ({e})"),
        };
        o.push_str(&format!(
            "checker   {} {}\n",
            printable(name),
            printable(&says)
        ));
    }
    o.push('\n');
    o.push_str(CLAIM_KEYS);
    o.push('\n');
    o
}
