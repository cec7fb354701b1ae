"""The learners' mistakes of core/include/blockscope/mistakes.hpp written as a learner's PyTorch code makes them:
each function is the module's forward pass with one line changed. Imported by make_mistake_goldens.py (the core
must reproduce these numbers) and make_paste_goldens.py (the strings a learner would paste); importing runs nothing.
"""
import torch
import torch.nn.functional as F

LAYER_NORM = ["correct", "wrong-axis", "unbiased-variance", "eps-outside-sqrt", "no-eps", "no-affine"]


def layer_norm(x, scale, shift, eps, mistake="correct"):
    """LayerNorm over the last axis of x (..., T, d); 'wrong-axis' takes the statistics over dim -2."""
    axis = -2 if mistake == "wrong-axis" else -1
    mean = x.mean(axis, keepdim=True)
    if mistake == "unbiased-variance":
        var = x.var(axis, keepdim=True)  # torch.var's default: Bessel's correction, / (n - 1)
    else:
        var = x.var(axis, unbiased=False, keepdim=True)
    if mistake == "correct":
        return F.layer_norm(x, (x.shape[-1],), scale, shift, eps)
    if mistake == "eps-outside-sqrt":
        y = (x - mean) / (torch.sqrt(var) + eps)
    elif mistake == "no-eps":
        y = (x - mean) / torch.sqrt(var)
    else:
        y = (x - mean) / torch.sqrt(var + eps)
    return y if mistake == "no-affine" else y * scale + shift


def activation(x, expected, mistake="correct"):
    """expected: 'gelu_tanh' or 'gelu_erf'."""
    kind = {"tanh-approximation": "gelu_tanh", "exact-erf": "gelu_erf", "relu-instead-of-gelu": "relu"}.get(mistake, expected)
    if kind == "relu":
        return F.relu(x)
    return F.gelu(x, approximate="tanh" if kind == "gelu_tanh" else "none")


def activation_mistakes(expected):
    return ["correct", "exact-erf" if expected == "gelu_tanh" else "tanh-approximation", "relu-instead-of-gelu"]


def feed_forward(w1, b1, w2, b2, x, expected, mistake="correct"):
    """Linear -> activation -> Linear over x (B, T, d) with the weights as nn.Linear stores them."""
    if mistake == "across-sequence":  # the FFN applied to the sequence axis: mixes positions
        return feed_forward(w1, b1, w2, b2, x.transpose(-2, -1), expected).transpose(-2, -1)
    h = F.linear(x, w1, b1)
    if mistake != "no-activation":
        h = activation(h, expected, mistake if mistake in activation_mistakes(expected) else "correct")
    return F.linear(h, w2, b2)


def feed_forward_mistakes(expected, T, d):
    return activation_mistakes(expected) + ["no-activation"] + (["across-sequence"] if T == d and T > 1 else [])


def attention(att, x, mistake="correct"):
    """The book's MultiHeadAttention.forward (book_modules.py) with one line changed; dropout off."""
    b, n, _ = x.shape
    split = lambda t: t.view(b, n, att.num_heads, att.head_dim).transpose(1, 2)  # noqa: E731
    q, k, v = split(att.W_query(x)), split(att.W_key(x)), split(att.W_value(x))
    scores = q @ k.transpose(2, 3)
    if att.causal and mistake != "no-causal-mask":
        scores = scores.masked_fill(torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1), -torch.inf)
    scaled = scores if mistake == "no-scale" else scores / k.shape[-1] ** 0.5
    weights = torch.softmax(scaled, dim=-2 if mistake == "softmax-wrong-axis" else -1)
    ctx = (weights @ v).transpose(1, 2).contiguous().view(b, n, att.d_out)
    return att.out_proj(ctx)


def attention_mistakes(causal):
    return ["correct", "no-scale"] + (["no-causal-mask"] if causal else []) + ["softmax-wrong-axis"]


SITES = {"layer_norm": LAYER_NORM[1:], "attention": ["no-scale", "no-causal-mask", "softmax-wrong-axis"],
         "ff": ["tanh-approximation", "exact-erf", "relu-instead-of-gelu", "no-activation", "across-sequence"]}


