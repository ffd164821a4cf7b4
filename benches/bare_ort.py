"""Bare ONNX Runtime on premise-claim pairs: the floor faithprobe's NLI scoring is measured against.

    target/venv/bin/python benches/bare_ort.py MODEL.onnx TOKENIZER.json PAIRS.tsv \
        [--threads 2] [--batch 32] [--reps 3]

PAIRS.tsv holds one `premise<TAB>claim` per line. The pairs are tokenised once (not timed), sorted
by length, padded to the longest of each batch, and run through one session with the given
intra-op threads; only the session calls are timed. Prints the median seconds of `--reps` passes,
then the pairs and the passes' times. benches/long_passages.rs runs it.
"""
import argparse
import time

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("tokenizer")
    ap.add_argument("pairs")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    tok = Tokenizer.from_file(a.tokenizer)
    tok.no_padding()
    tok.no_truncation()
    pairs = [l.rstrip("\n").split("\t", 1) for l in open(a.pairs, encoding="utf-8") if "\t" in l]
    enc = sorted((tok.encode(p, c) for p, c in pairs), key=lambda e: len(e.ids))
    so = ort.SessionOptions()
    so.intra_op_num_threads = a.threads
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(a.model, so, providers=["CPUExecutionProvider"])
    names = {i.name for i in sess.get_inputs()}
    batches = []
    for k in range(0, len(enc), a.batch):
        chunk = enc[k : k + a.batch]
        n = max(len(e.ids) for e in chunk)
        ids = np.zeros((len(chunk), n), np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for r, e in enumerate(chunk):
            ids[r, : len(e.ids)] = e.ids
            mask[r, : len(e.ids)] = 1
            types[r, : len(e.ids)] = e.type_ids
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        batches.append({k: v for k, v in feed.items() if k in names})
    times = []
    for _ in range(a.reps):
        t = time.perf_counter()
        for feed in batches:
            sess.run(None, feed)
        times.append(time.perf_counter() - t)
    print(f"{sorted(times)[len(times) // 2]:.3f} {len(pairs)} pairs; passes {' '.join(f'{x:.2f}' for x in times)}")


if __name__ == "__main__":
    main()
