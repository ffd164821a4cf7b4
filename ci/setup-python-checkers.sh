#!/usr/bin/env bash
# Installs the Python faithfulness metrics that examples/checkers/ wraps, each into its own
# virtual environment under target/ (never the system Python), from its pinned requirements:
#   target/venv-ragas     examples/checkers/requirements-ragas.txt
#   target/venv-deepeval  examples/checkers/requirements-deepeval.txt
# tests/python_checkers.rs runs the real Ragas and DeepEval code against a scripted local server.
# About 1 GB of packages from PyPI the first time; re-running is cheap (a stamp per environment
# records the requirements it was built from).
set -euo pipefail
cd "$(dirname "$0")/.."
for name in ragas deepeval; do
  req="examples/checkers/requirements-$name.txt"
  venv="target/venv-$name"
  stamp="$venv/.requirements"
  if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && cmp -s "$req" "$stamp"; then
    continue
  fi
  echo "setup-python-checkers: installing $req into $venv (PyPI)"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
  cp "$req" "$stamp"
done
