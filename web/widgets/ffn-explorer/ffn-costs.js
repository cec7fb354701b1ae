// ffn-costs.js — <ffn-explorer>'s "shapes and costs" part: the FFN's tensor shapes, parameters, FLOPs and hidden
// memory, and one block's parameter breakdown (attention + FFN + two LayerNorms), all counted by the core
// (feedForwardCosts, blockParameters). Attention is counted under a stated bias convention, because the lessons use
// two: lesson 82's EncoderBlock has no bias at all (4d²), lesson LM4-T3 / the book a biased output projection (4d² + d).
// A helper of the element, not a custom element.
import { axisBottom, axisLeft } from 'd3-axis';
import { scaleBand } from 'd3-scale';

import { h } from '../kit/base.js';
import { chartWidth, createChart, naturalSize } from '../kit/chart-kit.js';
import { fieldError, fieldErrorText } from '../kit/field-error.js';
import { decimals } from './ffn-text.js';

const SIZE_NAMES = ['d', 'expansion', 'batch', 'tokens'];

/** 25165824 -> "25.2 million" in the port's language (only a rounding of the core's integer for reading). */
function words(port, n) {
  if (n >= 1e9) return port.t('ffn.costs.billion', { value: port.num(n / 1e9, 1) });
  if (n >= 1e6) return port.t('ffn.costs.million', { value: port.num(n / 1e6, 1) });
  if (n >= 1e3) return port.t('ffn.costs.thousand', { value: port.num(n / 1e3, 1) });
  return port.num(n);
}

// Which of attention's four d×d projections carry a bias, as the attributes qkv-bias and attn-out-bias say; the
// label, formula and note of each are the messages ffn.bias.<key>.label / .formula / .note.
export const BIAS_CONVENTIONS = {
  none: { qkv: false, out: false },
  out: { qkv: false, out: true },
  qkv: { qkv: true, out: false },
  all: { qkv: true, out: true },
};
const conventionOf = (qkv, out) => Object.keys(BIAS_CONVENTIONS)
  .find((k) => BIAS_CONVENTIONS[k].qkv === qkv && BIAS_CONVENTIONS[k].out === out);

// One-click sizes from the lessons (labels: the messages ffn.costs.preset.<id>).
const PRESETS = [
  { id: 'lesson82', attrs: { d: '8', expansion: '4', batch: '2', tokens: '5', 'qkv-bias': false, 'attn-out-bias': false } },
  { id: 'gpt2', attrs: { d: '768', expansion: '4', batch: '8', tokens: '1024', 'qkv-bias': false, 'attn-out-bias': true } },
];

/**
 * The cost inputs from attributes or form text, within the limits of the element's attribute metadata (`specs`:
 * attrSpecs()); throws an Error naming the bad one, in the language of `port` (the element's panel port).
 */
export function checkSizes({ d, expansion, batch, tokens }, specs, port) {
  const out = {};
  for (const [name, v] of Object.entries({ d, batch, tokens })) {
    const n = Number(v);
    const { min: lo, max: hi } = specs[name];
    if (!Number.isInteger(n) || n < lo || n > hi || String(v).trim() === '') {
      const symbol = { d: 'd', batch: 'B', tokens: 'n' }[name];
      throw Object.assign(new Error(port.t('ffn.costs.errWhole', { symbol, min: lo, max: hi, value: String(v) })), { field: name });
    }
    out[name] = n;
  }
  const e = Number(expansion);
  const { min: eLo, max: eHi } = specs.expansion;
  if (!Number.isFinite(e) || e < eLo || e > eHi || String(expansion).trim() === '') {
    throw Object.assign(new Error(port.t('ffn.costs.errExpansion', { min: eLo, max: eHi, value: String(expansion) })),
      { field: 'expansion' });
  }
  out.expansion = e;
  out.hidden = Math.max(1, Math.round(e * out.d)); // the hidden width the core is configured with
  return out;
}

