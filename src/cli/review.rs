//! `faithprobe review`: decide about mutants, rewrites and snapshot changes one at a time, in a
//! terminal or from a script.

use super::{Ctx, SuiteArgs};
use clap::{Args, ValueEnum};
use faithprobe::check::{CheckInput, CheckResult, Checker, ClaimToCheck, ContextSet};
use faithprobe::error::{Error, Exit};
use faithprobe::model::suite::side::{self, Decision, SideFile};
use faithprobe::model::suite::{ReviewKind, Suite};
use faithprobe::mutate::MutantSet;
use faithprobe::review::terminal::{self, Key, Terminal};
use faithprobe::review::{self, snapshots, CheckerView, Walk};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

mod set;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    Human,
    /// One JSON object: `{"pending": [...]}`.
    Json,
}

/// Review the unreviewed mutants and rewrites of the suites one at a time in the terminal
/// (decisions go to NAME.reviews.yaml beside each suite as they are made); or, with
/// `--snapshots DIR`, the pending snapshot changes verdict by verdict. `--list`, `--set`,
/// `--stale` and `--prune` do the same without a terminal.
#[derive(Args)]
pub struct ReviewArgs {
    /// Suite files (YAML).
    #[arg(required_unless_present = "snapshots")]
    pub suites: Vec<PathBuf>,
    /// Folder of mutator rule files (as for `run`).
    #[arg(long)]
    pub mutators: Option<PathBuf>,
    #[command(flatten)]
    pub generation: super::GenerationArgs,
    /// Show this checker's verdict on each mutant (a name from faithprobe.yaml, or `lexical`),
    /// and what each decision would make of it.
    #[arg(long)]
    pub checker: Option<String>,
    /// Print the unreviewed mutants and rewrites and exit (1 while any are pending).
    #[arg(long, conflicts_with_all = ["set", "stale", "prune"])]
    pub list: bool,
    /// With --list: human or json.
    #[arg(long, value_enum, default_value_t = ListFormat::Human, requires = "list")]
    pub format: ListFormat,
    /// Decide without a terminal: a mutant `ID=fault`, `ID=equivalent` or `ID=broken`; a rewrite
    /// `ID=equivalent` or `ID=not_equivalent`; a pending claim `ID=supported`, `ID=contradicted`,
    /// `ID=not_found` (with --type), `ID=borderline` (with --type, --label and the rule as
    /// --why) or `ID=not_a_claim`; repeat for more. `equivalent` of a mutant and
    /// `not_equivalent` need --why.
    #[arg(long = "set", value_name = "ID=DECISION")]
    pub set: Vec<String>,
    /// The reason for the --set decisions that need one (for `borderline`, the rule you decided).
    #[arg(long, requires = "set")]
    pub why: Option<String>,
    /// For a pending claim decided `contradicted`, `not_found` or `borderline`: the error type of
    /// the hard case it becomes (an operator's name, e.g. `number_swap`, joins that row).
    #[arg(long = "type", value_name = "TYPE", requires = "set")]
    pub case_type: Option<String>,
    /// For a pending claim decided `borderline`: the label your rule gives it (supported,
    /// contradicted, not_found or misleading).
    #[arg(long, requires = "set")]
    pub label: Option<String>,
    /// List the reviews whose mutant the suite no longer generates (exit 1 when any).
    #[arg(long, conflicts_with_all = ["set", "prune"])]
    pub stale: bool,
    /// Remove the reviews whose mutant the suite no longer generates.
    #[arg(long, conflicts_with = "set")]
    pub prune: bool,
    /// Walk the pending snapshot changes (`.snap.new` files) in this folder, verdict by verdict.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["suites", "list", "set", "stale", "prune", "checker"])]
    pub snapshots: Option<PathBuf>,
}

