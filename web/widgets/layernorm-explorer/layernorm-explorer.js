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
// Parts: title, formula, book (the book §4.2 walk), predict, detail (the token in detail), sequence (the whole
//   sequence), batchnorm (LayerNorm vs BatchNorm on variable-length batches, layernorm-batchnorm.js), check,
//   check-input, check-result, copy-pytorch (kit panels), chart, controls, status.
// Layout (kit/layout.js): control groups tokens, gamma, beta, axis, token, book, padding; sections as listed in
//   `static sections`. Text comes from i18n/<locale>/layernorm-explorer.js (prefix layernorm.).
// Events: blockscope-change {axis, eps, gamma, beta, T, d, input, mean, variance, rstd, normalized, output,
//   changedInputs, changedOutputs} (matrices as arrays of rows; stats per token, or per feature on the wrong
//   axis; changed* are 1-based token numbers after an edit of the inputs), blockscope-ready.
import { BlockscopeElement, define, h, parseNumbers, UPDATE } from '../kit/base.js';
import { chartWidth, KIT_CSS, watchWidth } from '../kit/chart-kit.js';
import { CHECK_CSS, CheckPanel } from '../kit/check-panel.js';
import { limitsOf } from '../kit/controls.js';
import { COPY_CSS, CopyPanel } from '../kit/copy-pytorch.js';
import { PREDICT_CSS, PredictPanel } from '../kit/predict-panel.js';
import { checkRows, MAX_TOKENS, parseTokens, rowsToText, sameRow, toRows, transpose } from './layernorm-rows.js';
import { BatchNormPanel } from './layernorm-batchnorm.js';
import { BOOK_CSS, BOOK_PRESET, BOOK_TOY, BookWalk } from './layernorm-book.js';
import { layerNormQuestions, layerNormSnippet, layerNormTarget } from './layernorm-learner.js';
import { drawDetail, drawNotes, drawSequence } from './layernorm-views.js';
import en from '../i18n/en/layernorm-explorer.js';
import { fieldError } from '../kit/field-error.js';

const DEFAULT_VALUES = '1, 3, 5, 7; 10, 20, 30, 40; 0, 4, 4, 0';
const PRESETS = [
  { id: 'lesson', label: 'layernorm.preset.lesson', values: DEFAULT_VALUES },
  { id: 'book', label: 'layernorm.preset.book', values: BOOK_TOY.map((r) => r.join(', ')).join('; ') },
  { id: 'single', label: 'layernorm.preset.single', values: '1, 3, 5, 7' },
];
const CHANGE_TOL = 1e-6;

const CSS = `
.tokens { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0.35rem; margin: 0.3rem 0; }
.token-row { display: flex; gap: 0.4rem; align-items: center; }
.token-row label { min-width: 4.2rem; }
.token-row input { flex: 1 1 0; min-width: 0; width: 100%; max-width: 36rem; }
.token-row button { padding: 0.2rem 0.5rem; }
input[aria-invalid="true"] { border-color: var(--bs-c2); outline: 2px solid var(--bs-c2); }
/* One grid for both sliders, its first column as wide as the longer label (in every language). */
.sliders { display: grid; grid-template-columns: max-content minmax(0, 20rem) 3.2rem; gap: 0.3rem 0.5rem;
  align-items: center; justify-content: start; }
.sliders > .slider { display: contents; }
.slider output { text-align: end; }
table.sequence th[scope="row"] { white-space: nowrap; }
.switch { font-weight: 600; }
.report { min-height: 1.45em; }
.report.trap { color: var(--bs-c2); font-weight: 600; }
dl.stats dd.text { font-family: inherit; }
tfoot th, tfoot td { border-top: 2px solid var(--bs-border); }
fieldset.affine:not(:has(> .sliders > .slider:not([data-bs-off]))) { display: none; }
h4 .token-name { display: none; }
h4:has(select[data-bs-off]) label { display: none; }
h4:has(select[data-bs-off]) .token-name { display: inline; }
`;

