//! `faithprobe mutants`: list the mutants the rules generate, or a `reviews:` block to paste.

use super::{Ctx, SuiteArgs};
use clap::{Args, ValueEnum};
use faithprobe::error::Exit;
use faithprobe::model::suite::Suite;
use faithprobe::mutate::{self, MutantSet};

#[derive(Clone, Copy, ValueEnum)]
pub enum MutantFormat {
    /// A table: id, operator, parent, review, text.
    Human,
    /// A `reviews:` block to paste into the suite and edit.
    Yaml,
    /// One JSON object per suite per line.
    Json,
}

/// List the mutants and rewrites the rules generate for the suites, with their stable ids and
/// reviews; or, with `--list`, every operator with what it stands for and an example.
#[derive(Args)]
pub struct MutantsArgs {
    /// Suite files (YAML).
    #[arg(required_unless_present = "list")]
    pub suites: Vec<std::path::PathBuf>,
    /// Folder of mutator rule files (default: `mutators:` in faithprobe.yaml, else the built-in
    /// rules from mutators/); a file there overrides its operator, the others stay built in.
    #[arg(long)]
    pub mutators: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub generation: super::GenerationArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = MutantFormat::Human)]
    pub format: MutantFormat,
    /// List every operator: its fault type, what it stands for, its names in the public
    /// typologies and one example.
    #[arg(long, conflicts_with = "suites")]
    pub list: bool,
}

/// Every operator of the registry with one example, as a table or JSON.
fn list(format: MutantFormat) -> String {
    use faithprobe::mutate::{Purpose, REGISTRY};
    if matches!(format, MutantFormat::Json) {
        let ops: Vec<serde_json::Value> = REGISTRY
            .iter()
            .map(|op| {
                serde_json::json!({
                    "operator": op.name,
                    "purpose": op.purpose,
                    "stands_for": op.stands_for,
                    "typologies": op.typologies,
                    "rules": format!("mutators/{}", op.rules),
                    "example": {"claim": op.example[0], "mutant": op.example[1]},
                })
            })
            .collect();
        return serde_json::json!({ "operators": ops }).to_string() + "\n";
    }
    let mut o = String::new();
    for purpose in [Purpose::Fault, Purpose::Invariance] {
        o.push_str(match purpose {
            Purpose::Fault => "Fault operators: each mutant is a fault of its type once a person reviews it `fault`\n",
            Purpose::Invariance => "\nRewrite operators: each rewrite says the same as its claim; flagging it is a false alarm (the invariance row)\n",
        });
        for op in REGISTRY.iter().filter(|op| op.purpose == purpose) {
            o.push_str(&format!(
                "\n{}  ({})\n  {}\n  in the typologies: {}\n  e.g. {}\n    -> {}\n",
                op.name, op.rules, op.stands_for, op.typologies, op.example[0], op.example[1]
            ));
        }
    }
    o
}

pub fn run(args: MutantsArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    if args.list {
        return super::out::emit(&list(args.format));
    }
    let config = ctx.config()?;
    let suite_args = SuiteArgs {
        suites: args.suites,
        mutators: args.mutators,
        generation: args.generation,
    };
    let loaded = super::load_all(&config, &suite_args)?;
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
                        "skipped": set.skipped,
                    })
                    .to_string(),
                );
                out.push('\n');
            }
            MutantFormat::Human => out.push_str(&table(suite, set)),
        }
    }
    super::out::emit(&faithprobe::text::escape::printable(&out))
}

/// The mutants reviewed broken, per operator, as a note line (empty when there are none).
fn broken_note(set: &MutantSet) -> String {
    let broken = set.broken_by_operator();
    if broken.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = broken.iter().map(|(op, n)| format!("{op} {n}")).collect();
    format!(
        "note: reviewed broken (defects of their operator, in no rate): {}\n",
        parts.join(", ")
    )
}

fn table(suite: &Suite, set: &MutantSet) -> String {
    let mut o = format!("{} ({})\n", suite.name, suite.path.display());
    let counts: Vec<String> = set
        .counts()
        .iter()
        .map(|(op, n)| format!("{op} {n}"))
        .collect();
    let rewrites = set.mutants.iter().filter(|m| m.is_rewrite()).count();
    let compound = set
        .mutants
        .iter()
        .filter(|m| m.compound_of.is_some())
        .count();
    o.push_str(&format!(
        "{} mutants{} and {rewrites} rewrites: {}\n",
        set.mutants.len() - rewrites,
        if compound > 0 {
            format!(" ({compound} of them compound: a fault in a rewrite)")
        } else {
            String::new()
        },
        counts.join(", ")
    ));
    for op in &set.empty_operators {
        o.push_str(&format!(
            "note: {op} produced no mutant on this suite (no claim matches its rules)\n"
        ));
    }
    o.push_str(&broken_note(set));
    for (h, op, parent) in &set.same_as_hard_case {
        o.push_str(&format!(
            "note: {op} of {parent} gives exactly hard case {h}; it is counted once, as the hard case\n"
        ));
    }
    for sk in &set.skipped {
        let compound = if sk.compound_of.is_some() {
            " (compound)"
        } else {
            ""
        };
        o.push_str(&format!(
            "note: skipped {}{compound} of {} ({}): {}\n",
            sk.operator, sk.parent, sk.why, sk.text
        ));
    }
    o.push_str(&format!(
        "{:<18} {:<18} {:<7} {:<14} {}\n",
        "id", "operator", "parent", "review", "text"
    ));
    let parents: std::collections::BTreeMap<&str, &str> = suite
        .contexts
        .iter()
        .flat_map(|c| c.faithful.iter())
        .map(|c| (c.id.as_str(), c.text.as_str()))
        .collect();
    for m in &set.mutants {
        o.push_str(&format!(
            "{:<18} {:<18} {:<7} {:<14} {}\n",
            m.id,
            m.operator,
            m.parent,
            m.review.as_str(),
            m.text
        ));
        // a compound fault names the rewrite it sits in
        if let Some(r) = &m.compound_of {
            let text = set
                .mutants
                .iter()
                .find(|x| &x.id == r)
                .map(|x| x.text.as_str())
                .unwrap_or("");
            o.push_str(&format!(
                "{:<18} compound: {} in rewrite {r}: {text}\n",
                "", m.operator
            ));
        }
        // a model's edit is shown word by word: where it changed the claim is not obvious
        if mutate::operator(m.operator).is_none() {
            if let Some(parent) = parents.get(m.parent.as_str()) {
                o.push_str(&format!(
                    "{:<18} diff: {}\n",
                    "",
                    mutate::llm::word_diff(parent, &m.text)
                ));
            }
        }
    }
    o
}
