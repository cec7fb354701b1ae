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
// Parts: title, description, results (the setup line, legend, chart, ratios and table), why (why the shortcut carries
//   the gradient), compounding, copy-pytorch, chart, controls, status. Layout (kit/layout.js): control groups depth,
//   std, activation, layernorm, same-std, seed, lesson, compounding. Text: i18n/<locale>/residual-flow-explorer.js.
// Events: blockscope-gradient-norms {withResidual, withoutResidual (layer 1 first), depth, activation, layerNorm,
//   std, sameStd, weights: 'lesson' | 'seeded', seed}, blockscope-ready.
// The widget holds no worker objects between updates: each update creates both nets, reads their gradients and
// disposes them, so nothing leaks however often the controls change or the element is removed.
import { BlockscopeElement, define, h, UPDATE } from '../kit/base.js';
import { chartWidth, KIT_CSS, legend, watchWidth } from '../kit/chart-kit.js';
import { COPY_CSS, CopyPanel } from '../kit/copy-pytorch.js';
import { drawNormChart, formatNorm, formatRatio, sciText } from './residual-chart.js';
import { Compounding, lessonSnippet } from './residual-compounding.js';
import en from '../i18n/en/residual-flow-explorer.js';
import { shippedUrl } from '../../runtime/locations.js';

const PRESET_URL = shippedUrl('../presets/residual-flow-lesson82.json', new URL('../presets/residual-flow-lesson82.json', import.meta.url)).href;
const DIM = 16; // the lesson's d; the input x is the lesson's (4, 16) batch in every view
const SEED_MAX = Number.MAX_SAFE_INTEGER;
const ACTIVATIONS = { tanh: 'tanh', gelu: 'gelu_tanh', relu: 'relu' }; // attribute value -> the core's activation
const LESSON = { depth: 8, std: 0.3, activation: 'tanh', layernorm: false, sameStd: false };
const FIRST_SEED = 1; // the Blockscope seed used when the settings leave the lesson's configuration
// label, short: message keys (residual.net.*).
const NETS = [
  { key: 'withoutResidual', preset: 'no_residual', label: 'residual.net.without', short: 'residual.net.withoutShort',
    color: 'var(--bs-c2)', dash: '6 4', symbol: 'square' },
  { key: 'withResidual', preset: 'residual', label: 'residual.net.with', short: 'residual.net.withShort',
    color: 'var(--bs-c1)', dash: null, symbol: 'circle' },
];

