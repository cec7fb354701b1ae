// <gpt-explorer> — a GPT forward pass in the tab: type a prompt and see the next-token candidates, the LayerNorm
// statistics of every layer and token, the feed-forward activations before and after GELU, the attention weights
// of every head, and generate text token by token. The model is the book's chapter-4 GPTModel with seeded random
// weights (untrained) until a checkpoint is loaded. Every logit, statistic, activation and weight is the core's.
// Attributes: prompt, layers (4), emb-dim (64), heads (4), context (128), seed (123), norm (pre|post),
//   tokenizer (byte|gpt2), model (a checkpoint directory URL), overflow (crop|error), candidates (10),
//   layer (1), head (1), ln (norm1|norm2|final), ln-side (in|out), stat (var|mean),
//   temperature (1), top-k (25), top-p (1), max-new-tokens (40), gen-seed (42).
// Events: blockscope-model {source, config, numParameters}, blockscope-forward {ids, tokens, config, candidates, ...},
//   blockscope-token {token, index}, blockscope-generated {tokens, text, stopReason}.
import { bin, extent, max, range } from 'd3-array';
import { axisBottom, axisLeft } from 'd3-axis';
import { scaleBand, scaleDiverging, scaleLinear, scaleSequential } from 'd3-scale';
import { select } from 'd3-selection';

import { BlockscopeElement, createChart, define, fmt, h } from './base.js';
import { openTokenizer, printable, visibleToken } from './tokens.js';

// Colour ramps as d3 interpolators (scaleLinear over colour stops): viridis for magnitudes, a blue–red diverging
// ramp for signed values. Both read on light and dark backgrounds.
const VIRIDIS = scaleLinear().domain([0, 0.25, 0.5, 0.75, 1]).range(['#440154', '#3b528b', '#21918c', '#5ec962', '#fde725']);
const DIVERGING = scaleLinear().domain([0, 0.25, 0.5, 0.75, 1]).range(['#2166ac', '#67a9cf', '#f7f7f7', '#ef8a62', '#b2182b']);

const LN_LABELS = { norm1: 'norm1 (before attention)', norm2: 'norm2 (before the feed-forward network)', final: 'final_norm (before the output head)' };
const LN_LABELS_POST = { norm1: 'norm1 (after attention + shortcut)', norm2: 'norm2 (after feed-forward + shortcut)', final: 'final_norm (before the output head)' };
const STAT_LABELS = { mean: 'mean', var: 'variance' };

const CSS = `
section { margin: 0.9rem 0 0; padding-top: 0.6rem; border-top: 1px solid var(--bs-border); }
h4 { margin: 0 0 0.35rem; font-size: 1rem; }
textarea { width: 100%; resize: vertical; }
.chips { display: flex; flex-wrap: wrap; gap: 3px; list-style: none; padding: 0; margin: 0.35rem 0; max-height: 7.5rem; overflow-y: auto; }
.chips li { font: 12px ui-monospace, Menlo, Consolas, monospace; padding: 0 4px; border: 1px solid var(--bs-border);
  border-radius: 4px; background: var(--bs-panel); white-space: pre; }
.chips li.cropped { opacity: 0.45; text-decoration: line-through; }
.scroll { position: relative; }
.candidates { min-width: min(100%, 26rem); }
.candidates td.prob { width: 40%; min-width: 6.5rem; }
.pbar { display: block; height: 0.35em; margin-top: 1px; background: var(--bs-c1); border-radius: 2px; min-width: 1px; }
.tok { font-family: ui-monospace, Menlo, Consolas, monospace; white-space: pre; }
.heatbox { overflow-x: auto; max-width: 100%; border-radius: 4px; }
.heatbox:focus-visible { outline: 3px solid var(--bs-focus); }
svg.heat { width: auto; max-width: none; }
svg.legend { max-width: 340px; }
.heat .cursor { fill: none; stroke: var(--bs-fg); stroke-width: 2; pointer-events: none; }
.readout { min-height: 1.45em; font-variant-numeric: tabular-nums; }
.controls label { white-space: nowrap; }
.controls output { display: inline-block; min-width: 2.6em; font-variant-numeric: tabular-nums; }
input[type="number"] { width: 5.5rem; }
input.url { width: 18rem; }
.gen-output { white-space: pre-wrap; overflow-wrap: anywhere; font: 14px/1.5 ui-monospace, Menlo, Consolas, monospace;
  background: var(--bs-panel); border: 1px solid var(--bs-border); border-radius: 6px; padding: 0.5rem;
  min-height: 3.2em; max-height: 16rem; overflow-y: auto; }
.gen-output .from-prompt { color: var(--bs-muted); }
.gen-output .generated { color: var(--bs-fg); background: color-mix(in srgb, var(--bs-accent) 14%, transparent); }
.dropzone { border: 2px dashed var(--bs-border); border-radius: 8px; padding: 0.6rem; margin: 0.4rem 0; }
.dropzone.over { border-color: var(--bs-accent); background: var(--bs-panel); }
.dropzone[aria-disabled="true"] { opacity: 0.6; }
progress { width: min(100%, 22rem); accent-color: var(--bs-accent); }
.legend-swatch { display: inline-block; width: 1em; height: 0.8em; margin-right: 0.3em; vertical-align: baseline; border-radius: 2px; }
details > summary { cursor: pointer; margin: 0.25rem 0; }
fieldset { border: 1px solid var(--bs-border); border-radius: 6px; padding: 0.25rem 0.6rem 0.4rem; margin: 0; min-width: 0; }
legend { padding: 0 0.25rem; }
.note { font-style: italic; }
.ref-label { paint-order: stroke; stroke: var(--bs-bg); stroke-width: 4px; stroke-linejoin: round; }
`;

/**
 * A rows × cols heatmap with d3 band scales and axes. Cells are at least `minCell` px wide; when that is wider
 * than `maxWidth` the box scrolls horizontally (the page does not). `skip(r, c)` leaves a cell out.
 * Returns the scales and `cursor(r, c)` to move the highlight.
 */
