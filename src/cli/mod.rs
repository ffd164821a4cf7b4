//! The command line: one file per command, each with its clap `Args` and `fn run`. This module
//! holds what several commands share: the flags they have in common (flattened into each
//! command's `Args`), loading suites before anything runs, scoring them with progress, and the
//! context every command gets (config path, colour). Clap stays in this layer.

pub mod batch;
pub mod check;
pub mod compare;
pub mod decompose_eval;
pub mod doctor;
pub mod import;
pub mod init;
pub mod merge;
pub mod mutants;
pub mod omissions_eval;
pub mod out;
pub mod report;
pub mod review;
pub mod run;
pub mod score;
pub mod snapshot;
pub mod stats;
pub mod suite;
pub mod sweep;

use clap::{Args, ValueEnum};
use faithprobe::check::Checker;
use faithprobe::engine::config::Config;
use faithprobe::engine::record::{Record, RecordRun};
use faithprobe::engine::run::{run_suite_part, SuiteRun};
use faithprobe::error::{Error, Exit};
use faithprobe::model::suite::Suite;
use faithprobe::mutate::{self, MutantSet};
use faithprobe::report::Paint;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What every command gets besides its own flags.
pub struct Ctx {
    pub config_path: Option<PathBuf>,
    pub color: ColorChoice,
}

impl Ctx {
    /// The config, loaded when a command needs it (never for `stats`).
    pub fn config(&self) -> Result<Config, Error> {
        Config::load(self.config_path.as_deref())
    }

    /// Colour for stdout.
    pub fn paint(&self) -> Paint {
        Paint {
            color: color_on(self.color, std::io::stdout().is_terminal()),
        }
    }

    /// Colour for stderr.
    pub fn stderr_color(&self) -> bool {
        color_on(self.color, std::io::stderr().is_terminal())
    }
}

#[derive(Clone, Copy, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

fn color_on(choice: ColorChoice, terminal: bool) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    }
}

/// True when the `CI` variable says this is a CI run: set, non-empty, and not `false` or `0`.
pub fn in_ci() -> bool {
    std::env::var("CI")
        .map(|v| {
            let v = v.trim().to_ascii_lowercase();
            !(v.is_empty() || v == "false" || v == "0")
        })
        .unwrap_or(false)
}

/// Suites and the mutator rules to read them with.
#[derive(Args, Clone)]
pub struct SuiteArgs {
    /// Suite files (YAML); `sweep` and `report` also take run records (`run --record`, `merge
    /// --out`) here, and then score nothing.
    #[arg(required = true)]
    pub suites: Vec<PathBuf>,
    /// Folder of mutator rule files (default: `mutators:` in faithprobe.yaml, else the built-in
    /// rules from mutators/).
    #[arg(long)]
    pub mutators: Option<PathBuf>,
    #[command(flatten)]
    pub generation: GenerationArgs,
}

/// Compound faults and the cap on mutants per claim, beyond each operator's own edits.
#[derive(Args, Clone, Default)]
pub struct GenerationArgs {
    /// Also make compound faults: each fault operator applied to each rewrite of a claim, so the
    /// fault sits in paraphrased text (or `compound: true` under `mutators:` in faithprobe.yaml).
    #[arg(long)]
    pub compound: bool,
    /// Keep at most N mutants per claim and operator, a sample by the seed of `mutators: seed:`
    /// (default 0); the rest are listed by `mutants` as skipped with the reason `cap`.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_per_claim: Option<u64>,
}

impl GenerationArgs {
    /// True when neither flag is given.
    fn is_default(&self) -> bool {
        !self.compound && self.max_per_claim.is_none()
    }
}

/// A budget for the run's LLM calls (`--max-cost`).
#[derive(Args, Clone)]
pub struct MaxCostArg {
    /// A budget for LLM calls (judges, LLM decomposers and mutators), in the currency of
    /// `prices:` in faithprobe.yaml: requests estimated to pass it are refused before any is
    /// sent, and calls stop once it is spent; those cases are errors, never passes.
    #[arg(long = "max-cost", value_name = "AMOUNT")]
    pub max_cost: Option<f64>,
}

