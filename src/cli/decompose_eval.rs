//! `faithprobe decompose-eval`: a decomposer against a person's hand decomposition.

use super::Ctx;
use clap::{Args, ValueEnum};
use faithprobe::answers::eval;
use faithprobe::error::Exit;
use std::path::PathBuf;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DecomposeFormat {
    Human,
    Json,
}

/// Compare a decomposer's claims with a person's hand decomposition: missed, merged and invented
/// claims per answer and in total.
#[derive(Args)]
pub struct DecomposeEvalArgs {
    /// Answers with a person's claims (YAML).
    pub file: PathBuf,
    #[arg(long, default_value = "sentences")]
    pub decomposer: String,
    #[arg(long, value_enum, default_value_t = DecomposeFormat::Human)]
    pub format: DecomposeFormat,
}

pub fn run(args: DecomposeEvalArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let config = ctx.config()?;
    let items = eval::load(&args.file)?;
    let d = config.decomposer(&args.decomposer)?;
    let e = eval::evaluate(&items, d.as_ref());
    let text = match args.format {
        DecomposeFormat::Json => serde_json::to_string(&e)? + "\n",
        DecomposeFormat::Human => eval::render(&e),
    };
    super::out::emit_then(
        &text,
        if e.answers.iter().any(|a| a.error.is_some()) {
            Exit::CheckerFailed
        } else {
            Exit::Ok
        },
    )
}