export const COSTS_CSS = `
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(9.5rem, 1fr)); gap: 0.5rem 1rem; }
.grid label { display: grid; gap: 0.15rem; }
.stale-note { color: var(--bs-c2); font-weight: 600; }
.costs-body.stale { opacity: 0.55; }
.grid input { width: 100%; }
.flow { list-style: none; padding: 0; margin: 0.5rem 0; display: flex; flex-wrap: wrap; align-items: center; gap: 0.3rem; }
.flow li { background: var(--bs-panel); border: 1px solid var(--bs-border); border-radius: 6px; padding: 0.2rem 0.5rem; }
.flow li.arrow { background: none; border: none; padding: 0; color: var(--bs-muted); }
.flow .shape { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; white-space: nowrap; }
table.costs, table.breakdown { width: 100%; }
table.costs .formula, table.breakdown .formula { display: block; color: var(--bs-muted); font-weight: normal; font-size: 0.9em; }
table.costs .line { display: block; white-space: nowrap; }
table.costs th[scope="row"], table.breakdown th[scope="row"] { padding-top: 0.3rem; padding-bottom: 0.3rem; }
table.breakdown tfoot th, table.breakdown tfoot td { border-top: 2px solid var(--bs-border); }
.bias-row select { min-width: 0; max-width: 100%; }
.sum { font-weight: 600; }
`;

export class CostsSection {
  constructor(host) {
    this.host = host;
    const t = (key, params) => host.t(key, params);
    const specs = host.specs();
    const num = (name, label, help, props) => {
      const { min, max } = specs[name];
      const input = h('input', { type: 'number', id: `in-${name}`, name, inputmode: 'decimal', 'aria-describedby': 'status',
        min, max, step: 1, ...props });
      input.addEventListener('input', () => this.onSizeInput());
      // A cell of its own, so a field's error message (field-error.js) sits right under it.
      return h('div', { class: 'cell' }, h('label', { for: `in-${name}` }, h('span', {}, label, h('span', { class: 'muted' }, help)), input));
    };
    const grid = h('div', { class: 'grid' },
      num('d', 'd ', t('ffn.costs.dHelp')),
      num('expansion', `${t('ffn.costs.expansion')} `, t('ffn.costs.expansionHelp'), { step: 0.25 }),
      num('batch', 'B ', t('ffn.costs.batchHelp')),
      num('tokens', 'n ', t('ffn.costs.tokensHelp')));
    this.sizeInputs = Object.fromEntries(SIZE_NAMES.map((n) => [n, grid.querySelector(`#in-${n}`)]));
    this.staleNote = h('p', { class: 'stale-note', 'aria-live': 'polite', hidden: true });
    this.biasSelect = h('select', { id: 'attn-bias', 'aria-describedby': 'convention' },
      ...Object.keys(BIAS_CONVENTIONS).map((value) => h('option', { value }, t(`ffn.bias.${value}.label`))));
    this.ffnBias = h('input', { type: 'checkbox', id: 'ffn-bias', 'aria-describedby': 'convention' });
    this.ffnBias.addEventListener('change', () => this.host.set('ffn-bias', this.ffnBias.checked));
    this.biasSelect.addEventListener('change', () => {
      const c = BIAS_CONVENTIONS[this.biasSelect.value];
      this.setAttrs({ 'qkv-bias': c.qkv, 'attn-out-bias': c.out });
    });
    this.presets = h('div', { class: 'row presets', role: 'group', 'aria-label': t('ffn.costs.presetsLabel') },
      h('span', { class: 'muted' }, t('ffn.costs.presets')),
      ...PRESETS.map((p) => h('button', { type: 'button', 'data-preset': p.id, onclick: () => this.usePreset(p.attrs) },
        t(`ffn.costs.preset.${p.id}`))));
    this.flow = h('ol', { class: 'flow', 'aria-label': t('ffn.costs.flowLabel') });
    this.costTable = h('table', { class: 'costs' });
    this.dominance = h('p', { class: 'note dominance', 'aria-live': 'polite' });
    this.paramChart = h('div', { class: 'chart param-chart', 'data-predict': 'params',
      'data-predict-note': t('ffn.costs.chartHidden') });
    this.convention = h('p', { class: 'note convention', id: 'convention' });
    this.breakdown = h('table', { class: 'breakdown' });
    this.grid = grid;
    this.biasRow = h('div', { class: 'row bias-row' }, h('label', { for: 'attn-bias' }, t('ffn.costs.attnBias')), this.biasSelect,
      h('label', {}, this.ffnBias, ` ${t('ffn.costs.ffnBias')}`));
    // While a size field is invalid the numbers stay those of the last valid sizes, dimmed, and staleNote says so.
    this.body = h('div', { class: 'costs-body' }, this.flow,
      h('div', { class: 'pair' }, h('div', { class: 'scroll' }, this.costTable), this.paramChart),
      this.dominance,
      h('h4', {}, t('ffn.costs.blockTitle')),
      this.convention,
      h('div', { class: 'scroll' }, this.breakdown));
    this.nodes = [
      h('h4', {}, t('ffn.costs.title')),
      this.presets,
      grid,
      this.staleNote,
      this.biasRow,
      this.body,
    ];
  }