impl MaxCostArg {
    /// Sets the process's budget; a budget that is not a positive number is a usage error.
    pub fn apply(&self) -> Result<(), Error> {
        if let Some(m) = self.max_cost {
            if !(m.is_finite() && m > 0.0) {
                return Err(Error::Usage(format!(
                    "--max-cost {m} must be a positive amount"
                )));
            }
        }
        faithprobe::io::llm::set_max_cost(self.max_cost);
        Ok(())
    }
}

/// The fault-type mix the "all faults" row is weighted to.
#[derive(Args, Clone)]
pub struct MixArg {
    /// Weigh the "all faults" row to a mix of fault types: `pooled` (every fault once, the
    /// default), `uniform` (every fault type with faults the same), or `file:PATH` (a YAML or
    /// JSON map of fault type to weight). Default: `mix:` in faithprobe.yaml, else `pooled`.
    #[arg(long, value_name = "MIX")]
    pub mix: Option<String>,
}

impl MixArg {
    /// The mix: this flag, else the config's `mix:`, else `pooled`.
    pub fn resolve(&self, config: &Config) -> Result<faithprobe::engine::mix::Mix, Error> {
        config.mix(self.mix.as_deref())
    }
}

/// The verdict cache of model and judge checkers.
#[derive(Args, Clone)]
pub struct CacheArgs {
    /// Verdict cache file for model and judge checkers.
    #[arg(long, default_value = faithprobe::check::cache::DEFAULT_CACHE)]
    pub cache: PathBuf,
    /// Do not read or write the verdict cache.
    #[arg(long, conflicts_with = "cache")]
    pub no_cache: bool,
}

impl CacheArgs {
    pub fn path(&self) -> Option<&Path> {
        (!self.no_cache).then_some(self.cache.as_path())
    }
}

/// The confidence level of every interval.
#[derive(Args, Clone)]
pub struct ConfidenceArg {
    /// Confidence level of the Wilson intervals (between 0 and 1).
    #[arg(long, default_value_t = 0.95)]
    pub confidence: f64,
}

impl ConfidenceArg {
    pub fn checked(&self) -> Result<f64, Error> {
        check_confidence(self.confidence)
    }
}

pub fn check_confidence(c: f64) -> Result<f64, Error> {
    if c > 0.0 && c < 1.0 {
        Ok(c)
    } else {
        Err(Error::Usage(format!(
            "--confidence {c} must be between 0 and 1 (e.g. 0.95)"
        )))
    }
}

/// Run records given where suites are expected (`sweep`, `report`): `None` when the inputs are
/// suites, else every record read and checked. A file is a record when it is a JSON object with
/// a `type` key; suites and records cannot be mixed, and a shard's record is refused (it is not
/// the whole run: `faithprobe merge` joins the shards first).
pub fn record_inputs(args: &SuiteArgs) -> Result<Option<Vec<(PathBuf, Record)>>, Error> {
    use faithprobe::engine::record::AnyRecord;
    // each file is read once: sniffed, then (a record) parsed from the same bytes
    let read: Vec<(bool, Vec<u8>)> = args
        .suites
        .iter()
        .map(|p| {
            let bytes = std::fs::read(p).unwrap_or_default();
            (AnyRecord::looks_like_record(&bytes), bytes)
        })
        .collect();
    let Some(first_record) = read.iter().position(|(r, _)| *r) else {
        return Ok(None);
    };
    if let Some(i) = read.iter().position(|(r, _)| !*r) {
        return Err(Error::Usage(format!(
            "{} is a suite but {} is a record: give either suites (to score them) or run records (to read them), not both",
            args.suites[i].display(),
            args.suites[first_record].display()
        )));
    }
    if args.mutators.is_some() || !args.generation.is_default() {
        return Err(Error::Usage(
            "--mutators, --compound and --max-per-claim do not apply to run records: their mutants were made when they were recorded".into(),
        ));
    }
    let mut out = Vec::new();
    for (p, (_, bytes)) in args.suites.iter().zip(read) {
        let record = Record::from_bytes(p, bytes)?;
        if let Some(sh) = record.runs.iter().find_map(|r| r.shard) {
            return Err(Error::Usage(format!(
                "{} is the record of shard {sh} only, not of the whole run; join every shard first: faithprobe merge SHARD.json... --out WHOLE.json",
                p.display()
            )));
        }
        if record.runs.is_empty() {
            return Err(Error::Usage(format!("{} records no suite", p.display())));
        }
        out.push((p.clone(), record));
    }
    Ok(Some(out))
}

