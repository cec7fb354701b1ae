"""PyTorch reference for the core's interpretability functions (core/include/blockscope/interpret.hpp): the logit
lens, head ablation (zeroed heads, heads replaced by their causal mean over positions) and attribution (gradient x
input and integrated gradients, of a logit and of a log-probability), on the golden tiny GPT (book layout, untied)
and on the shipped trained model (web/models/brown). Writes tests/golden/interpret.json, which the native tests
(tests/unit/test_interpret.cpp), the CLI tests and the wasm tests compare with the core.

Definitions (the core's, stated in interpret.hpp):
  lens[l][t] = out_head(final_norm(h_l[t])), h_0 the embeddings' output, h_l block l's output;
  ablation acts on each head's slice of the attention's context vector, the input of out_proj: "zero" sets it to 0,
  "mean" replaces position t by the mean of positions 0..t (causal models);
  attribution of position t = sum_c x[t, c] * g[t, c], x the first block's input (tok_emb + pos_emb), g the gradient
  of the objective at the last position (the target's logit or log-softmax) with respect to x, or for integrated
  gradients the mean of that gradient at alpha_k * x, alpha_k = k / steps, k = 1..steps (zero baseline).

Run: /usr/bin/python3 tests/reference/make_interpret_goldens.py
"""

import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from book_modules import GPTModel  # noqa: E402
from brown_model import ROOT, load_brown, model_from  # noqa: E402
from safetensors_read import read_safetensors  # noqa: E402

OUT = os.path.join(ROOT, "tests", "golden", "interpret.json")
IG_STEPS = 16


def load_tiny():
    d = os.path.join(ROOT, "tests", "golden", "models", "book_tiny")
    with open(os.path.join(d, "config.json")) as f:
        cfg = json.load(f)
    tensors = read_safetensors(os.path.join(d, "model.safetensors"))
    model = GPTModel(cfg).eval()
    missing, unexpected = model.load_state_dict(tensors, strict=False)
    assert not unexpected and all(k.endswith("att.mask") for k in missing)
    return cfg, model


def streams(model, x):
    """Every layer's residual stream from the first block's input x (1, T, C)."""
    out = [x]
    for block in model.trf_blocks:
        x = block(x)
        out.append(x)
    return out


def head(model, h):
    return model.out_head(model.final_norm(h))


def embed(model, ids):
    t = torch.tensor([ids])
    return model.tok_emb(t) + model.pos_emb(torch.arange(len(ids)))


def with_ablation(model, heads, mode):
    """Hooks that ablate `heads` [(block, head)]; returns the handles to remove."""
    handles = []
    for b, blk in enumerate(model.trf_blocks):
        mine = [h for (bb, h) in heads if bb == b]
        if not mine:
            continue
        att = blk.att

        def hook(module, args, mine=mine, att=att):
            (ctx,) = args
            B, T, D = ctx.shape
            ctx = ctx.view(B, T, att.num_heads, att.head_dim).clone()
            for h in mine:
                if mode == "zero":
                    ctx[:, :, h, :] = 0
                else:  # the causal mean of positions 0..t
                    counts = torch.arange(1, T + 1, dtype=ctx.dtype).view(1, T, 1)
                    ctx[:, :, h, :] = torch.cumsum(ctx[:, :, h, :].double(), dim=1).float() / counts
            return (ctx.view(B, T, D),)

        handles.append(att.out_proj.register_forward_pre_hook(hook))
    return handles


def objective(model, x, target, kind):
    logits = head(model, streams(model, x)[-1])[0, -1]
    return logits[target] if kind == "logit" else torch.log_softmax(logits.double(), dim=-1)[target]


def attribution(model, ids, target, kind, method):
    x = embed(model, ids).detach()
    points = IG_STEPS if method == "integrated-gradients" else 1
    mean = torch.zeros_like(x)
    for k in range(1, points + 1):
        alpha = k / points if points > 1 else 1.0
        xs = (x * alpha).detach().requires_grad_(True)
        objective(model, xs, target, kind).backward()
        mean += xs.grad / points
    return (x * mean).sum(dim=-1)[0].tolist()


def case(name, model, cfg, ids, ablations):
    torch.manual_seed(0)
    with torch.no_grad():
        x = embed(model, ids)
        lens = torch.stack([head(model, h)[0] for h in streams(model, x)])  # (L + 1, T, V)
    target = int(lens[-1, -1].argmax())
    out = {"name": name, "ids": ids, "target": target, "lens": lens.tolist(), "ablations": [], "attributions": []}
    for heads, mode in ablations:
        handles = with_ablation(model, heads, mode)
        with torch.no_grad():
            logits = model(torch.tensor([ids]))[0]
        grads = attribution(model, ids, target, "logit", "grad-x-input")
        for h in handles:
            h.remove()
        out["ablations"].append({"heads": [f"{b}.{h}" for b, h in heads], "mode": mode, "logits": logits.tolist(),
                                 "attribution": grads})
    for kind in ("logit", "logprob"):
        for method in ("grad-x-input", "integrated-gradients"):
            values = attribution(model, ids, target, kind, method)
            out["attributions"].append({"objective": kind, "method": method, "steps": IG_STEPS, "values": values})
    # Completeness of integrated gradients, as a sanity check of this script: the sum approaches f(x) - f(0).
    with torch.no_grad():
        x = embed(model, ids)
        gap = float(objective(model, x, target, "logit") - objective(model, x * 0, target, "logit"))
    ig = next(a for a in out["attributions"] if a["method"] == "integrated-gradients" and a["objective"] == "logit")
    print(f"{name}: target {target}; IG sum {sum(ig['values']):.4f} vs f(x) - f(0) = {gap:.4f} ({IG_STEPS} steps)")
    return out


def rounded(v):
    """Float32 values to 8 significant digits (float32 has about 7): half the file, nothing lost at 1e-4."""
    if isinstance(v, list):
        return [rounded(x) for x in v]
    if isinstance(v, dict):
        return {k: rounded(x) for k, x in v.items()}
    return float(f"{v:.8g}") if isinstance(v, float) else v


def main():
    cases = []
    cfg, tiny = load_tiny()
    cases.append(case("book_tiny", tiny, cfg, [3, 17, 42, 5, 59], [([(0, 1), (1, 2)], "zero"), ([(1, 0), (0, 3)], "mean")]))
    bcfg, tensors, sha = load_brown()
    brown = model_from(bcfg, tensors)
    ids = list("The jury".encode())
    c = case("brown", brown, bcfg, ids, [([(0, 0), (3, 1)], "zero"), ([(5, 2)], "mean")])
    c["sha256"] = sha
    cases.append(c)
    with open(OUT, "w") as f:
        json.dump({"script": "tests/reference/make_interpret_goldens.py", "cases": rounded(cases)}, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {os.path.relpath(OUT, ROOT)} ({os.path.getsize(OUT) // 1024} KB)")


if __name__ == "__main__":
    main()
