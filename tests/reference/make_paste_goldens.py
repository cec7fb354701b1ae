"""What learners paste from their notebooks, printed by the real PyTorch and NumPy: tests/golden/pasted-tensors.json.

Each case is the text a notebook shows (repr / print / .tolist() of a tensor or array) and the exact float64 values
and shape it stands for; truncated prints ("...") are cases the reader must refuse. The JS reader
(web/widgets/kit/pasted-tensor.js) is tested against these in tests/web/pasted-tensor.test.mjs.

Run from the repo root with `/usr/bin/python3 tests/reference/make_paste_goldens.py`.
"""
import json
import math

import numpy as np
import torch


def values(t):
    a = t.detach().to(torch.float64).reshape(-1).tolist() if isinstance(t, torch.Tensor) else np.asarray(t, np.float64).reshape(-1).tolist()
    return [None if math.isnan(v) else ('inf' if v == math.inf else ('-inf' if v == -math.inf else v)) for v in a]


def shape(t):
    return list(t.shape)


def main():
    torch.manual_seed(0)
    x = torch.randn(2, 3, requires_grad=True)
    ln = torch.nn.functional.layer_norm(x, (3,))
    cases = []

    def add(name, text, t, fmt):
        cases.append({"name": name, "text": text, "shape": shape(t), "values": values(t), "format": fmt})

    add("repr with requires_grad", repr(x), x, "torch")
    add("repr with grad_fn", repr(ln), ln, "torch")
    add("print (str) of a tensor", str(ln.detach()), ln, "torch")
    small = torch.tensor([1e-5, 2.0, 3e6])
    add("scientific notation", repr(small), small, "torch")
    special = torch.tensor([float("nan"), float("inf"), -float("inf"), 1.5])
    add("nan and inf", repr(special), special, "torch")
    ints = torch.tensor([[1, 2], [3, 4]])
    add("integers", repr(ints), ints, "torch")
    whole = torch.tensor([1.0, -2.0, 3.0])
    add("whole floats (1.)", repr(whole), whole, "torch")
    d64 = torch.randn(3, dtype=torch.float64)
    add("float64 with dtype suffix", repr(d64), d64, "torch")
    cube = torch.randn(2, 2, 3)
    add("three dimensions", repr(cube), cube, "torch")
    add("a scalar", repr(torch.tensor(3.5)), torch.tensor(3.5), "torch")
    add("an empty tensor", repr(torch.tensor([])), torch.tensor([]), "torch")
    full = torch.randn(1000)
    add("1000 values, printed in full", repr(full), full, "torch")
    p = torch.nn.Parameter(torch.randn(2, 2))
    add("a Parameter", repr(p), p, "torch")
    add(".tolist()", str(x.tolist()), x, "list")
    add(".tolist() of a scalar row", str(ln[0].tolist()), ln[0], "list")
    a32 = x.detach().numpy()
    add("numpy repr, float32", repr(a32), a32, "numpy")
    add("numpy print, float32", str(a32), a32, "numpy")
    a64 = np.random.default_rng(0).standard_normal((3, 2))
    add("numpy repr, float64", repr(a64), a64, "numpy")
    add("numpy print, float64", str(a64), a64, "numpy")

    truncated = [
        {"name": "torch print of 2000 values", "text": repr(torch.randn(2000))},
        {"name": "torch print of a 40 x 40 matrix", "text": repr(torch.randn(40, 40))},
        {"name": "numpy print of 2000 values", "text": str(np.random.default_rng(1).standard_normal(2000))},
    ]
    for c in truncated:
        assert "..." in c["text"], c["name"]
    out = {"torch": torch.__version__, "numpy": np.__version__, "cases": cases, "truncated": truncated}
    with open("tests/golden/pasted-tensors.json", "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
