//! `faithprobe run`: score every verified claim, hard case and mutant of the suites and report.

use super::{CacheArgs, ConfidenceArg, Ctx, SuiteArgs};
use clap::{Args, ValueEnum};
use faithprobe::check::Checker;
use faithprobe::engine::record::Record;
use faithprobe::engine::run::SuiteRun;
use faithprobe::engine::summary::summarize_mixed;
use faithprobe::error::{Error, Exit};
use faithprobe::model::suite::Suite;
use faithprobe::mutate::MutantSet;
use faithprobe::report;
use faithprobe::report::snapshot::{self, SnapshotStatus};
use std::path::PathBuf;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RunFormat {
    Human,
    /// One JSON object per suite per line.
    Json,
    /// A summary fit for a pull-request comment.
    Markdown,
    /// JUnit XML: missed faults and false alarms fail, errors are errors.
    Junit,
}

/// Score every verified claim, hard case and mutant of the suites and report false alarms and
/// catch rates with Wilson intervals.
#[derive(Args, Clone)]
pub struct RunArgs {
    #[command(flatten)]
    pub suites: SuiteArgs,
    /// Checker name: `lexical` (built in) or one configured in faithprobe.yaml.
    #[arg(long, default_value = "lexical")]
    pub checker: String,
    #[arg(long, value_enum, default_value_t = RunFormat::Human)]
    pub format: RunFormat,
    #[command(flatten)]
    pub confidence: ConfidenceArg,
    #[command(flatten)]
    pub mix: super::MixArg,
    /// Write (or compare) one snapshot per suite and checker in this folder.
    #[arg(long)]
    pub snapshot: Option<PathBuf>,
    /// With --snapshot: exit 1 when a snapshot changed (also when CI is set).
    #[arg(long, requires = "snapshot")]
    pub check: bool,
    /// Exit 1 when any mutant or rewrite of the suites has no review (for CI: no fault type's
    /// rate rests on mutants nobody looked at).
    #[arg(long)]
    pub require_reviewed: bool,
    #[command(flatten)]
    pub cache: CacheArgs,
    /// Save a run record (every case, verdict, score, outcome, fingerprints) for `compare`.
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// Score every case N times (repeats bypass the cache) and report cases whose verdict
    /// changed.
    #[arg(long, default_value_t = 1)]
    pub repeat: usize,
    /// Score only part K of N of each suite's cases (by a hash of the case id); `faithprobe
    /// merge` joins the shard records (`--record`) into the record of the whole run.
    #[arg(long, value_parser = faithprobe::model::shard::Shard::parse, conflicts_with_all = ["snapshot", "repeat"])]
    pub shard: Option<faithprobe::model::shard::Shard>,
    /// Warn when the informative-mutant catch rate is further than this from the recall on the
    /// suite's real errors (hard cases with `source: real`).
    #[arg(long, default_value_t = 0.10, value_parser = super::parse_unit)]
    pub max_gap: f64,
    /// Score every window of every claim with an `nli` checker, rather than stopping at a
    /// claim's most promising window once it is over the threshold (the verdicts are the same;
    /// the scores of supported claims may be higher).
    #[arg(long)]
    pub full_scan: bool,
    #[command(flatten)]
    pub max_cost: super::MaxCostArg,
    #[command(flatten)]
    pub batch: super::batch::BatchArgs,
}

pub fn run(args: RunArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let confidence = args.confidence.checked()?;
    args.max_cost.apply()?;
    faithprobe::check::nli::set_full_scan(args.full_scan);
    if args.repeat == 0 {
        return Err(Error::Usage("--repeat must be at least 1".into()).into());
    }
    if args.repeat > 1 && args.batch.batch.is_some() {
        return Err(Error::Usage(
            "--repeat scores again without the cache, and --batch answers from it: use one".into(),
        )
        .into());
    }
    let mut outputs: Vec<(&str, &std::path::Path)> = Vec::new();
    if let Some(r) = &args.record {
        outputs.push(("--record", r));
    }
    if let Some(c) = args.cache.path() {
        outputs.push(("--cache", c));
    }
    super::guard_outputs(ctx, &super::suite_inputs(&args.suites), &outputs)?;
    let config = ctx.config()?;
    // a mix that does not read stops the run before any work (exit 2)
    let mix = args.mix.resolve(&config)?;
    let loaded = super::load_all(&config, &args.suites)?;
    let mixes = suite_mixes(&args, &loaded, mix)?;
    let checker = config.checker(&args.checker, args.cache.path())?;
    let strict = args.check || super::in_ci();
    let runs = if args.repeat > 1 {
        repeated(&args, &config, &loaded, checker.as_ref())?
    } else {
        super::score_suites_part(&loaded, checker.as_ref(), args.shard)
    };
    if faithprobe::io::interrupt::requested() || runs.iter().any(SuiteRun::interrupted) {
        return Ok(super::interrupted(&runs, args.cache.path()));
    }
    let inputs: Vec<&std::path::Path> = args.suites.suites.iter().map(|p| p.as_path()).collect();
    if let Some(exit) =
        super::batch::after_scoring(&args.batch, args.cache.path(), &inputs, checker.settings())?
    {
        return Ok(exit);
    }
    let mut exit = super::runs_exit(&runs);
    let out = render(&args, ctx, &loaded, &runs, confidence, &mixes)?;
    // files first, all or nothing: a failed write is exit 4 and nothing half-written
    if let Some(path) = &args.record {
        Record::new(super::records(&loaded, &runs)).write(path)?;
        errln!("record written: {}", path.display());
    }
    if let Some(dir) = &args.snapshot {
        write_snapshots(dir, &runs, strict, ctx, &mut exit)?;
    }
    if !args.require_reviewed {
        for line in left_out_notes(&loaded) {
            errln!("{line}");
        }
    }
    if args.require_reviewed {
        if let Some(msg) = unreviewed_message(&loaded) {
            errln!("{msg}");
            if exit == Exit::Ok {
                exit = Exit::GateFailed;
            }
        }
    }
    match super::out::emit(&out)? {
        Exit::Ok => Ok(exit),
        failed => Ok(failed),
    }
}

