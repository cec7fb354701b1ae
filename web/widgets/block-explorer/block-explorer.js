// <block-explorer> — one transformer block stepped operation by operation in the order of TransformerBlock.forward,
// for pre-norm (GPT-2, the book) and post-norm (the original Transformer) wired around the same weights, and the
// residual-stream L2 norm across depth for both wirings. Two models: a seeded GPT (the book's chapter-4 GPTModel,
// random weights from a Blockscope seed — the core's own generator, not torch.manual_seed) or, with
// preset="encoder-block-lesson82", lesson 82's EncoderBlock(8, 2, 32) with the lesson's own PyTorch weights and
// input, whose output is shown next to PyTorch's (block-lesson.js). Every statistic comes from the core's
// inspection of the forward pass that produced it (nothing is recomputed). The step texts and the diagram live in
// block-steps.js, the charts in block-charts.js.
// Attributes: preset ("" | encoder-block-lesson82), norm (pre|post), block (1), step (1), metric (norm|mean|var),
//   per-token, layers (8), emb-dim (64), heads (4), prompt, seed (123, a Blockscope seed), tokenizer (byte|gpt2),
//   predict (first-op: the stepper stays out of the page until answered; prenorm-quiz), link-group (page: the token
//   pointed at here or in a linked widget on the same tokens is highlighted; kit/linked-selection.js).
// With the lesson preset a learner checks their own EncoderBlock step by step and practises on a broken step
// (block-learner.js: parts step-check, check-input, check-result). Parts predict, copy-pytorch; toPyTorch().
// Events: blockscope-forward {config, seed, ids, tokens, residualNorms: {pre, post}, inspection: {pre, post}} for the
//   GPT, {preset, config, numParameters, tokens, output, torchOutput, maxAbsDiff, inspection} for the lesson's block;
//   blockscope-step {placement, block, index, step (the core's step id), op, code, mean, var, norm};
//   blockscope-answer; blockscope-check {widget, match, maxDiff, step (the first that disagrees), steps, tolerance};
//   blockscope-select (linked selection: kit/linked-selection.js).
import { mean } from 'd3-array';

import { BlockscopeElement, define, h, UPDATE } from '../kit/base.js';
import { METRICS, renderBars, renderDepth, renderSummary, renderTokenTable } from './block-charts.js';
import { watchWidth } from '../kit/chart-kit.js';
import { attrField } from '../kit/controls.js';
import { COPY_CSS, CopyPanel } from '../kit/copy-pytorch.js';
import { PREDICT_CSS, PredictPanel } from '../kit/predict-panel.js';
import { blockConfigOf, ConfigView, GPT2_BLOCK_MODEL, GPT2_PRESET, GPT_CONFIG_124M } from './block-config-view.js';
import { blockQuestions, gptSnippet, lessonSnippet, STEP_CHECK_CSS, StepCheck } from './block-learner.js';
import { createLessonBlock, LESSON_CSS, LESSON_PRESET, LessonPanel, loadLessonPreset, tokenLabels } from './block-lesson.js';
import { BlockDiagram, PLACEMENTS, STEPS, stepInfo } from './block-steps.js';
import { openTokenizer } from '../kit/tokens.js';
import { LINK_GROUP_ATTR, LINKED_CSS, LinkedSelection, tokensKey } from '../kit/linked-selection.js';
import { BlockLinks } from './block-links.js';

const CONTEXT = 128;
const SEED_NOTE = 'A Blockscope seed drives the core’s own random generator: torch.manual_seed with the same number ' +
  'gives PyTorch different weights.';
