#!/usr/bin/env bash
# Installs what faithprobe's tests need beyond Rust, and says what it installs:
# - a Python virtual environment at target/venv with the pinned packages of ci/requirements.txt
#   (ONNX Runtime among them, which faithprobe loads at run time); nothing goes into the system
#   Python. Re-running it is cheap.
# - Debian's chromium, only when no chromium is on PATH (it renders the HTML audit report in one
#   test; needs root or sudo, as on CI).
# Users who only want the model checkers need one line: python3 -m pip install onnxruntime==1.31.1
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/venv
if [ ! -x "$venv/bin/python" ]; then
  echo "setup: creating the Python virtual environment $venv"
  python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import onnxruntime, onnx, numpy, safetensors, tokenizers, maturin, sys; sys.exit(onnxruntime.__version__ != '1.31.1')" 2>/dev/null; then
  echo "setup: installing ci/requirements.txt into $venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r ci/requirements.txt
fi
if ! command -v chromium >/dev/null 2>&1; then
  echo "setup: installing Debian's chromium (apt-get) for the audit report's browser test"
  sudo_=""
  [ "$(id -u)" = 0 ] || sudo_="sudo"
  $sudo_ apt-get update -qq
  # only what chromium needs to render a page (and a font): no recommended desktop packages,
  # which pull in udev, perl modules and upgrades of systemd and perl
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
fi
