"""PyTorch reference for Blockscope's backward pass: gradients of every op, module and the tiny GPTs.

Writes tests/golden/{grad_ops,grad_modules,grad_gpt}.json with
the same case layout and float32-exact encoding as make_goldens.py (whose classes and helpers it
imports). Run from the repo root with `/usr/bin/python3 tests/reference/make_grad_goldens.py`.
The optimizer, training-curve and residual-flow goldens are make_train_goldens.py's.

Conventions:
  * Backward cases use a random upstream gradient `dy` (loss = sum(y * dy)); the input gradient is
    "dx", parameter gradients are "grad.<param name>".
  * Dropout is deterministic: every nn.Dropout that matters is replaced by MaskedDropout, which
    computes y = x * (mask / float32(1 - p)) with a recorded 0/1 float "keep" mask drawn as
    torch.bernoulli(torch.full(shape, 1 - p)) under the case's seed (the same formula as
    torch's own dropout: mask.div_(1 - p) then x * mask).
"""

import math
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ next to make_goldens.py
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import make_goldens as mg  # noqa: E402
from make_goldens import T, named_params, randomize_layer_norms  # noqa: E402
from make_goldens import LayerNorm, FeedForward, MultiHeadAttention, TransformerBlock, GPTModel  # noqa: E402
from make_goldens import EncoderBlock  # noqa: E402

mg.GENERATOR = "tests/reference/make_grad_goldens.py"  # write_file() reads this module global
write_file = mg.write_file

torch.set_num_threads(1)


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

class MaskedDropout(nn.Module):
    """Replaces nn.Dropout: consumes one recorded keep-mask per call, in call order."""

    def __init__(self, p, masks):
        super().__init__()
        self.p = p
        self.masks = list(masks)

    def forward(self, x):
        assert self.masks, "MaskedDropout called more often than masks were provided"
        m = self.masks.pop(0)
        assert m.shape == x.shape, (m.shape, x.shape)
        keep = m / torch.tensor(1.0 - self.p, dtype=torch.float32)  # float32 division
        return x * keep


def draw_mask(shape, p):
    m = torch.bernoulli(torch.full(shape, 1.0 - p))
    assert m.dtype == torch.float32
    return m


def grads_of(module, prefix="grad."):
    out = {}
    for n, p in module.named_parameters():
        assert p.grad is not None, n
        assert p.grad.shape == p.shape, n
        out[prefix + n] = T(p.grad)
    return out


def backward_with_dy(y, dy):
    assert y.shape == dy.shape, (y.shape, dy.shape)
    (y * dy).sum().backward()


def case(name, config, params, inputs, outputs):
    return {"name": name, "config": config, "params": params, "inputs": inputs, "outputs": outputs}


# ---------------------------------------------------------------------------
# 1. grad_ops.json
# ---------------------------------------------------------------------------

def ln_grad_case(name, seed, x_fn, d, eps):
    torch.manual_seed(seed)
    x = x_fn()
    ln = LayerNorm(d, eps=eps)
    randomize_layer_norms(ln)
    ln.eval()
    dy = torch.randn(x.shape)
    xg = x.clone().requires_grad_(True)
    y = ln(xg)
    backward_with_dy(y, dy)
    assert xg.grad.shape == x.shape
    outputs = {"y": T(y), "dx": T(xg.grad)}
    outputs.update(grads_of(ln))
    return case(name, {"emb_dim": d, "eps": eps}, named_params(ln), {"x": T(x), "dy": T(dy)}, outputs)


def activation_x():
    torch.manual_seed(201)  # same x as activations.json
    return torch.cat([
        torch.linspace(-6, 6, 241),
        torch.randn(64) * 3,
        torch.tensor([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0, -0.75]),
    ]).float()