const MODELS = [
  ['', 'GPT, random weights (Blockscope seed)'],
  [LESSON_PRESET, 'lesson 82’s EncoderBlock(8, 2, 32)'],
  [GPT2_PRESET, 'one block of GPT_CONFIG_124M (emb_dim 768)'],
];
const CSS = `
.stepper { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0.75rem; align-items: start; }
@container (min-width: 700px) { .stepper { grid-template-columns: minmax(260px, 340px) minmax(0, 1fr); } }
.diagram { max-width: 340px; border-radius: 6px; }
.diagram svg { max-width: 340px; }
.node rect { fill: var(--bs-panel); stroke: var(--bs-border); stroke-width: 1.5; }
.node.norm rect { stroke: var(--bs-c4); stroke-width: 2; }
.node text { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; font-size: 12px; }
.node.current rect { fill: var(--bs-accent); stroke: var(--bs-accent); }
.node.current text { fill: var(--bs-bg); font-weight: 600; }
.node { cursor: pointer; }
.lane { stroke: var(--bs-c3); stroke-width: 4; fill: none; }
.lane.current { stroke: var(--bs-accent); stroke-width: 6; }
.flow { stroke: var(--bs-muted); stroke-width: 1.5; fill: none; }
.arrowhead { fill: var(--bs-muted); }
.plus circle { fill: var(--bs-bg); stroke: var(--bs-c3); stroke-width: 2; }
.plus text { font-size: 14px; font-weight: 700; }
.lane-label { fill: var(--bs-c3); font-size: 11px; }
.panel h4 { margin: 0 0 0.25rem; font-size: 1rem; }
.panel pre { margin: 0.25rem 0; padding: 0.35rem 0.5rem; background: var(--bs-panel); border-radius: 6px;
  white-space: pre-wrap; overflow-wrap: anywhere; }
.stepnav { display: flex; gap: 0.5rem; align-items: center; flex-wrap: wrap; }
.summary td { white-space: nowrap; }
[hidden] { display: none !important; }
@container (max-width: 420px) { table { font-size: 0.85rem; } th, td { padding: 0.15rem 0.3rem; } }
fieldset { border: 1px solid var(--bs-border); border-radius: 6px; padding: 0.25rem 0.6rem 0.4rem; margin: 0; min-width: 0; }
legend { padding: 0 0.25rem; }
.settings { margin: 0.4rem 0; }
.settings .row label { white-space: nowrap; }
input[type="number"] { width: 5.5rem; }
input.prompt { width: 22rem; }
.legend-swatch { display: inline-block; width: 1.4em; height: 0; border-top: 3px solid; vertical-align: middle; margin-right: 0.3em; }
.bar { fill: var(--bs-c1); }
.ref { stroke: var(--bs-muted); stroke-dasharray: 4 4; }
.ref-label { paint-order: stroke; stroke: var(--bs-bg); stroke-width: 4px; stroke-linejoin: round; }
caption { text-align: left; caption-side: top; }
details > summary { cursor: pointer; margin: 0.25rem 0; }
.scroll { position: relative; }
`;


export class BlockExplorer extends BlockscopeElement {
  static attrs = {
    preset: { default: '', options: ['', 'encoder-block-lesson82', GPT2_PRESET],
      doc: "lesson 82's EncoderBlock(8, 2, 32) with its PyTorch weights, or one block of the book's GPT_CONFIG_124M" }, norm: { default: 'pre', options: ['pre', 'post'] },
    block: { default: 1, min: 1, max: 48, int: true }, step: { default: 1, min: 1, max: 64, int: true },
    metric: { default: 'norm', options: ['norm', 'mean', 'var'] }, 'per-token': false,
    layers: { default: 8, min: 1, max: 48, int: true }, 'emb-dim': { default: 64, min: 4, max: 512, int: true },
    heads: { default: 4, min: 1, max: 16, int: true }, prompt: 'Every effort moves you',
    seed: { default: 123, min: 0, max: 2 ** 53 - 1, int: true }, tokenizer: { default: 'byte', options: ['byte', 'gpt2'] },
    predict: { default: '', doc: 'readouts to predict first: first-op, prenorm-quiz' },
    'link-group': LINK_GROUP_ATTR,
  };

