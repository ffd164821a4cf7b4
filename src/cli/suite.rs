//! `faithprobe suite from-log`: a draft suite of pending claims from logged answers, to verify
//! in `faithprobe review`.

use super::Ctx;
use clap::{Args, Subcommand};
use faithprobe::answers::log::LogReader;
use faithprobe::engine::from_log::{self, Built, FromLogOptions};
use faithprobe::error::{Error, Exit};
use faithprobe::model::suite::Suite;
use std::collections::HashSet;
use std::path::PathBuf;

/// How `suite from-log` orders the claims it takes.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Pick {
    Disagreement,
}

#[derive(Subcommand)]
pub enum SuiteCommand {
    /// A draft suite from logged answers: each answer's passages become a context set, its
    /// claims pending claims to verify in `faithprobe review` (supported ones become verified
    /// claims, wrong ones real hard cases).
    FromLog(FromLogArgs),
}

#[derive(Args)]
pub struct FromLogArgs {
    /// The log, as `score` reads it (JSON Lines, or a YAML list).
    pub log: PathBuf,
    /// The suite to write.
    #[arg(long)]
    pub out: PathBuf,
    /// Passages given once, referenced from answers by `"context": ID` (as for `score`).
    #[arg(long)]
    pub contexts: Option<PathBuf>,
    /// How answers are split into claims (as for `score`).
    #[arg(long, default_value = "sentences")]
    pub decomposer: String,
    /// Take at most N claims, chosen by --seed (all of them without it).
    #[arg(long, value_name = "N")]
    pub sample: Option<usize>,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Spread the sample over the values of this key of the log (`tag`, a route, a customer
    /// tier), each value in turn.
    #[arg(long, requires = "sample")]
    pub stratify_by: Option<String>,
    /// `disagreement` (with two --checker): put first, and with --sample take, the claims on
    /// which the two checkers disagree most (verdicts that differ, then the largest gap in
    /// score), where a person's label is worth most.
    #[arg(long, value_enum, requires = "checkers")]
    pub pick: Option<Pick>,
    /// The two checkers for --pick disagreement.
    #[arg(long = "checker", value_name = "NAME")]
    pub checkers: Vec<String>,
    /// The suite's name (default: the --out file's stem).
    #[arg(long)]
    pub name: Option<String>,
    /// Extend the suite at --out: its bytes, ids and reviews are kept, the new context sets go
    /// at the head of its `contexts:` list, and claims it already holds are left out.
    #[arg(long)]
    pub append: bool,
}

pub fn run(cmd: SuiteCommand, ctx: &Ctx) -> anyhow::Result<Exit> {
    match cmd {
        SuiteCommand::FromLog(a) => from_log_cmd(a, ctx),
    }
}

fn from_log_cmd(args: FromLogArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let mut inputs: Vec<(&str, &std::path::Path)> = vec![("the log", &args.log)];
    if let Some(c) = &args.contexts {
        inputs.push(("--contexts", c));
    }
    super::guard_outputs(ctx, &inputs, &[("--out", &args.out)])?;
    if args.out.exists() && !args.append {
        return Err(Error::Usage(format!(
            "--out {} exists: pass --append to add to that suite, or choose another path",
            args.out.display()
        ))
        .into());
    }
    let config = ctx.config()?;
    let decomposer = config.decomposer(&args.decomposer)?;
    let mut answers = Vec::new();
    let mut bad = Vec::new();
    for a in LogReader::open(&args.log, args.contexts.as_deref(), None, None)? {
        match a {
            Ok(a) => answers.push(a),
            Err(e @ Error::Input { .. }) => bad.push(e),
            Err(e) => return Err(e.into()),
        }
    }
    if let Some(e) = bad.into_iter().next() {
        // a draft built from part of a log would look whole: nothing is written
        return Err(e.into());
    }
    if answers.is_empty() {
        return Err(Error::Usage(format!(
            "{} has no answers: nothing to build a suite from",
            args.log.display()
        ))
        .into());
    }
    let existing = if args.append {
        Some(Suite::load(&args.out)?)
    } else {
        None
    };
    let name = args.name.clone().unwrap_or_else(|| {
        args.out
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "from-log".into())
    });
    let opts = FromLogOptions {
        sample: args.sample,
        seed: args.seed,
        stratify_by: args.stratify_by.clone(),
        name: name.clone(),
    };
    let (mut used, _, _) = existing_ids(existing.as_ref());
    let mut built = Built::default();
    let mut taken =
        from_log::claims_of(&answers, decomposer.as_ref(), &opts, &mut used, &mut built);
    let mut opts = opts;
    if args.pick == Some(Pick::Disagreement) {
        taken = by_disagreement(&args, &config, taken, &answers)?;
        // the most disagreed come first and are taken in that order
        opts.seed = 0;
        opts.stratify_by = None;
        if let Some(n) = opts.sample.take() {
            taken.truncate(n);
        }
    }
    write_taken(
        &args.out,
        &args.log,
        &name,
        taken,
        &answers,
        existing.as_ref(),
        &opts,
        &mut built,
    )?;
    report(&args.out, &built)
}

