//! Library errors and the process exit codes they map to.

use std::fmt;
use std::path::{Path, PathBuf};

/// The documented exit codes of the `faithprobe` binary: the one table, mirrored in
/// docs/src/reference/exit-codes.md (a test holds that page to it). Every command ends with one of these, never a bare number.
///
/// | code | meaning |
/// |---|---|
/// | 0 | everything ran, nothing failed |
/// | 1 | a gate failed (a regression, a changed snapshot under `--check`/`CI`) |
/// | 2 | usage, config or input error before any output: nothing was run or written |
/// | 3 | the checker could not score some cases (errors, never passes); also `compare` with no verdict |
/// | 4 | the work ran but an output could not be written; nothing half-written was left |
/// | 5 | some records of an input (a log's lines) were malformed and skipped; the rest ran and was written |
/// | 130 | interrupted (Ctrl-C, SIGTERM, SIGHUP); rerun to finish from the cache |
///
/// When several apply, the first that applies of 130, 2, 4, 1, 3, 5 is the code: [`Exit::worst`]
/// is that rule, and every command combines codes through it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Everything ran and nothing failed.
    Ok = 0,
    /// A gate failed: a snapshot changed under `--check`/`CI`, a regression, a breached threshold.
    GateFailed = 1,
    /// Usage, configuration or suite error: nothing was run or written.
    Usage = 2,
    /// The checker could not score some cases; they are reported as `error`, never as passes.
    CheckerFailed = 3,
    /// The work ran, but a file it was asked to write (record, report, snapshot, chart) could
    /// not be written; nothing half-written is left behind.
    OutputFailed = 4,
    /// Some records of an input were malformed and skipped (named on stderr, counted in the
    /// record); everything else ran and its outputs were written.
    PartialInput = 5,
    /// `--batch submit`: the requests went to a provider's batch API (or wait for a batch
    /// submitted earlier); nothing was scored or written yet. `faithprobe batch collect`, then
    /// a rerun, scores.
    BatchPending = 6,
    /// Ctrl-C: stopped after the calls in flight; what was paid for is in the cache.
    Interrupted = 130,
}

impl Exit {
    /// The numeric code handed to the operating system.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// Every code, in the order of precedence (the first that applies wins).
    pub const PRECEDENCE: [Exit; 8] = [
        Exit::Interrupted,
        Exit::Usage,
        Exit::OutputFailed,
        Exit::BatchPending,
        Exit::GateFailed,
        Exit::CheckerFailed,
        Exit::PartialInput,
        Exit::Ok,
    ];

    fn rank(self) -> usize {
        Exit::PRECEDENCE
            .iter()
            .position(|e| *e == self)
            .expect("every code has a rank")
    }

    /// Of two codes that both apply, the one the process exits with.
    pub fn worst(self, other: Exit) -> Exit {
        if other.rank() < self.rank() {
            other
        } else {
            self
        }
    }

    /// The code of several outcomes together; `Ok` when there are none.
    pub fn worst_of(codes: impl IntoIterator<Item = Exit>) -> Exit {
        codes.into_iter().fold(Exit::Ok, Exit::worst)
    }
}

/// Where in an input file an error is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub path: PathBuf,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based column, when known.
    pub column: Option<usize>,
}

impl Location {
    pub fn new(path: &Path, line: Option<usize>, column: Option<usize>) -> Self {
        Location {
            path: path.to_path_buf(),
            line,
            column,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(col) = self.column {
                write!(f, ":{col}")?;
            }
        }
        Ok(())
    }
}

/// What the library refused to do, each a condition a caller can match on; the message that
/// goes with it says what to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Two records have no case (or answer) in common.
    NothingPaired,
    /// Every case (or answer) that counts is an error on one side: never a pass.
    AllErrored,
    /// Every case that counts gave different verdicts across repeats.
    FlakyOnly,
    /// Every case that counts is a mutant of a claim one side already flags.
    ParentFlaggedOnly,
    /// The paired cases count in no rate (nothing verified, reviewed or labelled).
    NothingCounts,
    /// `--gate-on` names a row the comparison does not have.
    UnknownRow,
    /// No answer carries the key given to `--cluster-by`, `--stratify-by` or `--pair-by`.
    UnknownKey,
    /// Two answers of one record share the pairing key.
    DuplicateKey,
    /// Shards to merge are missing, or come from different jobs.
    ShardsMismatch,
    /// Records of different kinds, or none at all, where one kind is needed.
    WrongRecords,
    /// A checker, judge or decomposer name the configuration does not define.
    UnknownName,
    /// A path that must be a regular file is a symlink, folder or device.
    NotARegularFile,
    /// An output path is an input, or two outputs are one file.
    PathClash,
    /// A mutator (an LLM) could not make its mutants.
    MutatorFailed,
    /// A file of faithprobe's own (a spool) cannot be read back.
    Damaged,
    /// faithprobe would write something it cannot read back: a bug to report.
    Internal,
}

impl Refusal {
    /// The error of this condition with its sentence.
    pub fn with(self, message: impl Into<String>) -> Error {
        Error::Refused {
            kind: self,
            message: message.into(),
        }
    }
}

