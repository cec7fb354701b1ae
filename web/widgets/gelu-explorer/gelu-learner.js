// gelu-learner.js — what <gelu-explorer> asks of the learner: a prediction of GELU at the readout position (with a
// hint when the answer is ReLU's value or the other GELU form's), the seed's "check yourself — GELU vs ReLU" quiz,
// the check of a learner's own GELU on the lesson's eight inputs, the table of those eight values, and the state as
// PyTorch. Helpers of the element, not a custom element. Texts are the element's messages (gelu.*), numbers for
// reading go through el.num; the PyTorch snippet is the same in every language.
import { h } from '../kit/base.js';
import { pyList } from '../kit/copy-pytorch.js';

/** The lesson's eight inputs (LM4-T3): GELU(−3) = −0.0036 … GELU(3) = 2.9964 in its tanh form. */
export const EIGHT = [-3, -1, -0.5, 0, 0.5, 1, 2, 3];
/** The eight inputs as the PyTorch line the check panel names. */
export const EIGHT_CODE = 'x = torch.tensor([-3., -1., -0.5, 0., 0.5, 1., 2., 3.])';
const KIND = { tanh: 'gelu_tanh', erf: 'gelu_erf' };

export const kindOf = (el) => KIND[el.attr('check-form')] ?? 'gelu_tanh';

/** The correct GELU of the eight inputs and what each mistake computes instead. */
export async function geluTarget(el) {
  const rt = await el.runtime();
  const expected = kindOf(el);
  const ids = await rt.activationMistakes(expected);
  const candidates = await Promise.all(ids.map(async (id) => ({ id, values: await rt.activationMistake(id, expected, EIGHT) })));
  return { shape: [EIGHT.length], candidates };
}

/** The prediction questions: GELU at the readout position (in the check-form's form) and the seed's quiz. */
export function geluQuestions(el) {
  const form = () => el.t(`gelu.predict.form.${el.attr('check-form') === 'erf' ? 'erf' : 'tanh'}`);
  return {
    value: {
      kind: 'number', tolerance: 0.01,
      prompt: () => el.t('gelu.predict.value', { x: el.num(el.current ?? el.numAttr('x'), 2), form: form() }),
      expected: () => el.readoutValues?.[kindOf(el)],
      hint: (a) => {
        const v = el.readoutValues ?? {};
        const other = kindOf(el) === 'gelu_tanh' ? 'gelu_erf' : 'gelu_tanh';
        if (Math.abs(a - v.relu) <= 0.005 && Math.abs(v.relu - v[kindOf(el)]) > 0.01) return el.t('gelu.predict.hint.relu');
        if (Math.abs(a - el.current) <= 0.005) return el.t('gelu.predict.hint.identity');
        if (Math.abs(a - v[other]) <= 0.0005) {
          return el.t('gelu.predict.hint.otherForm', { form: el.t(`gelu.predict.otherForm.${other === 'gelu_erf' ? 'erf' : 'tanh'}`) });
        }
        return null;
      },
    },
    'gelu-quiz': {
      kind: 'choice',
      prompt: () => el.t('gelu.quiz.prompt'),
      expected: () => 'smooth',
      choices: [
        { value: 'bounded', label: el.t('gelu.quiz.bounded'), hint: el.t('gelu.quiz.bounded.hint', { value: el.num(2.996, 3) }) },
        { value: 'zero', label: el.t('gelu.quiz.zero'), hint: el.t('gelu.quiz.zero.hint', { dip: el.num(-0.17, 2), x: el.num(-0.75, 2) }) },
        { value: 'smooth', label: el.t('gelu.quiz.smooth') },
        { value: 'linear', label: el.t('gelu.quiz.linear'), hint: el.t('gelu.quiz.linear.hint') },
      ],
    },
  };
}

/** The eight values' table: x, GELU (both forms) and ReLU from the core. */
export async function eightTable(el) {
  const rt = await el.runtime();
  const [t, e, r] = await Promise.all(['gelu_tanh', 'gelu_erf', 'relu'].map((k) => rt.activation(k, EIGHT)));
  return h('table', { class: 'eight' },
    h('caption', {}, el.t('gelu.eight.caption')),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'x'), h('th', { scope: 'col', translate: 'no' }, 'GELU (tanh)'),
      h('th', { scope: 'col', translate: 'no' }, 'GELU (erf)'), h('th', { scope: 'col', translate: 'no' }, 'ReLU'))),
    h('tbody', {}, ...EIGHT.map((x, i) => h('tr', {}, h('th', { scope: 'row', class: 'num' }, el.num(x, 1)),
      h('td', { class: 'num', 'data-eight': 'gelu_tanh' }, el.num(t[i], 4)),
      h('td', { class: 'num', 'data-eight': 'gelu_erf' }, el.num(e[i], 4)),
      h('td', { class: 'num' }, el.num(r[i], 4))))));
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
