"""Lesson presets for the widgets: PyTorch weights and inputs a widget loads so that its default view shows the
lesson's own printout (the core's RNG is not PyTorch's, so seeded weights cannot reproduce it).

web/presets/residual-flow-lesson82.json — lesson 82 §21 "Residual gradient flow: with vs without": the input x
and both networks' parameters, produced by make_train_goldens.make_residual_flow() (the lesson's code verbatim,
in its RNG order; the same function writes tests/golden/residual_flow.json, so preset and golden cannot drift),
plus PyTorch's per-layer weight-gradient norms for the widget to show next to the core's.

web/presets/encoder-block-lesson82.json — lesson 82 §37 "EncoderBlock as nn.Module": the lesson's EncoderBlock(8, 2,
32) built after torch.manual_seed(42) with its exact class definition (book_modules.EncoderBlock), its input
x = torch.randn(2, 5, 8) and PyTorch's output, produced by make_goldens.make_encoder_block() (the same function
writes tests/golden/encoder_block.json). The parameters are keyed by the core's names, with the map from the
lesson's state_dict names, and the core BlockConfig that wires a block the lesson's way, so <block-explorer>
passes both through unchanged; with PyTorch's value at every step (norm1, att, add1, norm2, ff, add2) recorded by the
forward-hooks snippet the widget offers learners (HOOKS_SNIPPET, carried in the preset).

web/presets/ffn-d2-lesson-example.json — lesson LM4-T3's worked example (d = 2, hidden width 4, x = [1, -2]): the
lesson's W1, b1, W2, b2 and PyTorch's hidden pre-activation, activation and output for GELU (tanh form) and ReLU.
<ffn-explorer> hard-codes the lesson's matrices; its browser test checks them and the core's numbers against this.

web/presets/ffn-lesson82.json — lesson 82 §29 "FFN sublayer in PyTorch": the lesson's FFN(d_model=4, d_ff=16) built
after torch.manual_seed(0) with its exact class, x = [[1, 0, -1, 0.5]], and PyTorch's hidden values and output
(printed as [-0.3974, 0.2011, 0.0934, -0.1582]; 148 parameters), for <ffn-explorer preset="ffn-lesson82">.

web/presets/layernorm-book42.json — book §4.2's toy layer output (Linear(5, 6) + ReLU after torch.manual_seed(123))
and what the book prints about it (mean, the unbiased variance 0.0231/0.0398, out_norm without eps), for
<layernorm-explorer preset="book-4.2">.

Run from the repo root with `/usr/bin/python3 tests/reference/make_lesson_presets.py`.
"""

import inspect
import json
import math
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import make_goldens as mg  # noqa: E402
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


# The lesson's state_dict names -> the core's parameter names (nn.LayerNorm's weight/bias are the book's
# scale/shift; the lesson's attention calls its projections Wq, Wk, Wv, Wo; its FFN is nn.Sequential "ffn").
ENCODER_NAMES = {
    "norm1.weight": "norm1.scale", "norm1.bias": "norm1.shift",
    "attn.Wq.weight": "att.W_query.weight", "attn.Wk.weight": "att.W_key.weight",
    "attn.Wv.weight": "att.W_value.weight", "attn.Wo.weight": "att.out_proj.weight",
    "norm2.weight": "norm2.scale", "norm2.bias": "norm2.shift",
    "ffn.0.weight": "ff.layers.0.weight", "ffn.0.bias": "ff.layers.0.bias",
    "ffn.2.weight": "ff.layers.2.weight", "ffn.2.bias": "ff.layers.2.bias",
}


# The snippet <block-explorer> offers a learner (the preset carries it): forward hooks on the lesson's EncoderBlock
# that record every step of its forward pass and print them as one dict. Run here on the lesson's own block to
# make the preset's per-step intermediates, so what the widget compares against is what this snippet prints.
HOOKS_SNIPPET = """\
# Record every step of your EncoderBlock's forward pass (run it after `block` and `x` exist, as in the lesson).
steps = {}
def keep(name):
    def hook(module, inputs, output):
        steps[name] = output.detach()
    return hook
hooks = [
    block.norm1.register_forward_hook(keep("norm1")),
    block.attn.register_forward_hook(keep("att")),
    block.norm2.register_forward_pre_hook(lambda module, inputs: steps.__setitem__("add1", inputs[0].detach())),
    block.norm2.register_forward_hook(keep("norm2")),
    block.ffn.register_forward_hook(keep("ff")),
]
with torch.no_grad():
    steps["add2"] = block(x)
for h in hooks:
    h.remove()
print({name: value.tolist() for name, value in steps.items()})
"""


def encoder_block_steps():
    """PyTorch's value at every step of the lesson's block on the lesson's x, recorded by HOOKS_SNIPPET."""
    torch.manual_seed(42)
    block = mg.EncoderBlock(8, 2, 32)
    x = torch.randn(2, 5, 8)
    block.eval()
    scope = {"block": block, "x": x, "torch": torch, "print": lambda *a: None}
    exec(HOOKS_SNIPPET, scope)  # noqa: S102  (our own snippet, the one the widget shows)
    steps = scope["steps"]
    assert list(steps) == ["norm1", "att", "add1", "norm2", "ff", "add2"], list(steps)
    assert torch.equal(steps["add2"], block(x).detach())
    return {k: [float(v) for v in t.flatten().tolist()] for k, t in steps.items()}


