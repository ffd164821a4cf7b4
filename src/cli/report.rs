//! `faithprobe report`: the quarterly audit as one self-contained HTML file and Markdown.

use super::{CacheArgs, ConfidenceArg, Ctx, SuiteArgs};
use clap::Args;
use faithprobe::engine::record::RecordRun;
use faithprobe::engine::run::SuiteRun;
use faithprobe::engine::summary::summarize_mixed;
use faithprobe::engine::sweep::run_sweep;
use faithprobe::error::{Error, Exit};
use faithprobe::report::audit::{self, CheckerAudit};
use faithprobe::report::svg::sweep_chart;
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::PathBuf;

/// The quarterly audit: one self-contained HTML file and the same content as Markdown, for each
/// checker: rates with intervals, sweep chart, hard cases, agreement with a person, unreviewed
/// mutants and fingerprints.
#[derive(Args, Clone)]
pub struct ReportArgs {
    #[command(flatten)]
    pub suites: SuiteArgs,
    #[command(flatten)]
    pub max_cost: super::MaxCostArg,
    #[command(flatten)]
    pub batch: super::batch::BatchArgs,
    /// Checkers to audit (repeat the flag); default the built-in `lexical`. Not with run
    /// records, each of which is one checker's audit.
    #[arg(long = "checker")]
    pub checkers: Vec<String>,
    /// Folder for report.html, report.md and the charts.
    #[arg(long)]
    pub out: PathBuf,
    /// The report's title.
    #[arg(long, default_value = "faithprobe audit")]
    pub title: String,
    /// False-alarm bound for the threshold recommendation in the sweep section.
    #[arg(long, default_value_t = 0.1)]
    pub max_false_alarm: f64,
    #[command(flatten)]
    pub confidence: ConfidenceArg,
    #[command(flatten)]
    pub mix: super::MixArg,
    #[command(flatten)]
    pub cache: CacheArgs,
}

pub fn run(args: ReportArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let confidence = args.confidence.checked()?;
    args.max_cost.apply()?;
    // the audit's sweep reads each claim's best score
    faithprobe::check::nli::set_full_scan(true);
    if !(args.max_false_alarm > 0.0 && args.max_false_alarm <= 1.0) {
        return Err(Error::Usage(format!(
            "--max-false-alarm {} must be in (0, 1]",
            args.max_false_alarm
        ))
        .into());
    }
    let (html, md) = (args.out.join("report.html"), args.out.join("report.md"));
    let mut outputs: Vec<(&str, &std::path::Path)> =
        vec![("the report", html.as_path()), ("the report", md.as_path())];
    if let Some(c) = args.cache.path() {
        outputs.push(("--cache", c));
    }
    super::guard_outputs(ctx, &super::suite_inputs(&args.suites), &outputs)?;
    let mix = args.mix.resolve(&ctx.config()?)?;
    let (audited, exit) = match super::record_inputs(&args.suites)? {
        Some(files) => {
            if !args.checkers.is_empty() {
                return Err(Error::Usage(
                    "--checker does not apply to run records: each record is one checker's audit"
                        .into(),
                )
                .into());
            }
            from_records(files)?
        }
        None => match from_suites(&args, ctx)? {
            ControlFlow::Continue(audited) => audited,
            ControlFlow::Break(interrupted) => return Ok(interrupted),
        },
    };
    // an audit of nothing is no audit
    if audited
        .iter()
        .all(|(_, _, _, s, _)| s.iter().all(|(r, _)| r.cases.is_empty()))
    {
        return Err(Error::Usage(
            "nothing to audit: the suites have no case (no verified claim, hard case or mutant); add claims to the suite".into(),
        )
        .into());
    }
    let proxy = proxy(&audited, confidence);
    let audits = audits(audited, confidence, args.max_false_alarm, &mix);
    let (html_path, md_path) = write(&args, &audits, &proxy)?;
    match super::out::emit(&format!("{}\n{}\n", html_path.display(), md_path.display()))? {
        Exit::Ok => Ok(exit),
        failed => Ok(failed),
    }
}

/// Per checker: its name, kind, settings and, per suite, the record and the run; and what its
/// LLM calls cost, when it made any (an error names a model without a price).
type Audited = (
    String,
    String,
    BTreeMap<String, String>,
    Vec<(RecordRun, SuiteRun)>,
    Option<Result<f64, String>>,
);

/// The audits of run records, one per record, and the exit their errors call for.
fn from_records(
    files: Vec<(PathBuf, faithprobe::engine::record::Record)>,
) -> anyhow::Result<(Vec<Audited>, Exit)> {
    let mut audited: Vec<Audited> = Vec::new();
    let mut exit = Exit::Ok;
    for (path, record) in files {
        let c = super::record_checker(&path, &record)?;
        if super::records_exit(&record.runs) != Exit::Ok {
            exit = Exit::CheckerFailed;
        }
        let runs = record.runs.into_iter().map(|r| {
            let run = r.to_run();
            (r, run)
        });
        audited.push((c.name, c.kind, c.settings, runs.collect(), None));
    }
    Ok((audited, exit))
}

