// <layernorm-explorer> — LayerNorm step by step on editable token vectors (book §4.2, lesson 82): each token's
// mean and biased variance, the normalized vector, the scale γ and shift β, before/after bars and a view of the
// whole sequence. A "wrong axis" switch normalizes over the sequence axis instead — the lesson's trap: a token's
// output then depends on the other tokens. Every number shown is computed by the Blockscope core.
// Attributes:
//   values  tokens separated by ";", features by "," (default "1, 3, 5, 7; 10, 20, 30, 40; 0, 4, 4, 0")
//   token   the token shown in detail, from 1 (1)
//   gamma, beta  one γ and one β shared by all features (1, 0). nn.LayerNorm learns a vector of each (ones and
//           zeros at initialization); the widget broadcasts its two sliders to those vectors, which also keeps the
//           wrong-axis mode well defined (there the vectors run over tokens).
//   eps     ε (1e-5)
//   axis    "features" (LayerNorm) or "sequence" (the wrong axis)
//   predict readouts the learner predicts before they are shown: mean, variance, output (of the token in detail)
//           and axis-quiz (the seed's "check yourself — LayerNorm axis")
// Parts: predict, check, check-input, check-result, copy-pytorch (kit panels), batchnorm (LayerNorm vs BatchNorm on
//   variable-length batches, layernorm-batchnorm.js), status.
// Events: blockscope-change {axis, eps, gamma, beta, T, d, input, mean, variance, rstd, normalized, output,
//   changedInputs, changedOutputs} (matrices as arrays of rows; stats per token, or per feature on the wrong
//   axis; changed* are 1-based token numbers after an edit of the inputs), blockscope-ready.
import { BlockscopeElement, define, fmt, h, parseNumbers } from '../kit/base.js';
import { chartWidth, groupedBars, KIT_CSS, legend, watchWidth } from '../kit/chart-kit.js';
import { CHECK_CSS, CheckPanel } from '../kit/check-panel.js';
import { limitsOf } from '../kit/controls.js';
import { COPY_CSS, CopyPanel } from '../kit/copy-pytorch.js';
import { PREDICT_CSS, PredictPanel } from '../kit/predict-panel.js';
import { checkRows, MAX_TOKENS, parseTokens, rowsToText, sameRow, toRows, transpose } from './layernorm-rows.js';
import { BatchNormPanel } from './layernorm-batchnorm.js';
import { BOOK_CSS, BOOK_PRESET, BOOK_TOY, BookWalk, bookNote } from './layernorm-book.js';
import { layerNormQuestions, layerNormSnippet, layerNormTarget } from './layernorm-learner.js';

const DEFAULT_VALUES = '1, 3, 5, 7; 10, 20, 30, 40; 0, 4, 4, 0';
const PRESETS = [
  { id: 'lesson', label: 'Lesson 82: [1, 3, 5, 7] and two more tokens', values: DEFAULT_VALUES },
  { id: 'book', label: 'Book §4.2: PyTorch’s toy Linear(5, 6) + ReLU output', values: BOOK_TOY.map((r) => r.join(', ')).join('; ') },
  { id: 'single', label: 'One token: [1, 3, 5, 7]', values: '1, 3, 5, 7' },
];
const TOKEN_COLORS = ['var(--bs-c1)', 'var(--bs-c2)', 'var(--bs-c3)', 'var(--bs-c4)', 'var(--bs-c5)', 'var(--bs-muted)',
  'var(--bs-fg)', 'var(--bs-accent)'];
const CHANGE_TOL = 1e-6;
// The prediction each detail-table column would give away (x̂ is y when γ = 1 and β = 0).
const PREDICTED_BY = { x: null, mean: 'mean', variance: 'variance', normalized: 'output', output: 'output' };

const CSS = `
.tokens { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0.35rem; margin: 0.3rem 0; }
.token-row { display: flex; gap: 0.4rem; align-items: center; }
.token-row label { min-width: 4.2rem; }
.token-row input { flex: 1 1 0; min-width: 0; width: 100%; max-width: 36rem; }
.token-row button { padding: 0.2rem 0.5rem; }
input[aria-invalid="true"] { border-color: var(--bs-c2); outline: 2px solid var(--bs-c2); }
.slider { display: grid; grid-template-columns: 5.5rem 1fr 3.2rem; gap: 0.5rem; align-items: center; width: 100%; max-width: 30rem; }
.slider output { text-align: right; }
.switch { font-weight: 600; }
.report { min-height: 1.45em; }
.report.trap { color: var(--bs-c2); font-weight: 600; }
dl.stats dd.text { font-family: inherit; }
tfoot th, tfoot td { border-top: 2px solid var(--bs-border); }
`;