def encoder_block_preset():
    (case,) = mg.make_encoder_block()  # torch.manual_seed(42); EncoderBlock(8, 2, 32); x = torch.randn(2, 5, 8)
    assert case["config"]["param_count"] == 840
    assert list(case["params"]) == list(ENCODER_NAMES), list(case["params"])
    B, T, d = case["inputs"]["x"]["shape"]
    # Counted from the lesson's own parameters: 4 d² = 256 (no biases), d·d_ff + d_ff + d_ff·d + d = 552, 2 · 2d = 32.
    count = lambda prefix: sum(len(t["data"]) for n, t in case["params"].items() if n.startswith(prefix))  # noqa: E731
    sizes = {"attention": count("attn."), "feed_forward": count("ffn."), "norms": count("norm")}
    assert sizes == {"attention": 256, "feed_forward": 552, "norms": 32} and sum(sizes.values()) == 840, sizes
    return {
        "generator": GENERATOR,
        "torch_version": torch.__version__,
        "source": "lesson 82, section 37 'EncoderBlock as nn.Module' (torch.manual_seed(42); "
                  "block = EncoderBlock(d=8, h=2, d_ff=32); x = torch.randn(2, 5, 8); out = block(x))",
        # The core's BlockConfig for the lesson's block: pre-norm, non-causal attention with no bias on any of
        # Wq, Wk, Wv, Wo, FFN width d_ff, nn.GELU() (exact erf), nn.LayerNorm's eps, no dropout.
        "config": {"emb_dim": d, "n_heads": case["config"]["h"], "context_length": T,
                   "ffn_hidden": case["config"]["d_ff"], "activation": "gelu_erf", "causal": False,
                   "qkv_bias": False, "attn_out_bias": False, "drop_rate": 0.0, "norm": "pre", "ln_eps": 1e-5},
        "num_parameters": case["config"]["param_count"],
        "parameter_breakdown": sizes,
        "torch_names": {core: torch_name for torch_name, core in ENCODER_NAMES.items()},
        "params": {ENCODER_NAMES[n]: flat(t) for n, t in case["params"].items()},
        "x": case["inputs"]["x"],
        "torch_output": case["outputs"]["y"],
        # Every step of the forward pass as PyTorch computed it (the block explorer's "first step that disagrees").
        "torch_steps": encoder_block_steps(),
        "hooks_snippet": HOOKS_SNIPPET,
        # The lesson's classes verbatim, for the widget's "Copy as PyTorch".
        "lesson_code": inspect.getsource(mg.MultiHeadSelfAttn) + inspect.getsource(mg.EncoderBlock),
    }


# Lesson LM4-T3, "A worked example: a tiny feed-forward network", and its printed numbers (4 decimals).
FFN_EXAMPLE = {"W1": [[1, 0], [0, 1], [1, 1], [1, -1]], "b1": [0, 0, 0, 0],
               "W2": [[1, 0, 0, 0], [0, 1, 0, 0]], "b2": [0, 0], "x": [1, -2]}
FFN_LESSON_PRINTOUT = {
    "gelu_tanh": {"hidden_pre": [1, -2, -1, 3], "hidden_post": [0.8412, -0.0454, -0.1588, 2.9964],
                  "output": [0.8412, -0.0454]},
    "relu": {"hidden_pre": [1, -2, -1, 3], "hidden_post": [1, 0, 0, 3], "output": [1, 0]},
}


def ffn_example_preset():
    e = {k: torch.tensor(v, dtype=torch.float32) for k, v in FFN_EXAMPLE.items()}
    out = {"generator": GENERATOR, "torch_version": torch.__version__,
           "source": "lesson LM4-T3, 'A worked example: a tiny feed-forward network' (d = 2, hidden width 4)",
           **FFN_EXAMPLE, "torch": {}}
    acts = {"gelu_tanh": nn.GELU(approximate="tanh"), "relu": nn.ReLU()}
    for name, act in acts.items():
        ffn = nn.Sequential(nn.Linear(2, 4), act, nn.Linear(4, 2))
        with torch.no_grad():
            ffn[0].weight.copy_(e["W1"]); ffn[0].bias.copy_(e["b1"])
            ffn[2].weight.copy_(e["W2"]); ffn[2].bias.copy_(e["b2"])
            pre = ffn[0](e["x"])
            post = ffn[1](pre)
            y = ffn(e["x"])
        assert torch.equal(ffn[2](post), y)
        got = {"hidden_pre": pre, "hidden_post": post, "output": y}
        for k, want in FFN_LESSON_PRINTOUT[name].items():
            assert [round(v, 4) for v in got[k].tolist()] == want, (name, k, got[k].tolist())
        out["torch"][name] = {k: [float(v) for v in t.tolist()] for k, t in got.items()}
    # The lesson's own gelu(), its tanh formula written out, agrees (the lesson checks atol=1e-6).
    h = e["W1"] @ e["x"] + e["b1"]
    lesson_gelu = 0.5 * h * (1 + torch.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h ** 3)))
    assert torch.allclose(torch.tensor(out["torch"]["gelu_tanh"]["hidden_post"]), lesson_gelu, atol=1e-6)
    assert torch.equal(F.gelu(h, approximate="tanh"), torch.tensor(out["torch"]["gelu_tanh"]["hidden_post"]))
    return out


