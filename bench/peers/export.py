"""Peer-benchmark weights (bench/peers/run.mjs runs this; a benchmark input, not a test golden): a
GPT-2-124M-shaped model in plain PyTorch with seeded random GPT-2-style weights, written to a cache directory
outside git as
  config.json + model.safetensors  Hugging Face GPT-2 layout (what Blockscope's loader reads; Conv1D (in, out))
  forward.onnx                     input_ids [1, T] -> logits [1, T, V], T dynamic
  decode.onnx                      input_ids [1, S] + past_key_i / past_value_i [1, H, P, hs] (i < n_layer)
                                   -> logits [1, S, V] + present_key_i / present_value_i [1, H, P+S, hs]
  reference.json + reference_logits.f32   PyTorch's logits (T, V) for the fixed prompt and its greedy tokens
  stamp.json                       the hash of this script, written last (run.mjs regenerates when it differs)

Run with Debian's torch: /usr/bin/python3 bench/peers/export.py OUT_DIR [--layers N] (--layers only for
smoke tests; the benchmark uses GPT-2 124M's 12). torch.onnx.export needs no `onnx` python package.
"""

import argparse
import hashlib
import json
import math
import os
import struct
import sys
import time

sys.dont_write_bytecode = True

import torch
import torch.nn as nn
import torch.nn.functional as F

# GPT-2 124M (Hugging Face GPT2Config defaults). The runner reads every shape from config.json.
GPT2_124M = {"vocab_size": 50257, "n_positions": 1024, "n_embd": 768, "n_head": 12, "n_layer": 12}
# The fixed prompt of every correctness check and KV-decode measurement (bench_forward.cpp's prompt).
PROMPT = [464, 3290, 318, 257, 1332, 286, 262, 3726, 11, 290, 340, 318, 1049, 13, 383, 2068]
GREEDY_TOKENS = 32
SEED = 1234


class Conv1D(nn.Module):
    """GPT-2's Conv1D: y = x @ W + b with W stored (in, out), so state_dict() is Hugging Face's layout."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(n_in, n_out))
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        return x @ self.weight + self.bias


class Attention(nn.Module):
    def __init__(self, C, H):
        super().__init__()
        self.H, self.hs = H, C // H
        self.c_attn = Conv1D(C, 3 * C)  # Q | K | V fused along `out`
        self.c_proj = Conv1D(C, C)

    def forward(self, x, past_k, past_v, mask):
        # x (1, S, C); past_k/v (1, H, P, hs); mask (S, P+S) True where a key is in the future.
        B, S, C = x.shape
        q, k, v = self.c_attn(x).split(C, dim=2)
        heads = lambda t: t.view(B, S, self.H, self.hs).transpose(1, 2)  # noqa: E731
        q, k, v = heads(q), heads(k), heads(v)
        k = torch.cat([past_k, k], dim=2)
        v = torch.cat([past_v, v], dim=2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(self.hs))
        att = att.masked_fill(mask, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(B, S, C)
        return self.c_proj(y), k, v


class MLP(nn.Module):
    def __init__(self, C):
        super().__init__()
        self.c_fc = Conv1D(C, 4 * C)
        self.c_proj = Conv1D(4 * C, C)

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))  # GPT-2's gelu_new


class Block(nn.Module):
    def __init__(self, C, H):
        super().__init__()
        self.ln_1 = nn.LayerNorm(C, eps=1e-5)
        self.attn = Attention(C, H)
        self.ln_2 = nn.LayerNorm(C, eps=1e-5)
        self.mlp = MLP(C)

    def forward(self, x, past_k, past_v, mask):
        a, k, v = self.attn(self.ln_1(x), past_k, past_v, mask)
        x = x + a
        return x + self.mlp(self.ln_2(x)), k, v


class Transformer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        C = cfg["n_embd"]
        self.wte = nn.Embedding(cfg["vocab_size"], C)
        self.wpe = nn.Embedding(cfg["n_positions"], C)
        self.h = nn.ModuleList(Block(C, cfg["n_head"]) for _ in range(cfg["n_layer"]))
        self.ln_f = nn.LayerNorm(C, eps=1e-5)


class GPT2(nn.Module):
    """GPT2LMHeadModel's computation with tied embeddings (the head is wte.weight) and an explicit KV cache."""

    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.transformer = Transformer(cfg)

    def empty_cache(self):
        H, hs = self.cfg["n_head"], self.cfg["n_embd"] // self.cfg["n_head"]
        return [torch.zeros(1, H, 0, hs) for _ in range(2 * self.cfg["n_layer"])]

    def forward(self, ids, *past):
        # ids (1, S) at positions P .. P+S-1, P = cached tokens; past = (k_0, v_0, k_1, v_1, ...).
        if not past:
            past = self.empty_cache()
        tr = self.transformer
        P, S = past[0].shape[2], ids.shape[1]
        pos = torch.arange(P, P + S)
        # Key j is hidden from query i (at position P + i) when j > P + i: causal over cache + new tokens.
        mask = torch.arange(P + S)[None, :] > pos[:, None]
        x = tr.wte(ids) + tr.wpe(pos)[None]
        present = []
        for i, block in enumerate(tr.h):
            x, k, v = block(x, past[2 * i], past[2 * i + 1], mask)
            present += [k, v]
        # F.linear with a (zero) bias on 2-D rows exports as one Gemm with transB: the graph reads the tied wte
        # as it is. Without the bias the exporter writes a second, transposed copy of wte (+154 MB).
        C, V = x.shape[2], tr.wte.weight.shape[0]
        logits = F.linear(tr.ln_f(x).reshape(-1, C), tr.wte.weight, torch.zeros(V)).reshape(1, S, -1)
        return (logits, *present)


