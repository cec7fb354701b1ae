"""PyTorch reference for Blockscope's optimizer and training: AdamW, gradient clipping and the learning-rate
schedule (optim.json), two short training runs (train_curve.json) and the lesson's residual-gradient-flow
example (residual_flow.json). Shares make_grad_goldens.py's helpers and conventions.
Run from the repo root with `/usr/bin/python3 tests/reference/make_train_goldens.py`.
"""

import math
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import make_goldens as mg  # noqa: E402
import make_grad_goldens as gg  # noqa: E402
from make_goldens import T, named_params, GPTModel  # noqa: E402
from make_grad_goldens import case, grads_of  # noqa: E402

mg.GENERATOR = "tests/reference/make_train_goldens.py"
write_file = mg.write_file

torch.set_num_threads(1)

# ---------------------------------------------------------------------------
# 4. optim.json
# ---------------------------------------------------------------------------

def adamw_case(name, seed, lr, beta1, beta2, eps, wd, no_decay, steps=5):
    torch.manual_seed(seed)
    init = {"w": torch.randn(4, 5), "b": torch.randn(5), "ln.scale": 1 + 0.1 * torch.randn(5)}
    grads = [{n: torch.randn(t.shape) for n, t in init.items()} for _ in range(steps)]
    params = {n: nn.Parameter(t.clone()) for n, t in init.items()}
    decay = [params[n] for n in params if n not in no_decay]
    nodecay = [params[n] for n in params if n in no_decay]
    groups = [{"params": decay, "weight_decay": wd}]
    if nodecay:
        groups.append({"params": nodecay, "weight_decay": 0.0})
    opt = torch.optim.AdamW(groups, lr=lr, betas=(beta1, beta2), eps=eps, foreach=False)
    inputs, outputs = {}, {}
    for i in range(1, steps + 1):
        for n, p in params.items():
            p.grad = grads[i - 1][n].clone()
            inputs[f"grad.step{i}.{n}"] = T(grads[i - 1][n])
        opt.step()
        for n, p in params.items():
            outputs[f"step{i}.{n}"] = T(p)
    cfg = {"lr": lr, "beta1": beta1, "beta2": beta2, "eps": eps, "weight_decay": wd,
           "no_decay": list(no_decay), "steps": steps}
    return case(name, cfg, {n: T(t) for n, t in init.items()}, inputs, outputs)


def clip_case(name, max_norm):
    torch.manual_seed(451)  # same grads for both clip cases
    g = {"a": torch.randn(3, 4), "b": torch.randn(7)}
    ps = {n: nn.Parameter(torch.zeros(t.shape)) for n, t in g.items()}
    for n in ps:
        ps[n].grad = g[n].clone()
    total = torch.nn.utils.clip_grad_norm_(list(ps.values()), max_norm=max_norm)
    assert total.shape == ()
    if max_norm >= total:
        for n in ps:
            assert torch.equal(ps[n].grad, g[n])
    return case(name, {"max_norm": max_norm}, {}, {"grad.a": T(g["a"]), "grad.b": T(g["b"])},
                {"total_norm": T(total), "clipped.a": T(ps["a"].grad), "clipped.b": T(ps["b"].grad)})


def lr_lambda(lr, min_lr, warmup, steps):
    def f(s):
        if s < warmup:
            v = lr * (s + 1) / warmup
        else:
            prog = (s - warmup) / max(1, steps - warmup)
            v = min_lr + 0.5 * (lr - min_lr) * (1 + math.cos(math.pi * prog))
        return v / lr  # LambdaLR multiplies the base lr by this factor
    return f


def make_scheduler(opt, lr, min_lr, warmup, steps):
    return torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda(lr, min_lr, warmup, steps))


