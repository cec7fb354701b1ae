// <gpt-explorer> — a GPT forward pass in the tab: type a prompt and see the next-token candidates, the attention
// weights of every head, the LayerNorm statistics of every layer and token, the feed-forward activations before and
// after GELU, and generate text token by token. The model is a small GPT shipped with Blockscope — by default the one
// trained on the Brown corpus (models/brown/), or model="sort", which sorts numbers (models/sort/) —, loaded when the
// widget approaches the viewport, next to its untrained twin — the same config with seeded random weights — so the
// two next-token tables show what training changed. Every number is the core's.
// Attributes: prompt, weights (trained|untrained|random), seed (123), loading (lazy|eager), model (a shipped model's
//   name, brown or sort, or a checkpoint directory URL that replaces it), layers (4), emb-dim (64), heads (4), context (128),
//   tokenizer (byte|gpt2) — the size of a weights="random" model —, norm (pre|post), overflow (crop|error),
//   candidates (10), layer (1), head (1), ln (norm1|norm2|final), ln-side (in|out), stat (var|mean),
//   temperature (1), top-k (25), top-p (1), max-new-tokens (40), gen-seed (42), ablate, ablate-mode, attribution,
//   link-group (page; kit/linked-selection.js: hovering or focusing a token or head highlights it in linked widgets).
// Events: blockscope-model {source, label, config, numParameters}, blockscope-forward {ids, tokens, config, weights,
//   candidates, compare, ...}, blockscope-token {token, index}, blockscope-generated {tokens, text, stopReason},
//   blockscope-select {kind, position, id, layer, head, pass, group, source} (linked selection).
// Layout (gpt-attrs.js): controls="…" and lock="…" name its control groups, sections="…" its panels. Its words are in
// i18n/<locale>/gpt-explorer.js (lang="de", …); events and Copy as PyTorch are the same in every language.
import { BlockscopeElement, define, h, UPDATE } from '../kit/base.js';
import { watchWidth } from '../kit/chart-kit.js';
import { debouncedField, showInField } from '../kit/controls.js';
import { CANDIDATES_CSS, renderCandidates } from './gpt-candidates.js';
import { CHARTS_CSS, InspectionView } from './gpt-charts.js';
import { GENERATE_CSS, GeneratePanel } from './gpt-generate.js';
import { MODEL_PANEL_CSS, ModelPanel } from './gpt-model-panel.js';
import { INTERPRET_CSS, InterpretPanel } from './gpt-interpret.js';
import { LabRuns } from './gpt-lab-runs.js';
import { GPTLinks } from './gpt-links.js';
import { LINKED_CSS, LinkedSelection, tokensKey } from '../kit/linked-selection.js';
import { GPTModels, modelSpec, Released, shippedModel, tokenNote } from './gpt-models.js';
import { CONTROL_GROUPS, GPT_ATTRS, SECTIONS } from './gpt-attrs.js';
import { BYTE_CSS, piecesLabel, renderPieces } from '../kit/tokens.js';
import { COPY_CSS, CopyPanel } from '../kit/copy-pytorch.js';
import { gptSnippet, WEIGHTS_FILE } from './gpt-pytorch.js';
import en from '../i18n/en/gpt-explorer.js';

const CSS = `
section { margin: 0.9rem 0 0; padding-top: 0.6rem; border-top: 1px solid var(--bs-border); }
h4 { margin: 0 0 0.35rem; font-size: 1rem; }
textarea { width: 100%; resize: vertical; }
.chips { display: flex; flex-wrap: wrap; gap: 3px; list-style: none; padding: 0; margin: 0.35rem 0; max-height: 7.5rem; overflow-y: auto; }
.chips li { font: 12px ui-monospace, Menlo, Consolas, monospace; padding: 0 4px; border: 1px solid var(--bs-border);
  border-radius: 4px; background: var(--bs-panel); white-space: pre; }
.chips li.cropped { opacity: 0.45; text-decoration: line-through; }
.chips li .byte { margin: 0; border: 0; padding: 0; background: none; }
.chips li.bytes { border: 1px dashed var(--bs-c4); }
.tok { font-family: ui-monospace, Menlo, Consolas, monospace; white-space: pre; }
.controls label { white-space: nowrap; }
.controls output { display: inline-block; min-width: 2.6em; font-variant-numeric: tabular-nums; }
input[type="number"] { width: 5.5rem; }
details > summary { cursor: pointer; margin: 0.25rem 0; }
.note { font-style: italic; }
.token-note { overflow-wrap: anywhere; } /* it may name a tokenizer file by its URL */
`;