pub fn run(args: ReviewArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    if let Some(dir) = &args.snapshots {
        return review_snapshots(dir);
    }
    let config = ctx.config()?;
    let suite_args = SuiteArgs {
        suites: args.suites.clone(),
        mutators: args.mutators.clone(),
        generation: args.generation.clone(),
    };
    let loaded = super::load_all(&config, &suite_args)?;
    if args.list {
        return list(&loaded, args.format);
    }
    if !args.set.is_empty() {
        return set::set(
            &loaded,
            &args.set,
            &set::Extra {
                why: args.why.as_deref(),
                case_type: args.case_type.as_deref(),
                label: args.label.as_deref(),
            },
        );
    }
    if args.stale || args.prune {
        return stale(&loaded, args.prune);
    }
    if !terminal::interactive() {
        let suites = super::shell_paths(args.suites.iter().map(PathBuf::as_path));
        return Err(Error::Usage(format!(
            "`faithprobe review` asks in a terminal, and this is not one; without one:\n  faithprobe review {suites} --list                  what is pending\n  faithprobe review {suites} --set ID=fault          decide one (repeat --set for more)\n  faithprobe review {suites} --set ID=equivalent --why \"...\""
        ))
        .into());
    }
    let checker = match &args.checker {
        Some(name) => Some(config.checker(name, None)?),
        None => None,
    };
    if loaded.iter().any(|(s, _)| s.pending().next().is_some()) {
        // claims first: the mutants to review come from the claims verified
        return interactive_claims(&loaded, checker.as_deref(), &args.suites);
    }
    interactive(&loaded, checker.as_deref(), ctx)
}

/// The interactive walk over pending claims; at its end, the command that reviews the mutants
/// of the claims just verified.
fn interactive_claims(
    loaded: &[(Suite, MutantSet)],
    checker: Option<&dyn Checker>,
    suites: &[PathBuf],
) -> anyhow::Result<Exit> {
    use faithprobe::review::claims::{claim_screen, ClaimWalk};
    let mut walk = ClaimWalk::new(loaded)?;
    let mut term = Terminal::open().map_err(|e| Error::Usage(format!("the terminal: {e}")))?;
    let mut note: Option<String> = None;
    let mut verdicts: HashMap<usize, CheckResult> = HashMap::new();
    let mut end = Exit::Ok;
    while let Some(item) = walk.current() {
        if walk.decision(walk.cursor).is_some() {
            walk.skip(); // decided by another writer meanwhile
            continue;
        }
        let text_of = walk.claim(item).text.clone();
        if let Some(c) = checker {
            verdicts
                .entry(walk.cursor)
                .or_insert_with(|| verdict(c, &loaded[item.suite].0, item.context, &text_of));
        }
        let view = checker.map(|c| (c.name(), &verdicts[&walk.cursor]));
        let mut text = claim_screen(&walk, view);
        if let Some(n) = note.take() {
            text.push_str(&faithprobe::text::escape::printable(&n));
            text.push('\n');
        }
        term.show(&text);
        match on_claim_key(term.key(), &mut walk, &mut term)? {
            KeyDid::Note(n) => note = n,
            KeyDid::Quit { lost: true, .. } => return Ok(Exit::Interrupted),
            KeyDid::Quit { interrupted, .. } => {
                if interrupted {
                    end = Exit::Interrupted;
                }
                break;
            }
        }
    }
    drop(term);
    let paths = super::shell_paths(suites.iter().map(PathBuf::as_path));
    let left = (0..walk.items.len())
        .filter(|i| walk.decision(*i).is_none())
        .count();
    let o = format!(
        "{} claims decided in this review, {left} still pending\nnext: faithprobe review {paths}   # {}\n",
        walk.decided_now,
        if left > 0 {
            "the claims left, then the mutants of the claims you verified"
        } else {
            "the mutants of the claims you verified"
        }
    );
    let written = super::out::emit(&o)?;
    Ok(if end == Exit::Ok { written } else { end })
}