export class LayerNormExplorer extends BlockscopeElement {
  static attrs = {
    values: { default: DEFAULT_VALUES, doc: 'tokens split by ";", features by ","' },
    token: { default: 1, min: 1, max: 64, int: true, doc: 'the token shown step by step' },
    gamma: { default: 1, min: -2, max: 3 }, beta: { default: 0, min: -2, max: 2 }, eps: { default: 1e-5, min: 0, max: 1 },
    axis: { default: 'features', options: ['features', 'sequence'] },
    predict: { default: '', doc: 'readouts to predict first: mean, variance, output, axis-quiz' },
    preset: { default: '', options: ['', BOOK_PRESET], doc: 'book-4.2: the book’s toy output, walked step by step' },
  };

  setup() {
    const s = this.shadowRoot;
    s.append(h('style', {}, KIT_CSS + PREDICT_CSS + CHECK_CSS + COPY_CSS + BOOK_CSS + CSS));
    this.book = new BookWalk(this.panelPort());
    this.batchNorm = new BatchNormPanel(this.panelPort());
    this.predict = new PredictPanel(this.panelPort(), { questions: layerNormQuestions(this), onReveal: () => this.draw() });
    this.check = new CheckPanel(this.panelPort(), { what: () => 'your LayerNorm’s output for all the tokens ' +
      `(shape (${this.result?.T ?? '…'}, ${this.result?.d ?? '…'})), with γ and β filled with the widget’s values`,
    target: () => layerNormTarget(this) });
    this.copy = new CopyPanel(this.panelPort(), { snippet: () => this.toPyTorch() });
    this.presetSelect = h('select', { id: 'preset' },
      h('option', { value: 'custom' }, 'Your own tokens'),
      ...PRESETS.map((p) => h('option', { value: p.id }, p.label)));
    this.tokenList = h('div', { class: 'tokens' });
    this.addButton = h('button', { type: 'button', class: 'add' }, 'Add a token');
    this.gammaInput = h('input', { type: 'range', id: 'gamma', ...limitsOf(this, 'gamma'), step: 0.1, 'aria-describedby': 'affine-help' });
    this.betaInput = h('input', { type: 'range', id: 'beta', ...limitsOf(this, 'beta'), step: 0.1, 'aria-describedby': 'affine-help' });
    this.gammaOut = h('output', { for: 'gamma', class: 'num' });
    this.betaOut = h('output', { for: 'beta', class: 'num' });
    this.axisSwitch = h('input', { type: 'checkbox', id: 'wrong-axis', role: 'switch', 'aria-describedby': 'axis-help' });
    this.tokenSelect = h('select', { id: 'token' });
    this.stats = h('dl', { class: 'stats' });
    this.detailChart = h('div', { class: 'chart detail-chart' });
    this.detailLegend = h('div');
    this.detailTable = h('table', { class: 'detail' });
    this.seqChart = h('div', { class: 'chart seq-chart' });
    this.seqLegend = h('div');
    this.seqTable = h('table', { class: 'sequence' });
    this.editReport = h('p', { class: 'report', 'aria-live': 'polite' });
    this.axisHelp = h('p', { class: 'muted', id: 'axis-help' });
    this.bookNote = h('p', { class: 'note book-note', hidden: true });
    const later = 'The chart appears once you have made your prediction.';
    Object.assign(this.detailChart.dataset, { predict: 'mean output', predictNote: later });
    Object.assign(this.seqChart.dataset, { predict: 'output', predictNote: later });
    this.detailLegend.dataset.predict = 'mean';
    this.bookNote.dataset.predict = 'variance';
    s.append(
      h('h3', {}, 'LayerNorm: normalize each token over its features'),
      h('p', { class: 'muted' }, 'LayerNorm(x) = γ ⊙ (x − μ) / √(σ² + ε) + β, where μ and σ² are the mean and the ',
        'biased variance (÷ d, like torch’s unbiased=False) of one token’s d features. Every number below is ',
        'computed by the Blockscope core.'),
      h('fieldset', {},
        h('legend', { class: 'fs' }, 'Input tokens (features separated by commas)'),
        h('div', { class: 'row' }, h('label', { for: 'preset' }, 'Example'), this.presetSelect),
        this.tokenList,
        h('div', { class: 'row' }, this.addButton)),
      h('fieldset', {},
        h('legend', { class: 'fs' }, 'Scale γ and shift β'),
        h('div', { class: 'slider' }, h('label', { for: 'gamma' }, 'γ (scale)'), this.gammaInput, this.gammaOut),
        h('div', { class: 'slider' }, h('label', { for: 'beta' }, 'β (shift)'), this.betaInput, this.betaOut),
        h('p', { class: 'muted', id: 'affine-help' }, 'One γ and one β for all features (nn.LayerNorm learns one ',
          'per feature, starting at 1 and 0). ', h('span', { class: 'eps' }))),
      h('div', { class: 'row' }, h('label', { class: 'switch' }, this.axisSwitch,
        ' Wrong axis: normalize over the sequence (tokens) instead of the features')),
      this.axisHelp,
      this.book.root,
      this.predict.element,
      h('h4', {}, h('label', { for: 'token' }, 'Token in detail '), this.tokenSelect),
      h('div', { class: 'pair' },
        h('div', {}, this.detailLegend, this.detailChart),
        h('div', {}, this.stats, h('div', { class: 'scroll' }, this.detailTable))),
      h('h4', {}, 'The whole sequence'),
      this.editReport,
      h('div', { class: 'pair' },
        h('div', {}, this.seqLegend, this.seqChart),
        h('div', { class: 'scroll' }, this.seqTable)),
      this.bookNote,
      this.batchNorm.root,
      this.check.element,
      this.copy.element,
      h('p', { class: 'status', role: 'status', id: 'status' }, 'Loading the core…'),
    );
    this.presetSelect.addEventListener('change', () => {
      const p = PRESETS.find((q) => q.id === this.presetSelect.value);
      if (p) this.setValues(parseTokens(p.values), { token: 1 });
    });
    this.addButton.addEventListener('click', () => this.addToken());
    this.gammaInput.addEventListener('input', () => this.setAttribute('gamma', this.gammaInput.value));
    this.betaInput.addEventListener('input', () => this.setAttribute('beta', this.betaInput.value));
    this.axisSwitch.addEventListener('change', () => this.setAttribute('axis', this.axisSwitch.checked ? 'sequence' : 'features'));
    this.tokenSelect.addEventListener('change', () => this.setAttribute('token', this.tokenSelect.value));
    this.whileConnected(() => watchWidth(this, () => this.result && this.draw()));
  }