/** Enables or disables a control, leaving a control the author locked (lock="…") disabled until it is unlocked. */
function setEnabled(el, on) {
  if (el.hasAttribute('data-bs-locked')) el.setAttribute('data-bs-locked', on ? '' : 'was-disabled');
  else el.disabled = !on;
}

/** ε for reading: 1e−5 (English), 2,5e−3 (German); the mantissa's digits as JavaScript writes them. */
function epsText(el, eps) {
  const [m, e] = eps.toExponential().split('e');
  return `${el.num(Number(m), (m.split('.')[1] ?? '').length)}e${e.replace('+', '').replace('-', '−')}`;
}

export class LayerNormExplorer extends BlockscopeElement {
  static attrs = {
    values: { default: DEFAULT_VALUES, group: 'tokens', doc: 'tokens split by ";", features by ","' },
    token: { default: 1, min: 1, max: 64, int: true, doc: 'the token shown step by step' },
    gamma: { default: 1, min: -2, max: 3 }, beta: { default: 0, min: -2, max: 2 }, eps: { default: 1e-5, min: 0, max: 1 },
    axis: { default: 'features', options: ['features', 'sequence'] },
    predict: { default: '', doc: 'readouts to predict first: mean, variance, output, axis-quiz' },
    preset: { default: '', options: ['', BOOK_PRESET], doc: 'book-4.2: the book’s toy output, walked step by step' },
  };

  static controlGroups = {
    tokens: 'the input tokens: the example menu, each token’s field with its +1 and ✕ buttons, “Add a token”',
    gamma: 'the γ (scale) slider',
    beta: 'the β (shift) slider',
    axis: 'the “wrong axis” switch (normalize over the sequence instead of the features)',
    token: 'the menu of the token shown in detail',
    book: 'the book §4.2 walk’s step buttons, unbiased-variance switch and per-feature γ and β (preset="book-4.2")',
    padding: 'LayerNorm vs BatchNorm’s “count the padding” switch',
  };

  static sections = {
    title: 'the heading',
    formula: 'the LayerNorm formula under the heading',
    book: 'the book §4.2 walk (preset="book-4.2")',
    predict: 'the predictions (predict="…")',
    detail: 'the token in detail: its mean, variance, chart and table',
    sequence: 'the whole sequence: chart, table, what an edit changed',
    batchnorm: 'LayerNorm vs BatchNorm, for real',
    check: 'check your implementation',
    'copy-pytorch': 'Copy as PyTorch',
    status: 'the status line',
  };