/// The checker a record's runs share (name and settings); two in one record is an error.
pub fn record_checker(
    path: &Path,
    record: &Record,
) -> Result<faithprobe::engine::record::RecordChecker, Error> {
    let first = &record.runs[0].checker;
    if let Some(other) = record.runs.iter().find(|r| &r.checker != first) {
        return Err(Error::Usage(format!(
            "{} holds runs of two checkers ({} and {}); give one record per checker",
            path.display(),
            first.name,
            other.checker.name
        )));
    }
    Ok(first.clone())
}

/// Exit code of recorded runs: 3 when the checker could not score some case, else 0.
pub fn records_exit(runs: &[RecordRun]) -> Exit {
    if runs
        .iter()
        .flat_map(|r| &r.cases)
        .any(|c| c.outcome == faithprobe::model::case::Outcome::Error)
    {
        Exit::CheckerFailed
    } else {
        Exit::Ok
    }
}

/// Refuses, before any work, an output that would be written over an input (the config file
/// included) or over another output, however either path is spelled.
pub fn guard_outputs(
    ctx: &Ctx,
    inputs: &[(&str, &Path)],
    outputs: &[(&str, &Path)],
) -> Result<(), Error> {
    let config = ctx.config_path.clone().or_else(|| {
        let p = PathBuf::from("faithprobe.yaml");
        p.exists().then_some(p)
    });
    let mut all: Vec<(&str, &Path)> = inputs.to_vec();
    if let Some(c) = &config {
        all.push(("the config", c.as_path()));
    }
    // the LLM mutators' reply caches are read by every run: never an output (a config that does
    // not load is reported by the command itself)
    let caches: Vec<PathBuf> = ctx
        .config()
        .map(|c| c.llm_mutant_caches())
        .unwrap_or_default();
    for c in &caches {
        all.push(("the LLM mutant cache", c.as_path()));
    }
    faithprobe::io::paths::check_outputs(&all, outputs)
}

/// The suites of `args` as inputs for [`guard_outputs`].
pub fn suite_inputs(args: &SuiteArgs) -> Vec<(&str, &Path)> {
    args.suites
        .iter()
        .map(|p| ("the input", p.as_path()))
        .collect()
}

/// The suite paths without the side files of reviews among them: `suites/*.yaml` also matches
/// `larkspur.reviews.yaml`, which is read with `larkspur.yaml`. A side file whose suite is not
/// given is an error that names the suite to pass.
fn without_side_files(paths: &[PathBuf]) -> Result<Vec<&PathBuf>, Error> {
    let mut kept = Vec::new();
    for p in paths {
        match faithprobe::model::suite::side::suite_of(p) {
            None => kept.push(p),
            // `./suites/s.yaml` and `suites/s.reviews.yaml` name one suite: compare the files
            Some(s) if paths.iter().any(|q| same_file(q, &s)) => {}
            Some(s) => {
                return Err(Error::Usage(format!(
                "{} holds the reviews of {}, not a suite: pass {} (its reviews are read with it)",
                p.display(),
                s.display(),
                s.display()
            )))
            }
        }
    }
    Ok(kept)
}

