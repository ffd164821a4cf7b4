//! `faithprobe score`: decompose, verify and score logged answers, streamed in chunks so a log
//! of any size runs in bounded memory.

use super::{CacheArgs, ConfidenceArg, Ctx};
use clap::{Args, ValueEnum};
use faithprobe::answers::decompose::Decomposer;
use faithprobe::answers::log::LogReader;
use faithprobe::answers::pipeline;
use faithprobe::answers::score::{checker_name, Definition, ScoreRecord, SCORE_RECORD_VERSION};
use faithprobe::answers::spool::Spool;
use faithprobe::answers::tally::{ScoreSummary, Tally, TallyOptions};
use faithprobe::check::Checker;
use faithprobe::error::{Error, Exit};
use faithprobe::model::shard::Shard;
use faithprobe::report::answers::document;
use std::io::Write;
use std::path::PathBuf;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ScoreFormat {
    Human,
    Json,
    Markdown,
}

/// A scoring rule (repeat `--definition` to show both side by side).
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DefinitionArg {
    /// Only `supported` counts as faithful.
    Strict,
    /// Anything but `contradicted` counts as faithful.
    NonContradiction,
}

impl From<DefinitionArg> for Definition {
    fn from(d: DefinitionArg) -> Self {
        match d {
            DefinitionArg::Strict => Definition::Strict,
            DefinitionArg::NonContradiction => Definition::NonContradiction,
        }
    }
}

/// Which claims `--add-to` appends.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AddWhich {
    Flagged,
    All,
}

/// Which answers the human and Markdown reports list.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ShowArg {
    /// The worst answers (errors, then the lowest share of supported claims); see --worst.
    Worst,
    /// Every answer, in log order.
    All,
    /// The summary only.
    None,
}

