"""What a learner's notebook prints for each mistake, in PyTorch's own print format: the strings the browser tests
paste into the widgets' "check your implementation" boxes (tests/browser/learner-actions.test.mjs). For each
widget state below and each mistake id of core/include/blockscope/mistakes.hpp, PyTorch runs the mistaken code
(learner_mistakes.py) and the file keeps print(y) (with grad_fn where the learner's parameters require grad) and
print(y.tolist()). Writes tests/golden/learner-prints.json.

Run from the repo root with `/usr/bin/python3 tests/reference/make_learner_prints.py`.
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
import learner_mistakes as lm  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "..", "golden", "learner-prints.json")


def prints(y):
    return {"repr": str(y), "tolist": str(y.detach().tolist())}


def layer_norm():
    # Chosen so that every mistake prints differently at 4 decimals: two tokens with a small variance (eps matters),
    # gamma != 1 and beta != 0 (no-affine differs), several tokens (wrong-axis differs).
    state = {"values": "1, 1.2, 0.9, 1.1; 2, 4, 6, 9; 0, 0.1, 0, 0.1", "gamma": 1.5, "beta": 0.2, "eps": 0.01}
    x = torch.tensor([[1, 1.2, 0.9, 1.1], [2, 4, 6, 9], [0, 0.1, 0, 0.1]])
    gamma = torch.nn.Parameter(torch.full((4,), 1.5))
    beta = torch.nn.Parameter(torch.full((4,), 0.2))
    out = {m: prints(lm.layer_norm(x, gamma, beta, 0.01, m)) for m in lm.LAYER_NORM}
    torch.manual_seed(3)
    out["noise"] = prints(torch.randn(3, 4))
    out["wrong-shape"] = prints(torch.randn(2, 4))
    return {"state": state, "prints": out}


def gelu():
    x = torch.tensor([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0])
    out = {}
    for form, expected in (("tanh", "gelu_tanh"), ("erf", "gelu_erf")):
        out[form] = {m: prints(lm.activation(x, expected, m)) for m in lm.activation_mistakes(expected)}
    torch.manual_seed(4)
    out["noise"] = prints(torch.randn(8))
    return {"x": x.tolist(), "prints": out}


def main():
    data = {"generator": "tests/reference/make_learner_prints.py", "torch_version": torch.__version__,
            "layernorm": layer_norm(), "gelu": gelu()}
    with open(OUT, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    print(f"{os.path.relpath(OUT)}: {os.path.getsize(OUT):,} bytes")


if __name__ == "__main__":
    main()
