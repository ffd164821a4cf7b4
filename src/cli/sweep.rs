//! `faithprobe sweep`: one scoring pass, then every threshold with intervals, a chart and a
//! recommendation under a false-alarm bound.

use super::{CacheArgs, ConfidenceArg, Ctx, SuiteArgs};
use clap::{Args, ValueEnum};
use faithprobe::engine::record::{Record, RecordRun};
use faithprobe::engine::sweep::run_sweep;
use faithprobe::error::{Error, Exit};
use faithprobe::report;
use std::path::PathBuf;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SweepFormat {
    Human,
    Json,
    /// The full table, for a pull-request comment.
    Markdown,
}

/// Score once, then report false alarms and detection per fault type at every threshold, and
/// recommend a threshold under a false-alarm bound.
#[derive(Args)]
pub struct SweepArgs {
    #[command(flatten)]
    pub suites: SuiteArgs,
    /// The checker to sweep (default: the built-in `lexical`); not with run records, which name
    /// their own.
    #[arg(long)]
    pub checker: Option<String>,
    /// Recommend the threshold with the best detection whose false-alarm upper bound is at most
    /// this.
    #[arg(long)]
    pub max_false_alarm: Option<f64>,
    /// Choose the threshold on this fraction of the claims (split by a hash of the parent
    /// claim) and report it on the rest.
    #[arg(long)]
    pub calibrate_on: Option<f64>,
    /// Warn for fault types whose interval is wider than ±this.
    #[arg(long, default_value_t = 0.05)]
    pub margin: f64,
    /// Write the SVG chart to this file (nothing is written without it).
    #[arg(long)]
    pub svg: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = SweepFormat::Human)]
    pub format: SweepFormat,
    #[command(flatten)]
    pub confidence: ConfidenceArg,
    #[command(flatten)]
    pub cache: CacheArgs,
}

pub fn run(args: SweepArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let confidence = args.confidence.checked()?;
    // every threshold is read off each claim's best score: no scan stops early
    faithprobe::check::nli::set_full_scan(true);
    for (flag, v) in [
        ("--max-false-alarm", args.max_false_alarm),
        ("--calibrate-on", args.calibrate_on),
        ("--margin", Some(args.margin)),
    ] {
        if let Some(v) = v {
            let in_range = v > 0.0 && (v < 1.0 || (flag == "--max-false-alarm" && v == 1.0));
            if !in_range {
                return Err(Error::Usage(format!("{flag} {v} must be between 0 and 1")).into());
            }
        }
    }
    let mut outputs: Vec<(&str, &std::path::Path)> = Vec::new();
    if let Some(s) = &args.svg {
        outputs.push(("--svg", s));
    }
    if let Some(c) = args.cache.path() {
        outputs.push(("--cache", c));
    }
    super::guard_outputs(ctx, &super::suite_inputs(&args.suites), &outputs)?;
    let (records, checker_name, suite_names, exit) = match super::record_inputs(&args.suites)? {
        Some(files) => {
            if let Some(c) = &args.checker {
                return Err(Error::Usage(format!(
                    "--checker {c} does not apply to run records: each record names the checker that made it"
                ))
                .into());
            }
            from_records(files)?
        }
        None => {
            let config = ctx.config()?;
            let loaded = super::load_all(&config, &args.suites)?;
            for line in super::run::left_out_notes(&loaded) {
                errln!("{line}");
            }
            let name = args.checker.as_deref().unwrap_or("lexical");
            let checker = config.checker(name, args.cache.path())?;
            let runs = super::score_suites(&loaded, checker.as_ref());
            if faithprobe::io::interrupt::requested() {
                return Ok(super::interrupted(&runs, args.cache.path()));
            }
            let names = loaded.iter().map(|(s, _)| s.name.clone()).collect();
            (
                super::records(&loaded, &runs),
                checker.name().to_string(),
                names,
                super::runs_exit(&runs),
            )
        }
    };
    // a sweep of nothing is no sweep: say so rather than print an empty table
    if records.iter().all(|r| r.cases.is_empty()) {
        return Err(Error::Usage(
            "nothing to sweep: the suites have no case (no verified claim, hard case or mutant); add claims to the suite".into(),
        )
        .into());
    }
    let result = run_sweep(
        &records,
        confidence,
        args.max_false_alarm,
        args.calibrate_on,
        args.margin,
    );
    if let Some(path) = &args.svg {
        let chart = report::svg::sweep_chart(
            &format!("{checker_name} on {}", suite_names.join(", ")),
            &result.points,
            result.recommended.as_ref(),
            result.max_per_claim,
        );
        super::write_output(path, chart.as_bytes(), "chart")?;
    }
    let text = match args.format {
        SweepFormat::Json => serde_json::to_string(&result)? + "\n",
        SweepFormat::Markdown => report::sweep::render(&result, true),
        SweepFormat::Human => report::sweep::render(&result, false),
    };
    match super::out::emit(&text)? {
        Exit::Ok => Ok(exit),
        failed => Ok(failed),
    }
}

/// The runs of run records made by one checker: the runs, the checker's name, the suites' names,
/// and the exit the records' errors call for.
fn from_records(
    files: Vec<(PathBuf, Record)>,
) -> anyhow::Result<(Vec<RecordRun>, String, Vec<String>, Exit)> {
    let mut checker: Option<faithprobe::engine::record::RecordChecker> = None;
    let mut records = Vec::new();
    for (path, record) in files {
        let c = super::record_checker(&path, &record)?;
        if let Some(first) = &checker {
            if first != &c {
                return Err(Error::Usage(format!(
                    "{} was made by {} and an earlier record by {}: a sweep reads one checker's records",
                    path.display(),
                    c.name,
                    first.name
                ))
                .into());
            }
        }
        checker = Some(c);
        records.extend(record.runs);
    }
    let names: Vec<String> = records.iter().map(|r| r.suite.clone()).collect();
    let exit = super::records_exit(&records);
    Ok((records, checker.unwrap().name, names, exit))
}
