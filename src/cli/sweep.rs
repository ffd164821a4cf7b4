//! `faithprobe sweep`: one scoring pass, then every threshold with intervals, a chart and a
//! recommendation under a false-alarm bound.

use super::{CacheArgs, ConfidenceArg, Ctx, SuiteArgs};
use clap::{Args, ValueEnum};
use faithprobe::error::{Error, Exit};
use faithprobe::report;
use faithprobe::sweep::run_sweep;
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
    #[arg(long, default_value = "lexical")]
    pub checker: String,
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
    let config = ctx.config()?;
    let loaded = super::load_all(&config, &args.suites)?;
    let checker = config.checker(&args.checker, args.cache.path())?;
    let runs = super::score_suites(&loaded, checker.as_ref());
    if faithprobe::interrupt::requested() {
        return Ok(super::interrupted(&runs, args.cache.path()));
    }
    let result = run_sweep(
        &super::records(&loaded, &runs),
        confidence,
        args.max_false_alarm,
        args.calibrate_on,
        args.margin,
    );
    if let Some(path) = &args.svg {
        let names: Vec<&str> = loaded.iter().map(|(s, _)| s.name.as_str()).collect();
        let chart = report::svg::sweep_chart(
            &format!("{} on {}", checker.name(), names.join(", ")),
            &result.points,
            result.recommended.as_ref(),
        );
        super::write_output(path, chart.as_bytes(), "chart")?;
    }
    let text = match args.format {
        SweepFormat::Json => serde_json::to_string(&result)? + "\n",
        SweepFormat::Markdown => report::sweep::render(&result, true),
        SweepFormat::Human => report::sweep::render(&result, false),
    };
    print!("{text}");
    Ok(super::runs_exit(&runs))
}
