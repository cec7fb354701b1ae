// layernorm-batchnorm.js — <layernorm-explorer>'s "LayerNorm vs BatchNorm, for real" (seed 001 §7): the same first
// token of sequence s1 normalized in two batches whose other sequence differs in content and length. BatchNorm takes
// each feature's statistics over every token of the batch (with the zero padding a batch of variable-length
// sequences carries, as nn.BatchNorm1d sees it, or without), so that token's output moves with its batch-mates;
// LayerNorm takes them over the token's own features and gives the same output in both. The core computes both:
// BatchNorm's training-mode statistics are LayerNorm's over the other axis (the wrong-axis computation of
// mistakes.hpp), over the batch's stacked tokens. A helper of the element, not a custom element.
import { fmt, h } from '../kit/base.js';

export const SEQUENCES = {
  s1: [[1, 3, 5, 7], [2, 2, 2, 6], [0, 4, 4, 0], [3, 1, 1, 3]],
  s2: [[10, 20, 30, 40], [5, 5, 5, 5]],
  s3: [[-1, 0, 1, 2]],
};
const BATCHES = [{ key: 'A', partner: 's2' }, { key: 'B', partner: 's3' }];
const D = 4;
const row = (v) => `[${Array.from(v, (e) => fmt(e)).join(', ')}]`;

export class BatchNormPanel {
  constructor(host) {
    this.host = host;
    this.padding = h('input', { type: 'checkbox', id: 'bn-padding', checked: true });
    this.padding.addEventListener('change', () => this.update());
    this.table = h('table', { class: 'bn-table' });
    this.verdict = h('p', { class: 'bn-verdict', 'aria-live': 'polite' });
    this.root = h('details', { class: 'batchnorm', part: 'batchnorm' },
      h('summary', {}, 'LayerNorm vs BatchNorm, for real'),
      h('p', { class: 'muted' }, 'Three sequences of d = 4 features: s1 has 4 tokens, s2 has 2, s3 has 1. Batch A ',
        'holds s1 and s2, batch B s1 and s3; the shorter one is padded with zero vectors to the batch’s length. ',
        'Follow s1’s first token, [1, 3, 5, 7], through both normalizations in both batches.'),
      h('label', {}, this.padding, ' count the padding as nn.BatchNorm1d on a padded batch does'),
      h('div', { class: 'scroll' }, this.table), this.verdict);
    this.root.addEventListener('toggle', () => this.root.open && this.update());
  }

  /** The batch's tokens as BatchNorm sees them: (tokens, d), padding rows included or not. */
  tokens(partner, padded) {
    const seqs = [SEQUENCES.s1, SEQUENCES[partner]];
    const T = Math.max(...seqs.map((q) => q.length));
    return seqs.flatMap((q) => (padded ? [...q, ...Array.from({ length: T - q.length }, () => new Array(D).fill(0))] : q));
  }

  async update() {
    if (!this.root.open) return;
    const rt = await this.host.runtime();
    const padded = this.padding.checked;
    const ones = new Float32Array(D).fill(1);
    const zeros = new Float32Array(D);
    const eps = 1e-5; // nn.BatchNorm1d's and nn.LayerNorm's default
    const results = await Promise.all(BATCHES.map(async ({ key, partner }) => {
      const rows = this.tokens(partner, padded);
      const x = Float32Array.from(rows.flat());
      const bn = await rt.layerNormMistake('wrong-axis', x, { gamma: ones, beta: zeros, eps });
      const ln = await rt.layerNormMistake('correct', x, { gamma: ones, beta: zeros, eps });
      // BatchNorm's per-feature statistics: LayerNorm's statistics of the transposed (d, tokens) matrix.
      const t = new Float32Array(x.length);
      rows.forEach((r, i) => r.forEach((v, f) => { t[f * rows.length + i] = v; }));
      const stats = await rt.layerNorm(t, { dim: rows.length });
      return { key, partner, tokens: rows.length, bn: bn.subarray(0, D), ln: ln.subarray(0, D), mean: stats.mean, variance: stats.variance };
    }));
    const [a, b] = results;
    const moved = Math.max(...a.bn.map((v, i) => Math.abs(v - b.bn[i])));
    const same = Math.max(...a.ln.map((v, i) => Math.abs(v - b.ln[i])));
    this.table.replaceChildren(
      h('caption', { class: 'visually-hidden' }, 's1’s first token through BatchNorm and LayerNorm in two batches'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, ''), ...results.map((r) =>
        h('th', { scope: 'col' }, `batch ${r.key}: s1 + ${r.partner} (${r.tokens} tokens${padded ? ', padding counted' : ''})`)))),
      h('tbody', {},
        h('tr', {}, h('th', { scope: 'row' }, 'BatchNorm μ per feature'), ...results.map((r) => h('td', { class: 'num' }, row(r.mean)))),
        h('tr', {}, h('th', { scope: 'row' }, 'BatchNorm σ² per feature'), ...results.map((r) => h('td', { class: 'num' }, row(r.variance)))),
        h('tr', { 'data-bn': 'bn' }, h('th', { scope: 'row' }, 's1[0] after BatchNorm'), ...results.map((r) => h('td', { class: 'num', 'data-batch': r.key }, row(r.bn)))),
        h('tr', { 'data-bn': 'ln' }, h('th', { scope: 'row' }, 's1[0] after LayerNorm'), ...results.map((r) => h('td', { class: 'num', 'data-batch': r.key }, row(r.ln))))));
    this.verdict.textContent = `The same token, [1, 3, 5, 7]: BatchNorm’s output moves by up to ${fmt(moved)} when its ` +
      `batch-mate changes${padded ? ' (and the padding zeros pull every feature’s mean toward 0)' : ''}; LayerNorm’s ` +
      `moves by ${same === 0 ? '0' : fmt(same)} — it needs nothing but the token itself, whatever the batch or the lengths.`;
    this.host.emit('change', { section: 'batchnorm', padded, batches: results.map((r) => ({ key: r.key, partner: r.partner,
      bn: Array.from(r.bn), ln: Array.from(r.ln), mean: Array.from(r.mean), variance: Array.from(r.variance) })) });
  }
}
