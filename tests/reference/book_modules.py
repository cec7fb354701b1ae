"""The PyTorch modules the golden scripts compute with: the book's classes ("Build a Large Language Model From
Scratch", ch. 3-4: LayerNorm, FeedForward, MultiHeadAttention, TransformerBlock with pre/post norm, GPTModel
with optional weight tying) and the lesson's EncoderBlock, verbatim. Imported by make_goldens.py and the
other reference scripts; importing runs nothing.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


# ---------------------------------------------------------------------------
# The book's classes ("Build a Large Language Model From Scratch", ch. 3-4)
# ---------------------------------------------------------------------------

class LayerNorm(nn.Module):
    def __init__(self, emb_dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.scale = nn.Parameter(torch.ones(emb_dim))
        self.shift = nn.Parameter(torch.zeros(emb_dim))

    def forward(self, x):
        # Book: (x - mean) / sqrt(var_biased + eps) * scale + shift; computed with
        # PyTorch's own kernel so the reference is F.layer_norm.
        return F.layer_norm(x, (x.shape[-1],), self.scale, self.shift, self.eps)


def make_activation(kind):
    if kind == "gelu_tanh":
        return nn.GELU(approximate="tanh")  # F.gelu(x, approximate='tanh')
    if kind == "gelu_erf":
        return nn.GELU(approximate="none")  # F.gelu(x, approximate='none')
    if kind == "relu":
        return nn.ReLU()  # F.relu
    raise ValueError(kind)


class FeedForward(nn.Module):
    def __init__(self, emb_dim, hidden_dim, activation="gelu_tanh", bias=True):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(emb_dim, hidden_dim, bias=bias),
            make_activation(activation),
            nn.Linear(hidden_dim, emb_dim, bias=bias),
        )

    def forward(self, x):
        return self.layers(x)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False, causal=True):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.causal = causal
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))
        self.last_attn_weights = None

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)

        keys = keys.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        values = values.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)

        attn_scores = queries @ keys.transpose(2, 3)
        if self.causal:
            mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
            attn_scores.masked_fill_(mask_bool, -torch.inf)

        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        self.last_attn_weights = attn_weights.detach().clone()  # after softmax
        attn_weights = self.dropout(attn_weights)

        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)


class TransformerBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.att = MultiHeadAttention(
            d_in=cfg["emb_dim"], d_out=cfg["emb_dim"], context_length=cfg["context_length"],
            num_heads=cfg["n_heads"], dropout=cfg["drop_rate"], qkv_bias=cfg["qkv_bias"])
        # ffn_hidden: the width of the feed-forward layer (0 or absent: the book's 4 x emb_dim)
        self.ff = FeedForward(cfg["emb_dim"], cfg.get("ffn_hidden") or 4 * cfg["emb_dim"], "gelu_tanh")
        self.norm1 = LayerNorm(cfg["emb_dim"])
        self.norm2 = LayerNorm(cfg["emb_dim"])
        self.drop_shortcut = nn.Dropout(cfg["drop_rate"])
        self.norm = cfg.get("norm", "pre")
        assert self.norm in ("pre", "post")
        # Not in the book: "residual": False drops both shortcut connections (the lessons' "without
        # residuals" experiment); the default is the book's block.
        self.residual = cfg.get("residual", True)

    def forward(self, x):
        if not self.residual:
            return self.forward_without_shortcuts(x)
        if self.norm == "pre":  # GPT-2
            shortcut = x
            x = self.norm1(x)
            x = self.att(x)
            x = self.drop_shortcut(x)
            x = x + shortcut

            shortcut = x
            x = self.norm2(x)
            x = self.ff(x)
            x = self.drop_shortcut(x)
            x = x + shortcut
        else:  # post-norm (original Transformer)
            x = self.norm1(x + self.drop_shortcut(self.att(x)))
            x = self.norm2(x + self.drop_shortcut(self.ff(x)))
        return x

    def forward_without_shortcuts(self, x):
        if self.norm == "pre":
            x = self.drop_shortcut(self.att(self.norm1(x)))
            x = self.drop_shortcut(self.ff(self.norm2(x)))
        else:
            x = self.norm1(self.drop_shortcut(self.att(x)))
            x = self.norm2(self.drop_shortcut(self.ff(x)))
        return x


class GPTModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.pos_emb = nn.Embedding(cfg["context_length"], cfg["emb_dim"])
        self.drop_emb = nn.Dropout(cfg["drop_rate"])
        self.trf_blocks = nn.Sequential(*[TransformerBlock(cfg) for _ in range(cfg["n_layers"])])
        self.final_norm = LayerNorm(cfg["emb_dim"])
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)
        if cfg.get("tie_weights", False):
            self.out_head.weight = self.tok_emb.weight

    def forward(self, in_idx):
        batch_size, seq_len = in_idx.shape
        tok_embeds = self.tok_emb(in_idx)
        pos_embeds = self.pos_emb(torch.arange(seq_len, device=in_idx.device))
        x = tok_embeds + pos_embeds
        x = self.drop_emb(x)
        x = self.trf_blocks(x)
        x = self.final_norm(x)
        return self.out_head(x)


def randomize_layer_norms(module):
    """scale = 1 + 0.1*randn, shift = 0.1*randn for every book LayerNorm (registration order)."""
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, LayerNorm):
                m.scale.copy_(1 + 0.1 * torch.randn_like(m.scale))
                m.shift.copy_(0.1 * torch.randn_like(m.shift))


# ---------------------------------------------------------------------------
# The lesson's EncoderBlock (verbatim)
# ---------------------------------------------------------------------------

class MultiHeadSelfAttn(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h = h; self.dk = d // h
        self.Wq = nn.Linear(d, d, bias=False)
        self.Wk = nn.Linear(d, d, bias=False)
        self.Wv = nn.Linear(d, d, bias=False)
        self.Wo = nn.Linear(d, d, bias=False)
    def forward(self, x):
        B, T, D = x.shape
        def split(W): return W(x).view(B,T,self.h,self.dk).transpose(1,2)
        Q, K, V = split(self.Wq), split(self.Wk), split(self.Wv)
        attn = (Q @ K.transpose(-2,-1) / self.dk**0.5).softmax(-1)
        return self.Wo((attn @ V).transpose(1,2).reshape(B,T,D))
class EncoderBlock(nn.Module):
    def __init__(self, d, h, d_ff):
        super().__init__()
        self.norm1 = nn.LayerNorm(d)
        self.attn  = MultiHeadSelfAttn(d, h)
        self.norm2 = nn.LayerNorm(d)
        self.ffn   = nn.Sequential(nn.Linear(d, d_ff), nn.GELU(), nn.Linear(d_ff, d))
    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        x = x + self.ffn(self.norm2(x))
        return x
