// block-learner.js — what <block-explorer> asks of the learner: predict the block's first operation (and the seed's
// "check yourself — pre-norm formula" quiz), find the first step that disagrees (seed 002's method: the learner
// pastes the values of their own EncoderBlock at each step — one tensor, or the dict the offered hooks snippet
// prints — and the widget marks the first step that disagrees with the core, with the difference, and names the
// known mistake that reproduces it, run in the core), "break a step" practice (the core injects a mistake at a
// chosen step; the learner finds it), and the state as PyTorch. Helpers of the element, not custom elements.
import { h } from '../kit/base.js';
import { agreement, sameShape } from '../kit/compare.js';
import { py } from '../kit/copy-pytorch.js';
import { mistakeText } from '../kit/mistake-text.js';
import { parsePasted, parsePastedDict, PasteError } from '../kit/pasted-tensor.js';

export const STEP_IDS = ['norm1', 'att', 'add1', 'norm2', 'ff', 'add2'];
const STEP_LABEL = { norm1: 'norm1 (LayerNorm)', att: 'attn (attention)', add1: 'x + attn(…) (first shortcut)',
  norm2: 'norm2 (LayerNorm)', ff: 'ffn (feed-forward)', add2: 'x + ffn(…) (the block output)' };
const TOLERANCE = 1e-5;
const short = (v) => (v === 0 ? '0' : v < 1e-3 ? v.toExponential(1) : v.toPrecision(3));

export const STEP_CHECK_CSS = `
.step-check textarea { width: 100%; box-sizing: border-box; font-family: ui-monospace, monospace; font-size: 0.8rem; }
.step-check tr.first td, .step-check tr.first th { color: var(--bs-c2); font-weight: 700; }
.step-check .verdict.ok { color: var(--bs-c3); font-weight: 600; }
.step-check .verdict.bad { color: var(--bs-c2); font-weight: 600; }
.step-check pre { max-height: 14rem; overflow: auto; font-size: 0.8rem; }
`;

export function blockQuestions(el) {
  return {
    'first-op': {
      kind: 'choice',
      prompt: () => `In this ${el.placement()}-norm block, what is the first operation applied to the input x (after saving it as the shortcut)?`,
      expected: () => (el.placement() === 'pre' ? 'norm1' : 'att'),
      choices: [
        { value: 'norm1', label: 'norm1: LayerNorm', hint: 'That is pre-norm’s order: post-norm runs attention on the raw input and normalizes after the addition.' },
        { value: 'att', label: 'att: multi-head attention', hint: 'That is post-norm’s order (the original Transformer): pre-norm normalizes before attention.' },
        { value: 'ff', label: 'ff: the feed-forward network', hint: 'The feed-forward half comes second, after attention’s shortcut is added back.' },
        { value: 'add', label: 'x + shortcut', hint: 'The shortcut is added after a sublayer, not before.' },
      ],
    },
    'prenorm-quiz': {
      kind: 'choice',
      prompt: () => 'Check yourself — pre-norm formula: which data flow is one pre-norm sublayer?',
      expected: () => 'pre',
      choices: [
        { value: 'post', label: 'x = LayerNorm(x + Sublayer(x))', hint: 'That is post-norm (the original Transformer).' },
        { value: 'pre', label: 'x = x + Sublayer(LayerNorm(x))' },
        { value: 'inner', label: 'x = x + LayerNorm(Sublayer(x))', hint: 'The norm comes before the sublayer, on its input.' },
        { value: 'nores', label: 'x = Sublayer(LayerNorm(x))', hint: 'That drops the shortcut: the residual connection is what keeps x.' },
      ],
    },
  };
}

/** Steps as printed by Python: {'norm1': [[[…]]], …}, each value a nested list of float32 values. */
function dictPrint(steps, [B, T, d]) {
  const nest = (v) => Array.from({ length: B }, (_, b) => Array.from({ length: T }, (__, t) =>
    `[${Array.from(v.subarray((b * T + t) * d, (b * T + t + 1) * d), py).join(', ')}]`));
  return `{${steps.map((s) => `'${s.id}': [${nest(s.values).map((r) => `[${r.join(', ')}]`).join(', ')}]`).join(', ')}}`;
}

