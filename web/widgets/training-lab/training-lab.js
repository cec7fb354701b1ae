// <training-lab> — two small GPTs trained side by side in this tab (in the worker) on an excerpt of the Brown corpus,
// byte by byte: live training and validation loss curves, the gradient norm of every layer, a sample of each model's
// text as it learns, and a results table. The runs differ in one setting (pre- vs post-norm, d_ff 4× vs 2×, GELU vs
// ReLU, with vs without residuals, warmup vs none) and share everything else: seeds, batches, initial weights where
// the shapes agree. Training alternates the runs one step at a time, pauses when the widget leaves the page or the tab
// is hidden, and frees both models when the widget is removed.
// Attributes: comparison (norm|ffn|activation|residual|warmup), lr (0.015, 1e-4 … 0.1), steps (600, 100 … 5000),
//   layers (6, 1 … 8), emb-dim (48: 32|48|64), warmup (0 steps), eval-every (25), sample-every (50), seed (123),
//   loading (lazy|eager). Deep links: #training-lab.lr=0.005&training-lab.comparison=warmup (or by element id).
// Events: blockscope-train-step {run: 'a'|'b', step, loss, valLoss?, gradNorm, lr, finite} after every step,
//   blockscope-ready {runs: [{run, label, numParameters, config, train}]} when both models are built (GPT and
//   trainer configs).
import { BlockscopeElement, define, fmt, h, UPDATE } from '../kit/base.js';
import { KIT_CSS, legend, watchWidth } from '../kit/chart-kit.js';
import { attrField, attrSelect } from '../kit/controls.js';
import { CHARTS_CSS, GradChart, LossChart, RUN_COLORS, smooth } from './training-lab-charts.js';
import { BATCH, COMPARISONS, CONTEXT, DATA_URL, DIVERGED_STEPS, gptConfig, loadCorpus, RunPair, SAMPLE_OPTIONS, SAMPLE_PROMPT,
  trainConfig } from './training-lab-runs.js';
import { COPY_CSS, CopyPanel } from '../kit/copy-pytorch.js';
import { CHECKPOINTS_CSS, CheckpointPanel } from './training-lab-checkpoints.js';
import { labSnippet } from './training-lab-pytorch.js';
import { BYTE_CSS, renderPieces, utf8Pieces } from '../kit/tokens.js';
import { LIMITS, settings, whatToLookFor } from './training-lab-text.js';

