// <ffn-explorer> — the transformer block's feed-forward network (lesson LM4-T3, book §4.3): its shapes
// (B, n, d) -> (B, n, h = expansion·d) -> (B, n, d), its parameters, share of the block, FLOPs and hidden-activation
// memory; histograms of real hidden values before and after GELU from a small seeded GPT; and a position-wise
// check: change one token and only that position's output moves. Every number shown is computed by the core.
// Attributes: d (768), expansion (4), batch (8), tokens (1024), qkv-bias (false: the lesson's attention without
//   Q/K/V biases, 4d² + d), prompt (the text whose UTF-8 bytes feed the GPT), layer (1: the block whose FFN is
//   shown), demo (the position-wise tokens: ";" between tokens, "," between features).
// Events: blockscope-change {section: 'costs', d, expansion, hidden, batch, tokens, parameters, attention, share,
//   flopsPerToken, hiddenEntries, hiddenBytes} | {section: 'hidden', layer, T, hidden, pre, post (summaries)} |
//   {section: 'positionwise', outputs, changedInputs, changedOutputs, maxDelta}, blockscope-ready.
import { bin, extent, max } from 'd3-array';
import { axisBottom, axisLeft } from 'd3-axis';
import { scaleBand } from 'd3-scale';

import { BlockscopeElement, createChart, define, fmt, h, parseNumbers } from './base.js';
import { chartWidth, groupedBars, KIT_CSS, legend, naturalSize, watchWidth } from './chart-kit.js';

const DEFAULT_PROMPT = 'Attention moves information between tokens. The feed-forward layer then thinks about each token by itself.';
const DEFAULT_DEMO = '1, 0, -1, 0.5; 0.5, -0.5, 1, 2; -1, 2, 0, 1';
// A small GPT with random (seeded) weights: byte-level vocabulary, so a prompt's UTF-8 bytes are its token ids.
const GPT_CONFIG = { vocab_size: 256, context_length: 256, emb_dim: 32, n_heads: 4, n_layers: 2, drop_rate: 0, qkv_bias: false };
const SEED = 123;
const DEMO_EXPANSION = 4;
const MAX_DEMO_TOKENS = 8;
const MAX_DEMO_FEATURES = 16;
const LIMITS = { d: [1, 65536], batch: [1, 1 << 20], tokens: [1, 1 << 20] };

const int = new Intl.NumberFormat('en-US');
const one = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 });
const plain = new Intl.NumberFormat('en-US', { maximumFractionDigits: 4 });
/** 25165824 -> "25.2 million" (only a rounding of the core's integer for reading). */
function words(n) {
  if (n >= 1e9) return `${one.format(n / 1e9)} billion`;
  if (n >= 1e6) return `${one.format(n / 1e6)} million`;
  if (n >= 1e3) return `${one.format(n / 1e3)} thousand`;
  return int.format(n);
}
const pct = (p) => `${one.format(100 * p)}%`;
/** A change between two core outputs: exactly 0, or its size (tiny ones in scientific notation). */
const delta = (v) => (v === 0 ? '0' : v >= 1e-4 ? fmt(v) : v.toExponential(2));

const CSS = `
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(9.5rem, 1fr)); gap: 0.5rem 1rem; }
.grid label { display: grid; gap: 0.15rem; }
.grid input { width: 100%; }
input[aria-invalid="true"] { border-color: var(--bs-c2); outline: 2px solid var(--bs-c2); }
.flow { list-style: none; padding: 0; margin: 0.5rem 0; display: flex; flex-wrap: wrap; align-items: center; gap: 0.3rem; }
.flow li { background: var(--bs-panel); border: 1px solid var(--bs-border); border-radius: 6px; padding: 0.2rem 0.5rem; }
.flow li.arrow { background: none; border: none; padding: 0; color: var(--bs-muted); }
.flow .shape { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; white-space: nowrap; }
table.costs { width: 100%; }
table.costs .formula { display: block; color: var(--bs-muted); font-weight: normal; font-size: 0.9em; }
table.costs .line { display: block; white-space: nowrap; }
table.costs th[scope="row"] { padding-top: 0.3rem; padding-bottom: 0.3rem; }
.caption { font-size: 0.9rem; color: var(--bs-muted); margin: 0.6rem 0 0; }
.token-row { display: flex; gap: 0.4rem; align-items: center; margin: 0.3rem 0; }
.token-row label { min-width: 5.2rem; }
.token-row input { flex: 1 1 0; min-width: 0; width: 100%; max-width: 36rem; }
.token-row button { padding: 0.2rem 0.5rem; }
.prompt-row { display: grid; gap: 0.15rem; }
.prompt-row input { width: 100%; max-width: 44rem; }
.report { min-height: 1.45em; }
details summary { cursor: pointer; color: var(--bs-accent); margin: 0.3rem 0; }
`;