def block_steps(block, x, mistake="correct", at_step=""):
    """Every step of the book's TransformerBlock (book_modules.py) as {id: tensor}, with `mistake` where it fits
    (a LayerNorm one in both norms unless at_step names one); post-norm/pre-norm swap the wiring."""
    def fits(step):
        here = ((mistake in SITES["layer_norm"] and step in ("norm1", "norm2"))
                or (mistake in SITES["ff"] and step == "ff") or (mistake in SITES["attention"] and step == "att")
                or (mistake == "no-attention-residual" and step == "add1")
                or (mistake == "no-ffn-residual" and step == "add2"))
        return here and at_step in ("", step)

    def norm(ln, step, t):
        return layer_norm(t, ln.scale, ln.shift, ln.eps, mistake if fits(step) else "correct")

    def ff(t):
        lin1, lin2 = block.ff.layers[0], block.ff.layers[2]
        return feed_forward(lin1.weight, lin1.bias, lin2.weight, lin2.bias, t, "gelu_tanh",
                            mistake if fits("ff") else "correct")

    att = lambda t: attention(block.att, t, mistake if fits("att") else "correct")  # noqa: E731
    add = lambda step, s, t: t if fits(step) else s + t  # noqa: E731
    pre = (block.norm == "pre") != (mistake in ("post-norm", "pre-norm"))
    s = {"input": x}
    if pre:
        s["norm1"] = norm(block.norm1, "norm1", x)
        s["att"] = att(s["norm1"])
        s["add1"] = add("add1", x, s["att"])
        s["norm2"] = norm(block.norm2, "norm2", s["add1"])
        s["ff"] = ff(s["norm2"])
        s["add2"] = add("add2", s["add1"], s["ff"])
    else:
        s["att"] = att(x)
        s["add1"] = add("add1", x, s["att"])
        s["norm1"] = norm(block.norm1, "norm1", s["add1"])
        s["ff"] = ff(s["norm1"])
        s["add2"] = add("add2", s["norm1"], s["ff"])
        s["norm2"] = norm(block.norm2, "norm2", s["add2"])
    return s


def block_mistakes(norm, T, d):
    return (LAYER_NORM + [m for m in feed_forward_mistakes("gelu_tanh", T, d) if m != "correct"]
            + [m for m in attention_mistakes(True) if m != "correct"]
            + ["no-attention-residual", "no-ffn-residual", "post-norm" if norm == "pre" else "pre-norm"])


def lesson_attention(attn, x, mistake="correct"):
    """The lesson's MultiHeadSelfAttn.forward (book_modules.py, non-causal, no biases) with one line changed."""
    B, T, D = x.shape
    split = lambda W: W(x).view(B, T, attn.h, attn.dk).transpose(1, 2)  # noqa: E731
    Q, K, V = split(attn.Wq), split(attn.Wk), split(attn.Wv)
    scores = Q @ K.transpose(-2, -1)
    scores = scores if mistake == "no-scale" else scores / attn.dk ** 0.5
    w = scores.softmax(-2 if mistake == "softmax-wrong-axis" else -1)
    return attn.Wo((w @ V).transpose(1, 2).reshape(B, T, D))


def encoder_steps(block, x, mistake="correct"):
    """The lesson's EncoderBlock with `mistake` as a learner's own code makes it (their LayerNorm serves both norms),
    as the hooks snippet records it: {norm1, att, add1 (norm2's input), norm2, ff, add2 (the output)}."""
    def norm(ln, t):
        m = mistake if mistake in SITES["layer_norm"] else "correct"
        return layer_norm(t, ln.weight, ln.bias, ln.eps, m)

    def ffn(t):
        lin1, lin2 = block.ffn[0], block.ffn[2]
        m = mistake if mistake in SITES["ff"] else "correct"
        return feed_forward(lin1.weight, lin1.bias, lin2.weight, lin2.bias, t, "gelu_erf", m)

    att = lambda t: lesson_attention(block.attn, t, mistake if mistake in SITES["attention"] else "correct")  # noqa: E731
    s = {}
    if mistake == "post-norm":  # x = norm1(x + attn(x)); x = norm2(x + ffn(x)), recorded by the same hooks
        s["att"] = att(x)
        s["norm1"] = norm(block.norm1, x + s["att"])
        s["ff"] = ffn(s["norm1"])
        s["add1"] = s["norm1"] + s["ff"]  # norm2's input
        s["norm2"] = s["add2"] = norm(block.norm2, s["add1"])
        return {k: s[k] for k in ("norm1", "att", "add1", "norm2", "ff", "add2")}
    s["norm1"] = norm(block.norm1, x)
    s["att"] = att(s["norm1"])
    s["add1"] = s["att"] if mistake == "no-attention-residual" else x + s["att"]
    s["norm2"] = norm(block.norm2, s["add1"])
    s["ff"] = ffn(s["norm2"])
    s["add2"] = s["ff"] if mistake == "no-ffn-residual" else s["add1"] + s["ff"]
    return s
