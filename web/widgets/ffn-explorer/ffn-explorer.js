// <ffn-explorer> — the transformer block's feed-forward network (lesson LM4-T3, book §4.3): a worked example with
// editable W₁, b₁, W₂, b₂ (the lesson's d = 2 FFN, ffn-worked-example.js); its shapes (B, n, d) -> (B, n, h) -> (B, n, d),
// parameters, FLOPs, hidden-activation memory and one block's parameter breakdown (ffn-costs.js); histograms of real
// hidden values before and after GELU from a small seeded GPT (here); and a position-wise check: change one token and
// only that position's output moves (ffn-positionwise.js). Every number shown is computed by the core.
// Attributes: d (768), expansion (4), batch (8), tokens (1024), qkv-bias (false) and attn-out-bias (true): which of
//   attention's projections have biases in the counts (true/false: lesson LM4-T3's 4d² + d; false/false: lesson 82's
//   EncoderBlock, 4d²), ffn-bias (true: b₁ and b₂ in the counts), example-activation (gelu | relu | none: the worked
//   example's activation; none shows the collapsed W₂W₁), prompt (the text whose
//   UTF-8 bytes feed the GPT), layer (1: the block whose FFN is shown), demo (the position-wise tokens: ";" between
//   tokens, "," between features), demo-mode (per-token | across-sequence: lesson 82's trap, the FFN applied along
//   the sequence axis so that one edit moves every position), preset ("" | ffn-lesson82: lesson 82 §29's FFN(4, 16)
//   with PyTorch's weights, ffn-lesson.js), predict (params: the FFN's parameter count, hidden until answered).
// Parts: title, lesson, example, costs, hidden, positionwise (the panels, each a section for sections="…"), predict,
//   check, check-input, check-result (the lesson preset's check), copy-pytorch, status; toPyTorch() returns the
//   state as PyTorch (the lesson's code with the preset, else the worked example). Control groups for controls="…" and
//   lock="…": static controlGroups. Text: messages ffn.* (web/widgets/i18n/<locale>/ffn-explorer.js), numbers in the
//   widget's language; the snippet, the lesson's printout and event details stay locale-free.
// Seeds are Blockscope seeds: the core's own generator, so torch.manual_seed(123) would give different weights.
// Events: blockscope-change {section: 'example', activation, x, W1, b1, W2, b2, hiddenPre, hiddenPost, output} |
//   {section: 'costs', d, expansion, hidden, batch, tokens, qkvBias, attnOutBias, parameters, attention, norms,
//   blockTotal, share, flopsPerToken, hiddenEntries, hiddenBytes} | {section: 'hidden', layer, T, hidden, pre, post
//   (summaries)} | {section: 'positionwise', mode, outputs, changedInputs, changedOutputs, maxDelta} | {section: 'lesson',
//   x, hidden, output, numParameters, maxAbsDiff}, blockscope-answer, blockscope-check, blockscope-ready.
import { extent } from 'd3-array';

import { BlockscopeElement, define, h } from '../kit/base.js';
import { chartWidth, createChart, KIT_CSS, legend, naturalSize, overlaidHistogram, watchWidth } from '../kit/chart-kit.js';
import { CHECK_CSS } from '../kit/check-panel.js';
import { COPY_CSS, CopyPanel } from '../kit/copy-pytorch.js';
import { applyLayout } from '../kit/layout.js';
import { PREDICT_CSS, PredictPanel } from '../kit/predict-panel.js';
import { COSTS_CSS, CostsSection } from './ffn-costs.js';
import { FFN_PRESET, LESSON_FFN_CSS, LessonFFN } from './ffn-lesson.js';
import { DEFAULT_DEMO, POSITIONWISE_CSS, PositionwiseDemo } from './ffn-positionwise.js';
import { fill } from './ffn-text.js';
import { EXAMPLE_CSS, WorkedExample } from './ffn-worked-example.js';
import en from '../i18n/en/ffn-explorer.js';
import { fieldError } from '../kit/field-error.js';

