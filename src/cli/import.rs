//! `faithprobe import`: public labelled data as a faithprobe log (for `score`) and a suite of
//! real cases (for `run`).

use clap::{Args, Subcommand, ValueEnum};
use faithprobe::error::Exit;
use faithprobe::import::{faithbench::Pool, sentences::Rule, Imported, Outputs};
use std::path::{Path, PathBuf};

#[derive(Subcommand)]
pub enum ImportCommand {
    /// RAGTruth (`response.jsonl` + `source_info.jsonl`): a log with the annotators' labels
    /// for `score`'s agreement figures, and optionally a suite of real cases.
    Ragtruth(RagtruthArgs),
    /// FaithBench (a batch's JSON: `{"samples": [...]}` or the raw annotation list): summaries
    /// with annotators' spans, pooled with `--pool`.
    Faithbench(FaithbenchArgs),
    /// LLM-AggreFact rows (`doc`, `claim`, `label` 1/0, `dataset`): JSON Lines, or CSV with a
    /// header row for a file named `*.csv`.
    Aggrefact(FileArgs),
    /// HaluEval QA, dialogue or summarization data (one JSON object per line with a right and a
    /// hallucinated output).
    Halueval(FileArgs),
    /// Sentence-labelled summaries as QAGS ships them (`mturk_cnndm.jsonl`, `mturk_xsum.jsonl`:
    /// `article`, `summary_sentences` with workers' yes/no votes), read with `--rule`.
    Sentences(SentencesArgs),
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
    #[arg(long, visible_alias = "suite")]
    pub hard_cases: Option<PathBuf>,
}

/// Where an importer writes: a suite, a log, or both.
#[derive(Args)]
#[command(group = clap::ArgGroup::new("outputs").args(["suite", "log"]).required(true).multiple(true))]
pub struct OutputArgs {
    /// The suite to write: one context per source document, verified claims and real errors as
    /// hard cases (`hard_case_source: real`).
    #[arg(long)]
    pub suite: Option<PathBuf>,
    /// The log to write for `score` (JSON Lines; each answer has `context`, `tag`, `label`).
    #[arg(long)]
    pub log: Option<PathBuf>,
    /// The contexts file the log refers to (default: the log's name with `.contexts.jsonl`).
    #[arg(long, requires = "log")]
    pub contexts: Option<PathBuf>,
}