  /** The last valid tokens: from the values attribute, or the default when it is invalid (with a message). */
  readValues() {
    try {
      // The book preset brings its tokens unless the page (or the learner) gives others.
      if (this.attr('preset') === BOOK_PRESET && !this.hasAttribute('values')) return { rows: BOOK_TOY };
      return { rows: parseTokens(this.attr('values')) };
    } catch (err) {
      return { rows: this.rows ?? parseTokens(DEFAULT_VALUES), error: `values: ${err.message}` };
    }
  }

  /** Sets new tokens through the attribute (and optionally the token shown in detail). */
  setValues(rows, { token } = {}) {
    this.setAttribute('values', rowsToText(rows));
    if (token) this.setAttribute('token', String(token));
  }

  async start() {
    await this.update();
  }

  /** The book walk follows the preset (and ε). */
  async updateBook() {
    const on = this.attr('preset') === BOOK_PRESET;
    this.book.hidden = !on;
    if (on) await this.book.update().catch((err) => this.status(`Could not load the book’s numbers: ${err.message}`, { error: true }));
  }

  attributeChanged() {
    // The base class applies URL-hash attributes before setup(); start() reads them anyway.
    if (this.tokenList) this.update();
  }

  async update() {
    this.updateBook();
    const { rows, error } = this.readValues();
    const T = rows.length;
    const d = rows[0].length;
    const gamma = this.numAttr('gamma');
    const beta = this.numAttr('beta');
    const eps = this.numAttr('eps');
    const axis = this.attr('axis') === 'sequence' ? 'sequence' : 'features';
    const token = Math.min(T, Math.max(1, Math.round(this.numAttr('token'))));
    this.syncControls(rows, { gamma, beta, eps, axis, token });
    const seq = (this.seq = (this.seq ?? 0) + 1);
    let r;
    try {
      if (!(eps >= 0)) throw new Error(`eps must be a number ≥ 0, got "${this.attr('eps')}"`);
      const rt = await this.runtime();
      this.flavour = rt.flavour;
      const x = Float32Array.from(rows.flat());
      if (axis === 'features') {
        r = await rt.layerNorm(x, { gamma: new Float32Array(d).fill(gamma), beta: new Float32Array(d).fill(beta), eps });
      } else {
        // The trap: statistics over the T tokens of each feature. Transpose (T, d) -> (d, T), normalize rows of
        // length T in the core, transpose the results back.
        const c = await rt.layerNorm(transpose(x, T, d), {
          gamma: new Float32Array(T).fill(gamma), beta: new Float32Array(T).fill(beta), eps, dim: T });
        r = { ...c, normalized: transpose(c.normalized, d, T), output: transpose(c.output, d, T) };
      }
    } catch (err) {
      if (seq === this.seq) this.status(`Could not compute LayerNorm: ${err.message}`, { error: true });
      return;
    }
    if (seq !== this.seq) return; // a newer state is being computed
    const prev = this.result;
    this.rows = rows;
    this.result = {
      rows, T, d, gamma, beta, eps, axis, token,
      mean: Array.from(r.mean), variance: Array.from(r.variance), rstd: Array.from(r.rstd),
      normalized: toRows(r.normalized, T, d), output: toRows(r.output, T, d),
    };
    this.changes = this.compareWith(prev);
    this.draw();
    if (error) this.status(`${error} — showing the last valid tokens.`, { error: true });
    else this.status(`Computed by the core (wasm ${this.flavour}): T = ${T} token${T > 1 ? 's' : ''} × d = ${d} features.`);
    const res = this.result;
    this.emit('change', {
      axis, eps, gamma, beta, T, d, input: rows, mean: res.mean, variance: res.variance, rstd: res.rstd,
      normalized: res.normalized, output: res.output,
      changedInputs: this.changes?.inputs ?? [], changedOutputs: this.changes?.outputs ?? [],
    });
    if (!this.readySent) {
      this.readySent = true;
      this.emit('ready', { T, d });
    }
  }