  setup() {
    this.ready = false;
    const s = this.shadowRoot;
    s.append(h('style', {}, CSS + LESSON_CSS + PREDICT_CSS + COPY_CSS + STEP_CHECK_CSS + LINKED_CSS));
    this.predict = new PredictPanel(this.panelPort(), { questions: blockQuestions(this),
      onReveal: () => (this.runs ? this.renderView() : this.afterRender()) });
    this.stepCheck = new StepCheck(this.panelPort({ lessonBlock: () => this.checkBlock() }));
    this.copy = new CopyPanel(this.panelPort(), { snippet: () => this.toPyTorch() });
    const radio = (value) => h('label', {},
      h('input', { type: 'radio', name: 'placement', value, onchange: () => this.setAttribute('norm', value) }),
      ` ${PLACEMENTS[value]}`);
    this.placementBox = h('fieldset', {}, h('legend', {}, 'LayerNorm placement'), radio('pre'), ' ', radio('post'));
    this.presetSelect = h('select', { id: 'preset', onchange: () => this.setAttribute('preset', this.presetSelect.value) },
      ...MODELS.map(([value, label]) => h('option', { value }, label)));
    this.blockSelect = h('select', { id: 'block', onchange: () => this.setAttribute('block', this.blockSelect.value) });
    this.promptInput = h('input', { type: 'text', id: 'prompt', class: 'prompt', autocomplete: 'off', spellcheck: 'false',
      oninput: () => this.debounce('prompt', () => this.setAttribute('prompt', this.promptInput.value)) });
    const sizeFields = [attrField(this, 'layers', 'blocks'), attrField(this, 'emb-dim', 'emb_dim', { step: 4 }),
      attrField(this, 'heads', 'heads'),
      attrField(this, 'seed', 'Blockscope seed', { title: SEED_NOTE, 'aria-describedby': 'seed-note' })];
    sizeFields[3].title = SEED_NOTE; // on the label too
    this.modelText = h('p', { class: 'muted model-text' });
    this.tokenNote = h('p', { class: 'muted token-note' });

    // Stepper: dataflow diagram + the selected step's statistics.
    this.diagramBox = h('div', { class: 'diagram', tabindex: '0', role: 'group', 'aria-roledescription': 'dataflow diagram',
      onkeydown: (e) => this.onKey(e) });
    this.diagram = new BlockDiagram(this.diagramBox, (i) => this.setStep(i));
    this.prevButton = h('button', { type: 'button', class: 'prev', onclick: () => this.go(-1) }, '◀ Prev');
    this.nextButton = h('button', { type: 'button', class: 'next', onclick: () => this.go(1) }, 'Next ▶');
    this.stepLabel = h('span', { class: 'step-label num' });
    this.stepTitle = h('h4', { class: 'step-title', 'aria-live': 'polite' });
    this.stepCode = h('pre', { class: 'step-code' });
    this.stepNote = h('p', { class: 'step-note' });
    this.summary = h('table', { class: 'summary', 'aria-describedby': 'summary-caption' });
    this.summaryCaption = h('p', { class: 'muted', id: 'summary-caption' });
    this.metricBox = h('fieldset', { class: 'metric' }, h('legend', {}, 'per-token bars'),
      ...Object.entries(METRICS).map(([value, m]) => h('label', {},
        h('input', { type: 'radio', name: 'metric', value, onchange: () => this.setAttribute('metric', value) }), ` ${m.label} `)));
    this.barBox = h('div', { class: 'bars' });
    this.tokenTable = h('table', { class: 'tokens' });
    this.links = new BlockLinks(new LinkedSelection(this), { barBox: this.barBox, tokenTable: this.tokenTable });
    const panel = h('div', { class: 'panel' },
      this.stepTitle, this.stepCode, this.stepNote,
      this.summaryCaption, h('div', { class: 'scroll' }, this.summary),
      this.metricBox, this.barBox,
      h('details', {}, h('summary', {}, 'Per-token numbers for this step'), h('div', { class: 'scroll' }, this.tokenTable)));

    // Depth plot (the GPT), or the lesson's block against PyTorch.
    this.perTokenBox = h('input', { type: 'checkbox', id: 'per-token',
      onchange: () => this.toggleAttribute('per-token', this.perTokenBox.checked) });
    this.depth = { box: h('div', { class: 'depth' }), text: h('p', { class: 'depth-text' }), table: h('table', { class: 'depth-table' }) };
    this.lessonPanel = new LessonPanel();
    this.configView = new ConfigView();
    this.gptOnly = [
      h('div', { class: 'row' }, h('label', { for: 'prompt' }, 'Prompt'), this.promptInput),
      this.tokenNote,
      h('details', { class: 'settings' }, h('summary', {}, 'Model settings'),
        h('div', { class: 'row' }, ...sizeFields),
        this.modelText,
        h('p', { class: 'muted seed-note', id: 'seed-note' }, SEED_NOTE)),
    ];
    this.depthSection = h('section', { class: 'depth-section', 'aria-labelledby': 'depth-title' },
      h('h4', { id: 'depth-title' }, 'The residual stream across depth'),
      h('p', { class: 'muted' }, 'Both wirings, same seeded weights, same tokens: the L2 norm of each token\'s ' +
        'residual-stream vector after every block (averaged over tokens; block 0 is the embedding input).'),
      h('div', { class: 'row' },
        h('span', {}, h('span', { class: 'legend-swatch', style: 'border-color: var(--bs-c1)' }), 'pre-norm'),
        h('span', {}, h('span', { class: 'legend-swatch', style: 'border-color: var(--bs-c2); border-top-style: dashed' }), 'post-norm'),
        h('span', { class: 'muted' }, 'lines: mean over tokens'),
        h('label', {}, this.perTokenBox, ' show every token')),
      this.depth.box,
      this.depth.text,
      h('details', {}, h('summary', {}, 'Residual-stream norms as a table'), h('div', { class: 'scroll' }, this.depth.table)));

    s.append(
      h('h3', {}, 'Inside one transformer block: pre-norm vs post-norm'),
      h('p', {}, 'A transformer block runs a fixed sequence: save the input as a shortcut, then normalize, attend, ' +
        'apply dropout and add the shortcut back; then the same for the feed-forward half. Step through it and ' +
        'watch the per-token statistics the core records after every operation. Switch the placement to wire the ' +
        'same weights the other way.'),
      h('div', { class: 'row' }, h('label', { for: 'preset' }, 'Model'), this.presetSelect),
      h('div', { class: 'row' }, this.placementBox,
        h('span', {}, h('label', { for: 'block' }, 'block '), this.blockSelect)),
      ...this.gptOnly,
      this.predict.element,
      this.stepperWrap = h('div', { class: 'stepper-wrap' },
        h('div', { class: 'stepnav row' }, this.prevButton, this.stepLabel, this.nextButton,
          h('span', { class: 'muted' }, 'or focus the diagram and use ←/→')),
        h('div', { class: 'stepper' }, this.diagramBox, panel)),
      this.lessonPanel.root,
      this.configView.root,
      this.stepCheck.element,
      this.depthSection,
      this.copy.element,
      h('p', { class: 'status', role: 'status' }, 'Loading the core…'),
    );
    this.whileConnected(() => watchWidth(this.barBox, () => this.runs && this.renderView()));
    this.ready = true;
  }