  /** A preset's sizes replace whatever the size fields held, invalid text included. */
  usePreset(attrs) {
    for (const el of Object.values(this.sizeInputs)) fieldError(el, null);
    this.markStale(false);
    this.setAttrs(attrs);
    for (const [n, el] of Object.entries(this.sizeInputs)) el.value = this.host.attr(n);
  }

  /** Sets several attributes (booleans as present/absent); the element recomputes once per change. */
  setAttrs(attrs) {
    for (const [name, v] of Object.entries(attrs)) {
      this.host.set(name, v);
    }
  }

  readSizes() {
    const specs = this.host.specs();
    const a = Object.fromEntries(SIZE_NAMES.map((n) => [n, this.host.attr(n)]));
    try {
      return { sizes: checkSizes(a, specs, this.host) };
    } catch (err) {
      const defaults = Object.fromEntries(SIZE_NAMES.map((n) => [n, specs[n].default]));
      return { sizes: this.sizes ?? checkSizes(defaults, specs, this.host), error: err.message };
    }
  }

  /**
   * The learner's sizes: each invalid field says why right under it (field-error.js); while one is, no size changes
   * and the numbers, those of the last valid sizes, are marked stale.
   */
  onSizeInput() {
    const a = Object.fromEntries(Object.entries(this.sizeInputs).map(([n, el]) => [n, el.value.trim()]));
    const valid = Object.fromEntries(SIZE_NAMES.map((n) => [n, this.host.attr(n)]));
    let ok = true;
    for (const [n, el] of Object.entries(this.sizeInputs)) {
      let problem = null;
      try {
        checkSizes({ ...valid, [n]: a[n] }, this.host.specs(), this.host);
      } catch (err) {
        problem = err.message;
      }
      ok = fieldError(el, problem, { after: el.closest('label') }) && ok;
    }
    this.markStale(!ok);
    if (ok) for (const [n, v] of Object.entries(a)) if (this.host.attr(n) !== v) this.host.set(n, v);
  }

  /** Marks the numbers as those of the last valid sizes (while a size field is invalid), or not. */
  markStale(stale) {
    this.body.classList.toggle('stale', stale);
    this.staleNote.hidden = !stale;
    const s = this.sizes;
    this.staleNote.textContent = stale && s ? this.host.t('ffn.costs.stale', { d: this.host.num(s.d),
      expansion: this.host.num(s.expansion), batch: this.host.num(s.batch), tokens: this.host.num(s.tokens) }) : '';
  }

  async update() {
    const host = this.host;
    const { sizes, error } = this.readSizes();
    const qkvBias = host.boolAttr('qkv-bias');
    const outBias = host.boolAttr('attn-out-bias');
    const ffnBias = host.boolAttr('ffn-bias');
    this.ffnBias.checked = ffnBias;
    const convention = conventionOf(qkvBias, outBias);
    this.biasSelect.value = convention;
    for (const [n, el] of Object.entries(this.sizeInputs)) {
      if (fieldErrorText(el) !== null) continue; // the learner's invalid text stays, with its message, until fixed
      const active = host.isFocused(el);
      if (!active || Number(el.value) !== sizes[n]) el.value = String(sizes[n]);
    }
    const seq = (this.seq = (this.seq ?? 0) + 1);
    let ff;
    let block;
    let flops;
    let flavour;
    try {
      const rt = await host.runtime();
      flavour = rt.flavour;
      const { d, hidden, batch, tokens } = sizes;
      // Counting needs no weights; one head always divides d (the counts do not depend on the head count).
      const blockConfig = { emb_dim: d, context_length: tokens, n_heads: 1, qkv_bias: qkvBias, attn_out_bias: outBias,
        ffn_hidden: hidden, ffn_bias: ffnBias };
      [ff, block, flops] = await Promise.all([
        rt.feedForwardCosts({ embDim: d, hiddenDim: hidden, batch, tokens, bias: ffnBias }),
        rt.blockParameters(blockConfig),
        rt.blockFlops(blockConfig, { tokens }),
      ]);
    } catch (err) {
      if (seq === this.seq) host.report(host.t('ffn.costs.error', { error: err.message }), { error: true });
      return;
    }
    if (seq !== this.seq) return;
    this.sizes = sizes;
    const share = block.feedForward / (block.attention + block.feedForward);
    this.costs = { ...sizes, qkvBias, outBias, ffnBias, convention, ff, block, flops, share, bytes: ff.hiddenEntries * 4 };
    this.draw();
    if (error) host.report(host.t('ffn.costs.badSizeAttr', { error }), { error: true });
    else host.report(host.t('ffn.status.computed', { flavour }));
    host.emit('change', {
      section: 'costs', d: sizes.d, expansion: sizes.expansion, hidden: sizes.hidden, batch: sizes.batch,
      tokens: sizes.tokens, qkvBias, attnOutBias: outBias, ffnBias, parameters: ff.parameters, attention: block.attention,
      attentionProjectionFlops: flops.attentionProjections, attentionScoreFlops: flops.attentionScores,
      ffnDominatesBelow: flops.ffnDominatesBelow,
      norms: block.norms, blockTotal: block.total, share, flopsPerToken: ff.flopsPerToken,
      hiddenEntries: ff.hiddenEntries, hiddenBytes: this.costs.bytes,
    });
  }

