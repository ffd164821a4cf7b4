#!/usr/bin/env bash
# Installs what the tests need and runs every test. This is the README's test command and what
# .ci/run calls. Needs only a Rust toolchain (cargo) and the crates.io registry.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --locked --all-targets
cargo test --locked
# keep the benchmark target working (one small run; the numbers come from `cargo bench`)
cargo bench --locked --bench lexical_run -- --quick
