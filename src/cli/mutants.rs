//! `faithprobe mutants`: list the mutants the rules generate, or a `reviews:` block to paste.

use super::{Ctx, SuiteArgs};
use clap::{Args, ValueEnum};
use faithprobe::error::Exit;
use faithprobe::mutate::{self, MutantSet};
use faithprobe::suite::Suite;

#[derive(Clone, Copy, ValueEnum)]
pub enum MutantFormat {
    /// A table: id, operator, parent, review, text.
    Human,
    /// A `reviews:` block to paste into the suite and edit.
    Yaml,
    /// One JSON object per suite per line.
    Json,
}

/// List the mutants the rules generate for the suites, with their stable ids and reviews.
#[derive(Args)]
pub struct MutantsArgs {
    #[command(flatten)]
    pub suites: SuiteArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = MutantFormat::Human)]
    pub format: MutantFormat,
}

pub fn run(args: MutantsArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let config = ctx.config()?;
    let loaded = super::load_all(&config, &args.suites)?;
    let mut out = String::new();
    for (suite, set) in &loaded {
        match args.format {
            MutantFormat::Yaml => {
                out.push_str(&format!("# {} ({})\n", suite.name, suite.path.display()));
                out.push_str(&mutate::reviews_yaml(suite, set));
            }
            MutantFormat::Json => {
                out.push_str(
                    &serde_json::json!({
                        "suite": suite.name,
                        "mutants": set.mutants,
                        "operators_without_mutants": set.empty_operators,
                    })
                    .to_string(),
                );
                out.push('\n');
            }
            MutantFormat::Human => out.push_str(&table(suite, set)),
        }
    }
    super::out::emit(&faithprobe::text::printable(&out))
}

fn table(suite: &Suite, set: &MutantSet) -> String {
    let mut o = format!("{} ({})\n", suite.name, suite.path.display());
    let counts: Vec<String> = set
        .counts()
        .iter()
        .map(|(op, n)| format!("{op} {n}"))
        .collect();
    o.push_str(&format!(
        "{} mutants: {}\n",
        set.mutants.len(),
        counts.join(", ")
    ));
    for op in &set.empty_operators {
        o.push_str(&format!(
            "note: {op} produced no mutant on this suite (no claim matches its rules)\n"
        ));
    }
    for (h, op, parent) in &set.same_as_hard_case {
        o.push_str(&format!(
            "note: {op} of {parent} gives exactly hard case {h}; it is counted once, as the hard case\n"
        ));
    }
    o.push_str(&format!(
        "{:<18} {:<18} {:<7} {:<11} {}\n",
        "id", "operator", "parent", "review", "text"
    ));
    for m in &set.mutants {
        o.push_str(&format!(
            "{:<18} {:<18} {:<7} {:<11} {}\n",
            m.id,
            m.operator,
            m.parent,
            m.review.as_str(),
            m.text
        ));
    }
    o
}
