// <gelu-explorer> — GELU (tanh approximation and exact erf) against ReLU over a range, every value computed
// by the Blockscope core. Hover, tap or drag on the plot, or use the arrow keys, to read values; the dip near
// x = −0.75 is marked; the tanh-vs-erf difference and the derivatives can be shown.
// GELU's formula and the lesson's eight values sit below the plot; a learner can predict the readout first, take the
// seed's GELU-vs-ReLU quiz, check their own GELU on the eight inputs and copy the state as PyTorch (toPyTorch()).
// Parts: title, legend, chart, controls, readout, difference, formula, eight-values, predict, check, check-input,
// check-result, copy-pytorch, status.
// Attributes (with their limits in static attrs): min (−3), max (3), x (1, the readout position; with sync-url the
// learner's moves are written back to it), step (0.05, keyboard step), derivative, difference, predict (value,
// gelu-quiz), check-form (tanh | erf: the GELU the learner's code should compute). Control groups (controls="…",
// lock="…"): range (min, max), x (the plot's pointer and keys), derivative, difference, check-form. Messages: gelu.*
// (i18n/<locale>/gelu-explorer.js); numbers for reading through this.num, code and events locale-free.
// Events: blockscope-readout {x, values: {gelu_tanh, gelu_erf, relu}}, blockscope-answer, blockscope-check,
// blockscope-ready.
import { line } from 'd3-shape';

import { BlockscopeElement, define, h } from '../kit/base.js';
import { chartWidth, createChart, KIT_CSS, legend, naturalSize, placeLabel, pointerKey, watchWidth } from '../kit/chart-kit.js';
import { CHECK_CSS, CheckPanel } from '../kit/check-panel.js';
import { warnAttr } from '../kit/attrs.js';
import { attrField, attrSelect } from '../kit/controls.js';
import { COPY_CSS, CopyPanel } from '../kit/copy-pytorch.js';
import { PREDICT_CSS, PredictPanel } from '../kit/predict-panel.js';
import { decimalMark, localeDigits } from '../kit/values.js';
import { EIGHT_CODE, eightTable, geluQuestions, geluSnippet, geluTarget } from './gelu-learner.js';
import en from '../i18n/en/gelu-explorer.js';

/** The curves; each one's label is message gelu.curve.<kind>. */
const CURVES = [
  { kind: 'gelu_tanh', color: 'var(--bs-c1)', dash: null },
  { kind: 'gelu_erf', color: 'var(--bs-c3)', dash: '6 4' },
  { kind: 'relu', color: 'var(--bs-c2)', dash: '2 3' },
];
const POINTS = 601;
const CSS = `.chart { touch-action: pan-y; -webkit-user-select: none; user-select: none; }
.formula { font-size: 0.95rem; } table.eight caption { text-align: start; font-weight: 600; }
.range input { width: 4.5rem; }`;

export class GeluExplorer extends BlockscopeElement {
  static attrs = {
    min: { default: -3, min: -20, max: 20, group: 'range', doc: 'left end of the x range' },
    max: { default: 3, min: -20, max: 20, group: 'range', doc: 'right end of the x range (must exceed min)' },
    x: { default: 1, min: -20, max: 20, doc: 'readout position (clamped to the range)' },
    step: { default: 0.05, min: 0.001, max: 5, doc: 'arrow-key step (Shift: ×10)' },
    derivative: { default: false, doc: 'also plot f′(x)' },
    difference: { default: false, doc: 'show the largest |tanh − erf| gap' },
    predict: { default: '', doc: 'readouts to predict first: value (GELU at x), gelu-quiz' },
    'check-form': { default: 'tanh', options: ['tanh', 'erf'], doc: 'the GELU a learner’s code is checked against' },
  };

