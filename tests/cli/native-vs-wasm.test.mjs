// The same training run natively (blockscope train) and in both wasm flavours (Trainer in web/runtime/blockscope.js):
// same weights, seed, data split and schedule give the same losses step by step. Not bit for bit: native
// matrix products go through Eigen (SSE), wasm SIMD through the hand-written SIMD128 kernels and wasm baseline
// through Eigen's scalar code, which sum in different orders; the test prints the largest difference.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { englishText, initTiny, jsonLines, ok, scratch, writeText } from './support.mjs';

const STEPS = 15;

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
  const config = { ...summary.config };
  delete config.eval_every;
  const tokens = Array.from(new TextEncoder().encode(text)); // the byte tokenizer: one id per byte
  for (const flavour of ['simd', 'baseline']) {
    const bs = await loadBlockscope({ flavour });
    const gpt = await bs.loadModel({
      config: readFileSync(join(model, 'config.json'), 'utf8'),
      weights: readFileSync(join(model, 'model.safetensors')),
    });
    const trainer = bs.createTrainer(gpt, { tokens, config });
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
