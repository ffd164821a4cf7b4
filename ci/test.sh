#!/usr/bin/env bash
# Installs what the tests need and runs every test. This is the README's test command and what
# .ci/run calls. Needs a Rust toolchain (cargo), python3 with venv and pip, and the crates.io and
# PyPI registries (and Debian's, when chromium is missing). Installs nothing outside target/
# except chromium, and says so when it does.
set -euo pipefail
cd "$(dirname "$0")/.."

# no tracked file over 1 MB unless allowed on purpose
bash ci/check-tracked-sizes.sh
# a Python virtual environment at target/venv (ONNX Runtime and the exporter's packages) and,
# when missing, Debian's chromium; each install is announced
bash ci/setup.sh
# Ragas and DeepEval, each in its own environment under target/, for the examples/checkers tests:
# mostly downloads, so they install in the background while the Rust code compiles
mkdir -p target
bash ci/setup-python-checkers.sh > target/setup-python-checkers.log 2>&1 &
checkers=$!
# the real MiniLM models (embedding model for the seed's cosines, cross-encoder for benchmarks)
bash ci/make-minilm.sh
# faithprobe finds ONNX Runtime through the python3 on PATH: the virtual environment's
export PATH="$PWD/target/venv/bin:$PATH"

# formatted and lint-clean, as every commit must be
cargo fmt --check
cargo clippy --locked --all-targets -- -D warnings
cargo build --locked --all-targets
if ! wait "$checkers"; then
  cat target/setup-python-checkers.log >&2
  echo "test: installing Ragas and DeepEval failed (log above)" >&2
  exit 1
fi
cat target/setup-python-checkers.log
# the tests a plain `cargo test` ignores (they need ONNX Runtime, the models, the Python
# checkers or chromium, all installed above) run here too: none is skipped
cargo test --locked -- --include-ignored
# keep the benchmark targets working (one small run each; the numbers come from `cargo bench`)
cargo bench --locked --bench lexical_run -- --quick
cargo bench --locked --bench nli_run -- --quick
cargo bench --locked --bench judge_run -- --quick
cargo bench --locked --bench suite_load -- --quick
cargo bench --locked --bench score_log -- --quick
# the pip wheel: built, installed into a fresh virtual environment, run, and its doctor finds the
# environment's ONNX Runtime
bash ci/check-wheel.sh
