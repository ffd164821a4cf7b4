#!/usr/bin/env bash
# Installs what the tests need and runs every test. This is the README's test command and what
# .ci/run calls. Needs a Rust toolchain (cargo), python3 with pip, and the crates.io and PyPI
# registries.
set -euo pipefail
cd "$(dirname "$0")/.."

# no tracked file over 1 MB unless allowed on purpose
bash ci/check-tracked-sizes.sh
# ONNX Runtime for the model checkers, at the version the ort crate's API matches
bash ci/setup.sh
# the real MiniLM models (embedding model for the seed's cosines, cross-encoder for benchmarks)
bash ci/make-minilm.sh

cargo build --locked --all-targets
cargo test --locked
# keep the benchmark targets working (one small run each; the numbers come from `cargo bench`)
cargo bench --locked --bench lexical_run -- --quick
cargo bench --locked --bench nli_run -- --quick
cargo bench --locked --bench judge_run -- --quick
cargo bench --locked --bench suite_load -- --quick
