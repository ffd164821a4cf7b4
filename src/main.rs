//! The `faithprobe` binary: parses the command line and dispatches to one file per command
//! (`src/cli/`). Errors become exit codes here and nowhere else.

/// `writeln!` into a `String` a command builds before it writes it out through `cli::out`
/// (writing into a String cannot fail).
macro_rules! outln {
    ($o:expr, $($t:tt)*) => {{
        use std::fmt::Write as _;
        let _ = writeln!($o, $($t)*);
    }};
}

/// `eprintln!` through `cli::out::note`: escaped like everything printed, and never a panic
/// (a terminal that went away, a full or closed stderr).
macro_rules! errln {
    ($($t:tt)*) => {
        $crate::cli::out::note(&format!($($t)*))
    };
}

mod cli;

use clap::{Parser, Subcommand};
use cli::{ColorChoice, Ctx};
use faithprobe::error::{Error, Exit};
use std::path::PathBuf;
use std::process::ExitCode;

/// mimalloc, not the system allocator: mutant generation and the lexical checker make many small,
/// short-lived strings and sets, and with glibc's malloc a suite load spent about a tenth of its
/// time allocating and freeing (BENCHMARKS.md, "A faster allocator"). The benches that run the
/// library in-process declare the same allocator, so they measure what the binary does.
/// Built without transparent huge pages (Cargo.toml's `no_thp`): on a kernel that gives them only
/// when asked, a fault on a fresh huge page could stall for tens of milliseconds compacting memory
/// (BENCHMARKS.md, "No huge pages from the allocator").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "faithprobe",
    version,
    about = "Tests the testers of RAG systems: how often a faithfulness checker raises false alarms, and which injected faults it catches"
)]
struct Cli {
    /// When to colour output (NO_COLOR is honoured under `auto`).
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    /// Config file with named checkers (default: $FAITHPROBE_CONFIG, else ./faithprobe.yaml when
    /// present).
    #[arg(long, global = true, env = "FAITHPROBE_CONFIG")]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Run(cli::run::RunArgs),
    Compare(cli::compare::CompareArgs),
    Sweep(cli::sweep::SweepArgs),
    Report(cli::report::ReportArgs),
    Score(cli::score::ScoreArgs),
    DecomposeEval(cli::decompose_eval::DecomposeEvalArgs),
    OmissionsEval(cli::omissions_eval::OmissionsEvalArgs),
    Check(cli::check::CheckArgs),
    /// Say what faithprobe found (ONNX Runtime, each configured checker and model) and what to do
    /// about anything missing.
    Doctor,
    /// Quick sums: Wilson intervals, exact McNemar p-values, sample sizes.
    Stats {
        #[command(subcommand)]
        what: cli::stats::StatsCommand,
    },
    Mutants(cli::mutants::MutantsArgs),
    Review(cli::review::ReviewArgs),
    /// Manage snapshots.
    Snapshot {
        #[command(subcommand)]
        action: cli::snapshot::SnapshotAction,
    },
    Init(cli::init::InitArgs),
    Merge(cli::merge::MergeArgs),
    /// Build suites: `suite from-log LOG --out SUITE.yaml` drafts one from logged answers.
    Suite {
        #[command(subcommand)]
        what: cli::suite::SuiteCommand,
    },
    /// Provider batch APIs: `batch status` shows what `--batch submit` sent, `batch collect`
    /// brings the replies into the cache.
    Batch {
        #[command(subcommand)]
        what: cli::batch::BatchCommand,
    },
    /// Turn public human-labelled data into a faithprobe log (and suite).
    Import {
        #[command(subcommand)]
        what: cli::import::ImportCommand,
    },
    /// Print a shell completion script: `faithprobe completions bash > /etc/bash_completion.d/faithprobe`.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff): `faithprobe man > faithprobe.1 && man ./faithprobe.1`;
    /// `faithprobe man run` prints one command's page, `faithprobe man --dir DIR` writes every
    /// page (faithprobe.1, faithprobe-run.1, faithprobe-stats-wilson.1, ...).
    Man {
        /// The command whose page to print (e.g. `run`, or `stats wilson`).
        command: Vec<String>,
        /// Write every page into this folder instead of printing one.
        #[arg(long, conflicts_with = "command")]
        dir: Option<PathBuf>,
    },
}