/// True when `a` and `b` name one file, however spelled (`./s.yaml`, `s.yaml`, a symlink).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Paths as shell words, for a command printed for the user to run.
pub fn shell_paths<'a>(paths: impl IntoIterator<Item = &'a Path>) -> String {
    paths
        .into_iter()
        .map(|p| faithprobe::text::shell::shell_word(&p.display().to_string()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Loads every suite and its mutants before anything runs, so bad input writes nothing.
pub fn load_all(config: &Config, args: &SuiteArgs) -> Result<Vec<(Suite, MutantSet)>, Error> {
    let cap = args
        .generation
        .max_per_claim
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX));
    let rules = config
        .rules(args.mutators.as_deref())?
        .with_generation(config.generation(args.generation.compound, cap));
    let suites = without_side_files(&args.suites)?;
    let loaded: Vec<(Suite, MutantSet)> = suites
        .iter()
        .map(|p| {
            let suite = Suite::load(p)?;
            let set = mutate::generate(&suite, &rules)?;
            if let Some(w) = set.stale_warning(&suite) {
                errln!("{w}");
            }
            Ok((suite, set))
        })
        .collect::<Result<_, Error>>()?;
    // two suites of one name would share snapshot and record keys
    for (i, (s, _)) in loaded.iter().enumerate() {
        if let Some((other, _)) = loaded[..i].iter().find(|(o, _)| o.name == s.name) {
            return Err(Error::Usage(format!(
                "{} and {} are both named `{}`; suites compared, snapshotted or recorded together need distinct names",
                other.path.display(),
                s.path.display(),
                s.name
            )));
        }
    }
    Ok(loaded)
}

/// Progress on stderr for `run` and `score`: a bar on a terminal; otherwise a plain line every
/// 5 s with what is done, the rate and, when the total is known, the time left.
pub struct Progress {
    bar: indicatif::ProgressBar,
    terminal: bool,
    label: String,
    noun: &'static str,
    total: Option<u64>,
    started: Instant,
    last_line: Instant,
}

impl Progress {
    pub fn new(label: &str, noun: &'static str, total: Option<u64>) -> Progress {
        let terminal = std::io::stderr().is_terminal();
        let bar = if terminal {
            indicatif::ProgressBar::with_draw_target(total, indicatif::ProgressDrawTarget::stderr())
        } else {
            indicatif::ProgressBar::hidden()
        };
        bar.set_message(label.to_string());
        Progress {
            bar,
            terminal,
            label: label.to_string(),
            noun,
            total,
            started: Instant::now(),
            last_line: Instant::now(),
        }
    }

    /// `done` of the work is done (and, when it has changed, the total).
    pub fn set(&mut self, done: u64, total: Option<u64>) {
        if total.is_some() && total != self.total {
            self.total = total;
            self.bar.set_length(total.unwrap_or(0));
        }
        self.bar.set_position(done);
        let unfinished = self.total.is_none_or(|t| done < t);
        if !self.terminal && unfinished && self.last_line.elapsed() >= Duration::from_secs(5) {
            self.last_line = Instant::now();
            let secs = self.started.elapsed().as_secs_f64();
            let rate = done as f64 / secs.max(1e-9);
            // with nothing done yet there is no rate, so no time left to estimate
            let left = if done == 0 {
                "estimating the time left".to_string()
            } else {
                format!(
                    "about {:.0} s left",
                    (total_left(self.total, done)) as f64 / rate
                )
            };
            let of = match self.total {
                Some(t) if t >= done => format!(
                    " of about {t} ({:.0}%, {left})",
                    100.0 * done as f64 / t.max(1) as f64,
                ),
                _ => String::new(),
            };
            errln!(
                "{}: {done} {} scored{of} in {secs:.0} s, {rate:.1} {}/s",
                self.label,
                self.noun,
                self.noun
            );
        }
    }

    /// `done` items (answers) are scored and `work` of `total_work` units (bytes of the log) is
    /// read: the time left is estimated from the work, since later items may cost more.
    pub fn set_by_work(&mut self, done: u64, work: u64, total_work: Option<u64>) {
        if total_work.is_some() && total_work != self.total {
            self.total = total_work;
            self.bar.set_length(total_work.unwrap_or(0));
        }
        self.bar.set_position(work);
        self.bar
            .set_message(format!("{}: {done} {}", self.label, self.noun));
        let unfinished = self.total.is_none_or(|t| work < t);
        if !self.terminal && unfinished && self.last_line.elapsed() >= Duration::from_secs(5) {
            self.last_line = Instant::now();
            let secs = self.started.elapsed().as_secs_f64();
            let rate = done as f64 / secs.max(1e-9);
            let of = match self.total {
                Some(t) if t >= work && work > 0 && done > 0 => {
                    let per_unit = secs / work as f64;
                    format!(
                        " ({:.0}% of the log read, about {:.0} s left)",
                        100.0 * work as f64 / t.max(1) as f64,
                        (t - work) as f64 * per_unit
                    )
                }
                _ => String::new(),
            };
            errln!(
                "{}: {done} {} scored{of} in {secs:.0} s, {rate:.1} {}/s",
                self.label,
                self.noun,
                self.noun
            );
        }
    }

    /// Clears the bar; returns the time since the start.
    pub fn finish(self) -> Duration {
        self.bar.finish_and_clear();
        self.started.elapsed()
    }
}

/// What is left of `total` after `done` (0 without a total).
fn total_left(total: Option<u64>, done: u64) -> u64 {
    total.map_or(0, |t| t.saturating_sub(done))
}

/// Runs a checker over every loaded suite, with progress and cost notes on stderr. When stderr
/// is not a terminal, a plain progress line is printed every few seconds instead of a bar.
pub fn score_suites(loaded: &[(Suite, MutantSet)], checker: &dyn Checker) -> Vec<SuiteRun> {
    score_suites_part(loaded, checker, None)
}

/// [`score_suites`] on one shard of every suite's cases (`--shard K/N`).
pub fn score_suites_part(
    loaded: &[(Suite, MutantSet)],
    checker: &dyn Checker,
    shard: Option<faithprobe::model::shard::Shard>,
) -> Vec<SuiteRun> {
    score_suites_noted(loaded, checker, shard)
        .into_iter()
        .map(|(run, notes)| {
            for note in notes {
                errln!("{}: {note}", run.suite);
            }
            run
        })
        .collect()
}

/// [`score_suites_part`], each run with the checker's notes on it (counted afresh per suite)
/// instead of printed: `run --repeat` adds up the notes of every scoring.
pub fn score_suites_noted(
    loaded: &[(Suite, MutantSet)],
    checker: &dyn Checker,
    shard: Option<faithprobe::model::shard::Shard>,
) -> Vec<(SuiteRun, Vec<String>)> {
    let mut runs = Vec::new();
    for (suite, set) in loaded {
        let mut progress = Progress::new(
            &format!("{} · {}", suite.name, checker.name()),
            "cases",
            None,
        );
        checker.start_notes();
        let run = run_suite_part(suite, set, checker, shard, &mut |done, total| {
            progress.set(done as u64, Some(total as u64));
        });
        let elapsed = progress.finish();
        // after a signal, say how far it got, not that every case was scored
        let stopped = run
            .results
            .iter()
            .filter(|r| matches!(r.result, Err(faithprobe::check::CheckError::Interrupted)))
            .count();
        if stopped > 0 {
            errln!(
                "{}: stopped after {} of {} cases with {} in {:.2?}",
                suite.name,
                run.results.len() - stopped,
                run.results.len(),
                checker.name(),
                elapsed
            );
        } else {
            errln!(
                "{}: scored {} cases with {} in {:.2?}",
                suite.name,
                run.results.len(),
                checker.name(),
                elapsed
            );
        }
        runs.push((run, checker.notes()));
    }
    runs
}

/// Notes of several scorings added up: where two notes read alike but for their numbers
/// ("j: 4 claims; 4 calls"), one note with each number summed; any other note is kept as it is.
pub fn sum_notes(scorings: &[Vec<String>]) -> Vec<String> {
    /// A note as its text between numbers, and its numbers with their decimals.
    type Parts = (Vec<String>, Vec<(f64, usize)>);
    fn parts(note: &str) -> Parts {
        let mut text = vec![String::new()];
        let mut nums = Vec::new();
        let mut chars = note.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            let boundary = note[..i]
                .chars()
                .next_back()
                .is_none_or(|p| !p.is_alphanumeric());
            if c.is_ascii_digit() && boundary {
                let mut end = i + 1;
                while let Some(&(j, d)) = chars.peek() {
                    let next_digit = note[j + d.len_utf8()..]
                        .chars()
                        .next()
                        .is_some_and(|x| x.is_ascii_digit());
                    if d.is_ascii_digit() || (d == '.' && next_digit) {
                        end = j + 1;
                        chars.next();
                    } else {
                        break;
                    }
                }
                let raw = &note[i..end];
                let decimals = raw.split_once('.').map_or(0, |(_, f)| f.len());
                nums.push((raw.parse().unwrap_or(0.0), decimals));
                text.push(String::new());
            } else if let Some(t) = text.last_mut() {
                t.push(c);
            }
        }
        (text, nums)
    }
    let mut out: Vec<Parts> = Vec::new();
    for note in scorings.iter().flatten() {
        let (text, nums) = parts(note);
        match out.iter_mut().find(|(t, _)| *t == text) {
            Some((_, sum)) => {
                for (s, n) in sum.iter_mut().zip(nums) {
                    s.0 += n.0;
                    s.1 = s.1.max(n.1);
                }
            }
            None => out.push((text, nums)),
        }
    }
    out.into_iter()
        .map(|(text, nums)| {
            let mut s = text[0].clone();
            for ((v, decimals), t) in nums.iter().zip(&text[1..]) {
                s.push_str(&format!("{v:.decimals$}"));
                s.push_str(t);
            }
            s
        })
        .collect()
}