  setup() {
    const s = this.shadowRoot;
    const t = (key, params) => this.t(key, params);
    s.append(h('style', {}, KIT_CSS + PREDICT_CSS + CHECK_CSS + COPY_CSS + BOOK_CSS + CSS));
    this.book = new BookWalk(this.panelPort());
    this.batchNorm = new BatchNormPanel(this.panelPort());
    this.predictPanel = new PredictPanel(this.panelPort(), { questions: layerNormQuestions(this), onReveal: () => this.draw() });
    this.check = new CheckPanel(this.panelPort(), {
      what: () => t('layernorm.check.what', { T: this.result?.T ?? '…', d: this.result?.d ?? '…' }),
      target: () => layerNormTarget(this) });
    this.copy = new CopyPanel(this.panelPort(), { snippet: () => this.toPyTorch() });
    this.presetSelect = h('select', { id: 'preset' },
      h('option', { value: 'custom' }, t('layernorm.preset.custom')),
      ...PRESETS.map((p) => h('option', { value: p.id }, t(p.label))));
    this.tokenList = h('div', { class: 'tokens' });
    this.addButton = h('button', { type: 'button', class: 'add' }, t('layernorm.addToken'));
    this.gammaInput = h('input', { type: 'range', id: 'gamma', ...limitsOf(this, 'gamma'), step: 0.1, 'aria-describedby': 'affine-help' });
    this.betaInput = h('input', { type: 'range', id: 'beta', ...limitsOf(this, 'beta'), step: 0.1, 'aria-describedby': 'affine-help' });
    this.gammaOut = h('output', { for: 'gamma', class: 'num' });
    this.betaOut = h('output', { for: 'beta', class: 'num' });
    this.axisSwitch = h('input', { type: 'checkbox', id: 'wrong-axis', role: 'switch', 'aria-describedby': 'axis-help' });
    this.tokenSelect = h('select', { id: 'token' });
    this.tokenName = h('span', { class: 'token-name' });
    this.stats = h('dl', { class: 'stats' });
    this.overflowNote = h('p', { class: 'note overflow-note', hidden: true, role: 'note' });
    this.detailChart = h('div', { class: 'chart detail-chart' });
    this.detailLegend = h('div');
    this.detailTable = h('table', { class: 'detail' });
    this.seqChart = h('div', { class: 'chart seq-chart' });
    this.seqLegend = h('div');
    this.seqTable = h('table', { class: 'sequence' });
    this.editReport = h('p', { class: 'report', 'aria-live': 'polite' });
    this.axisText = document.createTextNode('');
    this.flipHint = h('span', { class: 'flip-hint' });
    this.axisHelp = h('p', { class: 'muted', id: 'axis-help' }, this.axisText, this.flipHint);
    this.bookNote = h('p', { class: 'note book-note', hidden: true });
    const later = t('layernorm.chartAfterPrediction');
    Object.assign(this.detailChart.dataset, { predict: 'mean output', predictNote: later });
    Object.assign(this.seqChart.dataset, { predict: 'output', predictNote: later });
    this.detailLegend.dataset.predict = 'mean';
    this.bookNote.dataset.predict = 'variance';
    const tokens = h('fieldset', { class: 'tokens-fs' },
      h('legend', { class: 'fs' }, t('layernorm.tokensLegend')),
      h('div', { class: 'row' }, h('label', { for: 'preset' }, t('layernorm.example')), this.presetSelect),
      this.tokenList,
      h('div', { class: 'row' }, this.addButton));
    const gammaRow = h('div', { class: 'slider' }, h('label', { for: 'gamma' }, t('layernorm.gammaLabel')), this.gammaInput, this.gammaOut);
    const betaRow = h('div', { class: 'slider' }, h('label', { for: 'beta' }, t('layernorm.betaLabel')), this.betaInput, this.betaOut);
    const axisLabel = h('label', { class: 'switch' }, this.axisSwitch, ` ${t('layernorm.wrongAxisSwitch')}`);
    s.append(
      h('h3', { part: 'title' }, t('layernorm.title')),
      h('p', { class: 'muted', part: 'formula' }, t('layernorm.formula')),
      tokens,
      h('fieldset', { class: 'affine' },
        h('legend', { class: 'fs' }, t('layernorm.affineLegend')),
        h('div', { class: 'sliders' }, gammaRow, betaRow),
        h('p', { class: 'muted', id: 'affine-help' }, t('layernorm.affineHelp'), ' ', h('span', { class: 'eps' }))),
      h('div', { class: 'row', part: 'controls' }, axisLabel),
      this.axisHelp,
      this.book.root,
      this.predictPanel.element,
      h('div', { part: 'detail' },
        h('h4', {}, h('label', { for: 'token' }, `${t('layernorm.tokenInDetail')} `), this.tokenSelect, this.tokenName),
        h('div', { class: 'pair' },
          h('div', {}, this.detailLegend, this.detailChart),
          h('div', {}, this.stats, this.overflowNote, h('div', { class: 'scroll' }, this.detailTable)))),
      h('div', { part: 'sequence' },
        h('h4', {}, t('layernorm.wholeSequence')),
        this.editReport,
        h('div', { class: 'pair' },
          h('div', {}, this.seqLegend, this.seqChart),
          h('div', { class: 'scroll' }, this.seqTable)),
        this.bookNote),
      this.batchNorm.root,
      this.check.element,
      this.copy.element,
      h('p', { class: 'status', role: 'status', id: 'status' }, t('layernorm.loading')),
    );
    // The control groups (controls="…", lock="…"): gamma, beta, axis and token are bound to their attributes.
    this.boundControls.add('gamma', this.gammaInput);
    this.boundControls.wrap('gamma', gammaRow);
    this.boundControls.add('beta', this.betaInput);
    this.boundControls.wrap('beta', betaRow);
    this.boundControls.add('axis', this.axisSwitch);
    this.boundControls.wrap('axis', axisLabel);
    this.boundControls.add('token', this.tokenSelect);
    this.boundControls.addGroup('axis', this.flipHint);
    this.boundControls.addGroup('tokens', tokens);
    this.boundControls.addGroup('book', ...this.book.boundControls);
    this.boundControls.addGroup('padding', this.batchNorm.control);
    this.presetSelect.addEventListener('change', () => {
      const p = PRESETS.find((q) => q.id === this.presetSelect.value);
      if (p) this.setValues(parseTokens(p.values, t), { token: 1 });
    });
    this.addButton.addEventListener('click', () => this.addToken());
    this.gammaInput.addEventListener('input', () => this.set('gamma', this.gammaInput.value));
    this.betaInput.addEventListener('input', () => this.set('beta', this.betaInput.value));
    this.axisSwitch.addEventListener('change', () => this.set('axis', this.axisSwitch.checked ? 'sequence' : 'features'));
    this.tokenSelect.addEventListener('change', () => this.set('token', this.tokenSelect.value));
    this.whileConnected(() => watchWidth(this, () => this.result && this.draw()));
  }

