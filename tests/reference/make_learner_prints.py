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


def ffn_lesson82():
    """The lesson's FFN(4, 16) after torch.manual_seed(0) (its w1, w2 are nn.Linear's), on four tokens (T = d, so the
    FFN applied across the sequence fits), with each mistake."""
    torch.manual_seed(0)
    w1, w2 = torch.nn.Linear(4, 16), torch.nn.Linear(16, 4)
    rows = [[1.0, 0.0, -1.0, 0.5], [0.5, -0.5, 1.0, 2.0], [-1.0, 2.0, 0.0, 1.0], [0.0, 0.3, -0.7, 1.5]]
    x = torch.tensor(rows)
    with torch.no_grad():
        out = {m: prints(lm.feed_forward(w1.weight, w1.bias, w2.weight, w2.bias, x, "gelu_erf", m))
               for m in lm.feed_forward_mistakes("gelu_erf", 4, 4)}
    return {"x": "; ".join(", ".join(str(v) for v in r) for r in rows), "prints": out}


# The sequences of <layernorm-explorer>'s LayerNorm-vs-BatchNorm panel (web/widgets/layernorm-explorer/layernorm-batchnorm.js).
BN_SEQUENCES = {"s1": [[1, 3, 5, 7], [2, 2, 2, 6], [0, 4, 4, 0], [3, 1, 1, 3]], "s2": [[10, 20, 30, 40], [5, 5, 5, 5]],
                "s3": [[-1, 0, 1, 2]]}


def batchnorm():
    """Seed 001 §7, for real: s1's first token through nn.BatchNorm1d (training mode, statistics over the batch) in
    two batches of different partners and lengths — padded with zeros as a batch of variable-length sequences is,
    or with the padding left out — and through nn.LayerNorm, which does not care."""
    out = {}
    for name, partner in (("A", "s2"), ("B", "s3")):
        seqs = [BN_SEQUENCES["s1"], BN_SEQUENCES[partner]]
        T = max(len(q) for q in seqs)
        padded = torch.tensor([q + [[0.0] * 4] * (T - len(q)) for q in seqs], dtype=torch.float32)
        real = torch.tensor([t for q in seqs for t in q], dtype=torch.float32)
        bn = torch.nn.BatchNorm1d(4, affine=False).train()
        ln = torch.nn.LayerNorm(4, elementwise_affine=False)
        with torch.no_grad():
            out[name] = {"partner": partner,
                         "bn_padded": bn(padded.reshape(-1, 4))[0].tolist(),  # s1's first token
                         "bn_real": bn(real)[0].tolist(),
                         "ln": ln(real)[0].tolist()}
    return {"sequences": BN_SEQUENCES, "batches": out}


ENCODER_MISTAKES = ["wrong-axis", "unbiased-variance", "eps-outside-sqrt", "no-eps", "no-affine", "tanh-approximation",
                    "relu-instead-of-gelu", "no-activation", "no-scale", "softmax-wrong-axis", "no-attention-residual",
                    "no-ffn-residual", "post-norm"]


def encoder_block():
    """The lesson's EncoderBlock (torch.manual_seed(42), x = torch.randn(2, 5, 8)) with each mistake, printed as the
    hooks snippet prints its steps. Mistakes that change no step by more than 1e-4 here (no-affine with gamma 1 and
    beta 0, the eps ones at variance ~1) are left out: no check could tell them from the correct block."""
    from book_modules import EncoderBlock
    torch.manual_seed(42)
    block = EncoderBlock(8, 2, 32).eval()
    x = torch.randn(2, 5, 8)
    order = ["norm1", "att", "add1", "norm2", "ff", "add2"]
    with torch.no_grad():
        ref = lm.encoder_steps(block, x)
        assert torch.allclose(ref["add2"], block(x), atol=1e-6)
        out = {"correct": {"first": None, "print": str({k: v.tolist() for k, v in ref.items()})}}
        for m in ENCODER_MISTAKES:
            s = lm.encoder_steps(block, x, m)
            diffs = [(s[k] - ref[k]).abs().max().item() for k in order]
            first = next((k for k, dv in zip(order, diffs) if dv > 1e-4), None)
            if max(diffs) <= 1e-4:
                continue
            out[m] = {"first": first, "print": str({k: s[k].tolist() for k in order})}
        # One step pasted on its own: the attention output without the 1/sqrt(d) scale, as print(tensor) shows it.
        out["single-att"] = {"first": "att", "step": "att", "mistake": "no-scale",
                             "print": str(lm.encoder_steps(block, x, "no-scale")["att"])}
    return out


def main():
    data = {"generator": "tests/reference/make_learner_prints.py", "torch_version": torch.__version__,
            "layernorm": layer_norm(), "gelu": gelu(), "encoder_block": encoder_block(),
            "ffn_lesson82": ffn_lesson82(), "batchnorm": batchnorm()}
    with open(OUT, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    print(f"{os.path.relpath(OUT)}: {os.path.getsize(OUT):,} bytes")


if __name__ == "__main__":
    main()