const DEFAULT_PROMPT = 'Attention moves information between tokens. The feed-forward layer then thinks about each token by itself.';
// A small GPT with random (seeded) weights: byte-level vocabulary, so a prompt's UTF-8 bytes are its token ids.
const GPT_CONFIG = { vocab_size: 256, context_length: 256, emb_dim: 32, n_heads: 4, n_layers: 2, drop_rate: 0, qkv_bias: false };
const SEED = 123; // a Blockscope seed (the core's generator), not torch.manual_seed(123): message ffn.seedNote

const CSS = `
input[aria-invalid="true"] { border-color: var(--bs-c2); outline: 2px solid var(--bs-c2); }
.caption { font-size: 0.9rem; color: var(--bs-muted); margin: 0.6rem 0 0; }
.prompt-row { display: grid; gap: 0.15rem; }
.prompt-row input { width: 100%; max-width: 44rem; }
details summary { cursor: pointer; color: var(--bs-accent); margin: 0.3rem 0; }
abbr.seed { text-decoration: underline dotted; cursor: help; }
`;

export class FeedForwardExplorer extends BlockscopeElement {
  // The sizes are only counted (no tensors of that size are made), so their limits are wide; ffn-costs.js checks
  // typed sizes against the same limits (checkSizes).
  // `group`: the control group (controlGroups) whose lock="…" refuses the learner's edits of the attribute.
  static attrs = {
    d: { default: 768, min: 1, max: 65536, int: true, group: 'sizes', doc: 'model width' },
    expansion: { default: 4, min: 0.25, max: 64, group: 'sizes', doc: 'hidden width h = expansion · d' },
    batch: { default: 8, min: 1, max: 2 ** 20, int: true, group: 'sizes' },
    tokens: { default: 1024, min: 1, max: 2 ** 20, int: true, group: 'sizes' },
    'qkv-bias': { default: false, group: 'bias' }, 'attn-out-bias': { default: true, group: 'bias' },
    'ffn-bias': { default: true, group: 'bias', doc: 'biases b₁, b₂ in the FFN’s counts' },
    'example-activation': { default: 'gelu', options: ['gelu', 'relu', 'none'], group: 'activation' }, prompt: DEFAULT_PROMPT,
    layer: { default: 1, min: 1, max: GPT_CONFIG.n_layers, int: true }, demo: DEFAULT_DEMO,
    'demo-mode': { default: 'per-token', options: ['per-token', 'across-sequence'], group: 'trap', doc: 'across-sequence: the trap' },
    preset: { default: '', options: ['', FFN_PRESET], doc: "lesson 82 §29's FFN(4, 16) with its PyTorch weights" },
    predict: { default: '', doc: 'readouts to predict first: params' } };

  static controlGroups = {
    'lesson-x': 'the lesson preset’s x (its tokens)',
    example: 'the worked example’s cells (x, W₁, b₁, W₂, b₂) and its reset button',
    activation: 'the worked example’s activation (example-activation)',
    sizes: 'd, expansion, B and n, and the lessons’ size buttons',
    bias: 'which biases are counted: attention’s projections (qkv-bias, attn-out-bias) and the FFN’s (ffn-bias)',
    prompt: 'the prompt whose hidden values are histogrammed',
    layer: 'the block whose FFN is histogrammed',
    demo: 'the position-wise check’s tokens and their +1 buttons',
    trap: 'the switch that applies the FFN across the sequence (demo-mode)',
  };

  static sections = {
    title: 'the heading',
    lesson: 'lesson 82 §29’s FFN(4, 16) with PyTorch’s weights (preset="ffn-lesson82"), with its check',
    example: 'the d = 2 worked example, step by step',
    predict: 'the prediction of the parameter count (predict="params")',
    costs: 'shapes, parameters, FLOPs and memory, and one block’s parameters',
    hidden: 'histograms of a GPT’s hidden values before and after GELU',
    positionwise: 'the position-wise check: one edited token moves one output',
    'copy-pytorch': 'the Copy as PyTorch button',
    status: 'the status line',
  };

