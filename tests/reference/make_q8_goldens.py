"""PyTorch reference for int8 weights (LoadOptions::weights = Int8, loadModel(..., {weights: 'int8'})): the shipped
trained model (web/models/brown) with its token embedding and every Linear matrix replaced by their Q8_0
round trip — per row, groups of 32 values, scale = max|w| / 127, code = round(w / scale) (ties to even, as the
core's nearbyint), value = code * scale, all in float32 — and everything else unchanged. Writes
tests/golden/q8_brown.json with
  - the logits at every position of a few byte prompts (at least 4 tokens: the core then runs the float32
    GEMM on dequantized weights, so it must match this to float32 rounding),
  - the mean cross-entropy over the first held-out windows, float32 and Q8_0 weights,
which tests/unit/test_quantized.cpp compares with the core.

Run: /usr/bin/python3 tests/reference/make_q8_goldens.py   (after node models/brown/prepare-corpus.mjs)
"""

import json
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
from brown_model import ROOT, load_brown, model_from, val_windows  # noqa: E402

OUT = os.path.join(ROOT, "tests", "golden", "q8_brown.json")
PROMPTS = ["The jury said that the", "He looked at her and said, \""]
VAL_WINDOWS = 8
GROUP = 32


def q8_round_trip(w):
    """Q8_0 along the last dimension (rows padded with zeros to a multiple of 32, as the core pads them)."""
    rows, cols = w.shape
    pad = (-cols) % GROUP
    g = torch.cat([w, w.new_zeros(rows, pad)], dim=1).reshape(rows, -1, GROUP)
    scale = g.abs().amax(dim=2, keepdim=True) / 127.0
    safe = torch.where(scale > 0, scale, torch.ones_like(scale))
    codes = torch.where(scale > 0, torch.round(g / safe), torch.zeros_like(g)).clamp(-127, 127)
    return (codes * scale).reshape(rows, -1)[:, :cols].contiguous()


def int8_parameter(name, t):
    # The core's rule (gpt_model.cpp): the token embedding, an untied head, every block matrix.
    return t.dim() == 2 and (name in ("tok_emb.weight", "out_head.weight") or
                             (name.startswith("trf_blocks.") and name.endswith(".weight")))


def main():
    cfg, tensors, sha = load_brown()
    f32 = model_from(cfg, tensors)
    q8 = model_from(cfg, {k: q8_round_trip(v) if int8_parameter(k, v) else v for k, v in tensors.items()})

    with torch.no_grad():
        prompts = []
        for text in PROMPTS:
            ids = list(text.encode("utf-8"))
            prompts.append({"text": text, "ids": ids, "logits": q8(torch.tensor([ids]))[0].tolist()})
        val, x, y = val_windows(cfg, VAL_WINDOWS)
        ctx = cfg["context_length"]
        loss = {name: F.cross_entropy(m(x).reshape(-1, cfg["vocab_size"]), y.reshape(-1)).item()
                for name, m in (("f32", f32), ("q8", q8))}

    golden = {
        "generated_by": "tests/reference/make_q8_goldens.py (PyTorch %s)" % torch.__version__,
        "model_sha256": sha,
        "prompts": prompts,
        "val_windows": VAL_WINDOWS,
        "val_window_loss_f32": loss["f32"],
        "val_window_loss_q8": loss["q8"],
        "val_windows_ids": [val[:VAL_WINDOWS * ctx + 1]],
    }
    with open(OUT, "w") as f:
        json.dump(golden, f)
    print(f"{OUT}: {len(prompts)} prompts; loss over {VAL_WINDOWS} held-out windows f32 {loss['f32']:.6f}, "
          f"Q8_0 weights {loss['q8']:.6f}")


if __name__ == "__main__":
    main()