  static controlGroups = {
    range: 'the x range of the plot (min and max)',
    x: 'the readout position: hovering, tapping, dragging or arrow keys on the plot',
    derivative: 'the "show derivatives" checkbox',
    difference: 'the "show tanh − erf difference" checkbox',
    'check-form': 'which GELU the learner’s code is checked against (in the check panel)',
  };

  static sections = {
    title: 'the heading',
    legend: 'the curves’ legend',
    chart: 'the plot of GELU (both forms) and ReLU',
    controls: 'the row of controls under the plot',
    predict: 'the prediction questions (with predict="…")',
    readout: 'the table of values at the readout position',
    difference: 'the largest tanh − erf gap (with difference)',
    formula: 'GELU’s formula',
    'eight-values': 'the table of the lesson’s eight values',
    check: 'the check-your-implementation panel',
    'copy-pytorch': 'the Copy as PyTorch button and code',
    status: 'the status line',
  };

  /** The label of curve `kind` (message gelu.curve.<kind>). */
  curveLabel(kind) {
    return this.t(`gelu.curve.${kind}`);
  }

  /** Items of a list of numbers for reading: "; " between them where the decimal mark is a comma. */
  joinValues(items) {
    return items.join(decimalMark(this.messages) === ',' ? '; ' : ', ');
  }