function heatmap(box, { rows, cols, value, color, rowLabel, colLabel, xLabel, yLabel, title, description,
  maxWidth, cellH, square = false, skip = () => false, minCell = 12, onCell }) {
  const margin = { top: 8, right: 10, bottom: 66, left: 70 };
  const avail = Math.max(160, maxWidth - margin.left - margin.right);
  const cw = Math.max(minCell, Math.min(square ? 28 : 40, avail / cols));
  const ch = square ? cw : cellH;
  const innerW = cw * cols;
  const innerH = ch * rows;
  const W = Math.ceil(innerW + margin.left + margin.right);
  const H = Math.ceil(innerH + margin.top + margin.bottom);
  box.replaceChildren();
  const svg = select(box).append('svg').attr('class', 'heat').attr('width', W).attr('height', H)
    .attr('viewBox', `0 0 ${W} ${H}`).attr('role', 'img');
  svg.append('title').text(title);
  svg.append('desc').text(description);
  const root = svg.append('g').attr('transform', `translate(${margin.left},${margin.top})`);
  const x = scaleBand().domain(range(cols)).range([0, innerW]);
  const y = scaleBand().domain(range(rows)).range([0, innerH]);
  const cells = [];
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) if (!skip(r, c)) cells.push([r, c, value(r, c)]);
  root.append('g').selectAll('rect').data(cells).join('rect')
    .attr('x', (d) => x(d[1])).attr('y', (d) => y(d[0])).attr('width', x.bandwidth() + 0.4).attr('height', y.bandwidth() + 0.4)
    .attr('fill', (d) => color(d[2]))
    .on('pointerenter', (_, d) => onCell?.(d[0], d[1]));
  const everyX = Math.ceil(13 / x.bandwidth());
  const gx = root.append('g').attr('class', 'axis').attr('transform', `translate(0,${innerH})`)
    .call(axisBottom(x).tickValues(x.domain().filter((c) => c % everyX === 0)).tickFormat(colLabel).tickSizeOuter(0));
  gx.selectAll('text').attr('transform', 'rotate(-55)').attr('text-anchor', 'end').attr('dx', '-0.5em').attr('dy', '0.1em');
  const everyY = Math.ceil(13 / y.bandwidth());
  root.append('g').attr('class', 'axis')
    .call(axisLeft(y).tickValues(y.domain().filter((r) => r % everyY === 0)).tickFormat(rowLabel).tickSizeOuter(0));
  root.append('text').attr('class', 'axis-label').attr('x', innerW / 2).attr('y', innerH + margin.bottom - 6)
    .attr('text-anchor', 'middle').text(xLabel);
  root.append('text').attr('class', 'axis-label').attr('transform', 'rotate(-90)').attr('x', -innerH / 2)
    .attr('y', -margin.left + 12).attr('text-anchor', 'middle').text(yLabel);
  const cursor = root.append('rect').attr('class', 'cursor').attr('width', x.bandwidth()).attr('height', y.bandwidth())
    .attr('visibility', 'hidden');
  return {
    x, y,
    cursor(r, c) {
      cursor.attr('x', x(c)).attr('y', y(r)).attr('visibility', 'visible');
    },
  };
}

/** A horizontal colour legend: the ramp as small rects and a d3 axis with its label (units in the label). */
function colorLegend(box, { color, domain, label, width = 300 }) {
  const W = Math.min(width, 320);
  const margin = { left: 14, right: 20 };
  box.replaceChildren();
  const svg = select(box).append('svg').attr('class', 'legend').attr('viewBox', `0 0 ${W} 50`).attr('aria-hidden', 'true');
  const x = scaleLinear().domain(domain).range([margin.left, W - margin.right]);
  const n = 48;
  const step = (domain[1] - domain[0]) / n;
  svg.append('g').selectAll('rect').data(range(n)).join('rect')
    .attr('x', (i) => x(domain[0] + i * step)).attr('y', 2).attr('height', 12)
    .attr('width', (W - margin.left - margin.right) / n + 0.5).attr('fill', (i) => color(domain[0] + (i + 0.5) * step));
  svg.append('g').attr('class', 'axis').attr('transform', 'translate(0,14)').call(axisBottom(x).ticks(4).tickSizeOuter(0));
  svg.append('text').attr('class', 'axis-label').attr('x', W / 2).attr('y', 47).attr('text-anchor', 'middle').text(label);
}

/** A probability in percent: two decimals, or three significant digits below 1 % (large vocabularies). */
function percent(p) {
  const v = 100 * p;
  return v >= 1 ? fmt(v, 2) : v.toPrecision(3);
}

/** Moves a (row, col) cursor with the arrow keys / Home / End inside [0, rows) × [0, cols(row)). */
function moveCell([r, c], key, rows, colsOf) {
  const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  if (key === 'Home') return [r, 0];
  if (key === 'End') return [r, colsOf(r) - 1];
  if (!(key in moves)) return null;
  const nr = Math.min(rows - 1, Math.max(0, r + moves[key][0]));
  return [nr, Math.min(colsOf(nr) - 1, Math.max(0, c + moves[key][1]))];
}

export class GPTExplorer extends BlockscopeElement {
  static attrs = {
    prompt: 'Every effort moves you', layers: 4, 'emb-dim': 64, heads: 4, context: 128, seed: 123, norm: 'pre',
    tokenizer: 'byte', model: '', overflow: 'crop', candidates: 10,
    layer: 1, head: 1, ln: 'norm1', 'ln-side': 'in', stat: 'var',
    temperature: 1, 'top-k': 25, 'top-p': 1, 'max-new-tokens': 40, 'gen-seed': 42,
  };

  static MODEL_ATTRS = ['layers', 'emb-dim', 'heads', 'context', 'seed', 'tokenizer', 'model'];
  static FORWARD_ATTRS = ['prompt', 'overflow', 'norm'];

  setup() {
    this.ready = false;
    this.lock = Promise.resolve();
    const s = this.shadowRoot;
    s.append(h('style', {}, CSS));
    this.buildModelSection();
    this.buildPromptSection();
    this.buildNormSection();
    this.buildLayerSection();
    this.buildGenerateSection();
    s.append(
      h('h3', {}, 'A GPT forward pass in this tab'),
      h('p', {}, 'The book\'s GPTModel runs in the Blockscope core (WebAssembly, in a worker). Type a prompt: ' +
        'the model reads every token and predicts the next one; below are the numbers it computed on the way.'),
      this.modelSection, this.promptSection, this.nextSection, this.normSection, this.layerSection, this.genSection,
      h('p', { class: 'status', role: 'status' }, 'Loading the core…'),
    );
    this.resizeObserver = new ResizeObserver(() => this.onResize());
    this.resizeObserver.observe(this.promptSection);
    this.ready = true;
  }

