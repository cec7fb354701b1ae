// The learners' LayerNorm mistakes through the runtime, in both flavours and through the page client: the same
// PyTorch goldens as tests/unit/test_mistakes.cpp (tests/golden/layer_norm_variants.json, PyTorch running each
// mistaken formula), the core's id list, and a bad id refused with the ids named.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { assertClose, FLAVOURS, goldenCases } from './support.mjs';

const IDS = ['correct', 'wrong-axis', 'unbiased-variance', 'eps-outside-sqrt', 'no-eps', 'no-affine'];

for (const flavour of FLAVOURS) {
  describe(`LayerNorm variants (${flavour})`, () => {
    let bs;
    before(async () => { bs = await loadBlockscope({ flavour }); });
    after(() => bs?.dispose?.());

    test('the core lists every variant, correct first', () => {
      assert.deepEqual(bs.layerNormVariants(), IDS);
    });

    test('every variant equals PyTorch running that mistake', () => {
      const cases = goldenCases('layer_norm_variants.json');
      assert.equal(cases.length, 3 * IDS.length);
      for (const c of cases) {
        const y = bs.layerNormVariant(c.config.variant, Float32Array.from(c.inputs.x.data), {
          gamma: Float32Array.from(c.params.gamma.data), beta: Float32Array.from(c.params.beta.data), eps: c.config.eps,
        });
        assertClose(y, c.outputs.y, c.name);
      }
    });

    test('an unknown variant is refused naming the ids, and the runtime keeps working', () => {
      assert.throws(() => bs.layerNormVariant('biased', [1, 2, 3, 4]), /unknown LayerNorm variant 'biased' \(expected correct, wrong-axis/);
      assert.throws(() => bs.layerNormVariant('no-eps', [1, 2, 3], { gamma: [1, 1] }), /not a whole number of rows/);
      const y = bs.layerNormVariant('correct', [1, 3, 5, 7]);
      assert.ok(Math.abs(y[0] + 1.3416) < 5e-5);
    });
  });
}
