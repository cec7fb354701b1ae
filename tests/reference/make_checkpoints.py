"""PyTorch reference that writes tiny model checkpoints (config.json + model.safetensors) in the book's
GPTModel.state_dict() layout and in Hugging Face GPT-2's layout (F32, F16, BF16), plus their golden logits,
for the C++ checkpoint tests. Run from the repo root with `/usr/bin/python3 tests/reference/make_checkpoints.py`;
writes tests/golden/models/. The safetensors files are written by hand here (the `safetensors` package is not
installed), which also cross-checks Blockscope's reader against an independent writer.
"""

import copy
import json
import math
import os
import struct
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_goldens import GPTModel, T, randomize_layer_norms  # noqa: E402  (the book's classes)

GENERATOR = "tests/reference/make_checkpoints.py"
OUT_DIR = os.path.join("tests", "golden", "models")
MAX_FILE_BYTES = 100_000

torch.set_num_threads(1)  # bitwise-reproducible CPU reductions
assert sys.byteorder == "little", "safetensors is little-endian; numpy's tobytes() writes native order"

BOOK_CFG = {"vocab_size": 60, "context_length": 16, "emb_dim": 16, "n_heads": 4, "n_layers": 2,
            "drop_rate": 0.1, "qkv_bias": True}


# ---------------------------------------------------------------------------
# safetensors, by hand (github.com/huggingface/safetensors, "Format")
# ---------------------------------------------------------------------------

DTYPE_NAMES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.bool: "BOOL"}


def tensor_bytes(t):
    t = t.detach().contiguous().cpu()
    if t.dtype == torch.bfloat16:  # numpy has no bfloat16: reinterpret the bits
        return t.view(torch.int16).numpy().tobytes()
    if t.dtype == torch.bool:
        return t.to(torch.uint8).numpy().tobytes()
    return t.numpy().tobytes()


def write_safetensors(path, tensors, metadata):
    """tensors: list of (name, tensor) written in that order (not sorted, unlike Blockscope's writer)."""
    header, blobs, offset = {"__metadata__": metadata}, [], 0
    for name, t in tensors:
        b = tensor_bytes(t)
        header[name] = {"dtype": DTYPE_NAMES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)  # the reference writer pads the header with spaces
    data = struct.pack("<Q", len(text)) + text + b"".join(blobs)
    with open(path, "wb") as f:
        f.write(data)
    assert read_safetensors(path) == {n: tensor_bytes(t) for n, t in tensors}, path
    return len(data)


