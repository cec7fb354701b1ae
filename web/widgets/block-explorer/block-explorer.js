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
// Sections (sections="…"): title, predict, stepper, lesson, config, step-check, depth, copy-pytorch, status; control
// groups (controls="…", lock="…"): see static controlGroups. Words and numbers in the widget's language
// (i18n/<locale>/block-explorer.js, prefix block.); snippets and event details stay locale-free.
// Events: blockscope-forward {config, seed, ids, tokens, residualNorms: {pre, post}, inspection: {pre, post}} for the
//   GPT, {preset, config, numParameters, tokens, output, torchOutput, maxAbsDiff, inspection} for the lesson's block;
//   blockscope-step {placement, block, index, step (the core's step id), op, code, mean, var, norm};
//   blockscope-answer; blockscope-check {widget, match, maxDiff, step (the first that disagrees), steps, tolerance};
//   blockscope-select (linked selection: kit/linked-selection.js).
import { mean } from 'd3-array';

import { BlockscopeElement, define, h, UPDATE } from '../kit/base.js';
import { METRICS, renderBars, renderDepth, renderSummary, renderTokenTable } from './block-charts.js';
import { watchWidth } from '../kit/chart-kit.js';
import { attrField, debouncedField, headChecks, showInField } from '../kit/controls.js';
import { COPY_CSS, CopyPanel } from '../kit/copy-pytorch.js';
import { PREDICT_CSS, PredictPanel } from '../kit/predict-panel.js';
import { blockConfigOf, ConfigView, GPT2_BLOCK_MODEL, GPT2_PRESET, GPT_CONFIG_124M } from './block-config-view.js';
import { blockQuestions, gptSnippet, lessonSnippet, STEP_CHECK_CSS, StepCheck } from './block-learner.js';
import { createLessonBlock, LESSON_CSS, LESSON_PRESET, LessonPanel, loadLessonPreset, tokenLabels } from './block-lesson.js';
import { BlockDiagram, PLACEMENTS, STEPS, stepInfo } from './block-steps.js';
import { openTokenizer } from '../kit/tokens.js';
import { LINK_GROUP_ATTR, LINKED_CSS, LinkedSelection, tokensKey } from '../kit/linked-selection.js';
import { BlockLinks } from './block-links.js';
import { expNum } from './block-numbers.js';
import { CSS } from './block-style.js';
import en from '../i18n/en/block-explorer.js';

const CONTEXT = 128;
/** The model menu: preset value -> message key. */
const MODELS = [
  ['', 'block.model.gpt'],
  [LESSON_PRESET, 'block.model.lesson'],
  [GPT2_PRESET, 'block.model.gpt2'],
];


export class BlockExplorer extends BlockscopeElement {
  static attrs = {
    preset: { default: '', options: ['', 'encoder-block-lesson82', GPT2_PRESET],
      doc: "lesson 82's EncoderBlock(8, 2, 32) with its PyTorch weights, or one block of the book's GPT_CONFIG_124M" }, norm: { default: 'pre', options: ['pre', 'post'] },
    block: { default: 1, min: 1, max: 48, int: true }, step: { default: 1, min: 1, max: 64, int: true },
    metric: { default: 'norm', options: ['norm', 'mean', 'var'] }, 'per-token': false,
    layers: { default: 8, min: 1, max: 48, int: true, group: 'size' },
    'emb-dim': { default: 64, min: 4, max: 512, int: true, group: 'size' },
    heads: { default: 4, min: 1, max: 16, int: true, group: 'size' }, prompt: 'Every effort moves you',
    seed: { default: 123, min: 0, max: 2 ** 53 - 1, int: true }, tokenizer: { default: 'byte', options: ['byte', 'gpt2'] },
    predict: { default: '', doc: 'readouts to predict first: first-op, prenorm-quiz' },
    'link-group': LINK_GROUP_ATTR,
  };