/// The suites' runs under `--repeat N`: scored once with the cache, then N - 1 more times
/// without it (repeats measure the checker, not the cache); each case's varying verdicts are
/// kept, and the checker's notes over every scoring are printed once.
fn repeated(
    args: &RunArgs,
    config: &faithprobe::engine::config::Config,
    loaded: &[(Suite, MutantSet)],
    checker: &dyn Checker,
) -> anyhow::Result<Vec<SuiteRun>> {
    // the checker's notes cover every repeat: added up and printed once they are all done
    let first = super::score_suites_noted(loaded, checker, args.shard);
    let mut notes: Vec<Vec<Vec<String>>> = first.iter().map(|(_, n)| vec![n.clone()]).collect();
    let mut runs: Vec<SuiteRun> = first.into_iter().map(|(r, _)| r).collect();
    if !faithprobe::io::interrupt::requested() {
        // repeats measure the checker, not the cache
        let fresh = config.checker(checker.name(), None)?;
        let mut extra: Vec<Vec<SuiteRun>> = vec![Vec::new(); runs.len()];
        for _ in 1..args.repeat {
            if faithprobe::io::interrupt::requested() {
                break;
            }
            for (i, (r, n)) in super::score_suites_noted(loaded, fresh.as_ref(), None)
                .into_iter()
                .enumerate()
            {
                extra[i].push(r);
                notes[i].push(n);
            }
        }
        for (run, rest) in runs.iter_mut().zip(&extra) {
            run.add_repeats(rest);
        }
    }
    for (run, n) in runs.iter().zip(&notes) {
        for note in super::sum_notes(n) {
            errln!(
                "{}: {note} (all {} scorings of --repeat {})",
                run.suite,
                n.len(),
                args.repeat
            );
        }
    }
    Ok(runs)
}

/// Each run's report in `--format`, with the measured gap between the mutation scores and the
/// recall on the suite's real errors.
fn render(
    args: &RunArgs,
    ctx: &Ctx,
    loaded: &[(Suite, MutantSet)],
    runs: &[SuiteRun],
    confidence: f64,
    mixes: &[faithprobe::engine::mix::Mix],
) -> anyhow::Result<String> {
    let mut out = String::new();
    let mut junit = Vec::new();
    let proxy = faithprobe::engine::proxy::ProxyOptions {
        confidence,
        alpha: 0.05,
        at_false_alarm: None,
        max_gap: args.max_gap,
    };
    for ((run, rec), mix) in runs.iter().zip(super::records(loaded, runs)).zip(mixes) {
        let summary = summarize_mixed(run, confidence, mix);
        if let Some(w) = summary.all_faults_mix.warning(&run.suite) {
            errln!("{w}");
        }
        // the measured gap between mutation scores and recall on the suite's real errors
        let one = Record::new(vec![rec]);
        let real = faithprobe::engine::proxy::real_errors(&[&one], None, &proxy);
        match args.format {
            RunFormat::Human => {
                out.push_str(&report::run::human::render(run, &summary, ctx.paint()));
                if let Some(r) = &real {
                    out.push_str(&report::proxy::real_errors(r, ctx.paint(), false));
                }
                if loaded.len() > 1 {
                    out.push('\n');
                }
            }
            RunFormat::Json => {
                let mut v = report::run::json::to_value(run, &summary);
                if let Some(r) = &real {
                    v["real_errors"] = serde_json::to_value(r)?;
                }
                out.push_str(&(v.to_string() + "\n"));
            }
            RunFormat::Markdown => {
                out.push_str(&report::run::markdown::render(run, &summary));
                if let Some(r) = &real {
                    out.push_str(&report::proxy::real_errors(
                        r,
                        report::Paint { color: false },
                        true,
                    ));
                }
            }
            RunFormat::Junit => junit.push(report::run::junit::testsuite(run)),
        }
    }
    if args.format == RunFormat::Junit {
        out.push_str(&report::run::junit::document(junit));
    }
    Ok(out)
}

