#!/usr/bin/env python3
"""Makes a dynamically quantised (int8 weights) copy of an ONNX model folder.

    target/venv/bin/python ci/quantize.py SRC_DIR DST_DIR

SRC_DIR holds model.onnx, tokenizer.json and config.json (what faithprobe's nli and similarity
checkers read); DST_DIR gets the same three files with model.onnx quantised by ONNX Runtime's
`quantize_dynamic` (MatMul and Gemm weights to signed int8 with one scale per output channel,
activations quantised per batch at run time). Per-channel scales matter on a trained model: on a
trained MiniLM NLI cross-encoder, per-tensor scales changed 10.4% of verdicts against fp32 and
cost about a point of accuracy, per-channel 3.9% at the same size, within 0.2 points.

Activations quantised per batch make a pair's score depend on the other pairs of its batch;
faithprobe measures that when it loads a model and scores such a model one pair per call, so
every score is the pair's own (`faithprobe doctor` shows it). Static quantisation (fixed,
calibrated activation scales) is batch-independent too, but on the repository's MiniLM
cross-encoder it was slower than dynamic int8 at one pair per call (79-91 against 106 pairs/s)
and agreed less with fp32, so this script stays dynamic. Check the result with faithprobe's own
comparison on your own suite before switching:

    faithprobe compare --checker nli-fp32 --checker nli-int8 suites/*.yaml
"""
import shutil
import sys
from pathlib import Path

from onnxruntime.quantization import QuantType, quantize_dynamic


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, dst = Path(sys.argv[1]), Path(sys.argv[2])
    for f in ("model.onnx", "tokenizer.json", "config.json"):
        if not (src / f).is_file():
            sys.exit(f"quantize: {src / f} is missing")
    dst.mkdir(parents=True, exist_ok=True)
    quantize_dynamic(
        src / "model.onnx",
        dst / "model.onnx",
        weight_type=QuantType.QInt8,
        per_channel=True,
    )
    for f in ("tokenizer.json", "config.json"):
        shutil.copy(src / f, dst / f)
    mb = lambda p: p.stat().st_size / 1e6
    print(f"quantize: {src / 'model.onnx'} ({mb(src / 'model.onnx'):.1f} MB) -> {dst / 'model.onnx'} ({mb(dst / 'model.onnx'):.1f} MB)")


if __name__ == "__main__":
    main()
