// Validation loss as `blockscope eval` defines it, for a GPT from web/runtime/blockscope.js: the mean cross-entropy over
// `ids` cut into non-overlapping context windows (the last, shorter window included), `batch` windows per call.
// Used by the trained-model test (the card's figure against a fresh evaluation) and bench/int8.mjs.
export function evalWindows(gpt, ids, ctx, batch = 8) {
  let sum = 0;
  let n = 0;
  const full = Math.floor((ids.length - 1) / ctx);
  for (let w = 0; w < full; w += batch) {
    const rows = [];
    const targets = [];
    for (let b = w; b < Math.min(full, w + batch); b++) {
      rows.push(ids.subarray(b * ctx, (b + 1) * ctx));
      targets.push(ids.subarray(b * ctx + 1, (b + 1) * ctx + 1));
    }
    sum += gpt.loss(rows, targets) * rows.length * ctx;
    n += rows.length * ctx;
  }
  const tail = ids.length - 1 - full * ctx;
  if (tail > 0) {
    sum += gpt.loss([ids.subarray(full * ctx, full * ctx + tail)], [ids.subarray(full * ctx + 1)]) * tail;
    n += tail;
  }
  return { loss: sum / n, tokens: n };
}
