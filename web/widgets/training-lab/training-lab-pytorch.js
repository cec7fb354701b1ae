// training-lab-pytorch.js — <training-lab>'s "Copy as PyTorch": both runs of the current comparison, trained in
// PyTorch the way the core trains them, so the printed losses are the widget's. What makes that possible is that
// nothing in the lab is PyTorch-random: the initial weights come from Blockscope's seeded PCG32 (Linear layers
// U(−1/√in, 1/√in) in the layers' order, embeddings N(0, 1) by Box–Muller), and each step's batch from a PCG32
// stream of (seed, step) — the snippet carries a 30-line port of both (core/src/rng.cpp, trainer.cpp). The rest is
// torch: the book's GPTModel, cross-entropy, clip_grad_norm_, AdamW (β = 0.9/0.95, weight decay 0.1 on the 2-D
// weights but the embeddings), warmup + cosine decay to lr/10. Prints `step <run> <step> <loss> <gradNorm> <lr>`
// and `val <run> <step> <valLoss>` lines; tests/browser compares them with the widget's events. No DOM.
import { GPT_MODEL_PY, pyConfig } from '../kit/pytorch-gpt.js';

const CORE_RNG_PY = `MASK64 = (1 << 64) - 1


class CoreRng:
    """PCG32 as Blockscope's core implements it (core/src/rng.cpp): the same stream as the widget's."""

    def __init__(self, seed, stream=54):
        self.inc, self.state, self.spare = ((stream << 1) | 1) & MASK64, 0, None
        self.next_u32()
        self.state = (self.state + seed) & MASK64
        self.next_u32()

    def next_u32(self):
        old = self.state
        self.state = (old * 6364136223846793005 + self.inc) & MASK64
        xorshifted, rot = (((old >> 18) ^ old) >> 27) & 0xFFFFFFFF, old >> 59
        return ((xorshifted >> rot) | (xorshifted << ((32 - rot) & 31))) & 0xFFFFFFFF

    def uniform(self, n):  # 24 random bits each, exact in float32
        return torch.tensor([self.next_u32() >> 8 for _ in range(n)], dtype=torch.float32) / 16777216.0

    def normal(self, n):  # Box-Muller in double, rounded to float32
        out = []
        while len(out) < n:
            if self.spare is not None:
                out.append(self.spare)
                self.spare = None
                continue
            u1 = ((self.next_u32() >> 8) + 1.0) / 16777216.0
            u2 = (self.next_u32() >> 8) / 16777216.0
            r, theta = math.sqrt(-2.0 * math.log(u1)), 6.283185307179586 * u2
            self.spare = r * math.sin(theta)
            out.append(r * math.cos(theta))
        return torch.tensor(out, dtype=torch.float32)


def step_rng(seed, step, stream):
    """The generator of one step's batches (a fresh stream per (seed, step), core/src/trainer.cpp)."""
    x = (seed ^ (0x9E3779B97F4A7C15 * (step + 1))) & MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return CoreRng(x ^ (x >> 31), stream)


@torch.no_grad()
def core_init(model, seed):
    """createGPT(config, {seed}): Blockscope's initial weights, drawn in the core's order."""
    rng = CoreRng(seed)
    for emb in (model.tok_emb, model.pos_emb):
        emb.weight.copy_(rng.normal(emb.weight.numel()).view_as(emb.weight))

    def linear(layer):  # nn.Linear's default: U(-1/sqrt(in), 1/sqrt(in)), the weight then the bias
        bound = torch.tensor(1.0) / torch.sqrt(torch.tensor(float(layer.in_features)))
        for p in (layer.weight, layer.bias):
            if p is not None:
                p.copy_((-bound + (2 * bound) * rng.uniform(p.numel())).view_as(p))

    for block in model.trf_blocks:
        for layer in (block.att.W_query, block.att.W_key, block.att.W_value, block.att.out_proj,
                      block.ff.layers[0], block.ff.layers[2]):
            linear(layer)
    if not model.out_head.weight is model.tok_emb.weight:
        linear(model.out_head)


def batch(tokens, starts, T):
    return (torch.tensor([tokens[s:s + T] for s in starts]), torch.tensor([tokens[s + 1:s + T + 1] for s in starts]))


def train_batch(seed, step, tokens, B, T):  # B windows of the training text at PCG32-drawn starts
    rng, n = step_rng(seed, step, 101), len(tokens) - T
    return batch(tokens, [(rng.next_u32() * n) >> 32 for _ in range(B)], T)


def val_batch(i, tokens, B, T):  # a fixed set of windows spread by a golden-ratio stride
    n = len(tokens) - T
    return batch(tokens, [(((i * B + b) * 0x9E3779B97F4A7C15) & MASK64) % n for b in range(B)], T)


def scheduled_lr(step, steps, warmup, lr, min_lr):  # linear warmup, then cosine decay to min_lr
    if step < warmup:
        return lr * (step + 1) / warmup
    p = (step - warmup) / max(1, steps - warmup)
    return min_lr + 0.5 * (lr - min_lr) * (1 + math.cos(math.pi * min(p, 1.0)))
`;