  /** After an edit of the inputs (same shape, same γ/β/ε/axis): which tokens' inputs and outputs changed. */
  compareWith(prev) {
    const cur = this.result;
    if (!prev || prev.T !== cur.T || prev.d !== cur.d || prev.axis !== cur.axis ||
        prev.gamma !== cur.gamma || prev.beta !== cur.beta || prev.eps !== cur.eps) return null;
    const inputs = [];
    const outputs = [];
    const cells = cur.output.map(() => []);
    for (let t = 0; t < cur.T; t++) {
      if (!sameRow(prev.rows[t], cur.rows[t])) inputs.push(t + 1);
      cur.output[t].forEach((v, i) => { if (Math.abs(v - prev.output[t][i]) > CHANGE_TOL) cells[t][i] = true; });
      if (cells[t].some(Boolean)) outputs.push(t + 1);
    }
    return inputs.length ? { inputs, outputs, cells } : null;
  }

  /** Brings the form controls in line with the attributes, leaving a field alone while it parses to its row. */
  syncControls(rows, { gamma, beta, axis, token, eps }) {
    const T = rows.length;
    const fields = [...this.tokenList.querySelectorAll('input')];
    if (fields.length !== T) {
      this.tokenList.replaceChildren(...rows.map((_, t) => this.tokenRow(t)));
    }
    this.tokenList.querySelectorAll('input').forEach((input, t) => {
      let same = false;
      try {
        same = sameRow(parseNumbers(input.value), rows[t]);
      } catch { /* an invalid field is rewritten with the last valid values */ }
      if (!same || input.getAttribute('aria-invalid') === 'true') {
        if (!same) input.value = rows[t].join(', ');
        input.removeAttribute('aria-invalid');
      }
    });
    this.tokenList.querySelectorAll('button.remove').forEach((b) => { b.disabled = T === 1; });
    this.addButton.disabled = T >= MAX_TOKENS;
    const text = rowsToText(rows);
    this.presetSelect.value = PRESETS.find((p) => rowsToText(parseTokens(p.values)) === text)?.id ?? 'custom';
    this.gammaInput.value = String(gamma);
    this.betaInput.value = String(beta);
    this.gammaOut.value = fmt(gamma, 1);
    this.betaOut.value = fmt(beta, 1);
    this.gammaInput.setAttribute('aria-valuetext', `γ = ${fmt(gamma, 1)}`);
    this.betaInput.setAttribute('aria-valuetext', `β = ${fmt(beta, 1)}`);
    this.shadowRoot.querySelector('.eps').textContent = `ε = ${eps.toExponential().replace('-', '−')}.`;
    this.axisSwitch.checked = axis === 'sequence';
    this.tokenSelect.replaceChildren(...rows.map((_, t) => h('option', { value: String(t + 1) }, `token ${t + 1}`)));
    this.tokenSelect.value = String(token);
  }

