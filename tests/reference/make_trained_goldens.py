"""PyTorch reference for the shipped trained model (web/models/brown): loads its model.safetensors (F16 or F32,
book layout) into the book's GPTModel and writes tests/golden/trained_brown.json with
  - the file's sha256 (the test fails, naming this script, when the shipped file changes without new goldens),
  - the logits at every position of a few byte prompts,
  - the mean cross-entropy over the first windows of the held-out text (PyTorch's F.cross_entropy),
which tests/cli/trained-model.test.mjs compares with the core (native and wasm) at 1e-4.

Run: /usr/bin/python3 tests/reference/make_trained_goldens.py   (after node models/brown/prepare-corpus.mjs)
"""

import json
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
from brown_model import ROOT, load_brown, model_from, val_windows  # noqa: E402

OUT = os.path.join(ROOT, "tests", "golden", "trained_brown.json")
PROMPTS = ["The jury said that the", "th", "He looked at her and said, \""]
VAL_WINDOWS = 8  # full context windows from the start of the held-out text


def main():
    cfg, tensors, sha = load_brown()
    model = model_from(cfg, tensors)

    prompts = []
    with torch.no_grad():
        for text in PROMPTS:
            ids = list(text.encode("utf-8"))
            logits = model(torch.tensor([ids]))[0]
            prompts.append({"text": text, "ids": ids, "logits": logits.tolist()})

        _, x, y = val_windows(cfg, VAL_WINDOWS)
        loss = F.cross_entropy(model(x).reshape(-1, cfg["vocab_size"]), y.reshape(-1)).item()

    golden = {
        "generated_by": "tests/reference/make_trained_goldens.py (PyTorch %s)" % torch.__version__,
        "model_sha256": sha,
        "prompts": prompts,
        "val_windows": VAL_WINDOWS,
        "val_window_loss": loss,
    }
    with open(OUT, "w") as f:
        json.dump(golden, f)
    print(f"{OUT}: {len(prompts)} prompts, loss over {VAL_WINDOWS} held-out windows {loss:.6f}, sha256 {sha[:12]}…")


if __name__ == "__main__":
    main()
