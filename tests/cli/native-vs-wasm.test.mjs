// The same training run natively (blockscope train) and in every wasm flavour (Trainer in web/runtime/blockscope.js):
// same weights, seed, data split and schedule give the same losses step by step. Not bit for bit: native
// matrix products go through Eigen (SSE), wasm SIMD through the hand-written SIMD128 kernels (simd-relaxed: the same
// with fused multiply-adds) and wasm baseline through Eigen's scalar code, which sum in different orders; the test
// prints the largest difference.
// A diverging run goes through the one training loop (the core's TrainingRun) everywhere: it stops at the same
// step and ends with the same weights, bit for bit.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { FLAVOURS } from '../wasm/support.mjs';
import { englishText, initTiny, jsonLines, ok, readSafetensors, run, scratch, writeText } from './support.mjs';

const STEPS = 15;

/** The CLI run's model directory loaded in a wasm flavour, with a Trainer for `text` under the CLI summary's config. */
async function wasmTrainer(flavour, model, text, summary) {
  const config = { ...summary.config };
  delete config.eval_every;
  const tokens = Array.from(new TextEncoder().encode(text)); // the byte tokenizer: one id per byte
  const bs = await loadBlockscope({ flavour });
  const gpt = await bs.loadModel({
    config: readFileSync(join(model, 'config.json'), 'utf8'),
    weights: readFileSync(join(model, 'model.safetensors')),
  });
  return { gpt, trainer: bs.createTrainer(gpt, { tokens, config }) };
}

test('native and wasm training give the same loss curve for the same seed', async () => {
  const work = scratch('native-wasm');
  const text = englishText();
  const textPath = writeText(join(work, 'text.txt'), text);
  const model = initTiny(join(work, 'model'), { seed: 11 });
  const args = ['--steps', String(STEPS), '--batch-size', '4', '--lr', '3e-3', '--warmup', '3', '--seed', '5'];
  const native = jsonLines(ok('train', '--model', model, '--data', textPath, '--out', join(work, 'out'), '--json', ...args))
    .filter((l) => !l.done);
  assert.equal(native.length, STEPS);
  const summary = jsonLines(ok('train', '--model', model, '--data', textPath, '--out', join(work, 'out2'), '--json', ...args))
    .at(-1);
  for (const flavour of FLAVOURS) {
    const { gpt, trainer } = await wasmTrainer(flavour, model, text, summary);
    let worst = 0;
    for (let s = 0; s < STEPS; s++) {
      const r = trainer.step();
      assert.equal(r.step, native[s].step);
      assert.ok(Math.abs(r.lr - native[s].lr) <= 1e-12, `lr at step ${r.step}`);
      worst = Math.max(worst, Math.abs(r.loss - native[s].loss));
    }
    console.log(`wasm ${flavour} vs native: largest loss difference over ${STEPS} steps ${worst.toExponential(2)}`);
    assert.ok(worst < 1e-4, `wasm ${flavour} drifts from native by ${worst}`);
    gpt.dispose();
  }
});

test('a diverging run stops at the same step with the same weights natively and in every wasm flavour', async () => {
  // lr 1e10: update 1 (every weight moved by about the learning rate) makes update 2's loss non-finite. The rule
  // keeps the weights after update 0 — those that gave update 1's finite loss — rather than the ones after
  // update 1 that produced the NaN (which the page used to keep). Weights after a real update cannot be compared
  // bit for bit (the platforms sum in different orders), the rule's choice can.
  const work = scratch('native-wasm-diverge');
  const text = englishText();
  const textPath = writeText(join(work, 'text.txt'), text);
  const model = initTiny(join(work, 'model'), { seed: 11 });
  const out = join(work, 'out');
  const r = run('train', '--model', model, '--data', textPath, '--out', out, '--json', '--steps', '30', '--batch-size', '4',
    '--lr', '1e10', '--seed', '5');
  assert.equal(r.code, 3, r.stderr);
  const lines = jsonLines(r.stdout);
  const summary = lines.at(-1);
  const bad = lines.filter((l) => !l.done).at(-1);
  assert.equal(summary.stop, 'diverged');
  assert.equal(bad.finite, false);
  assert.equal(bad.step, 2);
  assert.equal(summary.steps, 0);
  console.log(`native: diverged at step ${bad.step} (loss ${bad.loss}), kept the weights after step ${summary.steps}`);
  const native = readSafetensors(join(out, 'model.safetensors')).tensors;
  for (const flavour of FLAVOURS) {
    const { gpt, trainer } = await wasmTrainer(flavour, model, text, summary);
    const result = trainer.train({ steps: 30 });
    assert.equal(result.reason, 'diverged', flavour);
    assert.equal(result.divergedAt, bad.step, `${flavour}: the step that diverged`);
    assert.equal(result.results.at(-1).step, bad.step);
    assert.equal(result.weightsStep, summary.steps, `${flavour}: the weights kept`);
    const saved = join(work, `${flavour}.safetensors`);
    writeFileSync(saved, gpt.save().weights);
    const mine = readSafetensors(saved).tensors;
    assert.deepEqual(Object.keys(mine).sort(), Object.keys(native).sort());
    for (const [name, t] of Object.entries(native)) {
      const differing = t.data.reduce((n, v, i) => n + (Object.is(v, mine[name].data[i]) ? 0 : 1), 0);
      assert.equal(differing, 0, `${flavour} ${name}: ${differing} of ${t.data.length} values differ from native`);
    }
    gpt.dispose();
  }
});
