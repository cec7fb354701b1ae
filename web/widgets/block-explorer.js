// <block-explorer> — one transformer block of a seeded GPT (the book's chapter-4 GPTModel), stepped operation by
// operation in the order of TransformerBlock.forward, for pre-norm (GPT-2, the book) and post-norm (the original
// Transformer) wired around the same weights; and the residual-stream L2 norm across depth for both wirings.
// Every statistic comes from the core's inspection of the forward pass that produced it (nothing is recomputed).
// Attributes: norm (pre|post), block (1), step (1), metric (norm|mean|var), per-token, layers (8), emb-dim (64),
//   heads (4), prompt, seed (123), tokenizer (byte|gpt2).
// Events: blockscope-forward {config, seed, ids, tokens, residualNorms: {pre, post}, inspection: {pre, post}},
//   blockscope-step {placement, block, index, op, code, mean, var, norm}.
import { extent, max, mean } from 'd3-array';
import { axisBottom, axisLeft } from 'd3-axis';
import { scaleBand, scaleLinear } from 'd3-scale';
import { select } from 'd3-selection';
import { line } from 'd3-shape';

import { BlockscopeElement, createChart, define, fmt, h } from './base.js';
import { openTokenizer } from './tokens.js';

const CONTEXT = 128;

// The book's TransformerBlock.forward, one entry per operation the core records (inspection.steps), in order.
// `stream`: the node sits on the residual stream itself (the input, the additions and, in post-norm, the norms);
// the other nodes are the branch (sublayer) path that is added back.
const NOTE_DROP = 'Dropout only acts while training. This is an inference pass, so drop_shortcut passes x through ' +
  'unchanged: the statistics equal the previous step\'s.';
