"""PyTorch reference for `blockscope grad`: the loss of fixed tokens/targets and the gradient of every tensor
stored in tests/golden/models/{book_tiny,hf_tiny}/model.safetensors, in the FILE's layout and names.
Run from the repo root with `/usr/bin/python3 tests/reference/make_cli_goldens.py`; writes
tests/golden/cli/grad_<model>.json = {tokens, targets, loss, grads: {name: {shape, data}}, zero: {name: [b, e]}}.

Book layout: the book's GPTModel (make_goldens.py) with the file's state_dict loaded; the gradient of each
stored parameter (the causal-mask buffers have none). Hugging Face layout: GPT-2's forward written against the
file's own tensors as leaves (Conv1D x @ W + b with W (in, out), c_attn fused Q|K|V), so the gradients come
out in the file's orientation; a tied head's gradient is folded into wte.weight by autograd. The HF gradients
are cross-checked against the book model run on the converted weights.
`zero` marks elements whose gradient is exactly zero mathematically (the key bias: softmax is invariant to
the per-query constant q . b_k it adds), which the test compares against an absolute tolerance.
"""

import json
import math
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ next to make_goldens.py
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from make_goldens import GPTModel, T  # noqa: E402  (the book's classes, the float32-exact encoder)
from safetensors_read import read_safetensors  # noqa: E402

GENERATOR = "tests/reference/make_cli_goldens.py"
MODELS_DIR = os.path.join("tests", "golden", "models")
OUT_DIR = os.path.join("tests", "golden", "cli")
SEQ_LEN = 13  # shorter than the context (16): the unused pos_emb rows must get exactly zero

torch.set_num_threads(1)  # bitwise-reproducible CPU reductions
assert sys.byteorder == "little", "safetensors is little-endian"


def read_model(name):
    d = os.path.join(MODELS_DIR, name)
    with open(os.path.join(d, "config.json")) as f:
        config = json.load(f)
    return config, read_safetensors(os.path.join(d, "model.safetensors"))


def is_buffer(name):
    return name.endswith((".att.mask", ".attn.bias", ".attn.masked_bias"))


def fixed_inputs(vocab, seed):
    g = torch.Generator().manual_seed(seed)
    tokens = torch.randint(0, vocab, (SEQ_LEN,), generator=g)
    targets = torch.randint(0, vocab, (SEQ_LEN,), generator=g)
    return tokens, targets


# ---------------------------------------------------------------------------
# Book layout
# ---------------------------------------------------------------------------

def book_grads(cfg, tensors, tokens, targets):
    """Loss and {stored name: gradient} through the book's GPTModel (dropout off: eval mode)."""
    model = GPTModel(cfg).eval()
    model.load_state_dict(tensors, strict=not cfg.get("tie_weights", False))
    logits = model(tokens[None])
    loss = F.cross_entropy(logits.flatten(0, 1), targets)
    loss.backward()
    grads = dict(model.named_parameters())
    out = {}
    for name in tensors:
        if is_buffer(name):
            continue
        # A tied model lists the shared matrix once (tok_emb.weight); a stored out_head copy gets its gradient.
        p = grads[name] if name in grads else grads["tok_emb.weight"]
        out[name] = p.grad.detach().clone()
    return loss.detach(), out


# ---------------------------------------------------------------------------
# Hugging Face GPT-2 layout
# ---------------------------------------------------------------------------

def hf_prefix(tensors):
    return "transformer." if "transformer.wte.weight" in tensors else ""


