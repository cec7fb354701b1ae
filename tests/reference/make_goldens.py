"""PyTorch reference that writes Blockscope's golden tensors (LayerNorm, activations, FFN, attention,
transformer block, lesson encoder block, tiny GPT) for the C++ and JS tests to compare against.
Run from the repo root with `/usr/bin/python3 tests/reference/make_goldens.py`; writes tests/golden/*.json.
"""

import json
import math
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ next to the reference scripts

import torch
import torch.nn as nn
import torch.nn.functional as F

GENERATOR = "tests/reference/make_goldens.py"
OUT_DIR = os.path.join("tests", "golden")

torch.set_num_threads(1)  # bitwise-reproducible CPU reductions


# ---------------------------------------------------------------------------
# Encoding helpers
# ---------------------------------------------------------------------------

def T(t):
    """Tensor -> {"shape", "data"}; ints as ints; floats as float32 values written exactly.

    Each float32 value is written as Python's repr of that value converted to double, so
    the JSON number IS the float32 value: a reader parsing into float or into double gets
    it bit-exactly. (Shortest float32 decimals would be ~40% smaller, but a double-precision
    reader would then see inputs off by up to 1/2 float32 ulp, which visibly changes e.g. the
    large_offset LayerNorm case.)
    """
    t = t.detach().cpu().contiguous()
    shape = list(t.shape)
    if t.is_floating_point():
        data = [float(v) for v in t.to(torch.float32).reshape(-1).tolist()]
        assert all(math.isfinite(v) for v in data), "non-finite value in golden tensor"
    else:
        data = [int(v) for v in t.reshape(-1).tolist()]
    return {"shape": shape, "data": data}


def stats(t):
    """Mean and biased variance over the last axis (float32)."""
    return t.mean(dim=-1), t.var(dim=-1, unbiased=False)


def write_file(fname, cases):
    path = os.path.join(OUT_DIR, fname)
    head = json.dumps({"generator": GENERATOR, "torch_version": torch.__version__},
                      separators=(",", ":"))
    lines = [json.dumps(c, separators=(",", ":")) for c in cases]
    with open(path, "w") as f:
        f.write(head[:-1] + ',"cases":[\n')
        f.write(",\n".join(lines))
        f.write("\n]}\n")
    with open(path) as f:  # sanity: loads back, same case names
        assert [c["name"] for c in json.load(f)["cases"]] == [c["name"] for c in cases]
    print(f"{path}: {os.path.getsize(path):,} bytes, {len(cases)} cases")


def named_params(module):
    # named_parameters() (not state_dict()) so that registered buffers (the causal
    # mask) are not written and a tied out_head.weight appears only as tok_emb.weight.
    return {n: T(p) for n, p in module.named_parameters()}


# The book's classes and the lesson's EncoderBlock live in book_modules.py; re-exported here for the other
# reference scripts (make_grad_goldens.py, make_checkpoints.py, ...), which import them from this module.
from book_modules import (  # noqa: E402,F401
    EncoderBlock, FeedForward, GPTModel, LayerNorm, MultiHeadAttention, MultiHeadSelfAttn, TransformerBlock,
    make_activation, randomize_layer_norms)


# ---------------------------------------------------------------------------
# Lesson sanity asserts (not written to JSON)
# ---------------------------------------------------------------------------

def gpt_param_count(vocab_size, context_length, emb_dim, n_layers, qkv_bias, tie_weights, **_):
    C = emb_dim
    att = 3 * (C * C + (C if qkv_bias else 0)) + (C * C + C)
    ff = (C * 4 * C + 4 * C) + (4 * C * C + C)
    norms = 2 * 2 * C
    block = att + ff + norms
    total = vocab_size * C + context_length * C + n_layers * block + 2 * C
    if not tie_weights:
        total += C * vocab_size
    return total


