"""Lesson presets for the widgets: PyTorch weights and inputs a widget loads so that its default view shows the
lesson's own printout (the core's RNG is not PyTorch's, so seeded weights cannot reproduce it).

web/presets/residual-flow-lesson82.json — lesson 82 §21 "Residual gradient flow: with vs without": the input x
and both networks' parameters, produced by make_train_goldens.make_residual_flow() (the lesson's code verbatim,
in its RNG order; the same function writes tests/golden/residual_flow.json, so preset and golden cannot drift),
plus PyTorch's per-layer weight-gradient norms for the widget to show next to the core's.

Run from the repo root with `/usr/bin/python3 tests/reference/make_lesson_presets.py`.
"""

import json
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import make_train_goldens as tg  # noqa: E402

GENERATOR = "tests/reference/make_lesson_presets.py"
OUT_DIR = os.path.join("web", "presets")

# The lesson's printout (f'{name}: L1={gnorms[0]:.3f}, L8={gnorms[-1]:.3f}').
LESSON_PRINTOUT = {"no_residual": (15.069, 9.787), "residual": (29.272, 31.163)}


def flat(t):
    """{"shape", "data"} -> the flat float32 values (JSON numbers that are exactly the float32 values)."""
    return t["data"]


def residual_flow_preset():
    cases = {c["name"]: c for c in tg.make_residual_flow()}
    x = cases["no_residual"]["inputs"]["x"]
    assert x == cases["residual"]["inputs"]["x"], "both networks see the same x"
    out = {
        "generator": GENERATOR,
        "torch_version": torch.__version__,
        "source": "lesson 82, section 21 'Residual gradient flow: with vs without' (torch.manual_seed(7), "
                  "depth 8, d 16, tanh, batch 4; no-res weights N(0, 0.3), residual net nn.Linear's default init)",
        "x": x,
        "torch_grad_norms": {},
    }
    for name in ("no_residual", "residual"):
        c = cases[name]
        norms = c["outputs"]["grad_norms"]["data"]
        l1, l8 = LESSON_PRINTOUT[name]
        assert f"{norms[0]:.3f}" == f"{l1:.3f}" and f"{norms[-1]:.3f}" == f"{l8:.3f}", (name, norms)
        out[name] = {"config": c["config"], "params": {n: flat(t) for n, t in c["params"].items()}}
        out["torch_grad_norms"][name] = norms
    return out


def write_json(fname, obj):
    os.makedirs(OUT_DIR, exist_ok=True)
    path = os.path.join(OUT_DIR, fname)
    with open(path, "w") as f:
        json.dump(obj, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


def main():
    write_json("residual-flow-lesson82.json", residual_flow_preset())


if __name__ == "__main__":
    main()
