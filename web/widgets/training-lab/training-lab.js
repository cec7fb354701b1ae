// <training-lab> — two small GPTs trained side by side in this tab (in the worker) on an excerpt of the Brown corpus,
// byte by byte: live training and validation loss curves, the gradient norm of every layer, a sample of each model's
// text as it learns, and a results table. The runs differ in one setting (pre- vs post-norm, d_ff 4× vs 2×, GELU vs
// ReLU, with vs without residuals, warmup vs none) and share everything else: seeds, batches, initial weights where
// the shapes agree. Training alternates the runs one step at a time, pauses when the widget leaves the page or the tab
// is hidden, and frees both models when the widget is removed. Once the runs have trained, lr, warmup and steps apply
// from the next step on (the loss chart marks where) and a control change that needs new models asks before it
// restarts both runs (training-lab-changes.js).
// Attributes: comparison (norm|ffn|activation|residual|warmup), lr (0.015, 1e-4 … 0.1), steps (600, 100 … 5000),
//   layers (6, 1 … 8), emb-dim (48: 32|48|64), warmup (0 steps), eval-every (25), sample-every (50), seed (123),
//   loading (lazy|eager). Deep links: #training-lab.lr=0.005&training-lab.comparison=warmup (or by element id).
// Events: blockscope-train-step {run: 'a'|'b', step, loss, valLoss?, gradNorm, lr, finite} after every step,
//   blockscope-ready {runs: [{run, label, numParameters, config, train}]} when both models are built (GPT and
//   trainer configs; labels in English, numbers raw, whatever the widget's language).
// Layout (kit/layout.js): control groups comparison, lr, warmup, steps, layers, emb-dim, train, checkpoints; sections
//   title, description, settings, legend, look-for, loss, gradients, samples, results, copy-pytorch, checkpoints, status.
// Words: the messages lab.* (i18n/<locale>/training-lab.js); a new lang rebuilds the DOM and the runs go on.
import { BlockscopeElement, define, h, UPDATE } from '../kit/base.js';
import { KIT_CSS, legend, watchWidth } from '../kit/chart-kit.js';
import { attrField, attrSelect } from '../kit/controls.js';
import { CHARTS_CSS, GradChart, LossChart, RUN_COLORS } from './training-lab-charts.js';
import { BATCH, COMPARISONS, CONTEXT, DATA_URL, gptConfig, loadCorpus, RunPair, SAMPLE_OPTIONS, SAMPLE_PROMPT, trainConfig }
  from './training-lab-runs.js';
import { COPY_CSS, CopyPanel } from '../kit/copy-pytorch.js';
import { CHECKPOINTS_CSS, CheckpointPanel } from './training-lab-checkpoints.js';
import { labSnippet } from './training-lab-pytorch.js';
import { BYTE_CSS } from '../kit/tokens.js';
import { OFF } from '../kit/layout.js';
import { RESULTS_CSS, ResultsPanel } from './training-lab-results.js';
import { CONTROL_GROUPS, LIMITS, SECTIONS, settings, whatToLookFor } from './training-lab-text.js';
import { CHANGES_CSS, needsConfirmation, RestartPrompt, SCHEDULE, stepsDone } from './training-lab-changes.js';
import en from '../i18n/en/training-lab.js';

/** The shortest time between two redraws while training (ms): 10 a second at most. */
const DRAW_MS = 100;

const CSS = `
fieldset.settings:not(:has(.row:not([${OFF}]))) { display: none; }
.pytorch:has([part~="copy-pytorch"][${OFF}]), .checkpoints:has(.ck-rows[${OFF}]) { display: none; }
.controls label { white-space: nowrap; }
.controls label.wide { white-space: normal; display: inline-flex; flex-wrap: wrap; align-items: center; gap: 0.2rem 0.4rem; max-width: 100%; }
.controls label.wide select { flex: 1 1 10rem; }
.controls output { display: inline-block; min-width: 3.2em; font-variant-numeric: tabular-nums; }
input[type="number"] { width: 5.5rem; }
input#lr { width: 11rem; max-width: 100%; }
.buttons button.play { min-width: 6.5rem; font-weight: 600; }
.rate { color: var(--bs-muted); font-variant-numeric: tabular-nums; }
.run-name { font-weight: 600; }
section { margin: 0.8rem 0 0; }
`;

