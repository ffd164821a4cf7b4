#!/usr/bin/env bash
# Installs what faithgate's model checkers and tests need beyond Rust. Re-running it is cheap.
# - ONNX Runtime, which faithgate loads at run time: the `onnxruntime` wheel ships
#   libonnxruntime.so. This is the one line users need: python3 -m pip install onnxruntime==1.31.1
# - Debian's Chromium, which renders the HTML audit report in the tests (needs root, as on CI).
set -euo pipefail
python3 -c "import onnxruntime, sys; sys.exit(0 if onnxruntime.__version__ == '1.31.1' else 1)" 2>/dev/null \
  || python3 -m pip install --quiet --disable-pip-version-check "onnxruntime==1.31.1"
if ! command -v chromium >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
