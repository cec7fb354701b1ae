"""PyTorch side of the training-speed benchmark (bench/train.mjs runs it): the book's GPTModel (the classes in
tests/reference/make_goldens.py) in bench_train.cpp's config, trained on the CPU with one thread. Prints one
JSON line: ms per full step (forward + cross-entropy + backward + clip_grad_norm_ + AdamW), the phases of a
step, the BLAS library the process loaded, and an estimate of the training memory. A benchmark, not a test.

Run with Debian's torch: /usr/bin/python3 bench/train_torch.py [--steps N] [--warmup N] [--data FILE] [--ops]
For realistic speed put OpenBLAS first on LD_LIBRARY_PATH and set OPENBLAS_NUM_THREADS=1 (train.mjs does);
Debian's default reference BLAS makes torch's matrix products ~20x slower.
"""

import argparse
import ctypes
import json
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "reference"))
from make_goldens import GPTModel  # noqa: E402  (the book's classes; importing runs nothing)

B, T = 16, 128
CONFIG = {  # bench_train.cpp's bench_config()
    "vocab_size": 256, "context_length": 128, "emb_dim": 128, "n_heads": 4, "n_layers": 4,
    "drop_rate": 0.0, "qkv_bias": False, "tie_weights": False, "norm": "pre",
}


def loaded_blas():
    """The BLAS libraries mapped into this process (after a matrix product) and OpenBLAS's own description."""
    torch.randn(64, 64) @ torch.randn(64, 64)
    with open("/proc/self/maps") as f:
        libs = sorted({line.split()[-1] for line in f if "blas" in line.lower() and "/" in line})
    info = {"libraries": libs, "kind": "unknown"}
    if any("openblas" in p.lower() for p in libs):
        info["kind"] = "OpenBLAS"
        for path in libs:
            try:
                lib = ctypes.CDLL(path)
                lib.openblas_get_config.restype = ctypes.c_char_p
                info["config"] = lib.openblas_get_config().decode()
                info["threads"] = lib.openblas_get_num_threads()
                break
            except (OSError, AttributeError):
                continue
    elif any("libblas" in p for p in libs):
        info["kind"] = "reference BLAS (netlib, slow)"
    return info


def byte_tokens(path):
    if path:
        with open(path, "rb") as f:
            data = f.read()
        if len(data) >= 4 * (T + 1):
            return torch.tensor(list(data), dtype=torch.long)
    g = torch.Generator().manual_seed(7)
    return torch.randint(0, 256, (1 << 16,), generator=g)


def make_optimizer(model):
    # TrainConfig's defaults: AdamW(lr 3e-4, betas (0.9, 0.95), eps 1e-8, weight decay 0.1 on Linear weights only).
    decay = [p for n, p in model.named_parameters() if p.dim() == 2 and "emb" not in n]
    rest = [p for n, p in model.named_parameters() if not (p.dim() == 2 and "emb" not in n)]
    return torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": rest, "weight_decay": 0.0}],
                             lr=3e-4, betas=(0.9, 0.95), eps=1e-8)


def activation_bytes(model, ids, targets):
    """Bytes of the distinct tensors autograd saves for backward in one training forward (the activations)."""
    seen = {}

    def pack(t):
        if t.device.type == "cpu" and t.numel() > 0:
            st = t.storage()
            seen[st.data_ptr()] = st.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        logits = model(ids)
        loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())
    loss.backward()
    model.zero_grad(set_to_none=False)
    params = {p.storage().data_ptr() for p in model.parameters()}
    return sum(n for ptr, n in seen.items() if ptr not in params)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--data", default="")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--ops", action="store_true", help="also profile one step op by op (torch.autograd.profiler)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    blas = loaded_blas()

    torch.manual_seed(123)
    model = GPTModel(CONFIG)
    model.train()
    opt = make_optimizer(model)
    tokens = byte_tokens(args.data)
    train = tokens[: len(tokens) - len(tokens) // 10]
    g = torch.Generator().manual_seed(1)

    def batch():
        starts = torch.randint(0, len(train) - T, (B,), generator=g)
        idx = starts[:, None] + torch.arange(T + 1)[None, :]
        w = train[idx]
        return w[:, :-1].contiguous(), w[:, 1:].contiguous()

    step_ms, phases, losses = [], {k: [] for k in ("zero_grad", "forward_loss", "backward", "clip", "adamw")}, []
    for s in range(args.warmup + args.steps):
        ids, targets = batch()
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=False)
        t1 = time.perf_counter()
        logits = model(ids)
        loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())
        t2 = time.perf_counter()
        loss.backward()
        t3 = time.perf_counter()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        t4 = time.perf_counter()
        opt.step()
        t5 = time.perf_counter()
        losses.append(loss.item())
        if s < args.warmup:
            continue
        step_ms.append((t5 - t0) * 1e3)
        for k, a, b in (("zero_grad", t0, t1), ("forward_loss", t1, t2), ("backward", t2, t3), ("clip", t3, t4),
                        ("adamw", t4, t5)):
            phases[k].append((b - a) * 1e3)

    n_params = sum(p.numel() for p in model.parameters())
    ids, targets = batch()
    act = activation_bytes(model, ids, targets)
    moments = sum(t.numel() * t.element_size() for st in opt.state.values() for t in st.values() if t.dim() > 0)
    med = statistics.median(step_ms)
    out = {
        "runtime": "pytorch", "torch": torch.__version__, "threads": torch.get_num_threads(), "blas": blas,
        "batch_size": B, "seq_len": T, "parameters": n_params, "param_bytes": 4 * n_params,
        # Same parts as Blockscope's Trainer::memory_bytes(): saved activations + gradients + AdamW moments.
        "memory_bytes": act + 4 * n_params + moments, "activation_bytes": act,
        "step_ms": step_ms, "median_ms": med, "tokens_per_s": B * T / (med / 1e3),
        "first_loss": losses[0], "last_loss": losses[-1],
        "phases_ms": {k: statistics.median(v) for k, v in phases.items()},
    }
    if args.ops:
        with torch.autograd.profiler.profile() as prof:
            opt.zero_grad(set_to_none=False)
            loss = F.cross_entropy(model(ids).flatten(0, 1), targets.flatten())
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
        rows = sorted(prof.key_averages(), key=lambda e: -e.self_cpu_time_total)[:25]
        out["ops_ms"] = [{"op": e.key, "calls": e.count, "ms": e.self_cpu_time_total / 1e3} for e in rows]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