  setup() {
    const s = this.shadowRoot;
    const t = (key, params) => this.t(key, params);
    s.append(h('style', {}, KIT_CSS + COSTS_CSS + EXAMPLE_CSS + POSITIONWISE_CSS + PREDICT_CSS + CHECK_CSS + COPY_CSS +
      LESSON_FFN_CSS + CSS));
    // Built again in another language (relocalize): the old panels' core objects go, what the learner typed stays.
    const typed = { example: this.example?.state?.values, x: this.lessonFfn?.xInput.value };
    for (const panel of [this.example, this.positionwise, this.lessonFfn]) panel?.release();
    // Panels that draw on their own call afterDraw so that a hidden prediction stays hidden whatever finishes last.
    const afterDraw = () => this.refreshLearner();
    this.lessonFfn = new LessonFFN(this.panelPort({ afterDraw }), typed.x);
    // A revealed value is drawn again by the panels that show it (the mask took it out of the document).
    this.predictPanel = new PredictPanel(this.panelPort(), { questions: this.questions(), onReveal: () => this.redrawAll() });
    this.copy = new CopyPanel(this.panelPort(), { snippet: () => this.toPyTorch() });
    this.example = new WorkedExample(this.panelPort({ afterDraw }), typed.example);
    this.costs = new CostsSection(this.panelPort({ afterDraw }));
    this.positionwise = new PositionwiseDemo(this.panelPort({ afterDraw }), SEED);

    this.promptInput = h('input', { type: 'text', id: 'prompt', spellcheck: 'false', autocomplete: 'off', 'aria-describedby': 'hidden-summary' });
    this.promptInput.addEventListener('input', () => {
      const empty = this.promptInput.value.length === 0;
      if (fieldError(this.promptInput, empty ? t('ffn.hidden.emptyPrompt') : null)) this.set('prompt', this.promptInput.value);
    });
    this.layerSelect = h('select', { id: 'layer' },
      ...Array.from({ length: GPT_CONFIG.n_layers }, (_, i) => h('option', { value: String(i + 1) }, t('ffn.hidden.layerOption', { layer: i + 1 }))));
    this.layerSelect.addEventListener('change', () => this.set('layer', this.layerSelect.value) || this.updateHidden());
    this.hiddenSummary = h('p', { id: 'hidden-summary', 'aria-live': 'polite' });
    this.histLegend = h('div');
    this.histPre = h('div', { class: 'chart hist-pre' });
    this.histPost = h('div', { class: 'chart hist-post' });
    this.histTable = h('table', { class: 'hist-table' });
    const seedNote = t('ffn.seedNote', { seed: SEED });
    const promptRow = h('div', { class: 'prompt-row' }, h('label', { for: 'prompt' }, t('ffn.hidden.prompt')), this.promptInput);
    const layerRow = h('div', { class: 'row' }, h('label', { for: 'layer' }, t('ffn.hidden.layer')), this.layerSelect);

    s.append(
      h('h3', {}, t('ffn.title')),
      h('p', { class: 'muted' }, t('ffn.intro')),
      this.lessonFfn.root,
      h('div', { part: 'example' }, ...this.example.nodes),
      this.predictPanel.element,
      h('div', { part: 'costs' }, ...this.costs.nodes),
      h('div', { part: 'hidden' },
        h('h4', {}, t('ffn.hidden.title')),
        h('p', { class: 'muted gpt-info' }, ...fill(t('ffn.hidden.gptInfo', { vocab: GPT_CONFIG.vocab_size, d: GPT_CONFIG.emb_dim,
          layers: GPT_CONFIG.n_layers, heads: GPT_CONFIG.n_heads, hidden: 4 * GPT_CONFIG.emb_dim }),
        { seed: h('abbr', { class: 'seed', title: seedNote }, t('ffn.hidden.seed', { seed: SEED })) })),
        h('p', { class: 'note seed-note' }, seedNote),
        promptRow,
        layerRow,
        this.hiddenSummary,
        this.histLegend,
        h('div', { class: 'pair even' }, this.histPre, this.histPost),
        h('details', {}, h('summary', {}, t('ffn.hidden.tableToggle')), h('div', { class: 'scroll' }, this.histTable))),
      h('div', { part: 'positionwise' }, ...this.positionwise.nodes),
      this.copy.element,
      h('p', { class: 'status', role: 'status', id: 'status' }, t('ffn.status.loading')),
    );
    // The author's control groups (layout.js: controls="…", lock="…").
    const groups = this.boundControls;
    groups.addGroup('lesson-x', ...this.lessonFfn.xControls);
    groups.addGroup('example', this.example.inputs);
    groups.addGroup('activation', this.example.activationBox);
    groups.addGroup('sizes', this.costs.presets, this.costs.grid);
    groups.addGroup('bias', this.costs.biasRow);
    groups.addGroup('prompt', promptRow);
    groups.addGroup('layer', layerRow);
    groups.addGroup('demo', this.positionwise.list);
    groups.addGroup('trap', ...this.positionwise.trap);
    this.whileConnected(() => watchWidth(this, () => this.redraw()));
  }

