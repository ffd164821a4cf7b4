//! Batch mode on the command line: `--batch submit|wait` on `run`, `score` and `report`, and
//! `faithprobe batch status|collect`.

use clap::{Args, Subcommand, ValueEnum};
use faithprobe::error::{Error, Exit};
use faithprobe::io::batch::{self, Report, RunInfo};
use faithprobe::io::replies::{self, Mode};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BatchMode {
    /// Send every LLM request the cache cannot answer to the provider's batch API, write a
    /// manifest and exit 6: nothing is scored until `faithprobe batch collect` and a rerun.
    Submit,
    /// Submit, then poll until every batch ended (or --batch-deadline), collect and score.
    Wait,
}

/// Batch mode: LLM requests through the provider's batch API, at its price.
#[derive(Args, Clone)]
pub struct BatchArgs {
    /// `submit`: queue every LLM request the cache cannot answer into the provider's batch API
    /// (`batch:` under the endpoint in faithprobe.yaml; default the OpenAI Batch API at
    /// `base_url`), write a manifest beside the cache and exit 6. `wait`: submit, poll, collect
    /// and score in one command.
    #[arg(long, value_enum, value_name = "MODE")]
    pub batch: Option<BatchMode>,
    /// With --batch: ask again for the requests a batch failed, expired or answered invalidly
    /// (they are errors of their cases until then).
    #[arg(long, requires = "batch")]
    pub retry_failed: bool,
    /// With --batch wait: give up waiting after this many seconds (default a day), leaving the
    /// batches to `faithprobe batch collect`.
    #[arg(long, value_name = "SECONDS", requires = "batch")]
    pub batch_deadline: Option<f64>,
}

/// How many times `--batch wait` submits before it gives up: a decomposer's batch, then the
/// judge's on its claims, needs two.
const MAX_ROUNDS: usize = 4;

/// The longest wait between two status checks under `--batch wait`.
const MAX_POLL: Duration = Duration::from_secs(600);

fn usage(m: impl Into<String>) -> anyhow::Error {
    Error::Usage(m.into()).into()
}

/// Sets the process's batch mode for a command that reads `cache`: replies collected from
/// batches answer LLM calls in every mode, and under `--batch` the requests of batches not yet
/// collected wait for them.
fn configure(args: &BatchArgs, cache: Option<&Path>) -> anyhow::Result<()> {
    let mode = match args.batch {
        None => Mode::Online,
        Some(_) => Mode::Submit {
            retry_failed: args.retry_failed,
        },
    };
    let pending = match (args.batch, cache) {
        (Some(_), None) => {
            return Err(usage(
                "--batch keeps the replies in the verdict cache: drop --no-cache",
            ))
        }
        (Some(_), Some(c)) => batch::outstanding(&batch::dir_of(c)).map_err(usage)?,
        (None, _) => BTreeMap::new(),
    };
    if let Some(d) = args.batch_deadline {
        if !(d.is_finite() && d > 0.0) {
            return Err(usage(format!(
                "--batch-deadline {d} must be a positive number of seconds"
            )));
        }
    }
    replies::configure(mode, cache, pending);
    Ok(())
}

/// Runs a command under its batch mode: once, or under `--batch wait` as often as it submits
/// (each time after its batches ended and were collected), until it scores.
pub fn drive(
    args: &BatchArgs,
    cache: Option<&Path>,
    once: &mut dyn FnMut() -> anyhow::Result<Exit>,
) -> anyhow::Result<Exit> {
    configure(args, cache)?;
    if args.batch != Some(BatchMode::Wait) {
        return once();
    }
    let cache = cache.expect("configure refuses --batch without a cache");
    let deadline =
        Instant::now() + Duration::from_secs_f64(args.batch_deadline.unwrap_or(86_400.0));
    for _ in 0..MAX_ROUNDS {
        let exit = once()?;
        if exit != Exit::BatchPending {
            return Ok(exit);
        }
        match wait(&batch::dir_of(cache), deadline)? {
            Waited::Done => {}
            Waited::Deadline => {
                errln!("--batch wait: the deadline passed with batches still running; they go on at the provider: `faithprobe batch collect` brings them back later, then rerun the command");
                return Ok(Exit::BatchPending);
            }
            Waited::Interrupted => {
                errln!("interrupted while waiting: the batches go on at the provider; `faithprobe batch collect` brings them back, then rerun the command");
                return Ok(Exit::Interrupted);
            }
        }
        configure(args, cache.into())?;
    }
    Err(usage(format!(
        "--batch wait submitted {MAX_ROUNDS} times and the command still asks for more; run it with --batch submit and collect by hand to see why"
    )))
}