def lr_schedule_case(name, lr, min_lr, warmup, steps):
    p = nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([p], lr=lr)
    sched = make_scheduler(opt, lr, min_lr, warmup, steps)
    lrs = []
    for _ in range(steps):
        lrs.append(opt.param_groups[0]["lr"])
        p.grad = torch.zeros(1)
        opt.step()
        sched.step()
    lrs_t = torch.tensor(lrs, dtype=torch.float64)
    # the formula directly
    for s, v in enumerate(lrs):
        if s < warmup:
            want = lr * (s + 1) / warmup
        else:
            want = min_lr + 0.5 * (lr - min_lr) * (1 + math.cos(math.pi * (s - warmup) / max(1, steps - warmup)))
        assert abs(v - want) < 1e-12, (s, v, want)
    assert lrs_t.max() <= lr * (1 + 1e-12) and lrs_t.min() >= min_lr * (1 - 1e-12)
    return case(name, {"lr": lr, "min_lr": min_lr, "warmup": warmup, "steps": steps}, {}, {},
                {"lrs": T(lrs_t.float())})


def make_optim():
    return [
        adamw_case("adamw_groups", 441, 1e-2, 0.9, 0.95, 1e-8, 0.1, ["b", "ln.scale"]),
        adamw_case("adamw_all_decay", 442, 3e-3, 0.9, 0.999, 1e-8, 0.01, []),
        clip_case("clip_norm_1", 1.0),
        clip_case("clip_norm_100", 100.0),
        lr_schedule_case("lr_schedule", 1e-3, 1e-4, 10, 100),
        lr_schedule_case("lr_schedule_no_warmup", 1e-3, 1e-4, 0, 100),
    ]


# ---------------------------------------------------------------------------
# 5. train_curve.json
# ---------------------------------------------------------------------------

def markov_tokens(n, vocab, seed):
    """First-order Markov chain: each symbol has 3 likely successors (p .6/.25/.1) + 5% uniform."""
    g = torch.Generator().manual_seed(seed)
    succ = torch.randint(0, vocab, (vocab, 3), generator=g)
    probs = torch.full((vocab, vocab), 0.05 / vocab, dtype=torch.float64)
    for a in range(vocab):
        for j, w in enumerate((0.60, 0.25, 0.10)):
            probs[a, succ[a, j]] += w
    toks = [int(torch.randint(0, vocab, (1,), generator=g))]
    for _ in range(n - 1):
        toks.append(int(torch.multinomial(probs[toks[-1]], 1, generator=g)))
    return torch.tensor(toks, dtype=torch.int64)