  async start() {
    await this.update();
    if (!this.readySent) {
      this.readySent = true;
      this.emit('ready', {});
    }
  }

  /** Recomputes every part (also what invalidate() runs when the element returns after release()). */
  async update() {
    this.lessonFfn.hidden = this.attr('preset') !== FFN_PRESET;
    await Promise.all([this.example.update(), this.costs.update(), this.updateHidden(), this.positionwise.update(),
      this.attr('preset') === FFN_PRESET ? this.lessonFfn.update() : null]);
    this.refreshLearner();
  }

  attributeChanged(name) {
    if (!this.costs) return; // URL-hash attributes arrive before setup(); start() reads them anyway
    let done;
    if (['d', 'expansion', 'batch', 'tokens', 'qkv-bias', 'attn-out-bias', 'ffn-bias'].includes(name)) done = this.costs.update();
    else if (name === 'example-activation') done = this.example.update();
    else if (name === 'prompt' || name === 'layer') done = this.updateHidden();
    else if (name === 'demo' || name === 'demo-mode') done = this.positionwise.update();
    else if (name === 'preset' || name === 'predict') done = this.update();
    Promise.resolve(done).then(() => this.refreshLearner());
  }

  /** The predictions' questions: the FFN's parameter count at the sizes shown. */
  questions() {
    const c = () => this.costs.costs;
    return {
      params: {
        kind: 'number', tolerance: 0,
        prompt: () => this.t('ffn.predict.params', { d: c()?.d ?? 0, hidden: c()?.hidden ?? 0 }),
        expected: () => c().ff.parameters,
        hint: (a) => {
          const { d, hidden } = c();
          if (a === 2 * d * hidden) return this.t('ffn.predict.hintWeightsOnly', { sum: hidden + d });
          if (a === 2 * d * hidden + hidden || a === 2 * d * hidden + d) return this.t('ffn.predict.hintOneBias');
          if (a === d * hidden + hidden) return this.t('ffn.predict.hintFirstLinear');
          return null;
        },
      },
    };
  }

  redrawAll() {
    if (this.costs.costs) this.costs.draw();
    if (this.positionwise.demo) this.positionwise.draw();
    this.lessonFfn.draw();
    this.refreshLearner();
  }

  /** The learner panels after a redraw: the prediction's questions and masks, the check's prompt. */
  refreshLearner() {
    this.predictPanel.render();
    this.predictPanel.mask(this.shadowRoot);
    this.copy.refresh();
    applyLayout(this); // panels rebuild or re-enable controls (the tokens' rows, the reset button): hide and lock them again
  }