def make_grad_ops():
    cases = [
        # same seeds / x / params as layer_norm.json's affine_3x5x8 and eps_1e-3
        ln_grad_case("layer_norm_affine_3x5x8", 102, lambda: torch.randn(3, 5, 8) * 2 + 0.5, 8, 1e-5),
        ln_grad_case("layer_norm_eps_1e-3", 104, lambda: torch.randn(2, 16), 16, 1e-3),
    ]

    fns = {
        "gelu_tanh": lambda t: F.gelu(t, approximate="tanh"),
        "gelu_erf": lambda t: F.gelu(t, approximate="none"),
        "relu": F.relu,
        "tanh": torch.tanh,
    }
    for kind, fn in fns.items():
        x = activation_x()
        torch.manual_seed(211)
        dy = torch.randn(x.shape)
        xg = x.clone().requires_grad_(True)
        y = fn(xg)
        backward_with_dy(y, dy)
        if kind == "relu":
            i0 = (x == 0).nonzero().flatten()
            assert len(i0) >= 1 and torch.all(xg.grad[i0] == 0), "relu'(0) should be 0"
        cases.append(case(f"act_{kind}", {"kind": kind}, {}, {"x": T(x), "dy": T(dy)},
                          {"y": T(y), "dx": T(xg.grad)}))

    for name, seed, fin, fout, bias, xshape in [
        ("linear_bias_5to7", 221, 5, 7, True, (2, 3, 5)),
        ("linear_nobias_8to3", 222, 8, 3, False, (4, 8)),
    ]:
        torch.manual_seed(seed)
        lin = nn.Linear(fin, fout, bias=bias)
        x = torch.randn(xshape)
        dy = torch.randn(*xshape[:-1], fout)
        xg = x.clone().requires_grad_(True)
        y = lin(xg)
        backward_with_dy(y, dy)
        outputs = {"y": T(y), "dx": T(xg.grad)}
        outputs.update(grads_of(lin))
        assert ("grad.bias" in outputs) == bias
        cases.append(case(name, {"in_features": fin, "out_features": fout, "bias": bias},
                          named_params(lin), {"x": T(x), "dy": T(dy)}, outputs))

    for name, seed, rows, vocab, scale in [
        ("cross_entropy_6x11", 231, 6, 11, 3.0),
        ("cross_entropy_large", 232, 4, 9, 80.0),
    ]:
        torch.manual_seed(seed)
        logits = torch.randn(rows, vocab) * scale
        targets = torch.randint(0, vocab, (rows,))
        lg = logits.clone().requires_grad_(True)
        loss = F.cross_entropy(lg, targets)
        loss.backward()
        assert loss.shape == () and lg.grad.shape == logits.shape
        assert torch.isfinite(loss) and torch.all(torch.isfinite(lg.grad))
        cases.append(case(name, {"rows": rows, "vocab": vocab}, {},
                          {"logits": T(logits), "targets": T(targets)},
                          {"loss": T(loss), "dlogits": T(lg.grad)}))

    p = 0.25
    torch.manual_seed(241)
    x = torch.randn(4, 8)
    mask = draw_mask((4, 8), p)
    dy = torch.randn(4, 8)
    xg = x.clone().requires_grad_(True)
    y = MaskedDropout(p, [mask])(xg)
    backward_with_dy(y, dy)
    # same as torch's own dropout formula
    assert torch.equal(y.detach(), x * (mask / (1 - p)))
    cases.append(case("dropout_p0.25", {"p": p}, {}, {"x": T(x), "mask": T(mask), "dy": T(dy)},
                      {"y": T(y), "dx": T(xg.grad)}))
    return cases


# ---------------------------------------------------------------------------
# 2. grad_modules.json
# ---------------------------------------------------------------------------

def module_grad_case(name, config, module, x, dy, extra_inputs=None, param_map=None):
    """y = module(x); loss = sum(y*dy). param_map renames params/grads (ours <- torch)."""
    params = named_params(module)
    xg = x.clone().requires_grad_(True)
    y = module(xg)
    backward_with_dy(y, dy)
    grads = grads_of(module)
    if param_map is not None:
        params = {param_map[k]: v for k, v in params.items()}
        grads = {"grad." + param_map[k[5:]]: v for k, v in grads.items()}
    inputs = {"x": T(x)}
    inputs.update(extra_inputs or {})
    inputs["dy"] = T(dy)
    outputs = {"y": T(y), "dx": T(xg.grad)}
    outputs.update(grads)
    return case(name, config, params, inputs, outputs)


def make_ffn_cases():
    cases = []
    for name, seed, d, H, act in [  # = make_goldens.make_feed_forward
        ("ffn_d8_x4_gelu_tanh", 301, 8, 32, "gelu_tanh"),
        ("ffn_d8_x2_gelu_erf", 302, 8, 16, "gelu_erf"),
        ("ffn_d6_x4_relu", 303, 6, 24, "relu"),
    ]:
        torch.manual_seed(seed)
        ff = FeedForward(d, H, act, bias=True).eval()
        x = torch.randn(2, 3, d)
        dy = torch.randn(2, 3, d)
        cases.append(module_grad_case(
            name, {"emb_dim": d, "hidden_dim": H, "activation": act, "bias": True}, ff, x, dy))
    return cases


