//! `faithprobe score`: decompose, verify and score logged answers, streamed in chunks so a log
//! of any size runs in bounded memory.

use super::{CacheArgs, ConfidenceArg, Ctx};
use clap::{Args, ValueEnum};
use faithprobe::answers::log::LogReader;
use faithprobe::answers::score::{
    checker_name, find_omissions, score_chunk, Definition, ScoreRecord, SCORE_RECORD_VERSION,
};
use faithprobe::answers::spool::Spool;
use faithprobe::answers::tally::{Tally, TallyOptions};
use faithprobe::error::{Error, Exit};
use faithprobe::report;
use faithprobe::report::answers::Head;
use faithprobe::shard::Shard;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

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

/// Answers scored per checker call: large enough to batch, small enough to bound memory.
const CHUNK: usize = 256;
/// Malformed log lines reported one by one; the rest are counted.
const MAX_SHOWN_ERRORS: usize = 20;
/// Answers listed in the human report's omissions review queue (all are in JSON and HTML).
const MAX_QUEUE: usize = 500;

/// Score logged answers: split each into claims, verify every claim against the context set that
/// was in its prompt, and report faithfulness with the evidence for every verdict.
#[derive(Args)]
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
    /// Score only part K of N of the log (by a hash of the answer id); `faithprobe merge` joins
    /// the shard records into the record of the whole log.
    #[arg(long, value_parser = Shard::parse)]
    pub shard: Option<Shard>,
    /// Save a score record for `compare` and `merge`.
    #[arg(long)]
    pub record: Option<PathBuf>,
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
}

/// A cheap count of the records in a JSON Lines log (non-blank lines), for progress.
fn count_records(path: &std::path::Path) -> Option<usize> {
    use std::io::BufRead;
    let f = std::fs::File::open(path).ok()?;
    let mut r = std::io::BufReader::with_capacity(1 << 16, f);
    let mut n = 0;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        if r.read_until(b'\n', &mut buf).ok()? == 0 {
            return Some(n);
        }
        if buf.iter().any(|b| !b.is_ascii_whitespace()) {
            n += 1;
        }
    }
}