  draw() {
    const { d, hidden, batch, tokens, expansion, ff, block, share, bytes, convention, flops, ffnBias } = this.costs;
    const host = this.host;
    const t = (key, params) => host.t(key, params);
    const int = (v) => host.num(v);
    const pct = (p) => host.messages().percent(p, 1);
    const shape = (...dims) => h('span', { class: 'shape' }, `(${dims.map(int).join(', ')})`);
    const arrow = (text) => h('li', { class: 'arrow', 'aria-hidden': 'true' }, text);
    this.flow.replaceChildren(
      h('li', {}, 'x ', shape(batch, tokens, d)),
      arrow('→'),
      h('li', {}, 'GELU(W₁x + b₁) ', shape(batch, tokens, hidden)),
      arrow('→'),
      h('li', {}, 'W₂ · … + b₂ ', shape(batch, tokens, d)));
    const std = expansion === 4;
    const ffnFormula = std ? '8d² + 5d' : '2dh + h + d';
    const ffnNoBias = std ? '8d²' : '2dh';
    const rows = [
      [t('ffn.costs.row.hidden'), `${host.num(expansion)} · d`, int(hidden), 'hidden'],
      [t('ffn.costs.row.parameters'), ffnBias ? ffnFormula : t('ffn.costs.noBiases', { formula: ffnNoBias }),
        int(ff.parameters), 'parameters'],
      [t('ffn.costs.row.attention'), t(`ffn.bias.${convention}.formula`), int(block.attention), 'attention'],
      [t('ffn.costs.row.share'), t('ffn.costs.shareFormula'), pct(share), 'share'],
      [t('ffn.costs.row.flops'), std ? '2 · 8d² = 16d²' : '2 · 2dh = 4dh', int(ff.flopsPerToken), 'flops'],
      [t('ffn.costs.row.attentionFlops'), '2 · 4d² = 8d² (W_q, W_k, W_v, W_o)', int(flops.attentionProjections), 'attention-flops'],
      [t('ffn.costs.row.scoreFlops'), t('ffn.costs.scoreFormula', { n: tokens }), int(flops.attentionScores), 'score-flops'],
      [t('ffn.costs.row.entries'), t('ffn.costs.entriesFormula', { formula: std ? 'B · n · 4d' : 'B · n · h' }),
        [int(ff.hiddenEntries), ` (${words(host, ff.hiddenEntries)})`], 'entries'],
      [t('ffn.costs.row.bytes'), t('ffn.costs.bytesEach'), [t('ffn.costs.bytes', { bytes }),
        ` ${t('ffn.costs.bytesApprox', { mb: decimals(host, bytes / 1e6, 1), mib: decimals(host, bytes / 2 ** 20, 1) })}`], 'bytes'],
    ];
    this.costTable.replaceChildren(
      h('caption', { class: 'visually-hidden' }, t('ffn.costs.caption', { d })),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('ffn.costs.colQuantity')), h('th', { scope: 'col' }, t('ffn.costs.colValue')))),
      h('tbody', {}, ...rows.map(([q, f, v, key]) => h('tr', {},
        h('th', { scope: 'row' }, q, h('span', { class: 'formula' }, f)),
        h('td', { class: 'num', 'data-cost': key, 'data-predict': key === 'parameters' ? 'params' : null },
          ...[v].flat().map((line) => h('span', { class: 'line' }, line)))))));
    const attention = flops.attentionProjections + flops.attentionScores;
    const n2 = flops.ffnDominatesBelow;
    this.dominance.textContent = n2 > 0
      ? t(ff.flopsPerToken > attention ? 'ffn.costs.dominanceLarger' : 'ffn.costs.dominanceSmaller',
        { attention, below: n2, twoD: std ? ' = 2d' : '', n: tokens, ffn: ff.flopsPerToken })
      : t('ffn.costs.dominanceNever');
    this.drawBreakdown();
    this.drawChart();
    this.host.afterDraw?.();
  }

  drawBreakdown() {
    const { d, hidden, block, convention } = this.costs;
    const t = (key, params) => this.host.t(key, params);
    const int = (v) => this.host.num(v);
    this.convention.textContent = t('ffn.costs.convention', { note: t(`ffn.bias.${convention}.note`) });
    const row = (part, formula, value, key) => h('tr', {},
      h('th', { scope: 'row' }, part, h('span', { class: 'formula' }, formula)),
      h('td', { class: 'num', 'data-breakdown': key, 'data-predict': key === 'feed-forward' ? 'params' : null }, int(value)));
    this.breakdown.replaceChildren(
      h('caption', { class: 'visually-hidden' }, t('ffn.costs.blockCaption', { d, hidden })),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('ffn.costs.colPart')), h('th', { scope: 'col' }, t('ffn.costs.colParameters')))),
      h('tbody', {},
        row(t('ffn.costs.part.attention'), t(`ffn.bias.${convention}.formula`), block.attention, 'attention'),
        row(t('ffn.costs.part.feedForward'), 'd·h + h + h·d + d', block.feedForward, 'feed-forward'),
        row(t('ffn.costs.part.norms'), '2 · 2d', block.norms, 'norms')),
      h('tfoot', {}, h('tr', {},
        h('th', { scope: 'row' }, t('ffn.costs.part.block')),
        h('td', { class: 'num sum', 'data-breakdown': 'total', 'data-predict': 'params' },
          `${int(block.total)} = ${[block.attention, block.feedForward, block.norms].map(int).join(' + ')}`))));
  }

  redraw() {
    if (this.costs) this.drawChart();
  }

  drawChart() {
    const { block, share, d } = this.costs;
    const t = (key, params) => this.host.t(key, params);
    const pct = (p) => this.host.messages().percent(p, 1);
    const parts = [
      { key: 'attention', label: t('ffn.costs.bar.attention'), value: block.attention, share: 1 - share, color: 'var(--bs-c1)' },
      { key: 'feed-forward', label: t('ffn.costs.bar.feedForward'), value: block.feedForward, share, color: 'var(--bs-c3)' },
    ];
    this.paramChart.replaceChildren();
    const width = chartWidth(this.paramChart);
    const chart = createChart(this.paramChart, {
      width, height: 130, margin: { top: 8, right: 16, bottom: 44, left: 96 },
      xLabel: t('ffn.costs.chartX'), yLabel: '',
      title: t('ffn.costs.chartTitle'),
      description: t('ffn.costs.chartDesc', { d, attention: block.attention, ffn: block.feedForward, share: pct(share) }),
    });
    naturalSize(chart, width, 130);
    chart.x.domain([0, block.attention + block.feedForward]);
    const y = scaleBand().domain(parts.map((p) => p.label)).range([0, chart.innerH]).padding(0.25);
    chart.root.select('.x-axis').call(axisBottom(chart.x).ticks(Math.max(2, Math.round(chart.innerW / 90)), '~s'));
    chart.root.select('.y-axis').call(axisLeft(y).tickSizeOuter(0));
    const g = chart.plot.selectAll('g.bar').data(parts).join('g').attr('class', 'bar')
      .attr('transform', (p) => `translate(0,${y(p.label)})`);
    g.append('rect').attr('height', y.bandwidth()).attr('width', (p) => chart.x(p.value)).attr('fill', (p) => p.color)
      .attr('data-part', (p) => p.key);
    g.append('text').attr('x', (p) => chart.x(p.value) + 6).attr('y', y.bandwidth() / 2).attr('dy', '0.35em')
      .text((p) => pct(p.share));
  }
}
