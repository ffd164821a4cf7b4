#!/usr/bin/env bash
# Installs what the tests need and runs every test. This is the README's test command and what
# .ci/run calls. Needs a Rust toolchain (cargo), python3 with venv and pip, and the crates.io and
# PyPI registries (and Debian's, when chromium is missing). Installs nothing outside target/
# except chromium, and says so when it does.
#
# It runs in named stages, each announced as it starts ("test: ==== lint: ..."); on a failure it
# names the stage that failed, and at the end it prints how long each stage took:
#   setup           target/venv (ONNX Runtime), chromium when missing, the MiniLM models, the
#                   linters (target/venv-lint, target/tools), Ragas and DeepEval in the background
#   lint            tracked-file sizes, rustfmt, clippy, shellcheck, typos, cargo-deny, and the
#                   guide built with mdbook where one is installed
#   build           every target, debug
#   unit            the library's and the binary's unit tests, doctests
#   end-to-end      the modules of tests/main.rs but the model and Python-checker ones
#   models          tests/nli.rs and tests/families.rs: the model checkers through ONNX Runtime
#   Python checkers tests/python_checkers.rs: Ragas and DeepEval as command checkers
#   benches         one quick run of each benchmark
#   wheel           ci/check-wheel.sh: the pip wheel built, installed and run
#   Python          ci/test-python.sh: python/tests (the Python API, @checker, the pytest plugin,
#                   the action script, the pre-commit hooks) against that wheel, in fresh
#                   environments under target/; ci/check-pre-commit.sh: the hooks through
#                   pre-commit's try-repo
# Every test runs with --include-ignored: the tests a plain `cargo test` leaves out for want of
# ONNX Runtime, the models, the Python checkers or chromium run here, and a missing one fails.
# Four ignored library tests are measurements, not checks (the guide's coverage grid and width
# table, BENCHMARKS' sign-flip timing): the unit stage names and skips them.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p target

stage_name=""
stage_start=$SECONDS
timings=""
end_stage() {
  if [ -n "$stage_name" ]; then
    timings+="$(printf '  %-16s %5d s' "$stage_name" $((SECONDS - stage_start)))"$'\n'
  fi
}
stage() {
  end_stage
  stage_name=$1
  stage_start=$SECONDS
  echo
  echo "test: ==== $1: $2"
}
finish() {
  local rc=$?
  end_stage
  echo
  if [ "$rc" = 0 ]; then
    echo "test: every stage passed in $((SECONDS / 60)) min $((SECONDS % 60)) s:"
    printf '%s' "$timings"
  else
    {
      echo "test: FAILED in stage '$stage_name' (exit $rc); the stages that ran:"
      printf '%s' "$timings"
    } >&2
  fi
}
trap finish EXIT

stage setup "what the tests need, under target/ (and chromium when missing); each install is announced"
# a Python virtual environment at target/venv (ONNX Runtime and the exporter's packages) and,
# when missing, Debian's chromium
bash ci/setup.sh
# Ragas and DeepEval, each in its own environment under target/, for the examples/checkers tests:
# mostly downloads, so they install in the background while the Rust code compiles
bash ci/setup-python-checkers.sh > target/setup-python-checkers.log 2>&1 &
checkers=$!
# the real MiniLM models (embedding model for the seed's cosines, cross-encoder for benchmarks)
bash ci/make-minilm.sh
# typos and shellcheck in target/venv-lint, cargo-deny in target/tools (compiled once)
bash ci/setup-lint.sh
# faithprobe finds ONNX Runtime through the python3 on PATH: the virtual environment's
export PATH="$PWD/target/venv/bin:$PWD/target/tools/bin:$PATH"