/// Writes `taken` (claims of `answers`) to the suite at `out` as pending claims: a new suite, or
/// `existing` extended (its bytes kept, the claims it holds left out). What is written loads.
#[allow(clippy::too_many_arguments)] // one write: where, from what, and what was found
pub(super) fn write_taken(
    out: &std::path::Path,
    log: &std::path::Path,
    name: &str,
    taken: Vec<from_log::Taken>,
    answers: &[faithprobe::answers::LoggedAnswer],
    existing: Option<&Suite>,
    opts: &FromLogOptions,
    built: &mut Built,
) -> anyhow::Result<()> {
    let (_, known, contexts) = existing_ids(existing);
    let before = taken.len();
    let taken: Vec<_> = taken
        .into_iter()
        .filter(|t| !known.contains(&(t.answer.clone(), t.claim.clone())))
        .collect();
    built.already = before - taken.len();
    let taken = from_log::sample(taken, opts);
    built.taken = taken.len();
    if taken.is_empty() {
        return Err(Error::Usage(format!(
            "no claim to add from {}: {} answers, {} claims found, {} already in the suite",
            log.display(),
            built.answers,
            built.claims_found,
            built.already
        ))
        .into());
    }
    let text = match existing {
        None => {
            let (items, n) = from_log::render_contexts(&taken, answers, "  ", &contexts);
            built.contexts = n;
            from_log::new_suite(name, log, &items)
        }
        Some(_) => {
            let old = faithprobe::error::read_input(out)?;
            let (at, indent) = from_log::list_indent(&old, out)?;
            let (items, n) = from_log::render_contexts(&taken, answers, &indent, &contexts);
            built.contexts = n;
            format!("{}{items}{}", &old[..at], &old[at..])
        }
    };
    // what is written loads: checked before the file is touched
    Suite::from_yaml(out, &text)?;
    faithprobe::io::write::write_atomic(out, text.as_bytes())?;
    Ok(())
}