def read_safetensors(path):
    """Name -> raw bytes; a sanity check of the writer above (contiguous, in range, sizes match)."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    header.pop("__metadata__", None)
    buf = data[8 + n:]
    sizes = {"F32": 4, "F16": 2, "BF16": 2, "BOOL": 1}
    out, end = {}, 0
    for name, e in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"]):
        b, e_ = e["data_offsets"]
        assert b == end and e_ - b == math.prod(e["shape"]) * sizes[e["dtype"]], name
        out[name], end = buf[b:e_], e_
    assert end == len(buf)
    return out


# ---------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------

def make_model(seed, tie):
    torch.manual_seed(seed)
    model = GPTModel({**BOOK_CFG, "tie_weights": tie})
    randomize_layer_norms(model)  # scale/shift away from 1/0 so a swapped LayerNorm param shows
    return model.eval()


def rounded(model, dtype):
    """A copy whose parameters hold the float32 values of `dtype`-rounded weights (what the file stores)."""
    m = copy.deepcopy(model)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(p.to(dtype).to(torch.float32))
    return m


def hf_tensors(model, prefix, dtype, buffers, lm_head):
    """The book model's weights under GPT2LMHeadModel names, as `dtype`: Conv1D weights are (in, out) =
    Linear.weight.T, and c_attn fuses W_query | W_key | W_value along `out`. `buffers` adds the causal-mask
    buffers older transformers saved ("float": tril + scalar masked_bias; "bool": tril), kept in their dtype."""
    n = BOOK_CFG["context_length"]
    params = [(prefix + "wte.weight", model.tok_emb.weight), (prefix + "wpe.weight", model.pos_emb.weight)]
    bufs = []
    for i, blk in enumerate(model.trf_blocks):
        h, att, ff = f"{prefix}h.{i}.", blk.att, blk.ff.layers
        params += [
            (h + "ln_1.weight", blk.norm1.scale), (h + "ln_1.bias", blk.norm1.shift),
            (h + "attn.c_attn.weight", torch.cat([att.W_query.weight.T, att.W_key.weight.T, att.W_value.weight.T], 1)),
            (h + "attn.c_attn.bias", torch.cat([att.W_query.bias, att.W_key.bias, att.W_value.bias])),
            (h + "attn.c_proj.weight", att.out_proj.weight.T), (h + "attn.c_proj.bias", att.out_proj.bias),
            (h + "ln_2.weight", blk.norm2.scale), (h + "ln_2.bias", blk.norm2.shift),
            (h + "mlp.c_fc.weight", ff[0].weight.T), (h + "mlp.c_fc.bias", ff[0].bias),
            (h + "mlp.c_proj.weight", ff[2].weight.T), (h + "mlp.c_proj.bias", ff[2].bias),
        ]
        if buffers == "float":
            bufs += [(h + "attn.bias", torch.tril(torch.ones(n, n)).view(1, 1, n, n)),
                     (h + "attn.masked_bias", torch.tensor(-1e4))]
        elif buffers == "bool":
            bufs += [(h + "attn.bias", torch.tril(torch.ones(n, n, dtype=torch.bool)).view(1, 1, n, n))]
    params += [(prefix + "ln_f.weight", model.final_norm.scale), (prefix + "ln_f.bias", model.final_norm.shift)]
    if lm_head:  # a tied model's head, stored anyway: must equal wte
        params.append(("lm_head.weight", model.out_head.weight))
    return [(k, v.detach().to(dtype).contiguous()) for k, v in params] + bufs


def gpt2_forward(sd, prefix, ids):
    """Hugging Face GPT-2's forward (modeling_gpt2.py) written against the HF tensors, independently of the
    book classes: Conv1D is x @ W + b; c_attn's output splits into q, k, v in that order."""
    C, H, L = BOOK_CFG["emb_dim"], BOOK_CFG["n_heads"], BOOK_CFG["n_layers"]
    W = {k: v.float() for k, v in sd.items()}
    B, Tn = ids.shape
    x = W[prefix + "wte.weight"][ids] + W[prefix + "wpe.weight"][torch.arange(Tn)]
    mask = torch.tril(torch.ones(Tn, Tn, dtype=torch.bool))
    for i in range(L):
        h = f"{prefix}h.{i}."
        a = F.layer_norm(x, (C,), W[h + "ln_1.weight"], W[h + "ln_1.bias"], 1e-5)
        q, k, v = (a @ W[h + "attn.c_attn.weight"] + W[h + "attn.c_attn.bias"]).split(C, dim=2)
        q, k, v = (t.view(B, Tn, H, C // H).transpose(1, 2) for t in (q, k, v))
        s = (q @ k.transpose(-1, -2)) / math.sqrt(C // H)
        p = torch.softmax(s.masked_fill(~mask, float("-inf")), dim=-1)
        a = (p @ v).transpose(1, 2).reshape(B, Tn, C)
        x = x + a @ W[h + "attn.c_proj.weight"] + W[h + "attn.c_proj.bias"]
        m = F.layer_norm(x, (C,), W[h + "ln_2.weight"], W[h + "ln_2.bias"], 1e-5)
        m = F.gelu(m @ W[h + "mlp.c_fc.weight"] + W[h + "mlp.c_fc.bias"], approximate="tanh")  # gelu_new
        x = x + m @ W[h + "mlp.c_proj.weight"] + W[h + "mlp.c_proj.bias"]
    x = F.layer_norm(x, (C,), W[prefix + "ln_f.weight"], W[prefix + "ln_f.bias"], 1e-5)
    return x @ W[prefix + "wte.weight"].T  # tied lm_head


def hf_config(dtype_name):
    # What transformers' GPT2Config.to_json_string() writes, with the tiny sizes; extra keys must be ignored.
    return {"_name_or_path": "blockscope-tiny", "activation_function": "gelu_new",
            "architectures": ["GPT2LMHeadModel"], "attn_pdrop": 0.1, "bos_token_id": 59, "embd_pdrop": 0.1,
            "eos_token_id": 59, "initializer_range": 0.02, "layer_norm_epsilon": 1e-05, "model_type": "gpt2",
            "n_ctx": 16, "n_embd": 16, "n_head": 4, "n_inner": None, "n_layer": 2, "n_positions": 16,
            "reorder_and_upcast_attn": False, "resid_pdrop": 0.1, "scale_attn_by_inverse_layer_idx": False,
            "scale_attn_weights": True, "summary_activation": None, "summary_first_dropout": 0.1,
            "summary_proj_to_labels": True, "summary_type": "cls_index", "summary_use_proj": True,
            "task_specific_params": {"text-generation": {"do_sample": True, "max_length": 16}},
            "torch_dtype": dtype_name, "transformers_version": "4.26.0", "use_cache": True, "vocab_size": 60}


# ---------------------------------------------------------------------------

def write_dir(name, config, tensors):
    d = os.path.join(OUT_DIR, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    size = write_safetensors(os.path.join(d, "model.safetensors"), tensors, {"format": "pt"})
    assert size < MAX_FILE_BYTES, (name, size)
    print(f"{d}/model.safetensors: {size:,} bytes, {len(tensors)} tensors")


def logits_of(model, ids):
    with torch.no_grad():
        return model(ids)


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    torch.manual_seed(900)
    ids = torch.randint(0, BOOK_CFG["vocab_size"], (2, 8))
    goldens = {}

    # 1. book_tiny: GPTModel.state_dict() as is (untied; includes the att.mask buffers).
    book = make_model(901, tie=False)
    sd = book.state_dict()
    assert "trf_blocks.0.att.mask" in sd and "out_head.weight" in sd
    write_dir("book_tiny", {**BOOK_CFG, "tie_weights": False, "norm": "pre", "layer_norm_epsilon": 1e-5},
              list(sd.items()))
    goldens["book_tiny"] = {"weights": "F32", "logits": T(logits_of(book, ids))}

    # 2. hf_tiny*: a tied model under GPT-2 names. Each variant's logits come from its own stored weights.
    tied = make_model(902, tie=True)
    variants = [  # name, dtype, prefix, buffers, lm_head copy
        ("hf_tiny", torch.float32, "transformer.", "float", False),
        ("hf_tiny_f16", torch.float16, "", None, True),
        ("hf_tiny_bf16", torch.bfloat16, "transformer.", "bool", False),
    ]
    for name, dtype, prefix, buffers, lm_head in variants:
        model = tied if dtype == torch.float32 else rounded(tied, dtype)
        tensors = hf_tensors(tied, prefix, dtype, buffers, lm_head)
        expected = logits_of(model, ids)
        independent = gpt2_forward(dict(tensors), prefix, ids)
        assert torch.allclose(independent, expected, atol=1e-5, rtol=0), f"{name}: HF forward != book forward"
        write_dir(name, hf_config({torch.float32: "float32", torch.float16: "float16",
                                   torch.bfloat16: "bfloat16"}[dtype]), tensors)
        goldens[name] = {"weights": DTYPE_NAMES[dtype], "logits": T(expected)}

    path = os.path.join(OUT_DIR, "logits.json")
    with open(path, "w") as f:
        json.dump({"generator": GENERATOR, "torch_version": torch.__version__, "ids": T(ids),
                   "note": "F16/BF16 logits are computed from the rounded weights each file stores",
                   "models": goldens}, f, separators=(",", ":"))
        f.write("\n")
    assert os.path.getsize(path) < MAX_FILE_BYTES
    print(f"{path}: {os.path.getsize(path):,} bytes")


if __name__ == "__main__":
    main()
