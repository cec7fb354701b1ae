// training-lab-text.js — <training-lab>'s settings (the attributes clamped to the controls' limits) and the
// "what to look for" note of each comparison, written from runs measured with the default sizes (6 blocks,
// d_model 48, context 64, batch 8, 600 steps; see the widget's report). No DOM, no model work.
import { COMPARISONS } from './training-lab-runs.js';

/** The controls' limits; attributes and deep links outside them are clamped. */
export const LIMITS = {
  lr: [1e-4, 0.1], steps: [100, 5000], layers: [1, 8], embDims: [32, 48, 64], warmup: [0, 5000],
  evalEvery: [5, 500], sampleEvery: [10, 1000], seed: [0, 2 ** 31 - 1],
};

const clamp = (v, [lo, hi]) => Math.min(hi, Math.max(lo, v));

/**
 * The lab's settings from attribute readers num(name) / str(name):
 * {comparison, shared: {lr, steps, layers, embDim, warmup, seed}, evalEvery, sampleEvery}.
 */
export function settings(num, str) {
  const steps = Math.round(clamp(num('steps'), LIMITS.steps));
  const emb = num('emb-dim');
  const embDim = LIMITS.embDims.reduce((best, d) => (Math.abs(d - emb) < Math.abs(best - emb) ? d : best));
  return {
    comparison: str('comparison') in COMPARISONS ? str('comparison') : 'norm',
    shared: {
      lr: clamp(num('lr'), LIMITS.lr),
      steps,
      layers: Math.round(clamp(num('layers'), LIMITS.layers)),
      embDim,
      warmup: Math.round(clamp(num('warmup'), [0, steps])),
      seed: Math.round(clamp(num('seed'), LIMITS.seed)),
    },
    evalEvery: Math.round(clamp(num('eval-every'), LIMITS.evalEvery)),
    sampleEvery: Math.round(clamp(num('sample-every'), LIMITS.sampleEvery)),
  };
}

/** The note above the charts: what the chosen comparison shows, and where to move the learning rate. Numbers are
 * validation losses measured with the default sizes and seed (6 blocks, d_model 48, 600 steps, no warmup). */
export function whatToLookFor({ comparison, shared }) {
  const warm = shared.warmup ? `, warming up over ${shared.warmup} steps` : ', without warmup';
  switch (comparison) {
    case 'norm':
      return `Both runs start from the same weights and see the same batches${warm}; only where LayerNorm sits differs. ` +
        'Measured here with 6 blocks and no warmup: from a learning rate of about 0.01 up (0.013 with seed 1 — the edge ' +
        'depends a little on the seed), post-norm stops learning within its first ten or so steps. Its loss sticks near 3.1 ' +
        'nats — the level of knowing only how common each byte is — because the gradient reaching its lower layers ' +
        'collapses to almost nothing (see the gradient chart), while pre-norm goes on to about 2.4. It does not blow up ' +
        'to NaN: clipping at 1 keeps every step finite. At 0.007 both learn, post-norm as well as pre-norm (2.50 against 2.51 ' +
        'after 300 steps); with 2 blocks instead of 6, post-norm keeps up even at 0.015 — the trouble grows with depth. ' +
        'Slide the learning rate to find the edge.';
    case 'ffn':
      return 'Run B\'s feed-forward layers are half as wide (d_ff = 2·d_model instead of 4·d_model): 140,640 parameters ' +
        'instead of 196,512 at the default size, and different initial weights. Measured at 0.015 after 600 steps: 2.38 ' +
        '(4×) against 2.40 (2×) — the wider network is a little better, but at this size the gap is small.';
    case 'activation':
      return 'The same weights and batches; only the feed-forward activation differs. Measured at 0.015 after 600 steps: ' +
        '2.38 (GELU) against 2.40 (ReLU) — close; at this size normalisation and residuals matter far more.';
    case 'residual':
      return 'Run B has no shortcut connections: each sublayer\'s output replaces its input instead of being added to it. ' +
        'Measured here, the 6-block model without them stays near 3.1 nats (byte frequencies only) for the whole run at ' +
        'every learning rate tried (0.003 to 0.03): the gradient reaching its embeddings is 10⁵ to 10⁷ times smaller than ' +
        'the head\'s. With the + x path, the signal reaches every layer.';
    case 'warmup':
      return `Both runs are post-norm. Run A raises the learning rate linearly over the first ${shared.warmup || Math.round(shared.steps / 10)} ` +
        'steps; run B starts at full strength. Measured at 0.015: with 60 warmup steps post-norm learns (2.47 after 600 ' +
        'steps) where the run without warmup stalls at 3.1; at 0.02 and above, warmup over 60 steps no longer saves it.';
    default:
      return '';
  }
}