const STEPS = {
  pre: [
    { op: 'x (input)', code: ['shortcut = x'], role: 'block input, saved as the shortcut', stream: true,
      note: 'The block input is saved as the shortcut. For block 1 it is the token embedding plus the position ' +
        'embedding; for later blocks it is the previous block\'s output — the residual stream.' },
    { op: 'norm1', code: ['x = self.norm1(x)'], role: 'LayerNorm before attention',
      note: 'Pre-norm: norm1 rescales each token to mean 0 and variance 1 over its features (scale 1, shift 0 at ' +
        'initialization), so its L2 norm is about √emb_dim. Only the attention branch sees this normalized copy; ' +
        'the shortcut keeps x as it was.' },
    { op: 'att', code: ['x = self.att(x)'], role: 'causal multi-head attention',
      note: 'Causal multi-head attention mixes information from earlier tokens. Its output is what this half of ' +
        'the block adds to the residual stream.' },
    { op: 'drop_shortcut', code: ['x = self.drop_shortcut(x)'], role: 'dropout', note: NOTE_DROP },
    { op: 'x + shortcut', code: ['x = x + shortcut'], role: 'add the shortcut back', stream: true,
      note: 'The saved input is added back. Nothing normalizes this sum: the residual stream carries the input ' +
        'through untouched, plus the attention contribution. This sum is the shortcut of the feed-forward half.' },
    { op: 'norm2', code: ['shortcut = x', 'x = self.norm2(x)'], role: 'LayerNorm before the feed-forward network',
      note: 'The same pattern for the second half: save the current value as the new shortcut, then norm2 ' +
        'normalizes a copy for the feed-forward branch (L2 norm again about √emb_dim).' },
    { op: 'ff', code: ['x = self.ff(x)'], role: 'feed-forward network (Linear → GELU → Linear)',
      note: 'The feed-forward network expands each token to 4 × emb_dim, applies GELU and projects back, token by ' +
        'token.' },
    { op: 'drop_shortcut', code: ['x = self.drop_shortcut(x)'], role: 'dropout', note: NOTE_DROP },
    { op: 'x + shortcut', code: ['x = x + shortcut'], role: 'add the shortcut back: the block output', stream: true,
      note: 'The block output is input + attention contribution + feed-forward contribution. In pre-norm this sum ' +
        'is never normalized, so the residual stream keeps growing from block to block (see the depth plot).' },
  ],
  post: [
    { op: 'x (input)', code: ['shortcut = x'], role: 'block input, saved as the shortcut', stream: true,
      note: 'The block input is saved as the shortcut. For block 1 it is the token embedding plus the position ' +
        'embedding; for later blocks it is the previous block\'s (normalized) output.' },
    { op: 'att', code: ['x = self.att(x)'], role: 'causal multi-head attention',
      note: 'Post-norm: attention runs on the raw block input; no LayerNorm comes before it.' },
    { op: 'drop_shortcut', code: ['x = self.drop_shortcut(x)'], role: 'dropout', note: NOTE_DROP },
    { op: 'x + shortcut', code: ['x = x + shortcut'], role: 'add the shortcut back', stream: true,
      note: 'The saved input is added back to the attention output …' },
    { op: 'norm1', code: ['x = self.norm1(x)'], role: 'LayerNorm after the addition', stream: true,
      note: '… and then the sum itself is normalized: in post-norm the LayerNorm sits on the residual stream, so ' +
        'every token leaves with mean 0, variance 1 and an L2 norm of about √emb_dim.' },
    { op: 'ff', code: ['shortcut = x', 'x = self.ff(x)'], role: 'feed-forward network (Linear → GELU → Linear)',
      note: 'Save the normalized value as the new shortcut; the feed-forward network expands each token to ' +
        '4 × emb_dim, applies GELU and projects back.' },
    { op: 'drop_shortcut', code: ['x = self.drop_shortcut(x)'], role: 'dropout', note: NOTE_DROP },
    { op: 'x + shortcut', code: ['x = x + shortcut'], role: 'add the shortcut back', stream: true,
      note: 'The shortcut is added back to the feed-forward output …' },
    { op: 'norm2', code: ['x = self.norm2(x)'], role: 'LayerNorm after the addition: the block output', stream: true,
      note: '… and norm2 renormalizes the sum. The block output — the residual stream — is back at an L2 norm of ' +
        'about √emb_dim after every block, however deep the model (see the depth plot).' },
  ],
};
const PLACEMENTS = {
  pre: 'Pre-LayerNorm (GPT-2, the book)',
  post: 'Post-LayerNorm (original Transformer)',
};
const METRICS = {
  norm: { label: 'L2 norm', axis: 'L2 norm of x (per token)' },
  mean: { label: 'mean', axis: 'mean of x over features (per token)' },
  var: { label: 'variance', axis: 'variance of x over features (per token)' },
};
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
.summary td, .summary th { white-space: nowrap; }
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

const avg = (arr) => mean(arr);

export class BlockExplorer extends BlockscopeElement {
  static attrs = {
    norm: 'pre', block: 1, step: 1, metric: 'norm', 'per-token': false,
    layers: 8, 'emb-dim': 64, heads: 4, prompt: 'Every effort moves you', seed: 123, tokenizer: 'byte',
  };