  tokenRow(t) {
    const id = `tok-${t}`;
    const input = h('input', { type: 'text', id, inputmode: 'text', spellcheck: 'false', autocomplete: 'off',
      'aria-describedby': 'status', 'aria-label': `Token ${t + 1}: features, separated by commas` });
    input.addEventListener('input', () => this.onTokenInput(t, input));
    const nudge = h('button', { type: 'button', class: 'nudge', 'aria-label': `Add 1 to the first feature of token ${t + 1}`,
      title: `Add 1 to the first feature of token ${t + 1}` }, '+1');
    nudge.addEventListener('click', () => {
      const rows = this.rows.map((r) => r.slice());
      rows[t][0] = Number((rows[t][0] + 1).toPrecision(12));
      this.setValues(rows);
    });
    const remove = h('button', { type: 'button', class: 'remove', 'aria-label': `Remove token ${t + 1}`,
      title: `Remove token ${t + 1}` }, '✕');
    remove.addEventListener('click', () => {
      const rows = this.rows.filter((_, i) => i !== t);
      if (rows.length) this.setValues(rows, { token: Math.min(this.numAttr('token'), rows.length) });
    });
    return h('div', { class: 'token-row' }, h('label', { for: id }, `Token ${t + 1}`), input, nudge, remove);
  }

  onTokenInput(t, input) {
    const fields = [...this.tokenList.querySelectorAll('input')];
    let rows;
    try {
      rows = checkRows(fields.map((f, i) => {
        try {
          return parseNumbers(f.value);
        } catch (err) {
          throw Object.assign(new Error(`token ${i + 1}: ${err.message}`), { field: f });
        }
      }));
    } catch (err) {
      fields.forEach((f) => f.removeAttribute('aria-invalid'));
      (err.field ?? input).setAttribute('aria-invalid', 'true');
      this.status(`${err.message.replace(/^./, (c) => c.toUpperCase())} — showing the last valid tokens.`, { error: true });
      return;
    }
    fields.forEach((f) => f.removeAttribute('aria-invalid'));
    if (rows.every((r, i) => sameRow(r, this.rows[i]))) {
      this.status(`Computed by the core (wasm ${this.flavour}).`);
      return;
    }
    this.setValues(rows);
  }

  addToken() {
    if (!this.rows || this.rows.length >= MAX_TOKENS) return;
    const rows = [...this.rows, this.rows[this.rows.length - 1].slice().reverse()];
    this.setValues(rows, { token: rows.length });
    this.tokenList.querySelectorAll('input')[rows.length - 1]?.focus();
  }

  draw() {
    // Tables first, then both charts' widths in one read (one layout pass, not one per chart), then the charts.
    const charts = [[this.drawDetail(), this.detailChart], [this.drawSequence(), this.seqChart]];
    const widths = charts.map(([, box]) => chartWidth(box));
    charts.forEach(([drawChart], i) => drawChart(widths[i]));
    this.drawNotes();
    this.predict.render();
    this.predict.mask(this.shadowRoot);
    this.check.refresh();
    this.copy.refresh();
  }

  /** The current state as a runnable PyTorch snippet that prints the numbers the widget shows. */
  toPyTorch() {
    return this.result ? layerNormSnippet(this) : '';
  }

