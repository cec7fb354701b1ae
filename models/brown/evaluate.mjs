// Validation loss as `blockscope eval` defines it, for a GPT from web/runtime/blockscope.js: the core's evaluate_tokens
// (GPT.evaluateTokens) over `ids` cut into non-overlapping windows of `ctx` tokens (the last, shorter window included),
// `batch` windows per forward pass. Used by the trained-model test (the card's figure against a fresh evaluation) and
// bench/int8.mjs.
export function evalWindows(gpt, ids, ctx, batch = 8) {
  const { loss, tokens } = gpt.evaluateTokens(ids, { seqLen: ctx, batch });
  return { loss, tokens };
}