// The next-token table's title and Generate's model line, by the kind of model selected (GPTModels.key).
const TABLE_TITLES = { trained: 'gpt.table.trained', untrained: 'gpt.table.untrained', fallback: 'gpt.table.untrained',
  random: 'gpt.table.random', loaded: 'gpt.table.loaded' };
const GENERATES_WITH = { trained: 'gpt.gen.with.trained', untrained: 'gpt.gen.with.untrained', fallback: 'gpt.gen.with.fallback',
  random: 'gpt.gen.with.random', loaded: 'gpt.gen.with.loaded' };

/** Attributes whose change rebuilds the models (level 3), re-runs the forward pass (2), or only redraws (1). */
const MODEL_ATTRS = ['layers', 'emb-dim', 'heads', 'context', 'seed', 'tokenizer', 'model', 'weights'];
const FORWARD_ATTRS = ['prompt', 'overflow', 'norm', 'candidates', 'ablate', 'ablate-mode', 'attribution'];

export class GPTExplorer extends BlockscopeElement {
  static attrs = GPT_ATTRS;
  static controlGroups = CONTROL_GROUPS;
  static sections = SECTIONS;

  setup() {
    this.ready = false;
    // Built again when the widget's language changes (base.js relocalize): the models, the model-work queue and the
    // loaded files stay, a generation in progress stops, and the views are drawn anew.
    this.gen?.cancel();
    const lab = this.labRuns;
    this.queue ??= Promise.resolve();
    this.models ??= new GPTModels((key, params) => this.t(key, params));
    // Where the model comes from beyond the attributes (model, weights, seed and the random model's size): checkpoint
    // files the learner dropped or picked, which no attribute can hold, and a pending retry of the shipped download.
    // spec() reads the attributes and this, and changes neither.
    this.source ??= { files: null, fileCount: 0, retry: false };
    this.result = null;
    this.shownModel = null;
    const s = this.shadowRoot;
    s.append(h('style', {}, CSS + BYTE_CSS + COPY_CSS + CANDIDATES_CSS + CHARTS_CSS + GENERATE_CSS + MODEL_PANEL_CSS + INTERPRET_CSS + LINKED_CSS));
    this.port = this.panelPort();
    this.link = new LinkedSelection(this);
    this.panel = new ModelPanel(this.panelPort({ retry: () => this.retry(), useShipped: () => this.useShipped(),
      loadFiles: (files) => this.loadFiles(files), loadUrl: (url) => this.loadUrl(url) }));
    this.buildPromptSection();
    this.view = new InspectionView(this.panelPort({ point: (sel) => this.link.point(sel) }));
    this.interpret = new InterpretPanel(this.panelPort());
    this.links = new GPTLinks(this.link, { chips: this.chips, candidateBox: this.candidateBox, interpret: this.interpret, view: this.view });
    this.labRuns = new LabRuns(this.panelPort({ show: (spec) => this.showLabCheckpoint(spec) }));
    this.labRuns.resume(lab);
    this.gen = new GeneratePanel(this.panelPort({ model: () => this.gpt, tokenizer: () => this.textTokenizer,
      exclusive: (fn) => this.exclusive(fn), usePrompt: (text) => this.usePrompt(text) }));
    s.append(
      h('h3', { part: 'title' }, this.t('gpt.title')),
      h('p', { part: 'description' }, this.t('gpt.description')),
      this.panel.section, this.labRuns.section, this.promptSection, this.nextSection, this.interpret.section, this.view.layerSection, this.view.normSection,
      this.gen.section,
      h('p', { class: 'status', role: 'status', part: 'status' }, this.t('gpt.status.loadingCore')),
    );
    this.whileConnected(() => watchWidth(this.promptSection, () => this.result && this.renderView()));
    this.ready = true;
  }

  /** An attribute's value when the page leaves it out: the shipped model's own (model="sort": its prompt, greedy
   * decoding of its outputs), else the class default. */
  defaultOf(name) {
    const own = shippedModel(this.getAttribute('model'))?.defaults[name];
    return own !== undefined ? own : super.defaultOf(name);
  }

  /** The model the charts and Generate use (the runtime object in the worker). */
  get gpt() {
    return this.models?.model ?? null;
  }
  get textTokenizer() {
    return this.models?.tokenizer ?? null;
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this.gen?.cancel();
  }

