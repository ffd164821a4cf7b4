//! The `faithgate` command line: parses flags, calls the library, maps errors to exit codes.

use anyhow::Context as _;
use clap::{Parser, Subcommand, ValueEnum};
use faithgate::compare;
use faithgate::config::Config;
use faithgate::error::{Error, Exit};
use faithgate::mutate::{self, MutantSet};
use faithgate::record::{Record, RecordRun};
use faithgate::report::{self, Format, Paint};
use faithgate::run::{run_suite, SuiteRun};
use faithgate::snapshot::{self, SnapshotStatus};
use faithgate::suite::Suite;
use faithgate::summary::summarize;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "faithgate",
    version,
    about = "Tests the testers of RAG systems: how often a faithfulness checker raises false alarms, and which injected faults it catches"
)]
struct Cli {
    /// When to colour output (NO_COLOR is honoured under `auto`).
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    /// Config file with named checkers (default: ./faithgate.yaml when present).
    #[arg(long, global = true)]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Subcommand)]
enum Command {
    /// Score every verified claim, hard case and mutant of the suites and report false alarms
    /// and catch rates with Wilson intervals.
    Run {
        /// Suite files (YAML).
        #[arg(required = true)]
        suites: Vec<PathBuf>,
        /// Checker name: `lexical` (built in) or one configured in faithgate.yaml.
        #[arg(long, default_value = "lexical")]
        checker: String,
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// Confidence level of the Wilson intervals.
        #[arg(long, default_value_t = 0.95)]
        confidence: f64,
        /// Write (or compare) one snapshot per suite and checker in this folder.
        #[arg(long)]
        snapshot: Option<PathBuf>,
        /// With --snapshot: exit 1 when a snapshot changed (also when CI is set).
        #[arg(long)]
        check: bool,
        /// Folder of mutator rule files (default: the built-in rules from mutators/).
        #[arg(long)]
        mutators: Option<PathBuf>,
        /// Verdict cache file for model checkers.
        #[arg(long, default_value = faithgate::check::cache::DEFAULT_CACHE)]
        cache: PathBuf,
        /// Do not read or write the verdict cache.
        #[arg(long, conflicts_with = "cache")]
        no_cache: bool,
        /// Save a run record (every case, verdict, score, outcome, fingerprints) for `compare`.
        #[arg(long)]
        record: Option<PathBuf>,
        /// Score every case N times (repeats bypass the cache) and report cases whose verdict
        /// changed.
        #[arg(long, default_value_t = 1)]
        repeat: usize,
    },
    /// Compare two run records case by case (exact McNemar on the changes), or run two checkers
    /// on suites and compare them. Exit 1 when the candidate is significantly worse on any fault
    /// type or on false alarms, or newly misses more faults than allowed.
    Compare {
        /// BASE.json CANDIDATE.json, or suite files with --checker A --checker B.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// Base checker, then candidate checker (run both on the suites given).
        #[arg(long = "checker")]
        checkers: Vec<String>,
        /// Significance level of the gate.
        #[arg(long, default_value_t = 0.05)]
        alpha: f64,
        /// Fail when more faults than this are newly missed.
        #[arg(long, default_value_t = 0)]
        max_new_misses: u64,
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        #[arg(long, default_value_t = 0.95)]
        confidence: f64,
        #[arg(long)]
        mutators: Option<PathBuf>,
        #[arg(long, default_value = faithgate::check::cache::DEFAULT_CACHE)]
        cache: PathBuf,
        #[arg(long, conflicts_with = "cache")]
        no_cache: bool,
    },
    /// Score once, then report false alarms and detection per fault type at every threshold,
    /// write an SVG chart, and recommend a threshold under a false-alarm bound.
    Sweep {
        #[arg(required = true)]
        suites: Vec<PathBuf>,
        #[arg(long, default_value = "lexical")]
        checker: String,
        /// Recommend the threshold with the best detection whose false-alarm upper bound is at
        /// most this.
        #[arg(long)]
        max_false_alarm: Option<f64>,
        /// Choose the threshold on this fraction of the claims (split by a hash of the parent
        /// claim) and report it on the rest.
        #[arg(long)]
        calibrate_on: Option<f64>,
        /// Warn for fault types whose interval is wider than ±this.
        #[arg(long, default_value_t = 0.05)]
        margin: f64,
        /// Where to write the SVG chart.
        #[arg(long)]
        svg: Option<PathBuf>,
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        #[arg(long, default_value_t = 0.95)]
        confidence: f64,
        #[arg(long)]
        mutators: Option<PathBuf>,
        #[arg(long, default_value = faithgate::check::cache::DEFAULT_CACHE)]
        cache: PathBuf,
        #[arg(long, conflicts_with = "cache")]
        no_cache: bool,
    },
    /// The quarterly audit: one self-contained HTML file and the same content as Markdown, for
    /// each checker: rates with intervals, sweep chart, hard cases, agreement with a person,
    /// unreviewed mutants and fingerprints.
    Report {
        #[arg(required = true)]
        suites: Vec<PathBuf>,
        /// Checkers to audit (repeat the flag); default the built-in `lexical`.
        #[arg(long = "checker")]
        checkers: Vec<String>,
        /// Folder for report.html, report.md and the charts.
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value = "faithgate audit")]
        title: String,
        /// False-alarm bound for the threshold recommendation in the sweep section.
        #[arg(long, default_value_t = 0.1)]
        max_false_alarm: f64,
        #[arg(long, default_value_t = 0.95)]
        confidence: f64,
        #[arg(long)]
        mutators: Option<PathBuf>,
        #[arg(long, default_value = faithgate::check::cache::DEFAULT_CACHE)]
        cache: PathBuf,
        #[arg(long, conflicts_with = "cache")]
        no_cache: bool,
    },
    /// Score logged answers: split each into claims, verify every claim against the context set
    /// that was in its prompt, and report faithfulness with the evidence for every verdict.
    Score {
        /// The log: JSON Lines (one answer per line) or YAML (a list).
        log: PathBuf,
        #[arg(long, default_value = "lexical")]
        checker: String,
        #[arg(long, default_value = "sentences")]
        decomposer: String,
        /// Scoring rule(s) to show: strict, non-contradiction, or both side by side.
        #[arg(long = "definition", value_enum)]
        definitions: Vec<faithgate::answers::score::Definition>,
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// Save a score record for `compare`.
        #[arg(long)]
        record: Option<PathBuf>,
        /// Also write the report as one self-contained HTML file.
        #[arg(long)]
        html: Option<PathBuf>,
        /// Ask this judge checker, once per answer, which conditions in the passages the answer
        /// leaves out: a review queue, never a gate.
        #[arg(long)]
        omissions: Option<String>,
        #[arg(long, default_value = "prompts/omissions-v1.md")]
        omissions_prompt: PathBuf,
        #[arg(long, default_value_t = 0.95)]
        confidence: f64,
        #[arg(long, default_value = faithgate::check::cache::DEFAULT_CACHE)]
        cache: PathBuf,
        #[arg(long, conflicts_with = "cache")]
        no_cache: bool,
    },
    /// Compare a decomposer's claims with a person's hand decomposition: missed, merged and
    /// invented claims per answer and in total.
    DecomposeEval {
        file: PathBuf,
        #[arg(long, default_value = "sentences")]
        decomposer: String,
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Measure the omissions check against answers whose omitted conditions a person labelled:
    /// precision and recall of its flags.
    OmissionsEval {
        file: PathBuf,
        /// The judge checker whose server and model run the check.
        #[arg(long)]
        omissions: String,
        #[arg(long, default_value = "prompts/omissions-v1.md")]
        omissions_prompt: PathBuf,
    },
    /// Score one premise and claim with a checker and print every number it has for the pair
    /// (each label's probability, a cosine, a coverage).
    Probe {
        #[arg(long, default_value = "lexical")]
        checker: String,
        #[arg(long)]
        premise: String,
        #[arg(long)]
        claim: String,
    },
    /// Say what faithgate found (ONNX Runtime, each configured model's inputs, outputs and
    /// labels) and what to do about anything missing.
    Doctor,
    /// Quick sums: Wilson intervals, exact McNemar p-values, sample sizes.
    Stats {
        #[command(subcommand)]
        what: StatsCommand,
    },
    /// List the mutants the rules generate for the suites.
    Mutants {
        #[arg(required = true)]
        suites: Vec<PathBuf>,
        #[arg(long, value_enum, default_value_t = MutantFormat::Human)]
        format: MutantFormat,
        #[arg(long)]
        mutators: Option<PathBuf>,
    },
    /// Manage snapshots.
    Snapshot {
        #[command(subcommand)]
        action: SnapshotAction,
    },
}