/** Parses "1, 0; 2, 3" into equal-length rows; throws an Error naming the offending token. */
export function parseDemo(text) {
  const parts = String(text).split(/[;|\n]/).map((s) => s.trim()).filter(Boolean);
  if (parts.length === 0) throw new Error('enter at least one token vector');
  return checkDemo(parts.map((p, t) => {
    try {
      return parseNumbers(p);
    } catch (err) {
      throw new Error(`position ${t + 1}: ${err.message}`);
    }
  }));
}
function checkDemo(rows) {
  if (rows.length > MAX_DEMO_TOKENS) throw new Error(`at most ${MAX_DEMO_TOKENS} positions, got ${rows.length}`);
  const d = rows[0].length;
  if (d > MAX_DEMO_FEATURES) throw new Error(`at most ${MAX_DEMO_FEATURES} features per token, got ${d}`);
  rows.forEach((r, t) => {
    if (r.length !== d) throw new Error(`position ${t + 1} has ${r.length} features but position 1 has ${d}`);
  });
  return rows;
}
const sameRow = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);

/** The cost inputs from attributes or form text; throws an Error naming the bad one. */
function checkSizes({ d, expansion, batch, tokens }) {
  const out = {};
  for (const [name, v] of Object.entries({ d, batch, tokens })) {
    const n = Number(v);
    const [lo, hi] = LIMITS[name];
    if (!Number.isInteger(n) || n < lo || n > hi || String(v).trim() === '') {
      const symbol = { d: 'd', batch: 'B', tokens: 'n' }[name];
      throw Object.assign(new Error(`${symbol} must be a whole number from ${lo} to ${int.format(hi)}, got "${v}"`), { field: name });
    }
    out[name] = n;
  }
  const e = Number(expansion);
  if (!Number.isFinite(e) || e <= 0 || e > 64 || String(expansion).trim() === '') {
    throw Object.assign(new Error(`the expansion factor must be a number above 0 and at most 64, got "${expansion}"`),
      { field: 'expansion' });
  }
  out.expansion = e;
  out.hidden = Math.max(1, Math.round(e * out.d)); // the hidden width the core is configured with
  return out;
}

export class FeedForwardExplorer extends BlockscopeElement {
  static attrs = { d: 768, expansion: 4, batch: 8, tokens: 1024, 'qkv-bias': false, prompt: DEFAULT_PROMPT, layer: 1, demo: DEFAULT_DEMO };

