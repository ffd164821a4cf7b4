//! `faithgate probe`: every number a checker has for one premise and claim.

use super::Ctx;
use clap::Args;
use faithgate::error::Exit;

/// Score one premise and claim with a checker and print every number it has for the pair (each
/// label's probability, a cosine, a coverage).
#[derive(Args)]
pub struct ProbeArgs {
    #[arg(long, default_value = "lexical")]
    pub checker: String,
    /// The passage text.
    #[arg(long)]
    pub premise: String,
    /// The claim to check against it.
    #[arg(long)]
    pub claim: String,
}

pub fn run(args: ProbeArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let config = ctx.config()?;
    let checker = config.checker(&args.checker, None)?;
    let values = match checker.probe(&args.premise, &args.claim) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: {}: {e}", checker.name());
            return Ok(e.exit());
        }
    };
    println!("{} ({})", checker.name(), checker.kind());
    for (k, v) in values {
        println!("  {k:<14} {v:.3}");
    }
    Ok(Exit::Ok)
}