/// The claims ordered by how much two checkers disagree on them: differing verdicts first, then
/// the largest gap in score (a claim a checker could not score counts as the most disputed).
fn by_disagreement(
    args: &FromLogArgs,
    config: &faithprobe::engine::config::Config,
    taken: Vec<from_log::Taken>,
    answers: &[faithprobe::answers::LoggedAnswer],
) -> anyhow::Result<Vec<from_log::Taken>> {
    use faithprobe::check::{CheckInput, ClaimToCheck, ContextSet};
    if args.checkers.len() != 2 {
        return Err(Error::Usage(format!(
            "--pick disagreement takes --checker exactly twice, not {} times",
            args.checkers.len()
        ))
        .into());
    }
    let sets: Vec<ContextSet> = answers
        .iter()
        .map(|a| ContextSet {
            id: a.id.clone(),
            question: (!a.question.is_empty()).then(|| a.question.clone()),
            passages: a.passages().into(),
        })
        .collect();
    let index: std::collections::HashMap<&str, usize> = answers
        .iter()
        .enumerate()
        .map(|(i, a)| (a.id.as_str(), i))
        .collect();
    let claims: Vec<ClaimToCheck> = taken
        .iter()
        .map(|t| ClaimToCheck {
            context: index[t.answer.as_str()],
            text: &t.claim,
        })
        .collect();
    let input = CheckInput {
        contexts: &sets,
        entities: &[],
        claims,
    };
    let mut results = Vec::new();
    for name in &args.checkers {
        let checker = config.checker(name, None)?;
        results.push(checker.check(&input, &mut |_| {}));
    }
    let gap = |i: usize| -> (bool, f64) {
        match (&results[0][i], &results[1][i]) {
            (Ok(a), Ok(b)) => (
                a.label.flagged() != b.label.flagged(),
                (a.score.unwrap_or(0.5) - b.score.unwrap_or(0.5)).abs(),
            ),
            _ => (true, 1.0),
        }
    };
    let mut order: Vec<usize> = (0..taken.len()).collect();
    order.sort_by(|x, y| {
        let (a, b) = (gap(*x), gap(*y));
        b.0.cmp(&a.0).then(b.1.total_cmp(&a.1)).then(x.cmp(y))
    });
    let mut slots: Vec<Option<from_log::Taken>> = taken.into_iter().map(Some).collect();
    Ok(order.into_iter().filter_map(|i| slots[i].take()).collect())
}

/// The claim ids, (answer, claim) pairs and context ids a suite already has.
type Known = (HashSet<String>, HashSet<(String, String)>, HashSet<String>);

pub(super) fn existing_ids(suite: Option<&Suite>) -> Known {
    let (mut ids, mut known, mut contexts) = (HashSet::new(), HashSet::new(), HashSet::new());
    let Some(s) = suite else {
        return (ids, known, contexts);
    };
    for c in &s.contexts {
        contexts.insert(c.id.clone());
        ids.extend(c.faithful.iter().map(|f| f.id.clone()));
        ids.extend(c.hard_cases.iter().map(|h| h.id.clone()));
        for p in &c.pending {
            ids.insert(p.id.clone());
            if let Some(a) = &p.answer {
                known.insert((a.clone(), p.text.clone()));
            }
        }
    }
    for d in &s.decided_claims {
        ids.insert(d.claim.id.clone());
        if let Some(a) = &d.claim.answer {
            known.insert((a.clone(), d.claim.text.clone()));
        }
    }
    (ids, known, contexts)
}

/// What was built, and the next step (which works as printed).
pub(super) fn report(out_path: &std::path::Path, b: &Built) -> anyhow::Result<Exit> {
    if let Some(first) = b.without_passages.first() {
        errln!(
            "warning: {} answers have no passage text and were left out (first: `{}`): a claim needs the passages it is checked against",
            b.without_passages.len(),
            faithprobe::text::escape::printable(first)
        );
    }
    for (id, e) in &b.failed {
        errln!(
            "warning: answer `{}` was not split into claims: {}",
            faithprobe::text::escape::printable(id),
            faithprobe::text::escape::printable(e)
        );
    }
    let out = super::shell_paths(std::iter::once(out_path));
    let o = format!(
        "{}: {} pending claims in {} context sets, from {} answers ({} claims found{}{})\nnext: verify them in a terminal: faithprobe review {out}\n  or from a script: faithprobe review {out} --list, then --set ID=supported (or contradicted/not_found --type T, borderline, not_a_claim)\n",
        out_path.display(),
        b.taken,
        b.contexts,
        b.answers,
        b.claims_found,
        if b.already > 0 {
            format!(", {} already in the suite", b.already)
        } else {
            String::new()
        },
        if b.without_claims > 0 {
            format!(", {} answers with no claim", b.without_claims)
        } else {
            String::new()
        }
    );
    super::out::emit(&o)
}
