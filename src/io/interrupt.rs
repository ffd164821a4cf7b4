//! Ctrl-C: the first interrupt asks running checkers to stop after the call in flight; what was
//! paid for is already in the verdict cache, so rerunning the same command finishes the rest.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// True once an interrupt was requested.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}

/// Marks an interrupt (the signal handler calls this; tests may too).
pub fn request() {
    REQUESTED.store(true, Ordering::SeqCst);
}
