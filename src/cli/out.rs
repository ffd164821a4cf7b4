//! The one way a command writes its results to stdout. A closed pipe (`faithprobe ... | head`)
//! ends the command quietly with exit 0, as ripgrep does; any other write failure is exit 4.

use faithprobe::error::Exit;
use std::io::Write;

/// [`emit`], then `code` when the write went through (a closed pipe counts as through).
pub fn emit_then(text: &str, code: Exit) -> anyhow::Result<Exit> {
    match emit(text)? {
        Exit::Ok => Ok(code),
        failed => Ok(failed),
    }
}

/// Writes `text` to stdout and flushes it, mapping a failure to its exit code.
pub fn emit(text: &str) -> anyhow::Result<Exit> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush())
    {
        Ok(()) => Ok(Exit::Ok),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(Exit::Ok),
        Err(e) => {
            note(&format!("error: could not write to stdout: {e}"));
            Ok(Exit::OutputFailed)
        }
    }
}

/// Writes one line to stderr, never panicking: a terminal that went away, a closed or full
/// stderr loses the line, not the command.
pub fn note(line: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{line}").and_then(|_| err.flush());
}