def init_gpt2(model, seed):
    """GPT-2's init (nanoGPT's _init_weights): weights N(0, 0.02), residual projections N(0, 0.02/sqrt(2L)).
    Biases and LayerNorm parameters get a little noise too (not GPT-2's zeros and ones), so that a loader
    which dropped or swapped them would fail the logit check instead of passing by accident."""
    g = torch.Generator().manual_seed(seed)
    L = model.cfg["n_layer"]
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("c_proj.weight"):
                p.copy_(torch.randn(p.shape, generator=g) * (0.02 / math.sqrt(2 * L)))
            elif name.endswith(("wte.weight", "wpe.weight")) or p.dim() == 2:
                p.copy_(torch.randn(p.shape, generator=g) * 0.02)
            elif ".ln_" in name or name.startswith("transformer.ln_f"):
                base = 1.0 if name.endswith("weight") else 0.0
                p.copy_(base + torch.randn(p.shape, generator=g) * 0.02)
            else:  # Conv1D biases
                p.copy_(torch.randn(p.shape, generator=g) * 0.02)


def write_safetensors(path, tensors):
    """safetensors by hand (the python package is optional): u64 header size, JSON header, raw F32 data."""
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, t in tensors.items():
        n = t.numel() * 4
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + n]}
        offset += n
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # data starts 8-byte aligned
    with open(path + ".tmp", "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for t in tensors.values():
            f.write(t.detach().contiguous().to(torch.float32).numpy().tobytes())
    os.replace(path + ".tmp", path)


def read_safetensors(path):
    """{name: float32 tensor} of an F32 safetensors file (what the PyTorch worker loads)."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        buf = bytearray(os.fstat(f.fileno()).st_size - 8 - n)
        f.readinto(buf)
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        assert e["dtype"] == "F32", f"{name}: {e['dtype']}"
        a, b = e["data_offsets"]
        out[name] = torch.frombuffer(buf, dtype=torch.float32, offset=a, count=(b - a) // 4).view(e["shape"])
    return out


def load_model(model_dir):
    with open(os.path.join(model_dir, "config.json")) as f:
        c = json.load(f)
    model = GPT2({k: c[k] for k in GPT2_124M})
    model.load_state_dict(read_safetensors(os.path.join(model_dir, "model.safetensors")))
    return model.eval()


def greedy(model, prompt, n):
    """n greedy tokens after `prompt` through the KV cache: one prefill, then n - 1 single-token steps."""
    out = model(torch.tensor([prompt]))
    logits, past = out[0], out[1:]
    tokens = []
    for _ in range(n):
        tokens.append(int(logits[0, -1].argmax()))
        if len(tokens) == n:
            break
        out = model(torch.tensor([[tokens[-1]]]), *past)
        logits, past = out[0], out[1:]
    return tokens


def export_onnx(model, out_dir):
    cfg = model.cfg
    L = cfg["n_layer"]
    ids = torch.tensor([PROMPT[:4]])
    torch.onnx.export(model, (ids,), os.path.join(out_dir, "forward.onnx"), opset_version=17,
                      input_names=["input_ids"], output_names=["logits"],
                      dynamic_axes={"input_ids": {1: "T"}, "logits": {1: "T"}})
    past = [torch.zeros(1, cfg["n_head"], 3, cfg["n_embd"] // cfg["n_head"]) for _ in range(2 * L)]
    names = [f"{kind}_{i}" for i in range(L) for kind in ("key", "value")]
    dyn = {"input_ids": {1: "S"}, "logits": {1: "S"}}
    dyn.update({f"past_{n}": {2: "P"} for n in names})
    dyn.update({f"present_{n}": {2: "P_plus_S"} for n in names})
    torch.onnx.export(model, (ids[:, :1], *past), os.path.join(out_dir, "decode.onnx"), opset_version=17,
                      input_names=["input_ids"] + [f"past_{n}" for n in names],
                      output_names=["logits"] + [f"present_{n}" for n in names], dynamic_axes=dyn)


def script_hash():
    with open(os.path.abspath(__file__), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("--layers", type=int, default=GPT2_124M["n_layer"])
    args = ap.parse_args()
    torch.set_num_threads(1)
    os.makedirs(args.out_dir, exist_ok=True)
    stamp = os.path.join(args.out_dir, "stamp.json")
    if os.path.exists(stamp):
        os.remove(stamp)  # an interrupted export must not look complete

    cfg = dict(GPT2_124M, n_layer=args.layers)
    t0 = time.perf_counter()
    model = GPT2(cfg)
    init_gpt2(model, SEED)
    model.eval()
    hf = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_ctx": cfg["n_positions"],
          "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new", "tie_word_embeddings": True, **cfg}
    with open(os.path.join(args.out_dir, "config.json"), "w") as f:
        json.dump(hf, f, indent=2)
    write_safetensors(os.path.join(args.out_dir, "model.safetensors"), model.state_dict())
    print(f"model.safetensors: {sum(p.numel() for p in model.parameters()):,} parameters", file=sys.stderr)

    with torch.no_grad():
        logits = model(torch.tensor([PROMPT]))[0][0]
        tokens = greedy(model, PROMPT, GREEDY_TOKENS)
        # The KV-cache path must agree with full forwards: each greedy token is the argmax of a full pass.
        full = model(torch.tensor([PROMPT + tokens]))[0][0]
        expect = full[len(PROMPT) - 1:-1].argmax(dim=-1).tolist()
        assert expect == tokens, f"KV-cache greedy {tokens} != full-forward argmax {expect}"
        with open(os.path.join(args.out_dir, "reference_logits.f32"), "wb") as f:
            f.write(logits.contiguous().numpy().tobytes())
        ref = {"prompt": PROMPT, "greedy": tokens, "logits_shape": list(logits.shape),
               "logits_abs_max": float(logits.abs().max()), "torch": torch.__version__}
        with open(os.path.join(args.out_dir, "reference.json"), "w") as f:
            json.dump(ref, f)
        export_onnx(model, args.out_dir)
    with open(stamp, "w") as f:
        json.dump({"script_sha256": script_hash(), "n_layer": cfg["n_layer"]}, f)
    print(f"exported to {args.out_dir} in {time.perf_counter() - t0:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