export class TrainingLab extends BlockscopeElement {
  static attrs = {
    comparison: { default: 'norm', options: Object.keys(COMPARISONS) },
    lr: { default: 0.015, min: LIMITS.lr[0], max: LIMITS.lr[1] },
    steps: { default: 600, min: LIMITS.steps[0], max: LIMITS.steps[1], int: true },
    layers: { default: 6, min: LIMITS.layers[0], max: LIMITS.layers[1], int: true },
    'emb-dim': { default: 48, options: LIMITS.embDims },
    warmup: { default: 0, min: LIMITS.warmup[0], max: LIMITS.warmup[1], int: true },
    'eval-every': { default: 25, min: LIMITS.evalEvery[0], max: LIMITS.evalEvery[1], int: true },
    'sample-every': { default: 50, min: LIMITS.sampleEvery[0], max: LIMITS.sampleEvery[1], int: true },
    seed: { default: 123, min: LIMITS.seed[0], max: LIMITS.seed[1], int: true },
    loading: { default: 'lazy', options: ['lazy', 'eager'], doc: 'lazy: build the models when the widget nears the viewport' },
    explorer: { default: '', doc: 'id of the <gpt-explorer> that inspects the runs\' checkpoints (default: the first on the page)' },
  };

  static controlGroups = CONTROL_GROUPS;

  static sections = SECTIONS;

