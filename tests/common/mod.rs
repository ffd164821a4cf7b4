//! What every end-to-end test file shares: the repo root and the binary, run so that it reads no
//! configuration the test did not write (no `CI`, no colour, no user's `faithprobe.yaml`).
#![allow(dead_code)] // each test crate uses a different part

pub mod batch_server;
pub mod server;

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// The repository's root (where `suites/`, `prompts/` and `tests/fixtures/` are).
/// The cases `suites/larkspur.yaml` sends to a checker: 12 verified claims, 10 hard cases, 32
/// mutants and 8 rewrites.
pub const LARKSPUR_CASES: usize = 62;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The binary, run in `dir`, with no `CI` and no colour. A `faithprobe.yaml` in `dir` is the
/// test's own; `FAITHPROBE_CONFIG` from the caller's environment is removed.
pub fn faithprobe_in(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("faithprobe").unwrap();
    c.current_dir(dir)
        .env_remove("CI")
        .env_remove("FAITHPROBE_CONFIG")
        .env("NO_COLOR", "1");
    if std::env::var_os("ORT_DYLIB_PATH").is_none() {
        if let Some(lib) = venv_onnxruntime() {
            c.env("ORT_DYLIB_PATH", lib);
        }
    }
    c
}

/// The ONNX Runtime library in target/venv (made by `bash ci/setup.sh`), if there is one.
pub fn venv_onnxruntime() -> Option<PathBuf> {
    let lib = root().join("target/venv/lib");
    for py in std::fs::read_dir(lib).ok()?.flatten() {
        let capi = py.path().join("site-packages/onnxruntime/capi");
        for f in std::fs::read_dir(capi).into_iter().flatten().flatten() {
            let name = f.file_name().to_string_lossy().into_owned();
            if name.starts_with("libonnxruntime.so") {
                return Some(f.path());
            }
        }
    }
    None
}

/// Fails the test in one line when ONNX Runtime cannot be found (never skips).
pub fn require_onnxruntime() {
    if venv_onnxruntime().is_none() && faithprobe::check::onnx::find_runtime().is_err() {
        panic!("missing dependency: ONNX Runtime; install it with `bash ci/setup.sh` (or set ORT_DYLIB_PATH)");
    }
}

/// The environment a directly spawned binary needs to find the venv's ONNX Runtime.
pub fn ort_env() -> Vec<(&'static str, PathBuf)> {
    match (std::env::var_os("ORT_DYLIB_PATH"), venv_onnxruntime()) {
        (None, Some(lib)) => vec![("ORT_DYLIB_PATH", lib)],
        _ => vec![],
    }
}

/// Fails the test in one line when the real MiniLM models have not been built (never skips).
pub fn require_minilm() -> PathBuf {
    let dir = root().join("target/models");
    if !dir.join("minilm-embed/model.onnx").is_file() {
        panic!("missing dependency: the MiniLM models in target/models; build them with `bash ci/setup.sh && bash ci/make-minilm.sh`");
    }
    dir
}

/// Fails the test in one line when no chromium is on PATH (never skips).
pub fn require_chromium() {
    let found = std::process::Command::new("chromium")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        panic!("missing dependency: chromium; install it with `apt-get install chromium` (or `bash ci/setup.sh`)");
    }
}

/// The binary, run from the repo root with an empty config, so a `faithprobe.yaml` a user keeps
/// in their clone never reaches the tests. `--config` on the command line still wins.
pub fn faithprobe() -> Command {
    let mut c = faithprobe_in(&root());
    c.env(
        "FAITHPROBE_CONFIG",
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

/// stdout of `faithprobe ARGS` run in the repository root with the empty config, which must
/// succeed (its stderr is the failure message).
pub fn stdout_of(args: &[&str]) -> String {
    let out = faithprobe().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// stdout of `faithprobe ARGS` that must end with `code`.
pub fn stdout_with(code: i32, args: &[&str]) -> String {
    let (c, out, err) = output(faithprobe().args(args));
    assert_eq!(c, code, "{args:?}: {err}");
    out
}

/// (exit code, stdout then stderr) of a command.
pub fn combined(c: &mut Command) -> (i32, String) {
    let out = c.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr),
    )
}

/// The binary as a std Command (whose stdout can be any file: a closed pipe, /dev/full), set up
/// as [`faithprobe`] is.
pub fn plain(args: &[&str]) -> std::process::Command {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("faithprobe"));
    c.current_dir(root())
        .args(args)
        .env_remove("CI")
        .env("NO_COLOR", "1")
        .env(
            "FAITHPROBE_CONFIG",
            root().join("tests/fixtures/empty-config.yaml"),
        )
        .envs(ort_env())
        .stdin(std::process::Stdio::null());
    c
}

/// Runs a command line faithprobe printed for a person, as printed, through `sh` in `cwd`, with
/// the binary first on PATH (as an installed faithprobe would be) and no CI or config of the
/// caller's.
pub fn as_printed(line: &str, cwd: &Path) -> std::process::Output {
    let bin = assert_cmd::cargo::cargo_bin("faithprobe");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    std::process::Command::new("sh")
        .args(["-c", line])
        .current_dir(cwd)
        .env("PATH", path)
        .env_remove("CI")
        .env_remove("FAITHPROBE_CONFIG")
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

/// The test case named `name` in the JUnit document `xml` (a `--format junit` stdout), read
/// back by quick-junit, so a test holds what the document says, not how it is laid out.
pub fn junit_case(xml: &str, name: &str) -> quick_junit::TestCase {
    let report = quick_junit::Report::deserialize_from_str(xml)
        .unwrap_or_else(|e| panic!("not JUnit XML ({e}):\n{xml}"));
    report
        .test_suites
        .into_iter()
        .flat_map(|s| s.test_cases)
        .find(|c| c.name.as_str() == name)
        .unwrap_or_else(|| panic!("no test case `{name}` in:\n{xml}"))
}

/// The message of a test case's `<failure>`, if it failed.
pub fn junit_failure(case: &quick_junit::TestCase) -> Option<&str> {
    match &case.status {
        quick_junit::TestCaseStatus::NonSuccess {
            kind: quick_junit::NonSuccessKind::Failure,
            message,
            ..
        } => Some(message.as_ref().map_or("", |m| m.as_str())),
        _ => None,
    }
}

/// YAML text (a suite or side file faithprobe wrote) as a tree, through `faithprobe::io::yaml`,
/// the one module that names the YAML crate.
pub fn parse_yaml(text: &str) -> faithprobe::io::yaml::Value {
    faithprobe::io::yaml::parse(Path::new("test.yaml"), text, "").unwrap()
}
