//! The one way a command writes its results to stdout, and its notes to stderr. A closed pipe
//! (`faithprobe ... | head`) ends the command quietly with exit 0, as ripgrep does; any other
//! write failure is exit 4. Everything written goes through [`faithprobe::text::escape::printable`]
//! (keeping only faithprobe's own colour sequences when colour is on), so no text from a suite,
//! a log or a program reaches the terminal as a control sequence, whichever report printed it.

use faithprobe::error::Exit;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

static STDOUT_COLOR: AtomicBool = AtomicBool::new(false);
static STDERR_COLOR: AtomicBool = AtomicBool::new(false);

/// Says whether stdout and stderr are painted (so colour sequences are kept there).
pub fn set_color(stdout: bool, stderr: bool) {
    STDOUT_COLOR.store(stdout, Ordering::Relaxed);
    STDERR_COLOR.store(stderr, Ordering::Relaxed);
}

/// `text` as it may reach a terminal.
fn safe(text: &str, color: &AtomicBool) -> String {
    if color.load(Ordering::Relaxed) {
        faithprobe::text::escape::printable_keeping_color(text)
    } else {
        faithprobe::text::escape::printable(text)
    }
}

/// [`emit`], then `code` when the write went through (a closed pipe counts as through).
pub fn emit_then(text: &str, code: Exit) -> anyhow::Result<Exit> {
    Ok(emit(text)?.worst(code))
}

/// Writes `text` to stdout and flushes it, mapping a failure to its exit code.
pub fn emit(text: &str) -> anyhow::Result<Exit> {
    let text = safe(text, &STDOUT_COLOR);
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
    note_raw(&format!("{line}\n"));
}

/// Writes `text` to stderr as it is (no line break added), never panicking.
pub fn note_raw(text: &str) {
    let text = safe(text, &STDERR_COLOR);
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes()).and_then(|_| err.flush());
}