  /** The current state as a runnable PyTorch snippet: the lesson's code with the preset, else the worked example. */
  toPyTorch() {
    return this.attr('preset') === FFN_PRESET ? this.lessonFfn.snippet() : this.example.snippet();
  }

  /** Frees the worker-side objects (base.js calls this once the element has left the page). */
  release() {
    const gpt = this.gpt;
    this.gpt = null;
    gpt?.dispose().catch(() => {});
    const freed = [this.example.release(), this.positionwise.release(), this.lessonFfn.release()];
    return !!gpt || freed.some(Boolean);
  }

  redraw() {
    this.costs.redraw();
    if (this.acts) this.drawHistograms();
    this.positionwise.redraw();
    this.refreshLearner();
  }

  // ---- hidden values before and after GELU ----

  /** The seeded GPT whose hidden values are shown. */
  async gptModel() {
    if (!this.gpt) {
      const rt = await this.runtime();
      this.gptPromise ??= rt.createGPT(GPT_CONFIG, { seed: SEED });
      try {
        this.gpt = await this.gptPromise;
      } finally {
        this.gptPromise = null;
      }
    }
    return this.gpt;
  }

  async updateHidden() {
    const prompt = this.attr('prompt') || DEFAULT_PROMPT;
    const layer = Math.min(GPT_CONFIG.n_layers, Math.max(1, Math.round(this.numAttr('layer'))));
    if (this.shadowRoot.activeElement !== this.promptInput) this.promptInput.value = prompt;
    this.layerSelect.value = String(layer);
    const seq = (this.hiddenSeq = (this.hiddenSeq ?? 0) + 1);
    const bytes = new TextEncoder().encode(prompt);
    let insp;
    let cropped = 0;
    try {
      if (this.acts?.prompt === prompt) {
        ({ inspection: insp, cropped } = this.acts);
      } else {
        // A prompt longer than the context: the core reads its last context_length bytes, as every widget does.
        const gpt = await this.gptModel();
        ({ inspection: insp, cropped } = await gpt.forward(Array.from(bytes), { inspect: true, overflow: 'crop' }));
      }
    } catch (err) {
      if (seq === this.hiddenSeq) this.report(this.t('ffn.hidden.error', { error: err.message }), { error: true });
      return;
    }
    if (seq !== this.hiddenSeq) return;
    const L = insp.layers[layer - 1];
    const pre = L.ffnHiddenPre;
    const post = L.ffnHiddenPost;
    const negPre = pre.reduce((n, v) => n + (v < 0), 0);
    const negPost = post.reduce((n, v) => n + (v < 0), 0);
    const [preMin, preMax] = extent(pre);
    const [postMin, postMax] = extent(post);
    this.acts = { prompt, inspection: insp, layer, T: insp.T, H: insp.H, pre, post, cropped,
      stats: { negPre, negPost, preMin, preMax, postMin, postMax } };
    this.drawHidden();
    this.emit('change', { section: 'hidden', layer, T: insp.T, hidden: insp.H, count: pre.length,
      pre: { min: preMin, max: preMax, negative: negPre }, post: { min: postMin, max: postMax, negative: negPost } });
  }