enum Waited {
    Done,
    Deadline,
    Interrupted,
}

/// Collects every manifest of `dir` until none is pending, polling with backoff (from the
/// smallest `poll_s` of their targets, doubling up to ten minutes) until `deadline`.
fn wait(dir: &Path, deadline: Instant) -> anyhow::Result<Waited> {
    let mut poll: Option<Duration> = None;
    loop {
        let open: Vec<_> = batch::manifests(dir)
            .map_err(usage)?
            .into_iter()
            .filter(|(_, m)| !m.collected())
            .collect();
        if open.is_empty() {
            return Ok(Waited::Done);
        }
        let first = open
            .iter()
            .map(|(_, m)| m.target.poll_s)
            .fold(f64::INFINITY, f64::min);
        let mut pending = 0;
        for (path, _) in &open {
            let r = batch::collect(path).map_err(usage)?;
            for e in &r.errors {
                errln!("{e}");
            }
            pending += r.pending;
            if r.pending == 0 && r.errors.is_empty() {
                errln!("{}", summary(&r));
            }
        }
        if pending == 0 {
            return Ok(Waited::Done);
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(Waited::Deadline);
        }
        let next = poll.map_or(Duration::from_secs_f64(first), |p| (p * 2).min(MAX_POLL));
        poll = Some(next);
        errln!(
            "--batch wait: {pending} batch(es) still running; next look in {:.0} s",
            next.min(deadline - now).as_secs_f64()
        );
        if faithprobe::io::llm::sleep_interruptibly(next.min(deadline - now)) {
            return Ok(Waited::Interrupted);
        }
    }
}

/// The command line as a person would type it again, without the batch flags (the rerun scores
/// from the cache).
fn command_line() -> String {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut kept = vec!["faithprobe".to_string()];
    let mut skip = false;
    for a in &args {
        if skip {
            skip = false;
            continue;
        }
        match a.as_str() {
            "--batch" | "--batch-deadline" => skip = true,
            "--retry-failed" => {}
            _ if a.starts_with("--batch=") || a.starts_with("--batch-deadline=") => {}
            _ => kept.push(shell_word(a)),
        }
    }
    kept.join(" ")
}