fn list(loaded: &[(Suite, MutantSet)], format: ListFormat) -> anyhow::Result<Exit> {
    let pending = review::pending(loaded);
    let mut o = String::new();
    match format {
        ListFormat::Json => {
            o.push_str(&serde_json::json!({ "pending": pending }).to_string());
            o.push('\n');
        }
        ListFormat::Human => {
            for (suite, set) in loaded {
                let n = pending
                    .iter()
                    .filter(|p| p.suite == suite.name && p.kind != "claim")
                    .count();
                let claims = suite.pending().count();
                o.push_str(&format!(
                    "{} ({}): {n} of {} mutants and rewrites unreviewed{}\n",
                    suite.name,
                    suite.path.display(),
                    set.mutants.len(),
                    if claims > 0 {
                        format!(", {claims} claims pending verification")
                    } else {
                        String::new()
                    }
                ));
            }
            for p in &pending {
                o.push_str(&format!(
                    "{:<18} {:<8} {:<18} {:<7} {}\n",
                    p.id, p.kind, p.operator, p.parent, p.text
                ));
            }
        }
    }
    // a stdout that cannot be written (a full disk) is exit 4, before the verdict
    super::out::emit_then(
        &faithprobe::text::escape::printable(&o),
        if pending.is_empty() {
            Exit::Ok
        } else {
            Exit::GateFailed
        },
    )
}

