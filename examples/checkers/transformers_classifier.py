#!/usr/bin/env python3
"""Any Hugging Face sequence classifier, run in PyTorch, as a faithprobe `command` checker: NLI
cross-encoders (roberta-large-mnli, cross-encoder/nli-deberta-v3-*), MiniCheck-style binary
classifiers, HHEM-style single-logit scorers.

A `@faithprobe.checker` function served over the command protocol (faithprobe's Python package:
from the wheel, or the `python/` folder of the checkout this file is in). Each
claim is scored against every sentence of its passages (the model's own pair template, truncated
to the model's limit by the tokenizer: check long passages with faithprobe's `nli` checker, which
never truncates); the best sentence decides.

    python transformers_classifier.py MODEL_DIR [--supported NAME] [--contradicted NAME]
                                      [--sigmoid supported|unsupported] [--threshold 0.5]

--supported / --contradicted name outputs by id2label name or index (default: the label named
exactly entailment/entail/entailed/entails and contradiction/contradict/contradicted/contradicts, in
any case, ignoring -, _ and spaces: never a substring, so "not_entailment" is not entailment; a model
without them needs --supported). --sigmoid reads a
single-logit model's sigmoid as P(supported) or P(unsupported). Nothing is guessed: a model this
program cannot read exits with the labels it has. Non-finite logits raise: that claim is an
error, never a verdict.

Install: pip install -r examples/checkers/requirements-transformers.txt
Use (faithprobe.yaml):
    checkers:
      minicheck:
        kind: command
        argv: [python3, examples/checkers/transformers_classifier.py, models/minicheck, --supported, "1"]
        timeout_s: 600
Not run in faithprobe's CI (PyTorch and a model download are out of its reach); to test a model
there, export it to ONNX and use `kind: nli` with the same `labels:` mapping.
"""
import argparse
import re
import sys
from pathlib import Path

try:
    import faithprobe
except ImportError:  # a checkout without the wheel installed: its own python/ folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
    import faithprobe

import torch  # noqa: E402
from transformers import AutoModelForSequenceClassification, AutoTokenizer  # noqa: E402


def sentences(text: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])\s+|\n+", text)
    return [p.strip() for p in parts if p.strip()]


def output_index(model, name: str) -> int:
    if name.isdigit():
        return int(name)
    labels = {v.lower(): int(k) for k, v in model.config.id2label.items()}
    if name.lower() not in labels:
        sys.exit(f"transformers checker: no label {name!r}; the model has {model.config.id2label}")
    return labels[name.lower()]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--supported")
    ap.add_argument("--contradicted")
    ap.add_argument("--sigmoid", choices=["supported", "unsupported"])
    ap.add_argument("--threshold", type=float, default=0.5)
    args = ap.parse_args()
    tok = AutoTokenizer.from_pretrained(args.model)
    model = AutoModelForSequenceClassification.from_pretrained(args.model).eval()
    width = model.config.num_labels
    if width == 1 and not args.sigmoid:
        sys.exit("transformers checker: the model has one output; say what it means with --sigmoid supported|unsupported")
    sup = con = None
    if width > 1:
        names = {int(k): "".join(c for c in v.lower() if c not in "-_ ") for k, v in model.config.id2label.items()}
        if len(names) != width:
            sys.exit(f"transformers checker: id2label names {len(names)} labels but the model has {width} outputs")
        supported_names = {"entailment", "entail", "entailed", "entails"}
        contradicted_names = {"contradiction", "contradict", "contradicted", "contradicts"}
        sup = output_index(model, args.supported) if args.supported else next((i for i, n in names.items() if n in supported_names), None)
        if sup is None:
            sys.exit(f"transformers checker: no entailment label in {model.config.id2label}; pass --supported NAME")
        con = output_index(model, args.contradicted) if args.contradicted else next((i for i, n in names.items() if n in contradicted_names), None)

    @faithprobe.checker(name="transformers", timeout_s=600)
    def classify(claim, passages, question):
        windows = [(p.id, s) for p in passages for s in sentences(p.text)]
        if not windows:
            return faithprobe.Verdict("not_found", score=0.0, reason="no passage text")
        enc = tok([w for _, w in windows], [claim] * len(windows), truncation=True, padding=True, return_tensors="pt")
        with torch.no_grad():
            logits = model(**enc).logits
        if not bool(torch.isfinite(logits).all()):
            raise ValueError("the model returned non-finite logits")
        if width == 1:
            p = torch.sigmoid(logits[:, 0])
            p_sup = p if args.sigmoid == "supported" else 1 - p
            p_con = None
        else:
            probs = torch.softmax(logits, dim=-1)
            p_sup = probs[:, sup]
            p_con = probs[:, con] if con is not None else None
        best = int(torch.argmax(p_sup))
        score = float(p_sup[best])
        label, at = ("supported", best) if score >= args.threshold else ("not_found", best)
        if label != "supported" and p_con is not None:
            worst = int(torch.argmax(p_con))
            if float(p_con[worst]) > float(p_sup[worst]):
                label, at = "contradicted", worst
        return faithprobe.Verdict(label, score=score, evidence=windows[at][0], window=windows[at][1],
                                  reason=f"best supported probability {score:.3f}")

    return classify.serve_stdio()


if __name__ == "__main__":
    sys.exit(main())