  setup() {
    const s = this.shadowRoot;
    s.append(h('style', {}, KIT_CSS + CSS));
    const num = (name, label, help, props) => {
      const input = h('input', { type: 'number', id: `in-${name}`, name, inputmode: 'decimal', 'aria-describedby': 'status', ...props });
      input.addEventListener('input', () => this.onSizeInput());
      return h('label', { for: `in-${name}` }, h('span', {}, label, h('span', { class: 'muted' }, help)), input);
    };
    this.sizeInputs = {};
    const grid = h('div', { class: 'grid' },
      num('d', 'd ', '(model width)', { min: '1', step: '1' }),
      num('expansion', 'expansion ', '(h = expansion · d)', { min: '0.25', step: '0.25' }),
      num('batch', 'B ', '(sequences)', { min: '1', step: '1' }),
      num('tokens', 'n ', '(tokens each)', { min: '1', step: '1' }));
    for (const name of ['d', 'expansion', 'batch', 'tokens']) this.sizeInputs[name] = grid.querySelector(`#in-${name}`);
    this.qkvBox = h('input', { type: 'checkbox', id: 'qkv-bias' });
    this.qkvBox.addEventListener('change', () => this.toggle('qkv-bias', this.qkvBox.checked));
    this.flow = h('ol', { class: 'flow', 'aria-label': 'Tensor shapes through the feed-forward network' });
    this.costTable = h('table', { class: 'costs' });
    this.paramChart = h('div', { class: 'chart param-chart' });

    this.promptInput = h('input', { type: 'text', id: 'prompt', spellcheck: 'false', autocomplete: 'off', 'aria-describedby': 'hidden-summary' });
    this.promptInput.addEventListener('input', () => {
      if (this.promptInput.value.length === 0) {
        this.promptInput.setAttribute('aria-invalid', 'true');
        this.status('Enter at least one character — showing the last prompt’s hidden values.', { error: true });
      } else {
        this.promptInput.removeAttribute('aria-invalid');
        this.setAttribute('prompt', this.promptInput.value);
      }
    });
    this.layerSelect = h('select', { id: 'layer' },
      ...Array.from({ length: GPT_CONFIG.n_layers }, (_, i) => h('option', { value: String(i + 1) }, `block ${i + 1}`)));
    this.layerSelect.addEventListener('change', () => this.setAttribute('layer', this.layerSelect.value));
    this.hiddenSummary = h('p', { id: 'hidden-summary', 'aria-live': 'polite' });
    this.histLegend = h('div');
    this.histPre = h('div', { class: 'chart hist-pre' });
    this.histPost = h('div', { class: 'chart hist-post' });
    this.histTable = h('table', { class: 'hist-table' });

    this.demoList = h('div', { class: 'demo-tokens' });
    this.demoInfo = h('p', { class: 'muted demo-info' });
    this.demoReport = h('p', { class: 'report', 'aria-live': 'polite' });
    this.demoTable = h('table', { class: 'demo-out' });
    this.deltaChart = h('div', { class: 'chart delta-chart' });

    s.append(
      h('h3', {}, 'The feed-forward network: expand, GELU, project back'),
      h('p', { class: 'muted' }, 'FFN(x) = W₂ · GELU(W₁x + b₁) + b₂, applied to every token on its own. ',
        'Every number below is computed by the Blockscope core.'),
      h('h4', {}, 'Shapes and costs'),
      grid,
      h('div', { class: 'row' }, h('label', {}, this.qkvBox, ' attention’s Q, K, V projections have biases')),
      this.flow,
      h('div', { class: 'pair' }, h('div', { class: 'scroll' }, this.costTable), this.paramChart),
      h('h4', {}, 'Hidden values before and after GELU'),
      h('p', { class: 'muted' }, `A small GPT with random weights (seed ${SEED}): byte-level vocabulary of ${GPT_CONFIG.vocab_size}, `,
        `d = ${GPT_CONFIG.emb_dim}, ${GPT_CONFIG.n_layers} blocks, ${GPT_CONFIG.n_heads} heads, hidden width `,
        `h = ${4 * GPT_CONFIG.emb_dim}. The prompt’s UTF-8 bytes are the token ids; the histograms count the FFN’s `,
        'hidden values (W₁x + b₁) before GELU and after it, over all tokens.'),
      h('div', { class: 'prompt-row' }, h('label', { for: 'prompt' }, 'Prompt'), this.promptInput),
      h('div', { class: 'row' }, h('label', { for: 'layer' }, 'FFN of'), this.layerSelect),
      this.hiddenSummary,
      this.histLegend,
      h('div', { class: 'pair even' }, this.histPre, this.histPost),
      h('details', {}, h('summary', {}, 'Histogram counts as a table'), h('div', { class: 'scroll' }, this.histTable)),
      h('h4', {}, 'Position-wise: each token on its own'),
      this.demoInfo,
      this.demoList,
      this.demoReport,
      h('div', { class: 'pair' },
        h('div', { class: 'scroll' }, this.demoTable),
        h('div', {}, h('p', { class: 'caption', 'aria-hidden': 'true' }, 'Change of each position’s output after your last edit'),
          this.deltaChart)),
      h('p', { class: 'status', role: 'status', id: 'status' }, 'Loading the core…'),
    );
    this.unwatch = watchWidth(this, () => this.redraw());
  }