  /** Fills the detail table and legend; returns the drawing of the detail chart at a given width. */
  drawDetail() {
    const { rows, d, T, token, axis, mean, variance, rstd, normalized, output, gamma, beta } = this.result;
    const t = token - 1;
    const x = rows[t];
    const wrong = axis === 'sequence';
    const affine = [h('dt', {}, 'y = γ·x̂ + β'), h('dd', { class: 'text' }, `with γ = ${fmt(gamma, 1)}, β = ${fmt(beta, 1)}`)];
    if (wrong) {
      this.stats.replaceChildren(
        h('dt', {}, 'μᵢ, σ²ᵢ'), h('dd', { class: 'text' }, `per feature i, over the ${T} token${T > 1 ? 's' : ''}`), ...affine);
    } else {
      this.stats.replaceChildren(
        h('dt', {}, 'mean μ'), h('dd', { 'data-stat': 'mean', 'data-predict': 'mean' }, fmt(mean[t])),
        h('dt', {}, 'variance σ²'), h('dd', { 'data-stat': 'variance', 'data-predict': 'variance' }, fmt(variance[t])),
        h('dt', {}, '1 / √(σ² + ε)'), h('dd', { 'data-stat': 'rstd', 'data-predict': 'variance' }, fmt(rstd[t])), ...affine);
    }
    // On the wrong axis the table shows each feature's statistics instead of x̂ (x̂ = y when γ = 1, β = 0).
    const cols = [
      { key: 'x', label: 'xᵢ', v: x },
      ...(wrong ? [{ key: 'mean', label: 'μᵢ', v: mean }, { key: 'variance', label: 'σ²ᵢ', v: variance }]
        : [{ key: 'normalized', label: 'x̂ᵢ', v: normalized[t] }]),
      { key: 'output', label: 'yᵢ', v: output[t] },
    ];
    this.detailTable.replaceChildren(
      h('caption', { class: 'visually-hidden' }, `Token ${token}: input, normalized and output values per feature`),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'i'), ...cols.map((c) => h('th', { scope: 'col' }, c.label)))),
      h('tbody', {}, ...x.map((_, i) => h('tr', {}, h('th', { scope: 'row' }, String(i + 1)),
        ...cols.map((c) => h('td', { class: `num ${this.changes?.cells[t]?.[i] && c.key === 'output' ? 'changed' : ''}`,
          'data-col': c.key, 'data-predict': PREDICTED_BY[c.key] }, fmt(c.v[i])))))));

    const groups = x.map((_, i) => String(i + 1));
    const series = [
      { key: 'x', label: 'before: input x', color: 'var(--bs-c1)', values: x },
      { key: 'y', label: 'after: output y = γ·x̂ + β', color: 'var(--bs-c3)', values: output[t] },
    ];
    this.detailLegend.replaceChildren(legend([...series,
      ...(wrong ? [] : [{ label: `mean μ of x (${fmt(mean[t])})`, color: 'var(--bs-c4)', outline: true }])]));
    this.detailChart.replaceChildren();
    return (width) => this.drawDetailChart({ groups, series, width, token, x, t, wrong });
  }

  /** The detail chart: token t's features before and after, with its mean. */
  drawDetailChart({ groups, series, width, token, x, t, wrong }) {
    const { mean, variance, output } = this.result;
    const chart = groupedBars(this.detailChart, {
      groups, series, width, height: 240,
      xLabel: 'feature index i', yLabel: 'value (dimensionless)',
      title: `Token ${token} before and after LayerNorm`,
      description: `Token ${token}, feature by feature. Before: ${x.map((v) => fmt(v)).join(', ')}. ` +
        `After: ${output[t].map((v) => fmt(v)).join(', ')}.` +
        (wrong ? '' : ` Mean ${fmt(mean[t])}, variance ${fmt(variance[t])}.`),
      extraY: wrong ? [] : [mean[t]],
    });
    if (!wrong) {
      chart.plot.append('line').attr('class', 'mean-line').attr('x1', 0).attr('x2', chart.innerW)
        .attr('y1', chart.y(mean[t])).attr('y2', chart.y(mean[t])).attr('stroke', 'var(--bs-c4)')
        .attr('stroke-width', 2).attr('stroke-dasharray', '6 4');
    }
  }

  /** Fills the sequence table and legend; returns the drawing of the sequence chart at a given width. */
  drawSequence() {
    const { rows, T, d, axis, mean, variance, output } = this.result;
    const wrong = axis === 'sequence';
    const cells = this.changes?.cells;
    const vec = (v, t) => h('div', { class: 'vec num' }, ...v.map((e, i) =>
      h('span', { class: cells?.[t]?.[i] ? 'changed' : '' }, fmt(e))));
    const body = rows.map((_, t) => {
      const changed = this.changes?.outputs.includes(t + 1);
      return h('tr', { 'data-token': String(t + 1), 'data-changed': changed ? 'true' : null },
        h('th', { scope: 'row' }, `token ${t + 1}`, changed ? h('span', { class: 'visually-hidden' }, ' (output changed)') : null),
        ...(wrong ? [] : [h('td', { class: 'num', 'data-stat': 'mean', 'data-predict': 'mean' }, fmt(mean[t])),
          h('td', { class: 'num', 'data-stat': 'variance', 'data-predict': 'variance' }, fmt(variance[t]))]),
        h('td', { 'data-col': 'output', 'data-predict': 'output' }, vec(output[t], t)));
    });
    this.seqTable.replaceChildren(
      h('caption', { class: 'visually-hidden' }, wrong
        ? 'Every token’s output, with per-feature statistics over the tokens (wrong axis)'
        : 'Every token’s mean, variance and output'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'token'),
        ...(wrong ? [] : [h('th', { scope: 'col' }, 'μ'), h('th', { scope: 'col' }, 'σ²')]),
        h('th', { scope: 'col' }, 'output y'))),
      h('tbody', {}, ...body),
      ...(!wrong ? [] : [h('tfoot', {},
        h('tr', {}, h('th', { scope: 'row' }, 'μ per feature'),
          h('td', { 'data-stat': 'feature-mean', 'data-predict': 'mean' }, vec(mean, -1))),
        h('tr', {}, h('th', { scope: 'row' }, 'σ² per feature'),
          h('td', { 'data-stat': 'feature-variance', 'data-predict': 'variance' }, vec(variance, -1))))]));

    const series = output.map((v, t) => ({ key: `t${t + 1}`, label: `token ${t + 1}`, color: TOKEN_COLORS[t % TOKEN_COLORS.length], values: v }));
    this.seqLegend.replaceChildren(legend(series));
    this.seqChart.replaceChildren();
    return (width) => {
      groupedBars(this.seqChart, {
        groups: rows[0].map((_, i) => String(i + 1)), series, width, height: 240,
        xLabel: 'feature index i', yLabel: 'output y (dimensionless)',
        title: `LayerNorm outputs of all ${T} tokens${wrong ? ' (normalized over the wrong axis)' : ''}`,
        description: output.map((v, t) => `Token ${t + 1}: ${v.map((e) => fmt(e)).join(', ')}.`).join(' '),
      });
      this.seqChart.querySelector('svg')?.setAttribute('data-d', String(d));
    };
  }

  drawNotes() {
    const { axis, T, variance } = this.result;
    const wrong = axis === 'sequence';
    this.axisHelp.textContent = wrong
      ? `Wrong axis: each feature is normalized over the ${T} token${T > 1 ? 's' : ''} of the sequence (like ` +
        'BatchNorm over a batch). A token’s output now depends on the other tokens — edit one token (or press +1) ' +
        'and watch the others change.' + (T === 1 ? ' With a single token every feature has variance 0, so every output is β.' : '')
      : 'LayerNorm: each token is normalized with its own mean and variance, so editing one token changes only ' +
        'that token’s output. Flip the switch to see what goes wrong on the other axis.';
    const c = this.changes;
    this.editReport.classList.remove('trap');
    if (!c) {
      this.editReport.textContent = '';
    } else {
      const list = (ts) => (ts.length === 1 ? `token ${ts[0]}` : `tokens ${ts.join(', ')}`);
      const others = c.outputs.filter((t) => !c.inputs.includes(t));
      if (others.length) {
        this.editReport.classList.add('trap');
        this.editReport.textContent = `You changed ${list(c.inputs)}; outputs changed for ${list(c.outputs)}. ` +
          `${others.length === 1 ? 'Token' : 'Tokens'} ${others.join(', ')} changed without being edited: the ` +
          'statistics were taken across tokens.';
      } else {
        this.editReport.textContent = `You changed ${list(c.inputs)}; only ${c.outputs.length ? list(c.outputs) : 'no token'}’s ` +
          'output changed — each token is normalized on its own.';
      }
    }
    const book = this.presetSelect.value === 'book' && !wrong;
    this.bookNote.hidden = !book;
    if (book) {
      this.bookNote.textContent = bookNote(variance);
    }
  }
}

define('layernorm-explorer', LayerNormExplorer);
