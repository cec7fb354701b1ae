// gelu-learner.js — what <gelu-explorer> asks of the learner: a prediction of GELU at the readout position (with a
// hint when the answer is ReLU's value or the other GELU form's), the seed's "check yourself — GELU vs ReLU" quiz,
// the check of a learner's own GELU on the lesson's eight inputs, the table of those eight values, and the state as
// PyTorch. Helpers of the element, not a custom element.
import { fmt, h } from '../kit/base.js';
import { pyList } from '../kit/copy-pytorch.js';

/** The lesson's eight inputs (LM4-T3): GELU(−3) = −0.0036 … GELU(3) = 2.9964 in its tanh form. */
export const EIGHT = [-3, -1, -0.5, 0, 0.5, 1, 2, 3];
const KIND = { tanh: 'gelu_tanh', erf: 'gelu_erf' };
const FORM = { tanh: 'the tanh approximation', erf: 'the exact erf form' };

export const kindOf = (el) => KIND[el.attr('check-form')] ?? 'gelu_tanh';

/** The correct GELU of the eight inputs and what each mistake computes instead. */
export async function geluTarget(el) {
  const rt = await el.runtime();
  const expected = kindOf(el);
  const ids = await rt.activationMistakes(expected);
  const candidates = await Promise.all(ids.map(async (id) => ({ id, values: await rt.activationMistake(id, expected, EIGHT) })));
  return { shape: [EIGHT.length], candidates };
}

export function geluQuestions(el) {
  const form = () => FORM[el.attr('check-form')] ?? FORM.tanh;
  return {
    value: {
      kind: 'number', tolerance: 0.01,
      prompt: () => `Predict GELU(${fmt(el.current ?? el.numAttr('x'), 2)}) in ${form()}.`,
      expected: () => el.readoutValues?.[kindOf(el)],
      hint: (a) => {
        const v = el.readoutValues ?? {};
        const other = kindOf(el) === 'gelu_tanh' ? 'gelu_erf' : 'gelu_tanh';
        if (Math.abs(a - v.relu) <= 0.005 && Math.abs(v.relu - v[kindOf(el)]) > 0.01) return 'That is ReLU’s value, max(0, x): GELU weights x by Φ(x) instead of cutting it.';
        if (Math.abs(a - el.current) <= 0.005) return 'That is x itself: GELU(x) = x·Φ(x), and Φ(x) < 1.';
        if (Math.abs(a - v[other]) <= 0.0005) return `That is the other GELU form (${other === 'gelu_erf' ? 'exact erf' : 'tanh'}).`;
        return null;
      },
    },
    'gelu-quiz': {
      kind: 'choice',
      prompt: () => 'Check yourself — GELU vs ReLU: what distinguishes them?',
      expected: () => 'smooth',
      choices: [
        { value: 'bounded', label: 'GELU is bounded: its outputs stay between 0 and 1', hint: 'That is the sigmoid. GELU grows like x for large x (GELU(3) ≈ 2.996).' },
        { value: 'zero', label: 'GELU is exactly 0 for every negative input', hint: 'That is ReLU. GELU is slightly negative there, with a dip of about −0.17 near x = −0.75.' },
        { value: 'smooth', label: 'GELU is smooth and lets small negative values through; ReLU cuts them to 0 with a kink at 0' },
        { value: 'linear', label: 'GELU is linear, so the FFN needs no other nonlinearity', hint: 'GELU is nonlinear: that is why the FFN is more than one linear map.' },
      ],
    },
  };
}

/** The eight values' table: x, GELU (both forms) and ReLU from the core. */
export async function eightTable(el) {
  const rt = await el.runtime();
  const [t, e, r] = await Promise.all(['gelu_tanh', 'gelu_erf', 'relu'].map((k) => rt.activation(k, EIGHT)));
  return h('table', { class: 'eight', part: 'eight-values' },
    h('caption', {}, 'The lesson’s eight values, computed by the core'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'x'), h('th', { scope: 'col' }, 'GELU (tanh)'),
      h('th', { scope: 'col' }, 'GELU (erf)'), h('th', { scope: 'col' }, 'ReLU'))),
    h('tbody', {}, ...EIGHT.map((x, i) => h('tr', {}, h('th', { scope: 'row', class: 'num' }, fmt(x, 1)),
      h('td', { class: 'num', 'data-eight': 'gelu_tanh' }, fmt(t[i])), h('td', { class: 'num', 'data-eight': 'gelu_erf' }, fmt(e[i])),
      h('td', { class: 'num' }, fmt(r[i]))))));
}

export function geluSnippet(el) {
  const x = el.current ?? el.numAttr('x');
  return [
    '# Blockscope <gelu-explorer>: GELU (both forms) and ReLU in PyTorch.',
    'import torch',
    'import torch.nn.functional as F',
    '',
    `x = torch.tensor([${Number(Math.fround(x))}] + ${pyList(EIGHT)})  # the readout position, then the lesson's eight inputs`,
    'print("gelu_tanh", F.gelu(x, approximate="tanh").tolist())  # 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))',
    'print("gelu_erf", F.gelu(x).tolist())  # x·Φ(x), exact',
    'print("relu", F.relu(x).tolist())',
  ].join('\n') + '\n';
}