  connectedCallback() {
    super.connectedCallback();
    this.resizeObserver?.observe(this.promptSection);
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this.resizeObserver?.disconnect();
    this.abort?.abort();
  }

  // ------------------------------------------------------------------ DOM

  field(name, label, props, { kind = 'number', onInput = false } = {}) {
    const input = h('input', { type: kind, id: name, ...props });
    const commit = () => {
      if (input.reportValidity()) this.setAttribute(name, input.value);
    };
    input.addEventListener(onInput ? 'input' : 'change', commit);
    this.inputs ??= {};
    this.inputs[name] = input;
    return h('label', { for: name }, `${label} `, input);
  }

  slider(name, label, props, describe) {
    const input = h('input', { type: 'range', id: name, ...props });
    const out = h('output', { for: name, class: 'num' });
    const show = () => {
      out.textContent = describe(Number(input.value));
      input.setAttribute('aria-valuetext', out.textContent);
    };
    input.addEventListener('input', () => {
      show();
      this.setAttribute(name, input.value);
    });
    this.inputs ??= {};
    this.inputs[name] = input;
    this.sliderShow ??= {};
    this.sliderShow[name] = show;
    return h('label', { for: name }, `${label} `, input, ' ', out);
  }

  select(name, label, options) {
    const sel = h('select', { id: name, onchange: () => this.setAttribute(name, sel.value) },
      ...options.map(([value, text]) => h('option', { value }, text)));
    this.inputs ??= {};
    this.inputs[name] = sel;
    return h('label', { for: name }, `${label} `, sel);
  }

  buildModelSection() {
    this.modelText = h('p', { class: 'model-text' });
    this.urlInput = h('input', { type: 'text', id: 'model-url', class: 'url', inputmode: 'url', autocomplete: 'off',
      placeholder: 'models/gpt2-small/', spellcheck: 'false' });
    this.urlButton = h('button', { type: 'button', class: 'load-url', onclick: () => this.loadFromUrl() }, 'Load');
    this.fileInput = h('input', { type: 'file', id: 'model-files', multiple: true, accept: '.json,.safetensors',
      onchange: () => this.fileInput.files.length && this.loadFiles(this.fileInput.files) });
    this.dropZone = h('div', { class: 'dropzone' },
      h('label', { for: 'model-files' }, 'Choose config.json and model.safetensors '), this.fileInput,
      h('p', { class: 'muted' }, 'or drop both files here.'));
    this.dropZone.addEventListener('dragover', (e) => {
      e.preventDefault();
      this.dropZone.classList.add('over');
    });
    this.dropZone.addEventListener('dragleave', () => this.dropZone.classList.remove('over'));
    this.dropZone.addEventListener('drop', (e) => {
      e.preventDefault();
      this.dropZone.classList.remove('over');
      if (e.dataTransfer?.files?.length) this.loadFiles(e.dataTransfer.files);
    });
    this.progress = h('progress', { class: 'load-progress', max: 1, value: 0, hidden: true, 'aria-label': 'checkpoint download' });
    this.progressText = h('span', { class: 'progress-text num' });
    this.loaderMessage = h('p', { class: 'loader-message', role: 'status' });
    this.randomButton = h('button', { type: 'button', class: 'use-random', hidden: true,
      onclick: () => this.useRandomWeights() }, 'Back to seeded random weights');
    this.loaderNote = h('p', { class: 'muted note loader-note' });
    this.loaderBox = h('details', { class: 'loader' }, h('summary', {}, 'Load a trained checkpoint'),
      this.loaderNote,
      h('div', { class: 'row' }, h('label', { for: 'model-url' }, 'Checkpoint directory URL'), this.urlInput, this.urlButton),
      this.dropZone,
      h('div', { class: 'row' }, this.progress, this.progressText),
      this.loaderMessage, this.randomButton);
    const settings = h('details', { class: 'settings' }, h('summary', {}, 'Random model settings'),
      h('div', { class: 'row' },
        this.field('layers', 'layers', { min: 1, max: 48, step: 1 }),
        this.field('emb-dim', 'emb_dim', { min: 4, max: 1024, step: 4 }),
        this.field('heads', 'heads', { min: 1, max: 32, step: 1 }),
        this.field('context', 'context', { min: 1, max: 1024, step: 1 }),
        this.field('seed', 'seed', { min: 0, step: 1 }),
        this.select('tokenizer', 'tokenizer', [['byte', 'UTF-8 bytes (256)'], ['gpt2', 'GPT-2 BPE (50,257)']])),
      h('p', { class: 'muted' }, 'These apply to seeded random weights; a loaded checkpoint brings its own.'));
    this.modelSection = h('section', { class: 'model' }, h('h4', {}, 'Model'), this.modelText,
      h('div', { class: 'row' }, this.select('norm', 'LayerNorm placement', [['pre', 'pre-norm (GPT-2)'], ['post', 'post-norm (same weights)']])),
      settings, this.loaderBox);
  }

  buildPromptSection() {
    this.promptInput = h('textarea', { id: 'prompt', rows: 2, spellcheck: 'false',
      oninput: () => this.debounce('prompt', () => this.setAttribute('prompt', this.promptInput.value)) });
    this.tokenNote = h('p', { class: 'muted token-note' });
    this.chips = h('ol', { class: 'chips', 'aria-label': 'prompt tokens' });
    this.promptNote = h('p', { class: 'prompt-note' });
    this.promptSection = h('section', { class: 'prompt-section' },
      h('label', { for: 'prompt' }, h('h4', {}, 'Prompt')), this.promptInput, this.tokenNote, this.chips, this.promptNote);
    this.candidateTable = h('table', { class: 'candidates' });
    this.candidateCaption = h('p', { class: 'muted candidate-caption', id: 'candidate-caption' });
    this.nextSection = h('section', { class: 'next' }, h('h4', {}, 'Next-token prediction'),
      this.candidateCaption, h('div', { class: 'scroll' }, this.candidateTable));
  }

