//! `faithprobe check`: one premise and claim through a checker: its verdict, and every number it
//! has for the pair.

use super::Ctx;
use clap::Args;
use faithprobe::check::{CheckInput, ClaimToCheck, ContextSet};
use faithprobe::error::Exit;

/// Check one claim against one passage with a checker: print its verdict (label, score, evidence,
/// reason) and every number it has for the pair (each label's probability, a cosine).
#[derive(Args)]
pub struct CheckArgs {
    #[arg(long, default_value = "lexical")]
    pub checker: String,
    /// The passage text.
    #[arg(long)]
    pub premise: String,
    /// The claim to check against it.
    #[arg(long)]
    pub claim: String,
}

pub fn run(args: CheckArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let config = ctx.config()?;
    let checker = config.checker(&args.checker, None)?;
    let sets = [ContextSet::single("check", "premise", &args.premise)];
    let input = CheckInput {
        contexts: &sets,
        entities: &[],
        claims: vec![ClaimToCheck {
            context: 0,
            text: &args.claim,
        }],
    };
    let verdict = checker
        .check(&input, &mut |_| {})
        .into_iter()
        .next()
        .unwrap_or(Err(faithprobe::check::CheckError::NoVerdict));
    let verdict = match verdict {
        Ok(v) => v,
        Err(e) => {
            errln!("error: {}: {e}", checker.name());
            return Ok(e.exit());
        }
    };
    let values = match checker.probe(&args.premise, &args.claim) {
        Ok(Some(v)) => v,
        Ok(None) => verdict
            .score
            .map(|s| vec![("score".to_string(), s)])
            .unwrap_or_default(),
        Err(e) => {
            errln!("error: {}: {e}", checker.name());
            return Ok(e.exit());
        }
    };
    let mut text = format!("{} ({})\n", checker.name(), checker.kind());
    text.push_str(&format!("  verdict        {}\n", verdict.label.as_str()));
    if !verdict.reason.is_empty() {
        text.push_str(&format!(
            "  reason         {}\n",
            faithprobe::text::escape::printable(&verdict.reason)
        ));
    }
    if let Some(e) = &verdict.evidence {
        text.push_str(&format!(
            "  evidence       {}\n",
            faithprobe::text::escape::printable(&e.window)
        ));
    }
    for (k, v) in values {
        text.push_str(&format!("  {k:<14} {v:.3}\n"));
    }
    super::out::emit(&text)
}