const TRAIN_PY = `def train(name, cfg, t):
    model = GPTModel(cfg)
    core_init(model, SEED)
    print(name, "parameters", sum(p.numel() for p in model.parameters()))
    decay = [p for n, p in model.named_parameters() if p.dim() == 2 and not n.startswith(("tok_emb", "pos_emb"))]
    rest = [p for n, p in model.named_parameters() if not (p.dim() == 2 and not n.startswith(("tok_emb", "pos_emb")))]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": t["weight_decay"]}, {"params": rest, "weight_decay": 0.0}],
                            lr=t["lr"], betas=(t["beta1"], t["beta2"]), eps=t["eps"])
    B, T = t["batch_size"], t["seq_len"]
    for step in range(min(RUN_STEPS, t["steps"])):
        model.train()
        x, y = train_batch(t["seed"], step, train_text, B, T)
        loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
        opt.zero_grad()
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), t["clip"]).item()
        lr = scheduled_lr(step, t["steps"], t["warmup"], t["lr"], t["lr"] / 10)
        if not math.isfinite(loss.item()) or not math.isfinite(grad_norm):
            print(name, "stopped at step", step + 1, "(not finite)")
            return
        for g in opt.param_groups:
            g["lr"] = lr
        opt.step()
        print("step", name, step + 1, f"{loss.item():.6f}", f"{grad_norm:.6f}", f"{lr:.8g}")
        if (EVAL_EVERY and (step + 1) % EVAL_EVERY == 0) or step + 1 == t["steps"]:
            model.eval()
            with torch.no_grad():
                val = sum(F.cross_entropy(model(x).flatten(0, 1), y.flatten()).item()
                          for x, y in (val_batch(i, val_text, B, T) for i in range(t["eval_batches"])))
            print("val", name, step + 1, f"{val / t['eval_batches']:.6f}")
`;

/** The trainer config with the core's defaults spelled out (what TrainConfig.from_json fills in). */
const TRAIN_DEFAULTS = { weight_decay: 0.1, beta1: 0.9, beta2: 0.95, eps: 1e-8, clip: 1 };

/**
 * The snippet. state: {comparison label, runs: [{key, label, config, train}], seed, evalEvery, dataUrl (absolute,
 * holding train.txt and val.txt), stepsDone}.
 */
export function labSnippet({ label, runs, seed, evalEvery, dataUrl }) {
  const runLines = runs.map((r) => `# run ${r.key}: ${r.label}\n${r.key.toUpperCase()}_CONFIG = ${pyConfig(r.config)}\n` +
    `${r.key.toUpperCase()}_TRAIN = ${pyConfig({ ...TRAIN_DEFAULTS, ...r.train })}`).join('\n\n');
  const steps = Math.max(...runs.map((r) => r.train.steps));
  return `# <training-lab> as PyTorch: ${label}. Both runs start from Blockscope's seeded weights and draw Blockscope's
# batches (a port of the core's PCG32 below), so the losses printed here are the widget's.
import math, urllib.request
import torch.nn.functional as F
${GPT_MODEL_PY}

${CORE_RNG_PY}

DATA = ${JSON.stringify(dataUrl)}  # the Brown corpus excerpt the lab trains on, one token per byte
train_text = list(urllib.request.urlopen(DATA + "train.txt").read())
val_text = list(urllib.request.urlopen(DATA + "val.txt").read())
SEED = ${seed}  # createGPT's seed (Blockscope's seed, not torch.manual_seed)
EVAL_EVERY = ${evalEvery}
RUN_STEPS = ${steps}  # lower it to compare only the first steps

${runLines}

torch.set_num_threads(1)
${TRAIN_PY}

${runs.map((r) => `train(${JSON.stringify(r.key)}, ${r.key.toUpperCase()}_CONFIG, ${r.key.toUpperCase()}_TRAIN)`).join('\n')}
`;
}
