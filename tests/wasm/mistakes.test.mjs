// The learners' mistakes through the runtime, in every flavour: the same PyTorch goldens as
// tests/unit/test_mistakes.cpp (layer_norm_variants.json and module_mistakes.json, PyTorch running each mistaken
// formula), the core's id lists, and bad ids, steps and shapes refused by name with the runtime still working.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { assertClose, FLAVOURS, goldenCases } from './support.mjs';

const LN_IDS = ['correct', 'wrong-axis', 'unbiased-variance', 'eps-outside-sqrt', 'no-eps', 'no-affine'];
const f32 = (t) => Float32Array.from(t.data);
const params = (c) => Object.fromEntries(Object.entries(c.params).map(([k, t]) => [k, f32(t)]));

for (const flavour of FLAVOURS) {
  describe(`learners' mistakes (${flavour})`, () => {
    let bs;
    before(async () => { bs = await loadBlockscope({ flavour }); });
    after(() => bs?.dispose?.());

    test('the core lists every mistake once, correct first, each with its site', () => {
      assert.deepEqual(bs.layerNormMistakes(), LN_IDS);
      const all = bs.mistakes();
      assert.equal(all[0].id, 'correct');
      assert.equal(new Set(all.map((m) => m.id)).size, all.length);
      assert.equal(all.find((m) => m.id === 'softmax-wrong-axis').site, 'attention');
      assert.deepEqual(bs.activationMistakes('gelu_erf'), ['correct', 'tanh-approximation', 'relu-instead-of-gelu']);
    });

    test('every LayerNorm mistake equals PyTorch running it', () => {
      const cases = goldenCases('layer_norm_variants.json');
      assert.equal(cases.length, 3 * LN_IDS.length);
      for (const c of cases) {
        const y = bs.layerNormMistake(c.config.mistake, f32(c.inputs.x), {
          gamma: f32(c.params.gamma), beta: f32(c.params.beta), eps: c.config.eps,
        });
        assertClose(y, c.outputs.y, c.name);
      }
    });

    test('every activation, FFN, attention and block mistake equals PyTorch running it', () => {
      const cases = goldenCases('module_mistakes.json');
      for (const c of cases) {
        const { module, mistake, B, T } = c.config;
        const x = f32(c.inputs.x);
        if (module === 'activation') {
          assertClose(bs.activationMistake(mistake, c.config.expected, x), c.outputs.y, c.name);
        } else if (module === 'feed_forward') {
          const { emb_dim: embDim, hidden_dim: hiddenDim, activation } = c.config.ffn;
          const ff = bs.createFeedForward({ embDim, hiddenDim, activation });
          ff.loadParameters(params(c));
          assertClose(ff.mistake(mistake, x, B, T), c.outputs.y, c.name);
          ff.dispose();
        } else if (module === 'attention') {
          const att = bs.createAttention(c.config.attention);
          att.loadParameters(params(c));
          assertClose(att.mistake(mistake, x, B, T), c.outputs.y, c.name);
          assert.deepEqual(att.mistakes(), ['correct', 'no-scale', 'no-causal-mask', 'softmax-wrong-axis']);
          att.dispose();
        } else {
          const block = bs.createBlock(c.config.block);
          block.loadParameters(params(c));
          for (const run of c.config.runs) {
            const [id, atStep = ''] = run.split('@');
            const steps = block.mistake(id, x, B, T, { atStep });
            assert.equal(steps.length, 7);
            for (const s of steps) assertClose(s.values, c.outputs[`${run}/${s.id}`], `${c.name} ${run} ${s.id}`);
          }
          assert.deepEqual(block.mistakes(T), c.config.runs.filter((r) => !r.includes('@')));
          block.dispose();
        }
      }
    });

    test('bad ids, steps and shapes are refused by name, and the runtime keeps working', () => {
      assert.throws(() => bs.layerNormMistake('biased', [1, 2, 3, 4]), /unknown mistake 'biased' \(expected one of correct, wrong-axis/);
      assert.throws(() => bs.layerNormMistake('no-scale', [1, 2, 3, 4]), /not a mistake LayerNorm can make/);
      assert.throws(() => bs.layerNormMistake('no-eps', [1, 2, 3], { gamma: [1, 1] }), /not a whole number of rows/);
      assert.throws(() => bs.activationMistake('exact-erf', 'gelu_tanh', [1, NaN]), /NaN/);
      const block = bs.createBlock({ emb_dim: 4, context_length: 4, n_heads: 2, drop_rate: 0, qkv_bias: false });
      const x = new Float32Array(12).fill(0.25);
      assert.throws(() => block.mistake('no-scale', x, 1, 3, { atStep: 'norm1' }), /'no-scale' cannot happen at step norm1/);
      assert.throws(() => block.mistake('correct', x, 1, 4), /block input needs B x T x emb_dim/);
      for (let i = 0; i < 50; i++) assert.throws(() => block.mistake('nope', x, 1, 3), /unknown mistake 'nope'/);
      assert.equal(block.mistake('correct', x, 1, 3).length, 7);
      block.dispose();
      const y = bs.layerNormMistake('correct', [1, 3, 5, 7]);
      assert.ok(Math.abs(y[0] + 1.3416) < 5e-5);
    });
  });
}