  drawHidden() {
    const { T, H, pre, layer, cropped, stats: s } = this.acts;
    const t = (key, params) => this.t(key, params);
    const summary = cropped
      ? t('ffn.hidden.summaryCropped', { layer, tokens: T, hidden: H, values: pre.length, context: GPT_CONFIG.context_length, count: cropped })
      : t('ffn.hidden.summary', { layer, count: T, hidden: H, values: pre.length });
    this.hiddenSummary.replaceChildren(summary, ' ', ...fill(t('ffn.hidden.negatives'), {
      share: h('span', { 'data-hidden': 'neg-pre' }, this.messages.percent(s.negPre / pre.length, 1)),
      min: h('span', { class: 'num', 'data-hidden': 'pre-min' }, this.num(s.preMin, 4)),
      max: h('span', { class: 'num' }, this.num(s.preMax, 4)),
      lowest: h('strong', { class: 'num', 'data-hidden': 'post-min' }, this.num(s.postMin, 4)),
    }));
    this.histLegend.replaceChildren(legend([
      { label: t('ffn.hidden.legendPre'), color: 'var(--bs-c1)' },
      { label: t('ffn.hidden.after'), color: 'var(--bs-c3)' }]));
    this.drawHistograms();
  }

  drawHistograms() {
    const { pre, post, layer, stats: s } = this.acts;
    const t = (key, params) => this.t(key, params);
    const width = chartWidth(this.histPre);
    const lo = Math.min(s.preMin, s.postMin);
    const hi = Math.max(s.preMax, s.postMax);
    const draw = (box, data, color, which, cls) => {
      box.replaceChildren();
      const chart = createChart(box, {
        width, height: 200, xLabel: t(`ffn.hidden.x.${which}`), yLabel: t('ffn.hidden.yLabel'),
        title: t(`ffn.hidden.chartTitle.${which}`, { layer }),
        description: '',
      });
      naturalSize(chart, width, 200);
      chart.x.domain([lo, hi]).nice();
      const [bins] = overlaidHistogram(chart, [{ values: data, fill: color, cls }], { ticks: Math.max(30, Math.round(chart.innerW / 5)) });
      chart.drawAxes({ xTicks: Math.max(4, Math.round(chart.innerW / 70)), yTicks: 4 });
      chart.plot.append('line').attr('x1', chart.x(0)).attr('x2', chart.x(0)).attr('y1', 0).attr('y2', chart.innerH)
        .attr('stroke', 'var(--bs-fg)').attr('stroke-dasharray', '4 3');
      const top = bins.reduce((a, b) => (b.length > a.length ? b : a));
      chart.svg.select('desc').text(t('ffn.hidden.chartDesc', { count: data.length,
        min: this.num(s[`${which}Min`], 4), max: this.num(s[`${which}Max`], 4),
        from: this.num(top.x0, 2), to: this.num(top.x1, 2), tallest: top.length }));
      return { chart, bins };
    };
    const a = draw(this.histPre, pre, 'var(--bs-c1)', 'pre', 'pre');
    const b = draw(this.histPost, post, 'var(--bs-c3)', 'post', 'post');
    // Mark GELU's floor: the lowest post-GELU value the core produced.
    const { chart } = b;
    const xm = chart.x(s.postMin);
    chart.plot.append('line').attr('class', 'dip').attr('x1', xm).attr('x2', xm).attr('y1', 0).attr('y2', chart.innerH)
      .attr('stroke', 'var(--bs-c4)').attr('stroke-width', 2);
    chart.plot.append('text').attr('x', xm - 6).attr('y', 12).attr('text-anchor', 'end')
      .text(t('ffn.hidden.lowest', { value: this.num(s.postMin, 3) }));
    this.histTable.replaceChildren(
      h('caption', { class: 'visually-hidden' }, t('ffn.hidden.tableCaption')),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('ffn.hidden.colBin')), h('th', { scope: 'col' }, t('ffn.hidden.before')),
        h('th', { scope: 'col' }, t('ffn.hidden.after')))),
      h('tbody', {}, ...a.bins.map((bn, i) => h('tr', {},
        h('th', { scope: 'row' }, t('ffn.hidden.binRange', { from: this.num(bn.x0, 2), to: this.num(bn.x1, 2) })),
        h('td', { class: 'num' }, this.num(bn.length)), h('td', { class: 'num' }, this.num(b.bins[i]?.length ?? 0))))));
  }
}

define('ffn-explorer', FeedForwardExplorer, en);
