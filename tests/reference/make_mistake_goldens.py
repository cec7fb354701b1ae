"""The learners' LayerNorm mistakes, computed by PyTorch as the mistaken code computes them:
tests/golden/layer_norm_variants.json (read by tests/unit/test_mistakes.cpp and tests/wasm/mistakes.test.mjs).

Each case is one input (x, gamma, beta, eps) and one variant id of core/include/blockscope/mistakes.hpp, with the
output of that variant's PyTorch code (float32, as a learner's notebook runs it).

Run from the repo root with `/usr/bin/python3 tests/reference/make_mistake_goldens.py`.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
import make_goldens  # noqa: E402  (T() and write_file(): the golden format)

make_goldens.GENERATOR = "tests/reference/make_mistake_goldens.py"


def variants(x, gamma, beta, eps):
    mean, var = x.mean(-1, keepdim=True), x.var(-1, unbiased=False, keepdim=True)
    return {
        "correct": torch.nn.functional.layer_norm(x, (x.shape[-1],), gamma, beta, eps),
        "wrong-axis": (x - x.mean(0, keepdim=True)) / torch.sqrt(x.var(0, unbiased=False, keepdim=True) + eps) * gamma + beta,
        "unbiased-variance": (x - mean) / torch.sqrt(x.var(-1, keepdim=True) + eps) * gamma + beta,
        "eps-outside-sqrt": (x - mean) / (torch.sqrt(var) + eps) * gamma + beta,
        "no-eps": (x - mean) / torch.sqrt(var) * gamma + beta,
        "no-affine": (x - mean) / torch.sqrt(var + eps),
    }


def main():
    torch.manual_seed(0)
    inputs = {
        # The lesson's rows (seed 001): LayerNorm of [1, 3, 5, 7], here with a second token.
        "lesson rows": (torch.tensor([[1.0, 3.0, 5.0, 7.0], [2.0, 4.0, 6.0, 9.0]]), torch.ones(4), torch.zeros(4), 1e-5),
        "random with gamma and beta": (torch.randn(3, 5), 1 + 0.5 * torch.randn(5), 0.3 * torch.randn(5), 1e-5),
        "small variance, large eps": (0.01 * torch.randn(4, 6), torch.ones(6), torch.zeros(6), 1e-3),
    }
    cases = []
    for label, (x, gamma, beta, eps) in inputs.items():
        for vid, y in variants(x, gamma, beta, eps).items():
            cases.append({
                "name": f"{label}: {vid}",
                "config": {"variant": vid, "eps": eps},
                "params": {"gamma": make_goldens.T(gamma), "beta": make_goldens.T(beta)},
                "inputs": {"x": make_goldens.T(x)},
                "outputs": {"y": make_goldens.T(y)},
            })
    make_goldens.write_file("layer_norm_variants.json", cases)


if __name__ == "__main__":
    main()