def make_attention_cases():
    cases = []
    for name, seed, d_in, d_out, nh, ctx, B, Tn, qkv_bias, causal, p in [  # = make_attention
        ("att_causal_bias_6to8_h2", 401, 6, 8, 2, 7, 2, 5, True, True, 0.0),
        ("att_causal_nobias_12_h3_full", 402, 12, 12, 3, 6, 1, 6, False, True, 0.0),
        ("att_noncausal_8_h2", 403, 8, 8, 2, 5, 2, 5, False, False, 0.0),
        ("att_causal_bias_6to8_h2_dropout", 401, 6, 8, 2, 7, 2, 5, True, True, 0.2),
    ]:
        torch.manual_seed(seed)
        mha = MultiHeadAttention(d_in, d_out, ctx, p, nh, qkv_bias=qkv_bias, causal=causal).eval()
        x = torch.randn(B, Tn, d_in)
        dy = torch.randn(B, Tn, d_out)
        extra = {}
        if p > 0:
            m = draw_mask((B, nh, Tn, Tn), p)
            mha.dropout = MaskedDropout(p, [m])
            extra["mask.att"] = T(m)
        cfg = {"d_in": d_in, "d_out": d_out, "context_length": ctx, "num_heads": nh,
               "qkv_bias": qkv_bias, "causal": causal, "drop_rate": p}
        cases.append(module_grad_case(name, cfg, mha, x, dy, extra))
        if p > 0:
            assert not mha.dropout.masks
    return cases


def install_block_dropout(block, p, B, Tn, C, nh, prefix):
    """Replace a book TransformerBlock's dropouts with recorded masks (att, drop1, drop2)."""
    m_att = draw_mask((B, nh, Tn, Tn), p)
    m1 = draw_mask((B, Tn, C), p)
    m2 = draw_mask((B, Tn, C), p)
    block.att.dropout = MaskedDropout(p, [m_att])
    block.drop_shortcut = MaskedDropout(p, [m1, m2])  # 1st call after att, 2nd after ff
    return {f"{prefix}att": T(m_att), f"{prefix}drop1": T(m1), f"{prefix}drop2": T(m2)}


def assert_masks_used(block):
    if isinstance(block.drop_shortcut, MaskedDropout):
        assert not block.drop_shortcut.masks and not block.att.dropout.masks


def make_block_cases():
    cases = []
    variants = [("pre", True, 0.0), ("pre", False, 0.0), ("post", True, 0.0), ("post", False, 0.0),
                ("pre", True, 0.2), ("post", False, 0.2)]
    for norm, qkv_bias, p in variants:
        i = [("pre", True), ("pre", False), ("post", True), ("post", False)].index((norm, qkv_bias))
        name = f"block_{norm}_{'bias' if qkv_bias else 'nobias'}" + ("_dropout" if p > 0 else "")
        cfg = {"emb_dim": 16, "context_length": 8, "n_heads": 4, "drop_rate": p,
               "qkv_bias": qkv_bias, "norm": norm}
        torch.manual_seed(501 + i)  # = make_goldens.make_transformer_block
        block = TransformerBlock(cfg)
        randomize_layer_norms(block)
        block.eval()
        x = torch.randn(2, 6, 16)
        dy = torch.randn(2, 6, 16)
        extra = install_block_dropout(block, p, 2, 6, 16, 4, "mask.") if p > 0 else {}
        c = module_grad_case(name, cfg, block, x, dy, extra)
        assert_masks_used(block)
        assert "grad.att.W_query.weight" in c["outputs"] and "grad.norm1.scale" in c["outputs"]
        cases.append(c)
    return cases


ENCODER_MAP = {
    "norm1.weight": "norm1.scale", "norm1.bias": "norm1.shift",
    "attn.Wq.weight": "att.W_query.weight", "attn.Wk.weight": "att.W_key.weight",
    "attn.Wv.weight": "att.W_value.weight", "attn.Wo.weight": "att.out_proj.weight",
    "norm2.weight": "norm2.scale", "norm2.bias": "norm2.shift",
    "ffn.0.weight": "ff.layers.0.weight", "ffn.0.bias": "ff.layers.0.bias",
    "ffn.2.weight": "ff.layers.2.weight", "ffn.2.bias": "ff.layers.2.bias",
}


def randomize_torch_layer_norms(module):
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, nn.LayerNorm):
                m.weight.copy_(1 + 0.1 * torch.randn_like(m.weight))
                m.bias.copy_(0.1 * torch.randn_like(m.bias))