  setup() {
    const s = this.shadowRoot;
    this.chartBox = h('div', { class: 'chart', part: 'chart', tabindex: '0', role: 'slider', 'aria-label': this.t('gelu.chart.label') });
    this.legendBox = h('div', { class: 'legend-box', part: 'legend' });
    this.readout = h('table', { class: 'readout', part: 'readout' },
      h('caption', { class: 'visually-hidden' }, this.t('gelu.readout.caption')),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, this.t('gelu.readout.function')), h('th', { scope: 'col' }, 'f(x)'),
        h('th', { scope: 'col', class: 'deriv-col' }, 'f′(x)'))),
      h('tbody'));
    this.derivBox = h('input', { type: 'checkbox', id: 'deriv' });
    this.diffBox = h('input', { type: 'checkbox', id: 'diff' });
    const range = { step: 'any' };
    // The range's ends must stay in order: a field that would cross the other says so under it.
    const rangeFields = [attrField(this, 'min', this.t('gelu.control.min'), range,
      { check: (v) => (Number(v) < this.numAttr('max') ? null : this.t('gelu.field.minBelowMax', { max: this.num(this.numAttr('max')) })) }),
    attrField(this, 'max', this.t('gelu.control.max'), range,
      { check: (v) => (Number(v) > this.numAttr('min') ? null : this.t('gelu.field.maxAboveMin', { min: this.num(this.numAttr('min')) })) })];
    for (const field of rangeFields) field.classList.add('range');
    const checkForm = attrSelect(this, 'check-form', this.t('gelu.control.checkForm'),
      { tanh: this.t('gelu.control.checkForm.tanh'), erf: this.t('gelu.control.checkForm.erf') });
    this.diffText = h('p', { class: 'diff-text muted', part: 'difference', 'aria-live': 'polite' });
    // A revealed value is drawn again where the mask took it out: the readout and the table of eight values.
    // The readout is drawn again at once from the values it already has (the answer and the value appear together),
    // then the table of eight values comes back from the core.
    this.predictPanel = new PredictPanel(this.panelPort(), { questions: geluQuestions(this), onReveal: async () => {
      if (!this.data) return;
      if (this.lastReadout) this.renderReadout(this.lastReadout.x, this.lastReadout.values, this.lastReadout.derivs);
      this.eightBox.replaceChildren(await eightTable(this));
      if (this.current != null) this.setX(this.current);
    } });
    this.check = new CheckPanel(this.panelPort(), { target: () => geluTarget(this), code: h('div', { class: 'row' }, checkForm),
      what: () => this.t('gelu.check.what', { form: this.t(`gelu.check.form.${this.attr('check-form') === 'erf' ? 'erf' : 'tanh'}`),
        code: EIGHT_CODE }) });
    this.copy = new CopyPanel(this.panelPort(), { snippet: () => this.toPyTorch() });
    // The part is the box's (not the table's): the box stays when the table is redrawn or masked by a prediction.
    this.eightBox = h('div', { class: 'scroll', part: 'eight-values', 'data-predict': 'value',
      'data-predict-note': this.t('gelu.eight.note') });
    const n = (v, digits) => this.num(v, digits);
    s.append(
      h('style', {}, KIT_CSS + PREDICT_CSS + CHECK_CSS + COPY_CSS + CSS),
      h('h3', { part: 'title' }, this.t('gelu.title')),
      h('p', { class: 'muted instructions' }, this.t(pointerKey('gelu.instructions'))),
      this.legendBox,
      this.chartBox,
      h('div', { class: 'row', part: 'controls' },
        ...rangeFields,
        this.boundControls.addGroup('derivative', h('label', {}, this.derivBox, ' ', this.t('gelu.control.derivative'))),
        this.boundControls.addGroup('difference', h('label', {}, this.diffBox, ' ', this.t('gelu.control.difference')))),
      this.predictPanel.element,
      h('div', { class: 'scroll' }, this.readout),
      this.diffText,
      h('p', { class: 'formula', part: 'formula' }, this.t('gelu.formula', { definition: 'GELU(x) = x · Φ(x)',
        tanh: `${n(0.5, 1)} · x · (1 + tanh(√(2/π) · (x + ${n(0.044715, 6)} x³)))`, constant: `√(2/π) ≈ ${n(0.7979, 4)}` })),
      this.eightBox,
      this.check.element,
      this.copy.element,
      h('p', { class: 'status', part: 'status', role: 'status' }, this.t('gelu.loading')),
    );
    this.showXLock();
    this.derivBox.addEventListener('change', () => this.toggle('derivative', this.derivBox.checked));
    this.diffBox.addEventListener('change', () => this.toggle('difference', this.diffBox.checked));
    this.chartBox.addEventListener('keydown', (e) => this.onKey(e));
    // Pointer events serve mouse, pen and touch alike: a tap (pointerdown) or a sideways drag moves the readout;
    // touch-action: pan-y (CSS) keeps vertical page scrolling on phones.
    this.chartBox.addEventListener('pointerdown', (e) => {
      // Keep a touch drag that leaves the plot; a synthetic event has no active pointer to capture.
      if (e.pointerType !== 'mouse') try { this.chartBox.setPointerCapture(e.pointerId); } catch { /* nothing to capture */ }
      this.onPointer(e);
    });
    this.chartBox.addEventListener('pointermove', (e) => this.onPointer(e));
    // Redraw at the box's real width so axis text stays legible on phones.
    this.whileConnected(() => watchWidth(this, () => {
      if (!this.data) return;
      this.draw();
      if (this.current != null) this.setX(this.current);
    }));
  }

  /** The learner's checkbox for boolean attribute `name`; refused (the box flips back) when its group is locked. */
  toggle(name, on) {
    if (this.locked(name)) {
      (name === 'derivative' ? this.derivBox : this.diffBox).checked = this.boolAttr(name);
      return;
    }
    if (on) this.setAttribute(name, '');
    else this.removeAttribute(name);
  }

  attributeChangedCallback(name, oldValue, newValue) {
    super.attributeChangedCallback(name, oldValue, newValue);
    if (name === 'lock' && this.chartBox) this.showXLock();
  }

  /** With lock="x" the plot still reads values to assistive technology but says it is read-only. */
  showXLock() {
    if (this.locked('x')) this.chartBox.setAttribute('aria-readonly', 'true');
    else this.chartBox.removeAttribute('aria-readonly');
  }

  range() {
    let lo = this.numAttr('min');
    let hi = this.numAttr('max');
    if (!(hi > lo)) {
      const [dlo, dhi] = [this.defaultOf('min'), this.defaultOf('max')];
      warnAttr(this, 'min', this.attr('min'), `not less than max (${hi})`, `min=${dlo} and max=${dhi}`);
      [lo, hi] = [dlo, dhi];
    }
    return [lo, hi];
  }

  async start() {
    const [lo, hi] = this.range();
    this.derivBox.checked = this.boolAttr('derivative');
    this.diffBox.checked = this.boolAttr('difference');
    this.boundControls.sync();
    try {
      const rt = await this.runtime();
      const xs = Float32Array.from({ length: POINTS }, (_, i) => lo + ((hi - lo) * i) / (POINTS - 1));
      const ys = {};
      const ds = {};
      // The readout at x is asked for with the curves (one round trip to the worker, not two). A redraw (derivatives
      // or the difference toggled, the range changed) keeps the learner's position, clamped to the range; the first
      // draw starts at the `x` attribute.
      const x = (this.current = Math.min(hi, Math.max(lo, this.current ?? this.numAttr('x'))));
      const [, readout] = await Promise.all([
        Promise.all(CURVES.map(async ({ kind }) => {
          ys[kind] = await rt.activation(kind, xs);
          if (this.derivBox.checked) ds[kind] = await rt.activationDerivative(kind, xs);
        })),
        this.readoutAt(rt, x),
      ]);
      this.data = { xs, ys, ds, lo, hi };
      this.eightBox.replaceChildren(await eightTable(this));
      this.draw();
      if (this.current === x) this.showReadout(x, readout); // else a newer position is on its way
      this.status(this.t('gelu.ready', { points: POINTS, flavour: rt.flavour }));
      this.emit('ready', { points: POINTS });
    } catch (err) {
      this.status(this.t('gelu.failed', { message: err.message }), { error: true });
    }
  }

  attributeChanged(name) {
    if (name === 'x') {
      if (this.data) return this.setX(this.numAttr('x'));
      this.current = null; // the curves are still coming: start over at the new x
    }
    return this.start();
  }

  draw() {
    const { xs, ys, ds, lo, hi } = this.data;
    this.chartBox.replaceChildren();
    const showD = this.derivBox.checked;
    const all = CURVES.flatMap(({ kind }) => [...ys[kind], ...(showD ? ds[kind] : [])]);
    const width = chartWidth(this.chartBox, { min: 280, max: 720 });
    const height = Math.round(Math.min(340, Math.max(230, width * 0.55)));
    const chart = createChart(this.chartBox, {
      width, height,
      xLabel: this.t('gelu.chart.xLabel'), yLabel: this.t(showD ? 'gelu.chart.yLabelDerivatives' : 'gelu.chart.yLabel'),
      title: this.t('gelu.chart.title'),
      description: this.t('gelu.chart.description', { lo: this.num(lo), hi: this.num(hi), dip: this.num(-0.75, 2) }),
    });
    naturalSize(chart, width, height);
    chart.x.domain([lo, hi]);
    chart.y.domain([Math.min(...all, -0.5), Math.max(...all, 1)]).nice();
    chart.drawAxes({ xTicks: Math.max(4, Math.round(width / 80)) });
    chart.plot.append('line').attr('class', 'zero').attr('x1', 0).attr('x2', chart.innerW)
      .attr('y1', chart.y(0)).attr('y2', chart.y(0)).attr('stroke', 'var(--bs-border)');
    const path = line().x((_, i) => chart.x(xs[i])).y((d) => chart.y(d));
    for (const c of CURVES) {
      chart.plot.append('path').attr('d', path(ys[c.kind])).attr('fill', 'none').attr('stroke', c.color)
        .attr('stroke-width', 2).attr('stroke-dasharray', c.dash).attr('data-kind', c.kind);
      if (showD) {
        chart.plot.append('path').attr('d', path(ds[c.kind])).attr('fill', 'none').attr('stroke', c.color)
          .attr('stroke-width', 1.25).attr('stroke-opacity', 0.6).attr('stroke-dasharray', '1 3')
          .attr('data-kind', `${c.kind}-derivative`);
      }
    }
    this.drawDip(chart);
    this.legendBox.replaceChildren(legend([
      ...CURVES.map((c) => ({ label: this.curveLabel(c.kind), color: c.color })),
      ...(showD ? [{ label: this.t('gelu.legend.derivatives'), color: 'var(--bs-muted)', outline: true }] : []),
    ]));
    this.cursor = chart.plot.append('g').attr('class', 'cursor');
    this.cursor.append('line').attr('y1', 0).attr('y2', chart.innerH).attr('stroke', 'var(--bs-muted)')
      .attr('stroke-dasharray', '3 3');
    this.cursor.selectAll('circle').data(CURVES).join('circle').attr('r', 4).attr('fill', (c) => c.color);
    this.chart = chart;
    this.chartBox.setAttribute('aria-valuemin', String(lo));
    this.chartBox.setAttribute('aria-valuemax', String(hi));
    this.updateDifference();
  }

  /**
   * Marks the minimum of GELU-tanh found in the core's values (the lesson's dip ≈ −0.17 near −0.75), its label placed
   * clear of every drawn line (the curves, their derivatives and the zero line; placeLabel in the chart kit).
   */
  drawDip(chart) {
    const { xs, ys, ds } = this.data;
    const g = ys.gelu_tanh;
    let k = 0;
    for (let i = 1; i < g.length; i++) if (g[i] < g[k]) k = i;
    if (k === 0 || k === g.length - 1) return;
    this.dip = { x: xs[k], y: g[k] };
    const px = chart.x(xs[k]);
    const py = chart.y(g[k]);
    const lines = CURVES.flatMap(({ kind }) => [ys[kind], ...(this.derivBox.checked ? [ds[kind]] : [])]);
    const avoid = lines.flatMap((v) => Array.from(v, (y, i) => [chart.x(xs[i]), chart.y(y)]));
    for (let x = 0; x <= chart.innerW; x += 2) avoid.push([x, chart.y(0)]);
    const mark = chart.plot.append('g').attr('class', 'dip');
    mark.append('circle').attr('cx', px).attr('cy', py).attr('r', 5).attr('fill', 'none').attr('stroke', 'var(--bs-c4)')
      .attr('stroke-width', 2);
    placeLabel({ ...chart, plot: mark }, { px, py, avoid, cls: 'dip-label', color: 'var(--bs-c4)',
      text: this.t('gelu.chart.dip', { y: this.num(g[k], 2), x: this.num(xs[k], 2) }) });
  }

  async updateDifference() {
    if (!this.diffBox.checked) {
      this.diffText.textContent = '';
      return;
    }
    const { xs, ys } = this.data;
    let worst = 0;
    let at = 0;
    for (let i = 0; i < xs.length; i++) {
      const d = Math.abs(ys.gelu_tanh[i] - ys.gelu_erf[i]);
      if (d > worst) [worst, at] = [d, xs[i]];
    }
    this.diffText.textContent = this.t('gelu.difference', { worst: localeDigits(worst.toExponential(2), this.messages),
      x: this.num(at, 2) });
  }

  onPointer(e) {
    if (!this.chart || this.locked('x')) return;
    const svg = this.chart.svg.node();
    const pt = svg.createSVGPoint();
    pt.x = e.clientX;
    pt.y = e.clientY;
    const local = pt.matrixTransform(svg.getScreenCTM().inverse());
    const x = this.chart.x.invert(local.x - this.chart.margin.left);
    const [lo, hi] = this.range();
    this.moveTo(Math.min(hi, Math.max(lo, x)));
  }

  /** A move by the learner; with sync-url it is also written to the `x` attribute (so the hash keeps it). */
  moveTo(x) {
    this.setX(x);
    if (!this.hasAttribute('sync-url')) return;
    this.debounce('x', () => this.set('x', Math.round(x * 100) / 100), { ms: 250, source: this.chartBox });
  }

  onKey(e) {
    if (this.locked('x')) return;
    const [lo, hi] = this.range();
    const step = this.numAttr('step') * (e.shiftKey ? 10 : 1);
    const moves = { ArrowRight: step, ArrowUp: step, ArrowLeft: -step, ArrowDown: -step };
    let x = this.current ?? this.numAttr('x');
    if (e.key in moves) x += moves[e.key];
    else if (e.key === 'Home') x = lo;
    else if (e.key === 'End') x = hi;
    else return;
    e.preventDefault();
    this.moveTo(Math.min(hi, Math.max(lo, Math.round(x / 1e-6) * 1e-6)));
  }

  /** Moves the readout to x and asks the core for the exact values there. */
  async setX(x) {
    this.current = x;
    const readout = await this.readoutAt(await this.runtime(), x);
    if (this.current !== x) return; // a newer position arrived meanwhile
    this.showReadout(x, readout);
  }

  /** Every curve's value (and derivative, when shown) at x, from the core: {values, derivs} by kind. */
  async readoutAt(rt, x) {
    const input = [x];
    const values = {};
    const derivs = {};
    await Promise.all(CURVES.map(async ({ kind }) => {
      values[kind] = (await rt.activation(kind, input))[0];
      if (this.derivBox.checked) derivs[kind] = (await rt.activationDerivative(kind, input))[0];
    }));
    return { values, derivs };
  }

  showReadout(x, { values, derivs }) {
    this.readoutValues = values;
    this.lastReadout = { x, values, derivs };
    this.renderReadout(x, values, derivs);
    this.predictPanel.render();
    this.predictPanel.mask(this.shadowRoot);
    this.check.refresh();
    this.copy.refresh();
    this.emit('readout', { x, values });
  }

  /** The current state as a runnable PyTorch snippet that prints the numbers the widget shows. */
  toPyTorch() {
    return geluSnippet(this);
  }

  renderReadout(x, values, derivs) {
    const showD = this.derivBox.checked;
    this.readout.querySelectorAll('.deriv-col').forEach((el) => { el.hidden = !showD; });
    this.readout.tBodies[0].replaceChildren(
      h('tr', {}, h('td', {}, 'x'), h('td', { class: 'num', 'data-kind': 'x' }, this.num(x, 2)), h('td', { class: 'deriv-col', hidden: !showD })),
      ...CURVES.map((c) => h('tr', {},
        h('th', { scope: 'row' }, this.curveLabel(c.kind)),
        h('td', { class: 'num', 'data-kind': c.kind, 'data-predict': c.kind === 'relu' ? null : 'value' }, this.num(values[c.kind], 4)),
        h('td', { class: 'num deriv-col', hidden: !showD, 'data-kind': `${c.kind}-derivative` },
          showD ? this.num(derivs[c.kind], 4) : ''))),
    );
    const hidden = this.predictPanel.hides('value');
    const text = this.t('gelu.chart.valueText', { x: this.num(x, 2), values: this.joinValues(CURVES.map((c) =>
      this.t('gelu.chart.curveValue', { curve: this.curveLabel(c.kind),
        value: hidden && c.kind !== 'relu' ? this.t('gelu.chart.hidden') : this.num(values[c.kind], 4) }))) });
    this.chartBox.setAttribute('aria-valuenow', String(x));
    this.chartBox.setAttribute('aria-valuetext', text);
    if (this.chart && this.cursor) {
      const cx = this.chart.x(x);
      this.cursor.attr('transform', `translate(${cx},0)`);
      this.cursor.selectAll('circle').attr('cy', (c) => this.chart.y(values[c.kind]))
        .attr('visibility', (c) => (hidden && c.kind !== 'relu' ? 'hidden' : null));
    }
  }
}

define('gelu-explorer', GeluExplorer, en);
