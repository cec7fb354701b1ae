// The logit lens, head ablation and attribution through the wasm runtime (every flavour) and the page client,
// against PyTorch (tests/golden/interpret.json, tests/reference/make_interpret_goldens.py): the tiny golden GPT and
// the shipped trained model, lens and ablated logits within 1e-4, attributions within 1e-4 of each vector's scale.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { connect } from '../../web/runtime/client.js';
import { FLAVOURS } from './support.mjs';

const golden = JSON.parse(readFileSync(new URL('../golden/interpret.json', import.meta.url), 'utf8'));
const dirs = { book_tiny: new URL('../golden/models/book_tiny/', import.meta.url), brown: new URL('../../web/models/brown/', import.meta.url) };
const source = (name) => ({ config: readFileSync(new URL('config.json', dirs[name]), 'utf8'), weights: readFileSync(new URL('model.safetensors', dirs[name])) });

function maxDiff(actual, expected) {
  const e = expected.flat(Infinity);
  assert.equal(actual.length, e.length);
  let worst = 0;
  for (let i = 0; i < e.length; i++) worst = Math.max(worst, Math.abs(actual[i] - e[i]));
  return worst;
}
const scale = (v) => Math.max(...v.map(Math.abs));

/** Every golden comparison on one model (runtime or page-client proxy: `await` works on both). */
async function check(gpt, c, what) {
  const lens = await gpt.logitLens(c.ids, { target: c.target });
  // The target's probability at each layer and position: softmax of PyTorch's lens rows.
  const probs = c.lens.flatMap((layer) => layer.map((row) => {
    const top = Math.max(...row);
    const z = row.reduce((s, v) => s + Math.exp(v - top), 0);
    return Math.exp(row[c.target] - top) / z;
  }));
  assert.ok(maxDiff(lens.probabilities, probs) <= 1e-5, `${what}: lens probabilities`);
  assert.deepEqual(lens.shape, [c.lens.length, c.ids.length, c.lens[0][0].length]);
  assert.ok(maxDiff(lens.logits, c.lens) <= 1e-4, `${what}: logit lens off by ${maxDiff(lens.logits, c.lens)}`);
  for (const a of c.ablations) {
    await gpt.setHeadAblation(a.heads, { mode: a.mode });
    const { logits } = await gpt.forward(c.ids);
    assert.ok(maxDiff(logits, a.logits) <= 1e-4, `${what}: logits with ${a.heads} (${a.mode}) off by ${maxDiff(logits, a.logits)}`);
    const attr = await gpt.attribute(c.ids, c.target);
    assert.ok(maxDiff(attr, a.attribution) <= 1e-4 * scale(a.attribution), `${what}: attribution through ablated heads`);
    await gpt.setHeadAblation([]);
  }
  for (const a of c.attributions) {
    const v = await gpt.attribute(c.ids, c.target, { method: a.method, objective: a.objective, steps: a.steps });
    assert.ok(maxDiff(v, a.values) <= 1e-4 * scale(a.values), `${what}: ${a.method} of the ${a.objective} off by ${maxDiff(v, a.values)}`);
  }
}

for (const flavour of FLAVOURS) {
  test(`wasm ${flavour}: logit lens, ablation and attribution equal PyTorch's`, async () => {
    const bs = await loadBlockscope({ flavour });
    for (const c of golden.cases) {
      const gpt = await bs.loadModel(source(c.name));
      await check(gpt, c, `${flavour} ${c.name}`);
      gpt.dispose();
    }
  });
}

test('the page client serves the same (ablation pairs and strings alike), and bad requests say what is wrong', async () => {
  const client = await connect({ inThread: true });
  const c = golden.cases[0];
  const gpt = await client.loadModel(source(c.name));
  await check(gpt, c, 'client');
  const pairs = c.ablations[0].heads.map((h) => h.split('.').map(Number));
  await gpt.setHeadAblation(pairs, { mode: c.ablations[0].mode });
  assert.ok(maxDiff((await gpt.forward(c.ids)).logits, c.ablations[0].logits) <= 1e-4, '[block, head] pairs');
  await assert.rejects(gpt.setHeadAblation(['2.0']), /head '2\.0': block 2 is outside the model's \[0, 2\)/);
  await assert.rejects(gpt.setHeadAblation(['0.1'], { mode: 'half' }), /head ablation 'half' is not 'zero' or 'mean'/);
  await assert.rejects(gpt.setHeadAblation('0.1'), /heads must be an array/);
  await assert.rejects(gpt.attribute(c.ids, 60), /target id 60 is outside the vocabulary \[0, 60\)/);
  await assert.rejects(gpt.attribute(c.ids, 1, { method: 'saliency' }), /'saliency' is not 'grad-x-input'/);
  await assert.rejects(gpt.attribute(c.ids, 1, { steps: 2.5 }), /steps/);
  await assert.rejects(gpt.attribute(c.ids, 1, { colour: 'red' }), /colour/);
  await assert.rejects(gpt.logitLens([[1, 2], [3, 4]]), /the logit lens reads one sequence, got a batch of 2/);
  await gpt.setHeadAblation([]);
  assert.ok(maxDiff((await gpt.forward(c.ids)).logits, c.lens.at(-1)) <= 1e-4, 'restored');
  await gpt.dispose();
});