def make_encoder_lesson_case():
    torch.manual_seed(42)  # = make_goldens.make_encoder_block (same weights and x)
    block = EncoderBlock(8, 2, 32)
    x = torch.randn(2, 5, 8)
    randomize_torch_layer_norms(block)
    block.eval()
    dy = torch.randn(2, 5, 8)
    assert set(dict(block.named_parameters())) == set(ENCODER_MAP)
    return module_grad_case("encoder_lesson_d8_h2_ff32", {"d": 8, "h": 2, "d_ff": 32}, block, x, dy,
                            param_map=ENCODER_MAP)


def torch_encoder_reference(layer, x, act):
    """Book post-norm block formula, by hand, with the TransformerEncoderLayer's weights."""
    C = layer.self_attn.embed_dim
    nh = layer.self_attn.num_heads
    hd = C // nh
    W, b = layer.self_attn.in_proj_weight, layer.self_attn.in_proj_bias
    B, Tn, _ = x.shape

    def heads(t):
        return t.view(B, Tn, nh, hd).transpose(1, 2)

    q = heads(F.linear(x, W[0:C], b[0:C]))
    k = heads(F.linear(x, W[C:2 * C], b[C:2 * C]))
    v = heads(F.linear(x, W[2 * C:], b[2 * C:]))
    w = torch.softmax(q @ k.transpose(2, 3) / hd ** 0.5, dim=-1)  # non-causal
    ctx = (w @ v).transpose(1, 2).reshape(B, Tn, C)
    att = layer.self_attn.out_proj(ctx)
    h = F.layer_norm(x + att, (C,), layer.norm1.weight, layer.norm1.bias, layer.norm1.eps)
    f = layer.linear2(act(layer.linear1(h)))
    return F.layer_norm(h + f, (C,), layer.norm2.weight, layer.norm2.bias, layer.norm2.eps)


def make_torch_encoder_cases():
    cases = []
    C = 16
    for name, seed, act_name, kind, act in [
        ("torch_encoder_layer_relu", 611, "relu", "relu", F.relu),
        ("torch_encoder_layer_gelu", 612, "gelu", "gelu_erf", F.gelu),
    ]:
        torch.manual_seed(seed)
        layer = nn.TransformerEncoderLayer(d_model=C, nhead=4, dim_feedforward=32, dropout=0.0,
                                           activation=act_name, batch_first=True, norm_first=False)
        randomize_torch_layer_norms(layer)
        layer.eval()
        x = torch.randn(2, 6, C)
        dy = torch.randn(2, 6, C)

        with torch.no_grad():
            y_ref = torch_encoder_reference(layer, x, act)

        sa = layer.self_attn
        xg = x.clone().requires_grad_(True)
        y = layer(xg)
        backward_with_dy(y, dy)
        assert torch.allclose(y.detach(), y_ref, atol=1e-5, rtol=1e-5)

        # Cross-check gradients too: same math by hand, autograd through it.
        xr = x.clone().requires_grad_(True)
        saved = {n: p.grad.clone() for n, p in layer.named_parameters()}
        layer.zero_grad(set_to_none=True)
        backward_with_dy(torch_encoder_reference(layer, xr, act), dy)
        for n, p in layer.named_parameters():
            assert torch.allclose(saved[n], p.grad, atol=1e-5, rtol=1e-4), n
            p.grad = saved[n]
        assert torch.allclose(xr.grad, xg.grad, atol=1e-5, rtol=1e-4)

        def split_rows(t):
            return t[0:C], t[C:2 * C], t[2 * C:3 * C]

        def ours(get):
            qw, kw, vw = split_rows(get(sa.in_proj_weight))
            qb, kb, vb = split_rows(get(sa.in_proj_bias))
            return {
                "att.W_query.weight": qw, "att.W_query.bias": qb,
                "att.W_key.weight": kw, "att.W_key.bias": kb,
                "att.W_value.weight": vw, "att.W_value.bias": vb,
                "att.out_proj.weight": get(sa.out_proj.weight), "att.out_proj.bias": get(sa.out_proj.bias),
                "ff.layers.0.weight": get(layer.linear1.weight), "ff.layers.0.bias": get(layer.linear1.bias),
                "ff.layers.2.weight": get(layer.linear2.weight), "ff.layers.2.bias": get(layer.linear2.bias),
                "norm1.scale": get(layer.norm1.weight), "norm1.shift": get(layer.norm1.bias),
                "norm2.scale": get(layer.norm2.weight), "norm2.shift": get(layer.norm2.bias),
            }

        n_torch = sum(p.numel() for p in layer.parameters())
        params = ours(lambda p: p.detach())
        grads = ours(lambda p: p.grad)
        assert sum(t.numel() for t in params.values()) == n_torch
        cfg = {"emb_dim": C, "n_heads": 4, "ffn_hidden": 32, "activation": kind, "causal": False,
               "qkv_bias": True, "attn_out_bias": True, "norm": "post", "context_length": 8,
               "drop_rate": 0}
        outputs = {"y": T(y), "dx": T(xg.grad)}
        outputs.update({"grad." + k: T(v) for k, v in grads.items()})
        cases.append(case(name, cfg, {k: T(v) for k, v in params.items()},
                          {"x": T(x), "dy": T(dy)}, outputs))
    return cases


