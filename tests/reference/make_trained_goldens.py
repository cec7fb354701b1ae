"""PyTorch reference for the shipped trained models, loaded from their model.safetensors (F16 or F32, book layout)
into the book's GPTModel:
  - web/models/brown -> tests/golden/trained_brown.json: the file's sha256 (the test fails, naming this script, when
    the shipped file changes without new goldens), the logits at every position of a few byte prompts, and the mean
    cross-entropy over the first windows of the held-out text (PyTorch's F.cross_entropy);
  - web/models/sort -> tests/golden/trained_sort.json: the file's sha256 and the logits at every position of a few
    sorting examples (x1 ... x8 SEP y1 ... y7, written out here, not drawn by the recipe's JS);
  - web/models/brown-bpe -> tests/golden/trained_brown_bpe.json: the file's sha256, a few prompts' token ids by
    OpenAI encoder.py's BPE algorithm on the model's own vocab.json + merges.txt (written out below) and the logits at
    every position.
tests/cli/trained-model.test.mjs, trained-bpe-model.test.mjs and sort-model.test.mjs compare them with the core
at 1e-4 (and the BPE prompts' ids exactly).

Run: /usr/bin/python3 tests/reference/make_trained_goldens.py [brown] [sort] [brown-bpe]   (default: all; brown needs
     node models/brown/prepare-corpus.mjs first)
"""

import json
import os
import re
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
from brown_model import ROOT, load_brown, load_shipped, model_from, val_windows  # noqa: E402

OUT = os.path.join(ROOT, "tests", "golden", "trained_brown.json")
SORT_DIR = os.path.join(ROOT, "web", "models", "sort")
SORT_OUT = os.path.join(ROOT, "tests", "golden", "trained_sort.json")
BPE_DIR = os.path.join(ROOT, "web", "models", "brown-bpe")
BPE_OUT = os.path.join(ROOT, "tests", "golden", "trained_brown_bpe.json")
BPE_PROMPTS = ["The jury said that the", "Every effort moves you", "He looked at her and said, \"I don't know"]
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


def write_golden(path, sha, key, cases):
    """A model's golden file: who made it, the weights' sha256 (tests refuse goldens of other weights), the cases."""
    golden = {
        "generated_by": "tests/reference/make_trained_goldens.py (PyTorch %s)" % torch.__version__,
        "model_sha256": sha,
        key: cases,
    }
    with open(path, "w") as f:
        json.dump(golden, f)
    print(f"{path}: {len(cases)} {key}, sha256 {sha[:12]}…")


def sort():
    cfg, tensors, sha = load_shipped(SORT_DIR)
    assert cfg["vocab_size"] == SEP + 1, cfg
    model = model_from(cfg, tensors)
    examples = []
    with torch.no_grad():
        for xs in SORT_INPUTS:
            ids = (xs + [SEP] + sorted(xs))[: cfg["context_length"]]  # the last output is predicted, never read
            examples.append({"ids": ids, "logits": model(torch.tensor([ids]))[0].tolist()})
    write_golden(SORT_OUT, sha, "examples", examples)


def bytes_to_unicode():
    """GPT-2's printable stand-in for each byte (encoder.py)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("\xa1"), ord("\xac") + 1)) + list(range(ord("\xae"), ord("\xff") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


# GPT-2's pre-tokenizer with Python's re: \p{L} as [^\W\d_] and \p{N} as \d, equal for the ASCII prompts above.
SPLIT = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[^\W\d_]+| ?\d+| ?[^\s\w]+|\s+(?!\S)|\s+""")


def bpe_encode(text, vocab, ranks):
    """encoder.py's bpe(): in each word, merge the pair of lowest rank until none is left."""
    assert text.isascii()
    byte_char = bytes_to_unicode()
    ids = []
    for word in SPLIT.findall(text):
        parts = [byte_char[b] for b in word.encode("utf-8")]
        while len(parts) > 1:
            pairs = [(ranks.get((a, b), float("inf")), i) for i, (a, b) in enumerate(zip(parts, parts[1:]))]
            rank, i = min(pairs)
            if rank == float("inf"):
                break
            parts[i : i + 2] = [parts[i] + parts[i + 1]]
        ids.extend(vocab[p] for p in parts)
    return ids


def brown_bpe():
    cfg, tensors, sha = load_shipped(BPE_DIR)
    with open(os.path.join(BPE_DIR, "vocab.json"), encoding="utf-8") as f:
        vocab = json.load(f)
    with open(os.path.join(BPE_DIR, "merges.txt"), encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f if line.strip() and not line.startswith("#version")]
    ranks = {tuple(line.split(" ")): r for r, line in enumerate(lines)}
    assert len(vocab) == cfg["vocab_size"], (len(vocab), cfg["vocab_size"])
    model = model_from(cfg, tensors)
    prompts = []
    with torch.no_grad():
        for text in BPE_PROMPTS:
            ids = bpe_encode(text, vocab, ranks)
            prompts.append({"text": text, "ids": ids, "logits": model(torch.tensor([ids]))[0].tolist()})
    write_golden(BPE_OUT, sha, "prompts", prompts)


if __name__ == "__main__":
    for name in sys.argv[1:] or ["brown", "sort", "brown-bpe"]:
        {"brown": brown, "sort": sort, "brown-bpe": brown_bpe}[name]()