  setup() {
    this.ready = false;
    const s = this.shadowRoot;
    s.append(h('style', {}, CSS));
    const radio = (value) => h('label', {},
      h('input', { type: 'radio', name: 'placement', value, onchange: () => this.setAttribute('norm', value) }),
      ` ${PLACEMENTS[value]}`);
    this.placementBox = h('fieldset', {}, h('legend', {}, 'LayerNorm placement'), radio('pre'), ' ', radio('post'));
    this.blockSelect = h('select', { id: 'block', onchange: () => this.setAttribute('block', this.blockSelect.value) });
    this.promptInput = h('input', { type: 'text', id: 'prompt', class: 'prompt', autocomplete: 'off', spellcheck: 'false',
      oninput: () => this.debounce('prompt', () => this.setAttribute('prompt', this.promptInput.value)) });
    const num = (name, label, props) => {
      const input = h('input', { type: 'number', id: name, ...props,
        onchange: () => input.reportValidity() && this.setAttribute(name, input.value) });
      return [h('label', { for: name }, label), input];
    };
    const [layersLabel, layersInput] = num('layers', 'blocks', { min: 1, max: 48, step: 1 });
    const [embLabel, embInput] = num('emb-dim', 'emb_dim', { min: 4, max: 512, step: 4 });
    const [headsLabel, headsInput] = num('heads', 'heads', { min: 1, max: 16, step: 1 });
    const [seedLabel, seedInput] = num('seed', 'seed', { min: 0, step: 1 });
    this.numInputs = { layers: layersInput, 'emb-dim': embInput, heads: headsInput, seed: seedInput };
    this.modelText = h('p', { class: 'muted model-text' });
    this.tokenNote = h('p', { class: 'muted token-note' });

    // Stepper: dataflow diagram + the selected step's statistics.
    this.diagramBox = h('div', { class: 'diagram', tabindex: '0', role: 'group', 'aria-roledescription': 'dataflow diagram',
      onkeydown: (e) => this.onKey(e) });
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
    const panel = h('div', { class: 'panel' },
      this.stepTitle, this.stepCode, this.stepNote,
      this.summaryCaption, h('div', { class: 'scroll' }, this.summary),
      this.metricBox, this.barBox,
      h('details', {}, h('summary', {}, 'Per-token numbers for this step'), h('div', { class: 'scroll' }, this.tokenTable)));

    // Depth plot.
    this.perTokenBox = h('input', { type: 'checkbox', id: 'per-token',
      onchange: () => this.toggleAttribute('per-token', this.perTokenBox.checked) });
    this.depthBox = h('div', { class: 'depth' });
    this.depthText = h('p', { class: 'depth-text' });
    this.depthTable = h('table', { class: 'depth-table' });

    s.append(
      h('h3', {}, 'Inside one transformer block: pre-norm vs post-norm'),
      h('p', {}, 'A transformer block runs a fixed sequence: save the input as a shortcut, then normalize, attend, ' +
        'apply dropout and add the shortcut back; then the same for the feed-forward half. Step through it and ' +
        'watch the per-token statistics the core records after every operation. Switch the placement to wire the ' +
        'same weights the other way.'),
      h('div', { class: 'row' }, this.placementBox,
        h('span', {}, h('label', { for: 'block' }, 'block '), this.blockSelect)),
      h('div', { class: 'row' }, h('label', { for: 'prompt' }, 'Prompt'), this.promptInput),
      this.tokenNote,
      h('details', { class: 'settings' }, h('summary', {}, 'Model settings'),
        h('div', { class: 'row' }, layersLabel, layersInput, embLabel, embInput, headsLabel, headsInput, seedLabel, seedInput),
        this.modelText),
      h('div', { class: 'stepnav row' }, this.prevButton, this.stepLabel, this.nextButton,
        h('span', { class: 'muted' }, 'or focus the diagram and use ←/→')),
      h('div', { class: 'stepper' }, this.diagramBox, panel),
      h('h4', {}, 'The residual stream across depth'),
      h('p', { class: 'muted' }, 'Both wirings, same seeded weights, same tokens: the L2 norm of each token\'s ' +
        'residual-stream vector after every block (averaged over tokens; block 0 is the embedding input).'),
      h('div', { class: 'row' },
        h('span', {}, h('span', { class: 'legend-swatch', style: 'border-color: var(--bs-c1)' }), 'pre-norm'),
        h('span', {}, h('span', { class: 'legend-swatch', style: 'border-color: var(--bs-c2); border-top-style: dashed' }), 'post-norm'),
        h('span', { class: 'muted' }, 'lines: mean over tokens'),
        h('label', {}, this.perTokenBox, ' show every token')),
      this.depthBox,
      this.depthText,
      h('details', {}, h('summary', {}, 'Residual-stream norms as a table'), h('div', { class: 'scroll' }, this.depthTable)),
      h('p', { class: 'status', role: 'status' }, 'Loading the core…'),
    );
    this.resizeObserver = new ResizeObserver(() => this.onResize());
    this.resizeObserver.observe(this.barBox);
    this.ready = true;
  }

  connectedCallback() {
    super.connectedCallback();
    this.resizeObserver?.observe(this.barBox);
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this.resizeObserver?.disconnect();
  }

  debounce(key, fn, ms = 200) {
    this.timers ??= {};
    clearTimeout(this.timers[key]);
    this.timers[key] = setTimeout(fn, ms);
  }

