// What the lesson page and <training-lab> say about the lab's default runs, asserted: the lab's own configs
// (web/widgets/training-lab/training-lab-runs.js: 6 blocks, d_model 48, context 64, batch 8, its schedule and
// clipping), its corpus (web/data/brown/) and seeds, trained by the core in Node. The sentences these numbers back
// are in web/index.html ("Pre-norm or post-norm? Train both and see") and training-lab-text.js; if a change to the
// core or the lab moves them, this fails and the texts must be measured again. About two minutes of training.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';

import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { COMPARISONS, gptConfig, trainConfig } from '../../web/widgets/training-lab/training-lab-runs.js';

const corpus = (name) => Int32Array.from(readFileSync(new URL(`../../web/data/brown/${name}`, import.meta.url)));
let bs;
let data;
before(async () => {
  bs = await loadBlockscope({ flavour: 'simd' });
  data = { tokens: corpus('train.txt'), validationTokens: corpus('val.txt') };
});
after(() => bs?.dispose?.());

/** Both sides of a comparison: each run's training losses and its final validation loss. */
function runBoth(comparison, { lr = 0.015, steps = 600, layers = 6, warmup = 0 } = {}) {
  const shared = { lr, steps, layers, embDim: 48, warmup, seed: 123 };
  return Object.fromEntries(['a', 'b'].map((key) => {
    const side = COMPARISONS[comparison][key];
    const gpt = bs.createGPT(gptConfig(side, shared), { seed: shared.seed });
    try {
      const trainer = gpt.createTrainer({ ...data, config: trainConfig(side, shared) });
      const { results } = trainer.train({ steps });
      return [key, { label: side.label, losses: results.map((r) => r.loss), val: trainer.evaluate() }];
    } finally {
      gpt.dispose();
    }
  }));
}

test('at the default learning rate (0.015) post-norm stops learning within its first ten or so steps near 3.1; pre-norm reaches about 2.4', () => {
  const { a: pre, b: post } = runBoth('norm');
  const msg = `pre ${pre.val.toFixed(3)}, post ${post.val.toFixed(3)}, post at step 10 ${post.losses[9].toFixed(3)}`;
  assert.ok(Math.abs(post.val - 3.1) < 0.1, msg);                  // "its loss stays near 3.1 nats"
  assert.ok(post.losses[9] - post.val < 0.2, msg);                 // at step 10 it is already within 0.2 of where it ends
  assert.ok(Math.abs(pre.val - 2.4) < 0.1, msg);                   // "the pre-norm model goes on to about 2.4"
  assert.ok(pre.losses[9] - pre.val > 0.5, msg);                   // pre-norm keeps learning after step 10
});

test('at 0.007 both train (post-norm about as well as pre-norm)', () => {
  const { a: pre, b: post } = runBoth('norm', { lr: 0.007, steps: 300 });
  const msg = `pre ${pre.val.toFixed(3)}, post ${post.val.toFixed(3)}`;
  assert.ok(pre.val < 2.6 && post.val < 2.6, msg);
  assert.ok(Math.abs(pre.val - post.val) < 0.05, msg);
});

test('60 steps of warmup rescue post-norm at 0.015', () => {
  const { a: warm, b: cold } = runBoth('warmup');
  const msg = `warmup ${warm.val.toFixed(3)}, none ${cold.val.toFixed(3)}`;
  assert.ok(warm.val < 2.6, msg);
  assert.ok(cold.val > 3.0, msg);
});

test('with 2 blocks the difference almost disappears', () => {
  const { a: pre, b: post } = runBoth('norm', { layers: 2 });
  const msg = `pre ${pre.val.toFixed(3)}, post ${post.val.toFixed(3)}`;
  assert.ok(Math.abs(pre.val - post.val) < 0.1, msg);
  assert.ok(post.val < 2.7, msg);
});