  static controlGroups = {
    preset: 'the model menu: the seeded GPT, lesson 82’s EncoderBlock or one block of GPT_CONFIG_124M',
    norm: 'the LayerNorm placement: pre-norm or post-norm',
    block: 'which block of the GPT is shown',
    step: 'the Prev and Next buttons (and stepping on the diagram: clicks and arrow keys)',
    prompt: 'the prompt (GPT models)',
    size: 'the GPT’s size under Model settings: blocks, emb_dim, heads',
    seed: 'the Blockscope seed under Model settings',
    metric: 'which statistic the per-token bars show: L2 norm, mean or variance',
    'per-token': 'the depth plot’s “show every token” checkbox',
    check: 'the step check (lesson preset): what you paste, the printout box and the check button',
    break: 'the “break a step” practice (lesson preset): step, mistake, Break it and its quiz',
  };

  static sections = {
    title: 'the heading',
    predict: 'the questions to answer first (predict="…")',
    stepper: 'the step-by-step view: dataflow diagram, the step’s code, note, statistics and per-token bars',
    lesson: 'lesson 82’s printout and the block output against PyTorch’s (lesson preset)',
    config: 'TransformerBlock(GPT_CONFIG_124M)’s five parts and their parameters (gpt2-124m preset)',
    'step-check': 'the learner’s EncoderBlock checked step by step, and “break a step” (lesson preset)',
    depth: 'the residual stream’s L2 norm across depth, pre-norm vs post-norm (GPT models)',
    'copy-pytorch': 'the Copy as PyTorch button',
    status: 'the status line',
  };