  onResize() {
    const w = this.barBox.clientWidth;
    if (!this.runs || Math.abs(w - (this.lastWidth ?? 0)) < 24) return;
    cancelAnimationFrame(this.resizeFrame);
    this.resizeFrame = requestAnimationFrame(() => this.renderView());
  }

  placement() {
    return this.attr('norm') === 'post' ? 'post' : 'pre';
  }

  config() {
    return {
      vocab_size: this.tokenizer?.vocabSize ?? 256, context_length: CONTEXT, emb_dim: Math.round(this.numAttr('emb-dim')),
      n_heads: Math.round(this.numAttr('heads')), n_layers: Math.round(this.numAttr('layers')),
      drop_rate: 0.1, qkv_bias: false, norm: 'pre',
    };
  }

  async start() {
    this.invalidate(3);
  }

  attributeChanged(name) {
    if (!this.ready) return; // attributes applied from the URL hash before setup() are read by start()
    if (['layers', 'emb-dim', 'heads', 'seed', 'tokenizer'].includes(name)) this.invalidate(3);
    else if (name === 'prompt') this.invalidate(2);
    else if (name !== 'theme') this.invalidate(1);
  }

  /** invalidate() levels: 1 = redraw, 2 = forward passes + redraw, 3 = new model + forward + redraw. */
  async update(level) {
    this.syncControls();
    if (level >= 3) await this.buildModel();
    if (level >= 2) await this.runForward();
    if (this.runs) this.renderView();
  }

  syncControls() {
    for (const r of this.placementBox.querySelectorAll('input')) r.checked = r.value === this.placement();
    for (const r of this.metricBox.querySelectorAll('input')) r.checked = r.value === this.metric();
    for (const [name, input] of Object.entries(this.numInputs)) input.value = String(this.numAttr(name));
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
    this.tokenizer = await openTokenizer(rt, this.attr('tokenizer'));
    this.tokenNote.textContent = this.tokenizer.note;
    const config = this.config();
    const seed = Math.round(this.numAttr('seed'));
    const model = await rt.createGPT(config, { seed }); // rejects with the core's message on a bad config
    const old = this.model;
    this.model = model;
    this.seed = seed;
    this.runs = null;
    await old?.dispose();
    this.modelText.textContent = `GPT with ${config.n_layers} blocks, emb_dim ${config.emb_dim}, ${config.n_heads} heads, ` +
      `vocabulary ${config.vocab_size}, context ${config.context_length}: ${model.numParameters.toLocaleString('en-US')} ` +
      `parameters, seeded random weights (seed ${seed}), untrained as in the book's chapter 4.`;
    this.blockSelect.replaceChildren(...Array.from({ length: config.n_layers }, (_, i) =>
      h('option', { value: String(i + 1) }, String(i + 1))));
  }

  async runForward() {
    const text = this.attr('prompt');
    let ids = Array.from(await this.tokenizer.encode(text));
    if (ids.length === 0) {
      this.status('Type at least one character to run the block.', { error: true });
      return;
    }
    let cropped = '';
    if (ids.length > CONTEXT) {
      cropped = ` The prompt has ${ids.length} tokens; only the last ${CONTEXT} (the context length) are used.`;
      ids = ids.slice(-CONTEXT);
    }
    this.status('Running both wirings…');
    const runs = {};
    for (const p of ['pre', 'post']) {
      await this.model.setNormPlacement(p); // same weights, other wiring
      runs[p] = (await this.model.forward(ids, { inspect: true })).inspection;
    }
    this.ids = ids;
    this.tokens = await this.tokenizer.tokenTexts(ids);
    this.runs = runs;
    this.residual = {
      pre: this.residualSeries(runs.pre),
      post: this.residualSeries(runs.post),
    };
    this.status(`${ids.length} tokens, two forward passes in the core (wasm ${this.flavour}).${cropped}`);
    this.emit('forward', {
      config: this.model.config, seed: this.seed, ids, tokens: this.tokens,
      residualNorms: { pre: this.residual.pre.mean, post: this.residual.post.mean },
      inspection: runs,
    });
  }