  /** Frees the trained model, its twin or the single model (base.js calls this once the widget has left the page). */
  release() {
    this.result = null;
    this.models.release();
    return Boolean(this.visible); // rebuild on return, even if a download was still under way
  }

  buildPromptSection() {
    this.promptInput = debouncedField(this, h('textarea', { id: 'prompt', rows: 2, spellcheck: 'false' }), 'prompt');
    this.boundControls.addGroup('prompt', this.promptInput);
    this.tokenNote = h('p', { class: 'muted token-note' });
    this.chips = h('ol', { class: 'chips', 'aria-label': this.t('gpt.prompt.tokensLabel') });
    this.promptNote = h('p', { class: 'prompt-note' });
    this.promptSection = h('section', { class: 'prompt-section', part: 'prompt' },
      h('label', { for: 'prompt' }, h('h4', {}, this.t('gpt.prompt.heading'))), this.promptInput, this.tokenNote, this.chips, this.promptNote);
    this.candidateBox = h('div', { class: 'candidate-box' });
    this.weightsButton = h('button', { type: 'button', part: 'download-weights', hidden: true,
      onclick: () => this.downloadWeights() }, this.t('gpt.copy.downloadWeights'));
    this.copy = new CopyPanel(this.panelPort(), { snippet: () => this.toPyTorch(), extras: [this.weightsButton] });
    this.nextSection = h('section', { class: 'next', part: 'candidates' }, h('h4', {}, this.t('gpt.next.heading')), this.candidateBox,
      this.copy.element);
  }

  /** The forward pass as PyTorch: the book's GPTModel, these weights, this prompt, the top candidates. */
  toPyTorch() {
    if (!this.result || !this.gpt) return '# The model has not run yet: wait for the next-token table, then copy again.\n';
    const m = this.models;
    const shipped = m.key === 'trained' && m.pair?.trained === this.gpt;
    return gptSnippet({ config: { ...this.gpt.config, norm: this.result.placement }, ids: this.result.ids, prompt: this.attr('prompt'),
      k: this.result.candidates.length, tokenizer: m.tokenizer.kind, tokenizerSource: m.tokenizer.source,
      symbols: m.tokenizer.symbols, label: m.label,
      weightsUrl: shipped ? new URL('model.safetensors', m.pair.url).href : null });
  }

  /** This model's weights (book layout, float32) as safetensors bytes: what the snippet reads without a URL. */
  async weightsBytes() {
    return (await this.exclusive(() => this.gpt.save({ layout: 'book' }))).weights;
  }

  async downloadWeights() {
    const url = URL.createObjectURL(new Blob([await this.weightsBytes()], { type: 'application/octet-stream' }));
    const a = h('a', { href: url, download: WEIGHTS_FILE });
    this.shadowRoot.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }

  // ------------------------------------------------------------------ scheduling

  /** Loads the models once the widget approaches the viewport (loading="eager": at once). */
  async start() {
    if (!this.showWhenNearViewport()) this.status(this.t('gpt.status.loadsInView'));
  }

  attributeChanged(name) {
    if (!this.ready) return; // attributes applied from the URL hash before setup() are read by start()
    if (name === 'model' || name === 'weights') this.source.files = null; // a new choice replaces dropped files
    if (name === 'loading' && this.attr('loading') === 'eager' && !this.visible) this.start();
    else if (MODEL_ATTRS.includes(name)) this.invalidate(UPDATE.REBUILD);
    else if (FORWARD_ATTRS.includes(name)) this.invalidate(UPDATE.RECOMPUTE);
    else if (name !== 'theme' && name !== 'link-group') this.invalidate(UPDATE.REDRAW);
  }

  async update(level) {
    this.boundControls.sync({ skip: ['layer', 'head'] });
    showInField(this, this.promptInput, this.attr('prompt'));
    if (!this.gpt) this.panel.preselect(this.weightsName());
    if (!this.visible) return; // start() builds everything once the widget is near the viewport
    let rebuilt = false;
    if (level >= UPDATE.REBUILD) {
      try {
        rebuilt = await this.exclusive(() => this.buildModels());
      } catch (err) {
        if (err instanceof Released) return;
        throw err;
      }
    }
    if (!this.gpt) return;
    if (this.selectModels() || rebuilt) level = Math.max(level, 2);
    if (level >= UPDATE.RECOMPUTE) await this.exclusive(() => this.runForward());
    if (this.result) this.renderView();
  }