  setup() {
    // A new language builds the DOM again (base.js relocalize): the runs and their state carry over.
    this.pair ??= null;
    this.runState ??= 'idle'; // idle | building | ready | playing | paused | done
    this.onVisibility = () => this.visibilityChanged();
    this.whileConnected(() => {
      document.addEventListener('visibilitychange', this.onVisibility);
      return () => document.removeEventListener('visibilitychange', this.onVisibility);
    });
    const s = this.shadowRoot;
    s.append(h('style', {}, KIT_CSS + BYTE_CSS + CHARTS_CSS + RESULTS_CSS + COPY_CSS + CHECKPOINTS_CSS + CHANGES_CSS + CSS));
    this.restartPrompt = new RestartPrompt(this.panelPort());
    this.lrInput = h('input', { type: 'range', id: 'lr', min: Math.log10(LIMITS.lr[0]), max: Math.log10(LIMITS.lr[1]), step: 0.05,
      oninput: () => this.showLr(10 ** Number(this.lrInput.value)),
      onchange: () => this.set('lr', String(roundLr(10 ** Number(this.lrInput.value)))) });
    this.lrOut = h('output', { for: 'lr', class: 'num' });
    this.playButton = h('button', { type: 'button', class: 'play', onclick: () => !this.locked('train') && this.togglePlay() },
      this.t('lab.button.train'));
    this.resetButton = h('button', { type: 'button', class: 'reset', onclick: () => !this.locked('train') && this.reset() },
      this.t('lab.button.reset'));
    this.rate = h('span', { class: 'rate', 'aria-live': 'off' });
    this.lossBox = h('div', { class: 'chart-box loss-chart' });
    this.gradBox = h('div', { class: 'chart-box grad-chart' });
    this.lossChart = new LossChart(this.lossBox, this.panelPort());
    this.gradChart = new GradChart(this.gradBox, this.panelPort());
    this.runLegend = h('div', { class: 'run-legend', part: 'legend' });
    this.results = new ResultsPanel(this.panelPort({ runLabel: (run) => this.runLabel(run), runName: (run) => this.runName(run),
      playing: () => Boolean(this.pair?.playing) }));
    this.lookFor = h('p', { class: 'note look-for', part: 'look-for' });
    this.copy = new CopyPanel(this.panelPort(), { snippet: () => this.toPyTorch() });
    this.checkpointPanel = new CheckpointPanel(this.panelPort({ explorer: () => this.explorerElement(), runLabel: (run) => this.runLabel(run) }));
    const comparisons = Object.fromEntries(Object.keys(COMPARISONS).map((k) => [k, this.t(`lab.comparison.${k}`)]));
    const lrLabel = h('label', { for: 'lr', class: 'wide' }, this.t('lab.label.lr'), this.lrInput, this.lrOut);
    this.boundControls.addGroup('lr', lrLabel);
    this.boundControls.addGroup('train', this.playButton, this.resetButton, this.rate);
    this.boundControls.addGroup('checkpoints', this.checkpointPanel.rows);
    s.append(
      h('h3', {}, this.t('lab.title')),
      h('p', { part: 'description' }, this.t('lab.description', { batch: BATCH, context: CONTEXT })),
      h('fieldset', { class: 'settings', part: 'settings' }, h('legend', { class: 'fs' }, this.t('lab.settings')),
        h('div', { class: 'row controls', part: 'controls' },
          wide(attrSelect(this, 'comparison', this.t('lab.label.comparison'), comparisons))),
        h('div', { class: 'row controls', part: 'controls' }, lrLabel,
          attrField(this, 'warmup', this.t('lab.label.warmup'), { step: 10 })),
        h('div', { class: 'row controls', part: 'controls' },
          attrField(this, 'steps', this.t('lab.label.steps'), { step: 50 }),
          attrSelect(this, 'layers', this.t('lab.label.layers')),
          attrSelect(this, 'emb-dim', this.t('lab.label.embDim')))),
      this.restartPrompt.element,
      h('div', { class: 'row buttons', part: 'controls' }, this.playButton, this.resetButton, this.rate),
      this.runLegend,
      this.lookFor,
      h('div', { class: 'pair even', part: 'chart' },
        h('section', { part: 'loss' }, h('h4', {}, this.t('lab.loss.heading')),
          h('p', { class: 'muted' }, this.t('lab.loss.explain')), this.lossBox),
        h('section', { part: 'gradients' }, h('h4', {}, this.t('lab.grad.heading')),
          h('p', { class: 'muted' }, this.t('lab.grad.explain')), this.gradBox)),
      h('section', { part: 'samples' }, h('h4', {}, this.t('lab.samples.heading', { prompt: SAMPLE_PROMPT.trim() })),
        h('p', { class: 'muted' }, this.t('lab.samples.explain', { bytes: SAMPLE_OPTIONS.maxNewTokens,
          temperature: SAMPLE_OPTIONS.temperature })),
        this.results.samples),
      h('section', { part: 'results' }, h('h4', {}, this.t('lab.results.heading')), h('div', { class: 'scroll' }, this.results.table),
        this.results.notes),
      h('div', { class: 'pytorch' }, h('p', { class: 'muted' }, this.t('lab.results.pytorch')), this.copy.element),
      this.checkpointPanel.section,
      h('p', { class: 'status', role: 'status' }, this.t('lab.status.waiting')),
    );
    this.whileConnected(() => watchWidth(this, () => this.buildCharts()));
  }

  /**
   * The learner's edit of attribute `name` (base.js), refused when the author locked its group: then the control shows
   * the attribute's value again, and the runs go on untouched.
   */
  set(name, value) {
    if (this._built && !this.locked(name) && needsConfirmation(this.pair, name, value, this.settings())) {
      this.askRestart(name, value); // the runs have trained: a change that needs new models is asked about first
      this.syncControls(this.settings());
      return false;
    }
    const done = super.set(name, value);
    if (!done && this._built) this.syncControls(this.settings());
    return done;
  }

  /** Asks whether to restart both runs for the learner's change of `name` to `value` (training-lab-changes.js). */
  askRestart(name, value) {
    const label = { comparison: 'lab.label.comparison', layers: 'lab.label.layers', 'emb-dim': 'lab.label.embDim',
      steps: 'lab.label.steps' }[name];
    this.restartPrompt.ask({ name, value, label: label ? this.t(label) : name, step: stepsDone(this.pair),
      shown: name === 'comparison' ? this.t(`lab.comparison.${value}`) : this.num(Number(value)),
      control: this.boundControls.byName.has(name) ? this.boundControls.get(name) : null,
      restart: () => super.set(name, value) });
  }