  /** Per block (0 = the embedding input of block 1): per-token residual-stream norms and their mean over tokens. */
  residualSeries(ins) {
    const perToken = [ins.layers[0].steps[0].norm, ...ins.layers.map((l) => l.residualNorm)].map((a) => Array.from(a));
    return { perToken, mean: perToken.map(avg) };
  }

  // ------------------------------------------------------------------ stepping

  stepCount() {
    return this.runs?.[this.placement()].layers[0].steps.length ?? 9;
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
    const layer = this.runs[p].layers[b];
    const step = layer.steps[i];
    const info = STEPS[p][i]?.op === step.op ? STEPS[p][i] : { op: step.op, code: [step.op], role: step.op, note: '' };
    this.blockSelect.value = String(b + 1);
    this.prevButton.disabled = i === 0;
    this.nextButton.disabled = i === layer.steps.length - 1;
    this.stepLabel.textContent = `step ${i + 1} of ${layer.steps.length}`;
    this.stepTitle.textContent = `Block ${b + 1}, step ${i + 1}: ${info.role} (${p}-norm)`;
    this.stepCode.textContent = info.code.join('\n');
    this.stepNote.textContent = info.note;
    this.renderDiagram(p, layer.steps, i, b);
    this.renderSummary(step, b === 0 && i === 0);
    this.renderBars(step);
    this.renderTokenTable(step);
    this.renderDepth(b);
    this.lastWidth = this.barBox.clientWidth;
    this.emit('step', {
      placement: p, block: b + 1, index: i, op: step.op, code: info.code.join('\n'),
      mean: Array.from(step.mean), var: Array.from(step.var), norm: Array.from(step.norm),
    });
  }

  /** Draws the block's dataflow once per (placement, block); moving between steps only moves the highlight. */
  renderDiagram(p, steps, current, b) {
    const key = `${p}|${b}|${this.runs[p].layers.length}|${steps.map((st) => st.op).join()}`;
    if (key !== this.diagramKey) this.drawDiagram(p, steps, b);
    this.diagramKey = key;
    const info = STEPS[p];
    const svg = select(this.diagramBox).select('svg');
    svg.selectAll('.node').classed('current', (_, k) => k === current);
    svg.selectAll('.lane[data-to]').classed('current', function () {
      return Number(this.dataset.to) === current && steps[current].op === 'x + shortcut';
    });
    const code = (k) => (info[k]?.code ?? [steps[k].op]).join('; ');
    svg.select('title').text(`Dataflow of block ${b + 1}, ${p}-norm, step ${current + 1} of ${steps.length} ` +
      `highlighted. ${steps.map((_, k) => `${k + 1}. ${code(k)}`).join(' ')}`);
    this.diagramBox.setAttribute('aria-label', `Block dataflow, ${p}-norm. Step ${current + 1} of ${steps.length}: ` +
      `${code(current)}. Arrow keys step through the operations.`);
  }