def lesson_asserts():
    ln = nn.LayerNorm(4, elementwise_affine=False)
    y = ln(torch.tensor([[1.0, 3.0, 5.0, 7.0]]))[0].tolist()
    for got, want in zip(y, [-1.3416, -0.4472, 0.4472, 1.3416]):
        assert abs(got - want) < 1e-4, (y,)

    xs = torch.tensor([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0])
    g = F.gelu(xs, approximate="tanh").tolist()
    want = [-0.0036, -0.1588, -0.1543, 0.0, 0.3457, 0.8412, 1.9546, 2.9964]
    assert [round(v, 4) for v in g] == want, g

    ffn = nn.Sequential(nn.Linear(4, 16), nn.GELU(approximate="tanh"), nn.Linear(16, 4))
    assert sum(p.numel() for p in ffn.parameters()) == 148

    cfg124 = {"vocab_size": 50257, "context_length": 1024, "emb_dim": 768, "n_heads": 12,
              "n_layers": 12, "drop_rate": 0.1, "qkv_bias": False}
    assert gpt_param_count(**cfg124, tie_weights=False) == 163_009_536
    assert gpt_param_count(**cfg124, tie_weights=True) == 124_412_160

    # cross-check the arithmetic against real (small) models
    for qkv_bias in (False, True):
        for tie in (False, True):
            cfg = {"vocab_size": 50, "context_length": 12, "emb_dim": 16, "n_heads": 4,
                   "n_layers": 2, "drop_rate": 0.1, "qkv_bias": qkv_bias, "tie_weights": tie}
            n = sum(p.numel() for p in GPTModel(cfg).parameters())
            assert n == gpt_param_count(**cfg), (cfg, n)


# ---------------------------------------------------------------------------
# 1. layer_norm.json
# ---------------------------------------------------------------------------

def layer_norm_case(name, seed, x_fn, d, eps, affine, use_float64=False):
    torch.manual_seed(seed)
    x = x_fn()
    ln = LayerNorm(d, eps=eps)
    if affine:
        randomize_layer_norms(ln)
    ln.eval()
    with torch.no_grad():
        if use_float64:
            # Reference computed in float64 and then cast to float32: with a large
            # common offset, float32 E[x^2]-E[x]^2 style variances are badly cancelled.
            xd = x.double()
            y = F.layer_norm(xd, (d,), ln.scale.double(), ln.shift.double(), eps)
            mean, var = stats(xd)
        else:
            y = ln(x)
            mean, var = stats(x)
        rstd = 1.0 / torch.sqrt(var + eps)
    return {
        "name": name,
        "config": {"emb_dim": d, "eps": eps},
        "params": named_params(ln),
        "inputs": {"x": T(x)},
        "outputs": {"y": T(y.float()), "mean": T(mean.float()), "var": T(var.float()),
                    "rstd": T(rstd.float())},
    }


def make_layer_norm():
    return [
        layer_norm_case("no_affine_1357", 101, lambda: torch.tensor([[1.0, 3.0, 5.0, 7.0]]),
                        4, 1e-5, affine=False),
        layer_norm_case("affine_3x5x8", 102, lambda: torch.randn(3, 5, 8) * 2 + 0.5,
                        8, 1e-5, affine=True),
        layer_norm_case("large_offset", 103, lambda: 1000 + torch.randn(4, 16) * 0.01,
                        16, 1e-5, affine=True, use_float64=True),
        layer_norm_case("eps_1e-3", 104, lambda: torch.randn(2, 16), 16, 1e-3, affine=True),
    ]


# ---------------------------------------------------------------------------
# 2. activations.json
# ---------------------------------------------------------------------------

def make_activations():
    cases = []
    for kind in ("gelu_tanh", "gelu_erf", "relu"):
        torch.manual_seed(201)  # same x for every activation
        x = torch.cat([
            torch.linspace(-6, 6, 241),
            torch.randn(64) * 3,
            torch.tensor([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0, -0.75]),
        ]).float()
        xg = x.clone().requires_grad_(True)
        if kind == "relu":
            y = F.relu(xg)
        else:
            y = F.gelu(xg, approximate="tanh" if kind == "gelu_tanh" else "none")
        outputs = {"y": T(y)}
        if kind != "relu":
            y.sum().backward()
            outputs["dy"] = T(xg.grad)
        cases.append({"name": kind, "config": {"kind": kind}, "params": {},
                      "inputs": {"x": T(x)}, "outputs": outputs})
    return cases


# ---------------------------------------------------------------------------
# 3. feed_forward.json
# ---------------------------------------------------------------------------