  /** After the author changes lock="…": the buttons' own disabled states (while building, once done) again. */
  attributeChangedCallback(name, oldValue, newValue) {
    super.attributeChangedCallback(name, oldValue, newValue);
    if (name === 'lock' && this._built) {
      this.setState(this.runState);
      this.draw();
    }
  }

  connectedCallback() {
    super.connectedCallback();
    if (this.pausedBy === 'disconnect' && this.pair) {
      this.pausedBy = null;
      this.pair.play();
    }
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    if (this.pair?.playing) {
      this.pausedBy = 'disconnect'; // a DOM move comes straight back and continues; a removal is released
      this.pair.pause();
    }
  }

  /** Frees both models and trainers in the worker once the widget has left the page (base.js). */
  release() {
    const pair = this.pair;
    this.pair = null;
    this.pausedBy = null;
    pair?.dispose();
    return Boolean(pair) || this.visible;
  }

  visibilityChanged() {
    if (document.hidden && this.pair?.playing) {
      this.pausedBy = 'hidden';
      this.pair.pause();
      this.say(() => this.t('lab.status.hidden'));
    } else if (!document.hidden && this.pausedBy === 'hidden') {
      this.pausedBy = null;
      this.pair?.play();
    }
  }

  /** The settings from the attributes, clamped to the controls' limits (training-lab-text.js). */
  settings() {
    return settings((name) => this.numAttr(name), (name) => this.attr(name));
  }

  async start() {
    if (this.pair) {
      // The DOM was built again in a new language (relocalize): the runs go on and are drawn in it.
      this.setState(this.runState);
      if (this.said) this.say(this.said.text, this.said.options);
      return this.invalidate(UPDATE.REDRAW);
    }
    if (!this.showWhenNearViewport()) this.invalidate(UPDATE.REDRAW);
  }

  attributeChanged(name) {
    if (name === 'theme' || name === 'explorer') return;
    if (name === 'loading') {
      if (this.attr('loading') === 'eager' && !this.visible) this.start();
    } else if (name === 'eval-every' || name === 'sample-every') this.applyLive();
    else if (SCHEDULE.includes(name) && this.pair && this.runState !== 'building' && stepsDone(this.pair) > 0 &&
      this.settings().shared.steps > stepsDone(this.pair)) this.reschedule();
    else {
      this.restartPrompt.close();
      this.invalidate(UPDATE.REBUILD);
    }
  }

  /**
   * The schedule (lr, warmup, steps) changed after the runs had trained: both go on from their next step with it
   * (RunPair.reschedule), the loss chart marks the step and the status line says so. Nothing restarts.
   */
  async reschedule() {
    const pair = this.pair;
    const st = this.settings();
    this.syncControls(st);
    try {
      await pair.reschedule(st.shared);
    } catch (err) {
      if (pair === this.pair) this.status(err.message, { error: true });
      return;
    }
    if (pair !== this.pair) return;
    if (this.lossChart.steps !== pair.shared.steps) this.buildCharts();
    const c = pair.changes.at(-1);
    if (c) this.say(() => this.t('lab.status.rescheduled', { step: c.step, lr: this.formatLr(c.lr), warmup: c.warmup, steps: c.steps }));
    if (this.runState === 'done' && !pair.finished) this.setState('paused');
    this.scheduleDraw({ now: true });
  }

  /** Both runs as PyTorch: the book's GPTModel, Blockscope's initial weights and batches, AdamW and the schedule. */
  toPyTorch() {
    const st = this.settings();
    const cmp = COMPARISONS[st.comparison];
    const runs = [['a', cmp.a], ['b', cmp.b]].map(([key, side]) => ({ key, label: side.label,
      config: gptConfig(side, st.shared), train: trainConfig(side, st.shared) }));
    return labSnippet({ label: cmp.label, runs, seed: st.shared.seed, evalEvery: st.evalEvery, dataUrl: DATA_URL });
  }

  applyLive() {
    const st = this.settings();
    if (this.pair) Object.assign(this.pair, { evalEvery: st.evalEvery, sampleEvery: st.sampleEvery });
  }