def make_grad_modules():
    return (make_ffn_cases() + make_attention_cases() + make_block_cases()
            + [make_encoder_lesson_case()] + make_torch_encoder_cases())


# ---------------------------------------------------------------------------
# 3. grad_gpt.json
# ---------------------------------------------------------------------------

GPT_SEEDS = {}  # (norm, qkv_bias, tie) -> seed used by make_goldens.make_gpt_tiny
_s = 701
for _norm in ("pre", "post"):
    for _qb in (True, False):
        for _tie in (True, False):
            GPT_SEEDS[(_norm, _qb, _tie)] = _s
            _s += 1


def gpt_grad_case(norm, qkv_bias, tie, p, residual=True):
    name = f"gpt_{norm}_{'bias' if qkv_bias else 'nobias'}_{'tied' if tie else 'untied'}"
    name += "" if residual else "_noresidual"
    name += "_dropout" if p > 0 else ""
    cfg = {"vocab_size": 50, "context_length": 12, "emb_dim": 16, "n_heads": 4, "n_layers": 2,
           "drop_rate": p, "qkv_bias": qkv_bias, "tie_weights": tie, "norm": norm}
    if not residual:
        cfg["residual"] = False
    torch.manual_seed(GPT_SEEDS[(norm, qkv_bias, tie)])  # same weights and ids as gpt_tiny.json
    model = GPTModel(cfg)
    randomize_layer_norms(model)
    model.eval()
    B, Tn, C, NH = 2, 7, 16, 4
    ids = torch.randint(0, cfg["vocab_size"], (B, Tn))
    targets = torch.randint(0, cfg["vocab_size"], (B, Tn))
    inputs = {"ids": T(ids), "targets": T(targets)}
    if p > 0:
        m = draw_mask((B, Tn, C), p)
        model.drop_emb = MaskedDropout(p, [m])
        inputs["mask.drop_emb"] = T(m)
        for l, blk in enumerate(model.trf_blocks):
            inputs.update(install_block_dropout(blk, p, B, Tn, C, NH, f"mask.trf_blocks.{l}."))
    params = named_params(model)
    logits = model(ids)
    loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())
    loss.backward()
    if p > 0:
        assert not model.drop_emb.masks
        for blk in model.trf_blocks:
            assert_masks_used(blk)
    assert logits.shape == (B, Tn, cfg["vocab_size"]) and loss.shape == ()
    outputs = {"loss": T(loss), "logits": T(logits)}
    outputs.update(grads_of(model))
    assert ("grad.out_head.weight" in outputs) == (not tie)
    assert set(k[5:] for k in outputs if k.startswith("grad.")) == set(params)
    return case(name, cfg, params, inputs, outputs)


def make_grad_gpt():
    cases = []
    for norm in ("pre", "post"):
        for qkv_bias in (True, False):
            for tie in (True, False):
                cases.append(gpt_grad_case(norm, qkv_bias, tie, 0.0))
    cases.append(gpt_grad_case("pre", True, False, 0.2))
    cases.append(gpt_grad_case("post", False, True, 0.2))
    # Blocks without shortcut connections (the training lab's "without residuals" comparison).
    cases.append(gpt_grad_case("pre", False, False, 0.0, residual=False))
    cases.append(gpt_grad_case("post", False, False, 0.0, residual=False))
    cases.append(gpt_grad_case("pre", False, False, 0.2, residual=False))
    return cases


# ---------------------------------------------------------------------------

def main():
    os.makedirs(mg.OUT_DIR, exist_ok=True)
    write_file("grad_ops.json", make_grad_ops())
    write_file("grad_modules.json", make_grad_modules())
    write_file("grad_gpt.json", make_grad_gpt())


if __name__ == "__main__":
    main()
