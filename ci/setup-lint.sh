#!/usr/bin/env bash
# Installs the linters of ci/test.sh's lint stage under target/, and says what it installs:
# - target/venv-lint: typos and ShellCheck from PyPI, pinned in ci/requirements-lint.txt.
# - target/tools/bin/cargo-deny: cargo-deny from crates.io (`cargo install --locked`), only when
#   no cargo-deny of the pinned version is on PATH or already there. It compiles from source:
#   a few minutes, without link-time optimisation (which cargo-deny's release profile asks for
#   and which would take several times as long on two cores).
# Re-running it is cheap.
set -euo pipefail
cd "$(dirname "$0")/.."
deny_version=0.20.2
venv=target/venv-lint
stamp="$venv/.requirements"
if ! { [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && cmp -s ci/requirements-lint.txt "$stamp"; }; then
  echo "setup-lint: installing ci/requirements-lint.txt into $venv (PyPI)"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r ci/requirements-lint.txt
  cp ci/requirements-lint.txt "$stamp"
fi
has_deny() { "$1" deny --version 2>/dev/null | grep -qx "cargo-deny $deny_version"; }
if ! has_deny cargo && ! PATH="$PWD/target/tools/bin:$PATH" has_deny cargo; then
  echo "setup-lint: installing cargo-deny $deny_version from crates.io into target/tools (compiles from source, a few minutes)"
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    cargo install --locked --quiet cargo-deny --version "$deny_version" \
    --root target/tools --target-dir target/tools/build
  rm -rf target/tools/build
fi