  /** Runs model work one job at a time (a generation holds the model until it ends). */
  exclusive(fn) {
    const result = this.queue.then(fn);
    this.queue = result.catch(() => {});
    return result;
  }

  // ------------------------------------------------------------------ the models

  /** The weights the learner chose: 'trained', 'untrained' or 'random' (a model of custom size). */
  weightsName() {
    const w = this.attr('weights');
    return ['untrained', 'random'].includes(w) ? w : 'trained';
  }

  /** What the attributes and this.source ask for (gpt-models.js modelSpec; see GPTModels.build). */
  spec(options) {
    return modelSpec(this, this.source.files, options);
  }

  /** Builds what the attributes ask for; returns true when the models changed. */
  async buildModels() {
    const rt = await this.runtime();
    this.flavour = rt.flavour;
    const before = this.models.all();
    const retry = this.source.retry;
    this.source.retry = false;
    const spec = this.spec({ retry });
    const ui = {
      progress: (p, label) => this.panel.showProgress(p, label),
      status: (text) => this.status(text),
    };
    try {
      await this.models.build(rt, spec, ui);
      if (spec.kind === 'loaded') this.panel.loaderStatus(this.t('gpt.loader.loaded', { label: spec.labelIn?.(this.port.t) ?? spec.label }));
    } catch (err) {
      if (err instanceof Released || spec.kind !== 'loaded') throw err;
      // A checkpoint that cannot be loaded leaves the current models in place (or the trained one, if none).
      this.loadFailed(err);
      if (!this.gpt) await this.models.build(rt, this.spec({ shipped: true }), ui);
    } finally {
      this.panel.showProgress(null);
    }
    const after = this.models.all();
    return after.length !== before.length || after.some((m, i) => m !== before[i]);
  }

  /** Chooses trained or untrained for the charts; returns true when the selected model changed. */
  selectModels() {
    const m = this.models;
    const previous = m.model;
    m.select(this.weightsName());
    this.panel.describe(m, { weights: m.weights, modelAttr: shippedModel(this.attr('model')) ? '' : this.attr('model') });
    this.gen.describe(this.t(GENERATES_WITH[m.key], { short: m.pairLabels(this.port.t)?.short ?? '' }));
    const c = m.model.config;
    if (previous === m.model && this.shownModel === m.model) return false;
    this.shownModel = m.model;
    this.weightsButton.hidden = m.key === 'trained'; // the shipped model's snippet downloads it itself
    this.tokenNote.textContent = tokenNote(m.tokenizer, m.single?.asked, this.port.t);
    this.view.setShape(c.n_layers, c.n_heads);
    this.interpret.setShape(c.n_layers, c.n_heads);
    this.labRuns.section.hidden = !this.source.files?.key?.startsWith('lab:'); // a lab's run: its scrub slider
    this.emit('model', { source: m.key, label: m.label, config: c, numParameters: m.model.numParameters });
    return true;
  }

  loadUrl(url) {
    if (!url) {
      this.panel.loaderStatus(this.t('gpt.loader.enterUrl'));
      return;
    }
    if (url === this.attr('model')) {
      if (!this.locked('model')) this.invalidate(UPDATE.REBUILD);
    } else this.set('model', url);
  }

  /** Says a checkpoint the learner asked for could not be loaded (in the loader and the status line). */
  loadFailed(err) {
    const text = this.t('gpt.loader.failed', { error: err.message });
    this.panel.loaderStatus(text, { error: true });
    this.status(text, { error: true });
  }

  async loadFiles(fileList) {
    if (this.locked('model')) return;
    const files = Array.from(fileList);
    const label = files.map((f) => f.name).join(' + '); // the files' names: data, in every language
    const spec = { kind: 'loaded', key: `files:${++this.source.fileCount}`, source: { files }, label };
    this.panel.loaderStatus(this.t('gpt.loader.loading', { label }));
    try {
      await this.exclusive(async () => {
        await this.models.build(await this.runtime(), spec, {
          progress: (p, l) => this.panel.showProgress(p, l), status: (text) => this.status(text),
        }).finally(() => this.panel.showProgress(null));
      });
      if (this.hasAttribute('model')) this.removeAttribute('model'); // (clears source.files, set below)
      this.source.files = spec;
      this.panel.loaderStatus(this.t('gpt.loader.loaded', { label }));
      this.invalidate(UPDATE.RECOMPUTE);
    } catch (err) {
      this.loadFailed(err);
    }
  }

