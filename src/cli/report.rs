//! `faithprobe report`: the quarterly audit as one self-contained HTML file and Markdown.

use super::{CacheArgs, ConfidenceArg, Ctx, SuiteArgs};
use clap::Args;
use faithprobe::error::{Error, Exit};
use faithprobe::report::audit::{self, CheckerAudit};
use faithprobe::report::svg::sweep_chart;
use faithprobe::summary::summarize;
use faithprobe::sweep::run_sweep;
use std::path::PathBuf;

/// The quarterly audit: one self-contained HTML file and the same content as Markdown, for each
/// checker: rates with intervals, sweep chart, hard cases, agreement with a person, unreviewed
/// mutants and fingerprints.
#[derive(Args)]
pub struct ReportArgs {
    #[command(flatten)]
    pub suites: SuiteArgs,
    /// Checkers to audit (repeat the flag); default the built-in `lexical`.
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
    pub cache: CacheArgs,
}

pub fn run(args: ReportArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let confidence = args.confidence.checked()?;
    if !(args.max_false_alarm > 0.0 && args.max_false_alarm <= 1.0) {
        return Err(Error::Usage(format!(
            "--max-false-alarm {} must be in (0, 1]",
            args.max_false_alarm
        ))
        .into());
    }
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
    let mut audits = Vec::new();
    let mut exit = Exit::Ok;
    for checker in &built {
        let runs = super::score_suites(&loaded, checker.as_ref());
        if faithprobe::interrupt::requested() {
            return Ok(super::interrupted(&runs, args.cache.path()));
        }
        if super::runs_exit(&runs) != Exit::Ok {
            exit = super::runs_exit(&runs);
        }
        let records = super::records(&loaded, &runs);
        let sweep = run_sweep(&records, confidence, Some(args.max_false_alarm), None, 0.05);
        let chart_svg = sweep_chart(
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
    std::fs::create_dir_all(&args.out).map_err(|e| Error::write(&args.out, e))?;
    let mut charts = Vec::new();
    for a in &audits {
        let name = format!(
            "sweep-{}.svg",
            faithprobe::snapshot::file_name(&a.checker, "x").trim_end_matches(".x.snap")
        );
        faithprobe::write::write_atomic(&args.out.join(&name), a.chart_svg.as_bytes())?;
        charts.push(name);
    }
    let html_path = args.out.join("report.html");
    faithprobe::write::write_atomic(&html_path, audit::html(&args.title, &audits).as_bytes())?;
    let md_path = args.out.join("report.md");
    faithprobe::write::write_atomic(
        &md_path,
        audit::markdown(&args.title, &audits, &charts).as_bytes(),
    )?;
    println!("{}\n{}", html_path.display(), md_path.display());
    Ok(exit)
}
