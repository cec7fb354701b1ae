// <residual-flow-explorer> — lesson 82 §21 "Residual gradient flow: with vs without": a stack of Linear(16, 16)
// layers with an activation, with and without shortcuts (x = x + act(l(x))), and the norm of each layer's weight
// gradient for loss = y.sum(), computed by the core's backward pass. The default view loads the lesson's own PyTorch
// weights and input (web/presets/residual-flow-lesson82.json, from tests/reference/make_lesson_presets.py), so it
// shows the lesson's printout; every other setting uses Blockscope-seeded weights on the same input.
// Attributes: depth (8, 1–32), std (0.3, 0.01–1: the plain net's weights ~ N(0, std)), activation (tanh | gelu |
//   relu), layernorm (pre-norm inside each layer), same-std (the residual net's weights ~ N(0, std) too; off: PyTorch's
//   default Linear init, as in the lesson), seed ("lesson", or a Blockscope seed: a whole number). Out-of-range
//   values are clamped to the controls' limits.
// Below them, the compounding toy (seed 002, residual-compounding.js): factor^depth next to the real ratios.
// Events: blockscope-gradient-norms {withResidual, withoutResidual (layer 1 first), depth, activation, layerNorm,
//   std, sameStd, weights: 'lesson' | 'seeded', seed}, blockscope-ready.
// The widget holds no worker objects between updates: each update creates both nets, reads their gradients and
// disposes them, so nothing leaks however often the controls change or the element is removed.
import { range } from 'd3-array';
import { axisBottom, axisLeft } from 'd3-axis';
import { scaleLog } from 'd3-scale';
import { line, symbol, symbolCircle, symbolSquare } from 'd3-shape';

import { BlockscopeElement, define, h, UPDATE } from '../kit/base.js';
import { chartWidth, createChart, KIT_CSS, legend, naturalSize, watchWidth } from '../kit/chart-kit.js';
import { COPY_CSS, CopyPanel } from '../kit/copy-pytorch.js';
import { Compounding, lessonSnippet } from './residual-compounding.js';

const PRESET_URL = new URL('../presets/residual-flow-lesson82.json', import.meta.url).href;
const DIM = 16; // the lesson's d; the input x is the lesson's (4, 16) batch in every view
const SEED_MAX = Number.MAX_SAFE_INTEGER;
const ACTIVATIONS = { tanh: ['tanh', 'tanh'], gelu: ['gelu_tanh', 'GELU (tanh approx.)'], relu: ['relu', 'ReLU'] };
const LESSON = { depth: 8, std: 0.3, activation: 'tanh', layernorm: false, sameStd: false };
const FIRST_SEED = 1; // the Blockscope seed used when the settings leave the lesson's configuration
const NETS = [
  { key: 'withoutResidual', preset: 'no_residual', label: 'without residual: x = f(x)', short: 'without residual',
    color: 'var(--bs-c2)', dash: '6 4', symbol: 'square' },
  { key: 'withResidual', preset: 'residual', label: 'with residual: x = x + f(x)', short: 'with residual',
    color: 'var(--bs-c1)', dash: null, symbol: 'circle' },
];

const CSS = `
.controls { display: grid; grid-template-columns: repeat(auto-fit, minmax(15rem, 1fr)); gap: 0.5rem 1.25rem; margin: 0.5rem 0; }
.controls label.slider { display: grid; grid-template-columns: 5.2rem minmax(0, 1fr) 3rem; gap: 0.4rem; align-items: center; }
.controls label.slider input { width: 100%; }
.controls output { text-align: right; }
.buttons { display: flex; flex-wrap: wrap; gap: 0.4rem; margin: 0.4rem 0; }
.setup { margin: 0.4rem 0; }
dl.ratios { display: grid; grid-template-columns: max-content auto; gap: 0.1rem 0.8rem; margin: 0.4rem 0; }
dl.ratios dt { color: var(--bs-muted); }
dl.ratios dd { margin: 0; font-weight: 600; font-variant-numeric: tabular-nums; }
dl.ratios dd .num { font-weight: normal; white-space: nowrap; }
@container (max-width: 460px) { dl.ratios { grid-template-columns: minmax(0, 1fr); } dl.ratios dd { margin-bottom: 0.3rem; } }
table.norms { width: 100%; max-width: 30rem; }
tfoot th, tfoot td { border-top: 2px solid var(--bs-border); }
.torch { font-size: 0.92rem; }
details summary { cursor: pointer; color: var(--bs-accent); margin: 0.3rem 0; }
.math { white-space: nowrap; font-style: italic; }
.controls label.slider select { grid-column: span 2; }
`;