  buildNormSection() {
    this.lnBox = h('div', { class: 'heatbox ln-heat', tabindex: '0', role: 'group', 'aria-roledescription': 'heatmap',
      onkeydown: (e) => this.onHeatKey(e, 'ln') });
    this.lnLegend = h('div', { class: 'ln-legend' });
    this.lnReadout = h('p', { class: 'readout ln-readout', 'aria-live': 'polite' });
    this.lnTable = h('table', { class: 'ln-table' });
    this.normSection = h('section', { class: 'norms' }, h('h4', {}, 'LayerNorm statistics: layer × token'),
      h('p', { class: 'muted' }, 'Each LayerNorm rescales every token\'s vector to mean 0 and variance 1 over its ' +
        'features; here is what it received (input) or produced (output) in this forward pass. Focus the heatmap ' +
        'and use the arrow keys, or hover, to read a cell.'),
      h('div', { class: 'row controls' },
        this.select('ln', 'LayerNorm', [['norm1', 'norm1'], ['norm2', 'norm2'], ['final', 'final_norm']]),
        this.select('ln-side', 'of its', [['in', 'input'], ['out', 'output']]),
        this.select('stat', 'statistic', [['var', 'variance'], ['mean', 'mean']])),
      this.lnBox, this.lnLegend, this.lnReadout,
      h('details', {}, h('summary', {}, 'The heatmap\'s numbers as a table'), h('div', { class: 'scroll' }, this.lnTable)));
  }

  buildLayerSection() {
    this.layerSelect = this.select('layer', 'block', [['1', '1']]);
    this.headSelect = this.select('head', 'head', [['1', '1']]);
    this.histBox = h('div', { class: 'hist' });
    this.histText = h('p', { class: 'hist-text' });
    this.histTable = h('table', { class: 'hist-table' });
    this.attBox = h('div', { class: 'heatbox att-heat', tabindex: '0', role: 'group', 'aria-roledescription': 'heatmap',
      onkeydown: (e) => this.onHeatKey(e, 'att') });
    this.attLegend = h('div', { class: 'att-legend' });
    this.attReadout = h('p', { class: 'readout att-readout', 'aria-live': 'polite' });
    this.layerSection = h('section', { class: 'inside' }, h('h4', {}, 'Inside one block'),
      h('div', { class: 'row controls' }, this.layerSelect, this.headSelect),
      h('h4', {}, 'Feed-forward activations before and after GELU'),
      h('p', { class: 'muted' }, 'Every hidden value of the feed-forward network (4 × emb_dim per token) after ' +
        'the first Linear layer, and after GELU. GELU keeps positive values, squashes negative ones towards 0 and ' +
        'dips slightly below it (minimum ≈ −0.17 near x ≈ −0.75). Values from the core, binned in the page.'),
      h('div', { class: 'row' },
        h('span', {}, h('span', { class: 'legend-swatch', style: 'background: var(--bs-c1); opacity: 0.55' }), 'before GELU'),
        h('span', {}, h('span', { class: 'legend-swatch', style: 'background: var(--bs-c2); opacity: 0.7' }), 'after GELU')),
      this.histBox, this.histText,
      h('details', {}, h('summary', {}, 'Summary of the activations'), h('div', { class: 'scroll' }, this.histTable)),
      h('h4', {}, 'Attention weights'),
      h('p', { class: 'muted' }, 'Row: the token that attends (query); column: the token attended to (key). The ' +
        'causal mask hides later tokens (blank), and each row sums to 1.'),
      this.attBox, this.attLegend, this.attReadout);
  }

  buildGenerateSection() {
    this.genButton = h('button', { type: 'button', class: 'generate', onclick: () => this.generate() }, 'Generate');
    this.stopButton = h('button', { type: 'button', class: 'stop', disabled: true, onclick: () => this.abort?.abort() }, 'Stop');
    this.reuseButton = h('button', { type: 'button', class: 'reuse', disabled: true, onclick: () => this.reuseOutput() },
      'Use as prompt');
    this.genOutput = h('div', { class: 'gen-output', role: 'log', 'aria-live': 'off', 'aria-label': 'generated text', tabindex: '0' });
    this.genStatus = h('p', { class: 'gen-status', role: 'status' });
    this.genSection = h('section', { class: 'gen' }, h('h4', {}, 'Generate'),
      h('p', { class: 'muted' }, 'Each new token is sampled from the core\'s next-token logits (divided by the ' +
        'temperature; top-k and top-p keep only the most likely tokens), appended, and fed back in. Untrained ' +
        'weights give gibberish — that is what training fixes.'),
      h('div', { class: 'row controls' },
        this.slider('temperature', 'temperature', { min: 0, max: 2, step: 0.05 }, (v) => (v === 0 ? '0 (greedy)' : fmt(v, 2))),
        this.slider('top-k', 'top-k', { min: 0, max: 100, step: 1 }, (v) => (v === 0 ? 'off' : String(v))),
        this.slider('top-p', 'top-p', { min: 0.05, max: 1, step: 0.05 }, (v) => (v >= 1 ? 'off (1)' : fmt(v, 2)))),
      h('div', { class: 'row controls' },
        this.field('max-new-tokens', 'new tokens', { min: 1, max: 1000, step: 1 }),
        this.field('gen-seed', 'sampling seed', { min: 0, step: 1 })),
      h('div', { class: 'row' }, this.genButton, this.stopButton, this.reuseButton),
      this.genOutput, this.genStatus);
  }

  debounce(key, fn, ms = 200) {
    this.timers ??= {};
    clearTimeout(this.timers[key]);
    this.timers[key] = setTimeout(fn, ms);
  }

  onResize() {
    const w = this.promptSection.clientWidth;
    if (!this.result || Math.abs(w - (this.lastWidth ?? 0)) < 24) return;
    cancelAnimationFrame(this.resizeFrame);
    this.resizeFrame = requestAnimationFrame(() => this.renderView());
  }

  // ------------------------------------------------------------------ scheduling

  async start() {
    this.invalidate(3);
  }

  attributeChanged(name) {
    if (!this.ready) return; // attributes applied from the URL hash before setup() are read by start()
    if (GPTExplorer.MODEL_ATTRS.includes(name)) this.invalidate(3);
    else if (GPTExplorer.FORWARD_ATTRS.includes(name)) this.invalidate(2);
    else if (name !== 'theme') this.invalidate(1);
  }

