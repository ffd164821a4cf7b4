//! `faithprobe compare`: two records case by case (exact McNemar on the changes), or two checkers
//! run on the same suites and compared.

use super::{CacheArgs, ConfidenceArg, Ctx};
use clap::{Args, ValueEnum};
use faithprobe::answers::score::{Definition, ScoreRecord};
use faithprobe::engine::record::{AnyRecord, Record};
use faithprobe::error::{Error, Exit};
use faithprobe::gate::answers::{compare_answers, AnswerCompareOptions};
use faithprobe::gate::compare;
use faithprobe::report;
use std::path::PathBuf;

/// How the p-values of the gating rows are combined.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AdjustArg {
    /// Holm's step-down: the gate fails an unchanged checker in at most alpha of comparisons.
    Holm,
    /// Each p-value times the number of gating rows.
    Bonferroni,
    /// Each row at alpha (more rows, more false fails).
    None,
}

impl From<AdjustArg> for faithprobe::stats::Adjust {
    fn from(a: AdjustArg) -> Self {
        match a {
            AdjustArg::Holm => faithprobe::stats::Adjust::Holm,
            AdjustArg::Bonferroni => faithprobe::stats::Adjust::Bonferroni,
            AdjustArg::None => faithprobe::stats::Adjust::None,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompareFormat {
    Human,
    Json,
    /// For a pull-request comment.
    Markdown,
    /// JUnit XML: a failing test case per gating row that got significantly worse.
    Junit,
}

/// Compare two run records case by case (exact McNemar on the changes), or run two checkers on
/// suites and compare them. Exit 1 when the candidate is significantly worse on any fault type or
/// on false alarms, or newly misses more faults than allowed.
#[derive(Args)]
pub struct CompareArgs {
    /// BASE.json CANDIDATE.json (run or score records), or suite files with --checker A
    /// --checker B.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Base checker, then candidate checker (run both on the suites given).
    #[arg(long = "checker")]
    pub checkers: Vec<String>,
    /// Significance level of the gate.
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// A rule on top of the statistical gate (it has no error rate: an equally good checker
    /// that differs can fail it): fail when more faults (score records: answers) than this are
    /// newly missed. Default `off`.
    #[arg(long, default_value = "off", value_parser = parse_limit)]
    pub max_new_misses: Limit,
    /// A rule (no error rate): fail when more faithful cases than this are newly flagged (run
    /// records). Default `off`.
    #[arg(long, default_value = "off", value_parser = parse_limit)]
    pub max_new_false_alarms: Limit,
    /// Non-inferiority on false alarms (run records): also fail unless the candidate shows its
    /// false-alarm rate is less than this much above the base's (the one-sided 1 - alpha upper
    /// bound on the paired rise under the margin). A candidate truly worse by the margin passes
    /// at most alpha of the time; an equally good one can fail on a small suite (the guide:
    /// docs/src/concepts/gate-statistics.md).
    #[arg(long, value_name = "RISE")]
    pub false_alarm_margin: Option<f64>,
    /// How the p-values of the gating rows are combined into one decision.
    #[arg(long, value_enum, default_value_t = AdjustArg::Holm)]
    pub adjust: AdjustArg,
    /// Rows that decide the gate (repeat): `false_alarms`, `all_faults` or a fault type; the
    /// others are still reported, marked as not gating. Default: every row.
    #[arg(long = "gate-on")]
    pub gate_on: Vec<String>,
    /// Say "too few cases" for a row whose detectable drop (80% power) is larger than this.
    #[arg(long, default_value_t = 0.10)]
    pub min_detectable: f64,
    #[arg(long, value_enum, default_value_t = CompareFormat::Human)]
    pub format: CompareFormat,
    #[command(flatten)]
    pub confidence: ConfidenceArg,
    /// Folder of mutator rule files (with --checker).
    #[arg(long)]
    pub mutators: Option<PathBuf>,
    #[command(flatten)]
    pub generation: super::GenerationArgs,
    #[command(flatten)]
    pub cache: CacheArgs,
    /// Score records: pair answers by this key instead of the answer id (`question`, `tag`,
    /// `context`, or a key of the log such as `source_id`), to compare two generators' answers
    /// to the same sources.
    #[arg(long)]
    pub pair_by: Option<String>,
    /// What moves together. Run records: `context` (default: claims checked against one
    /// context's passages are one cluster) or `claim` (a claim and its mutants). Score records:
    /// answers that share this key's value are one cluster (`question`, `context`, or a key of
    /// the log such as `source_id`). The paired test counts a cluster's net change once and the
    /// rates get cluster-aware intervals.
    #[arg(long)]
    pub cluster_by: Option<String>,
    /// Score records: also compare within each value of this key (a dataset, a source type),
    /// for reading; the gate decides on the whole.
    #[arg(long)]
    pub stratify_by: Option<String>,
    /// Score records: when an answer counts as unsupported, `any` (default) or `share:R`.
    #[arg(long, value_parser = faithprobe::answers::score::AnswerRule::parse)]
    pub answer_rule: Option<faithprobe::answers::score::AnswerRule>,
    /// Also compare the two checkers at thresholds that give both this false-alarm rate on the
    /// faithful cases (default: the base's own rate; shown when the checkers differ or this is
    /// given).
    #[arg(long, value_parser = super::parse_unit)]
    pub at_false_alarm: Option<f64>,
    /// Warn when a checker's informative-mutant catch rate is further than this from its recall
    /// on the suite's real errors (hard cases with `source: real`).
    #[arg(long, default_value_t = 0.10, value_parser = super::parse_unit)]
    pub max_gap: f64,
    /// Score records: the definitions to compare (repeat; default both, Holm-adjusted together).
    #[arg(long = "definition", value_enum)]
    pub definitions: Vec<super::score::DefinitionArg>,
}

/// `--alpha` and `--false-alarm-margin` are strictly between 0 and 1, `--min-detectable` in
/// (0, 1].
fn check_ranges(args: &CompareArgs) -> Result<(), Error> {
    let alpha = args.alpha;
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(Error::Usage(format!(
            "--alpha {alpha} must be between 0 and 1"
        )));
    }
    if !(args.min_detectable > 0.0 && args.min_detectable <= 1.0) {
        return Err(Error::Usage(format!(
            "--min-detectable {} must be in (0, 1]",
            args.min_detectable
        )));
    }
    if let Some(m) = args.false_alarm_margin.filter(|m| !(*m > 0.0 && *m < 1.0)) {
        return Err(Error::Usage(format!(
            "--false-alarm-margin {m} must be between 0 and 1"
        )));
    }
    Ok(())
}

pub fn run(args: CompareArgs, ctx: &Ctx) -> anyhow::Result<Exit> {
    let confidence = args.confidence.checked()?;
    let alpha = args.alpha;
    check_ranges(&args)?;
    let (base, candidate) = match args.checkers.len() {
        0 => match read_records(&args)? {
            Pair::Runs(b, c) => (b, c),
            Pair::Scores(_, _) if args.false_alarm_margin.is_some() => {
                return Err(Error::Usage(
                    "--false-alarm-margin applies to run records (faithprobe run --record): score records have no faithful cases a person verified".into(),
                )
                .into())
            }
            Pair::Scores(b, c) => return compare_scores(&args, ctx, &b, &c, confidence),
        },
        2 => match run_checkers(&args, ctx)? {
            Some(pair) => pair,
            None => return Ok(Exit::Interrupted),
        },
        n => {
            return Err(Error::Usage(format!(
                "compare takes --checker exactly twice (base, then candidate), not {n} times"
            ))
            .into())
        }
    };
    if args.pair_by.is_some()
        || args.answer_rule.is_some()
        || args.stratify_by.is_some()
        || !args.definitions.is_empty()
    {
        return Err(Error::Usage(
            "--pair-by, --answer-rule, --stratify-by and --definition apply to score records (faithprobe score --record); run records pair cases by id".into(),
        )
        .into());
    }
    let opts = compare::GateOptions {
        alpha,
        max_new_misses: args.max_new_misses.0,
        max_new_false_alarms: args.max_new_false_alarms.0,
        confidence,
        adjust: args.adjust.into(),
        gate_on: (!args.gate_on.is_empty()).then(|| args.gate_on.clone()),
        min_detectable: args.min_detectable,
        false_alarm_margin: args.false_alarm_margin,
        cluster_by: match args.cluster_by.as_deref() {
            None | Some("context") => compare::ClusterBy::Context,
            Some("claim") => compare::ClusterBy::Claim,
            Some(other) => {
                return Err(Error::Usage(format!(
                "--cluster-by {other}: run records cluster by `context` (the default) or `claim`"
            ))
                .into())
            }
        },
    };
    let mut cmp = compare::compare(&base, &candidate, &opts)?;
    let files: Vec<String> = args
        .inputs
        .iter()
        .map(|p| {
            p.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        })
        .collect();
    let from_files = args.checkers.is_empty() && files.len() == 2;
    (cmp.base, cmp.candidate) = compare::side_labels(
        &base,
        &candidate,
        from_files.then(|| (files[0].as_str(), files[1].as_str())),
    );
    // what the mutation scores are worth: the two at the same false-alarm rate, threshold-free,
    // and each one's gap to recall on real errors
    let popts = faithprobe::engine::proxy::ProxyOptions {
        confidence,
        alpha,
        at_false_alarm: args.at_false_alarm,
        max_gap: args.max_gap,
    };
    let two_checkers = base.runs.first().map(|r| &r.checker.name)
        != candidate.runs.first().map(|r| &r.checker.name);
    let matched = (two_checkers || args.at_false_alarm.is_some())
        .then(|| faithprobe::engine::proxy::matched(&base, &candidate, &popts))
        .flatten();
    let real =
        faithprobe::engine::proxy::real_errors(&[&base, &candidate], matched.as_ref(), &popts);
    // asked for, but not possible: say why rather than leave the section out
    let no_match = ((two_checkers || args.at_false_alarm.is_some()) && matched.is_none()).then_some(
        "\nAt the same false-alarm rate: not possible here: the records need faithful cases (verified claims or hard cases labelled supported) to hold both checkers to one false-alarm rate, and faults scored by both\n",
    );
    let text = render(&args, ctx, &cmp, matched.as_ref(), real.as_ref(), no_match)?;
    super::out::emit_then(&text, cmp.exit_code())
}

/// The comparison of run records in `--format`, with the two checkers at the same false-alarm
/// rate (`matched`, or why that is not possible: `no_match`) and each one's gap to the recall on
/// real errors.
fn render(
    args: &CompareArgs,
    ctx: &Ctx,
    cmp: &compare::Comparison,
    matched: Option<&faithprobe::engine::proxy::Matched>,
    real: Option<&faithprobe::engine::proxy::RealErrors>,
    no_match: Option<&str>,
) -> anyhow::Result<String> {
    let plain = report::Paint { color: false };
    Ok(match args.format {
        CompareFormat::Human => {
            let mut t = report::compare::human(cmp, ctx.paint());
            if let Some(m) = matched {
                t.push_str(&report::proxy::matched(m, ctx.paint(), false));
            }
            t.push_str(no_match.unwrap_or(""));
            if let Some(r) = real {
                t.push_str(&report::proxy::real_errors(r, ctx.paint(), false));
            }
            t
        }
        CompareFormat::Json => {
            /// The comparison's own fields in their order, then the proxy checks.
            #[derive(serde::Serialize)]
            struct WithProxy<'a> {
                #[serde(flatten)]
                cmp: &'a compare::Comparison,
                #[serde(skip_serializing_if = "Option::is_none")]
                matched: Option<&'a faithprobe::engine::proxy::Matched>,
                #[serde(skip_serializing_if = "Option::is_none")]
                real_errors: Option<&'a faithprobe::engine::proxy::RealErrors>,
            }
            let doc = WithProxy {
                cmp,
                matched,
                real_errors: real,
            };
            serde_json::to_string(&doc)? + "\n"
        }
        CompareFormat::Markdown => {
            let mut t = report::compare::markdown(cmp);
            if let Some(m) = matched {
                t.push_str(&report::proxy::matched(m, plain, true));
            }
            t.push_str(no_match.unwrap_or(""));
            if let Some(r) = real {
                t.push_str(&report::proxy::real_errors(r, plain, true));
            }
            t
        }
        CompareFormat::Junit => report::compare::junit(cmp),
    })
}

/// Two records of one kind.
enum Pair {
    Runs(Record, Record),
    Scores(Box<ScoreRecord>, Box<ScoreRecord>),
}

/// The two record files, each read once; a shard's record or two records of different kinds
/// are errors.
fn read_records(args: &CompareArgs) -> Result<Pair, Error> {
    if args.inputs.len() != 2 {
        return Err(Error::Usage(
            "compare takes two records (BASE.json CANDIDATE.json), or --checker A --checker B and suites".into(),
        ));
    }
    let (b, c) = (
        AnyRecord::load(&args.inputs[0])?,
        AnyRecord::load(&args.inputs[1])?,
    );
    // a shard's record is part of a run, not the run: comparing it would pass on half
    for (path, r) in [(&args.inputs[0], &b), (&args.inputs[1], &c)] {
        let shard = match r {
            AnyRecord::Run(x) => x.runs.iter().find_map(|run| run.shard),
            AnyRecord::Score(x) => x.shard,
        };
        if let Some(sh) = shard {
            return Err(Error::Usage(format!(
                "{} is the record of shard {sh} only, not of the whole run; join every shard first: faithprobe merge SHARD.json... --out WHOLE.json",
                path.display()
            )));
        }
    }
    match (b, c) {
        (AnyRecord::Run(b), AnyRecord::Run(c)) => Ok(Pair::Runs(b, c)),
        (AnyRecord::Score(b), AnyRecord::Score(c)) => Ok(Pair::Scores(Box::new(b), Box::new(c))),
        _ => Err(Error::Usage(format!(
            "{} and {} are records of different kinds (one a run record, one a score record); compare two of the same kind",
            args.inputs[0].display(),
            args.inputs[1].display()
        ))),
    }
}

/// Runs both configured checkers on the suites given; `None` after Ctrl-C.
fn run_checkers(args: &CompareArgs, ctx: &Ctx) -> Result<Option<(Record, Record)>, Error> {
    let mut outputs: Vec<(&str, &std::path::Path)> = Vec::new();
    if let Some(c) = args.cache.path() {
        outputs.push(("--cache", c));
    }
    let inputs: Vec<(&str, &std::path::Path)> = args
        .inputs
        .iter()
        .map(|p| ("the input", p.as_path()))
        .collect();
    super::guard_outputs(ctx, &inputs, &outputs)?;
    let config = ctx.config()?;
    let suites = super::SuiteArgs {
        suites: args.inputs.clone(),
        mutators: args.mutators.clone(),
        generation: args.generation.clone(),
    };
    let loaded = super::load_all(&config, &suites)?;
    for line in super::run::left_out_notes(&loaded) {
        errln!("{line}");
    }
    let mut records = Vec::new();
    for name in &args.checkers {
        let checker = config.checker(name, args.cache.path())?;
        let runs = super::score_suites(&loaded, checker.as_ref());
        if faithprobe::io::interrupt::requested() {
            super::interrupted(&runs, args.cache.path());
            return Ok(None);
        }
        records.push(Record::new(super::records(&loaded, &runs)));
    }
    let c = records.pop().expect("two records");
    Ok(Some((records.pop().expect("two records"), c)))
}

/// Compares two score records answer by answer under each definition.
fn compare_scores(
    args: &CompareArgs,
    ctx: &Ctx,
    b: &ScoreRecord,
    c: &ScoreRecord,
    confidence: f64,
) -> anyhow::Result<Exit> {
    for (path, r) in [(&args.inputs[0], b), (&args.inputs[1], c)] {
        if r.lines_not_read > 0 {
            errln!(
                "warning: {}: {} line(s) of its log could not be read when it was scored; those answers are in neither side of the comparison",
                path.display(),
                r.lines_not_read
            );
        }
    }
    if args.pair_by.is_none()
        && !b.log_sha256.is_empty()
        && !c.log_sha256.is_empty()
        && b.log_sha256 != c.log_sha256
    {
        errln!(
            "warning: the two records scored different logs (sha256 {}… and {}…); answers are paired by id, so check that the ids mean the same answers, or pair by a key with --pair-by",
            &b.log_sha256[..12],
            &c.log_sha256[..12]
        );
    }
    let definitions = if args.definitions.is_empty() {
        vec![Definition::Strict, Definition::NonContradiction]
    } else {
        let mut d: Vec<Definition> = Vec::new();
        for x in &args.definitions {
            let x: Definition = (*x).into();
            if !d.contains(&x) {
                d.push(x);
            }
        }
        d
    };
    let cmp = compare_answers(
        b,
        c,
        &AnswerCompareOptions {
            definitions,
            alpha: args.alpha,
            max_new_broken: args.max_new_misses.0,
            confidence,
            adjust: args.adjust.into(),
            pair_by: args.pair_by.clone(),
            cluster_by: args.cluster_by.clone(),
            stratify_by: args.stratify_by.clone(),
            answer_rule: args
                .answer_rule
                .unwrap_or(faithprobe::answers::score::AnswerRule::Any),
        },
    )?;
    let text = match args.format {
        CompareFormat::Json => serde_json::to_string(&cmp)? + "\n",
        CompareFormat::Human => report::answers::compare::comparison(&cmp, ctx.paint()),
        CompareFormat::Markdown => report::answers::compare::comparison_markdown(&cmp),
        CompareFormat::Junit => report::answers::compare::comparison_junit(&cmp),
    };
    super::out::emit_then(&text, cmp.exit_code())
}

/// A count limit that can be switched off.
#[derive(Clone, Copy, Debug)]
pub struct Limit(pub Option<u64>);

fn parse_limit(s: &str) -> Result<Limit, String> {
    if s == "off" {
        return Ok(Limit(None));
    }
    s.parse::<u64>()
        .map(|n| Limit(Some(n)))
        .map_err(|_| format!("`{s}` is neither a count (0, 1, 2, ...) nor `off`"))
}