// ---- the log-scale chart and number formats ----

const SYMBOLS = { circle: symbolCircle, square: symbolSquare };
const SUPERSCRIPT = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };
const minus = (s) => s.replace(/-/g, '−');

/** A gradient norm for reading: 3 decimals like the lesson's printout (3 digits below 1), scientific notation when
 * tiny or huge. */
function formatNorm(v) {
  if (v === 0) return '0';
  if (!Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : '∞';
  if (v >= 1e5 || v < 1e-2) return minus(v.toExponential(2));
  return v >= 1 ? v.toFixed(3) : v.toPrecision(3);
}

/** A ratio for reading: 3 significant digits, scientific notation when tiny or huge. */
function formatRatio(r) {
  if (r === 0) return '0';
  if (!Number.isFinite(r)) return Number.isNaN(r) ? 'undefined' : '∞';
  if (r >= 1e4 || r < 1e-2) return minus(r.toExponential(2));
  return String(Number(r.toPrecision(3)));
}

/** 1e-7 -> "10⁻⁷"; 0.01 … 1000 as plain numbers; 20, 0.5 as they are. */
function tickLabel(v) {
  const k = Math.log10(v);
  const K = Math.round(k);
  if (Math.abs(k - K) > 1e-9) return minus(String(Number(v.toPrecision(2))));
  if (K >= -2 && K <= 3) return String(Number(`1e${K}`));
  return `10${[...String(K)].map((c) => SUPERSCRIPT[c]).join('')}`;
}

/** Tick values for a log axis: powers of ten (every 1, 2, 5, 10, … decades, at most ~6) or 1-2-5 within a decade. */
function logTicks(y) {
  const [lo, hi] = y.domain();
  const k0 = Math.ceil(Math.log10(lo));
  const k1 = Math.floor(Math.log10(hi));
  if (k1 - k0 >= 1) {
    const step = [1, 2, 3, 5, 10, 20, 50].find((s) => Math.floor(k1 / s) - Math.ceil(k0 / s) + 1 <= 6) ?? 100;
    return range(Math.ceil(k0 / step) * step, k1 + 1, step).map((k) => Number(`1e${k}`));
  }
  return y.ticks().filter((v) => [1, 2, 5].includes(Number((v / 10 ** Math.floor(Math.log10(v) + 1e-9)).toPrecision(1))));
}

/**
 * Draws series [{key, label, color, dash, symbol: 'circle'|'square', values: number[] (layer 1 first)}] on a
 * log-scale y axis. Zeros (float32 underflow) sit on the bottom edge as hollow marks and overflows (∞, NaN) on the
 * top edge; lines break there. Returns {zeros, overflows}: how many values could not be placed on the scale.
 */
function drawNormChart(box, { series, width, height, title, description }) {
  const depth = series[0].values.length;
  const chart = createChart(box, {
    width, height, margin: { top: 14, right: 18, bottom: 44, left: 66 },
    xLabel: 'layer (1 = nearest the input)', yLabel: '‖∂loss/∂W‖ (log scale)', title, description,
  });
  naturalSize(chart, width, height);
  chart.root.selectAll('.axis-label').filter((_, i) => i === 1).attr('y', -52);
  const all = series.flatMap((s) => s.values);
  const placed = all.filter((v) => v > 0 && Number.isFinite(v));
  const lo = placed.length ? Math.min(...placed) : 1e-3;
  const hi = placed.length ? Math.max(...placed) : 1;
  const y = scaleLog().domain([lo / 1.8, hi * 1.8]).range([chart.innerH, 0]);
  const x = chart.x.domain(depth === 1 ? [0.5, 1.5] : [1, depth]);
  const every = Math.ceil(depth / Math.max(2, Math.floor(chart.innerW / 36)));
  chart.root.select('.x-axis').call(axisBottom(x).tickValues(range(1, depth + 1).filter((l) => l === 1 || l % every === 0))
    .tickFormat((l) => String(l)));
  const yTicks = logTicks(y);
  chart.root.select('.y-axis').call(axisLeft(y).tickValues(yTicks).tickFormat(tickLabel));
  chart.plot.append('g').attr('class', 'grid').selectAll('line').data(yTicks).join('line')
    .attr('x1', 0).attr('x2', chart.innerW).attr('y1', (v) => y(v)).attr('y2', (v) => y(v));
  const ok = (v) => v > 0 && Number.isFinite(v);
  const yOf = (v) => (ok(v) ? y(v) : v === 0 ? chart.innerH : 0);
  const path = line().defined(ok).x((_, i) => x(i + 1)).y((v) => y(v));
  for (const s of series) {
    const g = chart.plot.append('g').attr('data-series', s.key);
    g.append('path').attr('d', path(s.values)).attr('fill', 'none').attr('stroke', s.color).attr('stroke-width', 2)
      .attr('stroke-dasharray', s.dash);
    g.selectAll('path.mark').data(s.values).join('path').attr('class', 'mark')
      .attr('d', symbol(SYMBOLS[s.symbol], 48))
      .attr('transform', (v, i) => `translate(${x(i + 1)},${yOf(v)})`)
      .attr('fill', (v) => (ok(v) ? s.color : 'var(--bs-bg)'))
      .attr('stroke', s.color).attr('stroke-width', 1.5)
      .attr('data-layer', (_, i) => i + 1).attr('data-value', (v) => v);
  }
  return { zeros: all.filter((v) => v === 0).length, overflows: all.filter((v) => !Number.isFinite(v)).length };
}

// ---- the element ----

let presetPromise = null;
/** The lesson's x and both nets' PyTorch parameters (as Float32Arrays), fetched once per page. */
function loadPreset() {
  presetPromise ??= fetch(PRESET_URL).then(async (r) => {
    if (!r.ok) throw new Error(`the lesson's weights (${PRESET_URL}) could not be loaded: HTTP ${r.status}`);
    const p = await r.json();
    const nets = Object.fromEntries(NETS.map(({ preset }) => [preset, {
      config: p[preset].config,
      params: Object.fromEntries(Object.entries(p[preset].params).map(([n, v]) => [n, Float32Array.from(v)])),
    }]));
    return { x: Float32Array.from(p.x.data), batch: p.x.shape[0], nets, torch: p.torch_grad_norms };
  }).catch((err) => {
    presetPromise = null; // try again on the next update
    throw err;
  });
  return presetPromise;
}

/** Gradient norms of one net: create it in the worker, load weights if given, forward, backward, dispose. */
async function gradientNorms(rt, config, { seed, params }, x, batch) {
  const mlp = await rt.createResidualMLP(config, seed == null ? undefined : { seed });
  try {
    if (params) {
      const missing = mlp.parameters.map((p) => p.name).filter((n) => !(n in params));
      if (missing.length) throw new Error(`the lesson's weights have no ${missing.join(', ')}`);
      await mlp.loadParameters(params);
    }
    await mlp.forward(x, batch);
    return Array.from(await mlp.backwardSum());
  } finally {
    await mlp.dispose().catch(() => {});
  }
}

export class ResidualFlowExplorer extends BlockscopeElement {
  // The limits of the controls; deep links are clamped to them, other attribute values by settings() (with a note).
  static attrs = {
    depth: { default: 8, min: 1, max: 32, int: true },
    std: { default: 0.3, min: 0.01, max: 1, doc: 'the plain net’s weights ~ N(0, std) (log-scale slider)' },
    activation: { default: 'tanh', options: Object.keys(ACTIVATIONS) }, layernorm: false, 'same-std': false,
    seed: { default: 'lesson', doc: '"lesson", or a Blockscope seed: a whole number from 0 to 2⁵³ − 1' },
  };

  setup() {
    const specs = this.constructor.attrSpecs();
    const slider = (name, label, props) => {
      const input = h('input', { type: 'range', id: name, ...props });
      const out = h('output', { for: name, class: 'num', id: `${name}-out` });
      return { input, out, el: h('label', { class: 'slider', for: name }, label, input, out) };
    };
    this.depthCtl = slider('depth', 'depth', { min: specs.depth.min, max: specs.depth.max, step: 1 });
    this.stdCtl = slider('std', 'init std', { min: Math.log10(specs.std.min), max: Math.log10(specs.std.max), step: 0.01,
      'aria-describedby': 'std-help' });
    this.depthCtl.input.addEventListener('input', () => this.setAttribute('depth', this.depthCtl.input.value));
    this.stdCtl.input.addEventListener('input', () => {
      this.setAttribute('std', String(Number((10 ** Number(this.stdCtl.input.value)).toPrecision(2))));
    });
    this.actSelect = h('select', { id: 'activation', onchange: () => this.setAttribute('activation', this.actSelect.value) },
      ...Object.entries(ACTIVATIONS).map(([v, [, label]]) => h('option', { value: v }, label)));
    this.lnBox = h('input', { type: 'checkbox', id: 'layernorm', onchange: () => this.toggle('layernorm', this.lnBox.checked) });
    this.sameBox = h('input', { type: 'checkbox', id: 'same-std', onchange: () => this.toggle('same-std', this.sameBox.checked) });
    this.reseedBtn = h('button', { type: 'button', class: 'reseed', onclick: () => this.setAttribute('seed', String(this.nextSeed())) }, 'Re-seed');
    this.lowStdBtn = h('button', { type: 'button', class: 'low-std', onclick: () => this.setAttribute('std', '0.1') },
      'Std 0.1: watch the plain net vanish');
    this.lessonBtn = h('button', { type: 'button', class: 'lesson', onclick: () => this.backToLesson() },
      'Back to the lesson’s weights');
    this.setupText = h('p', { class: 'setup' });
    this.legendBox = h('div');
    this.chartBox = h('div', { class: 'chart' });
    this.ratios = h('dl', { class: 'ratios', 'aria-live': 'polite' });
    this.torchText = h('p', { class: 'torch muted' });
    this.table = h('table', { class: 'norms' });
    this.compounding = new Compounding(this.panelPort());
    this.copy = new CopyPanel(this.panelPort(), { snippet: () => this.toPyTorch() });
    this.shadowRoot.append(
      h('style', {}, KIT_CSS + COPY_CSS + CSS),
      h('h3', {}, 'Residual gradient flow: with vs without'),
      h('p', {}, `Two stacks of Linear(${DIM}, ${DIM}) layers with an activation, one with shortcuts and one without, `,
        'run on the same batch of 4 inputs. The loss is the sum of the output (y.sum()); the chart shows how large ',
        'each layer’s weight gradient is after the core’s backward pass. Layer 1 is the farthest from the loss.'),
      h('div', { class: 'controls' }, this.depthCtl.el, this.stdCtl.el,
        h('label', { class: 'slider', for: 'activation' }, 'activation', this.actSelect)),
      h('div', { class: 'row' },
        h('label', {}, this.lnBox, ' LayerNorm inside each layer: f(x) = act(W·LN(x) + b)'),
        h('label', {}, this.sameBox, ' residual net uses the same N(0, std) init')),
      h('p', { class: 'muted', id: 'std-help' }, 'The std sets the plain net’s weights, N(0, std) as in the lesson. ',
        'The residual net keeps PyTorch’s default Linear init (uniform ±1/√16, std ≈ 0.14), also as in the lesson, ',
        'unless you tick “same N(0, std) init”: then both nets draw from the same distribution and only the shortcut differs.'),
      h('div', { class: 'buttons' }, this.lowStdBtn, this.reseedBtn, this.lessonBtn),
      this.setupText,
      h('div', { class: 'pair' },
        h('div', {}, this.legendBox, this.chartBox, this.ratios, this.torchText),
        h('details', { open: true }, h('summary', {}, 'The numbers as a table'), h('div', { class: 'scroll' }, this.table))),
      h('h4', {}, 'Why the shortcut carries the gradient'),
      h('p', {}, 'A residual layer computes x + f(x), so by the chain rule ', h('span', { class: 'math' }, 'd(x + f(x))/dx = 1 + f′(x)'),
        '. The “1” is a path that skips the layer: multiplied down the stack, the gradient reaching layer 1 always ',
        'contains the loss’s gradient unchanged, plus correction terms, however small each f′ is. Without the shortcut ',
        'the factor is f′(x) alone (the layer’s weights times the activation’s slope), and layer 1 receives a product of ',
        'depth − 1 such factors: it shrinks geometrically when they are below 1 and grows when they are above.'),
      h('p', { class: 'note' }, h('strong', {}, 'What the lesson’s numbers show — and what they do not. '),
        'At the lesson’s std 0.3 the plain net does not have vanishing gradients: layer 1 gets 15.07, more than ',
        'layer 8’s 9.79. Each tanh layer scales the gradient by about std·√d = 0.3·√16 = 1.2 (less where tanh ',
        'saturates), so eight layers neither shrink nor grow it much. At std 0.1 the gain is about 0.4 per layer: the plain ',
        'net’s layer-1 gradient collapses by orders of magnitude while the residual net’s stays close to its layer-8 value. ',
        'Deeper stacks make both effects stronger; a std near 1 makes the plain net’s gradient explode instead.'),
      this.compounding.root,
      this.copy.element,
      h('p', { class: 'status', role: 'status' }, 'Loading the core…'),
    );
    this.whileConnected(() => watchWidth(this, () => {
      if (!this.result) return;
      this.drawChart();
      this.compounding.draw();
    }));
  }

  toggle(name, on) {
    if (on) this.setAttribute(name, '');
    else this.removeAttribute(name);
  }

  /** The experiment as PyTorch: the lesson's code (reproducing the lesson's view), with the widget's settings. */
  toPyTorch() {
    const s = this.result?.settings ?? this.settings();
    return lessonSnippet(s, ResidualFlowExplorer.weightsOf(s).lesson);
  }

  backToLesson() {
    for (const name of Object.keys(this.constructor.attrs)) this.removeAttribute(name);
  }

  /** The settings from the attributes, clamped to the controls' limits; `notes` says what was changed. */
  settings() {
    const notes = [];
    const specs = this.constructor.attrSpecs();
    const num = (name) => {
      const raw = this.getAttribute(name);
      const fallback = specs[name].default;
      if (raw == null) return fallback;
      const v = Number(raw.replace('−', '-'));
      if (raw.trim() === '' || Number.isNaN(v)) {
        notes.push(`${name} “${raw}” is not a number, using ${fallback}`);
        return fallback;
      }
      const [lo, hi] = name === 'seed' ? [0, SEED_MAX] : [specs[name].min, specs[name].max];
      const c = Math.min(hi, Math.max(lo, name === 'std' ? v : Math.round(v)));
      if (v < lo || v > hi) notes.push(`${name} ${raw} is outside ${name === 'seed' ? `${lo}–2⁵³ − 1` : `${lo}–${hi}`}, using ${c}`);
      else if (c !== v) notes.push(`${name} ${raw} is not a whole number, using ${c}`);
      return c;
    };
    let activation = this.attr('activation').trim().toLowerCase();
    if (!(activation in ACTIVATIONS)) {
      notes.push(`activation “${activation}” is not one of ${Object.keys(ACTIVATIONS).join(', ')}, using tanh`);
      activation = 'tanh';
    }
    const seedText = this.attr('seed').trim().toLowerCase();
    return {
      depth: num('depth'), std: num('std'), activation, layernorm: this.boolAttr('layernorm'),
      sameStd: this.boolAttr('same-std'), seed: seedText === 'lesson' || seedText === '' ? 'lesson' : num('seed'), notes,
    };
  }

  /** Which weights a setting gets: the lesson's (only in its exact configuration) or a Blockscope seed. */
  static weightsOf(s) {
    const isLesson = Object.entries(LESSON).every(([k, v]) => s[k] === v);
    if (s.seed === 'lesson' && isLesson) return { lesson: true, seed: null };
    return { lesson: false, seed: s.seed === 'lesson' ? FIRST_SEED : s.seed };
  }

  nextSeed() {
    const seed = this.result?.seed;
    return seed == null ? FIRST_SEED : Math.min(SEED_MAX, seed + 1);
  }

  syncControls(s) {
    const active = this.shadowRoot.activeElement;
    if (active !== this.depthCtl.input) this.depthCtl.input.value = String(s.depth);
    if (active !== this.stdCtl.input) this.stdCtl.input.value = String(Math.log10(s.std));
    this.depthCtl.out.textContent = String(s.depth);
    this.stdCtl.out.textContent = s.std.toPrecision(2);
    this.depthCtl.input.setAttribute('aria-valuetext', `${s.depth} layers`);
    this.stdCtl.input.setAttribute('aria-valuetext', `standard deviation ${s.std.toPrecision(2)}`);
    this.actSelect.value = s.activation;
    this.lnBox.checked = s.layernorm;
    this.sameBox.checked = s.sameStd;
    const { lesson, seed } = ResidualFlowExplorer.weightsOf(s);
    this.reseedBtn.textContent = `Re-seed (Blockscope seed ${lesson ? FIRST_SEED : Math.min(SEED_MAX, seed + 1)})`;
  }

  async start() {
    this.invalidate(UPDATE.RECOMPUTE);
  }

  attributeChanged(name) {
    if (name !== 'theme') this.invalidate(UPDATE.RECOMPUTE);
  }

  async update(level) {
    if (level >= UPDATE.RECOMPUTE) await this.compute();
    if (this.result) this.render();
  }

  async compute() {
    const s = this.settings();
    this.syncControls(s);
    const { lesson, seed } = ResidualFlowExplorer.weightsOf(s);
    const [rt, preset] = await Promise.all([this.runtime(), loadPreset()]);
    const [act] = ACTIVATIONS[s.activation];
    const base = { depth: s.depth, dim: DIM, activation: act, layer_norm: s.layernorm };
    const configs = {
      withoutResidual: { ...base, residual: false, init_std: s.std },
      withResidual: { ...base, residual: true, init_std: s.sameStd ? s.std : 0 },
    };
    const norms = {};
    for (const net of NETS) {
      const weights = lesson ? preset.nets[net.preset] : { seed, config: configs[net.key] };
      norms[net.key] = await gradientNorms(rt, weights.config, { seed, params: weights.params }, preset.x, preset.batch);
    }
    this.result = { settings: s, lesson, seed, norms, torch: lesson ? preset.torch : null, flavour: rt.flavour };
    this.emit('gradient-norms', {
      withResidual: norms.withResidual, withoutResidual: norms.withoutResidual, depth: s.depth,
      activation: s.activation, layerNorm: s.layernorm, std: s.std, sameStd: s.sameStd,
      weights: lesson ? 'lesson' : 'seeded', seed,
    });
    if (!this.readySent) {
      this.readySent = true;
      this.emit('ready', {});
    }
  }

  render() {
    const { settings: s, lesson, seed, flavour } = this.result;
    const act = ACTIVATIONS[s.activation][1];
    const init = s.sameStd ? `both nets’ weights ~ N(0, ${s.std})` :
      `plain net’s weights ~ N(0, ${s.std}), residual net PyTorch’s default init`;
    this.setupText.replaceChildren(
      h('strong', {}, `${s.depth} layer${s.depth === 1 ? '' : 's'}, d = ${DIM}, ${act}${s.layernorm ? ', LayerNorm inside' : ''}; `),
      lesson ? 'the lesson’s own PyTorch weights and input (exactly the lesson’s experiment).'
        : `${init}; weights from Blockscope seed ${seed} (the core’s generator, not PyTorch’s), input: the lesson’s batch x.`);
    this.legendBox.replaceChildren(legend(NETS.map((n) => ({ label: n.label, color: n.color }))));
    const { zeros, overflows } = this.drawChart();
    this.compounding.draw(this.result.norms);
    this.drawRatios();
    this.drawTable();
    const notes = [...s.notes];
    if (zeros) notes.push(`${zeros} gradient norm${zeros === 1 ? ' is' : 's are'} exactly 0 (below float32’s range), drawn as hollow marks on the bottom edge`);
    if (overflows) notes.push(`${overflows} gradient norm${overflows === 1 ? ' is' : 's are'} not finite, drawn on the top edge`);
    this.status(`${notes.length ? `${notes.join('; ')}. ` : ''}Computed by the core (wasm ${flavour}).`, { error: s.notes.length > 0 });
  }

  drawChart() {
    const { settings: s, norms } = this.result;
    this.chartBox.replaceChildren();
    const width = chartWidth(this.chartBox, { min: 280, max: 720 });
    const height = Math.round(Math.min(340, Math.max(240, width * 0.55)));
    const L = s.depth;
    return drawNormChart(this.chartBox, {
      width, height,
      series: NETS.map((n) => ({ ...n, values: norms[n.key] })),
      title: `Weight-gradient norm per layer, ${L} layers, with and without residual connections`,
      description: NETS.map((n) => `${n.short}: layer 1 ${formatNorm(norms[n.key][0])}, layer ${L} ` +
        `${formatNorm(norms[n.key][L - 1])}`).join('; ') + '. All values are in the table below.',
    });
  }

  drawRatios() {
    const { settings: s, norms } = this.result;
    const L = s.depth;
    this.ratios.replaceChildren(...NETS.flatMap((n) => {
      const v = norms[n.key];
      return [h('dt', {}, `${n.short}: layer 1 / layer ${L}`),
        h('dd', { 'data-ratio': n.key, 'data-value': String(v[0] / v[L - 1]) },
          `${formatRatio(v[0] / v[L - 1])} `, h('span', { class: 'muted num' }, `(${formatNorm(v[0])} / ${formatNorm(v[L - 1])})`))];
    }));
    const { torch } = this.result;
    if (!torch) {
      this.torchText.textContent = '';
      return;
    }
    // The lesson's printout, from the PyTorch run that exported these weights, next to the core's numbers.
    const rel = Math.max(...NETS.flatMap((n) => torch[n.preset].map((t, i) => Math.abs(norms[n.key][i] - t) / Math.abs(t))));
    const printout = (n) => `${n === 'no_residual' ? 'no-res' : 'residual'}: L1=${torch[n][0].toFixed(3)}, L8=${torch[n].at(-1).toFixed(3)}`;
    this.torchText.textContent = `PyTorch printed “${printout('no_residual')}” and “${printout('residual')}”; ` +
      `the core’s norms differ from PyTorch’s by at most ${rel.toExponential(1).replace('-', '−')} (relative).`;
  }

  drawTable() {
    const { settings: s, norms } = this.result;
    const L = s.depth;
    this.table.replaceChildren(
      h('caption', { class: 'visually-hidden' }, `Weight-gradient norm of each layer, computed by the core, for ${L} layers`),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'layer'), ...NETS.map((n) => h('th', { scope: 'col' }, n.short)))),
      h('tbody', {}, ...Array.from({ length: L }, (_, i) => h('tr', {},
        h('th', { scope: 'row' }, String(i + 1)),
        ...NETS.map((n) => h('td', { class: 'num', 'data-net': n.key, 'data-layer': String(i + 1), 'data-value': String(norms[n.key][i]) },
          formatNorm(norms[n.key][i])))))),
      h('tfoot', {}, h('tr', {}, h('th', { scope: 'row' }, `1 / ${L}`),
        ...NETS.map((n) => h('td', { class: 'num' }, formatRatio(norms[n.key][0] / norms[n.key][L - 1]))))),
    );
  }
}

define('residual-flow-explorer', ResidualFlowExplorer);