  toggle(name, on) {
    if (on) this.setAttribute(name, '');
    else this.removeAttribute(name);
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    // Free the wasm objects; they are created again if the element comes back.
    this.gpt?.dispose();
    this.gpt = null;
    this.ffn?.dispose();
    this.ffn = null;
  }

  async start() {
    await Promise.all([this.updateCosts(), this.updateHidden(), this.updateDemo()]);
    if (!this.readySent) {
      this.readySent = true;
      this.emit('ready', {});
    }
  }

  attributeChanged(name) {
    if (!this.costTable) return; // URL-hash attributes arrive before setup(); start() reads them anyway
    if (['d', 'expansion', 'batch', 'tokens', 'qkv-bias'].includes(name)) this.updateCosts();
    else if (name === 'prompt' || name === 'layer') this.updateHidden();
    else if (name === 'demo') this.updateDemo();
  }

  redraw() {
    if (this.costs) this.drawCostChart();
    if (this.acts) this.drawHistograms();
    if (this.demo) this.drawDeltaChart();
  }

  report(message, { error = false } = {}) {
    this.status(message, { error });
  }

  // ---- shapes and costs ----

  readSizes() {
    const a = Object.fromEntries(['d', 'expansion', 'batch', 'tokens'].map((n) => [n, this.attr(n)]));
    try {
      return { sizes: checkSizes(a) };
    } catch (err) {
      return { sizes: this.sizes ?? checkSizes(FeedForwardExplorer.attrs), error: err.message };
    }
  }

  onSizeInput() {
    const a = Object.fromEntries(Object.entries(this.sizeInputs).map(([n, el]) => [n, el.value.trim()]));
    for (const el of Object.values(this.sizeInputs)) el.removeAttribute('aria-invalid');
    try {
      checkSizes(a);
    } catch (err) {
      this.sizeInputs[err.field]?.setAttribute('aria-invalid', 'true');
      this.report(`Check the sizes: ${err.message} — showing the last valid sizes.`, { error: true });
      return;
    }
    for (const [n, v] of Object.entries(a)) if (this.attr(n) !== v) this.setAttribute(n, v);
  }

  async updateCosts() {
    const { sizes, error } = this.readSizes();
    const qkvBias = this.boolAttr('qkv-bias');
    this.qkvBox.checked = qkvBias;
    for (const [n, el] of Object.entries(this.sizeInputs)) {
      const active = this.shadowRoot.activeElement === el;
      if (!active || Number(el.value) !== sizes[n]) el.value = String(sizes[n]);
    }
    const seq = (this.costSeq = (this.costSeq ?? 0) + 1);
    let ff;
    let block;
    try {
      const rt = await this.runtime();
      this.flavour = rt.flavour;
      const { d, hidden, batch, tokens } = sizes;
      [ff, block] = await Promise.all([
        rt.feedForwardCosts({ embDim: d, hiddenDim: hidden, batch, tokens }),
        // Counting needs no weights; one head always divides d (the counts do not depend on the head count).
        rt.blockParameters({ emb_dim: d, context_length: tokens, n_heads: 1, qkv_bias: qkvBias, ffn_hidden: hidden }),
      ]);
    } catch (err) {
      if (seq === this.costSeq) this.report(`Could not compute the costs: ${err.message}`, { error: true });
      return;
    }
    if (seq !== this.costSeq) return;
    this.sizes = sizes;
    const share = block.feedForward / (block.attention + block.feedForward);
    this.costs = { ...sizes, qkvBias, ff, block, share, bytes: ff.hiddenEntries * 4 };
    this.drawCosts();
    if (error) this.report(`${error} — showing the last valid sizes.`, { error: true });
    else this.report(`Computed by the core (wasm ${this.flavour}).`);
    this.emit('change', {
      section: 'costs', d: sizes.d, expansion: sizes.expansion, hidden: sizes.hidden, batch: sizes.batch,
      tokens: sizes.tokens, qkvBias, parameters: ff.parameters, attention: block.attention, share,
      flopsPerToken: ff.flopsPerToken, hiddenEntries: ff.hiddenEntries, hiddenBytes: this.costs.bytes,
    });
  }