  /** Frees the model (base.js calls this once the widget has left the page; invalidate(UPDATE.REBUILD) rebuilds it). */
  release() {
    const model = this.model;
    const check = this.checkPromise;
    this.checkPromise = null;
    check?.then(({ block }) => block.dispose()).catch(() => {});
    if (!model) return !!check;
    this.model = null;
    model.dispose().catch(() => {});
    return true;
  }

  /** A second core Block with the lesson's weights, kept pre-norm (the lesson's wiring) for the learner's checks. */
  checkBlock() {
    this.checkPromise ??= (async () => {
      const preset = await loadLessonPreset();
      return { preset, block: await createLessonBlock(await this.runtime(), preset) };
    })();
    this.checkPromise.catch(() => { this.checkPromise = null; });
    return this.checkPromise;
  }

  /** The learner panels after a render: the questions, the concealed stepper, the step check, the snippet. */
  afterRender() {
    this.predict.render();
    this.predict.conceal('first-op', this.stepperWrap, 'The step-by-step view appears once you have answered the ' +
      'question above: it shows the order of the operations.');
    this.stepCheck.hidden = !this.lesson;
    if (this.lesson) this.stepCheck.show().catch((err) => this.status(`Could not prepare the step check: ${err.message}`, { error: true }));
    this.copy.refresh();
  }

