//! What every end-to-end test file shares: the repo root and the binary, run so that it reads no
//! configuration the test did not write (no `CI`, no colour, no user's `faithgate.yaml`).
#![allow(dead_code)] // each test crate uses a different part

pub mod server;

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// The repository's root (where `suites/`, `prompts/` and `tests/fixtures/` are).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The binary, run in `dir`, with no `CI` and no colour. A `faithgate.yaml` in `dir` is the
/// test's own; `FAITHGATE_CONFIG` from the caller's environment is removed.
pub fn faithgate_in(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("faithgate").unwrap();
    c.current_dir(dir)
        .env_remove("CI")
        .env_remove("FAITHGATE_CONFIG")
        .env("NO_COLOR", "1");
    c
}

/// The binary, run from the repo root with an empty config, so a `faithgate.yaml` a user keeps
/// in their clone never reaches the tests. `--config` on the command line still wins.
pub fn faithgate() -> Command {
    let mut c = faithgate_in(&root());
    c.env(
        "FAITHGATE_CONFIG",
        root().join("tests/fixtures/empty-config.yaml"),
    );
    c
}

/// Runs a command; returns (exit code, stdout, stderr).
pub fn output(c: &mut Command) -> (i32, String, String) {
    let out = c.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
