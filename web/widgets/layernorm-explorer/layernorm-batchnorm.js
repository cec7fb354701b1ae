// layernorm-batchnorm.js — <layernorm-explorer>'s "LayerNorm vs BatchNorm, for real" (seed 001 §7): the same first
// token of sequence s1 normalized in two batches whose other sequence differs in content and length. BatchNorm takes
// each feature's statistics over every token of the batch (with the zero padding a batch of variable-length
// sequences carries, as nn.BatchNorm1d sees it, or without), so that token's output moves with its batch-mates;
// LayerNorm takes them over the token's own features and gives the same output in both. The core computes both:
// BatchNorm's training-mode statistics are LayerNorm's over the other axis (the wrong-axis computation of
// mistakes.hpp), over the batch's stacked tokens. A helper of the element, not a custom element.
import { h } from '../kit/base.js';
import { vectorText } from './layernorm-rows.js';

export const SEQUENCES = {
  s1: [[1, 3, 5, 7], [2, 2, 2, 6], [0, 4, 4, 0], [3, 1, 1, 3]],
  s2: [[10, 20, 30, 40], [5, 5, 5, 5]],
  s3: [[-1, 0, 1, 2]],
};
const BATCHES = [{ key: 'A', partner: 's2' }, { key: 'B', partner: 's3' }];
const D = 4;

export class BatchNormPanel {
  /** host: the element's panelPort (t, num, runtime, emit). */
  constructor(host) {
    this.host = host;
    const t = (key, params) => host.t(key, params);
    this.padding = h('input', { type: 'checkbox', id: 'bn-padding', checked: true });
    this.padding.addEventListener('change', () => this.update());
    this.table = h('table', { class: 'bn-table' });
    this.verdict = h('p', { class: 'bn-verdict', 'aria-live': 'polite' });
    /** What the learner operates (the element's control group "padding"). */
    this.control = h('label', {}, this.padding, ` ${t('layernorm.bn.padding')}`);
    this.root = h('details', { class: 'batchnorm', part: 'batchnorm' },
      h('summary', {}, t('layernorm.bn.summary')),
      h('p', { class: 'muted' }, t('layernorm.bn.intro')),
      this.control,
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
    const host = this.host;
    const t = (key, params) => host.t(key, params);
    const row = (v) => vectorText(host, v);
    const cell = (values, props = {}) => h('td', { class: 'num', ...props }, row(values));
    this.table.replaceChildren(
      h('caption', { class: 'visually-hidden' }, t('layernorm.bn.caption')),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, ''), ...results.map((r) => h('th', { scope: 'col' },
        t(padded ? 'layernorm.bn.batchPadded' : 'layernorm.bn.batch', { key: r.key, partner: r.partner, count: r.tokens }))))),
      h('tbody', {},
        h('tr', {}, h('th', { scope: 'row' }, t('layernorm.bn.mean')), ...results.map((r) => cell(r.mean))),
        h('tr', {}, h('th', { scope: 'row' }, t('layernorm.bn.variance')), ...results.map((r) => cell(r.variance))),
        h('tr', { 'data-bn': 'bn' }, h('th', { scope: 'row' }, t('layernorm.bn.afterBatchNorm')),
          ...results.map((r) => cell(r.bn, { 'data-batch': r.key }))),
        h('tr', { 'data-bn': 'ln' }, h('th', { scope: 'row' }, t('layernorm.bn.afterLayerNorm')),
          ...results.map((r) => cell(r.ln, { 'data-batch': r.key })))));
    this.verdict.textContent = t(padded ? 'layernorm.bn.verdictPadded' : 'layernorm.bn.verdict',
      { moved: host.num(moved, 4), same: same === 0 ? host.num(0) : host.num(same, 4) });
    this.host.emit('change', { section: 'batchnorm', padded, batches: results.map((r) => ({ key: r.key, partner: r.partner,
      bn: Array.from(r.bn), ln: Array.from(r.ln), mean: Array.from(r.mean), variance: Array.from(r.variance) })) });
  }
}
