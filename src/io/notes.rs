//! Notes the library has for a person while it works (a checker program's stderr, a cache write
//! that failed): they go to one sink, stderr by default, so results on stdout stay clean and a
//! library user can capture them instead.

use std::sync::{Mutex, OnceLock};

type Sink = Box<dyn Fn(&str) + Send + Sync>;

fn sink() -> &'static Mutex<Option<Sink>> {
    static SINK: OnceLock<Mutex<Option<Sink>>> = OnceLock::new();
    SINK.get_or_init(|| Mutex::new(None))
}

/// Sends every later note to `f` instead of stderr.
pub fn set_sink(f: impl Fn(&str) + Send + Sync + 'static) {
    if let Ok(mut s) = sink().lock() {
        *s = Some(Box::new(f));
    }
}

/// Hands one note to the sink (stderr when none was set).
pub fn note(line: impl AsRef<str>) {
    let line = crate::text::escape::printable(line.as_ref());
    match sink().lock() {
        Ok(s) => match s.as_ref() {
            Some(f) => f(&line),
            None => to_stderr(&line),
        },
        Err(_) => to_stderr(&line),
    }
}

/// One line to stderr, never a panic (a closed stderr, a terminal that went away).
fn to_stderr(line: &str) {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{line}");
}