/// The audits of the suites under each checker asked for (scored now), and the exit their
/// errors call for; or the exit of an interrupted run.
fn from_suites(
    args: &ReportArgs,
    ctx: &Ctx,
) -> anyhow::Result<ControlFlow<Exit, (Vec<Audited>, Exit)>> {
    let mut audited: Vec<Audited> = Vec::new();
    let mut exit = Exit::Ok;
    let config = ctx.config()?;
    let loaded = super::load_all(&config, &args.suites)?;
    let names = if args.checkers.is_empty() {
        vec!["lexical".to_string()]
    } else {
        args.checkers.clone()
    };
    let built: Vec<_> = names
        .iter()
        .map(|n| config.checker(n, args.cache.path()))
        .collect::<Result<_, _>>()?;
    let mut settings = BTreeMap::new();
    for checker in &built {
        // suite by suite: a checker's cost counts from the start of each suite
        let mut runs = Vec::new();
        let mut cost: Option<Result<f64, String>> = None;
        for one in loaded.chunks(1) {
            runs.extend(super::score_suites(one, checker.as_ref()));
            cost = match (cost, checker.cost()) {
                (Some(Err(m)), _) | (_, Some(Err(m))) => Some(Err(m)),
                (Some(Ok(a)), Some(Ok(b))) => Some(Ok(a + b)),
                (a, b) => a.or(b),
            };
        }
        if faithprobe::io::interrupt::requested() {
            return Ok(ControlFlow::Break(super::interrupted(
                &runs,
                args.cache.path(),
            )));
        }
        if super::runs_exit(&runs) != Exit::Ok {
            exit = super::runs_exit(&runs);
        }
        settings.insert(checker.name().to_string(), checker.kind().to_string());
        let records = super::records(&loaded, &runs);
        audited.push((
            checker.name().to_string(),
            checker.kind().to_string(),
            checker.settings(),
            records.into_iter().zip(runs).collect(),
            cost,
        ));
    }
    let inputs: Vec<&std::path::Path> = args.suites.suites.iter().map(|p| p.as_path()).collect();
    if let Some(exit) =
        super::batch::after_scoring(&args.batch, args.cache.path(), &inputs, settings)?
    {
        return Ok(ControlFlow::Break(exit));
    }
    Ok(ControlFlow::Continue((audited, exit)))
}

/// Across checkers: the first against each other one at the same false-alarm rate, and each
/// one's gap to the suites' real errors.
fn proxy(audited: &[Audited], confidence: f64) -> audit::Proxy {
    let records: Vec<faithprobe::engine::record::Record> = audited
        .iter()
        .map(|(_, _, _, s, _)| {
            faithprobe::engine::record::Record::new(s.iter().map(|(r, _)| r.clone()).collect())
        })
        .collect();
    let popts = faithprobe::engine::proxy::ProxyOptions {
        confidence,
        alpha: 0.05,
        at_false_alarm: None,
        max_gap: 0.10,
    };
    let matched: Vec<faithprobe::engine::proxy::Matched> = records
        .iter()
        .skip(1)
        .filter_map(|c| faithprobe::engine::proxy::matched(&records[0], c, &popts))
        .collect();
    let refs: Vec<&faithprobe::engine::record::Record> = records.iter().collect();
    let real = faithprobe::engine::proxy::real_errors(
        &refs,
        (records.len() == 2).then(|| matched.first()).flatten(),
        &popts,
    );
    audit::Proxy { matched, real }
}

/// Each checker's audit: its suites' records and summaries, its sweep and the sweep's chart.
fn audits(
    audited: Vec<Audited>,
    confidence: f64,
    max_false_alarm: f64,
    mix: &faithprobe::engine::mix::Mix,
) -> Vec<CheckerAudit> {
    let mut audits = Vec::new();
    for (name, kind, settings, suites, cost) in audited {
        let caught = suites
            .iter()
            .flat_map(|(r, _)| &r.cases)
            .filter(|c| c.outcome == faithprobe::model::case::Outcome::Caught)
            .count();
        let cost = cost.map(|c| match c {
            Ok(c) if caught > 0 => format!(
                "{c:.4} by `prices:`; {:.4} per caught fault ({caught} caught)",
                c / caught as f64
            ),
            Ok(c) => format!("{c:.4} by `prices:`; no fault caught"),
            Err(model) => format!("unknown: no price for {model} under `prices:`"),
        });
        let records: Vec<RecordRun> = suites.iter().map(|(r, _)| r.clone()).collect();
        let sweep = run_sweep(&records, confidence, Some(max_false_alarm), None, 0.05);
        let chart_svg = sweep_chart(
            &format!("{name}: false alarms against detection"),
            &sweep.points,
            sweep.recommended.as_ref(),
            sweep.max_per_claim,
        );
        audits.push(CheckerAudit {
            checker: name,
            kind,
            settings,
            suites: suites
                .into_iter()
                .map(|(r, run)| {
                    let summary = summarize_mixed(&run, confidence, mix);
                    if let Some(w) = summary.all_faults_mix.warning(&run.suite) {
                        errln!("{w}");
                    }
                    (r, summary)
                })
                .collect(),
            sweep,
            chart_svg,
            cost,
        });
    }
    audits
}

/// Writes the charts, report.html and report.md into `--out`; the paths of the two reports.
fn write(
    args: &ReportArgs,
    audits: &[CheckerAudit],
    proxy: &audit::Proxy,
) -> anyhow::Result<(PathBuf, PathBuf)> {
    std::fs::create_dir_all(&args.out).map_err(|e| Error::write(&args.out, e))?;
    let mut charts = Vec::new();
    for a in audits {
        let name = format!(
            "sweep-{}.svg",
            faithprobe::report::snapshot::file_name(&a.checker, "x").trim_end_matches(".x.snap")
        );
        faithprobe::io::write::write_atomic(&args.out.join(&name), a.chart_svg.as_bytes())?;
        charts.push(name);
    }
    let html_path = args.out.join("report.html");
    faithprobe::io::write::write_atomic(
        &html_path,
        audit::html(&args.title, audits, proxy).as_bytes(),
    )?;
    let md_path = args.out.join("report.md");
    faithprobe::io::write::write_atomic(
        &md_path,
        audit::markdown(&args.title, audits, &charts, proxy).as_bytes(),
    )?;
    Ok((html_path, md_path))
}