  setup() {
    this.ready = false;
    const s = this.shadowRoot;
    const t = (key, params) => this.t(key, params);
    s.append(h('style', {}, CSS + LESSON_CSS + PREDICT_CSS + COPY_CSS + STEP_CHECK_CSS + LINKED_CSS));
    this.predictPanel = new PredictPanel(this.panelPort(), { questions: blockQuestions(this),
      onReveal: () => (this.runs ? this.renderView() : this.afterRender()) });
    this.stepCheck = new StepCheck(this.panelPort({ lessonBlock: () => this.checkBlock() }));
    this.copy = new CopyPanel(this.panelPort(), { snippet: () => this.toPyTorch() });
    const radio = (value) => h('label', {},
      h('input', { type: 'radio', name: 'placement', value, onchange: () => this.set('norm', value) }),
      ` ${t(PLACEMENTS[value].label)}`);
    this.placementBox = h('fieldset', {}, h('legend', {}, t('block.placement.legend')), radio('pre'), ' ', radio('post'));
    this.presetSelect = h('select', { id: 'preset', onchange: () => this.set('preset', this.presetSelect.value) },
      ...MODELS.map(([value, key]) => h('option', { value }, t(key))));
    this.blockSelect = h('select', { id: 'block', onchange: () => this.set('block', this.blockSelect.value) });
    this.promptInput = debouncedField(this, h('input', { type: 'text', id: 'prompt', class: 'prompt', autocomplete: 'off',
      spellcheck: 'false' }), 'prompt');
    const seedNote = t('block.seedNote');
    const heads = headChecks(this);
    const sizeFields = [attrField(this, 'layers', t('block.field.layers')),
      attrField(this, 'emb-dim', 'emb_dim', { step: 4 }, { check: heads.width }),
      attrField(this, 'heads', t('block.field.heads'), {}, { check: heads.heads }),
      attrField(this, 'seed', t('block.field.seed'), { title: seedNote, 'aria-describedby': 'seed-note' })];
    sizeFields[3].title = seedNote; // on the label too
    this.modelText = h('p', { class: 'muted model-text' });
    this.tokenNote = h('p', { class: 'muted token-note' });

    // Stepper: dataflow diagram + the selected step's statistics.
    this.diagramBox = h('div', { class: 'diagram', tabindex: '0', role: 'group', 'aria-roledescription': t('block.diagramRole'),
      onkeydown: (e) => this.onKey(e) });
    this.diagram = new BlockDiagram(this.diagramBox, (i) => this.setStep(i), t);
    this.prevButton = h('button', { type: 'button', class: 'prev', onclick: () => this.go(-1) }, t('block.prev'));
    this.nextButton = h('button', { type: 'button', class: 'next', onclick: () => this.go(1) }, t('block.next'));
    this.stepLabel = h('span', { class: 'step-label num' });
    this.stepTitle = h('h4', { class: 'step-title', 'aria-live': 'polite' });
    this.stepCode = h('pre', { class: 'step-code' });
    this.stepNote = h('p', { class: 'step-note' });
    this.summary = h('table', { class: 'summary', 'aria-describedby': 'summary-caption' });
    this.summaryCaption = h('p', { class: 'muted', id: 'summary-caption' });
    this.metricBox = h('fieldset', { class: 'metric' }, h('legend', {}, t('block.metric.legend')),
      ...Object.entries(METRICS).map(([value, m]) => h('label', {},
        h('input', { type: 'radio', name: 'metric', value, onchange: () => this.set('metric', value) }), ` ${t(m.label)} `)));
    this.barBox = h('div', { class: 'bars' });
    this.tokenTable = h('table', { class: 'tokens' });
    this.links = new BlockLinks(new LinkedSelection(this), { barBox: this.barBox, tokenTable: this.tokenTable });
    const panel = h('div', { class: 'panel' },
      this.stepTitle, this.stepCode, this.stepNote,
      this.summaryCaption, h('div', { class: 'scroll' }, this.summary),
      this.metricBox, this.barBox,
      h('details', {}, h('summary', {}, t('block.tokenDetails')), h('div', { class: 'scroll' }, this.tokenTable)));

    // Depth plot (the GPT), or the lesson's block against PyTorch.
    this.perTokenBox = h('input', { type: 'checkbox', id: 'per-token',
      onchange: () => this.set('per-token', this.perTokenBox.checked) });
    const perTokenLabel = h('label', {}, this.perTokenBox, ` ${t('block.depth.everyToken')}`);
    this.depth = { box: h('div', { class: 'depth' }), text: h('p', { class: 'depth-text' }), table: h('table', { class: 'depth-table' }) };
    this.lessonPanel = new LessonPanel(this.panelPort());
    this.configView = new ConfigView(this.panelPort());
    const sizeRow = h('div', { class: 'row', part: 'controls' }, ...sizeFields);
    const promptRow = h('div', { class: 'row' }, h('label', { for: 'prompt' }, t('block.prompt')), this.promptInput);
    this.gptOnly = [
      promptRow,
      this.tokenNote,
      h('details', { class: 'settings' }, h('summary', {}, t('block.settings')),
        sizeRow,
        this.modelText,
        h('p', { class: 'muted seed-note', id: 'seed-note' }, seedNote)),
    ];
    this.depthSection = h('section', { class: 'depth-section', part: 'depth', 'aria-labelledby': 'depth-title' },
      h('h4', { id: 'depth-title' }, t('block.depth.title')),
      h('p', { class: 'muted' }, t('block.depth.intro')),
      h('div', { class: 'row' },
        h('span', {}, h('span', { class: 'legend-swatch', style: 'border-color: var(--bs-c1)' }), t('block.placement.preShort')),
        h('span', {}, h('span', { class: 'legend-swatch', style: 'border-color: var(--bs-c2); border-top-style: dashed' }),
          t('block.placement.postShort')),
        h('span', { class: 'muted' }, t('block.depth.linesMean')),
        perTokenLabel),
      this.depth.box,
      this.depth.text,
      h('details', {}, h('summary', {}, t('block.depth.tableDetails')), h('div', { class: 'scroll' }, this.depth.table)));

    const presetRow = h('div', { class: 'row' }, h('label', { for: 'preset' }, t('block.model')), this.presetSelect);
    const blockChoice = h('span', {}, h('label', { for: 'block' }, `${t('block.blockLabel')} `), this.blockSelect);
    const keysHint = h('span', { class: 'muted' }, t('block.keysHint'));
    s.append(
      h('h3', {}, t('block.title')),
      h('p', {}, t('block.intro')),
      presetRow,
      h('div', { class: 'row', part: 'controls' }, this.placementBox, blockChoice),
      ...this.gptOnly,
      this.predictPanel.element,
      this.stepperWrap = h('div', { class: 'stepper-wrap', part: 'stepper' },
        h('div', { class: 'stepnav row' }, this.prevButton, this.stepLabel, this.nextButton, keysHint),
        h('div', { class: 'stepper' }, this.diagramBox, panel)),
      this.lessonPanel.root,
      this.configView.root,
      this.stepCheck.element,
      this.depthSection,
      this.copy.element,
      h('p', { class: 'status', role: 'status' }, t('block.status.loading')),
    );
    const groups = this.boundControls;
    groups.addGroup('preset', presetRow);
    groups.addGroup('norm', this.placementBox);
    groups.addGroup('block', blockChoice);
    groups.addGroup('step', this.prevButton, this.nextButton, keysHint);
    groups.addGroup('prompt', promptRow);
    groups.addGroup('metric', this.metricBox);
    groups.addGroup('per-token', perTokenLabel);
    this.whileConnected(() => watchWidth(this.barBox, () => this.runs && this.renderView()));
    this.ready = true;
  }