  drawCosts() {
    const { d, hidden, batch, tokens, expansion, ff, block, share, bytes, qkvBias } = this.costs;
    const shape = (...dims) => h('span', { class: 'shape' }, `(${dims.map((v) => int.format(v)).join(', ')})`);
    const arrow = (text) => h('li', { class: 'arrow', 'aria-hidden': 'true' }, text);
    this.flow.replaceChildren(
      h('li', {}, 'x ', shape(batch, tokens, d)),
      arrow('→'),
      h('li', {}, 'GELU(W₁x + b₁) ', shape(batch, tokens, hidden)),
      arrow('→'),
      h('li', {}, 'W₂ · … + b₂ ', shape(batch, tokens, d)));
    const std = expansion === 4;
    const rows = [
      ['hidden width h', `${plain.format(expansion)} · d`, int.format(hidden), 'hidden'],
      ['FFN parameters', std ? '8d² + 5d' : '2dh + h + d', int.format(ff.parameters), 'parameters'],
      ['attention parameters', qkvBias ? '4d² + 4d (Q, K, V biases)' : '4d² + d (no Q, K, V bias)', int.format(block.attention), 'attention'],
      ['FFN share of the two sublayers', 'FFN / (attention + FFN)', pct(share), 'share'],
      ['FLOPs per token', std ? '2 · 8d² = 16d²' : '2 · 2dh = 4dh', int.format(ff.flopsPerToken), 'flops'],
      ['hidden activations', std ? 'B · n · 4d entries' : 'B · n · h entries', [int.format(ff.hiddenEntries), ` (${words(ff.hiddenEntries)})`], 'entries'],
      ['… in float32', '4 bytes each', [`${int.format(bytes)} bytes`, ` ≈ ${one.format(bytes / 1e6)} MB (${one.format(bytes / 2 ** 20)} MiB)`], 'bytes'],
    ];
    this.costTable.replaceChildren(
      h('caption', { class: 'visually-hidden' }, `Feed-forward costs at d = ${d}, computed by the core`),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'quantity (formula)'), h('th', { scope: 'col' }, 'value (core)'))),
      h('tbody', {}, ...rows.map(([q, f, v, key]) => h('tr', {},
        h('th', { scope: 'row' }, q, h('span', { class: 'formula' }, f)),
        h('td', { class: 'num', 'data-cost': key }, ...[v].flat().map((line) => h('span', { class: 'line' }, line)))))));
    this.drawCostChart();
  }

  drawCostChart() {
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
    const total = block.attention + block.feedForward;
    chart.x.domain([0, total]);
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

  // ---- hidden values before and after GELU ----

  async model() {
    if (!this.gpt) {
      const rt = await this.runtime();
      this.gptPromise ??= rt.createGPT(GPT_CONFIG, { seed: SEED });
      try {
        this.gpt = await this.gptPromise;
      } finally {
        this.gptPromise = null;
      }
    }
    return this.gpt;
  }

  async updateHidden() {
    const prompt = this.attr('prompt') || DEFAULT_PROMPT;
    const layer = Math.min(GPT_CONFIG.n_layers, Math.max(1, Math.round(this.numAttr('layer'))));
    if (this.shadowRoot.activeElement !== this.promptInput) this.promptInput.value = prompt;
    this.layerSelect.value = String(layer);
    const seq = (this.hiddenSeq = (this.hiddenSeq ?? 0) + 1);
    let bytes = new TextEncoder().encode(prompt);
    const cropped = bytes.length > GPT_CONFIG.context_length;
    if (cropped) bytes = bytes.subarray(0, GPT_CONFIG.context_length);
    let insp;
    try {
      if (this.acts?.prompt === prompt) {
        insp = this.acts.inspection;
      } else {
        const gpt = await this.model();
        insp = (await gpt.forward(Array.from(bytes), { inspect: true })).inspection;
      }
    } catch (err) {
      if (seq === this.hiddenSeq) this.report(`Could not run the GPT: ${err.message}`, { error: true });
      return;
    }
    if (seq !== this.hiddenSeq) return;
    const L = insp.layers[layer - 1];
    const pre = L.ffnHiddenPre;
    const post = L.ffnHiddenPost;
    const negPre = pre.reduce((n, v) => n + (v < 0), 0);
    const negPost = post.reduce((n, v) => n + (v < 0), 0);
    const [preMin, preMax] = extent(pre);
    const [postMin, postMax] = extent(post);
    this.acts = { prompt, inspection: insp, layer, T: insp.T, H: insp.H, pre, post, cropped,
      stats: { negPre, negPost, preMin, preMax, postMin, postMax } };
    this.drawHidden();
    this.emit('change', { section: 'hidden', layer, T: insp.T, hidden: insp.H, count: pre.length,
      pre: { min: preMin, max: preMax, negative: negPre }, post: { min: postMin, max: postMax, negative: negPost } });
  }

  drawHidden() {
    const { T, H, pre, layer, cropped, stats: s } = this.acts;
    this.hiddenSummary.replaceChildren(
      `Block ${layer}: ${int.format(T)} tokens × h = ${H} hidden units = ${int.format(pre.length)} values`,
      cropped ? ` (prompt cropped to the context of ${GPT_CONFIG.context_length} bytes)` : '', '. ',
      'Before GELU ', h('span', { 'data-hidden': 'neg-pre' }, pct(s.negPre / pre.length)), ' are negative (range ',
      h('span', { class: 'num', 'data-hidden': 'pre-min' }, fmt(s.preMin)), ' to ', h('span', { class: 'num' }, fmt(s.preMax)),
      '). After GELU the negatives are squashed toward 0 but not to 0: the lowest value is ',
      h('strong', { class: 'num', 'data-hidden': 'post-min' }, fmt(s.postMin)),
      ' — GELU’s dip (its minimum is about −0.17, near x = −0.75). ReLU would have made them all exactly 0.');
    this.histLegend.replaceChildren(legend([
      { label: 'before GELU: W₁x + b₁', color: 'var(--bs-c1)' },
      { label: 'after GELU', color: 'var(--bs-c3)' }]));
    this.drawHistograms();
  }

  drawHistograms() {
    const { pre, post, layer, stats: s } = this.acts;
    const width = chartWidth(this.histPre);
    const lo = Math.min(s.preMin, s.postMin);
    const hi = Math.max(s.preMax, s.postMax);
    const draw = (box, data, color, label) => {
      box.replaceChildren();
      const chart = createChart(box, {
        width, height: 200, xLabel: `hidden value ${label}`, yLabel: 'count of values',
        title: `Histogram of block ${layer}’s FFN hidden values ${label}`,
        description: '',
      });
      naturalSize(chart, width, 200);
      chart.x.domain([lo, hi]).nice();
      const bins = bin().domain(chart.x.domain()).thresholds(chart.x.ticks(Math.max(30, Math.round(chart.innerW / 5))))(data);
      chart.y.domain([0, max(bins, (b) => b.length)]).nice();
      chart.root.select('.x-axis').call(axisBottom(chart.x).ticks(Math.max(4, Math.round(chart.innerW / 70))));
      chart.root.select('.y-axis').call(axisLeft(chart.y).ticks(4));
      chart.plot.selectAll('rect').data(bins).join('rect')
        .attr('x', (b) => chart.x(b.x0) + 0.5).attr('width', (b) => Math.max(0, chart.x(b.x1) - chart.x(b.x0) - 1))
        .attr('y', (b) => chart.y(b.length)).attr('height', (b) => chart.y(0) - chart.y(b.length)).attr('fill', color);
      chart.plot.append('line').attr('x1', chart.x(0)).attr('x2', chart.x(0)).attr('y1', 0).attr('y2', chart.innerH)
        .attr('stroke', 'var(--bs-fg)').attr('stroke-dasharray', '4 3');
      const top = bins.reduce((a, b) => (b.length > a.length ? b : a));
      chart.svg.select('desc').text(`${data.length} values from ${fmt(s[label === 'before GELU' ? 'preMin' : 'postMin'])} to ` +
        `${fmt(s[label === 'before GELU' ? 'preMax' : 'postMax'])}; the tallest bin, ${fmt(top.x0, 2)} to ${fmt(top.x1, 2)}, ` +
        `holds ${top.length}.`);
      return { chart, bins };
    };
    const a = draw(this.histPre, pre, 'var(--bs-c1)', 'before GELU');
    const b = draw(this.histPost, post, 'var(--bs-c3)', 'after GELU');
    // Mark GELU's floor: the lowest post-GELU value the core produced.
    const { chart } = b;
    const xm = chart.x(s.postMin);
    chart.plot.append('line').attr('class', 'dip').attr('x1', xm).attr('x2', xm).attr('y1', 0).attr('y2', chart.innerH)
      .attr('stroke', 'var(--bs-c4)').attr('stroke-width', 2);
    chart.plot.append('text').attr('x', xm - 6).attr('y', 12).attr('text-anchor', 'end')
      .text(`lowest ${fmt(s.postMin, 3)}`);
    this.histTable.replaceChildren(
      h('caption', { class: 'visually-hidden' }, 'Histogram bins: counts of hidden values before and after GELU'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'bin'), h('th', { scope: 'col' }, 'before GELU'),
        h('th', { scope: 'col' }, 'after GELU'))),
      h('tbody', {}, ...a.bins.map((bn, i) => h('tr', {}, h('th', { scope: 'row' }, `${fmt(bn.x0, 2)} to ${fmt(bn.x1, 2)}`),
        h('td', { class: 'num' }, String(bn.length)), h('td', { class: 'num' }, String(b.bins[i]?.length ?? 0))))));
  }

  // ---- position-wise demo ----

  readDemo() {
    try {
      return { rows: parseDemo(this.attr('demo')) };
    } catch (err) {
      return { rows: this.demo?.rows ?? parseDemo(DEFAULT_DEMO), error: `demo: ${err.message}` };
    }
  }

  demoRow(t) {
    const id = `pos-${t}`;
    const input = h('input', { type: 'text', id, spellcheck: 'false', autocomplete: 'off', 'aria-describedby': 'status',
      'aria-label': `Token at position ${t + 1}: features, separated by commas` });
    input.addEventListener('input', () => this.onDemoInput(input));
    const nudge = h('button', { type: 'button', class: 'nudge', 'aria-label': `Add 1 to the first feature of position ${t + 1}`,
      title: `Add 1 to the first feature of position ${t + 1}` }, '+1');
    nudge.addEventListener('click', () => {
      const rows = this.demo.rows.map((r) => r.slice());
      rows[t][0] = Number((rows[t][0] + 1).toPrecision(12));
      this.setAttribute('demo', rows.map((r) => r.join(', ')).join('; '));
    });
    return h('div', { class: 'token-row' }, h('label', { for: id }, `Position ${t + 1}`), input, nudge);
  }

  onDemoInput(input) {
    const fields = [...this.demoList.querySelectorAll('input')];
    fields.forEach((f) => f.removeAttribute('aria-invalid'));
    let rows;
    try {
      rows = checkDemo(fields.map((f, i) => {
        try {
          return parseNumbers(f.value);
        } catch (err) {
          throw Object.assign(new Error(`position ${i + 1}: ${err.message}`), { field: f });
        }
      }));
    } catch (err) {
      (err.field ?? input).setAttribute('aria-invalid', 'true');
      this.report(`${err.message.replace(/^./, (c) => c.toUpperCase())} — showing the last valid tokens.`, { error: true });
      return;
    }
    if (this.demo && rows.every((r, i) => sameRow(r, this.demo.rows[i]))) return;
    this.setAttribute('demo', rows.map((r) => r.join(', ')).join('; '));
  }

  async updateDemo() {
    const { rows, error } = this.readDemo();
    const T = rows.length;
    const d = rows[0].length;
    if (this.demoList.querySelectorAll('input').length !== T) {
      this.demoList.replaceChildren(...rows.map((_, t) => this.demoRow(t)));
    }
    this.demoList.querySelectorAll('input').forEach((input, t) => {
      let same = false;
      try {
        same = sameRow(parseNumbers(input.value), rows[t]);
      } catch { /* rewritten below */ }
      if (!same) input.value = rows[t].join(', ');
      input.removeAttribute('aria-invalid');
    });
    const seq = (this.demoSeq = (this.demoSeq ?? 0) + 1);
    let out;
    try {
      const rt = await this.runtime();
      if (!this.ffn || this.ffnDim !== d) {
        const old = this.ffn;
        this.ffn = null;
        await old?.dispose();
        this.ffn = await rt.createFeedForward({ embDim: d, expansion: DEMO_EXPANSION, activation: 'gelu_tanh', seed: SEED });
        this.ffnDim = d;
      }
      out = await this.ffn.forward(Float32Array.from(rows.flat()));
    } catch (err) {
      if (seq === this.demoSeq) this.report(`Could not run the feed-forward network: ${err.message}`, { error: true });
      return;
    }
    if (seq !== this.demoSeq) return;
    const outputs = Array.from({ length: T }, (_, t) => Array.from(out.output.subarray(t * d, (t + 1) * d)));
    const prev = this.demo;
    let change = null;
    if (prev && prev.d === d && prev.rows.length === T) {
      const inputs = [];
      const changed = [];
      const delta = outputs.map((o, t) => {
        if (!sameRow(prev.rows[t], rows[t])) inputs.push(t + 1);
        const m = Math.max(...o.map((v, i) => Math.abs(v - prev.outputs[t][i])));
        if (m > 0) changed.push(t + 1);
        return m;
      });
      if (inputs.length) change = { inputs, changed, delta };
    }
    this.demo = { rows, d, outputs, change, numParameters: this.ffn.numParameters, hidden: DEMO_EXPANSION * d };
    this.drawDemo();
    if (error) this.report(`${error} — showing the last valid tokens.`, { error: true });
    this.emit('change', { section: 'positionwise', inputs: rows, outputs, changedInputs: change?.inputs ?? [],
      changedOutputs: change?.changed ?? [], maxDelta: change?.delta ?? [] });
  }

  drawDemo() {
    const { rows, d, outputs, change, numParameters, hidden } = this.demo;
    this.demoInfo.textContent = `The same FFN (d = ${d} → h = ${hidden} → d, GELU, seed ${SEED}: ` +
      `${int.format(numParameters)} parameters) runs on ${rows.length} token vectors in one call, as a (${rows.length}, ${d}) ` +
      'input. Edit a token (or press +1): only its own output changes, because no information passes between ' +
      'positions inside the FFN.';
    const list = (ts) => (ts.length === 1 ? `position ${ts[0]}` : `positions ${ts.join(', ')}`);
    if (!change) this.demoReport.textContent = '';
    else {
      const others = change.changed.filter((t) => !change.inputs.includes(t));
      this.demoReport.textContent = `You changed ${list(change.inputs)}; the output changed at ` +
        `${change.changed.length ? list(change.changed) : 'no position'}` +
        (others.length ? '.' : ' only — every other output is bit-for-bit the same.');
    }
    const vec = (v) => h('div', { class: 'vec num' }, ...v.map((e) => h('span', {}, fmt(e))));
    this.demoTable.replaceChildren(
      h('caption', { class: 'visually-hidden' }, 'FFN output per position and how much it changed after the last edit'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'position'), h('th', { scope: 'col' }, 'output FFN(x)'),
        h('th', { scope: 'col' }, 'largest |Δ|'))),
      h('tbody', {}, ...outputs.map((o, t) => {
        const moved = change?.changed.includes(t + 1);
        return h('tr', { 'data-position': String(t + 1), 'data-changed': change ? String(!!moved) : null },
          h('th', { scope: 'row' }, String(t + 1), moved ? h('span', { class: 'visually-hidden' }, ' (changed)') : null),
          h('td', { class: moved ? 'changed' : '', 'data-col': 'output' }, vec(o)),
          h('td', { class: 'num', 'data-col': 'delta' }, change ? delta(change.delta[t]) : '—'));
      })));
    this.drawDeltaChart();
  }

  drawDeltaChart() {
    const { outputs, change } = this.demo;
    this.deltaChart.replaceChildren();
    const groups = outputs.map((_, t) => String(t + 1));
    const values = outputs.map((_, t) => change?.delta[t] ?? 0);
    groupedBars(this.deltaChart, {
      groups, width: chartWidth(this.deltaChart), height: 190,
      series: [{ key: 'delta', label: 'largest |Δ output|', color: 'var(--bs-c5)', values }],
      xLabel: 'position (token)', yLabel: 'largest |Δ output|',
      title: 'How much each position’s output changed after the last edit',
      description: change
        ? values.map((v, t) => `position ${t + 1}: ${delta(v)}`).join('; ')
        : 'No edit yet: every bar is 0.',
      extraY: [change ? 0 : 1],
    });
  }
}

define('ffn-explorer', FeedForwardExplorer);
