"""The learners' mistakes, computed by PyTorch as the mistaken code computes them (learner_mistakes.py):
  tests/golden/layer_norm_variants.json  LayerNorm's, on three inputs (x, gamma, beta, eps)
  tests/golden/module_mistakes.json      the activation's, the FFN's (the lesson's FFN(4, 16) after
                                         torch.manual_seed(0)), attention's and every step of the book's block
Read by tests/unit/test_mistakes.cpp and tests/wasm/mistakes.test.mjs. Each case is one input and one mistake id
of core/include/blockscope/mistakes.hpp, with that mistake's output (float32, as a learner's notebook runs it).

Run from the repo root with `/usr/bin/python3 tests/reference/make_mistake_goldens.py`.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
import learner_mistakes as lm  # noqa: E402
import make_goldens  # noqa: E402  (T(), named_params() and write_file(): the golden format)
from book_modules import MultiHeadAttention, TransformerBlock, randomize_layer_norms  # noqa: E402

make_goldens.GENERATOR = "tests/reference/make_mistake_goldens.py"
T = make_goldens.T


def layer_norm_cases():
    torch.manual_seed(0)
    inputs = {
        # The lesson's rows (seed 001): LayerNorm of [1, 3, 5, 7], here with a second token.
        "lesson rows": (torch.tensor([[1.0, 3.0, 5.0, 7.0], [2.0, 4.0, 6.0, 9.0]]), torch.ones(4), torch.zeros(4), 1e-5),
        "random with gamma and beta": (torch.randn(3, 5), 1 + 0.5 * torch.randn(5), 0.3 * torch.randn(5), 1e-5),
        "small variance, large eps": (0.01 * torch.randn(4, 6), torch.ones(6), torch.zeros(6), 1e-3),
    }
    return [{"name": f"{label}: {m}", "config": {"mistake": m, "eps": eps},
             "params": {"gamma": T(gamma), "beta": T(beta)}, "inputs": {"x": T(x)},
             "outputs": {"y": T(lm.layer_norm(x, gamma, beta, eps, m))}}
            for label, (x, gamma, beta, eps) in inputs.items() for m in lm.LAYER_NORM]


def activation_cases():
    x = torch.linspace(-3, 3, 13)
    return [{"name": f"activation {expected}: {m}", "config": {"module": "activation", "expected": expected, "mistake": m},
             "params": {}, "inputs": {"x": T(x)}, "outputs": {"y": T(lm.activation(x, expected, m))}}
            for expected in ("gelu_tanh", "gelu_erf") for m in lm.activation_mistakes(expected)]


def feed_forward_cases():
    # The lesson's FFN(d_model=4, d_ff=16) after torch.manual_seed(0) (seed 001 §29), exact GELU.
    torch.manual_seed(0)
    w1, w2 = torch.nn.Linear(4, 16), torch.nn.Linear(16, 4)
    params = {"layers.0.weight": T(w1.weight), "layers.0.bias": T(w1.bias),
              "layers.2.weight": T(w2.weight), "layers.2.bias": T(w2.bias)}
    x = torch.tensor([[[1.0, 0.0, -1.0, 0.5], [0.5, -0.5, 1.0, 2.0], [-1.0, 2.0, 0.0, 1.0], [0.0, 0.3, -0.7, 1.5]]])
    cases = []
    with torch.no_grad():
        for m in lm.feed_forward_mistakes("gelu_erf", 4, 4):
            y = lm.feed_forward(w1.weight, w1.bias, w2.weight, w2.bias, x, "gelu_erf", m)
            cases.append({"name": f"lesson FFN(4, 16): {m}",
                          "config": {"module": "feed_forward", "mistake": m, "B": 1, "T": 4,
                                     "ffn": {"emb_dim": 4, "hidden_dim": 16, "activation": "gelu_erf"}},
                          "params": params, "inputs": {"x": T(x)}, "outputs": {"y": T(y)}})
    return cases


def attention_cases():
    torch.manual_seed(7)
    att = MultiHeadAttention(6, 6, 8, 0.0, 2, qkv_bias=True).eval()
    x = torch.randn(2, 5, 6)
    cfg = {"d_in": 6, "d_out": 6, "context_length": 8, "num_heads": 2, "qkv_bias": True}
    with torch.no_grad():
        return [{"name": f"attention: {m}", "config": {"module": "attention", "attention": cfg, "mistake": m, "B": 2, "T": 5},
                 "params": make_goldens.named_params(att), "inputs": {"x": T(x)},
                 "outputs": {"y": T(lm.attention(att, x, m))}} for m in lm.attention_mistakes(True)]


def block_cases():
    cases = []
    for norm, seed in (("pre", 11), ("post", 12)):
        cfg = {"emb_dim": 4, "context_length": 8, "n_heads": 2, "drop_rate": 0.0, "qkv_bias": False, "norm": norm}
        torch.manual_seed(seed)
        block = TransformerBlock(cfg).eval()
        randomize_layer_norms(block)
        x = torch.randn(1, 4, 4)  # T = emb_dim, so across-sequence fits too
        runs = [(m, "") for m in lm.block_mistakes(norm, 4, 4)]
        runs += [("unbiased-variance", "norm2"), ("no-eps", "norm1")]  # "break a step": one norm only
        outputs, names = {}, []
        with torch.no_grad():
            for m, at in runs:
                run = f"{m}@{at}" if at else m  # outputs "<run>/<step>": one case per block keeps one copy of its weights
                names.append(run)
                for step, v in lm.block_steps(block, x, m, at).items():
                    outputs[f"{run}/{step}"] = T(v)
        cases.append({"name": f"{norm}-norm block", "config": {"module": "block", "block": cfg, "runs": names, "B": 1, "T": 4},
                      "params": make_goldens.named_params(block), "inputs": {"x": T(x)}, "outputs": outputs})
    return cases


def main():
    make_goldens.write_file("layer_norm_variants.json", layer_norm_cases())
    make_goldens.write_file("module_mistakes.json",
                            activation_cases() + feed_forward_cases() + attention_cases() + block_cases())


if __name__ == "__main__":
    main()