def train_case(name, norm, steps, warmup, grad_accum, micro_b):
    vocab, T_ = 64, 16
    model_cfg = {"vocab_size": vocab, "context_length": T_, "emb_dim": 32, "n_heads": 4,
                 "n_layers": 2, "drop_rate": 0.0, "qkv_bias": False, "tie_weights": False, "norm": norm}
    lr, min_lr, beta1, beta2, eps, wd, clip = 3e-3, 3e-4, 0.9, 0.95, 1e-8, 0.1, 1.0

    torch.manual_seed(1234)
    model = GPTModel(model_cfg)
    params0 = named_params(model)

    tokens = markov_tokens(4096, vocab, seed=2024)
    g = torch.Generator().manual_seed(77)
    starts = torch.randint(0, len(tokens) - T_ - 1, (steps, grad_accum * micro_b), generator=g)
    assert int(starts.max()) + T_ + 1 <= len(tokens)

    decay_names = [n for n, m in model.named_modules() if isinstance(m, nn.Linear)]
    decay_names = [n + ".weight" for n in decay_names]
    named = dict(model.named_parameters())
    assert all(named[n].dim() == 2 for n in decay_names)
    decay = [named[n] for n in decay_names]
    nodecay = [p for n, p in named.items() if n not in decay_names]
    assert len(decay) + len(nodecay) == len(named)
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": wd},
                             {"params": nodecay, "weight_decay": 0.0}],
                            lr=lr, betas=(beta1, beta2), eps=eps, foreach=False)
    sched = make_scheduler(opt, lr, min_lr, warmup, steps)

    model.train()  # drop_rate 0: identical to eval
    losses, norms, lrs = [], [], []
    for s in range(steps):
        lrs.append(opt.param_groups[0]["lr"])
        opt.zero_grad(set_to_none=True)
        micro_losses = []
        for k in range(grad_accum):
            st = starts[s, k * micro_b:(k + 1) * micro_b]
            xb = torch.stack([tokens[i:i + T_] for i in st.tolist()])
            yb = torch.stack([tokens[i + 1:i + T_ + 1] for i in st.tolist()])
            logits = model(xb)
            loss = F.cross_entropy(logits.flatten(0, 1), yb.flatten())
            (loss / grad_accum).backward()
            micro_losses.append(loss.detach())
        losses.append(torch.stack(micro_losses).mean())
        norms.append(torch.nn.utils.clip_grad_norm_(model.parameters(), clip))
        opt.step()
        sched.step()
    losses_t, norms_t = torch.stack(losses), torch.stack(norms)
    assert losses_t.shape == (steps,) and norms_t.shape == (steps,)
    print(f"  {name}: loss {losses_t[0]:.4f} -> {losses_t[-5:].mean():.4f} "
          f"(ln V = {math.log(vocab):.4f}); grad_norm {norms_t[0]:.3f} -> {norms_t[-1]:.3f}")
    assert losses_t[-5:].mean() < losses_t[0] - 1.0, "training should make clear progress"

    cfg = {"model": model_cfg, "batch_size": micro_b, "seq_len": T_, "steps": steps, "lr": lr,
           "min_lr": min_lr, "warmup": warmup, "beta1": beta1, "beta2": beta2, "eps": eps,
           "weight_decay": wd, "clip": clip, "grad_accum": grad_accum, "decay_params": decay_names}
    return case(name, cfg, params0, {"tokens": T(tokens), "starts": T(starts)},
                {"losses": T(losses_t), "grad_norms": T(norms_t),
                 "lrs": T(torch.tensor(lrs, dtype=torch.float64).float())})


def make_train_curve():
    return [
        train_case("train_pre_200", "pre", steps=200, warmup=20, grad_accum=1, micro_b=4),
        train_case("train_post_accum2", "post", steps=60, warmup=5, grad_accum=2, micro_b=2),
    ]


# ---------------------------------------------------------------------------
# 6. residual_flow.json (lesson 82, section 21, verbatim RNG order)
# ---------------------------------------------------------------------------

def make_residual_flow():
    torch.manual_seed(7)
    depth, d = 8, 16

    class NoRes(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(d, d) for _ in range(depth)])
            for l in self.layers: nn.init.normal_(l.weight, std=0.3)  # noqa: E701
        def forward(self, x):  # noqa: E301
            for l in self.layers: x = torch.tanh(l(x))  # noqa: E701
            return x

    class WithRes(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(d, d) for _ in range(depth)])
        def forward(self, x):  # noqa: E301
            for l in self.layers: x = x + torch.tanh(l(x))  # noqa: E701
            return x

    x = torch.randn(4, d)
    cases = []
    for Cls, name, case_name in [(NoRes, 'no-res', "no_residual"), (WithRes, 'residual', "residual")]:
        model = Cls()
        params = named_params(model)
        y = model(x)
        y.sum().backward()
        gnorms = [l.weight.grad.norm().item() for l in model.layers]
        print(f'{name}: L1={gnorms[0]:.3f}, L8={gnorms[-1]:.3f}')
        outputs = {"y": T(y), "grad_norms": T(torch.stack([l.weight.grad.norm() for l in model.layers]))}
        outputs.update(grads_of(model))
        assert len(params) == 2 * depth
        res = Cls is WithRes
        cfg = {"depth": depth, "dim": d, "activation": "tanh", "residual": res,
               "init_std": None if res else 0.3}
        cases.append(case(case_name, cfg, params, {"x": T(x)}, outputs))
    return cases


# ---------------------------------------------------------------------------

def main():
    os.makedirs(mg.OUT_DIR, exist_ok=True)
    write_file("optim.json", make_optim())
    write_file("train_curve.json", make_train_curve())
    write_file("residual_flow.json", make_residual_flow())


if __name__ == "__main__":
    main()
