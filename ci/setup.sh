#!/usr/bin/env bash
# One-line setup for the model checkers: installs the ONNX Runtime library that faithgate loads at
# run time (the `onnxruntime` wheel ships libonnxruntime.so). Re-running it is cheap.
set -euo pipefail
python3 -c "import onnxruntime, sys; sys.exit(0 if onnxruntime.__version__ == '1.31.1' else 1)" 2>/dev/null \
  || python3 -m pip install --quiet --disable-pip-version-check "onnxruntime==1.31.1"