  /**
   * Inspects a model a <training-lab> on the page trained: `checkpoints` [{step, config, weights}] of one run, shown
   * at `step`; a slider then scrubs through them (gpt-lab-runs.js).
   */
  inspectCheckpoints({ label, step, checkpoints }) {
    this.labRuns.inspect({ label, step, checkpoints });
  }

  /** Loads a lab's checkpoint like a checkpoint directory (LabRuns calls this). */
  showLabCheckpoint(spec) {
    if (this.hasAttribute('model')) this.removeAttribute('model'); // (clears source.files: set below)
    this.source.files = spec;
    if (!this.visible) this.setAttribute('loading', 'eager');
    this.invalidate(UPDATE.REBUILD);
  }

  /** Back to the shipped trained model (from a checkpoint or a random model). */
  useShipped() {
    if (this.locked('weights')) return;
    this.source.files = null;
    this.panel.loaderStatus('');
    if (this.hasAttribute('model')) this.removeAttribute('model');
    if (this.weightsName() !== 'trained') this.setAttribute('weights', 'trained');
    this.invalidate(UPDATE.REBUILD);
  }

  /** Tries the trained model's download again after a failure. */
  retry() {
    this.source.retry = true;
    this.invalidate(UPDATE.REBUILD);
  }

  /** Makes `text` the prompt (Generate's Use as prompt); false when the author locked the prompt. */
  usePrompt(text) {
    if (!this.set('prompt', text)) return false;
    this.promptInput.value = text;
    return true;
  }

  // ------------------------------------------------------------------ forward pass

  async runForward() {
    const { model, other, tokenizer } = this.models;
    const ctx = model.config.context_length;
    const all = Array.from(await tokenizer.encode(this.attr('prompt')));
    this.promptNote.classList.remove('error');
    this.promptNote.textContent = '';
    if (all.length === 0) {
      this.promptNote.textContent = this.t('gpt.prompt.empty');
      this.promptNote.classList.add('error');
      this.renderChips([], [], []);
      this.link.setPass(null);
      return;
    }
    const placement = this.attr('norm') === 'post' ? 'post' : 'pre';
    for (const m of [model, other]) if (m && m.config.norm !== placement) await m.setNormPlacement(placement);
    const ablation = await this.interpret.apply(model); // the core checks the heads (an error names a bad one)
    this.status(this.t('gpt.status.running'));
    const t0 = performance.now();
    // The core's cropping rule: with overflow="crop" it reads the last context_length tokens; with "error" it
    // refuses the prompt.
    const overflow = this.attr('overflow') === 'error' ? 'error' : 'crop';
    let logits, inspection, dropped;
    try {
      ({ logits, inspection, cropped: dropped } = await model.forward(all, { inspect: true, overflow }));
    } catch (err) {
      if (overflow !== 'error' || all.length <= ctx) throw err; // not the context refusing the prompt
      this.promptNote.textContent = this.t('gpt.prompt.tooLong', { count: all.length, context: ctx });
      this.promptNote.classList.add('error');
      this.status(this.promptNote.textContent, { error: true });
      return;
    }
    const ids = all.slice(dropped);
    if (dropped) {
      this.promptNote.textContent = this.t('gpt.prompt.cropped', { tokens: all.length, context: ctx, count: dropped });
    }
    const ms = performance.now() - t0;
    const otherLogits = other ? (await other.forward(ids)).logits : null;
    if (model !== this.gpt) return;
    const V = model.config.vocab_size;
    const T = ids.length;
    const lastRow = (l) => l.slice((T - 1) * V, T * V);
    const last = lastRow(logits);
    const pieces = await tokenizer.tokenPieces(ids);
    const tokens = pieces.map(piecesLabel);
    const candidates = await this.topCandidates(last);
    const compare = other ? await this.topCandidates(lastRow(otherLogits)) : null;
    const cropped = all.slice(0, all.length - ids.length);
    let baseline = null; // with heads ablated: what the whole model predicts, for the comparison
    if (ablation.heads.length) {
      await model.setHeadAblation([]);
      baseline = (await this.topCandidates((await model.forward(ids, { lastOnly: true })).logits))[0];
      await this.interpret.apply(model);
    }
    const interpret = await this.interpret.compute(model, ids, candidates[0].id, tokenizer);
    if (model !== this.gpt) return;
    this.result = { ids, tokens, pieces, inspection, candidates, compare, placement, V, interpret, baseline, ablation };
    this.links.setIds(ids);
    this.link.setPass({ tokens: tokensKey(tokenizer.key, ids), model: this.models.modelKey });
    this.renderChips(pieces, cropped.length ? await tokenizer.tokenPieces(cropped) : [], ids);
    this.status(this.t(model.config.n_layers === 1 ? 'gpt.status.doneOneBlock' : 'gpt.status.done',
      { count: T, layers: model.config.n_layers, ms: Math.round(ms), flavour: this.flavour }));
    const strip = (cs) => cs?.map(({ pieces: _, ...c }) => c) ?? null;
    this.emit('forward', {
      ids, tokens, config: model.config, placement, weights: this.models.key, candidates: strip(candidates), lastLogits: last,
      compare: compare && { weights: this.models.otherKey, candidates: strip(compare) },
      normStats: inspection.layers.map((l) => ({ norm1: l.norm1, norm2: l.norm2 })), finalNorm: inspection.finalNorm,
      ablated: ablation.heads, ablateMode: ablation.mode, lens: interpret.lens.map((r) => ({ layer: r.layer, top: r.top[0].id, probability: r.probability })),
      attribution: interpret.attribution?.values ?? null,
    });
  }

