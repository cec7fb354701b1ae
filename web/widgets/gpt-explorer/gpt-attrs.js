// gpt-attrs.js — <gpt-explorer>'s attributes (their defaults, limits and the control group each belongs to), its
// control groups (controls="…", lock="…") and its sections (sections="…": part names), declared once for the
// element, the guide's tables and the generated types. No DOM.
import { LINK_GROUP_ATTR } from '../kit/linked-selection.js';
import { SHIPPED_MODELS } from './gpt-models.js';

/** The attributes (see gpt-explorer.js's header), as base.js's `static attrs`. */
export const GPT_ATTRS = {
  prompt: 'The jury said that the',
  weights: { default: 'trained', options: ['trained', 'untrained', 'random'],
    doc: 'the shipped model (the model attribute\'s), its twin with seeded random weights, or a random model of the size below' },
  seed: { default: 123, min: 0, max: 2 ** 53 - 1, int: true }, loading: { default: 'lazy', options: ['lazy', 'eager'], doc: 'lazy: load when the widget nears the viewport' },
  model: { default: '', url: true, names: Object.keys(SHIPPED_MODELS), group: 'checkpoint',
    doc: 'a shipped model by name — brown (the default, reads bytes), brown-bpe (its own BPE tokens; writes words) or ' +
      'sort, which sorts numbers and, unless set, brings its own ' +
      'prompt, temperature 0 and 8 new tokens — or a checkpoint directory URL that replaces it (its own tokenizer ' +
      'files, when there, tokenize)' },
  layers: { default: 4, min: 1, max: 48, int: true, group: 'size', doc: 'layers … tokenizer: the size of a weights="random" model' },
  'emb-dim': { default: 64, min: 4, max: 1024, int: true, group: 'size' },
  heads: { default: 4, min: 1, max: 32, int: true, group: 'size' }, context: { default: 128, min: 1, max: 1024, int: true, group: 'size' },
  tokenizer: { default: 'byte', options: ['byte', 'gpt2'], group: 'size' }, norm: { default: 'pre', options: ['pre', 'post'] },
  overflow: { default: 'crop', options: ['crop', 'error'] }, candidates: { default: 10, min: 1, max: 50, int: true },
  layer: { default: 1, min: 1, max: 48, int: true, group: 'block' }, head: { default: 1, min: 1, max: 32, int: true, group: 'block' },
  ln: { default: 'norm1', options: ['norm1', 'norm2', 'final'], group: 'layernorm' },
  'ln-side': { default: 'in', options: ['in', 'out'], group: 'layernorm' },
  stat: { default: 'var', options: ['var', 'mean'], group: 'layernorm' },
  temperature: { default: 1, min: 0, max: 2, group: 'sampling' }, 'top-k': { default: 25, min: 0, max: 100, int: true, group: 'sampling' },
  'top-p': { default: 1, min: 0.05, max: 1, group: 'sampling' },
  'max-new-tokens': { default: 40, min: 1, max: 1000, int: true, group: 'sampling' },
  'gen-seed': { default: 42, min: 0, max: 2 ** 53 - 1, int: true, group: 'sampling' },
  ablate: { default: '', group: 'ablation', doc: 'attention heads to ablate, block.head 0-based and comma-separated, e.g. "1.0,3.2"' },
  'ablate-mode': { default: 'zero', options: ['zero', 'mean'], group: 'ablation',
    doc: 'zero a head\'s output, or replace it by its mean over the positions so far' },
  attribution: { default: 'grad-x-input', options: ['grad-x-input', 'integrated-gradients'], doc: 'how prompt tokens are shaded' },
  'link-group': LINK_GROUP_ATTR,
};

/** What controls="…" and lock="…" name (layout.js). */
export const CONTROL_GROUPS = {
  weights: 'the trained/untrained switch, with Try again and Back to the trained model',
  seed: 'the Blockscope seed of the random weights',
  norm: 'LayerNorm placement (pre-norm or post-norm)',
  size: 'the random model\'s settings (layers, emb_dim, heads, context, tokenizer)',
  checkpoint: 'loading another checkpoint (URL, files)',
  scrub: 'the slider through a training lab\'s checkpoints',
  prompt: 'the prompt box',
  layernorm: 'which LayerNorm, side and statistic the heatmap shows',
  block: 'which block and head the attention and feed-forward charts show',
  ablation: 'the head-ablation checkboxes, their mode and Restore every head',
  attribution: 'the attribution method',
  sampling: 'temperature, top-k, top-p, new tokens and the sampling seed',
  generate: 'the Generate, Stop and Use as prompt buttons',
};

/** What sections="…" names: the widget's panels, by part name (layout.js). */
export const SECTIONS = {
  title: 'the heading',
  description: 'the paragraph under the heading',
  model: 'the model: weights, seed, LayerNorm placement, random model settings, checkpoint loader',
  'lab-run': 'the training lab run being inspected (shown only for one)',
  prompt: 'the prompt and its tokens',
  candidates: 'the next-token tables (with Copy as PyTorch)',
  'copy-pytorch': 'the Copy as PyTorch button',
  'download-weights': 'the Download the weights button (models without a URL)',
  interpret: 'logit lens, head ablation and attribution',
  block: 'inside one block: attention weights and feed-forward activations',
  layernorm: 'the LayerNorm statistics heatmap',
  generate: 'text generation',
  status: 'the status line',
};
