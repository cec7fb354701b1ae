"""The shipped trained models (web/models/brown, web/models/sort) in PyTorch, for the reference scripts that need
them: a config, its tensors as float32 with the file's sha256, a book GPTModel loaded from tensors (every weight must
be used and only the causal-mask buffers may be missing), and the Brown model's first held-out context windows."""

import hashlib
import json
import os

import torch

from book_modules import GPTModel

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODEL_DIR = os.path.join(ROOT, "web", "models", "brown")
VAL_TEXT = os.path.join(ROOT, "build", "corpus", "brown", "val.txt")  # node models/brown/prepare-corpus.mjs


def load_shipped(model_dir):
    """(config, {name: float32 tensor}, sha256 of model.safetensors) of a shipped model directory."""
    from safetensors_read import read_safetensors

    with open(os.path.join(model_dir, "config.json")) as f:
        cfg = json.load(f)
    assert cfg.get("norm", "pre") == "pre" and cfg.get("activation", "gelu_tanh") == "gelu_tanh"
    weights = os.path.join(model_dir, "model.safetensors")
    with open(weights, "rb") as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    return cfg, {k: v.float() for k, v in read_safetensors(weights).items()}, sha


def load_brown():
    """(config, {name: float32 tensor}, sha256 of model.safetensors) of web/models/brown."""
    return load_shipped(MODEL_DIR)


def model_from(cfg, tensors):
    model = GPTModel(cfg).eval()
    missing, unexpected = model.load_state_dict(tensors, strict=False)
    assert not unexpected, unexpected
    assert all(k.endswith("att.mask") for k in missing), missing  # the causal-mask buffers are not weights
    return model


def val_windows(cfg, n):
    """(held-out bytes, inputs (n, ctx), targets (n, ctx)) of the first n full context windows."""
    with open(VAL_TEXT, "rb") as f:
        val = list(f.read())
    ctx = cfg["context_length"]
    x = torch.tensor([val[i * ctx:(i + 1) * ctx] for i in range(n)])
    y = torch.tensor([val[i * ctx + 1:(i + 1) * ctx + 1] for i in range(n)])
    return val, x, y
