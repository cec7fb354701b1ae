// mistake-text.js — what each of the core's mistake ids (core/include/blockscope/mistakes.hpp) means, in the words
// the widgets' "check your implementation" verdicts and prediction hints use: `what` completes "your numbers match
// …", `fix` says what to change. The ids are stable (pages and LMSs record them); the guide lists them.
export const MISTAKE_TEXT = Object.freeze({
  correct: { what: 'the correct computation', fix: '' },
  'wrong-axis': { what: 'LayerNorm over the wrong axis (statistics over the tokens, dim −2)',
    fix: 'take the mean and variance over the last dimension: x.mean(-1, keepdim=True)' },
  'unbiased-variance': { what: 'LayerNorm with the unbiased variance, ÷ (n − 1)',
    fix: 'LayerNorm uses the biased variance: x.var(-1, unbiased=False, keepdim=True)' },
  'eps-outside-sqrt': { what: 'LayerNorm with ε outside the square root, (x − μ) / (√σ² + ε)',
    fix: 'add ε inside: torch.sqrt(var + eps)' },
  'no-eps': { what: 'LayerNorm without ε, (x − μ) / √σ²', fix: 'divide by torch.sqrt(var + eps)' },
  'no-affine': { what: 'LayerNorm without the scale γ and shift β', fix: 'finish with self.scale * norm_x + self.shift' },
  'tanh-approximation': { what: 'GELU’s tanh approximation where the exact (erf) GELU is expected',
    fix: 'use the exact form, F.gelu(x) or 0.5·x·(1 + erf(x/√2))' },
  'exact-erf': { what: 'the exact erf GELU where the tanh approximation is expected',
    fix: 'use 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), i.e. F.gelu(x, approximate="tanh")' },
  'relu-instead-of-gelu': { what: 'ReLU instead of GELU', fix: 'apply GELU between the two linear layers' },
  'no-activation': { what: 'the feed-forward network without its activation (Linear → Linear)',
    fix: 'apply GELU between the layers: without it W₂W₁ collapses into one linear map' },
  'across-sequence': { what: 'the FFN applied across the sequence (positions mixed), not to each token',
    fix: 'apply the FFN to the last dimension of (batch, seq_len, d_model) without transposing' },
  'no-scale': { what: 'attention without the 1/√d scale', fix: 'divide the scores by keys.shape[-1] ** 0.5 before softmax' },
  'no-causal-mask': { what: 'attention without the causal mask', fix: 'fill the scores above the diagonal with −inf before softmax' },
  'softmax-wrong-axis': { what: 'attention with softmax over the wrong axis (the queries, dim −2)',
    fix: 'softmax over the keys: torch.softmax(scores, dim=-1)' },
  'no-attention-residual': { what: 'the block without the attention shortcut (x = att(norm1(x)))',
    fix: 'add the shortcut back: x = x + att(norm1(x))' },
  'no-ffn-residual': { what: 'the block without the feed-forward shortcut', fix: 'add the shortcut back: x = x + ff(norm2(x))' },
  'post-norm': { what: 'post-norm wiring (the norms after each addition) where the block is pre-norm',
    fix: 'normalize before each sublayer: x = x + att(norm1(x))' },
  'pre-norm': { what: 'pre-norm wiring where the block is post-norm', fix: 'normalize after each addition: x = norm1(x + att(x))' },
});

/** The text for `id`, or the id itself for one this file does not know (a newer core). */
export const mistakeText = (id) => MISTAKE_TEXT[id] ?? { what: id, fix: '' };