export class StepCheck {
  /** port: the element's panelPort plus lessonBlock() -> {block, preset}: a core Block with the lesson's weights, pre-norm. */
  constructor(port) {
    this.port = port;
    this.stepSelect = h('select', { id: 'paste-step' }, h('option', { value: 'all' }, 'every step (the snippet’s dict)'),
      ...STEP_IDS.map((s) => h('option', { value: s }, `one step: ${STEP_LABEL[s]}`)));
    this.input = h('textarea', { id: 'step-input', part: 'check-input', rows: '5', spellcheck: 'false', autocomplete: 'off',
      'aria-describedby': 'step-help' });
    this.button = h('button', { type: 'button' }, 'Find the first step that disagrees');
    this.result = h('p', { class: 'verdict', part: 'check-result', role: 'status', 'aria-live': 'polite' });
    this.table = h('table', { class: 'step-table' });
    this.snippet = h('pre', { tabindex: '0', 'aria-label': 'PyTorch forward-hooks snippet' });
    this.breakStep = h('select', { id: 'break-step' }, ...STEP_IDS.map((s) => h('option', { value: s }, STEP_LABEL[s])));
    this.breakMistake = h('select', { id: 'break-mistake' });
    this.breakButton = h('button', { type: 'button' }, 'Break it');
    this.quiz = h('fieldset', { class: 'break-quiz', hidden: true }, h('legend', {}, 'Which step is the first to disagree?'),
      ...STEP_IDS.map((s) => h('label', { style: 'display:block' }, h('input', { type: 'radio', name: 'first-wrong', value: s }), ` ${STEP_LABEL[s]}`)),
      h('button', { type: 'button', class: 'quiz-answer' }, 'Answer'));
    this.quizResult = h('p', { class: 'verdict', role: 'status', 'aria-live': 'polite' });
    this.element = h('section', { class: 'step-check', part: 'step-check', 'aria-labelledby': 'step-check-title', hidden: true },
      h('h4', { id: 'step-check-title' }, 'Your EncoderBlock, step by step: find the first step that disagrees'),
      h('p', { class: 'muted', id: 'step-help' }, 'Build the lesson’s block yourself (torch.manual_seed(42); block = ',
        'EncoderBlock(8, 2, 32); x = torch.randn(2, 5, 8)), record every step with the hooks snippet below and paste ',
        'its printout — or paste one step’s tensor and say which step it is. The widget compares each step with the ',
        'core in order and stops at the first that disagrees, as the lesson’s debugging method says: check each ',
        'stage in sequence and stop at the first stage that disagrees with what you expect.'),
      h('details', {}, h('summary', {}, 'The PyTorch hooks snippet'), this.snippet),
      h('div', { class: 'row' }, h('label', { for: 'paste-step' }, 'What you paste'), this.stepSelect),
      h('label', { for: 'step-input' }, 'Your printout'), this.input,
      h('div', { class: 'row' }, this.button),
      this.result,
      h('div', { class: 'scroll' }, this.table),
      h('fieldset', { class: 'break' }, h('legend', {}, 'Practise: break a step'),
        h('p', { class: 'muted' }, 'The core runs the lesson’s block with one mistake at the step you pick and puts the ',
          'printout in the box above, as if it were yours. Find the first step that disagrees before you check.'),
        h('div', { class: 'row' }, h('label', { for: 'break-step' }, 'step'), this.breakStep,
          h('label', { for: 'break-mistake' }, 'mistake'), this.breakMistake, this.breakButton),
        this.quiz, this.quizResult));
    this.button.addEventListener('click', () => this.check());
    this.breakStep.addEventListener('change', () => this.fillMistakes());
    this.breakButton.addEventListener('click', () => this.breakIt().catch((err) => this.port.report(err.message, { error: true })));
    this.quiz.querySelector('.quiz-answer').addEventListener('click', () => this.answerQuiz());
  }

  set hidden(v) {
    this.element.hidden = v;
  }

  async show() {
    const { preset } = await this.port.lessonBlock();
    this.snippet.textContent = preset.hooksSnippet;
    if (!this.breakMistake.options.length) await this.fillMistakes();
  }

  /** The core's steps of the lesson's block on the lesson's x, with mistake `id` (at `atStep`, if given). */
  async steps(id = 'correct', atStep = '') {
    const { block, preset } = await this.port.lessonBlock();
    const [B, T] = preset.shape;
    const steps = await block.mistake(id, preset.x, B, T, { atStep });
    return Object.fromEntries(steps.map((s) => [s.id, s.values]));
  }

