// pytorch-gpt.js — the PyTorch code the GPT widgets' "Copy as PyTorch" snippets start from: the book's GPTModel
// ("Build a Large Language Model From Scratch", chapter 4) with the config keys Blockscope adds (ffn_hidden,
// activation, norm, residual, layer_norm_epsilon, tie_weights), and a safetensors reader that needs no package.
// Python source as text; no DOM. The browser tests run every snippet built from it with /usr/bin/python3.

export const GPT_MODEL_PY = `import torch
import torch.nn as nn


class LayerNorm(nn.Module):  # the book's LayerNorm: (x - mean) / sqrt(var + eps) * scale + shift, biased variance
    def __init__(self, emb_dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.scale = nn.Parameter(torch.ones(emb_dim))
        self.shift = nn.Parameter(torch.zeros(emb_dim))

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, keepdim=True, unbiased=False)
        return self.scale * (x - mean) / torch.sqrt(var + self.eps) + self.shift


ACTIVATIONS = {"gelu_tanh": nn.GELU(approximate="tanh"), "gelu_erf": nn.GELU(), "relu": nn.ReLU()}


class FeedForward(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d, hidden = cfg["emb_dim"], cfg.get("ffn_hidden", 4 * cfg["emb_dim"])
        self.layers = nn.Sequential(nn.Linear(d, hidden), ACTIVATIONS[cfg.get("activation", "gelu_tanh")],
                                    nn.Linear(hidden, d))

    def forward(self, x):
        return self.layers(x)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.d_out, self.num_heads, self.head_dim = d_out, num_heads, d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        split = lambda t: t.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        keys, queries, values = split(self.W_key(x)), split(self.W_query(x)), split(self.W_value(x))
        attn_scores = queries @ keys.transpose(2, 3)
        attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = self.dropout(torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1))
        context_vec = (attn_weights @ values).transpose(1, 2).contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)


class TransformerBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.att = MultiHeadAttention(cfg["emb_dim"], cfg["emb_dim"], cfg["context_length"], cfg["drop_rate"],
                                      cfg["n_heads"], cfg["qkv_bias"])
        self.ff = FeedForward(cfg)
        self.norm1 = LayerNorm(cfg["emb_dim"], cfg.get("layer_norm_epsilon", 1e-5))
        self.norm2 = LayerNorm(cfg["emb_dim"], cfg.get("layer_norm_epsilon", 1e-5))
        self.drop_shortcut = nn.Dropout(cfg["drop_rate"])
        self.pre_norm = cfg.get("norm", "pre") == "pre"
        self.residual = cfg.get("residual", True)  # False: the lessons' "without residual connections"

    def forward(self, x):
        if not self.residual:
            if self.pre_norm:
                return self.drop_shortcut(self.ff(self.norm2(self.drop_shortcut(self.att(self.norm1(x))))))
            return self.norm2(self.drop_shortcut(self.ff(self.norm1(self.drop_shortcut(self.att(x))))))
        if self.pre_norm:  # GPT-2's wiring, the book's
            x = x + self.drop_shortcut(self.att(self.norm1(x)))
            return x + self.drop_shortcut(self.ff(self.norm2(x)))
        x = self.norm1(x + self.drop_shortcut(self.att(x)))  # post-norm: the original Transformer's
        return self.norm2(x + self.drop_shortcut(self.ff(x)))


class GPTModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.pos_emb = nn.Embedding(cfg["context_length"], cfg["emb_dim"])
        self.drop_emb = nn.Dropout(cfg["drop_rate"])
        self.trf_blocks = nn.Sequential(*[TransformerBlock(cfg) for _ in range(cfg["n_layers"])])
        self.final_norm = LayerNorm(cfg["emb_dim"], cfg.get("layer_norm_epsilon", 1e-5))
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)
        if cfg.get("tie_weights", False):
            self.out_head.weight = self.tok_emb.weight

    def forward(self, in_idx):
        x = self.tok_emb(in_idx) + self.pos_emb(torch.arange(in_idx.shape[1]))
        x = self.trf_blocks(self.drop_emb(x))
        return self.out_head(self.final_norm(x))
`;

/** A function read_safetensors(data) -> {name: float32 tensor} (F32, F16, BF16 entries). Needs json, struct, torch. */
export const SAFETENSORS_PY = `def read_safetensors(data):
    """{name: float32 tensor} from safetensors bytes (F32, F16 or BF16), without the safetensors package."""
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    header.pop("__metadata__", None)
    dtypes = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}
    tensors = {}
    for name, e in header.items():
        begin, end = e["data_offsets"]
        raw = bytearray(data[8 + n + begin:8 + n + end])
        tensors[name] = torch.frombuffer(raw, dtype=dtypes[e["dtype"]]).float().reshape(e["shape"])
    return tensors
`;

/** A config as a Python dict literal, keys sorted (JSON's true/false/null spelled as Python's). */
export function pyConfig(config) {
  const keys = Object.keys(config).sort();
  const value = (v) => (v === true ? 'True' : v === false ? 'False' : v == null ? 'None' : JSON.stringify(v));
  return `{\n${keys.map((k) => `    ${JSON.stringify(k)}: ${value(config[k])},`).join('\n')}\n}`;
}