  /** Level 3 rebuilds both runs (any setting but eval-every / sample-every changes them); 1 syncs the controls. */
  async update(level) {
    const st = this.settings();
    this.syncControls(st);
    this.lookFor.textContent = whatToLookFor(st, (key, params) => this.t(key, params));
    if (level < UPDATE.REBUILD || !this.visible) {
      if (this.pair && !this.lossChart.chart) this.buildCharts(); // the DOM is new (a new language)
      return;
    }
    const resume = Boolean(this.pair?.playing || this.wantPlay);
    this.wantPlay = false;
    await this.pair?.dispose();
    this.pair = null;
    this.setState('building');
    this.say(() => this.t('lab.status.building'));
    const corpus = loadCorpus().catch((err) => {
      throw err.corpusFile ? new Error(this.t('lab.error.corpus', { file: err.corpusFile, status: err.httpStatus })) : err;
    });
    const [data, client] = await Promise.all([corpus, this.runtime()]);
    const pair = new RunPair(client, data, st, {
      onStep: (run, detail) => {
        this.emit('train-step', detail);
        this.scheduleDraw();
      },
      onSample: () => this.scheduleDraw(),
      onState: (state) => this.pairState(pair, state),
    });
    this.pair = pair;
    this.buildCharts();
    try {
      await pair.build();
    } catch (err) {
      if (this.pair === pair) this.setState('idle');
      throw err; // shown in the status line
    }
    if (this.pair !== pair) return; // replaced or released meanwhile
    this.setState('ready');
    const [a, b] = pair.runs.map((r) => r.gpt.numParameters);
    this.say(() => this.t('lab.status.ready', { a, b, flavour: client.flavour }));
    this.emit('ready', { runs: pair.runs.map((r) => ({ run: r.key, label: r.label, numParameters: r.gpt.numParameters,
      config: r.config, train: r.train })) });
    this.draw();
    if (resume || this.wantPlay) this.play();
  }

  /** Run `run`'s name in the widget's language ("post-norm"; its `label` is the English one events carry). */
  runLabel(run) {
    return this.t(`lab.run.${run.comparison}.${run.key}`);
  }

  buildCharts() {
    if (!this.pair) return;
    const { shared, runs } = this.pair;
    const labels = { a: this.runLabel(runs[0]), b: this.runLabel(runs[1]) };
    this.lossChart.build(shared.steps, labels);
    this.gradChart.build(shared.layers, labels);
    this.runLegend.replaceChildren(legend(runs.map((r) => ({ label: this.runName(r), color: RUN_COLORS[r.key] }))));
    this.draw();
  }

  /** "A: pre-norm" */
  runName(run) {
    return this.t('lab.runName', { run: run.key.toUpperCase(), label: this.runLabel(run) });
  }

  /** Shows text() in the status line, and again (in the new language) when the widget is relocalized. */
  say(text, options = {}) {
    this.status(text(), options);
    this.said = { text, options };
  }

  status(message, options) {
    this.said = null; // a message from elsewhere (an error) replaces the last said one
    super.status(message, options);
  }

  // ------------------------------------------------------------------ training

  togglePlay() {
    if (this.pair?.playing) this.pause();
    else this.play();
  }

  play() {
    this.pausedBy = null;
    if (!this.pair || this.runState === 'building') {
      this.wantPlay = true; // starts once the models are built
      if (!this.visible) this.showWhenNearViewport({ now: true });
      return;
    }
    this.pair.play().catch((err) => this.say(() => this.t('lab.status.stopped', { message: err.message }), { error: true }));
  }

  async pause() {
    this.pausedBy = null;
    this.wantPlay = false;
    await this.pair?.pause();
  }

  /** Back to step 0 with fresh models, paused. */
  reset() {
    this.wantPlay = false;
    this.pausedBy = null;
    if (this.pair) this.pair.playing = false; // stops after the step in progress; update() then rebuilds
    this.invalidate(UPDATE.REBUILD);
  }

  pairState(pair, state) {
    if (pair !== this.pair) return;
    this.setState(state);
    if (state === 'playing') this.say(() => this.t('lab.status.training'));
    else if (state === 'done') this.say(() => this.summary());
    else if (state === 'paused' && this.pausedBy !== 'hidden') {
      const [a, b] = pair.runs.map((r) => r.stepsDone);
      this.say(() => (a === b ? this.t('lab.status.pausedAt', { step: a }) : this.t('lab.status.pausedAfter', { a, b })));
    }
    this.scheduleDraw({ now: true });
  }

