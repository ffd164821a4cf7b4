//! `faithprobe omissions-eval`: precision and recall of the omissions check on labelled answers.

use super::Ctx;
use clap::Args;
use faithprobe::answers::decompose::parse_claims;
use faithprobe::answers::eval::{evaluate_omissions, load_omission_cases};
use faithprobe::check::judge::render_passages;
use faithprobe::error::Exit;
use std::path::PathBuf;

/// Measure the omissions check against answers whose omitted conditions a person labelled:
/// precision and recall of its flags.
#[derive(Args)]
pub struct OmissionsEvalArgs {
    /// Answers with the omissions a person confirmed (YAML).
    pub file: PathBuf,
    /// The judge checker whose server and model run the check.
    #[arg(long)]
    pub omissions: String,
    /// The prompt template of the omissions check.
    #[arg(long, default_value = "prompts/omissions-v1.md")]
    pub omissions_prompt: PathBuf,
}

pub fn run(args: OmissionsEvalArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let config = ctx.config()?;
    let cases = load_omission_cases(&args.file)?;
    let client = config.llm_client(
        &args.omissions,
        &args.omissions_prompt,
        &["{question}", "{answer}", "{passages}"],
    )?;
    let flags: Vec<Result<Vec<String>, String>> = cases
        .iter()
        .map(|c| {
            let a = c.logged();
            let prompt = client.fill(&[
                ("question", &a.question),
                ("answer", &a.answer),
                ("passages", &render_passages(&a.passages())),
            ]);
            client
                .complete(&prompt, &parse_claims)
                .map_err(|e| e.to_string())
        })
        .collect();
    let e = evaluate_omissions(&cases, &flags);
    let mut o = String::new();
    let f = |x: Option<f64>| x.map(|v| format!("{v:.2}")).unwrap_or_else(|| "-".into());
    outln!(
                o,
        "omissions check on {}: {}, {} match an omission a person confirmed (precision {}); {} of {} confirmed omissions found (recall {})",
        faithprobe::report::count(e.answers as u64, "answer", "answers"),
        faithprobe::report::count(e.flagged as u64, "flag", "flags"),
        e.true_flags,
        f(e.precision),
        e.found,
        e.confirmed,
        f(e.recall)
    );
    for (id, flag, hit) in &e.flags {
        outln!(
            o,
            "  {:<14} {:<6} {flag}",
            id,
            if *hit { "real" } else { "noise" }
        );
    }
    for (id, err) in &e.errors {
        outln!(o, "  {id:<14} error  {err}");
    }
    super::out::emit_then(
        &o,
        if e.errors.is_empty() {
            Exit::Ok
        } else {
            Exit::CheckerFailed
        },
    )
}