fn stale(loaded: &[(Suite, MutantSet)], prune: bool) -> anyhow::Result<Exit> {
    let mut o = String::new();
    let mut any = false;
    for (suite, set) in loaded {
        if set.stale_reviews.is_empty() {
            continue;
        }
        any = true;
        if !prune {
            for r in &set.stale_reviews {
                o.push_str(&format!(
                    "{}{}: {}\n",
                    r.file.display(),
                    r.line.map(|l| format!(":{l}")).unwrap_or_default(),
                    r.id
                ));
            }
            continue;
        }
        // the side file: rewritten without them
        let side_path = side::path_of(&suite.path);
        if side_path.exists() {
            // under the lock, from the file as it is now: a decision made meanwhile stays
            let (n, _) = SideFile::update(&side_path, &suite.path, |file| {
                Ok(set
                    .stale_reviews
                    .iter()
                    .filter(|r| r.file == side_path)
                    .filter(|r| file.set(&r.id, None).is_some())
                    .count())
            })?;
            if n > 0 {
                o.push_str(&format!(
                    "removed {n} stale review{} from {}\n",
                    if n == 1 { "" } else { "s" },
                    side_path.display()
                ));
            }
        }
        // the suite: only the review's own line goes, every other byte stays
        let in_suite: Vec<_> = set
            .stale_reviews
            .iter()
            .filter(|r| r.file == suite.path)
            .collect();
        if !in_suite.is_empty() {
            let text = faithprobe::error::read_input(&suite.path)?;
            let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
            let mut gone = Vec::new();
            for r in &in_suite {
                let one_line = r.line.filter(|&l| {
                    lines
                        .get(l - 1)
                        .is_some_and(|t| is_one_line_review(t, &r.id))
                });
                match one_line {
                    Some(l) => gone.push(l),
                    None => o.push_str(&format!(
                        "left {}{}: {} (not a one-line review: remove it by hand)\n",
                        suite.path.display(),
                        r.line.map(|l| format!(":{l}")).unwrap_or_default(),
                        r.id
                    )),
                }
            }
            gone.sort_unstable();
            for l in gone.iter().rev() {
                lines.remove(l - 1);
            }
            if !gone.is_empty() {
                faithprobe::io::write::write_atomic(&suite.path, lines.concat().as_bytes())?;
                o.push_str(&format!(
                    "removed {} stale review{} from {} (lines {})\n",
                    gone.len(),
                    if gone.len() == 1 { "" } else { "s" },
                    suite.path.display(),
                    gone.iter()
                        .map(|l| l.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
    }
    if !any {
        o.push_str("no stale reviews\n");
    }
    super::out::emit_then(
        &faithprobe::text::escape::printable(&o),
        if any && !prune {
            Exit::GateFailed
        } else {
            Exit::Ok
        },
    )
}

/// A suite line that is one whole review of `id`: `  ID: {review: ...}` and maybe a comment.
fn is_one_line_review(line: &str, id: &str) -> bool {
    let t = line.trim();
    let Some(rest) = t
        .strip_prefix(id)
        .or_else(|| t.strip_prefix(&format!("\"{id}\"")))
        .or_else(|| t.strip_prefix(&format!("'{id}'")))
    else {
        return false;
    };
    let rest = rest.trim_start();
    let Some(rest) = rest.strip_prefix(':') else {
        return false;
    };
    let rest = rest.trim_start();
    rest.starts_with('{')
        && rest
            .split(" #")
            .next()
            .unwrap_or("")
            .trim_end()
            .ends_with('}')
}

/// Acts on one key on the pending claim shown: a decision (asking for what it needs), a skip,
/// an undo, the help, or the end of the walk.
fn on_claim_key(
    key: Key,
    walk: &mut faithprobe::review::claims::ClaimWalk,
    term: &mut Terminal,
) -> anyhow::Result<KeyDid> {
    use faithprobe::review::claims::{CLAIM_HELP, CLAIM_KEYS};
    let quit = KeyDid::Quit {
        interrupted: false,
        lost: false,
    };
    let asked =
        |term: &mut Terminal, q: &str| term.line(&format!("{q} (Enter on an empty line: back) "));
    let decision = |kind, why, case_type, label| Decision {
        kind,
        why,
        case_type,
        label,
    };
    Ok(KeyDid::Note(match key {
        Key::Char('y') => walk.decide(decision(ReviewKind::Supported, None, None, None))?,
        Key::Char(k @ ('c' | 'n')) => match asked(term, "its error type (e.g. number_swap)?") {
            None => return Ok(quit),
            Some(t) if t.trim().is_empty() => Some("no type given: nothing decided".into()),
            Some(t) => walk.decide(decision(
                if k == 'c' {
                    ReviewKind::Contradicted
                } else {
                    ReviewKind::NotFound
                },
                None,
                Some(t.trim().to_string()),
                None,
            ))?,
        },
        Key::Char('b') => match borderline(term)? {
            Ok(d) => walk.decide(d)?,
            Err(Some(note)) => Some(note),
            Err(None) => return Ok(quit),
        },
        Key::Char('x') => {
            let Some(why) = term.line("why is it not a claim? (Enter: no reason) ") else {
                return Ok(quit);
            };
            walk.decide(decision(
                ReviewKind::NotAClaim,
                side::clean_reason(&why),
                None,
                None,
            ))?
        }
        Key::Char('s') => {
            walk.skip();
            None
        }
        Key::Char('u') => walk.undo()?,
        Key::Char('?' | 'h') => {
            term.show(&format!("{CLAIM_HELP}\n"));
            match term.key() {
                Key::Quit => {
                    return Ok(KeyDid::Quit {
                        interrupted: true,
                        lost: false,
                    })
                }
                Key::Lost => {
                    return Ok(KeyDid::Quit {
                        interrupted: true,
                        lost: true,
                    })
                }
                _ => None,
            }
        }
        Key::Char('q') => return Ok(quit),
        Key::Quit => {
            return Ok(KeyDid::Quit {
                interrupted: true,
                lost: false,
            })
        }
        Key::Lost => {
            return Ok(KeyDid::Quit {
                interrupted: true,
                lost: true,
            })
        }
        Key::Char(_) => Some(format!("keys: {CLAIM_KEYS}")),
    }))
}

/// Asks what a borderline call needs (its label, type and rule): the decision, or a note when
/// an answer does not fit, or `Err(None)` when the terminal was left.
fn borderline(term: &mut Terminal) -> anyhow::Result<Result<Decision, Option<String>>> {
    let mut ask = |q: &str| term.line(&format!("{q} (Enter on an empty line: back) "));
    let Some(label) =
        ask("the label your rule gives: supported, contradicted, not_found or misleading?")
    else {
        return Ok(Err(None));
    };
    let Some(label) = faithprobe::model::case::HardCaseLabel::parse(&label) else {
        return Ok(Err(Some("not a label: nothing decided".into())));
    };
    let Some(t) = ask("its type (e.g. overgeneralisation)?") else {
        return Ok(Err(None));
    };
    let Some(rule) = ask("the rule you decided by, in a sentence?") else {
        return Ok(Err(None));
    };
    Ok(match (t.trim(), side::clean_reason(&rule)) {
        ("", _) | (_, None) => Err(Some(
            "a borderline call needs its type and its rule: nothing decided".into(),
        )),
        (t, Some(rule)) => Ok(Decision {
            kind: ReviewKind::Borderline,
            why: Some(rule),
            case_type: Some(t.to_string()),
            label: Some(label),
        }),
    })
}

/// The interactive walk over mutants and rewrites.
fn interactive(
    loaded: &[(Suite, MutantSet)],
    checker: Option<&dyn Checker>,
    ctx: &Ctx,
) -> anyhow::Result<Exit> {
    let mut walk = Walk::new(loaded)?;
    if walk.items.is_empty() {
        let names: Vec<&str> = loaded.iter().map(|(s, _)| s.name.as_str()).collect();
        return super::out::emit(&format!(
            "nothing to review: every mutant and rewrite of {} has a review\n",
            names.join(", ")
        ));
    }
    let color = ctx.paint().color;
    let mut verdicts: HashMap<(usize, usize), CheckResult> = HashMap::new();
    let mut note: Option<String> = None;
    let mut term = Terminal::open().map_err(|e| Error::Usage(format!("the terminal: {e}")))?;
    let mut interrupted = false;
    let mut lost = false;
    loop {
        let Some(item) = walk.current() else {
            if walk.wrap() {
                continue;
            }
            break;
        };
        let m = walk.mutant(item);
        let rewrite = m.is_rewrite();
        if let Some(c) = checker {
            verdicts
                .entry((item.suite, item.mutant))
                .or_insert_with(|| verdict(c, &loaded[item.suite].0, m.context, &m.text));
        }
        let view = checker.map(|c| CheckerView {
            name: c.name(),
            result: &verdicts[&(item.suite, item.mutant)],
        });
        let mut text = review::screen(&walk, view, color);
        if let Some(n) = note.take() {
            text.push_str(&faithprobe::text::escape::printable(&n));
            text.push('\n');
        }
        term.show(&text);
        match on_key(term.key(), rewrite, &mut walk, &mut term)? {
            KeyDid::Note(n) => note = n,
            KeyDid::Quit {
                interrupted: i,
                lost: l,
            } => {
                (interrupted, lost) = (i, l);
                break;
            }
        }
    }
    drop(term);
    let interrupted = interrupted || faithprobe::io::interrupt::requested();
    let code = if interrupted {
        Exit::Interrupted
    } else {
        Exit::Ok
    };
    if lost {
        return Ok(code);
    }
    let o = walk_summary(loaded, &walk);
    // a terminal that hung up (SIGHUP) fails this write: the interrupt is the exit code
    let written = super::out::emit(&o)?;
    Ok(if interrupted { code } else { written })
}

/// What a key did in the walk: a note to show with the next screen, or the end of the walk.
enum KeyDid {
    Note(Option<String>),
    Quit { interrupted: bool, lost: bool },
}

/// Acts on one key on the item shown (`rewrite`: it is a rewrite): a decision (asking for the
/// reason one needs), a skip, an undo, the help, or the end of the walk.
fn on_key(key: Key, rewrite: bool, walk: &mut Walk, term: &mut Terminal) -> anyhow::Result<KeyDid> {
    Ok(match key {
        Key::Char('f') if !rewrite => KeyDid::Note(walk.decide(Decision {
            kind: ReviewKind::Fault,
            why: None,
            case_type: None,
            label: None,
        })?),
        Key::Char('b') if !rewrite => KeyDid::Note(walk.decide(Decision {
            kind: ReviewKind::Broken,
            why: None,
            case_type: None,
            label: None,
        })?),
        Key::Char('f') => KeyDid::Note(Some(
            "a rewrite is not a fault: press e if it says the same as its claim, n if it does not"
                .into(),
        )),
        Key::Char('e') if rewrite => KeyDid::Note(walk.decide(Decision {
            kind: ReviewKind::Equivalent,
            why: Some("says the same as its claim".into()),
            case_type: None,
            label: None,
        })?),
        Key::Char(k @ ('n' | 'e')) if (k == 'n') == rewrite => {
            // a decision that needs a reason: not equivalent (a rewrite), equivalent (a mutant)
            let (kind, question) = if k == 'n' {
                (ReviewKind::NotEquivalent, "why does it not say the same?")
            } else {
                (
                    ReviewKind::Equivalent,
                    "why is it still supported by the passages?",
                )
            };
            let Some(answer) = term.line(&format!("{question} (Enter on an empty line: back) "))
            else {
                return Ok(KeyDid::Quit {
                    interrupted: true,
                    lost: false,
                });
            };
            match side::clean_reason(&answer) {
                Some(why) => KeyDid::Note(walk.decide(Decision {
                    kind,
                    why: Some(why),
                    case_type: None,
                    label: None,
                })?),
                None => KeyDid::Note(Some("no reason given: nothing decided".into())),
            }
        }
        Key::Char('s') => {
            walk.skip();
            KeyDid::Note(None)
        }
        Key::Char('u') => KeyDid::Note(match walk.undo()? {
            review::Undo::Done => None,
            review::Undo::Nothing => Some("nothing to undo in this review".into()),
            review::Undo::Conflict(c) => Some(c),
        }),
        Key::Char('?') | Key::Char('h') => {
            term.show(&format!("{}\n", review::HELP));
            match term.key() {
                Key::Quit => KeyDid::Quit {
                    interrupted: false,
                    lost: false,
                },
                Key::Lost => KeyDid::Quit {
                    interrupted: true,
                    lost: true,
                },
                _ => KeyDid::Note(None),
            }
        }
        Key::Char('q') => KeyDid::Quit {
            interrupted: false,
            lost: false,
        },
        Key::Quit => KeyDid::Quit {
            interrupted: faithprobe::io::interrupt::requested(),
            lost: false,
        },
        // the terminal went away: a quit, as interrupted; the decisions are saved
        Key::Lost => KeyDid::Quit {
            interrupted: true,
            lost: true,
        },
        Key::Char(c) => KeyDid::Note(Some(format!(
            "`{}` is not a key here: {}",
            c.escape_default(),
            review::keys_line(rewrite)
        ))),
    })
}

/// What the walk did and what is left, with the command to go on.
fn walk_summary(loaded: &[(Suite, MutantSet)], walk: &Walk) -> String {
    let pending = walk.pending();
    let skipped = walk.skipped_pending();
    let files: Vec<String> = loaded
        .iter()
        .map(|(s, _)| side::path_of(&s.path).display().to_string())
        .collect();
    let mut o = format!(
        "\n{} decided in this review (saved in {}); {} still unreviewed{}\n",
        walk.decided_now,
        files.join(", "),
        pending,
        if skipped > 0 {
            format!(", {skipped} of them skipped")
        } else {
            String::new()
        }
    );
    if pending > 0 {
        o.push_str(&format!(
            "to go on: faithprobe review {}\n",
            super::shell_paths(loaded.iter().map(|(s, _)| s.path.as_path()))
        ));
    }
    o
}

/// The checker's verdict on one text against one context set of a suite.
fn verdict(checker: &dyn Checker, suite: &Suite, context: usize, text: &str) -> CheckResult {
    let sets = [ContextSet::from(&suite.contexts[context])];
    let input = CheckInput {
        contexts: &sets,
        entities: &suite.entities,
        claims: vec![ClaimToCheck { context: 0, text }],
    };
    checker
        .check(&input, &mut |_| {})
        .into_iter()
        .next()
        .unwrap_or(Err(faithprobe::check::CheckError::NoVerdict))
}

/// The snapshot walk: every change of every `.snap.new` in `dir`, one at a time.
fn review_snapshots(dir: &Path) -> anyhow::Result<Exit> {
    let files = faithprobe::report::snapshot::pending(dir)?;
    if files.is_empty() {
        return super::out::emit(&format!("no .snap.new files in {}\n", dir.display()));
    }
    // a symlinked, empty or binary .snap.new is refused before anything is decided
    for f in &files {
        faithprobe::report::snapshot::check_new(f)?;
    }
    if !terminal::interactive() {
        let d = faithprobe::text::shell::shell_word(&dir.display().to_string());
        return Err(Error::Usage(format!(
            "`faithprobe review --snapshots` asks in a terminal, and this is not one; without one:\n  faithprobe snapshot pending {d}   what is pending\n  faithprobe snapshot accept {d}    take every change\n  faithprobe snapshot reject {d}    drop every change"
        ))
        .into());
    }
    let mut term = Terminal::open().map_err(|e| Error::Usage(format!("the terminal: {e}")))?;
    let (mut accepted, mut rejected, mut left) = (0usize, 0usize, 0usize);
    let mut quit = false;
    let mut lost = false;
    let mut note: Option<String> = None;
    'files: for f in &files {
        let mut pending = snapshots::Pending::load(f)?;
        let changes = pending.changes();
        let mut i = 0;
        while i < changes.len() {
            let c = &changes[i];
            let mut text = snapshots::screen(&pending, c, i + 1, changes.len());
            if let Some(n) = note.take() {
                text.push_str(&n);
                text.push('\n');
            }
            term.show(&text);
            match term.key() {
                Key::Char('a') => {
                    pending.accept(c)?;
                    accepted += 1;
                    i += 1;
                }
                Key::Char('r') => {
                    pending.reject(c)?;
                    rejected += 1;
                    i += 1;
                }
                Key::Char('s') => {
                    left += 1;
                    i += 1;
                }
                Key::Char('?') | Key::Char('h') => {
                    term.show(&format!("{}\n", snapshots::HELP));
                    match term.key() {
                        Key::Quit => {
                            quit = true;
                            break 'files;
                        }
                        Key::Lost => {
                            (quit, lost) = (true, true);
                            break 'files;
                        }
                        _ => {}
                    }
                }
                Key::Char('q') | Key::Quit => {
                    quit = true;
                    break 'files;
                }
                Key::Lost => {
                    (quit, lost) = (true, true);
                    break 'files;
                }
                Key::Char(c) => {
                    note = Some(format!(
                        "`{}` is not a key here: a accept, r reject, s skip, ? help, q quit",
                        c.escape_default()
                    ))
                }
            }
        }
    }
    drop(term);
    let interrupted = quit && faithprobe::io::interrupt::requested();
    if lost {
        return Ok(Exit::Interrupted);
    }
    let written = super::out::emit(&snapshots_summary(dir, accepted, rejected, left)?)?;
    Ok(if interrupted {
        Exit::Interrupted
    } else {
        written
    })
}

/// What the snapshot walk did, and how many `.snap.new` files are still pending in `dir`.
fn snapshots_summary(
    dir: &Path,
    accepted: usize,
    rejected: usize,
    left: usize,
) -> anyhow::Result<String> {
    let still = faithprobe::report::snapshot::pending(dir)?.len();
    Ok(format!(
        "\n{accepted} accepted, {rejected} rejected{}; {still} .snap.new file{} still pending in {}\n",
        if left > 0 {
            format!(", {left} skipped")
        } else {
            String::new()
        },
        if still == 1 { "" } else { "s" },
        dir.display()
    ))
}