  /**
   * The mistakes that change the values at the chosen step (γ = 1, β = 0 make no-affine change nothing, say). Steps
   * chosen quickly one after another (arrow keys) start several fills: only the latest one's list is shown, and
   * data-step names the step the list is for.
   */
  async fillMistakes() {
    const step = this.breakStep.value;
    const fill = (this.fills = (this.fills ?? 0) + 1);
    const { block, preset } = await this.port.lessonBlock();
    const ref = await this.steps();
    const ids = (await block.mistakes(preset.shape[1])).filter((id) => id !== 'correct');
    const options = [];
    for (const id of ids) {
      let s;
      try {
        s = await this.steps(id, step);
      } catch { continue; } // does not happen at this step
      if (agreement({ values: s[step] }, ref[step], 1e-3).within) continue;
      options.push(h('option', { value: id }, mistakeText(id).what));
    }
    if (fill !== this.fills) return; // a later step was chosen meanwhile
    this.breakMistake.replaceChildren(...options);
    this.breakMistake.dataset.step = step;
  }

  async breakIt() {
    const step = this.breakStep.value;
    const id = this.breakMistake.value;
    if (!id) return;
    const { block, preset } = await this.port.lessonBlock();
    const [B, T] = preset.shape;
    const steps = (await block.mistake(id, preset.x, B, T, { atStep: step })).filter((s) => s.id !== 'input');
    this.input.value = dictPrint(steps, preset.shape);
    this.stepSelect.value = 'all';
    this.broken = { step, id, attempts: 0 };
    this.quiz.hidden = false;
    this.quiz.querySelectorAll('input').forEach((r) => { r.checked = false; });
    this.quizResult.textContent = '';
    this.result.textContent = '';
    this.table.replaceChildren();
  }

  async answerQuiz() {
    const picked = this.quiz.querySelector('input:checked');
    if (!picked || !this.broken) {
      this.quizResult.textContent = 'Pick a step first.';
      return;
    }
    const b = this.broken;
    b.attempts += 1;
    const correct = picked.value === b.step;
    this.port.emit('answer', { widget: this.port.tag, question: 'first-wrong-step', answer: picked.value, expected: b.step,
      correct, tolerance: 0, attempts: b.attempts });
    this.quizResult.className = `verdict ${correct ? 'ok' : 'bad'}`;
    this.quizResult.textContent = correct ? `Right: ${b.step} is the first step that disagrees.`
      : `Not ${picked.value}: the check below shows where the values first disagree.`;
    await this.check();
  }

  /** Reads the paste: {step: parsed}. Throws PasteError. */
  read() {
    const which = this.stepSelect.value;
    return which === 'all' ? parsePastedDict(this.input.value) : { [which]: parsePasted(this.input.value) };
  }

  async check() {
    let pasted;
    try {
      pasted = this.read();
    } catch (err) {
      if (!(err instanceof PasteError)) throw err;
      this.input.setAttribute('aria-invalid', 'true');
      this.say(`Could not read your paste: ${err.message}.`, 'bad');
      return;
    }
    this.input.removeAttribute('aria-invalid');
    const unknown = Object.keys(pasted).filter((k) => !STEP_IDS.includes(k));
    if (unknown.length) {
      this.say(`Unknown step ${unknown.map((k) => `'${k}'`).join(', ')}: the steps are ${STEP_IDS.join(', ')}.`, 'bad');
      return;
    }
    const { block, preset } = await this.port.lessonBlock();
    const ref = await this.steps();
    const rows = [];
    let first = null;
    for (const id of STEP_IDS) {
      const p = pasted[id];
      if (!p) { rows.push({ id, state: 'not pasted' }); continue; }
      if (!sameShape(p.shape, preset.shape)) {
        this.say(`Your ${id} has shape (${p.shape.join(', ')}) but the block’s steps have shape (${preset.shape.join(', ')}).`, 'bad');
        this.port.emit('check', { widget: this.port.tag, match: 'unknown', maxDiff: null, step: id, tolerance: TOLERANCE });
        return;
      }
      const a = agreement(p, ref[id], TOLERANCE);
      rows.push({ id, state: first ? 'after' : a.within ? 'agrees' : 'first', maxDiff: a.maxDiff });
      if (!a.within && !first) first = { id, maxDiff: a.maxDiff };
    }
    let match = first ? 'unknown' : 'correct';
    if (first) match = await this.diagnose(block, preset, pasted[first.id], first.id);
    this.drawTable(rows);
    const steps = rows.filter((r) => r.maxDiff != null).map((r) => ({ id: r.id, maxDiff: r.maxDiff, agrees: r.state === 'agrees' }));
    this.port.emit('check', { widget: this.port.tag, match, maxDiff: first?.maxDiff ?? Math.max(0, ...steps.map((s) => s.maxDiff)),
      step: first?.id ?? null, steps, tolerance: TOLERANCE });
    if (!first) {
      this.say(`Every step you pasted (${steps.map((s) => s.id).join(', ')}) agrees with the core within ${TOLERANCE}.`, 'ok');
      return;
    }
    const agreed = rows.filter((r) => r.state === 'agrees').map((r) => r.id);
    this.say(`${agreed.length ? `${agreed.join(', ')} agree; ` : ''}${first.id} is the first step that disagrees ` +
      `(max difference ${short(first.maxDiff)}). ` + (match === 'unknown'
      ? 'No mistake the widget knows reproduces it: look at that step’s code.'
      : `Your ${first.id} matches ${mistakeText(match).what}. Fix: ${mistakeText(match).fix}.`), 'bad');
  }