/// Every man page, named as the main page's SEE ALSO names them, or one command's page.
fn man(path: &[String], dir: Option<&std::path::Path>) -> anyhow::Result<Exit> {
    use clap::CommandFactory;
    let mut root = Cli::command().disable_help_subcommand(true);
    root.build();
    let render = |cmd: &clap::Command| -> anyhow::Result<(String, Vec<u8>)> {
        let page = clap_mangen::Man::new(cmd.clone());
        let mut buf = Vec::new();
        page.render(&mut buf)?;
        Ok((page.get_filename(), buf))
    };
    if let Some(dir) = dir {
        fn walk(cmd: &clap::Command, out: &mut Vec<clap::Command>) {
            out.push(cmd.clone());
            for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
                walk(sub, out);
            }
        }
        let mut all = Vec::new();
        walk(&root, &mut all);
        std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
        let mut names = Vec::new();
        for cmd in &all {
            let (name, bytes) = render(cmd)?;
            faithprobe::io::write::write_atomic(&dir.join(&name), &bytes)?;
            names.push(name);
        }
        errln!("{} man pages written to {}", names.len(), dir.display());
        return cli::out::emit(&(names.join("\n") + "\n"));
    }
    let mut cmd = &root;
    for (i, name) in path.iter().enumerate() {
        cmd = cmd.find_subcommand(name).ok_or_else(|| {
            Error::Usage(format!(
                "no command `{}`; the commands are: {}",
                path[..=i].join(" "),
                cmd.get_subcommands()
                    .map(|s| s.get_name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
    }
    let (_, bytes) = render(cmd)?;
    cli::out::emit(&String::from_utf8_lossy(&bytes))
}

/// Whether an error is a write to a closed pipe (`faithprobe ... | head`): the reader has what
/// it wanted, so the command ends quietly with exit 0, as ripgrep does.
fn closed_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // first Ctrl-C: stop after the calls in flight; a second one: stop now, quietly
    let _ = ctrlc::set_handler(|| {
        if faithprobe::io::interrupt::requested() {
            // _exit: no exit handlers, so no library (ONNX Runtime) tears down mid-call and
            // prints an error on the way out
            // SAFETY: _exit(2) ends the process at once; nothing is used after it
            unsafe { libc::_exit(Exit::Interrupted.code() as i32) }
        }
        faithprobe::io::interrupt::request();
        // never eprintln! here: a terminal that hung up (SIGHUP) fails the write, and a panic
        // in the handler's thread would leave the interrupt half-handled
        cli::out::note(
            "interrupting: finishing the calls in flight (Ctrl-C again to stop at once)",
        );
    });
    let ctx = Ctx {
        config_path: cli.config,
        color: cli.color,
    };
    cli::out::set_color(ctx.paint().color, ctx.stderr_color());
    let result = match cli.command {
        Command::Run(a) => cli::batch::drive(&a.batch, a.cache.path(), &mut || {
            cli::run::run(a.clone(), &ctx)
        }),
        Command::Compare(a) => cli::compare::run(a, &ctx),
        Command::Sweep(a) => cli::sweep::run(a, &ctx),
        Command::Report(a) => cli::batch::drive(&a.batch, a.cache.path(), &mut || {
            cli::report::run(a.clone(), &ctx)
        }),
        Command::Score(a) => cli::batch::drive(&a.batch, a.cache.path(), &mut || {
            cli::score::run(a.clone(), &ctx)
        }),
        Command::DecomposeEval(a) => cli::decompose_eval::run(a, &ctx),
        Command::OmissionsEval(a) => cli::omissions_eval::run(a, &ctx),
        Command::Check(a) => cli::check::run(a, &ctx),
        Command::Doctor => cli::doctor::run(&ctx),
        Command::Stats { what } => cli::stats::run(what),
        Command::Mutants(a) => cli::mutants::run(a, &ctx),
        Command::Review(a) => cli::review::run(a, &ctx),
        Command::Snapshot { action } => cli::snapshot::run(action),
        Command::Init(a) => cli::init::run(a),
        Command::Merge(a) => cli::merge::run(a),
        Command::Import { what } => cli::import::run(what),
        Command::Batch { what } => cli::batch::run(what),
        Command::Suite { what } => cli::suite::run(what, &ctx),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            let mut buf = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "faithprobe", &mut buf);
            cli::out::emit(&String::from_utf8_lossy(&buf))
        }
        Command::Man { command, dir } => man(&command, dir.as_deref()),
    };
    match result {
        Ok(code) => ExitCode::from(code.code()),
        Err(err) if closed_pipe(&err) => ExitCode::from(Exit::Ok.code()),
        Err(err) => {
            // the library's errors already say their cause once; anything else shows its chain
            let (exit, text) = match err.downcast_ref::<Error>() {
                Some(e) => (e.exit(), e.to_string()),
                None => (Exit::Usage, format!("{err:#}")),
            };
            if std::env::var_os("FAITHPROBE_ERROR_FORMAT").is_some_and(|f| f == "json") {
                // for a program running faithprobe (the Python package): one JSON line, last
                let json = match err.downcast_ref::<Error>() {
                    Some(e) => e.to_json(),
                    None => serde_json::json!({"kind": "other", "refusal": null, "message": text,
                        "help": null, "file": null, "line": null, "column": null, "text": text,
                        "exit": exit.code()}),
                };
                cli::out::note(&serde_json::json!({ "error": json }).to_string());
            } else {
                cli::out::note(&format!(
                    "error: {}",
                    faithprobe::text::escape::printable(&text)
                ));
            }
            ExitCode::from(exit.code())
        }
    }
}
