// ffn-costs.js — <ffn-explorer>'s "shapes and costs" part: the FFN's tensor shapes, parameters, FLOPs and hidden
// memory, and one block's parameter breakdown (attention + FFN + two LayerNorms), all counted by the core
// (feedForwardCosts, blockParameters). Attention is counted under a stated bias convention, because the lessons use
// two: lesson 82's EncoderBlock has no bias at all (4d²), lesson LM4-T3 / the book a biased output projection (4d² + d).
// A helper of the element, not a custom element.
import { axisBottom, axisLeft } from 'd3-axis';
import { scaleBand } from 'd3-scale';

import { h } from '../kit/base.js';
import { chartWidth, createChart, naturalSize } from '../kit/chart-kit.js';

const SIZE_NAMES = ['d', 'expansion', 'batch', 'tokens'];

export const int = new Intl.NumberFormat('en-US');
const one = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 });
const plain = new Intl.NumberFormat('en-US', { maximumFractionDigits: 4 });
export const pct = (p) => `${one.format(100 * p)}%`;
/** 25165824 -> "25.2 million" (only a rounding of the core's integer for reading). */
function words(n) {
  if (n >= 1e9) return `${one.format(n / 1e9)} billion`;
  if (n >= 1e6) return `${one.format(n / 1e6)} million`;
  if (n >= 1e3) return `${one.format(n / 1e3)} thousand`;
  return int.format(n);
}

// Which of attention's four d×d projections carry a bias, as the attributes qkv-bias and attn-out-bias say.
export const BIAS_CONVENTIONS = {
  none: { qkv: false, out: false, label: 'none (lesson 82’s EncoderBlock)', formula: '4d² (no biases)',
    note: 'Lesson 82’s EncoderBlock: Wq, Wk, Wv and Wo are all nn.Linear(d, d, bias=False), so attention has 4d² ' +
      'parameters (256 at d = 8).' },
  out: { qkv: false, out: true, label: 'W_o only (lesson LM4-T3, the book)', formula: '4d² + d (out_proj bias)',
    note: 'Lesson LM4-T3 and the book’s MultiHeadAttention with qkv_bias=False: W_query, W_key, W_value without ' +
      'bias, out_proj with one, so attention has 4d² + d parameters (2,360,064 at d = 768).' },
  qkv: { qkv: true, out: false, label: 'W_q, W_k, W_v only', formula: '4d² + 3d (Q, K, V biases)',
    note: 'Biases on W_query, W_key and W_value but none on the output projection: 4d² + 3d.' },
  all: { qkv: true, out: true, label: 'all four (GPT-2’s released weights)', formula: '4d² + 4d (all biases)',
    note: 'Every projection has a bias, as in OpenAI’s GPT-2 weights (qkv_bias=True): 4d² + 4d.' },
};
const conventionOf = (qkv, out) => Object.keys(BIAS_CONVENTIONS)
  .find((k) => BIAS_CONVENTIONS[k].qkv === qkv && BIAS_CONVENTIONS[k].out === out);

// One-click sizes from the lessons.
const PRESETS = [
  { id: 'lesson82', label: 'Lesson 82: EncoderBlock(8, 2, 32)',
    attrs: { d: '8', expansion: '4', batch: '2', tokens: '5', 'qkv-bias': false, 'attn-out-bias': false } },
  { id: 'gpt2', label: 'Lesson LM4-T3: GPT-2 small, d = 768',
    attrs: { d: '768', expansion: '4', batch: '8', tokens: '1024', 'qkv-bias': false, 'attn-out-bias': true } },
];

/**
 * The cost inputs from attributes or form text, within the limits of the element's attribute metadata (`specs`:
 * attrSpecs()); throws an Error naming the bad one.
 */
