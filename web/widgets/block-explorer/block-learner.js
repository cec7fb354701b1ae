// block-learner.js — what <block-explorer> asks of the learner: predict the block's first operation (and the seed's
// "check yourself — pre-norm formula" quiz), find the first step that disagrees (seed 002's method: the learner
// pastes the values of their own EncoderBlock at each step — one tensor, or the dict the offered hooks snippet
// prints — and the widget marks the first step that disagrees with the core, with the difference, and names the
// known mistake that reproduces it, run in the core), "break a step" practice (the core injects a mistake at a
// chosen step; the learner finds it), and the state as PyTorch. Helpers of the element, not custom elements; their
// words come from the widget's messages (block.* keys), the snippets stay Python.
import { h } from '../kit/base.js';
import { agreement, sameShape } from '../kit/compare.js';
import { py } from '../kit/copy-pytorch.js';
import { mistakeText } from '../kit/mistake-text.js';
import { parsePasted, parsePastedDict, PasteError } from '../kit/pasted-tensor.js';
import { diffNum } from './block-numbers.js';
import { PLACEMENTS } from './block-steps.js';

export const STEP_IDS = ['norm1', 'att', 'add1', 'norm2', 'ff', 'add2'];
/** A step's name for the learner: its id and what it is (message block.stepLabel.<id>). */
const stepLabel = (t, id) => t(`block.stepLabel.${id}`);
const TOLERANCE = 1e-5;

export const STEP_CHECK_CSS = `
.step-check textarea { width: 100%; box-sizing: border-box; font-family: ui-monospace, monospace; font-size: 0.8rem; }
.step-check tr.first td, .step-check tr.first th { color: var(--bs-c2); font-weight: 700; }
.step-check .verdict.ok { color: var(--bs-c3); font-weight: 600; }
.step-check .verdict.bad { color: var(--bs-c2); font-weight: 600; }
.step-check pre { max-height: 14rem; overflow: auto; font-size: 0.8rem; }
`;

