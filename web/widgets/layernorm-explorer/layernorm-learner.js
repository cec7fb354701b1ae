// layernorm-learner.js — what <layernorm-explorer> asks of the learner: predictions of the detail token's mean,
// variance and output (with hints that name the likely mistake), the seed's "check yourself — LayerNorm axis"
// quiz, the check of a learner's own LayerNorm against the core's mistakes, and the current state as PyTorch.
// Helpers of the element (they read its `result`; their text is in its language), not a custom element. The PyTorch
// snippet is code: locale-free, in English, whatever the widget's language.
import { judge } from '../kit/compare.js';
import { pyList } from '../kit/copy-pytorch.js';
import { mistakeText } from '../kit/mistake-text.js';
import { vectorText } from './layernorm-rows.js';
import { overflowed } from './layernorm-views.js';

const near = (a, b, tol) => Math.abs(a - b) <= tol;

/** The LayerNorm mistakes on the current tokens, with the widget's γ and β as per-feature vectors. */
export async function layerNormTarget(el) {
  const { rows, T, d, gamma, beta, eps } = el.result;
  const rt = await el.runtime();
  const x = Float32Array.from(rows.flat());
  const opts = { gamma: new Float32Array(d).fill(gamma), beta: new Float32Array(d).fill(beta), eps };
  const ids = await rt.layerNormMistakes();
  const candidates = await Promise.all(ids.map(async (id) => ({ id, values: await rt.layerNormMistake(id, x, opts) })));
  return { shape: [T, d], candidates };
}

/** The questions `predict` may name. */
export function layerNormQuestions(el) {
  const r = () => el.result;
  const t = (key, params) => el.t(key, params);
  const tok = () => ({ token: r().token, values: vectorText(el, r().rows[r().token - 1], 2) });
  return {
    mean: {
      kind: 'number', tolerance: 0.01,
      prompt: () => t('layernorm.ask.mean', tok()),
      expected: () => r().mean[r().token - 1],
      hint: (a) => {
        const x = r().rows[r().token - 1];
        const sum = x.reduce((s, v) => s + v, 0);
        return near(a, sum, 0.01) ? t('layernorm.hint.sum', { count: x.length }) : null;
      },
    },
    variance: {
      kind: 'number', tolerance: 0.01,
      prompt: () => t('layernorm.ask.variance', tok()),
      expected: () => r().variance[r().token - 1],
      hint: (a, want) => {
        const d = r().d;
        if (d > 1 && near(a, (want * d) / (d - 1), 0.01)) return t('layernorm.hint.unbiased', { d });
        if (near(a, Math.sqrt(want), 0.01)) return t('layernorm.hint.std');
        return null;
      },
    },
    output: {
      kind: 'vector', tolerance: 0.01,
      prompt: () => t('layernorm.ask.output', { ...tok(), d: r().d }),
      expected: () => r().output[r().token - 1],
      hint: async (a) => {
        const { candidates } = await layerNormTarget(el);
        const t = r().token - 1;
        const d = r().d;
        const row = candidates.map((c) => ({ id: c.id, values: c.values.subarray(t * d, (t + 1) * d) }));
        const v = judge({ shape: [d], values: a, halfUnits: null }, [d], row, 0.01);
        return v.match !== 'unknown' && v.match !== 'correct' ? t('layernorm.hint.mistake', { what: mistakeText(v.match).what }) : null;
      },
    },
    'axis-quiz': {
      kind: 'choice',
      prompt: () => t('layernorm.quiz.prompt'),
      expected: () => 'features',
      choices: [
        { value: 'batch', label: t('layernorm.quiz.batch'), hint: t('layernorm.quiz.batchHint') },
        { value: 'sequence', label: t('layernorm.quiz.sequence'), hint: t('layernorm.quiz.sequenceHint') },
        { value: 'features', label: t('layernorm.quiz.features') },
        { value: 'all', label: t('layernorm.quiz.all'), hint: t('layernorm.quiz.allHint') },
      ],
    },
  };
}

/** The current state as PyTorch: the tokens, nn.LayerNorm with the widget's γ, β and ε, printing what it shows. */
export function layerNormSnippet(el) {
  const { rows, d, gamma, beta, eps, axis } = el.result;
  const wrong = axis === 'sequence';
  // A variance beyond float32's range: PyTorch's float32 layer_norm gives NaN there, float64 the numbers shown.
  const f64 = overflowed(el.result);
  const dtype = f64 ? ', dtype=torch.float64' : '';
  return [
    '# Blockscope <layernorm-explorer>: the widget\'s tokens through PyTorch\'s LayerNorm.',
    'import torch',
    '',
    `x = torch.tensor(${pyList(rows)}${dtype})`,
    f64 ? '# float64: a variance here overflows float32 (PyTorch\'s float32 layer_norm would print nan).' : '',
    wrong
      ? `# The widget's "wrong axis": statistics over the ${rows.length} tokens of each feature (dim 0).\nxs = x.T`
      : 'xs = x',
    `ln = torch.nn.LayerNorm(xs.shape[-1], eps=${eps}${dtype})`,
    'with torch.no_grad():',
    `    ln.weight.fill_(${gamma})  # the widget's one γ for every feature (nn.LayerNorm learns a vector)`,
    `    ln.bias.fill_(${beta})`,
    '    y = ln(xs)',
    'mean = xs.mean(-1)',
    'variance = xs.var(-1, unbiased=False)  # LayerNorm divides by n, not n - 1',
    wrong ? 'y = y.T' : '',
    'print("mean", mean.tolist())',
    'print("variance", variance.tolist())',
    'print("output", y.tolist())',
    `# ${d} features per token; the widget's numbers come from the Blockscope core.`,
  ].filter((l) => l !== '').join('\n') + '\n';
}
