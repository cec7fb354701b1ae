"""PyTorch reference for the shipped trained models, loaded from their model.safetensors (F16 or F32, book layout)
into the book's GPTModel:
  - web/models/brown -> tests/golden/trained_brown.json: the file's sha256 (the test fails, naming this script, when
    the shipped file changes without new goldens), the logits at every position of a few byte prompts, and the mean
    cross-entropy over the first windows of the held-out text (PyTorch's F.cross_entropy);
  - web/models/sort -> tests/golden/trained_sort.json: the file's sha256 and the logits at every position of a few
    sorting examples (x1 ... x8 SEP y1 ... y7, written out here, not drawn by the recipe's JS).
tests/cli/trained-model.test.mjs and tests/cli/sort-model.test.mjs compare them with the core at 1e-4.

Run: /usr/bin/python3 tests/reference/make_trained_goldens.py [brown] [sort]   (default: both; brown needs
     node models/brown/prepare-corpus.mjs first)
"""

import json
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
from brown_model import ROOT, load_brown, load_shipped, model_from, val_windows  # noqa: E402

OUT = os.path.join(ROOT, "tests", "golden", "trained_brown.json")
SORT_DIR = os.path.join(ROOT, "web", "models", "sort")
SORT_OUT = os.path.join(ROOT, "tests", "golden", "trained_sort.json")
SEP = 16  # models/sort/task.mjs: ids 0..15 are the numbers, 16 separates input and output
SORT_INPUTS = [[7, 3, 15, 0, 9, 3, 12, 5], [0, 0, 0, 15, 15, 15, 8, 8], [14, 13, 12, 11, 10, 9, 8, 7], [2, 2, 2, 2, 2, 2, 2, 2]]
PROMPTS = ["The jury said that the", "th", "He looked at her and said, \""]
VAL_WINDOWS = 8  # full context windows from the start of the held-out text


def brown():
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


def sort():
    cfg, tensors, sha = load_shipped(SORT_DIR)
    assert cfg["vocab_size"] == SEP + 1, cfg
    model = model_from(cfg, tensors)
    examples = []
    with torch.no_grad():
        for xs in SORT_INPUTS:
            ids = (xs + [SEP] + sorted(xs))[: cfg["context_length"]]  # the last output is predicted, never read
            examples.append({"ids": ids, "logits": model(torch.tensor([ids]))[0].tolist()})
    golden = {
        "generated_by": "tests/reference/make_trained_goldens.py (PyTorch %s)" % torch.__version__,
        "model_sha256": sha,
        "examples": examples,
    }
    with open(SORT_OUT, "w") as f:
        json.dump(golden, f)
    print(f"{SORT_OUT}: {len(examples)} examples, sha256 {sha[:12]}…")


if __name__ == "__main__":
    for name in sys.argv[1:] or ["brown", "sort"]:
        {"brown": brown, "sort": sort}[name]()