/// A word the shell reads back as it is: quoted when it holds anything but plain characters.
fn shell_word(w: &str) -> String {
    if !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./:=,@%+-".contains(c))
    {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// The inputs a run read, each with the first 16 hex digits of its SHA-256.
fn fingerprint(inputs: &[&Path]) -> String {
    inputs
        .iter()
        .map(|p| match std::fs::read(p) {
            Ok(b) => format!(
                "{} sha256:{}",
                p.display(),
                faithprobe::text::hash::sha256_hex(&b, 8)
            ),
            Err(_) => format!("{} (not a file)", p.display()),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// After a command scored under `--batch`: submits what it queued and returns exit 6, or None
/// when nothing was queued and nothing waits (the command goes on to report what it scored).
pub fn after_scoring(
    args: &BatchArgs,
    cache: Option<&Path>,
    inputs: &[&Path],
    settings: BTreeMap<String, String>,
) -> anyhow::Result<Option<Exit>> {
    if args.batch.is_none() {
        return Ok(None);
    }
    let cache = cache.expect("configure refuses --batch without a cache");
    let (queue, mut waiting) = replies::take_queue();
    if queue.is_empty() && waiting == 0 {
        errln!("--batch: every LLM request was answered from the cache; nothing to submit");
        return Ok(None);
    }
    let command = command_line();
    if !queue.is_empty() {
        let run = RunInfo {
            command: command.clone(),
            input: fingerprint(inputs),
            settings,
        };
        let (submitted, meanwhile) =
            batch::submit(&queue, &batch::dir_of(cache), cache, &run).map_err(usage)?;
        waiting += meanwhile;
        for s in &submitted {
            let m = s.manifest.display();
            errln!(
                "submitted {} requests to the {} batch API in {} batch(es) ({}){}; manifest {m}",
                s.requests,
                s.provider.name(),
                s.batches.len(),
                s.batches.join(", "),
                match s.estimate {
                    Some(e) => format!(", estimated {e:.4} at the batch price"),
                    None => String::new(),
                }
            );
        }
    }
    if waiting > 0 {
        errln!("{waiting} requests wait for batches submitted earlier");
    }
    if args.batch == Some(BatchMode::Submit) {
        errln!(
            "nothing was scored or written yet. Next: `faithprobe batch status` shows progress; once the batches ended, `faithprobe batch collect` brings the replies into {}; then rerun `{command}`",
            cache.display()
        );
    }
    Ok(Some(Exit::BatchPending))
}

/// `faithprobe batch ...`.
#[derive(Subcommand)]
pub enum BatchCommand {
    /// Show each batch's progress at its provider (nothing is downloaded).
    Status(ManifestArgs),
    /// Download what ended into the cache (validating each reply), say what is still pending;
    /// safe to run again at any time.
    Collect(ManifestArgs),
}

#[derive(Args)]
pub struct ManifestArgs {
    /// Manifests to look at (default: every manifest beside the cache, in its `batches/`).
    pub manifests: Vec<PathBuf>,
    /// The cache whose `batches/` folder holds the manifests.
    #[arg(long, default_value = faithprobe::check::cache::DEFAULT_CACHE)]
    pub cache: PathBuf,
}

pub fn run(what: BatchCommand) -> anyhow::Result<Exit> {
    let (args, collecting) = match what {
        BatchCommand::Status(a) => (a, false),
        BatchCommand::Collect(a) => (a, true),
    };
    let paths: Vec<PathBuf> = if args.manifests.is_empty() {
        let dir = batch::dir_of(&args.cache);
        let all = batch::manifests(&dir).map_err(usage)?;
        if all.is_empty() {
            return Err(usage(format!(
                "no batch manifest in {}: `--batch submit` on run, score or report writes one",
                dir.display()
            )));
        }
        all.into_iter().map(|(p, _)| p).collect()
    } else {
        args.manifests.clone()
    };
    let mut out = String::new();
    let mut exit = Exit::Ok;
    for p in &paths {
        let r = if collecting {
            batch::collect(p)
        } else {
            batch::status(p)
        }
        .map_err(usage)?;
        for e in &r.errors {
            errln!("{e}");
        }
        if r.pending > 0 || !r.errors.is_empty() || (collecting && !r.manifest.collected()) {
            exit = Exit::BatchPending;
        }
        out.push_str(&render(&r));
    }
    match super::out::emit(&out)? {
        Exit::Ok => Ok(exit),
        failed => Ok(failed),
    }
}

/// One manifest's lines for `batch status` and `batch collect`.
fn render(r: &Report) -> String {
    let m = &r.manifest;
    let mut s = format!(
        "{}: {} batch API at {}, model {}, submitted {}\n",
        r.path.display(),
        m.target.provider.name(),
        faithprobe::io::llm::display_url(&m.target.base_url),
        m.model(),
        m.created
    );
    for l in &r.lines {
        s.push_str(&format!(
            "  batch {}: {} ({}), {} requests{}\n",
            l.id,
            l.status,
            l.progress,
            l.requests,
            if l.collected {
                format!(
                    ", {} replies and {} failed in the cache",
                    l.succeeded, l.failed
                )
            } else {
                String::new()
            }
        ));
    }
    s.push_str(&format!("  {}\n", summary(r)));
    s
}

/// What a manifest's collected batches hold and what to do next.
fn summary(r: &Report) -> String {
    let m = &r.manifest;
    let (ok, failed, pt, ct) =
        m.batches
            .iter()
            .filter(|b| b.collected)
            .fold((0, 0, 0, 0), |(a, b, c, d), x| {
                (
                    a + x.succeeded,
                    b + x.failed,
                    c + x.prompt_tokens,
                    d + x.completion_tokens,
                )
            });
    let cost = match r.cost() {
        Some(c) => format!(
            "cost {c:.4} at the batch price (by `prices:` for {})",
            m.model()
        ),
        None => format!("cost unknown (no price for {} under `prices:`)", m.model()),
    };
    let next = if m.collected() {
        let retry = if failed > 0 {
            format!(
                "; {failed} requests failed: they are errors of their cases until you ask again with `{} --batch submit --retry-failed`",
                m.command
            )
        } else {
            String::new()
        };
        format!("next: rerun `{}` to score from the cache{retry}", m.command)
    } else {
        format!(
            "next: `faithprobe batch collect {}` once the batches ended",
            r.path.display()
        )
    };
    format!("collected so far: {ok} replies, {failed} failed; {pt} prompt + {ct} completion tokens, {cost}; {next}")
}