def make_feed_forward():
    cases = []
    for name, seed, d, H, act in [
        ("d8_x4_gelu_tanh", 301, 8, 32, "gelu_tanh"),
        ("d8_x2_gelu_erf", 302, 8, 16, "gelu_erf"),
        ("d6_x4_relu", 303, 6, 24, "relu"),
    ]:
        torch.manual_seed(seed)
        ff = FeedForward(d, H, act, bias=True).eval()
        x = torch.randn(2, 3, d)
        with torch.no_grad():
            h_pre = ff.layers[0](x)
            h_post = ff.layers[1](h_pre)
            y = ff.layers[2](h_post)
            assert torch.equal(y, ff(x))
        cases.append({
            "name": name,
            "config": {"emb_dim": d, "hidden_dim": H, "activation": act, "bias": True},
            "params": named_params(ff),
            "inputs": {"x": T(x)},
            "outputs": {"y": T(y), "hidden_pre": T(h_pre), "hidden_post": T(h_post)},
        })
    return cases


# ---------------------------------------------------------------------------
# 4. attention.json
# ---------------------------------------------------------------------------

def make_attention():
    cases = []
    for name, seed, d_in, d_out, nh, ctx, B, Tn, qkv_bias, causal in [
        ("causal_bias_6to8_h2", 401, 6, 8, 2, 7, 2, 5, True, True),
        ("causal_nobias_12_h3_full", 402, 12, 12, 3, 6, 1, 6, False, True),
        ("noncausal_8_h2", 403, 8, 8, 2, 5, 2, 5, False, False),
    ]:
        torch.manual_seed(seed)
        mha = MultiHeadAttention(d_in, d_out, ctx, 0.1, nh, qkv_bias=qkv_bias, causal=causal).eval()
        x = torch.randn(B, Tn, d_in)
        with torch.no_grad():
            y = mha(x)
        w = mha.last_attn_weights
        assert w.shape == (B, nh, Tn, Tn)
        if causal:
            assert torch.all(w.triu(diagonal=1) == 0)
        cases.append({
            "name": name,
            "config": {"d_in": d_in, "d_out": d_out, "context_length": ctx, "num_heads": nh,
                       "qkv_bias": qkv_bias, "causal": causal},
            "params": named_params(mha),
            "inputs": {"x": T(x)},
            "outputs": {"y": T(y), "attn_weights": T(w)},
        })
    return cases


# ---------------------------------------------------------------------------
# 5. transformer_block.json (+ per-block probes reused by gpt_tiny.json)
# ---------------------------------------------------------------------------

def attach_block_probes(block, rec):
    """Forward hooks recording the per-block quantities into dict `rec`."""
    def norm_hook(tag):
        def hook(mod, inp, out):
            (x_in,) = inp
            rec[f"{tag}_in_mean"], rec[f"{tag}_in_var"] = stats(x_in.detach())
            rec[f"{tag}_out_mean"], rec[f"{tag}_out_var"] = stats(out.detach())
        return hook

    def save(key):
        def hook(mod, inp, out):
            rec[key] = out.detach().clone()
        return hook

    def block_hook(mod, inp, out):
        rec["y"] = out.detach().clone()
        rec["attn_weights"] = mod.att.last_attn_weights
        rec["residual_norm"] = torch.linalg.vector_norm(out.detach(), dim=-1)

    return [
        block.norm1.register_forward_hook(norm_hook("norm1")),
        block.norm2.register_forward_hook(norm_hook("norm2")),
        block.ff.layers[0].register_forward_hook(save("ffn_hidden_pre")),
        block.ff.layers[1].register_forward_hook(save("ffn_hidden_post")),
        block.register_forward_hook(block_hook),
    ]


BLOCK_PROBE_KEYS = [
    "norm1_in_mean", "norm1_in_var", "norm1_out_mean", "norm1_out_var",
    "norm2_in_mean", "norm2_in_var", "norm2_out_mean", "norm2_out_var",
    "ffn_hidden_pre", "ffn_hidden_post", "attn_weights", "residual_norm",
]


def make_transformer_block():
    cases = []
    for i, (norm, qkv_bias) in enumerate([("pre", True), ("pre", False), ("post", True), ("post", False)]):
        name = f"{norm}_{'bias' if qkv_bias else 'nobias'}"
        cfg = {"emb_dim": 16, "context_length": 8, "n_heads": 4, "drop_rate": 0.1,
               "qkv_bias": qkv_bias, "norm": norm}
        torch.manual_seed(501 + i)
        block = TransformerBlock(cfg)
        randomize_layer_norms(block)
        block.eval()
        x = torch.randn(2, 6, 16)
        rec = {}
        handles = attach_block_probes(block, rec)
        with torch.no_grad():
            y = block(x)
        for h in handles:
            h.remove()
        assert torch.equal(rec["y"], y)
        outputs = {"y": T(y)}
        outputs.update({k: T(rec[k]) for k in BLOCK_PROBE_KEYS})
        cases.append({"name": name, "config": cfg, "params": named_params(block),
                      "inputs": {"x": T(x)}, "outputs": outputs})
    return cases