  /** Which known mistake, run in the core, reproduces the learner's values at the first wrong step. */
  async diagnose(block, preset, values, step) {
    const ids = (await block.mistakes(preset.shape[1])).filter((id) => id !== 'correct');
    for (const id of ids) {
      for (const at of [step, '']) { // confined to the step, else the whole block (a wiring mistake)
        let s;
        try {
          s = await this.steps(id, at);
        } catch { continue; }
        if (agreement(values, s[step], TOLERANCE).within) return id;
      }
    }
    return 'unknown';
  }

  drawTable(rows) {
    const mark = { agrees: '✓ agrees', first: '✗ first to disagree', after: '— after the first disagreement', 'not pasted': 'not pasted' };
    this.table.replaceChildren(
      h('caption', { class: 'visually-hidden' }, 'Each step of your block against the core'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'step'), h('th', { scope: 'col' }, 'verdict'),
        h('th', { scope: 'col' }, 'max |yours − core|'))),
      h('tbody', {}, ...rows.map((r) => h('tr', { class: r.state, 'data-step': r.id },
        h('th', { scope: 'row' }, STEP_LABEL[r.id]), h('td', {}, mark[r.state]),
        h('td', { class: 'num' }, r.maxDiff == null ? '' : short(r.maxDiff))))));
  }

  say(text, kind) {
    this.result.textContent = text;
    this.result.className = `verdict ${kind}`;
  }
}

/** Lesson mode: the lesson's code, seed and x, the hooks snippet, and the per-step statistics the widget shows. */
export function lessonSnippet(preset) {
  return [
    '# Blockscope <block-explorer preset="encoder-block-lesson82">: lesson 82\'s EncoderBlock, verbatim.',
    'import torch, torch.nn as nn',
    '',
    preset.lessonCode.trim(),
    '',
    'torch.manual_seed(42)',
    'block = EncoderBlock(8, 2, 32)',
    'x = torch.randn(2, 5, 8)',
    'block.eval()',
    '',
    preset.hooksSnippet.trim().replace(/\nprint\(.*\)$/, ''),
    '# The statistics the widget shows for every step, per token x[b, t]: mean, variance (÷ d) and L2 norm.',
    'steps = {"input": x, **steps}',
    'for name, value in steps.items():',
    '    v = value.reshape(-1, value.shape[-1])',
    '    print(name, [v.mean(-1).tolist(), v.var(-1, unbiased=False).tolist(), v.norm(dim=-1).tolist()])',
  ].join('\n') + '\n';
}

/** GPT mode: the seeded weights are the core's, so the snippet reproduces what does not depend on them. */
export function gptSnippet(config) {
  return [
    '# Blockscope <block-explorer>: the GPT\'s weights come from a Blockscope seed (the core\'s own generator), which',
    '# PyTorch cannot reproduce; this counts the parameters the widget reports, from the book\'s module shapes.',
    'import torch.nn as nn',
    '',
    `cfg = ${JSON.stringify(config).replace(/false/g, 'False').replace(/true/g, 'True')}`,
    'd, V, C, L = cfg["emb_dim"], cfg["vocab_size"], cfg["context_length"], cfg["n_layers"]',
    'block = [nn.Linear(d, d, bias=cfg["qkv_bias"]) for _ in range(3)] + [nn.Linear(d, d), nn.Linear(d, 4 * d),',
    '         nn.Linear(4 * d, d), nn.LayerNorm(d), nn.LayerNorm(d)]',
    'model = [nn.Embedding(V, d), nn.Embedding(C, d), nn.LayerNorm(d), nn.Linear(d, V, bias=False)]',
    'params = sum(p.numel() for m in model for p in m.parameters()) + L * sum(p.numel() for m in block for p in m.parameters())',
    'print("params", params)',
  ].join('\n') + '\n';
}