  /** The state's button label; Train is disabled while building, once done, and while the author locks it. */
  setState(state) {
    this.runState = state;
    this.dataset.state = state;
    const label = { playing: 'pause', paused: 'resume', done: 'done' }[state] ?? 'train';
    this.playButton.textContent = this.t(`lab.button.${label}`);
    this.playButton.disabled = state === 'done' || state === 'building' || this.locked('train');
  }

  summary() {
    const [a, b] = this.pair.runs.map((r) => {
      const v = r.lastVal;
      const params = { run: r.key.toUpperCase(), label: this.runLabel(r) };
      if (r.failed) return this.t('lab.summary.diverged', { ...params, step: r.failed.step });
      return this.t('lab.summary.validation', { ...params, loss: v ? this.num(v.valLoss, 3) : '–' });
    });
    return this.t('lab.status.finished', { a, b });
  }

  // ------------------------------------------------------------------ drawing

  /**
   * Redraws at the next frame, and while steps stream in at most once every DRAW_MS: two runs on two workers report
   * some 40 steps a second, and a redraw per step (charts and tables: script, layout, paint, raster) would take the
   * page's threads about half a core, which the workers need on a two-core machine. `now` skips the wait (a change
   * of state is shown at once).
   */
  scheduleDraw({ now = false } = {}) {
    if (now && this.drawTimer) {
      clearTimeout(this.drawTimer);
      this.drawTimer = 0;
    }
    if (this.frame || this.drawTimer) return;
    const wait = now ? 0 : (this.drawnAt ?? -Infinity) + DRAW_MS - performance.now();
    if (wait > 0) {
      this.drawTimer = setTimeout(() => {
        this.drawTimer = 0;
        this.scheduleDraw({ now: true });
      }, wait);
      return;
    }
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.drawnAt = performance.now();
      this.draw();
    });
  }

  draw() {
    const pair = this.pair;
    if (!pair || !this.lossChart.chart) return;
    this.lossChart.draw(pair.runs, pair.changes);
    this.gradChart.draw(pair.runs);
    this.results.draw(pair.runs);
    this.checkpointPanel.draw(pair.runs);
    const r = pair.rate.perSecond;
    this.rate.textContent = r == null ? '' : this.t('lab.rate', { rate: this.num(r / 2, 1) });
  }

  /** The <gpt-explorer> the checkpoints go to: the one the explorer attribute names, else the first on the page. */
  explorerElement() {
    const id = this.attr('explorer').trim();
    return id ? document.getElementById(id) : document.querySelector('gpt-explorer');
  }

  /** Writes the (clamped) settings into the controls, except the one being edited. */
  syncControls(st) {
    const values = { comparison: st.comparison, steps: st.shared.steps, warmup: st.shared.warmup, layers: st.shared.layers,
      'emb-dim': st.shared.embDim };
    this.boundControls.sync({ values: (name) => values[name] });
    if (this.shadowRoot.activeElement !== this.lrInput) this.lrInput.value = String(Math.log10(st.shared.lr));
    this.showLr(st.shared.lr);
  }

  showLr(lr) {
    this.lrOut.textContent = this.formatLr(lr);
    this.lrInput.setAttribute('aria-valuetext', this.t('lab.lrValue', { lr: this.formatLr(lr) }));
  }

  /** Two significant digits in the widget's language: 0.02, 0.0035, 1.1e-4 (0,02 … 1,1e-4 in German). */
  formatLr(lr) {
    if (lr >= 1e-3) return this.num(roundLr(lr));
    const [mantissa, exponent] = lr.toExponential(1).split('e');
    return `${this.num(Number(mantissa), 1)}e${exponent}`;
  }
}

/** Lets a control's label wrap (long option texts at 360 px). */
function wide(label) {
  label.classList.add('wide');
  return label;
}

/** Two significant digits, as the slider's steps give: 0.02, 0.0035, 1.1e-4. */
function roundLr(lr) {
  return Number(lr.toPrecision(2));
}

define('training-lab', TrainingLab, en);
