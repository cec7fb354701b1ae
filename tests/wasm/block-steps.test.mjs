// The block's steps are declared once, in the core (core/src/transformer_block.cpp's step lists); <block-explorer>'s
// descriptions (web/widgets/block-explorer/block-steps.js) are keyed by the core's step ids. This fails when the two
// disagree: a step the widget does not describe, a description of a step the core does not record, another order.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { STEPS, stepInfo } from '../../web/widgets/block-explorer/block-steps.js';

let bs;
before(async () => { bs = await loadBlockscope({ flavour: 'simd' }); });
after(() => bs?.dispose?.());

const CONFIG = { emb_dim: 8, context_length: 4, n_heads: 2, drop_rate: 0, qkv_bias: false };
const x = Float32Array.from({ length: 2 * 3 * 8 }, (_, i) => Math.sin(i));

function recordedSteps(config) {
  const block = bs.createBlock(config);
  try {
    return block.forward(x, 2, 3).inspection.steps;
  } finally {
    block.dispose();
  }
}

for (const norm of ['pre', 'post']) {
  test(`${norm}-norm: the widget describes exactly the core's steps, in the core's order`, () => {
    const steps = recordedSteps({ ...CONFIG, norm });
    assert.deepEqual(steps.map((s) => s.id), STEPS[norm].map((s) => s.id));
    assert.deepEqual(steps.map((s) => s.op), STEPS[norm].map((s) => s.op));
    // Every step's statistics are per token.
    for (const s of steps) assert.equal(s.norm.length, 6, s.id);
    assert.ok(stepInfo(norm, steps).every((info, k) => info === STEPS[norm][k]));
  });

  test(`${norm}-norm without shortcuts: same step ids, the additions named as recorded`, () => {
    const steps = recordedSteps({ ...CONFIG, norm, residual: false });
    assert.deepEqual(steps.map((s) => s.id), STEPS[norm].map((s) => s.id));
    const info = stepInfo(norm, steps);
    for (const k of steps.keys()) {
      if (!steps[k].id.startsWith('add')) continue;
      assert.equal(steps[k].op, 'no shortcut');
      assert.deepEqual(info[k].code, ['no shortcut']);
      assert.equal(info[k].stream, STEPS[norm][k].stream, 'still drawn on the residual lane');
    }
  });
}