const CSS = `
.controls label { white-space: nowrap; }
.controls label.wide { white-space: normal; display: inline-flex; flex-wrap: wrap; align-items: center; gap: 0.2rem 0.4rem; max-width: 100%; }
.controls label.wide select { flex: 1 1 10rem; }
.controls output { display: inline-block; min-width: 3.2em; font-variant-numeric: tabular-nums; }
input[type="number"] { width: 5.5rem; }
input#lr { width: 11rem; max-width: 100%; }
.buttons button.play { min-width: 6.5rem; font-weight: 600; }
.rate { color: var(--bs-muted); font-variant-numeric: tabular-nums; }
.samples { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0.5rem 1rem; }
@container (min-width: 700px) { .samples { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); } }
.sample { margin: 0; border: 1px solid var(--bs-border); border-left-width: 4px; border-radius: 6px; padding: 0.35rem 0.5rem;
  background: var(--bs-panel); min-width: 0; }
.sample figcaption { font-size: 0.9rem; color: var(--bs-muted); }
.sample .text { white-space: pre-wrap; overflow-wrap: anywhere; font: 13px/1.45 ui-monospace, Menlo, Consolas, monospace; margin: 0.2rem 0 0; }
.sample .prompt { color: var(--bs-muted); }
.results td.state { text-align: left; }
.run-notes { margin: 0.4rem 0; padding-left: 1.2rem; }
.results .failed { color: var(--bs-c2); font-weight: 600; }
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

  setup() {
    this.pair = null;
    this.visible = false;
    this.state = 'idle'; // idle | building | ready | playing | paused | done
    this.onVisibility = () => this.visibilityChanged();
    this.whileConnected(() => {
      document.addEventListener('visibilitychange', this.onVisibility);
      return () => document.removeEventListener('visibilitychange', this.onVisibility);
    });
    const s = this.shadowRoot;
    s.append(h('style', {}, KIT_CSS + BYTE_CSS + CHARTS_CSS + COPY_CSS + CHECKPOINTS_CSS + CSS));
    this.lrInput = h('input', { type: 'range', id: 'lr', min: Math.log10(LIMITS.lr[0]), max: Math.log10(LIMITS.lr[1]), step: 0.05,
      oninput: () => this.showLr(10 ** Number(this.lrInput.value)),
      onchange: () => this.setAttribute('lr', String(roundLr(10 ** Number(this.lrInput.value)))) });
    this.lrOut = h('output', { for: 'lr', class: 'num' });
    this.playButton = h('button', { type: 'button', class: 'play', onclick: () => this.togglePlay() }, 'Train');
    this.resetButton = h('button', { type: 'button', class: 'reset', onclick: () => this.reset() }, 'Reset');
    this.rate = h('span', { class: 'rate', 'aria-live': 'off' });
    this.lossBox = h('div', { class: 'chart-box loss-chart' });
    this.gradBox = h('div', { class: 'chart-box grad-chart' });
    this.lossChart = new LossChart(this.lossBox);
    this.gradChart = new GradChart(this.gradBox);
    this.runLegend = h('div', { class: 'run-legend' });
    this.samples = h('div', { class: 'samples' });
    this.table = h('table', { class: 'results' },
      h('caption', { class: 'visually-hidden' }, 'Latest numbers of both runs'),
      h('thead', {}, h('tr', {}, ...['run', 'step', 'train loss (avg.)', 'val. loss', 'grad. norm', 'state']
        .map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody'));
    this.lookFor = h('p', { class: 'note look-for' });
    this.notes = h('ul', { class: 'run-notes', 'aria-live': 'polite' });
    this.copy = new CopyPanel(this.panelPort(), { snippet: () => this.toPyTorch() });
    this.checkpointPanel = new CheckpointPanel(this.panelPort({ explorer: () => this.explorer() }));
    s.append(
      h('h3', {}, 'Training lab: two GPTs side by side'),
      h('p', {}, `Two small GPTs learn to predict the next byte of the Brown corpus (1961 American English) in this tab, ` +
        `in a worker, one step each in turn: batches of ${BATCH} windows of ${CONTEXT} bytes, AdamW with a cosine schedule ` +
        'and gradient clipping at 1. They start from the same Blockscope seed (the core’s own generator, not ' +
          'torch.manual_seed) and see the same batches; only the setting you compare differs.'),
      h('fieldset', {}, h('legend', { class: 'fs' }, 'Settings'),
        h('div', { class: 'row controls' },
          wide(attrSelect(this, 'comparison', 'compare', Object.fromEntries(Object.entries(COMPARISONS).map(([k, c]) => [k, c.label]))))),
        h('div', { class: 'row controls' },
          h('label', { for: 'lr', class: 'wide' }, 'learning rate', this.lrInput, this.lrOut),
          attrField(this, 'warmup', 'warmup steps', { step: 10 })),
        h('div', { class: 'row controls' },
          attrField(this, 'steps', 'steps', { step: 50 }),
          attrSelect(this, 'layers', 'layers'),
          attrSelect(this, 'emb-dim', 'd_model'))),
      h('div', { class: 'row buttons' }, this.playButton, this.resetButton, this.rate),
      this.runLegend,
      this.lookFor,
      h('div', { class: 'pair even' }, h('section', {}, h('h4', {}, 'Loss'),
        h('p', { class: 'muted' }, 'Thin line: the training loss of each step; thick: its average over the last steps ' +
          '(up to 25); dotted with points: the validation loss, on documents neither model trains on. Run B\'s lines are ' +
          'dashed. A triangle on the top edge marks a loss spike; a cross, a run that diverged.'),
        this.lossBox),
      h('section', {}, h('h4', {}, 'Gradient norm of each layer'),
        h('p', { class: 'muted' }, 'How much training signal reaches each layer, from the embeddings (left) to the output ' +
          'head (right): thick lines now (averaged over recent steps), thin dotted ones at step 1. A line that drops by orders of magnitude towards the embeddings means ' +
          'the lower layers have stopped learning.'),
        this.gradBox)),
      h('section', {}, h('h4', {}, `What each model writes after “${SAMPLE_PROMPT.trim()}”`),
        h('p', { class: 'muted' }, `${SAMPLE_OPTIONS.maxNewTokens} bytes sampled at temperature ${SAMPLE_OPTIONS.temperature}, ` +
          'with the same random draws for both models, renewed every few dozen steps. Bytes that are not a whole UTF-8 ' +
          'character are shown as <0xNN>.'),
        this.samples),
      h('section', {}, h('h4', {}, 'Results'), h('div', { class: 'scroll' }, this.table), this.notes,
        h('p', { class: 'muted' }, 'The same two runs in PyTorch (the core’s seeded weights and batches, ported): its ' +
          'printed losses are the ones above.'), this.copy.element),
      this.checkpointPanel.section,
      h('p', { class: 'status', role: 'status' }, 'The lab loads its corpus when it scrolls into view.'),
    );
    this.whileConnected(() => watchWidth(this, () => this.buildCharts()));
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
      this.status('Paused while the tab is hidden; it continues when you come back.');
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
    if (!this.showWhenNearViewport()) this.invalidate(UPDATE.REDRAW);
  }

  attributeChanged(name) {
    if (name === 'theme') return;
    if (name === 'loading' && this.attr('loading') === 'eager' && !this.visible) this.start();
    else if (name === 'eval-every' || name === 'sample-every') this.applyLive();
    else this.invalidate(UPDATE.REBUILD);
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
    this.lookFor.textContent = whatToLookFor(st);
    if (level < UPDATE.REBUILD || !this.visible) return;
    const resume = Boolean(this.pair?.playing || this.wantPlay);
    this.wantPlay = false;
    await this.pair?.dispose();
    this.pair = null;
    this.setState('building');
    this.status('Loading the corpus and building both models…');
    const [data, client] = await Promise.all([loadCorpus(), this.runtime()]);
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
    const [a, b] = pair.runs;
    this.status(`Ready: run A ${a.gpt.numParameters.toLocaleString('en')} and run B ${b.gpt.numParameters.toLocaleString('en')} ` +
      `parameters (wasm ${client.flavour}). Press Train.`);
    this.emit('ready', { runs: pair.runs.map((r) => ({ run: r.key, label: r.label, numParameters: r.gpt.numParameters,
      config: r.config, train: r.train })) });
    this.draw();
    if (resume || this.wantPlay) this.play();
  }

  buildCharts() {
    if (!this.pair) return;
    const { shared, runs } = this.pair;
    const labels = { a: runs[0].label, b: runs[1].label };
    this.lossChart.build(shared.steps, labels);
    this.gradChart.build(shared.layers, labels);
    this.runLegend.replaceChildren(legend(this.pair.runs.map((r) => ({ label: `${r.key.toUpperCase()}: ${r.label}`, color: RUN_COLORS[r.key] }))));
    this.draw();
  }

  // ------------------------------------------------------------------ training

  togglePlay() {
    if (this.pair?.playing) this.pause();
    else this.play();
  }

  play() {
    this.pausedBy = null;
    if (!this.pair || this.state === 'building') {
      this.wantPlay = true; // starts once the models are built
      if (!this.visible) this.showWhenNearViewport({ now: true });
      return;
    }
    this.pair.play().catch((err) => this.status(`Training stopped: ${err.message}`, { error: true }));
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
    if (state === 'playing') this.status('Training…');
    else if (state === 'done') this.status(this.summary());
    else if (state === 'paused' && this.pausedBy !== 'hidden') {
      const [a, b] = pair.runs.map((r) => r.stepsDone);
      this.status(a === b ? `Paused at step ${a}.` : `Paused after step ${a} (A) and ${b} (B).`);
    }
    this.scheduleDraw();
  }

  setState(state) {
    this.state = state;
    this.dataset.state = state;
    const label = { playing: 'Pause', paused: 'Resume', done: 'Done' }[state] ?? 'Train';
    this.playButton.textContent = label;
    this.playButton.disabled = state === 'done' || state === 'building';
  }

  summary() {
    const parts = this.pair.runs.map((r) => {
      const v = r.lastVal;
      if (r.failed) return `${r.key.toUpperCase()} (${r.label}) diverged at step ${r.failed.step}`;
      return `${r.key.toUpperCase()} (${r.label}) validation loss ${v ? fmt(v.valLoss, 3) : '–'}`;
    });
    return `Finished: ${parts.join('; ')}. Reset to train again.`;
  }

  // ------------------------------------------------------------------ drawing

  scheduleDraw() {
    this.frame ||= requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  draw() {
    const pair = this.pair;
    if (!pair || !this.lossChart.chart) return;
    this.lossChart.draw(pair.runs);
    this.gradChart.draw(pair.runs);
    this.drawSamples(pair.runs);
    this.drawTable(pair.runs);
    this.checkpointPanel.draw(pair.runs);
    const r = pair.rate.perSecond;
    this.rate.textContent = r == null ? '' : `${fmt(r / 2, 1)} steps/s per run`;
  }

  /** The <gpt-explorer> the checkpoints go to: the one the explorer attribute names, else the first on the page. */
  explorer() {
    const id = this.attr('explorer').trim();
    return id ? document.getElementById(id) : document.querySelector('gpt-explorer');
  }

  drawSamples(runs) {
    this.samples.replaceChildren(...runs.map((run) => h('figure', { class: 'sample', 'data-run': run.key, style: `border-left-color: ${RUN_COLORS[run.key]}` },
      h('figcaption', {}, h('span', { class: 'run-name' }, `${run.key.toUpperCase()}: ${run.label}`),
        run.sample ? ` — after step ${run.sample.step}` : ''),
      h('p', { class: 'text' }, h('span', { class: 'prompt' }, SAMPLE_PROMPT),
        h('span', { class: 'generated' }, ...(run.sample ? samplePieces(run.sample.bytes) : ['…']))))));
  }

  drawTable(runs) {
    this.table.tBodies[0].replaceChildren(...runs.map((run) => {
      const ok = run.steps.filter((s) => s.finite);
      const avg = ok.length ? smooth(ok.map((s) => s.loss)).at(-1) : null;
      const v = run.lastVal;
      return h('tr', { 'data-run': run.key },
        h('th', { scope: 'row' }, h('span', { class: 'run-name', style: `color: ${RUN_COLORS[run.key]}` }, run.key.toUpperCase()), ` ${run.label}`),
        h('td', { class: 'num step' }, String(run.stepsDone)),
        h('td', { class: 'num loss' }, avg == null ? '–' : fmt(avg, 3)),
        h('td', { class: 'num val' }, v ? fmt(v.valLoss, 3) : '–'),
        h('td', { class: 'num grad' }, ok.length ? fmt(ok.at(-1).gradNorm, 3) : '–'),
        h('td', { class: `state${run.failed ? ' failed' : ''}` }, this.runState(run)));
    }));
    const notes = runs.flatMap((run) => this.runNotes(run).map((text) => h('li', { 'data-run': run.key },
      h('span', { class: 'run-name', style: `color: ${RUN_COLORS[run.key]}` }, `${run.key.toUpperCase()}: `), text)));
    // Replaced only when the text changes, so screen readers hear each note once.
    const key = notes.map((li) => li.textContent).join('|');
    if (key !== this.notesKey) {
      this.notesKey = key;
      this.notes.replaceChildren(...notes);
    }
  }

  runState(run) {
    if (run.failed) return `diverged at step ${run.failed.step}`;
    if (run.finished) return 'done';
    if (this.pair?.playing) return 'training';
    return run.stepsDone ? 'paused' : 'ready';
  }

  /** What happened to a run beyond its numbers: divergence, loss spikes, lower layers that stopped learning. */
  runNotes(run) {
    const notes = [];
    if (run.failed?.reason === 'non-finite') notes.push(`diverged at step ${run.failed.step}: the loss or a gradient was not finite, so training stopped.`);
    if (run.failed?.reason === 'exploded') notes.push(`diverged at step ${run.failed.step}: from there on the loss stayed above a uniform guess (ln 256) for ${DIVERGED_STEPS} steps, so training stopped.`);
    if (run.spikes.length) {
      const [first] = run.spikes;
      notes.push(`loss spike at step ${first.step} (${fmt(first.loss, 2)} nats, worse than a uniform guess)` +
        (run.spikes.length > 1 ? ` and ${run.spikes.length - 1} more.` : '.'));
    }
    if (run.vanishedAt != null) {
      notes.push(`since step ${run.vanishedAt} the gradient reaching the embeddings is below 1/100,000 of the head's: ` +
        'the lower layers have stopped learning.');
    }
    return notes;
  }

  /** Writes the (clamped) settings into the controls, except the one being edited. */
  syncControls(st) {
    const values = { comparison: st.comparison, steps: st.shared.steps, warmup: st.shared.warmup, layers: st.shared.layers,
      'emb-dim': st.shared.embDim };
    this.controls.sync({ values: (name) => values[name] });
    if (this.shadowRoot.activeElement !== this.lrInput) this.lrInput.value = String(Math.log10(st.shared.lr));
    this.showLr(st.shared.lr);
  }

  showLr(lr) {
    this.lrOut.textContent = formatLr(lr);
    this.lrInput.setAttribute('aria-valuetext', `learning rate ${formatLr(lr)}`);
  }
}

/** A sample's text and byte chips; whitespace is made visible (␣ ↵) when there is nothing else to see. */
function samplePieces(bytes) {
  const pieces = utf8Pieces(bytes);
  const blank = pieces.every((p) => p.text != null && !p.text.trim());
  return renderPieces(pieces, { visible: blank });
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
function formatLr(lr) {
  return lr < 1e-3 ? lr.toExponential(1) : String(roundLr(lr));
}

define('training-lab', TrainingLab);
