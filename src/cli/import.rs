//! `faithprobe import`: public labelled data as a faithprobe log (and suite).

use clap::{Args, Subcommand};
use faithprobe::error::Exit;
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum ImportCommand {
    /// RAGTruth (`response.jsonl` + `source_info.jsonl`): a log with the annotators' labels
    /// for `score --labels`-style agreement, and optionally a suite of hard cases.
    Ragtruth(RagtruthArgs),
}

#[derive(Args)]
pub struct RagtruthArgs {
    /// The folder with response.jsonl and source_info.jsonl.
    pub dir: PathBuf,
    /// The log to write (JSON Lines; each answer has `context`, `tag` = model, `label`).
    #[arg(long)]
    pub log: PathBuf,
    /// The contexts file the log refers to (default: the log's name with `.contexts.jsonl`).
    #[arg(long)]
    pub contexts: Option<PathBuf>,
    /// Also write a suite: sentences under conflict spans become `contradicted` hard cases,
    /// under baseless spans `not_found`, and sentences of span-free answers verified claims.
    #[arg(long)]
    pub hard_cases: Option<PathBuf>,
}

pub fn run(cmd: ImportCommand) -> anyhow::Result<Exit> {
    match cmd {
        ImportCommand::Ragtruth(a) => {
            let contexts = a.contexts.clone().unwrap_or_else(|| {
                let stem = a
                    .log
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "log".into());
                a.log.with_file_name(format!("{stem}.contexts.jsonl"))
            });
            let (responses, sources) = (
                a.dir.join("response.jsonl"),
                a.dir.join("source_info.jsonl"),
            );
            let mut outputs: Vec<(&str, &std::path::Path)> =
                vec![("--log", &a.log), ("--contexts", &contexts)];
            if let Some(h) = &a.hard_cases {
                outputs.push(("--hard-cases", h));
            }
            faithprobe::paths::check_outputs(
                &[
                    ("the input", responses.as_path()),
                    ("the input", sources.as_path()),
                ],
                &outputs,
            )?;
            let got =
                faithprobe::import::ragtruth(&a.dir, &a.log, &contexts, a.hard_cases.as_deref())?;
            eprintln!(
                "imported {} answers ({} labelled hallucinated) over {} sources: {} (passages in {})",
                got.answers,
                got.hallucinated,
                got.sources,
                a.log.display(),
                contexts.display()
            );
            if let Some(p) = &a.hard_cases {
                eprintln!(
                    "suite written: {} ({} verified claims, {} hard cases)",
                    p.display(),
                    got.faithful_claims,
                    got.hard_cases
                );
                if got.conflicting > 0 {
                    eprintln!(
                        "note: {} sentence(s) were clean in one answer and under a span in another: they are hard cases with the annotated label, not verified claims",
                        got.conflicting
                    );
                }
                if got.empty_sources > 0 {
                    eprintln!(
                        "note: {} source(s) have no text: their answers are in the log, but the suite has no context for them",
                        got.empty_sources
                    );
                }
            }
            eprintln!(
                "next: faithprobe score {} --contexts {}",
                a.log.display(),
                contexts.display()
            );
            Ok(Exit::Ok)
        }
    }
}