  /** invalidate() levels: 1 = redraw, 2 = forward pass + redraw, 3 = (re)build the model + forward + redraw. */
  async update(level) {
    this.syncControls();
    if (level >= 3) await this.exclusive(() => this.buildModel());
    if (level >= 2 && this.model) await this.exclusive(() => this.runForward());
    if (this.result) this.renderView();
  }

  /** Runs model work one job at a time (a generation holds the model until it ends). */
  exclusive(fn) {
    const result = this.lock.then(fn);
    this.lock = result.catch(() => {});
    return result;
  }

  syncControls() {
    for (const [name, input] of Object.entries(this.inputs)) {
      if (name === 'layer' || name === 'head') continue;
      const v = this.attr(name);
      if (input.value !== v && this.shadowRoot.activeElement !== input) input.value = v;
    }
    for (const show of Object.values(this.sliderShow)) show();
    if (this.shadowRoot.activeElement !== this.promptInput && this.promptInput.value !== this.attr('prompt')) {
      this.promptInput.value = this.attr('prompt');
    }
  }

  // ------------------------------------------------------------------ the model

  randomConfig(vocab) {
    const int = (name) => Math.round(this.numAttr(name));
    return {
      vocab_size: vocab, context_length: int('context'), emb_dim: int('emb-dim'), n_heads: int('heads'),
      n_layers: int('layers'), drop_rate: 0.1, qkv_bias: false, norm: 'pre',
    };
  }

  async buildModel() {
    const rt = await this.runtime();
    this.flavour = rt.flavour;
    this.updateLoaderControls();
    const url = this.attr('model').trim();
    if (url) {
      await this.loadModel({ url }, url);
      return;
    }
    this.status('Building the model…');
    const tokenizer = await openTokenizer(rt, this.attr('tokenizer'));
    const config = this.randomConfig(tokenizer.vocabSize);
    const seed = Math.round(this.numAttr('seed'));
    const model = await rt.createGPT(config, { seed }); // rejects with the core's message on a bad config
    this.adopt(model, tokenizer, { kind: 'random', seed, label: `seeded random weights (seed ${seed}), untrained as in the book's chapter 4` });
  }

  /** Loads a checkpoint through the runtime ({url} or {files}), with progress; keeps the old model on failure. */
  async loadModel(source, label) {
    const rt = await this.runtime();
    this.progress.hidden = false;
    this.progress.removeAttribute('value'); // indeterminate until the size is known
    this.progressText.textContent = '';
    this.loaderMessage.classList.remove('error');
    this.loaderMessage.textContent = `Loading ${label}…`;
    this.status(`Loading ${label}…`);
    try {
      const model = await rt.loadModel(source, {
        onProgress: ({ loaded, total }) => {
          this.progress.max = total || 1;
          this.progress.value = loaded;
          const mb = (n) => (n / 1e6).toFixed(1);
          this.progressText.textContent = `${mb(loaded)} of ${mb(total)} MB`;
          this.progress.setAttribute('aria-valuetext', this.progressText.textContent);
        },
      });
      const vocab = model.config.vocab_size;
      const tokenizer = await openTokenizer(rt, vocab >= 50257 ? 'gpt2' : 'byte');
      if (tokenizer.vocabSize > vocab) {
        await model.dispose();
        throw new Error(`no tokenizer fits its vocabulary of ${vocab} tokens (UTF-8 bytes need 256, GPT-2's BPE 50,257)`);
      }
      this.adopt(model, tokenizer, { kind: 'loaded', label });
      this.loaderMessage.textContent = `Loaded ${label}.`;
      this.randomButton.hidden = false;
    } catch (err) {
      this.loaderMessage.textContent = `Could not load the model: ${err.message}`;
      this.loaderMessage.classList.add('error');
      this.status(`Could not load the model: ${err.message}`, { error: true });
      this.randomButton.hidden = false;
      if (!this.model) throw err;
    } finally {
      this.progress.hidden = true;
    }
  }

  adopt(model, tokenizer, source) {
    const old = this.model;
    this.model = model;
    this.tokenizer = tokenizer;
    this.source = source;
    this.result = null;
    old?.dispose().catch(() => {});
    const c = model.config;
    this.modelText.textContent = `GPT: ${c.n_layers} blocks, emb_dim ${c.emb_dim}, ${c.n_heads} heads, context ` +
      `${c.context_length}, vocabulary ${c.vocab_size.toLocaleString('en-US')} — ` +
      `${model.numParameters.toLocaleString('en-US')} parameters, ${source.label}.`;
    this.tokenNote.textContent = tokenizer.note;
    this.fillSelect(this.inputs.layer, c.n_layers, 'layer');
    this.fillSelect(this.inputs.head, c.n_heads, 'head');
    this.emit('model', { source: source.kind, label: source.label, config: c, numParameters: model.numParameters });
  }

  fillSelect(sel, n) {
    sel.replaceChildren(...range(1, n + 1).map((i) => h('option', { value: String(i) }, String(i))));
  }

  updateLoaderControls() {
    this.loaderNote.textContent =
      'A directory with config.json and model.safetensors (the book\'s or Hugging Face GPT-2\'s layout). ' +
      'Models too large for this tab are refused before downloading.';
    if (this.shadowRoot.activeElement !== this.urlInput && !this.urlInput.value) this.urlInput.value = this.attr('model');
  }

  loadFromUrl() {
    const url = this.urlInput.value.trim();
    if (!url) {
      this.loaderMessage.textContent = 'Enter the URL of a directory holding config.json and model.safetensors.';
      return;
    }
    if (url === this.attr('model')) this.invalidate(3);
    else this.setAttribute('model', url);
  }

  async loadFiles(fileList) {
    const files = Array.from(fileList);
    const label = files.map((f) => f.name).join(' + ');
    try {
      await this.exclusive(() => this.loadModel({ files }, label));
      this.removeAttribute('model');
      this.invalidate(2);
    } catch (err) {
      this.status(err.message, { error: true });
    }
  }

  useRandomWeights() {
    this.randomButton.hidden = true;
    this.loaderMessage.textContent = '';
    if (this.hasAttribute('model')) this.removeAttribute('model');
    else this.invalidate(3);
  }