  /** The current state as a runnable PyTorch snippet (the lesson's code with the preset; else the parameter count). */
  toPyTorch() {
    if (this.lesson) return lessonSnippet(this.lesson.preset);
    return this.model ? gptSnippet(this.model.config) : '';
  }

  placement() {
    return this.attr('norm') === 'post' ? 'post' : 'pre';
  }

  /** True when the lesson's EncoderBlock is asked for (any other preset value means the seeded GPT). */
  lessonMode() {
    return this.attr('preset') === LESSON_PRESET;
  }

  config() {
    if (this.attr('preset') === GPT2_PRESET) return { ...GPT2_BLOCK_MODEL, vocab_size: this.tokenizer?.vocabSize ?? 256 };
    return {
      vocab_size: this.tokenizer?.vocabSize ?? 256, context_length: CONTEXT, emb_dim: Math.round(this.numAttr('emb-dim')),
      n_heads: Math.round(this.numAttr('heads')), n_layers: Math.round(this.numAttr('layers')),
      drop_rate: 0.1, qkv_bias: false, norm: 'pre',
    };
  }

  async start() {
    this.invalidate(UPDATE.REBUILD);
  }

  attributeChanged(name) {
    if (!this.ready) return; // attributes applied from the URL hash before setup() are read by start()
    if (['preset', 'layers', 'emb-dim', 'heads', 'seed', 'tokenizer'].includes(name)) this.invalidate(UPDATE.REBUILD);
    else if (name === 'prompt') this.invalidate(UPDATE.RECOMPUTE);
    else if (name !== 'theme' && name !== 'link-group') this.invalidate(UPDATE.REDRAW);
  }

  async update(level) {
    this.syncControls();
    if (level >= UPDATE.REBUILD) await this.buildModel();
    if (level >= UPDATE.RECOMPUTE) await this.runForward();
    if (this.runs) this.renderView();
  }

  syncControls() {
    const lesson = this.lessonMode();
    const gpt2 = this.attr('preset') === GPT2_PRESET;
    this.presetSelect.value = lesson ? LESSON_PRESET : gpt2 ? GPT2_PRESET : '';
    this.configView.hidden = !gpt2;
    for (const el of this.gptOnly) el.hidden = lesson;
    this.gptOnly[2].hidden = lesson || gpt2; // the sizes are GPT_CONFIG_124M's in that mode
    this.depthSection.hidden = lesson;
    this.lessonPanel.hidden = !lesson;
    for (const r of this.placementBox.querySelectorAll('input')) r.checked = r.value === this.placement();
    for (const r of this.metricBox.querySelectorAll('input')) r.checked = r.value === this.metric();
    this.controls.sync({ values: (name) => this.numAttr(name) });
    if (this.shadowRoot.activeElement !== this.promptInput && this.promptInput.value !== this.attr('prompt')) {
      this.promptInput.value = this.attr('prompt');
    }
    this.perTokenBox.checked = this.boolAttr('per-token');
  }

  metric() {
    const m = this.attr('metric');
    return m in METRICS ? m : 'norm';
  }