  drawDiagram(p, steps, b) {
    const info = STEPS[p];
    const W = 320;
    const pitch = 40;
    const nodeH = 28;
    const top = 34;
    const laneX = 30;
    const branchX = 58;
    const H = top + steps.length * pitch + 30;
    const y = (k) => top + k * pitch;
    this.diagramBox.replaceChildren();
    const svg = select(this.diagramBox).append('svg').attr('viewBox', `0 0 ${W} ${H}`).attr('role', 'img')
      .attr('aria-labelledby', 'diagram-title');
    svg.append('title').attr('id', 'diagram-title');
    const streamIdx = steps.map((st, k) => (info[k]?.stream ? k : -1)).filter((k) => k >= 0);
    // The residual stream: a lane through the stream nodes; the segment feeding the current addition is highlighted.
    const lanes = svg.append('g');
    lanes.append('line').attr('class', 'lane').attr('x1', laneX).attr('x2', laneX).attr('y1', 4).attr('y2', y(0));
    streamIdx.slice(1).forEach((k, n) => {
      lanes.append('line').attr('class', 'lane animate').attr('data-to', k).attr('x1', laneX).attr('x2', laneX)
        .attr('y1', y(streamIdx[n]) + nodeH / 2).attr('y2', y(k) + nodeH / 2);
    });
    const last = steps.length - 1;
    lanes.append('line').attr('class', 'lane').attr('x1', laneX).attr('x2', laneX).attr('y1', y(last) + nodeH).attr('y2', H - 6);
    svg.append('text').attr('class', 'lane-label').attr('x', laneX + 8).attr('y', 14)
      .text(b === 0 ? 'x: token + position embeddings' : `x: output of block ${b}`);
    svg.append('text').attr('class', 'lane-label').attr('x', laneX + 8).attr('y', H - 8)
      .text(b === this.runs[p].layers.length - 1 ? 'block output → final norm' : `block output → block ${b + 2}`);
    // The branch: arrows between consecutive nodes (the lane carries stream-to-stream steps).
    const flow = svg.append('g');
    for (let k = 0; k < last; k++) {
      if (info[k]?.stream && info[k + 1]?.stream) continue;
      const x = W / 2 + 20;
      const y1 = y(k) + nodeH;
      const y2 = y(k + 1) - 1;
      flow.append('line').attr('class', 'flow').attr('x1', x).attr('x2', x).attr('y1', y1).attr('y2', y2 - 5);
      flow.append('path').attr('class', 'arrowhead').attr('d', `M${x - 4},${y2 - 6}L${x + 4},${y2 - 6}L${x},${y2}Z`);
    }
    // Shortcut labels along the lane next to the branch.
    streamIdx.slice(1).forEach((k, n) => {
      const from = streamIdx[n];
      if (k - from < 2) return;
      const mid = (y(from) + y(k) + nodeH) / 2;
      svg.append('text').attr('class', 'lane-label').attr('transform', `translate(${laneX - 6},${mid}) rotate(-90)`)
        .attr('text-anchor', 'middle').text('shortcut');
    });
    const nodes = svg.append('g').selectAll('g').data(steps).join('g')
      .attr('class', (st) => `node${st.op.startsWith('norm') ? ' norm' : ''}`)
      .attr('data-op', (st) => st.op)
      .attr('transform', (_, k) => `translate(0,${y(k)})`)
      .on('click', (_, st) => this.setStep(steps.indexOf(st)));
    nodes.append('rect').attr('class', 'animate').attr('x', (_, k) => (info[k]?.stream ? 12 : branchX))
      .attr('width', (_, k) => W - 8 - (info[k]?.stream ? 12 : branchX)).attr('height', nodeH).attr('rx', 6);
    nodes.append('text').attr('x', (_, k) => (info[k]?.stream ? 48 : branchX + 10)).attr('y', nodeH / 2 + 4)
      .text((st, k) => (info[k]?.code ?? [st.op]).at(-1));
    nodes.append('title').text((st, k) => `${info[k]?.role ?? st.op}`);
    nodes.filter((st) => st.op === 'x + shortcut').append('g').attr('class', 'plus')
      .call((g) => g.append('circle').attr('cx', laneX).attr('cy', nodeH / 2).attr('r', 9))
      .call((g) => g.append('text').attr('x', laneX).attr('y', nodeH / 2 + 5).attr('text-anchor', 'middle').text('+'));
  }