# Lesson 82 section 29 "FFN sublayer in PyTorch", verbatim, and its printed numbers.
FFN_LESSON82_PRINTOUT = {"output": [-0.3974, 0.2011, 0.0934, -0.1582], "params": 148}


class LessonFFN(nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.w1 = nn.Linear(d_model, d_ff)
        self.w2 = nn.Linear(d_ff, d_model)

    def forward(self, x):
        return self.w2(F.gelu(self.w1(x)))


def ffn_lesson82_preset():
    torch.manual_seed(0)
    ffn = LessonFFN(d_model=4, d_ff=16)
    x = torch.tensor([[1.0, 0.0, -1.0, 0.5]])
    with torch.no_grad():
        hid = F.gelu(ffn.w1(x))
        out = ffn(x)
    params = sum(p.numel() for p in ffn.parameters())
    assert tuple(hid.shape) == (1, 16) and tuple(out.shape) == (1, 4)
    assert [round(v, 4) for v in out.squeeze().tolist()] == FFN_LESSON82_PRINTOUT["output"], out
    assert params == FFN_LESSON82_PRINTOUT["params"]
    names = {"w1.weight": "layers.0.weight", "w1.bias": "layers.0.bias", "w2.weight": "layers.2.weight",
             "w2.bias": "layers.2.bias"}
    return {
        "generator": GENERATOR, "torch_version": torch.__version__,
        "source": "lesson 82, section 29 'FFN sublayer in PyTorch' (torch.manual_seed(0); ffn = FFN(d_model=4, "
                  "d_ff=16) with F.gelu, the exact erf form; x = torch.tensor([[1.0, 0.0, -1.0, 0.5]]))",
        "config": {"emb_dim": 4, "hidden_dim": 16, "activation": "gelu_erf"},
        "num_parameters": params,
        "torch_names": {core: t for t, core in names.items()},
        "params": {names[n]: [float(v) for v in p.detach().flatten().tolist()] for n, p in ffn.named_parameters()},
        "x": [float(v) for v in x.flatten().tolist()],
        "torch_hidden": [float(v) for v in hid.flatten().tolist()],
        "torch_output": [float(v) for v in out.flatten().tolist()],
    }


def layernorm_book42_preset():
    """Book §4.2, verbatim: the toy layer's output and what the book prints about it."""
    torch.manual_seed(123)
    batch_example = torch.randn(2, 5)
    layer = nn.Sequential(nn.Linear(5, 6), nn.ReLU())
    with torch.no_grad():
        out = layer(batch_example)
        mean = out.mean(dim=-1, keepdim=True)
        var = out.var(dim=-1, keepdim=True)  # the book's first print: torch.var's default, unbiased
        out_norm = (out - mean) / torch.sqrt(var)  # and no eps
    printed = {"mean": [0.1324, 0.2170], "var": [0.0231, 0.0398],
               "out_norm": [[0.6159, 1.4126, -0.8719, 0.5872, -0.8719, -0.8719],
                            [-0.0189, 0.1121, -1.0876, 1.5173, 0.5647, -1.0876]]}
    assert [round(v, 4) for v in mean.flatten().tolist()] == printed["mean"], mean
    assert [round(v, 4) for v in var.flatten().tolist()] == printed["var"], var
    assert [[round(v, 4) for v in r] for r in out_norm.tolist()] == printed["out_norm"], out_norm
    return {
        "generator": GENERATOR, "torch_version": torch.__version__,
        "source": "book §4.2 (torch.manual_seed(123); batch_example = torch.randn(2, 5); layer = "
                  "nn.Sequential(nn.Linear(5, 6), nn.ReLU()); out = layer(batch_example); mean, var = "
                  "out.mean(dim=-1, keepdim=True), out.var(dim=-1, keepdim=True); out_norm = (out - mean) / torch.sqrt(var))",
        "out": out.tolist(), "mean": mean.flatten().tolist(), "var_unbiased": var.flatten().tolist(),
        "var_biased": out.var(dim=-1, unbiased=False).tolist(), "out_norm": out_norm.tolist(), "printed": printed,
    }


def write_json(fname, obj):
    os.makedirs(OUT_DIR, exist_ok=True)
    path = os.path.join(OUT_DIR, fname)
    with open(path, "w") as f:
        json.dump(obj, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


def main():
    write_json("residual-flow-lesson82.json", residual_flow_preset())
    write_json("encoder-block-lesson82.json", encoder_block_preset())
    write_json("ffn-d2-lesson-example.json", ffn_example_preset())
    write_json("ffn-lesson82.json", ffn_lesson82_preset())
    write_json("layernorm-book42.json", layernorm_book42_preset())


if __name__ == "__main__":
    main()