def gpt2_loss(cfg, W, prefix, tokens, targets):
    """modeling_gpt2.py's forward on the file's tensors W (Conv1D weights (in, out); c_attn = Q|K|V)."""
    C, H, L = cfg["n_embd"], cfg["n_head"], cfg["n_layer"]
    eps = cfg.get("layer_norm_epsilon", 1e-5)
    assert cfg.get("activation_function", "gelu_new") == "gelu_new"
    Tn = tokens.shape[0]
    x = W[prefix + "wte.weight"][tokens] + W[prefix + "wpe.weight"][torch.arange(Tn)]
    mask = torch.tril(torch.ones(Tn, Tn, dtype=torch.bool))
    for i in range(L):
        h = f"{prefix}h.{i}."
        a = F.layer_norm(x, (C,), W[h + "ln_1.weight"], W[h + "ln_1.bias"], eps)
        q, k, v = (a @ W[h + "attn.c_attn.weight"] + W[h + "attn.c_attn.bias"]).split(C, dim=-1)
        q, k, v = (t.view(Tn, H, C // H).transpose(0, 1) for t in (q, k, v))
        s = (q @ k.transpose(-1, -2)) / math.sqrt(C // H)
        p = torch.softmax(s.masked_fill(~mask, float("-inf")), dim=-1)
        a = (p @ v).transpose(0, 1).reshape(Tn, C)
        x = x + a @ W[h + "attn.c_proj.weight"] + W[h + "attn.c_proj.bias"]
        m = F.layer_norm(x, (C,), W[h + "ln_2.weight"], W[h + "ln_2.bias"], eps)
        m = F.gelu(m @ W[h + "mlp.c_fc.weight"] + W[h + "mlp.c_fc.bias"], approximate="tanh")  # gelu_new
        x = x + m @ W[h + "mlp.c_proj.weight"] + W[h + "mlp.c_proj.bias"]
    x = F.layer_norm(x, (C,), W[prefix + "ln_f.weight"], W[prefix + "ln_f.bias"], eps)
    tied = cfg.get("tie_word_embeddings", True)
    head = W[prefix + "wte.weight"] if tied else W["lm_head.weight"]
    return F.cross_entropy(x @ head.T, targets)


def hf_grads(cfg, tensors, tokens, targets):
    prefix = hf_prefix(tensors)
    leaves = {n: t.clone().requires_grad_(True) for n, t in tensors.items() if not is_buffer(n)}
    loss = gpt2_loss(cfg, leaves, prefix, tokens, targets)
    loss.backward()
    out = {}
    for name, t in leaves.items():
        if name == "lm_head.weight" and cfg.get("tie_word_embeddings", True):
            out[name] = leaves[prefix + "wte.weight"].grad.clone()  # the tied copy: the folded gradient
        else:
            out[name] = t.grad.detach().clone()
    return loss.detach(), out


def hf_to_book(cfg, tensors):
    """The same weights as a tied book state_dict (the loader's conversion, written independently)."""
    p, C = hf_prefix(tensors), cfg["n_embd"]
    book_cfg = {"vocab_size": cfg["vocab_size"], "context_length": cfg["n_positions"], "emb_dim": C,
                "n_heads": cfg["n_head"], "n_layers": cfg["n_layer"], "drop_rate": 0.0, "qkv_bias": True,
                "tie_weights": True}
    sd = {"tok_emb.weight": tensors[p + "wte.weight"], "pos_emb.weight": tensors[p + "wpe.weight"],
          "final_norm.scale": tensors[p + "ln_f.weight"], "final_norm.shift": tensors[p + "ln_f.bias"]}
    n = cfg["n_positions"]
    for i in range(cfg["n_layer"]):
        h, b = f"{p}h.{i}.", f"trf_blocks.{i}."
        w, bias = tensors[h + "attn.c_attn.weight"], tensors[h + "attn.c_attn.bias"]
        for j, part in enumerate(["W_query", "W_key", "W_value"]):
            sd[b + f"att.{part}.weight"] = w[:, j * C:(j + 1) * C].T
            sd[b + f"att.{part}.bias"] = bias[j * C:(j + 1) * C]
        sd.update({b + "att.out_proj.weight": tensors[h + "attn.c_proj.weight"].T,
                   b + "att.out_proj.bias": tensors[h + "attn.c_proj.bias"],
                   b + "ff.layers.0.weight": tensors[h + "mlp.c_fc.weight"].T,
                   b + "ff.layers.0.bias": tensors[h + "mlp.c_fc.bias"],
                   b + "ff.layers.2.weight": tensors[h + "mlp.c_proj.weight"].T,
                   b + "ff.layers.2.bias": tensors[h + "mlp.c_proj.bias"],
                   b + "norm1.scale": tensors[h + "ln_1.weight"], b + "norm1.shift": tensors[h + "ln_1.bias"],
                   b + "norm2.scale": tensors[h + "ln_2.weight"], b + "norm2.shift": tensors[h + "ln_2.bias"],
                   b + "att.mask": torch.triu(torch.ones(n, n), diagonal=1)})
    return book_cfg, {k: v.contiguous() for k, v in sd.items()}


def cross_check_hf(cfg, tensors, tokens, targets, loss, grads):
    """The book model on the converted weights must give the same loss and (mapped) gradients."""
    book_cfg, sd = hf_to_book(cfg, tensors)
    book_loss, g = book_grads(book_cfg, sd, tokens, targets)
    assert abs(book_loss.item() - loss.item()) < 1e-6, (book_loss.item(), loss.item())
    p, C = hf_prefix(tensors), cfg["n_embd"]
    close = lambda a, b, what: torch.testing.assert_close(a, b, atol=1e-6, rtol=1e-5, msg=what)  # noqa: E731
    close(grads[p + "wte.weight"], g["tok_emb.weight"], "wte")
    for i in range(cfg["n_layer"]):
        h, b = f"{p}h.{i}.", f"trf_blocks.{i}."
        fused = torch.cat([g[b + f"att.{x}.weight"].T for x in ("W_query", "W_key", "W_value")], 1)
        close(grads[h + "attn.c_attn.weight"], fused, h + "c_attn.weight")
        close(grads[h + "mlp.c_fc.weight"], g[b + "ff.layers.0.weight"].T, h + "c_fc.weight")
        close(grads[h + "attn.c_proj.weight"], g[b + "att.out_proj.weight"].T, h + "c_proj.weight")


# ---------------------------------------------------------------------------

def zero_ranges(name, layout, C):
    """Flat [begin, end) ranges whose gradient is mathematically zero: the attention key bias."""
    if layout == "book" and name.endswith("att.W_key.bias"):
        return [0, C]
    if layout == "hf" and name.endswith("attn.c_attn.bias"):
        return [C, 2 * C]  # Q | K | V
    return None


def make(name, seed):
    config, tensors = read_model(name)
    hf = "n_embd" in config
    vocab = config["vocab_size"]
    tokens, targets = fixed_inputs(vocab, seed)
    if hf:
        loss, grads = hf_grads(config, tensors, tokens, targets)
        cross_check_hf(config, tensors, tokens, targets, loss, grads)
    else:
        loss, grads = book_grads(config, tensors, tokens, targets)
    C = config["n_embd"] if hf else config["emb_dim"]
    zero = {}
    for n in grads:
        r = zero_ranges(n, "hf" if hf else "book", C)
        if r:
            zero[n] = r
            worst = grads[n].reshape(-1)[r[0]:r[1]].abs().max().item()
            assert worst < 1e-6, (n, worst)
    assert set(grads) == {n for n in tensors if not is_buffer(n)}
    golden = {"generator": GENERATOR, "torch_version": torch.__version__, "model": name,
              "tokens": tokens.tolist(), "targets": targets.tolist(), "loss": float(loss.float().item()),
              "grads": {n: T(g) for n, g in sorted(grads.items())}, "zero": zero}
    os.makedirs(OUT_DIR, exist_ok=True)
    path = os.path.join(OUT_DIR, f"grad_{name}.json")
    with open(path, "w") as f:
        json.dump(golden, f, separators=(",", ":"))
        f.write("\n")
    print(f"{path}: {os.path.getsize(path):,} bytes, {len(grads)} tensors, loss {golden['loss']:.6f}")


def main():
    make("book_tiny", 1001)
    make("hf_tiny", 1002)


if __name__ == "__main__":
    main()
