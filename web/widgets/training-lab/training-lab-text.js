// training-lab-text.js — <training-lab>'s settings (the attributes clamped to the controls' limits) and the
// "what to look for" note of each comparison (its text in the message tables, lab.lookFor.*), written from runs
// measured with the default sizes (6 blocks, d_model 48, context 64, batch 8, 600 steps; see the widget's report),
// and its control groups and sections (kit/layout.js). No DOM, no model work.
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

/** The note above the charts: what the chosen comparison shows, and where to move the learning rate, in the widget's
 * language (`t`: the widget's message lookup; messages lab.lookFor.*). Numbers are validation losses measured with
 * the default sizes and seed (6 blocks, d_model 48, 600 steps, no warmup). */
export function whatToLookFor({ comparison, shared }, t) {
  switch (comparison) {
    case 'norm': {
      const start = shared.warmup ? t('lab.lookFor.norm.startWarmup', { count: shared.warmup }) : t('lab.lookFor.norm.start');
      return `${start} ${t('lab.lookFor.norm')}`;
    }
    case 'ffn':
    case 'activation':
    case 'residual':
      return t(`lab.lookFor.${comparison}`);
    case 'warmup':
      return t('lab.lookFor.warmup', { count: shared.warmup || Math.round(shared.steps / 10) });
    default:
      return '';
  }
}

/** What controls="…" and lock="…" name (kit/layout.js): the control groups. */
export const CONTROL_GROUPS = {
  comparison: 'the menu of comparisons (which setting runs A and B differ in)',
  lr: 'the learning-rate slider',
  warmup: 'the warmup steps field',
  steps: 'the training steps field',
  layers: 'the menu of layers (blocks)',
  'emb-dim': 'the d_model menu',
  train: 'the Train / Pause and Reset buttons (and the steps per second beside them)',
  checkpoints: 'each run\'s checkpoint menu with its Inspect and Download buttons',
};

/** What sections="…" names (kit/layout.js): the widget's parts. */
export const SECTIONS = {
  title: 'the heading',
  description: 'the paragraph on what the lab trains and how',
  settings: 'the Settings box (comparison, learning rate, warmup, steps, layers, d_model)',
  legend: 'the legend naming run A and run B',
  'look-for': 'the note on what the chosen comparison shows',
  loss: 'the loss chart with its explanation',
  gradients: 'the chart of each layer\'s gradient norm with its explanation',
  samples: 'what each model writes after the prompt',
  results: 'the results table and the notes on each run',
  'copy-pytorch': 'Copy as PyTorch (the button, the code and the note above it)',
  checkpoints: 'the checkpoints each run keeps, to inspect or download',
  status: 'the status line',
};