/// Every error the library reports. Each input error names the file, the line where known, what
/// is wrong and what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A suite, mutator-rule or config file is malformed or inconsistent.
    #[error("{location}: {message}\n  help: {help}")]
    Input {
        location: Location,
        message: String,
        help: String,
    },
    /// An input file could not be read.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// An output file could not be written (after the work was done).
    #[error("{path}: could not write: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The command line asked for something that does not exist or does not fit together (the
    /// CLI's own errors; the library says what it refused with [`Error::Refused`]).
    #[error("{0}")]
    Usage(String),
    /// Inputs that are well-formed but that the library will not act on: what was refused,
    /// as a [`Refusal`] a caller or test can match, and the sentence (with what to do) for a
    /// person.
    #[error("{message}")]
    Refused { kind: Refusal, message: String },
    /// Ctrl-C or SIGTERM stopped the work before anything was scored or written.
    #[error("interrupted: {0}")]
    Interrupted(String),
}

impl Error {
    pub fn input(
        path: &Path,
        line: Option<usize>,
        message: impl Into<String>,
        help: impl Into<String>,
    ) -> Self {
        Error::Input {
            location: Location::new(path, line, None),
            message: message.into(),
            help: help.into(),
        }
    }

    pub fn io(path: &Path, source: std::io::Error) -> Self {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    pub fn write(path: &Path, source: std::io::Error) -> Self {
        Error::Write {
            path: path.to_path_buf(),
            source,
        }
    }

    /// The exit code this error's meaning has: bad input or usage is 2 (nothing was run or
    /// written); an output that could not be written after the work is 4.
    pub fn exit(&self) -> Exit {
        match self {
            Error::Input { .. } | Error::Io { .. } | Error::Usage(_) | Error::Refused { .. } => {
                Exit::Usage
            }
            Error::Write { .. } => Exit::OutputFailed,
            Error::Interrupted(_) => Exit::Interrupted,
        }
    }
}

impl Error {
    /// The error as one JSON object, for a program that runs faithprobe (the Python package)
    /// and must not read the human text: `kind`, `message`, `help`, `file`, `line`, `column`
    /// (null where they do not apply), and `exit`, the code the process ends with.
    pub fn to_json(&self) -> serde_json::Value {
        let (kind, message, help, location) = match self {
            Error::Input {
                location,
                message,
                help,
            } => (
                "input",
                message.clone(),
                Some(help.as_str()),
                Some(location.clone()),
            ),
            Error::Io { path, source } => (
                "io",
                source.to_string(),
                None,
                Some(Location::new(path, None, None)),
            ),
            Error::Write { path, source } => (
                "write",
                source.to_string(),
                None,
                Some(Location::new(path, None, None)),
            ),
            Error::Usage(m) => ("usage", m.clone(), None, None),
            Error::Refused { message, .. } => ("refused", message.clone(), None, None),
            Error::Interrupted(m) => ("interrupted", m.clone(), None, None),
        };
        serde_json::json!({
            "kind": kind,
            "refusal": match self {
                Error::Refused { kind, .. } => Some(format!("{kind:?}")),
                _ => None,
            },
            "message": message,
            "help": help,
            "file": location.as_ref().map(|l| l.path.display().to_string()),
            "line": location.as_ref().and_then(|l| l.line),
            "column": location.as_ref().and_then(|l| l.column),
            "text": self.to_string(),
            "exit": self.exit().code(),
        })
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Reads an input file as text: a UTF-8 byte-order mark is dropped, and bytes that are not UTF-8
/// are an error naming the file, the line and the byte.
pub fn read_input(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    match String::from_utf8(bytes) {
        Ok(mut text) => {
            if text.starts_with('\u{feff}') {
                text.drain(..'\u{feff}'.len_utf8());
            }
            Ok(text)
        }
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let bytes = e.as_bytes();
            let line = 1 + bytes[..at].iter().filter(|b| **b == b'\n').count();
            let col = at
                - bytes[..at]
                    .iter()
                    .rposition(|b| *b == b'\n')
                    .map_or(0, |p| p + 1);
            Err(Error::Input {
                location: Location::new(path, Some(line), Some(col + 1)),
                message: format!("byte 0x{:02x} is not UTF-8", bytes[at]),
                help: "save the file as UTF-8".into(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Exit;

    #[test]
    fn of_every_pair_of_codes_the_first_in_precedence_wins() {
        for (i, a) in Exit::PRECEDENCE.iter().enumerate() {
            for (j, b) in Exit::PRECEDENCE.iter().enumerate() {
                let want = if i <= j { *a } else { *b };
                assert_eq!(a.worst(*b), want, "{a:?} with {b:?}");
                assert_eq!(b.worst(*a), want, "{b:?} with {a:?}");
            }
        }
        assert_eq!(Exit::worst_of([]), Exit::Ok);
        assert_eq!(
            Exit::worst_of([Exit::PartialInput, Exit::CheckerFailed, Exit::GateFailed]),
            Exit::GateFailed
        );
        assert_eq!(
            Exit::worst_of([Exit::GateFailed, Exit::OutputFailed]),
            Exit::OutputFailed
        );
    }
}