  /** With lock="…" changing, the step buttons follow (renderView enables them by position; a locked step keeps them off). */
  attributeChangedCallback(name, oldValue, newValue) {
    super.attributeChangedCallback(name, oldValue, newValue);
    if (name === 'lock' && this.runs && this._built) this.syncStepButtons();
  }

  /** Frees the model (base.js calls this once the widget has left the page; invalidate(UPDATE.REBUILD) rebuilds it). */
  release() {
    const model = this.blockModel;
    const check = this.checkPromise;
    this.checkPromise = null;
    check?.then(({ block }) => block.dispose()).catch(() => {});
    if (!model) return !!check;
    this.blockModel = null;
    model.dispose().catch(() => {});
    return true;
  }

  /** A second core Block with the lesson's weights, kept pre-norm (the lesson's wiring) for the learner's checks. */
  checkBlock() {
    this.checkPromise ??= (async () => {
      const t = (key, params) => this.t(key, params);
      const preset = await loadLessonPreset(t);
      return { preset, block: await createLessonBlock(await this.runtime(), preset, t) };
    })();
    this.checkPromise.catch(() => { this.checkPromise = null; });
    return this.checkPromise;
  }

  /** The learner panels after a render: the questions, the concealed stepper, the step check, the snippet. */
  afterRender() {
    this.predictPanel.render();
    this.predictPanel.conceal('first-op', this.stepperWrap, this.t('block.concealed'));
    this.stepCheck.hidden = !this.lesson;
    if (this.lesson) {
      this.stepCheck.show().catch((err) => this.status(this.t('block.status.stepCheckFailed', { error: err.message }), { error: true }));
    }
    this.copy.refresh();
  }

  /** The current state as a runnable PyTorch snippet (the lesson's code with the preset; else the parameter count). */
  toPyTorch() {
    if (this.lesson) return lessonSnippet(this.lesson.preset);
    return this.blockModel ? gptSnippet(this.blockModel.config) : '';
  }

  placement() {
    return this.attr('norm') === 'post' ? 'post' : 'pre';
  }

  /** True when the lesson's EncoderBlock is asked for (any other preset value means the seeded GPT). */
  lessonMode() {
    return this.attr('preset') === LESSON_PRESET;
  }