#[derive(Args)]
pub struct FileArgs {
    /// The data file.
    pub file: PathBuf,
    #[command(flatten)]
    pub out: OutputArgs,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum PoolArg {
    /// The most severe label any annotator gave (FaithBench's default).
    Worst,
    /// The least severe label given.
    Best,
}

#[derive(Args)]
pub struct FaithbenchArgs {
    /// The batch file (data_for_release/batch_N.json or annot/batch_N_annotation.json).
    pub file: PathBuf,
    /// How the annotators' labels become one, as FaithBench's binarize.py defines it.
    #[arg(long, value_enum, default_value = "worst")]
    pub pool: PoolArg,
    #[command(flatten)]
    pub out: OutputArgs,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum RuleArg {
    /// Supported when more than half the votes are yes; a tie is unsupported.
    Majority,
    /// Supported only when every vote is yes.
    Unanimous,
}

#[derive(Args)]
pub struct SentencesArgs {
    /// The JSON Lines file (e.g. QAGS' data/mturk_xsum.jsonl).
    pub file: PathBuf,
    /// How workers' votes become a sentence's label.
    #[arg(long, value_enum, default_value = "majority")]
    pub rule: RuleArg,
    #[command(flatten)]
    pub out: OutputArgs,
}

/// The contexts file of a log: given, or the log's name with `.contexts.jsonl`.
fn contexts_of(log: &Path, contexts: Option<&Path>) -> PathBuf {
    contexts.map(Path::to_path_buf).unwrap_or_else(|| {
        let stem = log
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "log".into());
        log.with_file_name(format!("{stem}.contexts.jsonl"))
    })
}

pub fn run(cmd: ImportCommand) -> anyhow::Result<Exit> {
    let (file, out, import): (&Path, &OutputArgs, Importer) = match &cmd {
        ImportCommand::Ragtruth(a) => return ragtruth(a),
        ImportCommand::Faithbench(a) => {
            let pool = match a.pool {
                PoolArg::Worst => Pool::Worst,
                PoolArg::Best => Pool::Best,
            };
            let f: Importer =
                Box::new(move |p, o| faithprobe::import::faithbench::faithbench(p, o, pool));
            (&a.file, &a.out, f)
        }
        ImportCommand::Aggrefact(a) => (
            &a.file,
            &a.out,
            Box::new(faithprobe::import::aggrefact::aggrefact),
        ),
        ImportCommand::Halueval(a) => (
            &a.file,
            &a.out,
            Box::new(faithprobe::import::halueval::halueval),
        ),
        ImportCommand::Sentences(a) => {
            let rule = match a.rule {
                RuleArg::Majority => Rule::Majority,
                RuleArg::Unanimous => Rule::Unanimous,
            };
            let f: Importer =
                Box::new(move |p, o| faithprobe::import::sentences::sentences(p, o, rule));
            (&a.file, &a.out, f)
        }
    };
    let contexts = out
        .log
        .as_deref()
        .map(|l| contexts_of(l, out.contexts.as_deref()));
    let mut outputs: Vec<(&str, &Path)> = Vec::new();
    if let Some(s) = &out.suite {
        outputs.push(("--suite", s));
    }
    if let (Some(l), Some(c)) = (&out.log, &contexts) {
        outputs.push(("--log", l));
        outputs.push(("--contexts", c));
    }
    faithprobe::io::paths::check_outputs(&[("the input", file)], &outputs)?;
    let o = Outputs {
        log: out.log.as_deref().zip(contexts.as_deref()),
        suite: out.suite.as_deref(),
    };
    let got = import(file, &o)?;
    report(&got, &o, false);
    Ok(Exit::Ok)
}

type Importer = Box<dyn Fn(&Path, &Outputs) -> faithprobe::error::Result<Imported>>;

/// What was made, and the commands that read it (`ragtruth`: in RAGTruth's words).
fn report(got: &Imported, o: &Outputs, ragtruth: bool) {
    if let Some((log, contexts)) = o.log {
        errln!(
            "imported {} answers ({} labelled hallucinated) over {} sources: {} (passages in {})",
            got.answers,
            got.hallucinated,
            got.sources,
            log.display(),
            contexts.display()
        );
    }
    if let Some(suite) = o.suite {
        errln!(
            "{} verified claims, {} real errors in {} contexts: {}",
            got.faithful_claims,
            got.hard_cases,
            got.contexts,
            suite.display()
        );
        notes(got, ragtruth);
    }
    if let Some(suite) = o.suite {
        errln!("next: faithprobe run {}", suite.display());
    }
    if let Some((log, contexts)) = o.log {
        errln!(
            "next: faithprobe score {} --contexts {}",
            log.display(),
            contexts.display()
        );
    }
}

/// Notes on what did not become a case as it might have.
fn notes(got: &Imported, ragtruth: bool) {
    if got.conflicting > 0 && ragtruth {
        errln!(
            "note: {} sentence(s) were clean in one answer and under a span in another: they are hard cases with the annotated label, not verified claims",
            got.conflicting
        );
    } else if got.conflicting > 0 {
        errln!(
            "note: {} claim(s) were supported in one record and an error in another: they are real errors, not verified claims",
            got.conflicting
        );
    }
    // RAGTruth's sentences outside the spans of a flagged answer are left out by design
    if got.left_out > 0 && !ragtruth {
        errln!(
            "note: {} labelled sentence(s) are neither verified nor an error (benign or questionable, outside the spans of a flagged answer, or with no vote): left out",
            got.left_out
        );
    }
    if got.ties > 0 {
        errln!(
            "note: {} sentence(s) had as many yes as no votes: unsupported under --rule majority",
            got.ties
        );
    }
    if got.empty_sources > 0 {
        errln!(
            "note: {} source(s) have no text: their answers are in the log, but the suite has no context for them",
            got.empty_sources
        );
    }
}

fn ragtruth(a: &RagtruthArgs) -> anyhow::Result<Exit> {
    let contexts = contexts_of(&a.log, a.contexts.as_deref());
    let (responses, sources) = (
        a.dir.join("response.jsonl"),
        a.dir.join("source_info.jsonl"),
    );
    let mut outputs: Vec<(&str, &Path)> = vec![("--log", &a.log), ("--contexts", &contexts)];
    if let Some(h) = &a.hard_cases {
        outputs.push(("--hard-cases", h));
    }
    faithprobe::io::paths::check_outputs(
        &[
            ("the input", responses.as_path()),
            ("the input", sources.as_path()),
        ],
        &outputs,
    )?;
    let got = faithprobe::import::ragtruth(&a.dir, &a.log, &contexts, a.hard_cases.as_deref())?;
    let o = Outputs {
        log: Some((&a.log, &contexts)),
        suite: a.hard_cases.as_deref(),
    };
    report(&got, &o, true);
    Ok(Exit::Ok)
}
