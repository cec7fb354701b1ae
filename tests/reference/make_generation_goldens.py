"""PyTorch reference for generation past the context (tests/golden/generation_slide.json): the shipped Brown model
(web/models/brown, bytes, context 256) continues prompts greedily with the book's generate_text_simple (ch. 4.7):
each step crops to the last context_length tokens and takes the argmax of the last position's logits. Once the
prompt plus the generated tokens exceed the context, every step is a full forward pass over a window whose tokens
all moved one position (learned absolute position embeddings), so the case "fills" slides the window for most of
its steps, and "cropped" starts from a prompt longer than the context. Each step's last-position logits are kept.
test_generation.cpp compares the core's Generator (Crop mode, temperature 0) with it: the same tokens and logits.

Run: /usr/bin/python3 tests/reference/make_generation_goldens.py
"""

import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from brown_model import ROOT, load_brown, model_from  # noqa: E402

OUT = os.path.join(ROOT, "tests", "golden", "generation_slide.json")
TEXT = (
    "The Fulton County Grand Jury said Friday an investigation of Atlanta's recent primary election produced no "
    "evidence that any irregularities took place. The jury further said in term-end presentments that the City "
    "Executive Committee, which had over-all charge of the election, deserves the praise and thanks of the City "
    "of Atlanta for the manner in which the election was conducted."
)
CASES = [("fills", 250, 20), ("cropped", 300, 8)]  # name, prompt bytes, new tokens


def generate_text_simple(model, idx, max_new_tokens, context_size):
    """The book's loop, keeping each step's last logits."""
    steps = []
    for _ in range(max_new_tokens):
        idx_cond = idx[:, -context_size:]
        with torch.no_grad():
            logits = model(idx_cond)[:, -1, :]
        top2 = torch.topk(logits[0], 2).values
        steps.append({"logits": logits[0].tolist(), "margin": (top2[0] - top2[1]).item()})
        idx = torch.cat((idx, torch.argmax(logits, dim=-1, keepdim=True)), dim=1)
    return idx, steps


def main():
    cfg, tensors, sha = load_brown()
    model = model_from(cfg, tensors)
    ctx = cfg["context_length"]
    text = TEXT.encode("utf-8")
    cases = []
    for name, n, new in CASES:
        prompt = list(text[:n])
        assert len(prompt) == n, (name, len(prompt))
        out, steps = generate_text_simple(model, torch.tensor([prompt]), new, ctx)
        generated = out[0, n:].tolist()
        cases.append({"name": name, "prompt": prompt, "generated": generated, "steps": steps})
        print(f"{name}: {n} prompt bytes, {new} new, {sum(n + i > ctx for i in range(new))} steps with a slid window, "
              f"smallest top-2 logit margin {min(s['margin'] for s in steps):.4f}: {bytes(generated)!r}")
    golden = {
        "generated_by": "tests/reference/make_generation_goldens.py (PyTorch %s)" % torch.__version__,
        "model_sha256": sha,
        "context_length": ctx,
        "cases": cases,
    }
    with open(OUT, "w") as f:
        json.dump(golden, f)
    print(f"{OUT}: {len(cases)} cases, sha256 {sha[:12]}…")


if __name__ == "__main__":
    main()