  async buildModel() {
    this.status('Building the model…');
    const rt = await this.runtime();
    this.flavour = rt.flavour;
    let model;
    let lesson = null;
    const seed = Math.round(this.numAttr('seed'));
    if (this.lessonMode()) {
      const preset = await loadLessonPreset();
      model = await createLessonBlock(rt, preset);
      lesson = { preset, parts: await rt.blockParameters(preset.config) };
    } else {
      this.tokenizer = await openTokenizer(rt, this.attr('tokenizer'));
      this.tokenNote.textContent = this.tokenizer.note;
      model = await rt.createGPT(this.config(), { seed }); // rejects with the core's message on a bad config
      if (this.attr('preset') === GPT2_PRESET) this.configView.draw(await rt.blockParameters(blockConfigOf(GPT_CONFIG_124M)));
    }
    const old = this.model;
    this.model = model;
    this.lesson = lesson;
    this.seed = lesson ? null : seed;
    this.runs = null;
    await old?.dispose();
    const config = model.config;
    if (!lesson) {
      this.modelText.textContent = `GPT with ${config.n_layers} blocks, emb_dim ${config.emb_dim}, ${config.n_heads} heads, ` +
        `vocabulary ${config.vocab_size}, context ${config.context_length}: ${model.numParameters.toLocaleString('en-US')} ` +
        `parameters, random weights from Blockscope seed ${seed}, untrained as in the book's chapter 4.`;
    }
    const n = lesson ? 1 : config.n_layers;
    this.blockSelect.replaceChildren(...Array.from({ length: n }, (_, i) => h('option', { value: String(i + 1) }, String(i + 1))));
  }

  async runForward() {
    if (this.lesson) {
      await this.runLessonForward();
      return;
    }
    const text = this.attr('prompt');
    const all = Array.from(await this.tokenizer.encode(text));
    if (all.length === 0) {
      this.status('Type at least one character to run the block.', { error: true });
      return;
    }
    this.status('Running both wirings…');
    const runs = {};
    let dropped = 0;
    for (const p of ['pre', 'post']) {
      await this.model.setNormPlacement(p); // same weights, other wiring
      // A prompt longer than the context: the core reads its last CONTEXT tokens.
      ({ inspection: runs[p], cropped: dropped } = await this.model.forward(all, { inspect: true, overflow: 'crop' }));
    }
    const ids = all.slice(dropped);
    const cropped = dropped
      ? ` The prompt has ${all.length} tokens; only the last ${this.model.config.context_length} (the context length) are used.` : '';
    this.ids = ids;
    this.tokens = await this.tokenizer.tokenTexts(ids);
    this.runs = runs;
    this.links.setPass(ids, { tokens: tokensKey(this.tokenizer.key, ids), model: `block:${this.seed}:${JSON.stringify(this.model.config)}` });
    this.residual = { pre: this.residualSeries(runs.pre), post: this.residualSeries(runs.post) };
    this.status(`${ids.length} tokens, two forward passes in the core (wasm ${this.flavour}).${cropped}`);
    this.emit('forward', {
      config: this.model.config, seed: this.seed, ids, tokens: this.tokens,
      residualNorms: { pre: this.residual.pre.mean, post: this.residual.post.mean },
      inspection: runs,
    });
  }

  /** The lesson's x through the lesson's block, both wirings; the pre-norm output (the lesson's) against PyTorch's. */
  async runLessonForward() {
    const { preset, parts } = this.lesson;
    const [B, T, d] = preset.shape;
    this.status('Running the lesson’s block…');
    const runs = {};
    const outputs = {};
    for (const p of ['pre', 'post']) {
      await this.model.setNormPlacement(p);
      const r = await this.model.forward(preset.x, B, T);
      runs[p] = { layers: [r.inspection], C: d, T: B * T };
      outputs[p] = r.output;
    }
    this.ids = null;
    this.tokens = tokenLabels(preset.shape);
    this.links.setPass(null); // the lesson's x is a tensor, not tokens: nothing to link
    this.runs = runs;
    this.residual = null;
    const numParameters = this.model.numParameters;
    const { maxDiff, within } = this.lessonPanel.draw({ preset, output: outputs.pre, numParameters, parts });
    this.status(`Lesson 82’s EncoderBlock, ${numParameters} parameters, two forward passes in the core (wasm ` +
      `${this.flavour}); its pre-norm output ${within ? 'matches' : 'does NOT match'} PyTorch’s (largest difference ` +
      `${maxDiff.toExponential(1)}).`, { error: !within });
    this.emit('forward', {
      preset: LESSON_PRESET, config: preset.config, numParameters, tokens: this.tokens,
      output: Array.from(outputs.pre), torchOutput: Array.from(preset.torchOutput), maxAbsDiff: maxDiff, inspection: runs,
    });
  }