export function blockQuestions(el) {
  const t = (key, params) => el.t(key, params);
  return {
    'first-op': {
      kind: 'choice',
      prompt: () => t('block.q.firstOp', { placement: t(PLACEMENTS[el.placement()].short) }),
      expected: () => (el.placement() === 'pre' ? 'norm1' : 'att'),
      choices: [
        { value: 'norm1', label: t('block.q.firstOp.norm1'), hint: t('block.q.firstOp.norm1Hint') },
        { value: 'att', label: t('block.q.firstOp.att'), hint: t('block.q.firstOp.attHint') },
        { value: 'ff', label: t('block.q.firstOp.ff'), hint: t('block.q.firstOp.ffHint') },
        { value: 'add', label: 'x + shortcut', hint: t('block.q.firstOp.addHint') },
      ],
    },
    'prenorm-quiz': {
      kind: 'choice',
      prompt: () => t('block.q.prenorm'),
      expected: () => 'pre',
      // The choices are formulas: the same in every language.
      choices: [
        { value: 'post', label: 'x = LayerNorm(x + Sublayer(x))', hint: t('block.q.prenorm.postHint') },
        { value: 'pre', label: 'x = x + Sublayer(LayerNorm(x))' },
        { value: 'inner', label: 'x = x + LayerNorm(Sublayer(x))', hint: t('block.q.prenorm.innerHint') },
        { value: 'nores', label: 'x = Sublayer(LayerNorm(x))', hint: t('block.q.prenorm.noresHint') },
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
  /**
   * port: the element's panelPort plus lessonBlock() -> {block, preset}: a core Block with the lesson's weights,
   * pre-norm. Its controls are the element's groups `check` (what is pasted, the printout, the check button) and
   * `break` (the practice: step, mistake, Break it and the quiz).
   */
  constructor(port) {
    this.port = port;
    const { t } = port;
    this.stepSelect = h('select', { id: 'paste-step' }, h('option', { value: 'all' }, t('block.check.pasteAll')),
      ...STEP_IDS.map((s) => h('option', { value: s }, t('block.check.pasteOne', { step: stepLabel(t, s) }))));
    this.input = h('textarea', { id: 'step-input', part: 'check-input', rows: '5', spellcheck: 'false', autocomplete: 'off',
      'aria-describedby': 'step-help' });
    this.button = h('button', { type: 'button' }, t('block.check.button'));
    this.result = h('p', { class: 'verdict', part: 'check-result', role: 'status', 'aria-live': 'polite' });
    this.table = h('table', { class: 'step-table' });
    this.snippet = h('pre', { tabindex: '0', 'aria-label': t('block.check.snippetLabel') });
    this.breakStep = h('select', { id: 'break-step' }, ...STEP_IDS.map((s) => h('option', { value: s }, stepLabel(t, s))));
    this.breakMistake = h('select', { id: 'break-mistake' });
    this.breakButton = h('button', { type: 'button' }, t('block.break.button'));
    this.quiz = h('fieldset', { class: 'break-quiz', hidden: true }, h('legend', {}, t('block.break.quiz')),
      ...STEP_IDS.map((s) => h('label', { style: 'display:block' }, h('input', { type: 'radio', name: 'first-wrong', value: s }), ` ${stepLabel(t, s)}`)),
      h('button', { type: 'button', class: 'quiz-answer' }, t('block.break.answer')));
    this.quizResult = h('p', { class: 'verdict', role: 'status', 'aria-live': 'polite' });
    const pasteRow = h('div', { class: 'row' }, h('label', { for: 'paste-step' }, t('block.check.what')), this.stepSelect);
    const inputLabel = h('label', { for: 'step-input' }, t('block.check.printout'));
    const buttonRow = h('div', { class: 'row' }, this.button);
    const practice = h('fieldset', { class: 'break' }, h('legend', {}, t('block.break.legend')),
      h('p', { class: 'muted' }, t('block.break.help')),
      h('div', { class: 'row' }, h('label', { for: 'break-step' }, t('block.break.step')), this.breakStep,
        h('label', { for: 'break-mistake' }, t('block.break.mistake')), this.breakMistake, this.breakButton),
      this.quiz, this.quizResult);
    this.element = h('section', { class: 'step-check', part: 'step-check', 'aria-labelledby': 'step-check-title', hidden: true },
      h('h4', { id: 'step-check-title' }, t('block.check.title')),
      h('p', { class: 'muted', id: 'step-help' }, t('block.check.help')),
      h('details', {}, h('summary', {}, t('block.check.snippetSummary')), this.snippet),
      pasteRow, inputLabel, this.input, buttonRow,
      this.result,
      h('div', { class: 'scroll' }, this.table),
      practice);
    port.boundControls.addGroup('check', pasteRow, inputLabel, this.input, buttonRow);
    port.boundControls.addGroup('break', practice);
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
      options.push(h('option', { value: id }, mistakeText(id, this.port.messages()).what)); // kit/mistake-text.js
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
      this.quizResult.textContent = this.port.t('block.break.pickFirst');
      return;
    }
    const b = this.broken;
    b.attempts += 1;
    const correct = picked.value === b.step;
    this.port.emit('answer', { widget: this.port.tag, question: 'first-wrong-step', answer: picked.value, expected: b.step,
      correct, tolerance: 0, attempts: b.attempts });
    this.quizResult.className = `verdict ${correct ? 'ok' : 'bad'}`;
    this.quizResult.textContent = correct ? this.port.t('block.break.right', { step: b.step })
      : this.port.t('block.break.wrong', { answer: picked.value });
    await this.check();
  }

  /** Reads the paste: {step: parsed}. Throws PasteError. */
  read() {
    const which = this.stepSelect.value;
    return which === 'all' ? parsePastedDict(this.input.value) : { [which]: parsePasted(this.input.value) };
  }

  async check() {
    const { t, num } = this.port;
    let pasted;
    try {
      pasted = this.read();
    } catch (err) {
      if (!(err instanceof PasteError)) throw err;
      this.input.setAttribute('aria-invalid', 'true');
      this.say(t('block.check.unreadable', { error: err.localized?.(this.port.messages()) ?? err.message }), 'bad');
      return;
    }
    this.input.removeAttribute('aria-invalid');
    const unknown = Object.keys(pasted).filter((k) => !STEP_IDS.includes(k));
    if (unknown.length) {
      this.say(t('block.check.unknownStep', { count: unknown.length, names: unknown.map((k) => `'${k}'`).join(', '),
        steps: STEP_IDS.join(', ') }), 'bad');
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
        this.say(t('block.check.shape', { step: id, shape: p.shape.join(', '), expected: preset.shape.join(', ') }), 'bad');
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
      this.say(t('block.check.allAgree', { steps: steps.map((s) => s.id).join(', '), tolerance: num(TOLERANCE, 5) }), 'ok');
      return;
    }
    const agreed = rows.filter((r) => r.state === 'agrees').map((r) => r.id);
    const where = { step: first.id, diff: diffNum(num, first.maxDiff) };
    const found = agreed.length ? t('block.check.firstAfter', { ...where, count: agreed.length, agreed: agreed.join(', ') })
      : t('block.check.first', where);
    const { what, fix } = mistakeText(match, this.port.messages()); // kit/mistake-text.js, in the widget's language
    const why = match === 'unknown' ? t('block.check.noMistake') : t('block.check.mistake', { step: first.id, what, fix });
    this.say(`${found} ${why}`, 'bad');
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
    const { t, num } = this.port;
    const mark = { agrees: 'block.check.markAgrees', first: 'block.check.markFirst', after: 'block.check.markAfter',
      'not pasted': 'block.check.markNotPasted' };
    this.table.replaceChildren(
      h('caption', { class: 'visually-hidden' }, t('block.check.tableCaption')),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('block.check.colStep')), h('th', { scope: 'col' }, t('block.check.colVerdict')),
        h('th', { scope: 'col' }, t('block.check.colDiff')))),
      h('tbody', {}, ...rows.map((r) => h('tr', { class: r.state, 'data-step': r.id },
        h('th', { scope: 'row' }, stepLabel(t, r.id)), h('td', {}, t(mark[r.state])),
        h('td', { class: 'num' }, r.maxDiff == null ? '' : diffNum(num, r.maxDiff))))));
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