/// The records of runs over loaded suites, in order.
pub fn records(loaded: &[(Suite, MutantSet)], runs: &[SuiteRun]) -> Vec<RecordRun> {
    loaded
        .iter()
        .zip(runs)
        .map(|((suite, _), run)| RecordRun::from_run(run, &suite.sha256))
        .collect()
}

/// The worst exit code of the runs: 130 after Ctrl-C, 3 when a case could not be scored.
pub fn runs_exit(runs: &[SuiteRun]) -> Exit {
    Exit::worst_of(runs.iter().map(SuiteRun::exit_code))
}

/// After Ctrl-C: says what was scored and how to finish; writes no report, record or snapshot.
pub fn interrupted(runs: &[SuiteRun], cache: Option<&Path>) -> Exit {
    let total: usize = runs.iter().map(|r| r.results.len()).sum();
    let unscored: usize = runs
        .iter()
        .flat_map(|r| &r.results)
        .filter(|r| matches!(r.result, Err(faithprobe::check::CheckError::Interrupted)))
        .count();
    errln!(
        "interrupted: {} of {total} cases scored, {unscored} not; no report was written. {}",
        total - unscored,
        match cache {
            // a checker that keeps no cache (lexical) wrote none: nothing to point at
            Some(p) if p.exists() => format!("Verdicts already paid for are in {}: rerun the same command to finish.", p.display()),
            Some(_) => "Rerun the same command to finish.".into(),
            None => "Run without --no-cache to keep verdicts across runs; rerun the same command to finish.".into(),
        }
    );
    Exit::Interrupted
}

/// Writes a finished output file atomically and says so on stderr.
pub fn write_output(path: &Path, bytes: &[u8], what: &str) -> Result<(), Error> {
    faithprobe::io::write::write_atomic(path, bytes)?;
    errln!("{what} written: {}", path.display());
    Ok(())
}

/// A flag's value in [0, 1] (a rate or a margin): anything else, NaN included, is refused.
pub fn parse_unit(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("`{s}` is not a number between 0 and 1")),
    }
}