  /** Per block (0 = the embedding input of block 1): per-token residual-stream norms and their mean over tokens. */
  residualSeries(ins) {
    const perToken = [ins.layers[0].steps[0].norm, ...ins.layers.map((l) => l.residualNorm)].map((a) => Array.from(a));
    return { perToken, mean: perToken.map((a) => mean(a)) };
  }

  // ------------------------------------------------------------------ stepping

  stepCount() {
    return (this.runs?.[this.placement()].layers[0].steps ?? STEPS[this.placement()]).length;
  }

  stepIndex() {
    const n = this.stepCount();
    return Math.min(n, Math.max(1, Math.round(this.numAttr('step')))) - 1;
  }

  blockIndex() {
    const L = this.runs?.pre.layers.length ?? this.numAttr('layers');
    return Math.min(L, Math.max(1, Math.round(this.numAttr('block')))) - 1;
  }

  go(delta) {
    this.setStep(this.stepIndex() + delta);
  }

  setStep(i) {
    const n = this.stepCount();
    this.setAttribute('step', String(Math.min(n - 1, Math.max(0, i)) + 1));
  }

  onKey(e) {
    const moves = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
    if (e.key in moves) this.go(moves[e.key]);
    else if (e.key === 'Home') this.setStep(0);
    else if (e.key === 'End') this.setStep(this.stepCount() - 1);
    else return;
    e.preventDefault();
  }

  // ------------------------------------------------------------------ rendering

  renderView() {
    const p = this.placement();
    const b = this.blockIndex();
    const i = this.stepIndex();
    const lesson = !!this.lesson;
    const L = this.runs[p].layers.length;
    const layer = this.runs[p].layers[b];
    const step = layer.steps[i];
    const info = stepInfo(p, layer.steps, { lesson });
    const d = this.runs.pre.C;
    this.blockSelect.value = String(b + 1);
    this.prevButton.disabled = i === 0;
    this.nextButton.disabled = i === layer.steps.length - 1;
    this.stepLabel.textContent = `step ${i + 1} of ${layer.steps.length}`;
    this.stepTitle.textContent = `${lesson ? 'EncoderBlock' : `Block ${b + 1}`}, step ${i + 1}: ${info[i].role} (${p}-norm)`;
    this.stepCode.textContent = info[i].code.join('\n');
    this.stepNote.textContent = info[i].note;
    const labels = lesson
      ? { top: 'x: the lesson’s input, torch.randn(2, 5, 8)', bottom: 'block output: the lesson’s out' }
      : { top: b === 0 ? 'x: token + position embeddings' : `x: output of block ${b}`,
        bottom: b === L - 1 ? 'block output → final norm' : `block output → block ${b + 2}` };
    this.diagram.render({ p, steps: layer.steps, info, current: i, b, labels });
    renderSummary({ table: this.summary, caption: this.summaryCaption }, step, { isEmbedding: !lesson && b === 0 && i === 0, d });
    renderBars(this.barBox, step, { metric: this.metric(), tokens: this.tokens, d,
      xLabel: lesson ? 'token x[b, t] (sequence b, position t)' : undefined });
    renderTokenTable(this.tokenTable, step, this.tokens);
    this.links.refresh();
    if (this.residual) renderDepth(this.depth, this.residual, { d, currentBlock: b, perToken: this.boolAttr('per-token') });
    this.afterRender();
    this.emit('step', {
      placement: p, block: b + 1, index: i, step: step.id, op: step.op, code: info[i].code.join('\n'),
      mean: Array.from(step.mean), var: Array.from(step.var), norm: Array.from(step.norm),
    });
  }
}

define('block-explorer', BlockExplorer);