# ---------------------------------------------------------------------------
# 6. encoder_block.json
# ---------------------------------------------------------------------------

def make_encoder_block():
    torch.manual_seed(42)
    block = EncoderBlock(8, 2, 32)
    x = torch.randn(2, 5, 8)
    block.eval()
    n_params = sum(p.numel() for p in block.parameters())
    assert n_params == 840, n_params
    with torch.no_grad():
        y = block(x)
    params = {k: T(v) for k, v in block.state_dict().items()}
    assert list(params) == ["norm1.weight", "norm1.bias", "attn.Wq.weight", "attn.Wk.weight",
                            "attn.Wv.weight", "attn.Wo.weight", "norm2.weight", "norm2.bias",
                            "ffn.0.weight", "ffn.0.bias", "ffn.2.weight", "ffn.2.bias"], list(params)
    return [{"name": "lesson_d8_h2_ff32", "config": {"d": 8, "h": 2, "d_ff": 32, "param_count": 840},
             "params": params, "inputs": {"x": T(x)}, "outputs": {"y": T(y)}}]


# ---------------------------------------------------------------------------
# 7. gpt_tiny.json
# ---------------------------------------------------------------------------

def gpt_case(name, seed, norm, qkv_bias, tie, ids_shape):
    cfg = {"vocab_size": 50, "context_length": 12, "emb_dim": 16, "n_heads": 4, "n_layers": 2,
           "drop_rate": 0.1, "qkv_bias": qkv_bias, "tie_weights": tie, "norm": norm}
    torch.manual_seed(seed)
    model = GPTModel(cfg)
    randomize_layer_norms(model)
    model.eval()
    ids = torch.randint(0, cfg["vocab_size"], ids_shape)

    recs = [{} for _ in model.trf_blocks]
    handles = []
    for blk, rec in zip(model.trf_blocks, recs):
        handles += attach_block_probes(blk, rec)
    fin = {}

    def final_hook(mod, inp, out):
        fin["final_norm_in_mean"], fin["final_norm_in_var"] = stats(inp[0].detach())
        fin["final_norm_out_mean"], fin["final_norm_out_var"] = stats(out.detach())

    handles.append(model.final_norm.register_forward_hook(final_hook))
    with torch.no_grad():
        logits = model(ids)
    for h in handles:
        h.remove()

    params = named_params(model)
    assert ("out_head.weight" in params) == (not tie)
    if tie:
        assert model.out_head.weight is model.tok_emb.weight

    outputs = {"logits": T(logits)}
    outputs.update({k: T(v) for k, v in fin.items()})
    for l, rec in enumerate(recs):
        outputs.update({f"layers.{l}.{k}": T(rec[k]) for k in BLOCK_PROBE_KEYS})
    return {"name": name, "config": cfg, "params": params, "inputs": {"ids": T(ids)},
            "outputs": outputs}


def make_gpt_tiny():
    cases = []
    seed = 701
    for norm in ("pre", "post"):
        for qkv_bias in (True, False):
            for tie in (True, False):
                name = f"{norm}_{'bias' if qkv_bias else 'nobias'}_{'tied' if tie else 'untied'}"
                cases.append(gpt_case(name, seed, norm, qkv_bias, tie, (2, 7)))
                seed += 1
    cases.append(gpt_case("pre_nobias_untied_fullctx", seed, "pre", False, False, (1, 12)))
    return cases


# ---------------------------------------------------------------------------

def main():
    lesson_asserts()
    os.makedirs(OUT_DIR, exist_ok=True)
    write_file("layer_norm.json", make_layer_norm())
    write_file("activations.json", make_activations())
    write_file("feed_forward.json", make_feed_forward())
    write_file("attention.json", make_attention())
    write_file("transformer_block.json", make_transformer_block())
    write_file("encoder_block.json", make_encoder_block())
    write_file("gpt_tiny.json", make_gpt_tiny())


if __name__ == "__main__":
    main()