/// Writes each run's snapshot into `dir`; a changed one under `--check` (or in CI) fails the
/// gate.
fn write_snapshots(
    dir: &std::path::Path,
    runs: &[SuiteRun],
    strict: bool,
    ctx: &Ctx,
    exit: &mut Exit,
) -> anyhow::Result<()> {
    for run in runs {
        match snapshot::write(dir, run, strict, ctx.stderr_color())? {
            SnapshotStatus::Created(p) => errln!("snapshot written: {}", p.display()),
            SnapshotStatus::Unchanged(p) => errln!("snapshot unchanged: {}", p.display()),
            SnapshotStatus::Changed {
                path,
                new_path,
                diff,
            } => {
                errln!(
                    "snapshot changed: {} (new verdicts in {}; accept with `faithprobe snapshot accept {}`)",
                    path.display(),
                    new_path.display(),
                    dir.display()
                );
                super::out::note_raw(&diff);
                if strict && *exit == Exit::Ok {
                    *exit = Exit::GateFailed;
                }
            }
        }
    }

    Ok(())
}

/// The error `--require-reviewed` prints when mutants or rewrites have no review, or `None`.
/// The mix of each suite's "all faults" row: `--mix`, else the suite's `mix:` (a file beside the
/// suite), else the config's (`fallback`). A suite mix that does not read stops the run before any
/// work, at its line.
fn suite_mixes(
    args: &RunArgs,
    loaded: &[(Suite, MutantSet)],
    fallback: faithprobe::engine::mix::Mix,
) -> anyhow::Result<Vec<faithprobe::engine::mix::Mix>> {
    use faithprobe::engine::mix::{Mix, MixProblem};
    let mut out = Vec::new();
    for (suite, _) in loaded {
        let m = match (&args.mix.mix, &suite.mix) {
            (None, Some((spec, line))) => {
                let base = suite.path.parent().unwrap_or(std::path::Path::new("."));
                Mix::parse(spec, base).map_err(|p| match p {
                    MixProblem::File(e) => e,
                    MixProblem::Unknown(msg) => Error::input(
                        &suite.path,
                        *line,
                        format!("`mix:` {msg}"),
                        "write `mix: uniform`, or `mix: file:weights.yaml` (beside the suite); see docs/src/concepts/mix.md",
                    ),
                })?
            }
            _ => fallback.clone(),
        };
        out.push(m);
    }
    Ok(out)
}

/// What the run left out for want of a person's review, and the command that reviews it.
pub(super) fn left_out_notes(
    loaded: &[(
        faithprobe::model::suite::Suite,
        faithprobe::mutate::MutantSet,
    )],
) -> Vec<String> {
    let mut out = Vec::new();
    for (suite, set) in loaded {
        let mutants = set
            .mutants
            .iter()
            .filter(|m| {
                m.review == faithprobe::model::case::MutantReview::Unreviewed && !m.is_rewrite()
            })
            .count();
        let pending = suite.pending().count();
        if mutants + pending == 0 {
            continue;
        }
        let mut parts = Vec::new();
        if mutants > 0 {
            parts.push(format!(
                "{mutants} unreviewed mutant{} counted apart",
                if mutants == 1 { "" } else { "s" }
            ));
        }
        if pending > 0 {
            parts.push(format!(
                "{pending} claim{} pending verification in no rate",
                if pending == 1 { "" } else { "s" }
            ));
        }
        out.push(format!(
            "note: {}: {}; review them: faithprobe review {}",
            suite.name,
            parts.join(", "),
            super::shell_paths(std::iter::once(suite.path.as_path()))
        ));
    }
    out
}

fn unreviewed_message(
    loaded: &[(
        faithprobe::model::suite::Suite,
        faithprobe::mutate::MutantSet,
    )],
) -> Option<String> {
    let mut lines = Vec::new();
    let mut paths = Vec::new();
    for (suite, set) in loaded {
        let (mut mutants, mut rewrites) = (0, 0);
        for m in &set.mutants {
            if m.review == faithprobe::model::case::MutantReview::Unreviewed {
                if m.is_rewrite() {
                    rewrites += 1;
                } else {
                    mutants += 1;
                }
            }
        }
        let pending = suite.pending().count();
        if mutants + rewrites + pending > 0 {
            lines.push(format!(
                "  {} ({}): {mutants} mutant{} and {rewrites} rewrite{} without a review{}",
                suite.name,
                suite.path.display(),
                if mutants == 1 { "" } else { "s" },
                if rewrites == 1 { "" } else { "s" },
                if pending > 0 {
                    format!(
                        ", {pending} claim{} pending verification",
                        if pending == 1 { "" } else { "s" }
                    )
                } else {
                    String::new()
                }
            ));
            paths.push(suite.path.as_path());
        }
    }
    if lines.is_empty() {
        return None;
    }
    let paths = super::shell_paths(paths);
    Some(format!(
        "error: --require-reviewed: every mutant, rewrite and pending claim needs a person's review, and these have none:\n{}\n  review them in a terminal: faithprobe review {paths}\n  or list them for a script: faithprobe review {paths} --list",
        lines.join("\n")
    ))
}