/// Score logged answers: split each into claims, verify every claim against the context set that
/// was in its prompt, and report faithfulness with the evidence for every verdict.
#[derive(Args, Clone)]
pub struct ScoreArgs {
    /// The log: JSON Lines (one answer per line, streamed; `-` reads standard input, and a pipe
    /// or FIFO is read as it comes) or YAML (a list).
    pub log: PathBuf,
    #[arg(long, default_value = "lexical")]
    pub checker: String,
    #[arg(long, default_value = "sentences")]
    pub decomposer: String,
    /// Scoring rule to show; repeat the flag to show both side by side (default strict).
    #[arg(long = "definition", value_enum)]
    pub definitions: Vec<DefinitionArg>,
    #[arg(long, value_enum, default_value_t = ScoreFormat::Human)]
    pub format: ScoreFormat,
    /// Which answers the human and Markdown reports list (JSON and HTML have every answer).
    #[arg(long, value_enum, default_value_t = ShowArg::Worst)]
    pub show: ShowArg,
    /// How many of the worst answers to list.
    #[arg(long, default_value_t = 10)]
    pub worst: usize,
    /// Passages given once, referenced from answers by `"context": ID` (JSON Lines of
    /// {id, text} or {id, passages}).
    #[arg(long)]
    pub contexts: Option<PathBuf>,
    /// A person's labels by answer id (JSON Lines of {id, hallucinated, types}); overrides a
    /// `label` in the log. With labels, the report shows the checker's agreement with them.
    #[arg(long)]
    pub labels: Option<PathBuf>,
    /// With labels: recommend the answer-level threshold on the lowest claim score that keeps
    /// false alarms at or under this rate.
    #[arg(long)]
    pub max_false_alarm: Option<f64>,
    /// With labels and --max-false-alarm: choose the threshold on this fraction of the answers
    /// and report the rest as held out.
    #[arg(long)]
    pub calibrate_on: Option<f64>,
    /// Answers that share this key's value are one cluster (`question`, `context`, or a key of
    /// the log such as `source_id`): cluster-aware intervals on the unsupported-answer rate, and
    /// `--calibrate-on` keeps each cluster on one side. Answers to one source are not
    /// independent.
    #[arg(long)]
    pub cluster_by: Option<String>,
    /// Correct the unsupported-claim rate for this checker's errors as a suite run measured
    /// them: a run record (`run SUITE --record FILE.json`) of the same checker on a suite with
    /// real labelled errors (hard cases imported from labelled output) and verified claims.
    #[arg(long, value_name = "RUN_RECORD")]
    pub correct_with: Option<PathBuf>,
    /// With labels: also report agreement within each value of this key (a dataset, a source
    /// type) and its macro-average, and warn when the pooled figure is above every stratum's.
    #[arg(long)]
    pub stratify_by: Option<String>,
    /// When an answer counts as unsupported: `any` claim not faithful (the default), or more
    /// than a share R of its claims (`share:R`, e.g. `share:0.5`). The report shows the rate
    /// under `any` and shares 0.25, 0.5 and 0.75 side by side either way.
    #[arg(long, default_value = "any", value_parser = faithprobe::answers::score::AnswerRule::parse)]
    pub answer_rule: faithprobe::answers::score::AnswerRule,
    /// Score only part K of N of the log (by a hash of the answer id); `faithprobe merge` joins
    /// the shard records into the record of the whole log.
    #[arg(long, value_parser = Shard::parse)]
    pub shard: Option<Shard>,
    /// Save a score record for `compare` and `merge`.
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// Append the claims this score flagged (or all, with --add-which all) to this suite as
    /// pending claims with their passages (the suite is made when it does not exist), so a
    /// production miss becomes a case to verify in `faithprobe review`.
    #[arg(long, value_name = "SUITE")]
    pub add_to: Option<PathBuf>,
    /// With --add-to: `flagged` (claims not faithful under the first definition) or `all`.
    #[arg(long, value_enum, default_value_t = AddWhich::Flagged, requires = "add_to")]
    pub add_which: AddWhich,
    /// Also write the report as one self-contained HTML file (every answer).
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// Ask this judge checker, once per answer, which conditions in the passages the answer
    /// leaves out: a review queue, never a gate.
    #[arg(long)]
    pub omissions: Option<String>,
    /// The prompt template of the omissions check.
    #[arg(long, default_value = "prompts/omissions-v1.md")]
    pub omissions_prompt: PathBuf,
    #[command(flatten)]
    pub confidence: ConfidenceArg,
    #[command(flatten)]
    pub cache: CacheArgs,
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

pub fn run(args: ScoreArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let confidence = args.confidence.checked()?;
    args.max_cost.apply()?;
    // a threshold chosen on claim scores needs each claim's best one
    faithprobe::check::nli::set_full_scan(args.full_scan || args.max_false_alarm.is_some());
    shares_in_range(&args)?;
    guard(&args, ctx)?;
    let config = ctx.config()?;
    let reader = LogReader::open(
        &args.log,
        args.contexts.as_deref(),
        args.labels.as_deref(),
        args.shard,
    )?;
    let decomposer = config.decomposer(&args.decomposer)?;
    let checker = config.checker(&args.checker, args.cache.path())?;
    let omission_client = match &args.omissions {
        Some(name) => Some(config.llm_client(
            name,
            &args.omissions_prompt,
            &["{question}", "{answer}", "{passages}"],
        )?),
        None => None,
    };
    let defs = definitions(&args);
    let calibration = match &args.correct_with {
        Some(p) => Some(calibration(p, checker.as_ref(), &defs)?),
        None => None,
    };
    let tally = tally(&args, &defs, confidence, calibration);
    let head = head(&args, checker.as_ref(), decomposer.as_ref());
    // progress by the work: bytes of the log read, not answers (later answers may have longer
    // passages)
    let log_bytes = log_bytes(&args);
    let mut progress = super::Progress::new("score", "answers", log_bytes);
    // the notes after the run cover every chunk of the log, not the last one
    checker.start_notes();
    let scored = pipeline::score_log(
        reader,
        decomposer.as_ref(),
        checker.as_ref(),
        omission_client.as_ref(),
        tally,
        head,
        &mut |done, read| progress.set_by_work(done as u64, read, log_bytes),
    )?;
    progress.finish();
    for n in checker.notes().into_iter().chain(decomposer.notes()) {
        errln!("{n}");
    }
    if let Some(exit) = submit_batch(&args, &scored, checker.as_ref())? {
        return Ok(exit);
    }
    let pipeline::Scored {
        head,
        mut tally,
        mut spool,
        done,
        bad_lines,
        more_bad,
        queue,
        interrupted,
        without_passages,
        unmatched_labels,
    } = scored;
    if interrupted {
        errln!(
            "interrupted after {done} answers: no report was written; rerun the same command to finish from the cache"
        );
        return Ok(Exit::Interrupted);
    }
    if done == 0 && bad_lines.is_empty() {
        match args.shard {
            None => {
                return Err(Error::Usage(format!(
                "{} has no answers: nothing was scored (one JSON object per line, or a YAML list)",
                args.log.display()
            ))
                .into())
            }
            Some(s) => errln!(
                "warning: shard {s} owns no answer of {}; its record is empty",
                args.log.display()
            ),
        }
    }
    warn_about_inputs(done, &without_passages, &unmatched_labels);
    // a --cluster-by or --stratify-by key no answer carries is a typo: nothing is written
    tally.check_keys(&args.log.display().to_string())?;
    let summary = tally.summary();
    let any_error = summary.definitions[0].errors > 0;

    write_files(&args, &head, &summary, &mut spool)?;
    if let Some(suite) = &args.add_to {
        add_to(&args, suite, defs[0], &mut spool)?;
    }
    let mut doc = document::Document {
        head: &head,
        summary: &summary,
        tally: &mut tally,
        queue: &queue,
        main: defs[0],
        confidence,
    };
    write_stdout(&args, ctx, &mut doc, &mut spool)?;
    Ok(finish(&bad_lines, more_bad, any_error, &args.log))
}

/// Under `--batch`: submits what the scoring queued (exit 6), unless it was interrupted.
fn submit_batch(
    args: &ScoreArgs,
    scored: &pipeline::Scored,
    checker: &dyn faithprobe::check::Checker,
) -> anyhow::Result<Option<Exit>> {
    if scored.interrupted {
        return Ok(None);
    }
    super::batch::after_scoring(
        &args.batch,
        args.cache.path(),
        &[args.log.as_path()],
        checker.settings(),
    )
}

/// `--max-false-alarm` and `--calibrate-on` are shares strictly between 0 and 1.
fn shares_in_range(args: &ScoreArgs) -> Result<(), Error> {
    for (flag, v) in [
        ("--max-false-alarm", args.max_false_alarm),
        ("--calibrate-on", args.calibrate_on),
    ] {
        if let Some(v) = v {
            if !(v > 0.0 && v < 1.0) {
                return Err(Error::Usage(format!("{flag} {v} must be between 0 and 1")));
            }
        }
    }
    Ok(())
}

/// The tally of the answers under `defs`, with the summary's options from the flags.
fn tally(
    args: &ScoreArgs,
    defs: &[Definition],
    confidence: f64,
    calibration: Option<Vec<faithprobe::stats::correct::Calibration>>,
) -> Tally {
    Tally::new(TallyOptions {
        definitions: defs.to_vec(),
        confidence,
        worst: match args.show {
            ShowArg::Worst => args.worst,
            _ => 0,
        },
        max_false_alarm: args.max_false_alarm,
        calibrate_on: args.calibrate_on,
        cluster_by: args.cluster_by.clone(),
        stratify_by: args.stratify_by.clone(),
        answer_rule: args.answer_rule,
        calibration,
    })
}

/// The checker's claim-level sensitivity (on the real labelled errors) and specificity (on
/// the verified claims and the hard cases labelled supported) in a run record, per definition.
/// The record must be of the checker that scores the log and hold real errors: a calibration
/// of another checker, or of mutants only, is refused.
fn calibration(
    path: &std::path::Path,
    checker: &dyn Checker,
    defs: &[Definition],
) -> anyhow::Result<Vec<faithprobe::stats::correct::Calibration>> {
    use faithprobe::engine::record::AnyRecord;
    use faithprobe::model::case::{CaseKind, Role};
    let fix = "run the suite with the checker that scores the log: `faithprobe run SUITE --checker NAME --record FILE.json`";
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    if !AnyRecord::looks_like_record(&bytes) {
        return Err(Error::input(
            path,
            None,
            "not a run record: --correct-with takes the JSON file `faithprobe run SUITE --record FILE.json` writes",
            fix,
        )
        .into());
    }
    let record = match AnyRecord::from_bytes(path, bytes)? {
        AnyRecord::Run(r) => r,
        AnyRecord::Score(_) => {
            return Err(Error::input(
                path,
                None,
                "a score record, not a run record: --correct-with needs a suite's run record",
                fix,
            )
            .into())
        }
    };
    let want = (checker.name(), checker.kind());
    if let Some(run) = record
        .runs
        .iter()
        .find(|r| (r.checker.name.as_str(), r.checker.kind.as_str()) != want)
    {
        return Err(Error::input(
            path,
            None,
            format!(
                "the record is of checker `{}` ({}), not of `{}` ({}), which scores this log: its errors say nothing about this checker",
                faithprobe::text::escape::printable(&run.checker.name),
                faithprobe::text::escape::printable(&run.checker.kind),
                want.0,
                want.1
            ),
            fix,
        )
        .into());
    }
    let settings = checker.settings();
    if let Some(run) = record.runs.iter().find(|r| r.checker.settings != settings) {
        let show = |m: &std::collections::BTreeMap<String, String>| {
            m.iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Err(Error::input(
            path,
            None,
            format!(
                "the record's checker `{}` ran with other settings ({}) than the one scoring this log ({}): its errors are another checker's",
                want.0,
                faithprobe::text::escape::printable(&show(&run.checker.settings)),
                show(&settings)
            ),
            fix,
        )
        .into());
    }
    let cases = record.runs.iter().flat_map(|r| &r.cases);
    let mut out = vec![faithprobe::stats::correct::Calibration::default(); defs.len()];
    for c in cases {
        let Some(verdict) = c.verdict else { continue }; // an error says nothing either way
        for (cal, d) in out.iter_mut().zip(defs) {
            let flagged = !d.faithful(verdict);
            match c.role() {
                Role::Fault if c.real => {
                    cal.errors += 1;
                    cal.caught += u64::from(flagged);
                }
                Role::FalseAlarmOpportunity
                    if matches!(c.kind, CaseKind::Original | CaseKind::HardCase) =>
                {
                    cal.faithful += 1;
                    cal.passed += u64::from(!flagged);
                }
                _ => {}
            }
        }
    }
    if out[0].errors == 0 {
        return Err(Error::input(
            path,
            None,
            "the record has no scored real errors (hard cases from labelled output that are not labelled supported): mutants measure made-up faults, not the checker's sensitivity on this log's errors",
            "add real errors to a suite as hard cases with `source: real` (or import labelled output: `faithprobe import ragtruth DIR --log LOG.jsonl --hard-cases SUITE.yaml`), run it with `faithprobe run SUITE.yaml --record RUN.json`, and pass --correct-with RUN.json",
        )
        .into());
    }
    Ok(out)
}

/// The score record's head: the log, the checker and the decomposer (the log's fingerprint and
/// the lines not read are filled in as it is read).
fn head(args: &ScoreArgs, checker: &dyn Checker, decomposer: &dyn Decomposer) -> ScoreRecord {
    ScoreRecord {
        version: SCORE_RECORD_VERSION,
        log: args.log.display().to_string(),
        log_sha256: String::new(),
        checker: checker_name(checker),
        checker_settings: checker.settings(),
        decomposer: decomposer.describe(),
        lines_not_read: 0,
        shard: args.shard,
        answers: Vec::new(),
    }
}

/// The files asked for: the HTML report (`--html`) and the score record (`--record`).
fn write_files(
    args: &ScoreArgs,
    head: &ScoreRecord,
    summary: &ScoreSummary,
    spool: &mut Spool,
) -> anyhow::Result<()> {
    if let Some(path) = &args.html {
        faithprobe::io::write::write_atomic_from(path, &mut |w| {
            document::write_html(w, head, summary, Box::new(spool.answers()?))
                .map_err(|e| Error::write(path, e))
        })?;
        errln!("html report written: {}", path.display());
    }
    if let Some(path) = &args.record {
        faithprobe::engine::record::write_score_record(path, head, &mut spool.answers()?)?;
        errln!("score record written: {}", path.display());
    }
    Ok(())
}

/// The report on stdout, in `--format`, listing the answers `--show` asks for.
fn write_stdout(
    args: &ScoreArgs,
    ctx: &Ctx,
    doc: &mut document::Document,
    spool: &mut Spool,
) -> anyhow::Result<()> {
    let show = match args.show {
        ShowArg::Worst => document::Show::Worst,
        ShowArg::All => document::Show::All,
        ShowArg::None => document::Show::None,
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let answers = Box::new(spool.answers()?);
    let written = match args.format {
        ScoreFormat::Json => document::write_json(&mut out, doc, answers),
        ScoreFormat::Human => document::write_human(&mut out, doc, show, ctx.paint(), answers),
        ScoreFormat::Markdown => document::write_markdown(&mut out, doc, show, answers),
    }
    .and_then(|_| out.flush());
    written.map_err(|e| Error::write(std::path::Path::new("<stdout>"), e))?;
    Ok(())
}

/// Appends the scored claims `--add-which` names to the suite at `path` as pending claims, with
/// the passages of their answers (read again from the log), and says so on stderr.
fn add_to(
    args: &ScoreArgs,
    path: &std::path::Path,
    def: Definition,
    spool: &mut Spool,
) -> anyhow::Result<()> {
    use faithprobe::engine::from_log::{Built, FromLogOptions, Taken};
    let existing = if path.exists() {
        Some(faithprobe::model::suite::Suite::load(path)?)
    } else {
        None
    };
    let (mut used, known, _) = super::suite::existing_ids(existing.as_ref());
    let mut taken = Vec::new();
    let mut ids = std::collections::HashSet::new();
    let mut built = Built::default();
    for a in spool.answers()? {
        let a = a?;
        built.answers += 1;
        for (n, c) in a.claims.iter().enumerate() {
            let flagged = !c.verdict.is_some_and(|v| def.faithful(v));
            if (args.add_which == AddWhich::Flagged && !flagged)
                || known.contains(&(a.id.clone(), c.text.clone()))
            {
                continue;
            }
            built.claims_found += 1;
            let id = faithprobe::engine::from_log::claim_id(&mut used, &a.id, n);
            ids.insert(a.id.clone());
            taken.push(Taken {
                context: a
                    .context
                    .clone()
                    .unwrap_or_else(|| format!("answer-{}", a.id)),
                id,
                claim: c.text.clone(),
                answer: a.id.clone(),
                tag: a.tag.clone(),
                stratum: String::new(),
            });
        }
    }
    if taken.is_empty() {
        errln!(
            "--add-to {}: no claim to add (none flagged, or all already in the suite)",
            path.display()
        );
        return Ok(());
    }
    let mut answers = Vec::new();
    for a in LogReader::open(&args.log, args.contexts.as_deref(), None, None)? {
        match a {
            Ok(a) if ids.contains(&a.id) => answers.push(a),
            _ => {}
        }
    }
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "from-log".into());
    super::suite::write_taken(
        path,
        &args.log,
        &name,
        taken,
        &answers,
        existing.as_ref(),
        &FromLogOptions::default(),
        &mut built,
    )?;
    errln!(
        "--add-to {}: {} claims added as pending, in {} context sets; verify them: faithprobe review {}",
        path.display(),
        built.taken,
        built.contexts,
        super::shell_paths(std::iter::once(path))
    );
    Ok(())
}

/// Reports the malformed records and picks the exit code: 3 when the checker failed on some
/// answer, 5 when some records were skipped (the rest ran and was written), else 0.
fn finish(bad_lines: &[Error], more_bad: usize, any_error: bool, log: &std::path::Path) -> Exit {
    for e in bad_lines {
        errln!("error: {e}");
    }
    if more_bad > 0 {
        errln!(
            "error: {more_bad} more records of {} are not logged answers",
            log.display()
        );
    }
    Exit::worst_of(
        [
            any_error.then_some(Exit::CheckerFailed),
            (!bad_lines.is_empty()).then_some(Exit::PartialInput),
        ]
        .into_iter()
        .flatten(),
    )
}

/// Refuses, before any work, an output that is an input or another output.
fn guard(args: &ScoreArgs, ctx: &Ctx) -> Result<(), Error> {
    if args.batch.batch == Some(super::batch::BatchMode::Wait) && args.log.as_os_str() == "-" {
        return Err(Error::Usage(
            "--batch wait reads the log again after each batch: give a file, not `-`".into(),
        ));
    }
    let mut inputs: Vec<(&str, &std::path::Path)> = vec![("the log", &args.log)];
    if let Some(c) = &args.contexts {
        inputs.push(("--contexts", c));
    }
    if let Some(l) = &args.labels {
        inputs.push(("--labels", l));
    }
    if let Some(r) = &args.correct_with {
        inputs.push(("--correct-with", r));
    }
    let mut outputs: Vec<(&str, &std::path::Path)> = Vec::new();
    if let Some(r) = &args.record {
        outputs.push(("--record", r));
    }
    if let Some(h) = &args.html {
        outputs.push(("--html", h));
    }
    if let Some(a) = &args.add_to {
        outputs.push(("--add-to", a));
        if !std::fs::metadata(&args.log).is_ok_and(|m| m.is_file()) {
            return Err(Error::Usage(format!(
                "--add-to reads the log again for the passages: {} is not a file (standard input or a pipe is read once); write the log to a file first",
                args.log.display()
            )));
        }
    }
    if let Some(c) = args.cache.path() {
        outputs.push(("--cache", c));
    }
    super::guard_outputs(ctx, &inputs, &outputs)
}

/// The definitions asked for, each once, in order (strict by default).
fn definitions(args: &ScoreArgs) -> Vec<Definition> {
    if args.definitions.is_empty() {
        return vec![Definition::Strict];
    }
    let mut d: Vec<Definition> = Vec::new();
    for x in &args.definitions {
        let x: Definition = (*x).into();
        if !d.contains(&x) {
            d.push(x);
        }
    }
    d
}

/// The size of the log in bytes, for progress: known only for a regular JSON Lines file (a pipe,
/// FIFO or stdin can be read once; a YAML log is read whole before scoring starts). A shard reads
/// every line of the log too, so the bytes read measure its progress as well.
fn log_bytes(args: &ScoreArgs) -> Option<u64> {
    let yaml = matches!(
        args.log.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml")
    );
    std::fs::metadata(&args.log)
        .ok()
        .filter(|m| m.is_file() && !yaml)
        .map(|m| m.len())
}

/// Warnings about what the log holds: answers with no passage text, labels that match nothing.
fn warn_about_inputs(
    done: usize,
    without_passages: &[(String, Option<usize>)],
    unmatched: &[String],
) {
    if let Some((id, line)) = without_passages.first() {
        errln!(
            "warning: {} of {done} answers have no passage text (first: `{id}`{}); none of their claims can be supported: check the log's passages",
            without_passages.len(),
            line.map(|l| format!(" on line {l}")).unwrap_or_default()
        );
    }
    if let Some(first) = unmatched.first() {
        errln!(
            "warning: {} labels match no answer of the log (first: `{first}`)",
            unmatched.len()
        );
    }
}