  config() {
    if (this.attr('preset') === GPT2_PRESET) return { ...GPT2_BLOCK_MODEL, vocab_size: this.textTokenizer?.vocabSize ?? 256 };
    return {
      vocab_size: this.textTokenizer?.vocabSize ?? 256, context_length: CONTEXT, emb_dim: Math.round(this.numAttr('emb-dim')),
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
    for (const r of this.metricBox.querySelectorAll('input')) r.checked = r.value === this.metricName();
    this.boundControls.sync({ values: (name) => this.numAttr(name) });
    showInField(this, this.promptInput, this.attr('prompt'));
    this.perTokenBox.checked = this.boolAttr('per-token');
  }

  metricName() {
    const m = this.attr('metric');
    return m in METRICS ? m : 'norm';
  }

  async buildModel() {
    const t = (key, params) => this.t(key, params);
    this.status(t('block.status.building'));
    const rt = await this.runtime();
    this.flavour = rt.flavour;
    let model;
    let lesson = null;
    const seed = Math.round(this.numAttr('seed'));
    if (this.lessonMode()) {
      const preset = await loadLessonPreset(t);
      model = await createLessonBlock(rt, preset, t);
      lesson = { preset, parts: await rt.blockParameters(preset.config) };
    } else {
      this.textTokenizer = await openTokenizer(rt, this.attr('tokenizer'));
      this.tokenNote.textContent = this.textTokenizer.noteIn?.(this.messages) ?? this.textTokenizer.note; // kit/tokens.js
      model = await rt.createGPT(this.config(), { seed }); // rejects with the core's message on a bad config
      if (this.attr('preset') === GPT2_PRESET) this.configView.draw(await rt.blockParameters(blockConfigOf(GPT_CONFIG_124M)));
    }
    const old = this.blockModel;
    this.blockModel = model;
    this.lesson = lesson;
    this.modelSeed = lesson ? null : seed;
    this.runs = null;
    await old?.dispose();
    const config = model.config;
    if (!lesson) {
      // The seed is a name for the weights (written as typed, never grouped); the sizes are numbers.
      this.modelText.textContent = t('block.modelText', { count: config.n_layers, embDim: config.emb_dim,
        heads: config.n_heads, vocab: config.vocab_size, context: config.context_length, params: model.numParameters,
        seed: String(seed) });
    }
    const n = lesson ? 1 : config.n_layers;
    this.blockSelect.replaceChildren(...Array.from({ length: n }, (_, i) => h('option', { value: String(i + 1) }, this.num(i + 1))));
  }

  async runForward() {
    if (this.lesson) {
      await this.runLessonForward();
      return;
    }
    const text = this.attr('prompt');
    const all = Array.from(await this.textTokenizer.encode(text));
    if (all.length === 0) {
      this.status(this.t('block.status.emptyPrompt'), { error: true });
      return;
    }
    this.status(this.t('block.status.running'));
    const runs = {};
    let dropped = 0;
    for (const p of ['pre', 'post']) {
      await this.blockModel.setNormPlacement(p); // same weights, other wiring
      // A prompt longer than the context: the core reads its last CONTEXT tokens.
      ({ inspection: runs[p], cropped: dropped } = await this.blockModel.forward(all, { inspect: true, overflow: 'crop' }));
    }
    const ids = all.slice(dropped);
    this.ids = ids;
    this.tokens = await this.textTokenizer.tokenTexts(ids);
    this.runs = runs;
    this.links.setPass(ids, { tokens: tokensKey(this.textTokenizer.key, ids), model: `block:${this.modelSeed}:${JSON.stringify(this.blockModel.config)}` });
    this.residual = { pre: this.residualSeries(runs.pre), post: this.residualSeries(runs.post) };
    this.status(dropped
      ? this.t('block.status.ranCropped', { count: ids.length, flavour: this.flavour, total: all.length,
        context: this.blockModel.config.context_length })
      : this.t('block.status.ran', { count: ids.length, flavour: this.flavour }));
    this.emit('forward', {
      config: this.blockModel.config, seed: this.modelSeed, ids, tokens: this.tokens,
      residualNorms: { pre: this.residual.pre.mean, post: this.residual.post.mean },
      inspection: runs,
    });
  }

  /** The lesson's x through the lesson's block, both wirings; the pre-norm output (the lesson's) against PyTorch's. */
  async runLessonForward() {
    const { preset, parts } = this.lesson;
    const [B, T, d] = preset.shape;
    this.status(this.t('block.status.lessonRunning'));
    const runs = {};
    const outputs = {};
    for (const p of ['pre', 'post']) {
      await this.blockModel.setNormPlacement(p);
      const r = await this.blockModel.forward(preset.x, B, T);
      runs[p] = { layers: [r.inspection], C: d, T: B * T };
      outputs[p] = r.output;
    }
    this.ids = null;
    this.tokens = tokenLabels(preset.shape);
    this.links.setPass(null); // the lesson's x is a tensor, not tokens: nothing to link
    this.runs = runs;
    this.residual = null;
    const numParameters = this.blockModel.numParameters;
    const { maxDiff, within } = this.lessonPanel.draw({ preset, output: outputs.pre, numParameters, parts });
    this.status(this.t(within ? 'block.status.lessonMatch' : 'block.status.lessonMismatch', { params: numParameters,
      flavour: this.flavour, diff: expNum((v, digits) => this.num(v, digits), maxDiff, 1) }), { error: !within });
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

  /** The learner moves to step i (0-based): refused when the author locked the step (lock="step"). */
  setStep(i) {
    const n = this.stepCount();
    this.set('step', String(Math.min(n - 1, Math.max(0, i)) + 1));
  }

  /** Prev and Next: off at the ends, and while the step is locked. */
  syncStepButtons() {
    const i = this.stepIndex();
    const locked = this.locked('step');
    this.prevButton.disabled = locked || i === 0;
    this.nextButton.disabled = locked || i === this.stepCount() - 1;
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
    const t = (key, params) => this.t(key, params);
    const m = this.messages;
    const info = stepInfo(p, layer.steps, { lesson, t });
    const d = this.runs.pre.C;
    this.blockSelect.value = String(b + 1);
    this.syncStepButtons();
    this.stepLabel.textContent = t('block.stepOf', { step: i + 1, count: layer.steps.length });
    const title = { step: i + 1, role: info[i].role, placement: t(PLACEMENTS[p].short) };
    this.stepTitle.textContent = lesson ? t('block.stepTitle.lesson', title) : t('block.stepTitle.gpt', { ...title, block: b + 1 });
    this.stepCode.textContent = info[i].code.join('\n');
    this.stepNote.textContent = info[i].note;
    const labels = lesson
      ? { top: t('block.lane.lessonTop'), bottom: t('block.lane.lessonBottom') }
      : { top: b === 0 ? t('block.lane.embeddings') : t('block.lane.previous', { block: b }),
        bottom: b === L - 1 ? t('block.lane.finalNorm') : t('block.lane.next', { block: b + 2 }) };
    this.diagram.render({ p, steps: layer.steps, info, current: i, b, labels });
    renderSummary({ table: this.summary, caption: this.summaryCaption }, step, { isEmbedding: !lesson && b === 0 && i === 0, d }, m);
    renderBars(this.barBox, step, { metric: this.metricName(), tokens: this.tokens, d,
      xLabel: lesson ? t('block.bars.lessonXLabel') : undefined }, m);
    renderTokenTable(this.tokenTable, step, this.tokens, m);
    this.links.refresh();
    if (this.residual) renderDepth(this.depth, this.residual, { d, currentBlock: b, perToken: this.boolAttr('per-token') }, m);
    this.afterRender();
    this.emit('step', {
      placement: p, block: b + 1, index: i, step: step.id, op: step.op, code: info[i].code.join('\n'),
      mean: Array.from(step.mean), var: Array.from(step.var), norm: Array.from(step.norm),
    });
  }
}

define('block-explorer', BlockExplorer, en);