stage lint "formatted and lint-clean, as every commit must be"
# no tracked file over 1 MB unless allowed on purpose
bash ci/check-tracked-sizes.sh
cargo fmt --check
cargo clippy --locked --all-targets -- -D warnings
target/venv-lint/bin/shellcheck ci/*.sh .ci/run
# spelling over the repository; _typos.toml lists the words spelled as intended
target/venv-lint/bin/typos
# deny.toml: the dependencies' licences, banned and duplicated crates, and where crates come from
cargo deny --locked check licenses bans sources
# the advisories check needs the RustSec database, fetched from GitHub: run it where it can be
# fetched, and say so where it cannot (as on a machine that reaches only the package registries)
if timeout 120 cargo deny --locked fetch db > target/deny-fetch.log 2>&1; then
  cargo deny --locked check advisories
else
  echo "test: advisories not checked: the RustSec advisory database could not be fetched (target/deny-fetch.log); licences, bans and sources were"
fi
# the guide (docs/): built with mdbook where one is installed (on PATH or in target/tools/bin:
# `cargo install mdbook --locked --root target/tools`, about 4 minutes once), failing on any
# warning; its links, anchors and SUMMARY are checked by tests/docs.rs in any case
mdbook=$(command -v mdbook || true)
[ -z "$mdbook" ] && [ -x target/tools/bin/mdbook ] && mdbook=target/tools/bin/mdbook
if [ -n "$mdbook" ]; then
  "$mdbook" build docs -d "$PWD/target/book" > target/book.log 2>&1 || { cat target/book.log; exit 1; }
  if grep -E ' (WARN|ERROR) ' target/book.log; then
    echo "test: the guide builds with warnings (target/book.log)"
    exit 1
  fi
  echo "test: the guide built into target/book ($("$mdbook" --version))"
else
  echo "test: the guide not built: no mdbook (cargo install mdbook --locked --root target/tools); tests/docs.rs checks its links and SUMMARY"
fi

stage build "every target, debug"
cargo build --locked --all-targets

stage unit "unit tests of the library and the binary, and the doctests"
# the four ignored library tests are measurements for the guide and BENCHMARKS (minutes in a debug
# build; their ignore reasons give the release command), not checks: they are named and left out
measurements=(--skip coverage_grid_for_the_readme --skip width_table_for_the_readme
  --skip hardest_cells_at_twenty_thousand_replications --skip timing_of_the_sign_flip_p)
cargo test --locked --lib --bins -- --include-ignored "${measurements[@]}"
cargo test --locked --doc -- --include-ignored

# tests/main.rs holds every end-to-end test as a module: the models and Python checkers stages
# take theirs by module path, end-to-end takes every other module (a new one lands there)
models=(nli:: families::)
python_checkers=(python_checkers::)
stage end-to-end "the CLI end to end (tests/main.rs but the model and Python-checker modules)"
skips=()
for m in "${models[@]}" "${python_checkers[@]}"; do skips+=(--skip "$m"); done
cargo test --locked --test main -- --include-ignored "${skips[@]}"

stage models "the model checkers through ONNX Runtime: tiny models, model families, real MiniLM"
cargo test --locked --test main -- --include-ignored "${models[@]}"

stage "Python checkers" "Ragas and DeepEval (examples/checkers) as command checkers"
if ! wait "$checkers"; then
  cat target/setup-python-checkers.log >&2
  echo "test: installing Ragas and DeepEval failed (log above)" >&2
  exit 1
fi
cat target/setup-python-checkers.log
cargo test --locked --test main -- --include-ignored "${python_checkers[@]}"

stage benches "one quick run of each benchmark target (the numbers come from cargo bench)"
cargo bench --locked --bench lexical_run -- --quick
cargo bench --locked --bench nli_run -- --quick
cargo bench --locked --bench judge_run -- --quick
cargo bench --locked --bench suite_load -- --quick
cargo bench --locked --bench score_log -- --quick
cargo bench --locked --bench long_passages -- --quick

stage wheel "the pip wheel: built, installed into a fresh virtual environment, run; its doctor finds the environment's ONNX Runtime"
bash ci/check-wheel.sh

stage Python "the Python package of the wheel: python/tests against the wheel just built, in a fresh environment per Python"
bash ci/test-python.sh
# the pre-commit hooks through pre-commit's own try-repo (the wheel built from source once)
bash ci/check-pre-commit.sh