const CSS = `
.controls { display: grid; grid-template-columns: repeat(auto-fit, minmax(15rem, 1fr)); gap: 0.5rem 1.25rem; margin: 0.5rem 0; }
.controls label.slider { display: grid; grid-template-columns: 5.2rem minmax(0, 1fr) 3rem; gap: 0.4rem; align-items: center; }
.controls label.slider input { width: 100%; }
.controls output { text-align: end; }
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

// ---- the element ----

let presetPromise = null;
/** The lesson's x and both nets' PyTorch parameters (as Float32Arrays), fetched once per page. */
function loadPreset() {
  presetPromise ??= fetch(PRESET_URL).then(async (r) => {
    if (!r.ok) throw Object.assign(new Error(`${PRESET_URL}: HTTP ${r.status}`), { key: 'residual.presetFailed' });
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
      if (missing.length) {
        throw Object.assign(new Error(missing.join(', ')), { key: 'residual.presetIncomplete' });
      }
      await mlp.loadParameters(params);
    }
    await mlp.forward(x, batch);
    return Array.from(await mlp.backwardSum());
  } finally {
    await mlp.dispose().catch(() => {});
  }
}


/** `message` (a text with one {name} placeholder) with `node` in the placeholder's place: [before, node, after]. */
function withNode(message, name, node) {
  const [before, after = ''] = message.split(`{${name}}`);
  return [before, node, after];
}

export class ResidualFlowExplorer extends BlockscopeElement {
  // The limits of the controls; deep links are clamped to them, other attribute values by settings() (with a note).
  static attrs = {
    depth: { default: 8, min: 1, max: 32, int: true },
    std: { default: 0.3, min: 0.01, max: 1, doc: 'the plain net’s weights ~ N(0, std) (log-scale slider)' },
    activation: { default: 'tanh', options: Object.keys(ACTIVATIONS) }, layernorm: false, 'same-std': false,
    seed: { default: 'lesson', doc: '"lesson", or a Blockscope seed: a whole number from 0 to 2⁵³ − 1' },
  };

  static controlGroups = {
    depth: 'the depth slider',
    std: 'the init std slider with its help text, and the “Std 0.1” button',
    activation: 'the activation menu',
    layernorm: 'the “LayerNorm inside each layer” switch',
    'same-std': 'the “same N(0, std) init” switch',
    seed: 'the Re-seed button',
    lesson: 'the “Back to the lesson’s weights” button',
    compounding: 'the compounding toy’s factor, layers and example buttons',
  };

  static sections = {
    title: 'the heading',
    description: 'what the two stacks are and what the chart shows',
    results: 'the setup line, the chart of gradient norms, the layer-1 / layer-L ratios and the table',
    why: 'why the shortcut carries the gradient, and what the lesson’s numbers show',
    compounding: 'the compounding toy (one factor per layer)',
    'copy-pytorch': 'Copy as PyTorch',
    status: 'the status line',
  };

  setup() {
    const specs = this.constructor.attrSpecs();
    const t = (key, params) => this.t(key, params);
    const slider = (name, label, props) => {
      const input = h('input', { type: 'range', id: name, ...props });
      const out = h('output', { for: name, class: 'num', id: `${name}-out` });
      const el = h('label', { class: 'slider', for: name }, label, input, out);
      this.boundControls.add(name, input);
      this.boundControls.wrap(name, el);
      return { input, out, el };
    };
    const checkbox = (name, label) => {
      const input = h('input', { type: 'checkbox', id: name, onchange: () => this.toggle(name, input.checked) });
      this.boundControls.add(name, input);
      return { input, el: this.boundControls.wrap(name, h('label', {}, input, ` ${label}`)) };
    };
    this.depthCtl = slider('depth', t('residual.depth'), { min: specs.depth.min, max: specs.depth.max, step: 1 });
    this.stdCtl = slider('std', t('residual.std'), { min: Math.log10(specs.std.min), max: Math.log10(specs.std.max),
      step: 0.01, 'aria-describedby': 'std-help' });
    this.depthCtl.input.addEventListener('input', () => this.set('depth', this.depthCtl.input.value));
    this.stdCtl.input.addEventListener('input', () => {
      this.set('std', String(Number((10 ** Number(this.stdCtl.input.value)).toPrecision(2))));
    });
    this.actSelect = h('select', { id: 'activation', onchange: () => this.set('activation', this.actSelect.value) },
      ...Object.keys(ACTIVATIONS).map((v) => h('option', { value: v }, t(`residual.act.${v}`))));
    this.boundControls.add('activation', this.actSelect);
    const actLabel = this.boundControls.wrap('activation',
      h('label', { class: 'slider', for: 'activation' }, t('residual.activation'), this.actSelect));
    const ln = checkbox('layernorm', t('residual.layernorm'));
    const same = checkbox('same-std', t('residual.sameStd'));
    this.lnBox = ln.input;
    this.sameBox = same.input;
    this.reseedBtn = h('button', { type: 'button', class: 'reseed', onclick: () => this.set('seed', String(this.nextSeed())) },
      t('residual.reseed'));
    this.lowStdBtn = h('button', { type: 'button', class: 'low-std', onclick: () => this.set('std', '0.1') }, t('residual.lowStd'));
    this.lessonBtn = h('button', { type: 'button', class: 'lesson', onclick: () => this.backToLesson() }, t('residual.backToLesson'));
    this.boundControls.addGroup('std', this.lowStdBtn);
    this.boundControls.addGroup('seed', this.reseedBtn);
    this.boundControls.addGroup('lesson', this.lessonBtn);
    this.setupText = h('p', { class: 'setup' });
    this.legendBox = h('div');
    this.chartBox = h('div', { class: 'chart' });
    this.ratios = h('dl', { class: 'ratios', 'aria-live': 'polite' });
    this.torchText = h('p', { class: 'torch muted' });
    this.table = h('table', { class: 'norms' });
    this.compounding = new Compounding(this.panelPort());
    this.boundControls.addGroup('compounding', ...this.compounding.boundControls);
    this.copy = new CopyPanel(this.panelPort(), { snippet: () => this.toPyTorch() });
    this.shadowRoot.append(
      h('style', {}, KIT_CSS + COPY_CSS + CSS),
      h('h3', { part: 'title' }, t('residual.title')),
      h('p', { part: 'description' }, t('residual.description', { dim: DIM })),
      h('div', { class: 'controls', part: 'controls' }, this.depthCtl.el, this.stdCtl.el, actLabel),
      h('div', { class: 'row', part: 'controls' }, ln.el, same.el),
      this.boundControls.addGroup('std', h('p', { class: 'muted', id: 'std-help' }, t('residual.stdHelp'))),
      h('div', { class: 'buttons', part: 'controls' }, this.lowStdBtn, this.reseedBtn, this.lessonBtn),
      h('div', { part: 'results' },
        this.setupText,
        h('div', { class: 'pair' },
          h('div', {}, this.legendBox, this.chartBox, this.ratios, this.torchText),
          h('details', { open: true }, h('summary', {}, t('residual.tableSummary')), h('div', { class: 'scroll' }, this.table)))),
      h('div', { part: 'why' },
        h('h4', {}, t('residual.why.title')),
        h('p', {}, ...withNode(t('residual.why.text'), 'math', h('span', { class: 'math' }, 'd(x + f(x))/dx = 1 + f′(x)'))),
        h('p', { class: 'note' }, h('strong', {}, t('residual.why.noteTitle')), ' ', t('residual.why.note'))),
      this.compounding.root,
      this.copy.element,
      h('p', { class: 'status', role: 'status' }, t('residual.loading')),
    );
    this.whileConnected(() => watchWidth(this, () => {
      if (!this.result) return;
      this.drawChart();
      this.compounding.draw();
    }));
  }

  /** The learner's switch of a boolean attribute (refused when the author locked its group). */
  toggle(name, on) {
    if (this.locked(name)) return;
    if (on) this.setAttribute(name, '');
    else this.removeAttribute(name);
  }

  /** The experiment as PyTorch: the lesson's code (reproducing the lesson's view), with the widget's settings. */
  toPyTorch() {
    const s = this.result?.settings ?? this.settings();
    return lessonSnippet(s, ResidualFlowExplorer.weightsOf(s).lesson);
  }

  /** Back to the lesson's configuration: every attribute the author did not lock goes back to its default. */
  backToLesson() {
    for (const name of Object.keys(this.constructor.attrs)) if (!this.locked(name)) this.removeAttribute(name);
  }

  /** The settings from the attributes, clamped to the controls' limits; `notes` says what was changed. */
  settings() {
    const notes = [];
    const specs = this.constructor.attrSpecs();
    // A seed is an identifier, written as given; other values are numbers for reading.
    const show = (name, v) => (name === 'seed' ? String(v) : this.num(v));
    const num = (name) => {
      const raw = this.getAttribute(name);
      const fallback = specs[name].default;
      if (raw == null) return fallback;
      const v = Number(raw.replace('−', '-'));
      if (raw.trim() === '' || Number.isNaN(v)) {
        notes.push(this.t('residual.note.notNumber', { name, raw, value: show(name, fallback) }));
        return fallback;
      }
      const [lo, hi] = name === 'seed' ? [0, SEED_MAX] : [specs[name].min, specs[name].max];
      const c = Math.min(hi, Math.max(lo, name === 'std' ? v : Math.round(v)));
      if (v < lo || v > hi) {
        notes.push(this.t(name === 'seed' ? 'residual.note.outsideSeed' : 'residual.note.outside',
          { name, raw, lo: show(name, lo), hi: show(name, hi), value: show(name, c) }));
      } else if (c !== v) notes.push(this.t('residual.note.notWhole', { name, raw, value: show(name, c) }));
      return c;
    };
    let activation = (this.getAttribute('activation') ?? specs.activation.default).trim().toLowerCase(); // as written: the note names it
    if (!(activation in ACTIVATIONS)) {
      notes.push(this.t('residual.note.activation', { raw: activation, options: Object.keys(ACTIVATIONS).join(', ') }));
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
    const std = s.std.toPrecision(2);
    if (active !== this.depthCtl.input) this.depthCtl.input.value = String(s.depth);
    if (active !== this.stdCtl.input) this.stdCtl.input.value = String(Math.log10(s.std));
    this.depthCtl.out.textContent = this.num(s.depth);
    this.stdCtl.out.textContent = this.num(Number(std), (std.split('.')[1] ?? '').length);
    this.depthCtl.input.setAttribute('aria-valuetext', this.t('residual.depthValue', { count: s.depth }));
    this.stdCtl.input.setAttribute('aria-valuetext', this.t('residual.stdValue', { std: this.stdCtl.out.textContent }));
    this.actSelect.value = s.activation;
    this.lnBox.checked = s.layernorm;
    this.sameBox.checked = s.sameStd;
    const { lesson, seed } = ResidualFlowExplorer.weightsOf(s);
    this.reseedBtn.textContent = this.t('residual.reseedTo', { seed: String(lesson ? FIRST_SEED : Math.min(SEED_MAX, seed + 1)) });
  }

  async start() {
    this.invalidate(UPDATE.RECOMPUTE);
  }

  attributeChanged(name) {
    if (name !== 'theme') this.invalidate(UPDATE.RECOMPUTE);
  }

  async update(level) {
    if (level >= UPDATE.RECOMPUTE) {
      try {
        await this.compute();
      } catch (err) {
        if (!err.key) throw err;
        this.status(this.t(err.key, { detail: err.message }), { error: true });
        return;
      }
    }
    if (this.result) this.render();
  }

  async compute() {
    const s = this.settings();
    this.syncControls(s);
    const { lesson, seed } = ResidualFlowExplorer.weightsOf(s);
    const [rt, preset] = await Promise.all([this.runtime(), loadPreset()]);
    const act = ACTIVATIONS[s.activation];
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
    const t = (key, params) => this.t(key, params);
    const std = this.num(s.std);
    const net = t(s.layernorm ? 'residual.setup.netLayerNorm' : 'residual.setup.net',
      { count: s.depth, dim: DIM, act: t(`residual.act.${s.activation}`) });
    this.setupText.replaceChildren(h('strong', {}, `${net}; `), lesson ? t('residual.setup.lesson')
      : t(s.sameStd ? 'residual.setup.seededSame' : 'residual.setup.seededDefault', { std, seed: String(seed) }));
    this.legendBox.replaceChildren(legend(NETS.map((n) => ({ label: t(n.label), color: n.color }))));
    const { zeros, overflows } = this.drawChart();
    this.compounding.draw(this.result.norms);
    this.drawRatios();
    this.drawTable();
    const notes = [...s.notes];
    if (zeros) notes.push(t('residual.note.zeros', { count: zeros }));
    if (overflows) notes.push(t('residual.note.overflows', { count: overflows }));
    this.status(notes.length ? t('residual.status.notes', { notes: notes.join('; '), flavour })
      : t('residual.status.computed', { flavour }), { error: s.notes.length > 0 });
  }

  drawChart() {
    const { settings: s, norms } = this.result;
    this.chartBox.replaceChildren();
    const width = chartWidth(this.chartBox, { min: 280, max: 720 });
    const height = Math.round(Math.min(340, Math.max(240, width * 0.55)));
    const L = s.depth;
    const series = NETS.map((n) => this.t('residual.chart.series', { net: this.t(n.short),
      first: formatNorm(this, norms[n.key][0]), L, last: formatNorm(this, norms[n.key][L - 1]) }));
    return drawNormChart(this.chartBox, {
      width, height,
      series: NETS.map((n) => ({ ...n, values: norms[n.key] })),
      xLabel: this.t('residual.chart.xLabel'), yLabel: this.t('residual.chart.yLabel'),
      title: this.t('residual.chart.title', { L }),
      description: this.t('residual.chart.description', { series: series.join('; ') }),
    });
  }

  drawRatios() {
    const { settings: s, norms } = this.result;
    const L = s.depth;
    this.ratios.replaceChildren(...NETS.flatMap((n) => {
      const v = norms[n.key];
      return [h('dt', {}, this.t('residual.ratio', { net: this.t(n.short), L })),
        h('dd', { 'data-ratio': n.key, 'data-value': String(v[0] / v[L - 1]) },
          `${formatRatio(this, v[0] / v[L - 1])} `,
          h('span', { class: 'muted num' }, `(${formatNorm(this, v[0])} / ${formatNorm(this, v[L - 1])})`))];
    }));
    const { torch } = this.result;
    if (!torch) {
      this.torchText.textContent = '';
      return;
    }
    // The lesson's printout, from the PyTorch run that exported these weights, next to the core's numbers. The
    // printout is quoted as PyTorch printed it (locale-free).
    const rel = Math.max(...NETS.flatMap((n) => torch[n.preset].map((v, i) => Math.abs(norms[n.key][i] - v) / Math.abs(v))));
    const printout = (n) => `${n === 'no_residual' ? 'no-res' : 'residual'}: L1=${torch[n][0].toFixed(3)}, L8=${torch[n].at(-1).toFixed(3)}`;
    this.torchText.textContent = this.t('residual.torch',
      { plain: printout('no_residual'), residual: printout('residual'), rel: sciText(this, rel, 1) });
  }

  drawTable() {
    const { settings: s, norms } = this.result;
    const L = s.depth;
    this.table.replaceChildren(
      h('caption', { class: 'visually-hidden' }, this.t('residual.table.caption', { L })),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, this.t('residual.table.layer')),
        ...NETS.map((n) => h('th', { scope: 'col' }, this.t(n.short))))),
      h('tbody', {}, ...Array.from({ length: L }, (_, i) => h('tr', {},
        h('th', { scope: 'row' }, this.num(i + 1)),
        ...NETS.map((n) => h('td', { class: 'num', 'data-net': n.key, 'data-layer': String(i + 1), 'data-value': String(norms[n.key][i]) },
          formatNorm(this, norms[n.key][i])))))),
      h('tfoot', {}, h('tr', {}, h('th', { scope: 'row' }, `${this.num(1)} / ${this.num(L)}`),
        ...NETS.map((n) => h('td', { class: 'num' }, formatRatio(this, norms[n.key][0] / norms[n.key][L - 1]))))),
    );
  }
}

define('residual-flow-explorer', ResidualFlowExplorer, en);