  renderSummary(step, isEmbedding) {
    const d = this.runs.pre.C;
    const row = (label, key, values, ref) => h('tr', {}, h('th', { scope: 'row' }, label),
      h('td', { class: 'num', 'data-stat': key }, fmt(avg(values), 4)), h('td', { class: 'muted' }, ref));
    this.summaryCaption.textContent = `Averaged over the ${step.mean.length} tokens (each token's value is ` +
      `from the core)${isEmbedding ? '; the input of block 1 is the embedding sum' : ''}:`;
    this.summary.replaceChildren(
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'statistic'), h('th', { scope: 'col' }, 'value'),
        h('th', { scope: 'col' }, 'after LayerNorm'))),
      h('tbody', {},
        row('mean', 'mean', step.mean, '0'),
        row('variance', 'var', step.var, '≈ 1'),
        row('L2 norm', 'norm', step.norm, `≈ √${d} = ${fmt(Math.sqrt(d), 2)}`)),
    );
  }

  renderBars(step) {
    const metric = this.metric();
    const values = Array.from(step[metric]);
    const width = Math.max(280, Math.min(720, this.barBox.clientWidth || 560));
    this.barBox.replaceChildren();
    const chart = createChart(this.barBox, {
      width, height: 220, margin: { top: 10, right: 12, bottom: 48, left: 56 },
      xLabel: 'token (prompt position)', yLabel: METRICS[metric].axis,
      title: `${METRICS[metric].label} of x per token after this step`,
      description: values.map((v, t) => `${this.tokens[t]}: ${fmt(v, 3)}`).join(', '),
    });
    chart.svg.style('max-width', `${width}px`);
    const x = scaleBand().domain(values.map((_, t) => t)).range([0, chart.innerW]).padding(0.15);
    const [lo, hi] = extent([...values, 0]);
    chart.y.domain([lo, hi === lo ? lo + 1 : hi]).nice();
    const every = Math.ceil(12 / Math.max(1, x.bandwidth()));
    chart.root.select('.x-axis').call(axisBottom(x).tickValues(x.domain().filter((t) => t % every === 0))
      .tickFormat((t) => this.tokens[t]));
    chart.root.select('.y-axis').call(axisLeft(chart.y).ticks(5));
    chart.plot.selectAll('rect').data(values).join('rect').attr('class', 'bar')
      .attr('x', (_, t) => x(t)).attr('width', x.bandwidth())
      .attr('y', (v) => chart.y(Math.max(0, v))).attr('height', (v) => Math.abs(chart.y(v) - chart.y(0)))
      .append('title').text((v, t) => `${this.tokens[t]} (position ${t}): ${fmt(v, 4)}`);
    const ref = metric === 'norm' ? Math.sqrt(this.runs.pre.C) : metric === 'var' ? 1 : null;
    if (ref != null && ref <= chart.y.domain()[1]) {
      chart.plot.append('line').attr('class', 'ref').attr('x1', 0).attr('x2', chart.innerW)
        .attr('y1', chart.y(ref)).attr('y2', chart.y(ref));
      chart.plot.append('text').attr('x', chart.innerW - 4).attr('y', chart.y(ref) - 4).attr('text-anchor', 'end')
        .attr('class', 'ref-label').text(metric === 'norm' ? `√emb_dim = ${fmt(ref, 2)}` : 'variance 1');
    }
  }

  renderTokenTable(step) {
    this.tokenTable.replaceChildren(
      h('caption', { class: 'visually-hidden' }, 'Per-token statistics after this step, from the core'),
      h('thead', {}, h('tr', {}, ...['position', 'token', 'mean', 'variance', 'L2 norm'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, ...this.tokens.map((tok, t) => h('tr', {},
        h('td', {}, String(t)), h('th', { scope: 'row' }, tok),
        h('td', { class: 'num', 'data-stat': 'mean' }, fmt(step.mean[t], 4)),
        h('td', { class: 'num', 'data-stat': 'var' }, fmt(step.var[t], 4)),
        h('td', { class: 'num', 'data-stat': 'norm' }, fmt(step.norm[t], 4))))),
    );
  }

  renderDepth(currentBlock) {
    const { pre, post } = this.residual;
    const L = pre.mean.length - 1;
    const d = this.runs.pre.C;
    const width = Math.max(280, Math.min(720, this.depthBox.clientWidth || 560));
    this.depthBox.replaceChildren();
    const chart = createChart(this.depthBox, {
      width, height: 280, margin: { top: 14, right: 16, bottom: 48, left: 56 },
      xLabel: 'block (0 = token + position embeddings)', yLabel: 'residual-stream L2 norm',
      title: 'Residual-stream L2 norm after each block, pre-norm vs post-norm',
      description: `Pre-norm: ${pre.mean.map((v) => fmt(v, 2)).join(', ')}. Post-norm: ${post.mean.map((v) => fmt(v, 2)).join(', ')}.`,
    });
    chart.svg.style('max-width', `${width}px`);
    const perToken = this.boolAttr('per-token');
    const all = perToken ? [...pre.perToken.flat(), ...post.perToken.flat()] : [...pre.mean, ...post.mean];
    chart.x.domain([0, L]);
    chart.y.domain([0, max([...all, Math.sqrt(d)]) * 1.05]).nice();
    chart.root.select('.x-axis').call(axisBottom(chart.x).ticks(Math.min(L, width < 400 ? 6 : 12)).tickFormat((v) => (Number.isInteger(v) ? v : '')));
    chart.root.select('.y-axis').call(axisLeft(chart.y).ticks(6));
    const sqrtD = Math.sqrt(d);
    chart.plot.append('line').attr('class', 'ref').attr('x1', 0).attr('x2', chart.innerW)
      .attr('y1', chart.y(sqrtD)).attr('y2', chart.y(sqrtD));
    chart.plot.append('text').attr('class', 'ref-label').attr('x', chart.innerW - 4).attr('y', chart.y(sqrtD) + 14)
      .attr('text-anchor', 'end').text(`√emb_dim = √${d} = ${fmt(sqrtD, 2)}`);
    chart.plot.append('line').attr('class', 'current-block').attr('x1', chart.x(currentBlock + 1)).attr('x2', chart.x(currentBlock + 1))
      .attr('y1', 0).attr('y2', chart.innerH).attr('stroke', 'var(--bs-accent)').attr('stroke-opacity', 0.35).attr('stroke-width', 6);
    const path = line().x((_, k) => chart.x(k)).y((v) => chart.y(v));
    const series = [
      { key: 'pre', data: pre, color: 'var(--bs-c1)', dash: null, label: 'pre-norm' },
      { key: 'post', data: post, color: 'var(--bs-c2)', dash: '7 4', label: 'post-norm' },
    ];
    for (const s of series) {
      if (perToken) {
        const T = s.data.perToken[0].length;
        for (let t = 0; t < T; t++) {
          chart.plot.append('path').attr('d', path(s.data.perToken.map((a) => a[t]))).attr('fill', 'none')
            .attr('stroke', s.color).attr('stroke-opacity', 0.25).attr('stroke-width', 1);
        }
      }
      chart.plot.append('path').attr('class', `line-${s.key}`).attr('d', path(s.data.mean)).attr('fill', 'none')
        .attr('stroke', s.color).attr('stroke-width', 2.5).attr('stroke-dasharray', s.dash);
      chart.plot.append('g').selectAll('circle').data(s.data.mean).join('circle')
        .attr('cx', (_, k) => chart.x(k)).attr('cy', (v) => chart.y(v)).attr('r', 3).attr('fill', s.color)
        .append('title').text((v, k) => `${s.label}, block ${k}: ${fmt(v, 3)}`);
    }
    this.depthText.textContent = `Pre-norm: ${fmt(pre.mean[0], 2)} at the embeddings, ${fmt(pre.mean[L], 2)} after block ${L} — ` +
      'the shortcut carries the input through every block untouched and each block adds its contribution, so the ' +
      `norm grows with depth. Post-norm: ${fmt(post.mean[1], 2)} after block 1 and ${fmt(post.mean[L], 2)} after block ${L} — ` +
      `every block ends in a LayerNorm that renormalizes the stream to ≈ √${d} = ${fmt(sqrtD, 2)}. These are forward ` +
      'values of untrained weights; the same untouched shortcut is the path gradients take back through a pre-norm stack.';
    this.depthTable.replaceChildren(
      h('caption', { class: 'visually-hidden' }, 'Residual-stream L2 norm (mean over tokens) after each block, from the core'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'block'), h('th', { scope: 'col' }, 'pre-norm'), h('th', { scope: 'col' }, 'post-norm'))),
      h('tbody', {}, ...pre.mean.map((v, k) => h('tr', {},
        h('th', { scope: 'row' }, k === 0 ? '0 (embeddings)' : String(k)),
        h('td', { class: 'num', 'data-placement': 'pre' }, fmt(v, 4)),
        h('td', { class: 'num', 'data-placement': 'post' }, fmt(post.mean[k], 4))))),
    );
  }
}

define('block-explorer', BlockExplorer);