pub fn run(args: ScoreArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let confidence = args.confidence.checked()?;
    for (flag, v) in [
        ("--max-false-alarm", args.max_false_alarm),
        ("--calibrate-on", args.calibrate_on),
    ] {
        if let Some(v) = v {
            if !(v > 0.0 && v < 1.0) {
                return Err(Error::Usage(format!("{flag} {v} must be between 0 and 1")).into());
            }
        }
    }
    {
        let mut inputs: Vec<(&str, &std::path::Path)> = vec![("the log", &args.log)];
        if let Some(c) = &args.contexts {
            inputs.push(("--contexts", c));
        }
        if let Some(l) = &args.labels {
            inputs.push(("--labels", l));
        }
        let mut outputs: Vec<(&str, &std::path::Path)> = Vec::new();
        if let Some(r) = &args.record {
            outputs.push(("--record", r));
        }
        if let Some(h) = &args.html {
            outputs.push(("--html", h));
        }
        if let Some(c) = args.cache.path() {
            outputs.push(("--cache", c));
        }
        super::guard_outputs(ctx, &inputs, &outputs)?;
    }
    let config = ctx.config()?;
    let mut reader = LogReader::open(
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
    let defs: Vec<Definition> = if args.definitions.is_empty() {
        vec![Definition::Strict]
    } else {
        let mut d: Vec<Definition> = Vec::new();
        for x in &args.definitions {
            let x: Definition = (*x).into();
            if !d.contains(&x) {
                d.push(x);
            }
        }
        d
    };
    let mut tally = Tally::new(TallyOptions {
        definitions: defs.clone(),
        confidence,
        worst: match args.show {
            ShowArg::Worst => args.worst,
            _ => 0,
        },
        max_false_alarm: args.max_false_alarm,
        calibrate_on: args.calibrate_on,
    });
    let mut spool = Spool::new()?;
    let mut head = ScoreRecord {
        version: SCORE_RECORD_VERSION,
        log: args.log.display().to_string(),
        log_sha256: String::new(),
        checker: checker_name(checker.as_ref()),
        checker_settings: checker.settings(),
        decomposer: decomposer.describe(),
        lines_not_read: 0,
        shard: args.shard,
        answers: Vec::new(),
    };

    // progress: a bar on a terminal, a plain line every few seconds otherwise
    // counted ahead only in a regular file: a pipe, FIFO or stdin can be read once
    let regular = std::fs::metadata(&args.log).is_ok_and(|m| m.is_file());
    let total = if !regular
        || matches!(
            args.log.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml")
        ) {
        None
    } else {
        count_records(&args.log).map(|n| match args.shard {
            Some(s) => n.div_ceil(s.n as usize),
            None => n,
        })
    };
    let terminal = std::io::stderr().is_terminal();
    let bar = if terminal {
        indicatif::ProgressBar::with_draw_target(
            total.map(|t| t as u64),
            indicatif::ProgressDrawTarget::stderr(),
        )
    } else {
        indicatif::ProgressBar::hidden()
    };
    let started = Instant::now();
    let mut last_line = Instant::now();

    let mut bad_lines: Vec<Error> = Vec::new();
    let mut more_bad = 0usize;
    let mut done = 0usize;
    let mut chunk = Vec::with_capacity(CHUNK);
    let mut ended = false;
    let mut queue: Vec<(String, Result<Vec<String>, String>)> = Vec::new();
    while !ended {
        chunk.clear();
        while chunk.len() < CHUNK {
            match reader.next() {
                None => {
                    ended = true;
                    break;
                }
                Some(Ok(a)) => chunk.push(a),
                Some(Err(e @ Error::Input { .. })) => {
                    if bad_lines.len() < MAX_SHOWN_ERRORS {
                        bad_lines.push(e);
                    } else {
                        more_bad += 1;
                    }
                }
                Some(Err(e)) => return Err(e.into()),
            }
        }
        if chunk.is_empty() {
            break;
        }
        let mut results = score_chunk(
            &chunk,
            decomposer.as_ref(),
            checker.as_ref(),
            &mut |_, _| {},
        );
        if let Some(client) = &omission_client {
            find_omissions(&mut results, &chunk, client);
        }
        for r in &results {
            if let Some(o) = &r.omissions {
                if queue.len() < MAX_QUEUE && o.as_ref().map_or(true, |l| !l.is_empty()) {
                    queue.push((r.id.clone(), o.clone()));
                }
            }
            tally.add(r);
            spool.push(r)?;
        }
        done += results.len();
        bar.set_position(done as u64);
        if !terminal && last_line.elapsed() >= Duration::from_secs(5) {
            last_line = Instant::now();
            let secs = started.elapsed().as_secs_f64();
            let rate = done as f64 / secs.max(1e-9);
            let of = match total {
                Some(t) if t >= done => format!(
                    " of about {t} ({:.0}%, about {:.0} s left)",
                    100.0 * done as f64 / t.max(1) as f64,
                    (t - done) as f64 / rate.max(1e-9)
                ),
                _ => String::new(),
            };
            eprintln!("score: {done} answers scored{of} in {secs:.0} s, {rate:.1} answers/s");
        }
        if faithprobe::interrupt::requested() {
            break;
        }
    }
    bar.finish_and_clear();
    for n in checker.notes() {
        eprintln!("{n}");
    }
    if faithprobe::interrupt::requested() {
        eprintln!(
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
            Some(s) => eprintln!(
                "warning: shard {s} owns no answer of {}; its record is empty",
                args.log.display()
            ),
        }
    }
    head.log_sha256 = reader.sha256();
    head.lines_not_read = bad_lines.len() + more_bad;
    tally.without_passages = reader.without_passages.len();
    if let Some((id, line)) = reader.without_passages.first() {
        eprintln!(
            "warning: {} of {done} answers have no passage text (first: `{id}`{}); none of their claims can be supported: check the log's passages",
            reader.without_passages.len(),
            line.map(|l| format!(" on line {l}")).unwrap_or_default()
        );
    }
    let unmatched = reader.unmatched_labels();
    if !unmatched.is_empty() {
        eprintln!(
            "warning: {} labels match no answer of the log (first: `{}`)",
            unmatched.len(),
            unmatched[0]
        );
    }
    let summary = tally.summary();
    let rhead = Head::of(&head);
    let main = defs[0];
    let any_error = summary.definitions[0].errors > 0;

    if let Some(path) = &args.html {
        let top = report::answers::html_head(&rhead, &summary);
        faithprobe::write::write_atomic_from(path, &mut |w| {
            let io = |e: std::io::Error| Error::write(path, e);
            w.write_all(top.as_bytes()).map_err(io)?;
            for a in spool.answers()? {
                w.write_all(report::answers::html_answer(&a?).as_bytes())
                    .map_err(io)?;
            }
            w.write_all(report::answers::HTML_END.as_bytes())
                .map_err(io)
        })?;
        eprintln!("html report written: {}", path.display());
    }
    if let Some(path) = &args.record {
        faithprobe::record::write_score_record(path, &head, &mut spool.answers()?)?;
        eprintln!("score record written: {}", path.display());
    }

    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let write_err = |e: std::io::Error| Error::write(std::path::Path::new("<stdout>"), e);
    match args.format {
        ScoreFormat::Json => {
            let lead = serde_json::json!({
                "log": head.log, "checker": head.checker, "decomposer": head.decomposer,
                "shard": head.shard, "summary": summary.definitions, "by_tag": summary.by_tag,
                "labels": summary.labels, "without_passages": summary.without_passages,
            })
            .to_string();
            // the summary object, then every answer streamed from the spool
            out.write_all(&lead.as_bytes()[..lead.len() - 1])
                .and_then(|_| out.write_all(b",\"answers\":["))
                .map_err(write_err)?;
            for (i, a) in spool.answers()?.enumerate() {
                let a = a?;
                if i > 0 {
                    out.write_all(b",").map_err(write_err)?;
                }
                serde_json::to_writer(&mut out, &a).map_err(|e| write_err(e.into()))?;
            }
            out.write_all(b"]}\n").map_err(write_err)?;
        }
        ScoreFormat::Human => {
            let paint = ctx.paint();
            out.write_all(
                report::answers::human_summary(&rhead, &summary, confidence, paint).as_bytes(),
            )
            .map_err(write_err)?;
            if !queue.is_empty() {
                out.write_all(report::answers::human_queue(&queue, paint).as_bytes())
                    .map_err(write_err)?;
            }
            match args.show {
                ShowArg::All => {
                    for a in spool.answers()? {
                        out.write_all(report::answers::human_answer(&a?, main, paint).as_bytes())
                            .map_err(write_err)?;
                    }
                }
                ShowArg::Worst => {
                    let worst = tally.worst();
                    let bad = summary.definitions[0].unsupported_answers.k as usize
                        + summary.definitions[0].errors;
                    if !worst.is_empty() {
                        writeln!(
                            out,
                            "\n{}",
                            paint.head(&format!(
                                "The {} worst of {bad} answers not faithful ({}) or not scored; --show all lists every answer",
                                worst.len(),
                                main.as_str()
                            ))
                        )
                        .map_err(write_err)?;
                    }
                    for a in &worst {
                        out.write_all(report::answers::human_answer(a, main, paint).as_bytes())
                            .map_err(write_err)?;
                    }
                }
                ShowArg::None => {}
            }
        }
        ScoreFormat::Markdown => {
            out.write_all(report::answers::markdown_summary(&rhead, &summary).as_bytes())
                .map_err(write_err)?;
            let rows: Box<dyn Iterator<Item = faithprobe::error::Result<_>>> = match args.show {
                ShowArg::All => Box::new(spool.answers()?),
                ShowArg::Worst => Box::new(tally.worst().into_iter().map(Ok)),
                ShowArg::None => Box::new(std::iter::empty()),
            };
            let mut first = true;
            for a in rows {
                if first {
                    let what = if args.show == ShowArg::All {
                        "Every answer"
                    } else {
                        "The worst answers"
                    };
                    write!(
                        out,
                        "\n**{what}**\n\n{}",
                        report::answers::MARKDOWN_ANSWERS_HEAD
                    )
                    .map_err(write_err)?;
                    first = false;
                }
                out.write_all(report::answers::markdown_answer_row(&a?, main).as_bytes())
                    .map_err(write_err)?;
            }
        }
    }
    out.flush().map_err(write_err)?;
    if !bad_lines.is_empty() {
        for e in &bad_lines {
            eprintln!("error: {e}");
        }
        if more_bad > 0 {
            eprintln!(
                "error: {more_bad} more records of {} are not logged answers",
                args.log.display()
            );
        }
        // the rest ran and was written: not "nothing was run" (2); a failed checker says more
        return Ok(if any_error {
            Exit::CheckerFailed
        } else {
            Exit::PartialInput
        });
    }
    Ok(if any_error {
        Exit::CheckerFailed
    } else {
        Exit::Ok
    })
}
