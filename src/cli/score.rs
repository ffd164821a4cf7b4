//! `faithgate score`: decompose, verify and score logged answers.

use super::{CacheArgs, ConfidenceArg, Ctx};
use clap::{Args, ValueEnum};
use faithgate::answers::score::{aggregate, find_omissions, score, Definition};
use faithgate::error::Exit;
use faithgate::record::AnyRecord;
use faithgate::report;
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

/// Score logged answers: split each into claims, verify every claim against the context set that
/// was in its prompt, and report faithfulness with the evidence for every verdict.
#[derive(Args)]
pub struct ScoreArgs {
    /// The log: JSON Lines (one answer per line) or YAML (a list).
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
    /// Save a score record for `compare`.
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// Also write the report as one self-contained HTML file.
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

pub fn run(args: ScoreArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let confidence = args.confidence.checked()?;
    let config = ctx.config()?;
    let (answers, bad_lines) = faithgate::answers::load_log(&args.log)?;
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
    let bar =
        indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
    let mut rec = score(
        &args.log.display().to_string(),
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
        eprintln!(
            "interrupted: no report was written; rerun the same command to finish from the cache"
        );
        return Ok(Exit::Interrupted);
    }
    let defs: Vec<Definition> = if args.definitions.is_empty() {
        vec![Definition::Strict]
    } else {
        args.definitions.iter().map(|d| (*d).into()).collect()
    };
    let text = match args.format {
        ScoreFormat::Json => {
            let aggs: Vec<_> = defs
                .iter()
                .map(|d| aggregate(&rec.answers, *d, confidence))
                .collect();
            serde_json::json!({"log": rec.log, "checker": rec.checker, "decomposer": rec.decomposer, "summary": aggs, "answers": rec.answers}).to_string() + "\n"
        }
        ScoreFormat::Markdown => report::answers::markdown(&rec, &defs, confidence),
        ScoreFormat::Human => report::answers::human(&rec, &defs, confidence, ctx.paint()),
    };
    if let Some(path) = &args.html {
        let page = report::answers::html(&rec, &defs, confidence);
        super::write_output(path, page.as_bytes(), "html report")?;
    }
    let any_error = rec
        .answers
        .iter()
        .any(|a| a.error.is_some() || a.claims.iter().any(|c| c.error.is_some()));
    if let Some(path) = &args.record {
        AnyRecord::Score(rec).write(path)?;
        eprintln!("score record written: {}", path.display());
    }
    print!("{text}");
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