export function checkSizes({ d, expansion, batch, tokens }, specs) {
  const out = {};
  for (const [name, v] of Object.entries({ d, batch, tokens })) {
    const n = Number(v);
    const { min: lo, max: hi } = specs[name];
    if (!Number.isInteger(n) || n < lo || n > hi || String(v).trim() === '') {
      const symbol = { d: 'd', batch: 'B', tokens: 'n' }[name];
      throw Object.assign(new Error(`${symbol} must be a whole number from ${lo} to ${int.format(hi)}, got "${v}"`), { field: name });
    }
    out[name] = n;
  }
  const e = Number(expansion);
  const { min: eLo, max: eHi } = specs.expansion;
  if (!Number.isFinite(e) || e < eLo || e > eHi || String(expansion).trim() === '') {
    throw Object.assign(new Error(`the expansion factor must be a number from ${eLo} to ${eHi}, got "${expansion}"`),
      { field: 'expansion' });
  }
  out.expansion = e;
  out.hidden = Math.max(1, Math.round(e * out.d)); // the hidden width the core is configured with
  return out;
}

export const COSTS_CSS = `
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(9.5rem, 1fr)); gap: 0.5rem 1rem; }
.grid label { display: grid; gap: 0.15rem; }
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
    const specs = host.specs();
    const num = (name, label, help, props) => {
      const { min, max } = specs[name];
      const input = h('input', { type: 'number', id: `in-${name}`, name, inputmode: 'decimal', 'aria-describedby': 'status',
        min, max, step: 1, ...props });
      input.addEventListener('input', () => this.onSizeInput());
      return h('label', { for: `in-${name}` }, h('span', {}, label, h('span', { class: 'muted' }, help)), input);
    };
    const grid = h('div', { class: 'grid' },
      num('d', 'd ', '(model width)'),
      num('expansion', 'expansion ', '(h = expansion · d)', { step: 0.25 }),
      num('batch', 'B ', '(sequences)'),
      num('tokens', 'n ', '(tokens each)'));
    this.sizeInputs = Object.fromEntries(SIZE_NAMES.map((n) => [n, grid.querySelector(`#in-${n}`)]));
    this.biasSelect = h('select', { id: 'attn-bias', 'aria-describedby': 'convention' },
      ...Object.entries(BIAS_CONVENTIONS).map(([value, c]) => h('option', { value }, c.label)));
    this.ffnBias = h('input', { type: 'checkbox', id: 'ffn-bias', 'aria-describedby': 'convention' });
    this.ffnBias.addEventListener('change', () => this.host.set('ffn-bias', this.ffnBias.checked));
    this.biasSelect.addEventListener('change', () => {
      const c = BIAS_CONVENTIONS[this.biasSelect.value];
      this.setAttrs({ 'qkv-bias': c.qkv, 'attn-out-bias': c.out });
    });
    const presets = h('div', { class: 'row presets', role: 'group', 'aria-label': 'Sizes from the lessons' },
      h('span', { class: 'muted' }, 'Sizes from the lessons:'),
      ...PRESETS.map((p) => h('button', { type: 'button', 'data-preset': p.id, onclick: () => this.setAttrs(p.attrs) }, p.label)));
    this.flow = h('ol', { class: 'flow', 'aria-label': 'Tensor shapes through the feed-forward network' });
    this.costTable = h('table', { class: 'costs' });
    this.dominance = h('p', { class: 'note dominance', 'aria-live': 'polite' });
    this.paramChart = h('div', { class: 'chart param-chart', 'data-predict': 'params',
      'data-predict-note': 'The parameter chart appears once you have predicted the count.' });
    this.convention = h('p', { class: 'note convention', id: 'convention' });
    this.breakdown = h('table', { class: 'breakdown' });
    this.nodes = [
      h('h4', {}, 'Shapes and costs'),
      presets,
      grid,
      h('div', { class: 'row bias-row' }, h('label', { for: 'attn-bias' }, 'Biases in attention’s projections'), this.biasSelect,
        h('label', {}, this.ffnBias, ' biases in the FFN (b₁, b₂)')),
      this.flow,
      h('div', { class: 'pair' }, h('div', { class: 'scroll' }, this.costTable), this.paramChart),
      this.dominance,
      h('h4', {}, 'One block’s parameters'),
      this.convention,
      h('div', { class: 'scroll' }, this.breakdown),
    ];
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
      return { sizes: checkSizes(a, specs) };
    } catch (err) {
      const defaults = Object.fromEntries(SIZE_NAMES.map((n) => [n, specs[n].default]));
      return { sizes: this.sizes ?? checkSizes(defaults, specs), error: err.message };
    }
  }

  onSizeInput() {
    const a = Object.fromEntries(Object.entries(this.sizeInputs).map(([n, el]) => [n, el.value.trim()]));
    for (const el of Object.values(this.sizeInputs)) el.removeAttribute('aria-invalid');
    try {
      checkSizes(a, this.host.specs());
    } catch (err) {
      this.sizeInputs[err.field]?.setAttribute('aria-invalid', 'true');
      this.host.report(`Check the sizes: ${err.message} — showing the last valid sizes.`, { error: true });
      return;
    }
    for (const [n, v] of Object.entries(a)) if (this.host.attr(n) !== v) this.host.set(n, v);
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
      if (seq === this.seq) host.report(`Could not compute the costs: ${err.message}`, { error: true });
      return;
    }
    if (seq !== this.seq) return;
    this.sizes = sizes;
    const share = block.feedForward / (block.attention + block.feedForward);
    this.costs = { ...sizes, qkvBias, outBias, ffnBias, convention, ff, block, flops, share, bytes: ff.hiddenEntries * 4 };
    this.draw();
    if (error) host.report(`${error} — showing the last valid sizes.`, { error: true });
    else host.report(`Computed by the core (wasm ${flavour}).`);
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
    const shape = (...dims) => h('span', { class: 'shape' }, `(${dims.map((v) => int.format(v)).join(', ')})`);
    const arrow = (text) => h('li', { class: 'arrow', 'aria-hidden': 'true' }, text);
    this.flow.replaceChildren(
      h('li', {}, 'x ', shape(batch, tokens, d)),
      arrow('→'),
      h('li', {}, 'GELU(W₁x + b₁) ', shape(batch, tokens, hidden)),
      arrow('→'),
      h('li', {}, 'W₂ · … + b₂ ', shape(batch, tokens, d)));
    const std = expansion === 4;
    const c = BIAS_CONVENTIONS[convention];
    const rows = [
      ['hidden width h', `${plain.format(expansion)} · d`, int.format(hidden), 'hidden'],
      ['FFN parameters', ffnBias ? (std ? '8d² + 5d' : '2dh + h + d') : (std ? '8d² (no biases)' : '2dh (no biases)'),
        int.format(ff.parameters), 'parameters'],
      ['attention parameters', c.formula, int.format(block.attention), 'attention'],
      ['FFN share of the two sublayers', 'FFN / (attention + FFN)', pct(share), 'share'],
      ['FLOPs per token', std ? '2 · 8d² = 16d²' : '2 · 2dh = 4dh', int.format(ff.flopsPerToken), 'flops'],
      ['attention projections, FLOPs per token', '2 · 4d² = 8d² (W_q, W_k, W_v, W_o)', int.format(flops.attentionProjections), 'attention-flops'],
      ['attention scores and mixing, per token', `4nd at n = ${int.format(tokens)} (QKᵀ and weights · V)`, int.format(flops.attentionScores), 'score-flops'],
      ['hidden activations', std ? 'B · n · 4d entries' : 'B · n · h entries', [int.format(ff.hiddenEntries), ` (${words(ff.hiddenEntries)})`], 'entries'],
      ['… in float32', '4 bytes each', [`${int.format(bytes)} bytes`, ` ≈ ${one.format(bytes / 1e6)} MB (${one.format(bytes / 2 ** 20)} MiB)`], 'bytes'],
    ];
    this.costTable.replaceChildren(
      h('caption', { class: 'visually-hidden' }, `Feed-forward costs at d = ${d}, computed by the core`),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'quantity (formula)'), h('th', { scope: 'col' }, 'value (core)'))),
      h('tbody', {}, ...rows.map(([q, f, v, key]) => h('tr', {},
        h('th', { scope: 'row' }, q, h('span', { class: 'formula' }, f)),
        h('td', { class: 'num', 'data-cost': key, 'data-predict': key === 'parameters' ? 'params' : null },
          ...[v].flat().map((line) => h('span', { class: 'line' }, line)))))));
    const attention = flops.attentionProjections + flops.attentionScores;
    const n2 = flops.ffnDominatesBelow;
    this.dominance.textContent = n2 > 0
      ? `The FFN costs more FLOPs per token than all of attention (projections + scores = ${int.format(attention)}) ` +
        `while the sequence is shorter than ${int.format(n2)} tokens${std ? ' = 2d' : ''}: at n = ${int.format(tokens)} the FFN ` +
        `is ${ff.flopsPerToken > attention ? 'the larger cost' : 'no longer the larger cost'} (${int.format(ff.flopsPerToken)} ` +
        `against ${int.format(attention)}). FLOPs do not depend on the biases.`
      : 'At this width the FFN never costs more FLOPs per token than attention.';
    this.drawBreakdown();
    this.drawChart();
    this.host.afterDraw?.();
  }

  drawBreakdown() {
    const { d, hidden, block, convention } = this.costs;
    const c = BIAS_CONVENTIONS[convention];
    this.convention.textContent = `Attention counted as: ${c.note} Change it with the bias menu above.`;
    const row = (part, formula, value, key) => h('tr', {},
      h('th', { scope: 'row' }, part, h('span', { class: 'formula' }, formula)),
      h('td', { class: 'num', 'data-breakdown': key, 'data-predict': key === 'feed-forward' ? 'params' : null }, int.format(value)));
    this.breakdown.replaceChildren(
      h('caption', { class: 'visually-hidden' }, `Parameters of one transformer block at d = ${d}, h = ${hidden}, counted by the core`),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'part (formula)'), h('th', { scope: 'col' }, 'parameters (core)'))),
      h('tbody', {},
        row('attention: W_q, W_k, W_v, W_o', c.formula, block.attention, 'attention'),
        row('feed-forward: Linear(d, h), Linear(h, d)', 'd·h + h + h·d + d', block.feedForward, 'feed-forward'),
        row('two LayerNorms (γ and β each)', '2 · 2d', block.norms, 'norms')),
      h('tfoot', {}, h('tr', {},
        h('th', { scope: 'row' }, 'one block'),
        h('td', { class: 'num sum', 'data-breakdown': 'total', 'data-predict': 'params' },
          `${int.format(block.total)} = ${[block.attention, block.feedForward, block.norms].map((v) => int.format(v)).join(' + ')}`))));
  }

  redraw() {
    if (this.costs) this.drawChart();
  }

  drawChart() {
    const { block, share, d } = this.costs;
    const parts = [
      { key: 'attention', label: 'attention', value: block.attention, share: 1 - share, color: 'var(--bs-c1)' },
      { key: 'feed-forward', label: 'feed-forward', value: block.feedForward, share, color: 'var(--bs-c3)' },
    ];
    this.paramChart.replaceChildren();
    const width = chartWidth(this.paramChart);
    const chart = createChart(this.paramChart, {
      width, height: 130, margin: { top: 8, right: 16, bottom: 44, left: 96 },
      xLabel: 'parameters (k = thousand, M = million)', yLabel: '',
      title: 'Parameters of the block’s two sublayers',
      description: `At d = ${d}: attention ${int.format(block.attention)}, feed-forward ${int.format(block.feedForward)} ` +
        `parameters; the feed-forward network holds ${pct(share)} of the two.`,
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