  // ------------------------------------------------------------------ forward pass

  async runForward() {
    const model = this.model;
    const ctx = model.config.context_length;
    const all = Array.from(await this.tokenizer.encode(this.attr('prompt')));
    this.promptNote.classList.remove('error');
    this.promptNote.textContent = '';
    if (all.length === 0) {
      this.promptNote.textContent = 'Type at least one character: the model needs a token to predict from.';
      this.promptNote.classList.add('error');
      this.renderChips([], []);
      return;
    }
    let ids = all;
    if (all.length > ctx) {
      if (this.attr('overflow') === 'error') {
        this.promptNote.textContent = `The prompt has ${all.length} tokens but the context length is ${ctx}: ` +
          'shorten it (nothing was run).';
        this.promptNote.classList.add('error');
        this.status(this.promptNote.textContent, { error: true });
        return;
      }
      ids = all.slice(-ctx);
      this.promptNote.textContent = `The prompt has ${all.length} tokens; the model reads the last ${ctx} ` +
        `(its context length), so the first ${all.length - ctx} are cropped.`;
    }
    const placement = this.attr('norm') === 'post' ? 'post' : 'pre';
    if (model.config.norm !== placement) await model.setNormPlacement(placement);
    this.status('Running the forward pass…');
    const t0 = performance.now();
    const { logits, inspection } = await model.forward(ids, { inspect: true });
    const ms = performance.now() - t0;
    if (model !== this.model) return;
    const V = model.config.vocab_size;
    const T = ids.length;
    const last = logits.slice((T - 1) * V, T * V);
    const tokens = await this.tokenizer.tokenTexts(ids);
    const candidates = await this.candidates(last);
    this.result = { ids, tokens, cropped: all.slice(0, all.length - ids.length), last, inspection, candidates, placement };
    this.renderChips(tokens, all.length > ids.length ? await this.tokenizer.tokenTexts(this.result.cropped) : []);
    this.status(`${T} tokens through ${model.config.n_layers} blocks in ${Math.round(ms)} ms (wasm ${this.flavour}, in a worker).`);
    this.emit('forward', {
      ids, tokens, config: model.config, placement, candidates, lastLogits: last,
      normStats: inspection.layers.map((l) => ({ norm1: l.norm1, norm2: l.norm2 })), finalNorm: inspection.finalNorm,
    });
  }

  /** The top candidates of the last position, ranked by the core with their softmax probabilities. */
  async candidates(logits) {
    const k = Math.max(1, Math.min(50, Math.round(this.numAttr('candidates'))));
    const rt = await this.runtime();
    const top = await rt.topCandidates(logits, { k });
    const texts = await this.tokenizer.tokenTexts(top.map((c) => c.id));
    return top.map((c, i) => ({ ...c, token: texts[i] }));
  }

  // ------------------------------------------------------------------ rendering

  width() {
    return Math.max(260, Math.min(760, this.promptSection.clientWidth || 600));
  }

  renderView() {
    this.lastWidth = this.promptSection.clientWidth;
    this.renderCandidates();
    this.renderNormHeatmap();
    const c = this.model.config;
    this.layerIndex = Math.min(c.n_layers, Math.max(1, Math.round(this.numAttr('layer')))) - 1;
    this.headIndex = Math.min(c.n_heads, Math.max(1, Math.round(this.numAttr('head')))) - 1;
    this.inputs.layer.value = String(this.layerIndex + 1);
    this.inputs.head.value = String(this.headIndex + 1);
    this.renderHistogram();
    this.renderAttention();
  }

  renderChips(tokens, cropped) {
    this.chips.replaceChildren(
      ...cropped.map((t) => h('li', { class: 'cropped', title: 'cropped: outside the context' }, t)),
      ...tokens.map((t, i) => h('li', { title: `position ${i}` }, t)));
    this.chips.setAttribute('aria-label', `${tokens.length} prompt tokens${cropped.length ? `, ${cropped.length} cropped` : ''}`);
  }