  /** The last valid tokens: from the values attribute, or the default when it is invalid (with a message). */
  readValues() {
    const t = (key, params) => this.t(key, params);
    try {
      // The book preset brings its tokens unless the page (or the learner) gives others.
      if (this.attr('preset') === BOOK_PRESET && !this.hasAttribute('values')) return { rows: BOOK_TOY };
      return { rows: parseTokens(this.attr('values'), t) };
    } catch (err) {
      return { rows: this.rows ?? parseTokens(DEFAULT_VALUES, t), error: err.message };
    }
  }

  /** Sets new tokens through the attribute (and optionally the token shown in detail): the learner's edit. */
  setValues(rows, { token } = {}) {
    if (!this.set('values', rowsToText(rows))) return;
    if (token) this.set('token', String(token));
  }

  async start() {
    await this.invalidate(UPDATE.RECOMPUTE);
  }

  /** The book walk follows the preset (and ε). */
  async updateBook() {
    const on = this.attr('preset') === BOOK_PRESET;
    this.book.hidden = !on;
    if (on) {
      await this.book.update().catch((err) => this.status(this.t('layernorm.bookFailed', { error: err.message }), { error: true }));
    }
  }

  attributeChanged() {
    // The base class applies URL-hash attributes before setup(); start() reads them anyway.
    if (this.tokenList) this.invalidate(UPDATE.RECOMPUTE);
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
      if (!(eps >= 0)) throw new Error(this.t('layernorm.epsInvalid', { value: this.attr('eps') }));
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
      if (seq === this.seq) this.status(this.t('layernorm.computeFailed', { error: err.message }), { error: true });
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
    if (error) this.status(this.t('layernorm.invalidValues', { error }), { error: true });
    else this.status(this.t('layernorm.computed', { flavour: this.flavour, count: T, d }));
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
      this.tokenList.replaceChildren(...rows.map((_, i) => this.tokenRow(i)));
    }
    this.tokenList.querySelectorAll('input').forEach((input, i) => {
      let same = false;
      try {
        same = sameRow(parseNumbers(input.value), rows[i]);
      } catch { /* an invalid field is rewritten with the last valid values */ }
      if (!same || input.getAttribute('aria-invalid') === 'true') {
        if (!same) input.value = rows[i].join(', ');
        fieldError(input, null);
      }
    });
    this.tokenList.querySelectorAll('button.remove').forEach((b) => setEnabled(b, T > 1));
    setEnabled(this.addButton, T < MAX_TOKENS);
    const text = rowsToText(rows);
    this.presetSelect.value = PRESETS.find((p) => rowsToText(parseTokens(p.values)) === text)?.id ?? 'custom';
    this.gammaInput.value = String(gamma);
    this.betaInput.value = String(beta);
    this.gammaOut.value = this.num(gamma, 1);
    this.betaOut.value = this.num(beta, 1);
    this.gammaInput.setAttribute('aria-valuetext', `γ = ${this.num(gamma, 1)}`);
    this.betaInput.setAttribute('aria-valuetext', `β = ${this.num(beta, 1)}`);
    this.shadowRoot.querySelector('.eps').textContent = `ε = ${epsText(this, eps)}.`;
    this.axisSwitch.checked = axis === 'sequence';
    this.tokenSelect.replaceChildren(...rows.map((_, i) => h('option', { value: String(i + 1) },
      this.t('layernorm.tokenOption', { n: i + 1 }))));
    this.tokenSelect.value = String(token);
    this.tokenName.textContent = this.t('layernorm.tokenInDetailFixed', { n: token });
  }

  tokenRow(i) {
    const id = `tok-${i}`;
    const n = i + 1;
    const input = h('input', { type: 'text', id, inputmode: 'text', spellcheck: 'false', autocomplete: 'off',
      'aria-describedby': 'status', 'aria-label': this.t('layernorm.tokenField', { n }) });
    input.addEventListener('input', () => this.onTokenInput(i, input));
    const nudgeText = this.t('layernorm.nudge', { n });
    const nudge = h('button', { type: 'button', class: 'nudge', 'aria-label': nudgeText, title: nudgeText }, '+1');
    nudge.addEventListener('click', () => {
      const rows = this.rows.map((r) => r.slice());
      rows[i][0] = Number((rows[i][0] + 1).toPrecision(12));
      this.setValues(rows);
    });
    const removeText = this.t('layernorm.remove', { n });
    const remove = h('button', { type: 'button', class: 'remove', 'aria-label': removeText, title: removeText }, '✕');
    remove.addEventListener('click', () => {
      const rows = this.rows.filter((_, k) => k !== i);
      if (rows.length) this.setValues(rows, { token: Math.min(this.numAttr('token'), rows.length) });
    });
    return h('div', { class: 'token-row' }, h('label', { for: id }, this.t('layernorm.tokenLabel', { n })), input, nudge, remove);
  }

  onTokenInput(i, input) {
    const t = (key, params) => this.t(key, params);
    const fields = [...this.tokenList.querySelectorAll('input')];
    let rows;
    try {
      rows = checkRows(fields.map((f, k) => {
        try {
          return parseNumbers(f.value);
        } catch (err) {
          throw Object.assign(new Error(t('layernorm.rows.entry', { token: k + 1, error: err.message })), { field: f });
        }
      }), t);
    } catch (err) {
      // The message right under the field at fault (field-error.js), not in the status line far below.
      const error = err.message.replace(/^./, (c) => c.toLocaleUpperCase(this.messages.locale));
      const bad = err.field ?? input;
      for (const f of fields) fieldError(f, f === bad ? t('layernorm.invalidTokens', { error }) : null, { after: f.closest('.token-row') });
      return;
    }
    for (const f of fields) fieldError(f, null);
    if (rows.every((r, k) => sameRow(r, this.rows[k]))) {
      this.status(t('layernorm.computedShort', { flavour: this.flavour }));
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
    const charts = [[drawDetail(this), this.detailChart], [drawSequence(this), this.seqChart]];
    const widths = charts.map(([, box]) => chartWidth(box));
    charts.forEach(([drawChart], i) => drawChart(widths[i]));
    drawNotes(this);
    this.predictPanel.render();
    this.predictPanel.mask(this.shadowRoot);
    this.check.refresh();
    this.copy.refresh();
  }

  /** The current state as a runnable PyTorch snippet that prints the numbers the widget shows. */
  toPyTorch() {
    return this.result ? layerNormSnippet(this) : '';
  }
}

define('layernorm-explorer', LayerNormExplorer, en);