#[derive(Subcommand)]
enum StatsCommand {
    /// Wilson interval for K successes in N trials.
    Wilson {
        k: u64,
        n: u64,
        #[arg(long, default_value_t = 0.95)]
        confidence: f64,
    },
    /// Exact two-sided McNemar p-value for B and C discordant pairs.
    Mcnemar { b: u64, c: u64 },
    /// Labelled cases needed to pin a rate near P to within ±E.
    SampleSize {
        #[arg(long)]
        rate: f64,
        #[arg(long)]
        margin: f64,
        #[arg(long, default_value_t = 0.95)]
        confidence: f64,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum MutantFormat {
    Human,
    /// A `reviews:` block to paste into the suite and edit.
    Yaml,
    Json,
}

#[derive(Subcommand)]
enum SnapshotAction {
    /// Promote every `.snap.new` in the folder over its `.snap`.
    Accept {
        #[arg(default_value = "snapshots")]
        dir: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // first Ctrl-C: stop after the calls in flight; a second one: stop now
    let _ = ctrlc::set_handler(|| {
        if faithgate::interrupt::requested() {
            std::process::exit(Exit::Interrupted.code() as i32);
        }
        faithgate::interrupt::request();
        eprintln!("interrupting: finishing the calls in flight (Ctrl-C again to stop at once)");
    });
    match run(cli) {
        Ok(code) => ExitCode::from(code.code()),
        Err(err) => {
            let exit = err
                .downcast_ref::<Error>()
                .map(Error::exit)
                .unwrap_or(Exit::Usage);
            eprintln!("error: {err:#}");
            ExitCode::from(exit.code())
        }
    }
}

fn color_on(choice: ColorChoice, terminal: bool) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    }
}

/// Loads every suite and its mutants before anything runs, so bad input writes nothing.
fn load_all(paths: &[PathBuf], rules: &mutate::Rules) -> Result<Vec<(Suite, MutantSet)>, Error> {
    paths
        .iter()
        .map(|p| {
            let suite = Suite::load(p)?;
            let set = mutate::generate(&suite, rules)?;
            Ok((suite, set))
        })
        .collect()
}

/// Runs a checker over every loaded suite, with progress and cost notes on stderr.
fn score_suites(
    loaded: &[(Suite, MutantSet)],
    checker: &dyn faithgate::check::Checker,
) -> Vec<SuiteRun> {
    let mut runs = Vec::new();
    for (suite, set) in loaded {
        let bar =
            indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
        bar.set_message(format!("{} · {}", suite.name, checker.name()));
        let started = std::time::Instant::now();
        let run = run_suite(suite, set, checker, &mut |done, total| {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        });
        bar.finish_and_clear();
        eprintln!(
            "{}: scored {} cases with {} in {:.2?}",
            suite.name,
            run.results.len(),
            checker.name(),
            started.elapsed()
        );
        for note in checker.notes() {
            eprintln!("{}: {note}", suite.name);
        }
        runs.push(run);
    }
    runs
}

/// A score record, if the file is one (run records are read by `Record::load`).
fn score_record(path: &std::path::Path) -> Option<faithgate::answers::score::ScoreRecord> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

/// After Ctrl-C: says what was scored and how to finish; writes no report, record or snapshot.
fn interrupted(runs: &[SuiteRun], cache: Option<&std::path::Path>) -> Exit {
    let total: usize = runs.iter().map(|r| r.results.len()).sum();
    let unscored: usize = runs
        .iter()
        .flat_map(|r| &r.results)
        .filter(|r| {
            r.result
                .as_ref()
                .err()
                .is_some_and(|e| e == faithgate::interrupt::INTERRUPTED)
        })
        .count();
    eprintln!(
        "interrupted: {} of {total} cases scored, {unscored} not; no report was written. {}",
        total - unscored,
        match cache {
            Some(p) => format!("Verdicts already paid for are in {}: rerun the same command to finish.", p.display()),
            None => "Run without --no-cache to keep verdicts across runs; rerun the same command to finish.".into(),
        }
    );
    Exit::Interrupted
}

fn run(cli: Cli) -> anyhow::Result<Exit> {
    let config = Config::load(cli.config.as_deref())?;
    let stdout_color = color_on(cli.color, std::io::stdout().is_terminal());
    let stderr_color = color_on(cli.color, std::io::stderr().is_terminal());
    match cli.command {
        Command::Run {
            suites,
            checker,
            format,
            confidence,
            snapshot,
            check,
            mutators,
            cache,
            no_cache,
            record,
            repeat,
        } => {
            check_confidence(confidence)?;
            if repeat == 0 {
                return Err(Error::Usage("--repeat must be at least 1".into()).into());
            }
            let rules = config.rules(mutators.as_deref())?;
            let loaded = load_all(&suites, &rules)?;
            let checker = config.checker(&checker, (!no_cache).then_some(cache.as_path()))?;
            let strict = check || std::env::var_os("CI").is_some_and(|v| !v.is_empty());
            let mut exit = Exit::Ok;
            let mut out = std::io::stdout().lock();
            let mut runs = score_suites(&loaded, checker.as_ref());
            if repeat > 1 && !faithgate::interrupt::requested() {
                // repeats measure the checker, not the cache
                let fresh = config.checker(checker.name(), None)?;
                let mut extra: Vec<Vec<SuiteRun>> = vec![Vec::new(); runs.len()];
                for _ in 1..repeat {
                    for (i, r) in score_suites(&loaded, fresh.as_ref())
                        .into_iter()
                        .enumerate()
                    {
                        extra[i].push(r);
                    }
                }
                for (run, rest) in runs.iter_mut().zip(&extra) {
                    run.add_repeats(rest);
                }
            }
            if faithgate::interrupt::requested() {
                return Ok(interrupted(&runs, (!no_cache).then_some(cache.as_path())));
            }
            if let Some(path) = &record {
                let rec = Record::new(
                    loaded
                        .iter()
                        .zip(&runs)
                        .map(|((suite, _), run)| RecordRun::from_run(run, &suite.sha256))
                        .collect(),
                );
                rec.write(path)?;
                eprintln!("record written: {}", path.display());
            }
            let mut junit = Vec::new();
            for run in &runs {
                let summary = summarize(run, confidence);
                let text = match format {
                    Format::Human => report::human::render(
                        run,
                        &summary,
                        Paint {
                            color: stdout_color,
                        },
                    ),
                    Format::Json => report::json::render(run, &summary),
                    Format::Markdown => report::markdown::render(run, &summary),
                    Format::Junit => {
                        junit.push(report::junit::testsuite(run));
                        String::new()
                    }
                };
                out.write_all(text.as_bytes())
                    .context("writing the report")?;
                if format == Format::Human && loaded.len() > 1 {
                    writeln!(out)?;
                }
                if run.exit_code() == Exit::CheckerFailed {
                    exit = Exit::CheckerFailed;
                }
                if let Some(dir) = &snapshot {
                    match snapshot::write(dir, run, strict, stderr_color)? {
                        SnapshotStatus::Created(p) => {
                            eprintln!("snapshot written: {}", p.display())
                        }
                        SnapshotStatus::Unchanged(p) => {
                            eprintln!("snapshot unchanged: {}", p.display())
                        }
                        SnapshotStatus::Changed {
                            path,
                            new_path,
                            diff,
                        } => {
                            eprintln!(
                                "snapshot changed: {} (new verdicts in {}; accept with `faithgate snapshot accept {}`)",
                                path.display(),
                                new_path.display(),
                                dir.display()
                            );
                            eprint!("{diff}");
                            if strict && exit == Exit::Ok {
                                exit = Exit::GateFailed;
                            }
                        }
                    }
                }
            }
            if format == Format::Junit {
                out.write_all(report::junit::document(&junit).as_bytes())?;
            }
            Ok(exit)
        }
        Command::Compare {
            inputs,
            checkers,
            alpha,
            max_new_misses,
            format,
            confidence,
            mutators,
            cache,
            no_cache,
        } => {
            check_confidence(confidence)?;
            if !(alpha > 0.0 && alpha < 1.0) {
                return Err(
                    Error::Usage(format!("--alpha {alpha} must be between 0 and 1")).into(),
                );
            }
            let (base, candidate) = match checkers.len() {
                0 => {
                    if inputs.len() != 2 {
                        return Err(Error::Usage(
                            "compare takes two run records (BASE.json CANDIDATE.json), or --checker A --checker B and suites".into(),
                        )
                        .into());
                    }
                    if let (Some(b), Some(c)) = (score_record(&inputs[0]), score_record(&inputs[1]))
                    {
                        let cmp = faithgate::answers::score::compare_answers(
                            &b,
                            &c,
                            faithgate::answers::score::Definition::Strict,
                            alpha,
                            max_new_misses,
                            confidence,
                        );
                        match format {
                            Format::Json => println!("{}", serde_json::to_string(&cmp)?),
                            _ => print!(
                                "{}",
                                report::answers::comparison(
                                    &cmp,
                                    Paint {
                                        color: stdout_color
                                    }
                                )
                            ),
                        }
                        return Ok(cmp.exit_code());
                    }
                    (Record::load(&inputs[0])?, Record::load(&inputs[1])?)
                }
                2 => {
                    if inputs.is_empty() {
                        return Err(Error::Usage(
                            "compare --checker A --checker B needs suite files".into(),
                        )
                        .into());
                    }
                    let rules = config.rules(mutators.as_deref())?;
                    let loaded = load_all(&inputs, &rules)?;
                    let cache_path = (!no_cache).then_some(cache.as_path());
                    let mut records = Vec::new();
                    for name in &checkers {
                        let checker = config.checker(name, cache_path)?;
                        let runs = score_suites(&loaded, checker.as_ref());
                        records.push(Record::new(
                            loaded
                                .iter()
                                .zip(&runs)
                                .map(|((suite, _), run)| RecordRun::from_run(run, &suite.sha256))
                                .collect(),
                        ));
                    }
                    let c = records.pop().expect("two records");
                    (records.pop().expect("two records"), c)
                }
                n => {
                    return Err(Error::Usage(format!(
                    "compare takes --checker exactly twice (base, then candidate), not {n} times"
                ))
                    .into())
                }
            };
            let cmp = compare::compare(&base, &candidate, alpha, max_new_misses, confidence);
            let text = match format {
                Format::Human => report::compare::human(
                    &cmp,
                    Paint {
                        color: stdout_color,
                    },
                ),
                Format::Json => serde_json::to_string(&cmp)? + "\n",
                Format::Markdown => report::compare::markdown(&cmp),
                Format::Junit => report::compare::junit(&cmp),
            };
            print!("{text}");
            Ok(cmp.exit_code())
        }
        Command::Sweep {
            suites,
            checker,
            max_false_alarm,
            calibrate_on,
            margin,
            svg,
            format,
            confidence,
            mutators,
            cache,
            no_cache,
        } => {
            check_confidence(confidence)?;
            for (flag, v) in [
                ("--max-false-alarm", max_false_alarm),
                ("--calibrate-on", calibrate_on),
                ("--margin", Some(margin)),
            ] {
                if let Some(v) = v {
                    let in_range =
                        v > 0.0 && (v < 1.0 || (flag == "--max-false-alarm" && v == 1.0));
                    if !in_range {
                        return Err(
                            Error::Usage(format!("{flag} {v} must be between 0 and 1")).into()
                        );
                    }
                }
            }
            if format == Format::Junit {
                return Err(Error::Usage(
                    "sweep has no JUnit output; use human, json or markdown".into(),
                )
                .into());
            }
            let rules = config.rules(mutators.as_deref())?;
            let loaded = load_all(&suites, &rules)?;
            let checker = config.checker(&checker, (!no_cache).then_some(cache.as_path()))?;
            let runs = score_suites(&loaded, checker.as_ref());
            let records: Vec<RecordRun> = loaded
                .iter()
                .zip(&runs)
                .map(|((suite, _), run)| RecordRun::from_run(run, &suite.sha256))
                .collect();
            let result = faithgate::sweep::run_sweep(
                &records,
                confidence,
                max_false_alarm,
                calibrate_on,
                margin,
            );
            let svg_path = svg.unwrap_or_else(|| {
                PathBuf::from(format!("faithgate-sweep-{}.svg", checker.name()))
            });
            let names: Vec<&str> = loaded.iter().map(|(s, _)| s.name.as_str()).collect();
            let chart = report::svg::sweep_chart(
                &format!("{} on {}", checker.name(), names.join(", ")),
                &result.points,
                result.recommended.as_ref(),
            );
            std::fs::write(&svg_path, chart).map_err(|e| Error::io(&svg_path, e))?;
            eprintln!("chart written: {}", svg_path.display());
            let text = match format {
                Format::Json => serde_json::to_string(&result)? + "\n",
                Format::Markdown => faithgate::sweep::render(&result, true),
                _ => faithgate::sweep::render(&result, false),
            };
            print!("{text}");
            Ok(
                if runs.iter().any(|r| r.exit_code() == Exit::CheckerFailed) {
                    Exit::CheckerFailed
                } else {
                    Exit::Ok
                },
            )
        }
        Command::Report {
            suites,
            checkers,
            out,
            title,
            max_false_alarm,
            confidence,
            mutators,
            cache,
            no_cache,
        } => {
            use faithgate::report::audit::{self, CheckerAudit};
            check_confidence(confidence)?;
            let rules = config.rules(mutators.as_deref())?;
            let loaded = load_all(&suites, &rules)?;
            let names = if checkers.is_empty() {
                vec!["lexical".to_string()]
            } else {
                checkers
            };
            let built: Vec<_> = names
                .iter()
                .map(|n| config.checker(n, (!no_cache).then_some(cache.as_path())))
                .collect::<Result<_, _>>()?;
            let mut audits = Vec::new();
            let mut exit = Exit::Ok;
            for checker in &built {
                let runs = score_suites(&loaded, checker.as_ref());
                if runs.iter().any(|r| r.exit_code() == Exit::CheckerFailed) {
                    exit = Exit::CheckerFailed;
                }
                let records: Vec<RecordRun> = loaded
                    .iter()
                    .zip(&runs)
                    .map(|((suite, _), run)| RecordRun::from_run(run, &suite.sha256))
                    .collect();
                let sweep = faithgate::sweep::run_sweep(
                    &records,
                    confidence,
                    Some(max_false_alarm),
                    None,
                    0.05,
                );
                let chart_svg = report::svg::sweep_chart(
                    &format!("{}: false alarms against detection", checker.name()),
                    &sweep.points,
                    sweep.recommended.as_ref(),
                );
                audits.push(CheckerAudit {
                    checker: checker.name().to_string(),
                    kind: checker.kind().to_string(),
                    settings: checker.settings(),
                    suites: records
                        .into_iter()
                        .zip(runs.iter().map(|r| summarize(r, confidence)))
                        .collect(),
                    sweep,
                    chart_svg,
                });
            }
            std::fs::create_dir_all(&out).map_err(|e| Error::io(&out, e))?;
            let mut charts = Vec::new();
            for a in &audits {
                let name = format!(
                    "sweep-{}.svg",
                    faithgate::snapshot::file_name(&a.checker, "x").trim_end_matches(".x.snap")
                );
                let path = out.join(&name);
                std::fs::write(&path, &a.chart_svg).map_err(|e| Error::io(&path, e))?;
                charts.push(name);
            }
            let html_path = out.join("report.html");
            std::fs::write(&html_path, audit::html(&title, &audits))
                .map_err(|e| Error::io(&html_path, e))?;
            let md_path = out.join("report.md");
            std::fs::write(&md_path, audit::markdown(&title, &audits, &charts))
                .map_err(|e| Error::io(&md_path, e))?;
            println!("{}\n{}", html_path.display(), md_path.display());
            Ok(exit)
        }
        Command::Mutants {
            suites,
            format,
            mutators,
        } => {
            let rules = config.rules(mutators.as_deref())?;
            let loaded = load_all(&suites, &rules)?;
            let mut out = String::new();
            for (suite, set) in &loaded {
                match format {
                    MutantFormat::Yaml => {
                        out.push_str(&format!("# {} ({})\n", suite.name, suite.path.display()));
                        out.push_str(&mutate::reviews_yaml(suite, set));
                    }
                    MutantFormat::Json => {
                        out.push_str(
                            &serde_json::json!({
                                "suite": suite.name,
                                "mutants": set.mutants,
                                "operators_without_mutants": set.empty_operators,
                            })
                            .to_string(),
                        );
                        out.push('\n');
                    }
                    MutantFormat::Human => out.push_str(&mutants_table(suite, set)),
                }
            }
            print!("{out}");
            Ok(Exit::Ok)
        }
        Command::Score {
            log,
            checker,
            decomposer,
            definitions,
            format,
            record,
            html,
            omissions,
            omissions_prompt,
            confidence,
            cache,
            no_cache,
        } => {
            use faithgate::answers::score::{aggregate, find_omissions, score, Definition};
            check_confidence(confidence)?;
            let (answers, bad_lines) = faithgate::answers::load_log(&log)?;
            let decomposer = config.decomposer(&decomposer)?;
            let checker = config.checker(&checker, (!no_cache).then_some(cache.as_path()))?;
            let bar = indicatif::ProgressBar::with_draw_target(
                None,
                indicatif::ProgressDrawTarget::stderr(),
            );
            let omission_client = match &omissions {
                Some(name) => Some(config.llm_client(
                    name,
                    &omissions_prompt,
                    &["{question}", "{answer}", "{passages}"],
                )?),
                None => None,
            };
            let mut rec = score(
                &log.display().to_string(),
                &answers,
                decomposer.as_ref(),
                checker.as_ref(),
                &mut |d, t| {
                    bar.set_length(t as u64);
                    bar.set_position(d as u64);
                },
            );
            bar.finish_and_clear();
            if let Some(client) = &omission_client {
                find_omissions(&mut rec, &answers, client);
            }
            for n in checker.notes() {
                eprintln!("{n}");
            }
            if faithgate::interrupt::requested() {
                eprintln!("interrupted: no report was written; rerun the same command to finish from the cache");
                return Ok(Exit::Interrupted);
            }
            let defs = if definitions.is_empty() {
                vec![Definition::Strict]
            } else {
                definitions
            };
            if let Some(path) = &html {
                let page = report::answers::html(&rec, &defs, confidence);
                std::fs::write(path, page).map_err(|e| Error::io(path, e))?;
                eprintln!("html report written: {}", path.display());
            }
            if let Some(path) = &record {
                let text = serde_json::to_string_pretty(&rec)? + "\n";
                std::fs::write(path, text).map_err(|e| Error::io(path, e))?;
                eprintln!("score record written: {}", path.display());
            }
            let text = match format {
                Format::Json => {
                    let aggs: Vec<_> = defs
                        .iter()
                        .map(|d| aggregate(&rec.answers, *d, confidence))
                        .collect();
                    serde_json::json!({"log": rec.log, "checker": rec.checker, "decomposer": rec.decomposer, "summary": aggs, "answers": rec.answers}).to_string() + "\n"
                }
                Format::Markdown => report::answers::markdown(&rec, &defs, confidence),
                Format::Junit => {
                    return Err(Error::Usage("score has no JUnit output".into()).into())
                }
                Format::Human => report::answers::human(
                    &rec,
                    &defs,
                    confidence,
                    Paint {
                        color: stdout_color,
                    },
                ),
            };
            print!("{text}");
            let any_error = rec
                .answers
                .iter()
                .any(|a| a.error.is_some() || a.claims.iter().any(|c| c.error.is_some()));
            if !bad_lines.is_empty() {
                for e in &bad_lines {
                    eprintln!("error: {e}");
                }
                return Ok(Exit::Usage);
            }
            Ok(if any_error {
                Exit::CheckerFailed
            } else {
                Exit::Ok
            })
        }
        Command::OmissionsEval {
            file,
            omissions,
            omissions_prompt,
        } => {
            use faithgate::answers::eval::{evaluate_omissions, load_omission_cases};
            let cases = load_omission_cases(&file)?;
            let client = config.llm_client(
                &omissions,
                &omissions_prompt,
                &["{question}", "{answer}", "{passages}"],
            )?;
            let flags: Vec<Result<Vec<String>, String>> = cases
                .iter()
                .map(|c| {
                    let a = c.logged();
                    let prompt = client.fill(&[
                        ("question", &a.question),
                        ("answer", &a.answer),
                        (
                            "passages",
                            &faithgate::check::judge::render_passages(&a.passages()),
                        ),
                    ]);
                    client.complete(&prompt, &faithgate::answers::decompose::parse_claims)
                })
                .collect();
            let e = evaluate_omissions(&cases, &flags);
            let f = |x: Option<f64>| x.map(|v| format!("{v:.2}")).unwrap_or_else(|| "-".into());
            println!(
                "omissions check on {} answers: {} flags, {} match an omission a person confirmed (precision {}); {} of {} confirmed omissions found (recall {})",
                e.answers, e.flagged, e.true_flags, f(e.precision), e.found, e.confirmed, f(e.recall)
            );
            for (id, flag, hit) in &e.flags {
                println!(
                    "  {:<14} {:<6} {flag}",
                    id,
                    if *hit { "real" } else { "noise" }
                );
            }
            for (id, err) in &e.errors {
                println!("  {id:<14} error  {err}");
            }
            Ok(if e.errors.is_empty() {
                Exit::Ok
            } else {
                Exit::CheckerFailed
            })
        }
        Command::DecomposeEval {
            file,
            decomposer,
            format,
        } => {
            let items = faithgate::answers::eval::load(&file)?;
            let d = config.decomposer(&decomposer)?;
            let e = faithgate::answers::eval::evaluate(&items, d.as_ref());
            match format {
                Format::Json => println!("{}", serde_json::to_string(&e)?),
                _ => print!("{}", faithgate::answers::eval::render(&e)),
            }
            Ok(if e.answers.iter().any(|a| a.error.is_some()) {
                Exit::CheckerFailed
            } else {
                Exit::Ok
            })
        }
        Command::Probe {
            checker,
            premise,
            claim,
        } => {
            let checker = config.checker(&checker, None)?;
            let values = checker
                .probe(&premise, &claim)
                .map_err(|e| anyhow::anyhow!("{}: {e}", checker.name()))?;
            println!("{} ({})", checker.name(), checker.kind());
            for (k, v) in values {
                println!("  {k:<14} {v:.3}");
            }
            Ok(Exit::Ok)
        }
        Command::Doctor => Ok(doctor(&config)),
        Command::Stats { what } => stats(what),
        Command::Snapshot {
            action: SnapshotAction::Accept { dir },
        } => {
            let done = snapshot::accept(&dir)?;
            if done.is_empty() {
                println!("no .snap.new files in {}", dir.display());
            }
            for p in done {
                println!("accepted {}", p.display());
            }
            Ok(Exit::Ok)
        }
    }
}

fn check_confidence(c: f64) -> Result<(), Error> {
    if c > 0.0 && c < 1.0 {
        Ok(())
    } else {
        Err(Error::Usage(format!(
            "--confidence {c} must be between 0 and 1 (e.g. 0.95)"
        )))
    }
}

fn stats(what: StatsCommand) -> anyhow::Result<Exit> {
    use faithgate::stats;
    match what {
        StatsCommand::Wilson { k, n, confidence } => {
            check_confidence(confidence)?;
            if k > n {
                return Err(Error::Usage(format!("K ({k}) cannot exceed N ({n})")).into());
            }
            let r = stats::Rate::new(k, n, confidence);
            println!(
                "{k}/{n}  rate {}  {}% Wilson interval [{:.4}, {:.4}]",
                report::fmt_rate(r.rate),
                (confidence * 100.0).round(),
                r.ci_low,
                r.ci_high
            );
        }
        StatsCommand::Mcnemar { b, c } => {
            println!(
                "b={b} c={c}  exact two-sided McNemar p = {:.4} ({} discordant pairs)",
                stats::mcnemar_exact(b, c),
                b + c
            );
        }
        StatsCommand::SampleSize {
            rate,
            margin,
            confidence,
        } => {
            check_confidence(confidence)?;
            if !((0.0..=1.0).contains(&rate) && margin > 0.0 && margin < 1.0) {
                return Err(
                    Error::Usage("--rate must be in [0, 1] and --margin in (0, 1)".into()).into(),
                );
            }
            println!(
                "{} labelled cases to pin a rate near {rate} to within ±{margin} at {}% confidence",
                stats::sample_size(rate, margin, confidence),
                (confidence * 100.0).round()
            );
        }
    }
    Ok(Exit::Ok)
}

fn doctor(config: &Config) -> Exit {
    use faithgate::check::onnx::{self, Model};
    let mut ok = true;
    match onnx::runtime() {
        Ok(rt) => println!(
            "onnx runtime: {} (version {})",
            rt.path.display(),
            onnx::runtime_version(&rt.path)
        ),
        Err(e) => {
            ok = false;
            println!("onnx runtime: MISSING: {e}");
        }
    }
    match &config.path {
        Some(p) => println!("config: {}", p.display()),
        None => println!("config: none (no ./faithgate.yaml; only the built-in `lexical` checker)"),
    }
    println!("checker lexical: built in, always available");
    for (name, c) in &config.checkers {
        if let Err(e) = config.validate(name) {
            ok = false;
            println!("checker {name}: PROBLEM: {e}");
            continue;
        }
        let Some(dir) = config.model_dir(name) else {
            println!("checker {name}: kind {}", c.kind);
            continue;
        };
        match Model::load(&dir, 1) {
            Ok(m) => {
                println!(
                    "checker {name}: kind {}, model {} (sha256 {}…, max {} tokens)",
                    c.kind,
                    dir.display(),
                    m.hash,
                    m.max_len
                );
                for p in &m.inputs {
                    println!("  input  {:<20} {}", p.name, p.description);
                }
                for p in &m.outputs {
                    println!("  output {:<20} {}", p.name, p.description);
                }
                if c.kind == "nli" {
                    println!("  labels {}", m.labels.join(", "));
                    if !m.labels.iter().any(|l| l.contains("entail")) {
                        ok = false;
                        println!("  PROBLEM: no entailment label in config.json id2label; export the model with its labels (optimum does)");
                    }
                }
            }
            Err(e) => {
                ok = false;
                println!("checker {name}: PROBLEM: {e}");
            }
        }
    }
    if ok {
        println!("all good");
        Exit::Ok
    } else {
        Exit::Usage
    }
}

fn mutants_table(suite: &Suite, set: &MutantSet) -> String {
    let mut o = format!("{} ({})\n", suite.name, suite.path.display());
    let counts: Vec<String> = set
        .counts()
        .iter()
        .map(|(op, n)| format!("{op} {n}"))
        .collect();
    o.push_str(&format!(
        "{} mutants: {}\n",
        set.mutants.len(),
        counts.join(", ")
    ));
    for op in &set.empty_operators {
        o.push_str(&format!(
            "note: {op} produced no mutant on this suite (no claim matches its rules)\n"
        ));
    }
    o.push_str(&format!(
        "{:<11} {:<18} {:<7} {:<11} {}\n",
        "id", "operator", "parent", "review", "text"
    ));
    for m in &set.mutants {
        o.push_str(&format!(
            "{:<11} {:<18} {:<7} {:<11} {}\n",
            m.id,
            m.operator,
            m.parent,
            m.review.as_str(),
            m.text
        ));
    }
    o
}