  /** The top candidates of one row of logits, ranked by the core with their softmax probabilities. */
  async topCandidates(logits) {
    const k = Math.max(1, Math.min(50, Math.round(this.numAttr('candidates'))));
    const rt = await this.runtime();
    const top = await rt.topCandidates(logits, { k });
    const pieces = await this.textTokenizer.tokenPieces(top.map((c) => c.id));
    return top.map((c, i) => ({ ...c, pieces: pieces[i], token: piecesLabel(pieces[i]) }));
  }

  // ------------------------------------------------------------------ rendering

  width() {
    return Math.max(260, Math.min(760, this.promptSection.clientWidth || 600));
  }

  renderView() {
    const { candidates, compare, tokens, V } = this.result;
    const m = this.models;
    const { t } = this.port;
    const labels = m.pairLabels(t);
    const table = (key, cands, selected) => {
      const label = key === 'trained' || key === 'untrained' ? labels[`${key}About`] : m.labelIn(t);
      return { key, candidates: cands, selected, title: t(TABLE_TITLES[key]),
        note: selected && compare ? t('gpt.table.shownBelow', { label }) : label };
    };
    const tables = [table(m.key, candidates, true)];
    if (compare) tables.push(table(m.otherKey, compare, false));
    if (m.key === 'untrained') tables.reverse(); // trained | untrained, whichever is selected
    renderCandidates(this.candidateBox, { tables, vocab: V, after: tokens.at(-1) }, this.port);
    const c = this.gpt.config;
    const clamp = (name, n) => Math.min(n, Math.max(1, Math.round(this.numAttr(name)))) - 1;
    const { interpret, pieces, baseline, ablation } = this.result;
    this.interpret.render(interpret, { promptPieces: pieces, candidates, baseline, ablation });
    this.view.render(this.result, { layerIndex: clamp('layer', c.n_layers), headIndex: clamp('head', c.n_heads), width: this.width() });
    this.links.refresh();
  }

  /** The prompt's tokens as chips (position and id in data attributes: linked selection points at them). */
  renderChips(pieces, cropped, ids) {
    const chip = (p, props) => h('li', { ...props, class: [props.class, p.every((x) => x.byte != null) && p.length ? 'bytes' : ''].filter(Boolean).join(' ') },
      ...renderPieces(p, { visible: true }));
    this.chips.replaceChildren(
      ...cropped.map((p) => chip(p, { class: 'cropped', title: this.t('gpt.chip.cropped') })),
      ...pieces.map((p, i) => chip(p, { title: this.t('gpt.chip.title', { position: i, id: String(ids[i]) }),
        'data-position': String(i), 'data-id': String(ids[i]) })));
    this.links.refresh();
    this.chips.setAttribute('aria-label', cropped.length
      ? this.t('gpt.prompt.chipsCropped', { count: pieces.length, cropped: cropped.length })
      : this.t('gpt.prompt.chips', { count: pieces.length }));
  }
}

define('gpt-explorer', GPTExplorer, en);