  renderCandidates() {
    const { candidates, tokens } = this.result;
    const p = scaleLinear().domain([0, candidates[0].probability]).range([0, 100]);
    this.candidateCaption.textContent = `After “${tokens.at(-1)}”, the ${candidates.length} most likely next tokens. ` +
      'Logits come from the core\'s forward pass and probabilities from the core\'s softmax over the whole ' +
      'vocabulary (at temperature 1); bars are relative to the most likely token.';
    this.candidateTable.setAttribute('aria-describedby', 'candidate-caption');
    this.candidateTable.replaceChildren(
      h('thead', {}, h('tr', {}, ...['#', 'token (id)', 'logit', 'probability'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, ...candidates.map((c, i) => h('tr', { 'data-id': String(c.id) },
        h('td', {}, String(i + 1)),
        h('th', { scope: 'row' }, h('span', { class: 'tok' }, c.token), ' ', h('span', { class: 'muted num' }, `(${c.id})`)),
        h('td', { class: 'num logit' }, fmt(c.logit, 4)),
        h('td', { class: 'num prob' }, `${percent(c.probability)} %`,
          h('span', { class: 'pbar', 'aria-hidden': 'true', style: `width: ${p(c.probability)}%` }))))),
    );
  }

  /** The selected LayerNorm statistic as rows (layers, or the final norm) × tokens. */
  normGrid() {
    const { inspection } = this.result;
    const ln = ['norm1', 'norm2', 'final'].includes(this.attr('ln')) ? this.attr('ln') : 'norm1';
    const side = this.attr('ln-side') === 'out' ? 'out' : 'in';
    const stat = this.attr('stat') === 'mean' ? 'mean' : 'var';
    const rows = ln === 'final' ? [inspection.finalNorm[side][stat]] : inspection.layers.map((l) => l[ln][side][stat]);
    const rowNames = ln === 'final' ? ['final'] : rows.map((_, i) => `block ${i + 1}`);
    return { ln, side, stat, rows, rowNames };
  }

  renderNormHeatmap() {
    const { tokens, placement } = this.result;
    const { ln, side, stat, rows, rowNames } = this.normGrid();
    const labels = placement === 'post' ? LN_LABELS_POST : LN_LABELS;
    const all = rows.flatMap((r) => Array.from(r));
    let color;
    let domain;
    if (stat === 'mean') {
      const m = Math.max(1e-6, max(all, Math.abs));
      domain = [-m, m];
      color = scaleDiverging(DIVERGING).domain([-m, 0, m]);
    } else {
      domain = extent(all);
      if (domain[1] - domain[0] < 1e-6) domain = [domain[0] - 0.5, domain[1] + 0.5];
      color = scaleSequential(VIRIDIS).domain(domain);
    }
    const what = `${STAT_LABELS[stat]} of the ${side === 'in' ? 'input' : 'output'} of ${labels[ln]}`;
    this.lnGrid = { rows, rowNames, what };
    this.lnChart = heatmap(this.lnBox, {
      rows: rows.length, cols: tokens.length, value: (r, c) => rows[r][c], color,
      rowLabel: (r) => rowNames[r], colLabel: (c) => tokens[c],
      xLabel: 'token (prompt position)', yLabel: ln === 'final' ? 'final_norm' : 'block (layer)',
      title: `LayerNorm statistics: ${what}, per block and token`,
      description: `${rows.length} × ${tokens.length} values from ${fmt(domain[0], 3)} to ${fmt(domain[1], 3)}.`,
      maxWidth: this.width(), cellH: 26, onCell: (r, c) => this.setCell('ln', [r, c]),
    });
    this.lnBox.setAttribute('aria-label', `Heatmap of the ${what}, ${rows.length} rows by ${tokens.length} tokens. ` +
      'Arrow keys move between cells.');
    colorLegend(this.lnLegend, { color, domain, label: `${STAT_LABELS[stat]} (colour scale)`, width: this.width() });
    this.lnCell = this.clampCell('ln', this.lnCell ?? [0, tokens.length - 1]);
    this.setCell('ln', this.lnCell);
    this.lnTable.replaceChildren(
      h('caption', { class: 'visually-hidden' }, `The ${what}, from the core`),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'block'), ...tokens.map((t, i) => h('th', { scope: 'col', title: `position ${i}` }, t)))),
      h('tbody', {}, ...rows.map((r, i) => h('tr', {}, h('th', { scope: 'row' }, rowNames[i]),
        ...Array.from(r, (v) => h('td', { class: 'num' }, fmt(v, 4)))))),
    );
  }

  clampCell(which, [r, c]) {
    const T = this.result.tokens.length;
    const rows = which === 'ln' ? this.lnGrid.rows.length : T;
    const nr = Math.min(rows - 1, Math.max(0, r));
    const cols = which === 'ln' ? T : nr + 1;
    return [nr, Math.min(cols - 1, Math.max(0, c))];
  }

  setCell(which, cell) {
    const [r, c] = this.clampCell(which, cell);
    const { tokens } = this.result;
    if (which === 'ln') {
      this.lnCell = [r, c];
      this.lnChart.cursor(r, c);
      const v = this.lnGrid.rows[r][c];
      this.lnReadout.textContent = `${this.lnGrid.rowNames[r]}, token “${tokens[c]}” (position ${c}): ${fmt(v, 4)}`;
    } else {
      this.attCell = [r, c];
      this.attChart.cursor(r, c);
      const w = this.attWeights[r * tokens.length + c];
      this.attReadout.textContent = `Query “${tokens[r]}” (position ${r}) attends to “${tokens[c]}” (position ${c}) ` +
        `with weight ${fmt(w, 4)}.`;
    }
  }

  onHeatKey(e, which) {
    if (!this.result) return;
    const T = this.result.tokens.length;
    const rows = which === 'ln' ? this.lnGrid.rows.length : T;
    const colsOf = which === 'ln' ? () => T : (r) => r + 1;
    const next = moveCell(which === 'ln' ? this.lnCell : this.attCell, e.key, rows, colsOf);
    if (!next) return;
    e.preventDefault();
    this.setCell(which, next);
  }

  renderHistogram() {
    const { inspection } = this.result;
    const layer = inspection.layers[this.layerIndex];
    const pre = layer.ffnHiddenPre;
    const post = layer.ffnHiddenPost;
    const [lo0, hi0] = extent(pre);
    const [lo1, hi1] = extent(post);
    const domain = [Math.min(lo0, lo1), Math.max(hi0, hi1)];
    const width = this.width();
    const x = scaleLinear().domain(domain).nice(40);
    const binner = bin().domain(x.domain()).thresholds(x.ticks(48));
    const binsPre = binner(pre);
    const binsPost = binner(post);
    this.histBox.replaceChildren();
    const chart = createChart(this.histBox, {
      width, height: 260, margin: { top: 10, right: 14, bottom: 46, left: 62 },
      xLabel: 'hidden value (before / after GELU)', yLabel: 'count (tokens × hidden units)',
      title: `Block ${this.layerIndex + 1}: feed-forward hidden values before and after GELU`,
      description: `${pre.length} values per histogram.`,
    });
    chart.svg.style('max-width', `${width}px`);
    chart.x.domain(x.domain());
    chart.y.domain([0, max([...binsPre, ...binsPost], (b) => b.length)]).nice();
    chart.drawAxes({ xTicks: width < 420 ? 5 : 8, yTicks: 5 });
    const draw = (bins, fill, opacity, cls) => chart.plot.append('g').attr('class', cls).selectAll('rect').data(bins).join('rect')
      .attr('x', (b) => chart.x(b.x0) + 0.5).attr('width', (b) => Math.max(0, chart.x(b.x1) - chart.x(b.x0) - 1))
      .attr('y', (b) => chart.y(b.length)).attr('height', (b) => chart.y(0) - chart.y(b.length))
      .attr('fill', fill).attr('fill-opacity', opacity);
    draw(binsPre, 'var(--bs-c1)', 0.55, 'pre');
    draw(binsPost, 'var(--bs-c2)', 0.7, 'post');
    if (lo1 < -0.05) {
      chart.plot.append('line').attr('x1', chart.x(lo1)).attr('x2', chart.x(lo1)).attr('y1', 0).attr('y2', chart.innerH)
        .attr('stroke', 'var(--bs-fg)').attr('stroke-dasharray', '3 3');
      chart.plot.append('text').attr('x', chart.x(lo1) - 4).attr('y', 12).attr('text-anchor', 'end')
        .attr('class', 'ref-label').text(`min ${fmt(lo1, 2)}`);
    }
    const neg = (a) => { let n = 0; for (const v of a) if (v < 0) n++; return n; };
    const share = (a) => `${fmt((100 * neg(a)) / a.length, 1)} %`;
    this.histText.textContent = `Block ${this.layerIndex + 1}: ${pre.length.toLocaleString('en-US')} hidden values. ` +
      `Before GELU they range from ${fmt(lo0, 3)} to ${fmt(hi0, 3)} and ${share(pre)} are negative; after GELU ` +
      `the smallest is ${fmt(lo1, 3)} (GELU's dip is ≈ −0.17) — the negative values are squashed into ` +
      `[${fmt(lo1, 3)}, 0] while positive values pass almost unchanged.`;
    this.histTable.replaceChildren(
      h('thead', {}, h('tr', {}, ...['', 'minimum', 'maximum', 'negative'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {},
        h('tr', {}, h('th', { scope: 'row' }, 'before GELU'), h('td', { class: 'num' }, fmt(lo0, 4)), h('td', { class: 'num' }, fmt(hi0, 4)), h('td', { class: 'num' }, share(pre))),
        h('tr', {}, h('th', { scope: 'row' }, 'after GELU'), h('td', { class: 'num' }, fmt(lo1, 4)), h('td', { class: 'num' }, fmt(hi1, 4)), h('td', { class: 'num' }, share(post)))),
    );
  }

  renderAttention() {
    const { inspection, tokens } = this.result;
    const T = tokens.length;
    const layer = inspection.layers[this.layerIndex];
    const off = this.headIndex * T * T; // (B = 1, NH, T, T)
    this.attWeights = layer.attnWeights.subarray(off, off + T * T);
    const color = scaleSequential(VIRIDIS).domain([0, 1]);
    const what = `block ${this.layerIndex + 1}, head ${this.headIndex + 1}`;
    this.attChart = heatmap(this.attBox, {
      rows: T, cols: T, value: (r, c) => this.attWeights[r * T + c], color, square: true,
      rowLabel: (r) => tokens[r], colLabel: (c) => tokens[c],
      xLabel: 'key: token attended to', yLabel: 'query: token attending',
      title: `Attention weights, ${what}`,
      description: `Causal attention weights of ${what}: ${T} × ${T}, each row sums to 1; later tokens are masked.`,
      maxWidth: this.width(), skip: (r, c) => c > r, onCell: (r, c) => this.setCell('att', [r, c]),
    });
    this.attBox.setAttribute('aria-label', `Attention weights of ${what}, query by key. Arrow keys move between cells.`);
    this.attBox.dataset.layer = String(this.layerIndex + 1);
    this.attBox.dataset.head = String(this.headIndex + 1);
    colorLegend(this.attLegend, { color, domain: [0, 1], label: 'attention weight', width: this.width() });
    this.attCell = this.clampCell('att', this.attCell ?? [T - 1, 0]);
    this.setCell('att', this.attCell);
  }

  // ------------------------------------------------------------------ generation

  async generate() {
    if (!this.model || this.abort) return;
    const controller = new AbortController();
    this.abort = controller;
    this.genButton.disabled = true;
    this.stopButton.disabled = false;
    this.reuseButton.disabled = true;
    const prompt = this.attr('prompt');
    const options = {
      maxNewTokens: Math.round(this.numAttr('max-new-tokens')),
      temperature: this.numAttr('temperature'),
      topK: Math.round(this.numAttr('top-k')),
      topP: this.numAttr('top-p'),
      seed: Math.round(this.numAttr('gen-seed')),
      overflow: this.attr('overflow') === 'error' ? 'error' : 'crop',
    };
    const generated = [];
    this.genOutput.replaceChildren(h('span', { class: 'from-prompt' }, printable(prompt)), h('span', { class: 'generated' }));
    this.genStatus.classList.remove('error');
    this.genStatus.textContent = 'Generating…';
    let render = 0;
    const show = async () => {
      const mine = ++render;
      const text = printable(await this.tokenizer.decode(generated));
      if (mine !== render) return;
      this.genOutput.lastChild.textContent = text;
      this.genOutput.scrollTop = this.genOutput.scrollHeight;
    };
    try {
      const t0 = performance.now();
      const { tokens, stopReason } = await this.exclusive(async () => {
        const ids = await this.tokenizer.encode(prompt);
        if (ids.length === 0) throw new Error('type a prompt first: generation continues it');
        const eot = this.tokenizer.eotId;
        if (eot != null && eot < this.model.config.vocab_size) options.stopToken = eot;
        if (this.model.config.norm !== (this.attr('norm') === 'post' ? 'post' : 'pre')) {
          await this.model.setNormPlacement(this.attr('norm') === 'post' ? 'post' : 'pre');
        }
        return this.model.generate(ids, options, {
          signal: controller.signal,
          onToken: ({ token, index }) => {
            generated.push(token);
            show();
            this.emit('token', { token, index });
          },
        });
      });
      await show();
      this.lastText = prompt + (await this.tokenizer.decode(generated));
      const s = ((performance.now() - t0) / 1000).toFixed(1);
      const why = { max_new_tokens: 'reached the token limit', stop_token: 'the model emitted <|endoftext|>',
        context_full: 'the context is full', cancelled: 'stopped' }[stopReason] ?? stopReason;
      this.genStatus.textContent = `${tokens.length} new tokens in ${s} s (${why}).`;
      this.emit('generated', { tokens, text: await this.tokenizer.decode(tokens), stopReason });
    } catch (err) {
      this.genStatus.textContent = `Generation failed: ${err.message}`;
      this.genStatus.classList.add('error');
    } finally {
      const hadFocus = this.shadowRoot.activeElement === this.stopButton;
      this.abort = null;
      this.genButton.disabled = false;
      this.stopButton.disabled = true;
      this.reuseButton.disabled = generated.length === 0;
      if (hadFocus) this.genButton.focus();
    }
  }

  reuseOutput() {
    const text = this.lastText ?? this.genOutput.textContent;
    this.promptInput.value = text;
    this.setAttribute('prompt', text);
  }
}

define('gpt-explorer', GPTExplorer);
