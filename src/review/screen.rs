//! The screen of one item of a walk as text: progress, context, claim, mutant, the change, the
//! operator, the nearest passage sentences, a checker's verdict, and the keys.

use super::diff::{nearest_sentences, word_diff};
use super::walk::{parent_text, Walk};
use crate::check::CheckResult;
use crate::mutate::{self, Mutant, Purpose};
use owo_colors::OwoColorize;

/// What the checker said about an item, for the screen.
pub struct CheckerView<'a> {
    pub name: &'a str,
    pub result: &'a CheckResult,
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
                (false, true) => {
                    "reviewed fault: caught; equivalent: a false alarm in the invariance row; broken: no case"
                }
                (false, false) => {
                    "reviewed fault: a miss; equivalent: passes in the invariance row; broken: no case"
                }
                (true, true) => "equivalent: a false alarm; not equivalent: no case",
                (true, false) => "equivalent: passes; not equivalent: no case",
            };
            format!("says {}{score}. If {meaning}", v.label.as_str())
        }
    }
}

/// The keys of an item, in a line.
pub fn keys_line(rewrite: bool) -> &'static str {
    if rewrite {
        "[e] says the same  [n] not equivalent (asks why)  [s] skip  [u] undo  [?] help  [q] quit"
    } else {
        "[f] real fault  [e] equivalent (asks why)  [b] broken  [s] skip  [u] undo  [?] help  [q] quit"
    }
}

/// The help screen.
pub const HELP: &str = "\
Each mutant is a claim a person verified, edited by an operator to make a fault. Decide whether
the edit really makes it wrong against the passages:
  f  a real fault: the checker should flag it (it counts in its fault type's catch rate)
  e  equivalent: still supported by the passages; you say why (it counts in the invariance row:
     flagging it is a false alarm there)
  b  broken: ungrammatical or nonsense, no sentence a generator would write (no case; listed
     per operator as a defect of the operator)
Each rewrite says its claim another way; flagging it is a false alarm:
  e  says the same: it counts in the invariance row
  n  not equivalent: the rewrite changed the meaning; you say why (no case)
  s  skip: decide later (the next `faithprobe review` shows it again)
  u  undo the last decision or skip
  q  quit: every decision is already saved; `faithprobe review` resumes after the last one
Decisions go to the suite's side file (NAME.reviews.yaml beside NAME.yaml); the suite itself is
never rewritten. Press any key to go back.";

/// The operator that made the item, what it stands for and its rule file (or that a model made
/// it).
fn operator_line(m: &Mutant) -> String {
    match mutate::operator(m.operator) {
        Some(op) => format!(
            "operator  {} ({}): {}\n          rules: mutators/{}\n",
            op.name,
            if op.purpose == Purpose::Fault {
                "fault"
            } else {
                "rewrite"
            },
            op.stands_for,
            op.rules
        ),
        None => format!(
            "operator  {} (a model's edit: mutators: in faithprobe.yaml)\n",
            m.operator
        ),
    }
}

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
    o.push_str(&operator_line(m));
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
