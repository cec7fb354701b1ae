// Training through the wasm API, for every flavour, mirroring the native tests (test_gpt_training.cpp,
// test_trainer.cpp, test_residual_mlp.cpp): the tiny GPT's loss and every parameter gradient against PyTorch
// autograd, PyTorch's loss curves step for step, seeded sampling, per-layer gradient norms, the residual-flow
// network, bad input by name (without leaks), checkpoints and optimizer state; and SIMD vs baseline.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { loadBlockscope } from '../../web/runtime/blockscope.js';
import {
  assertClose, deviations, FLAVOURS, goldenCase, goldenCases, params, recordDeviation, reportDeviations,
} from './support.mjs';

const GRAD_REL = 1e-4; // of each gradient tensor's largest |value|, as the native test
// Small models for the sampled-training tests (test_trainer.cpp's), and a synthetic token stream.
const SMALL = { vocab_size: 16, context_length: 8, emb_dim: 8, n_heads: 2, n_layers: 1, drop_rate: 0.1 };
const stream = (n, f) => Int32Array.from({ length: n }, (_, i) => f(i));
const TOKENS = stream(300, (i) => (i * 5 + Math.floor(i / 3)) % 16);
// A bigger model (train_curve.json's size) for the cross-flavour run and the checkpoint test.
const WIDE = { vocab_size: 64, context_length: 16, emb_dim: 32, n_heads: 4, n_layers: 2, drop_rate: 0.1 };
const WIDE_TOKENS = stream(2000, (i) => (i * 7 + Math.floor(i / 5)) % 64);

/** The golden's config minus what is not a training setting (the model, the list of decayed tensors). */
function trainConfigOf(c) {
  const config = { ...c.config, val_fraction: 0 };
  delete config.model;
  delete config.decay_params;
  return config;
}

/** Step s's batch of a train_curve case: per-step windows of T ids starting at `starts`, targets shifted by one. */
function batchAt(tokens, starts, s, perStep, T) {
  const ids = new Int32Array(perStep * T);
  const targets = new Int32Array(perStep * T);
  for (let b = 0; b < perStep; b++) {
    const start = starts[s * perStep + b];
    for (let t = 0; t < T; t++) {
      ids[b * T + t] = tokens[start + t];
      targets[b * T + t] = tokens[start + t + 1];
    }
  }
  return { ids, targets };
}

/** Losses of `steps` sampled steps of a fresh model (seed 9) trained with `config`. */
function sampledLosses(bs, modelConfig, tokens, config, steps) {
  const gpt = bs.createGPT(modelConfig, { seed: 9 });
  const trainer = bs.createTrainer(gpt, { tokens, config });
  const losses = Array.from({ length: steps }, () => trainer.step().loss);
  trainer.dispose();
  gpt.dispose();
  return losses;
}

/** Asserts that fn throws a JS Error whose message matches re. */
const rejects = (fn, re) => assert.throws(fn, (e) => e instanceof Error && re.test(e.message));
const bitEqual = (a, b) => a.length === b.length && a.every((v, i) => Object.is(v, b[i]));

for (const flavour of FLAVOURS) {
  describe(`wasm ${flavour}: training`, () => {
    let bs;
    before(async () => {
      bs = await loadBlockscope({ flavour });
      assert.equal(bs.buildInfo().flavour, flavour);
    });

    test('grad_gpt.json: loss and every parameter gradient in the 10 variants without dropout (2 without residuals)', () => {
      // The *_dropout cases need PyTorch's dropout masks, which the JS API does not take (lossAndGradients
      // runs with dropout off); test_gpt_training.cpp covers them natively. Skipped here by name.
      const cases = goldenCases('grad_gpt.json').filter((c) => !c.name.endsWith('_dropout'));
      assert.equal(cases.length, 10);
      for (const c of cases) {
        assert.equal(c.config.drop_rate, 0, c.name);
        const gpt = bs.createGPT(c.config);
        gpt.loadParameters(params(c));
        const [B, T] = c.inputs.ids.shape;
        const rows = (t) => Array.from({ length: B }, (_, b) => t.data.slice(b * T, (b + 1) * T));
        const { loss, gradients } = gpt.lossAndGradients(rows(c.inputs.ids), rows(c.inputs.targets));
        assertClose([loss], c.outputs.loss, `${flavour} GPT loss`);
        assertClose([gpt.loss(rows(c.inputs.ids), rows(c.inputs.targets))], c.outputs.loss, `${flavour} GPT loss()`);
        const expected = Object.entries(c.outputs).filter(([k]) => k.startsWith('grad.'));
        assert.deepEqual(Object.keys(gradients).sort(), expected.map(([k]) => k.slice(5)).sort(), `${c.name}: gradient names`);
        // The key bias adds q . b_k to every score of a query's row, which softmax ignores: its exact gradient is
        // 0 and PyTorch's and ours are rounding noise, so it is checked against 0 at 1e-4 x the case's largest gradient.
        const largest = (data) => data.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
        const global = Math.max(...expected.map(([, t]) => largest(t.data)));
        for (const [key, t] of expected) {
          const name = key.slice(5);
          const what = `${c.name}: gradient of ${name}`;
          if (name.endsWith('W_key.bias')) {
            assertClose(gradients[name], new Float32Array(t.data.length), what, { atol: GRAD_REL * global, rtol: 0 });
            recordDeviation(`${flavour} GPT grads (key bias, 0)`, deviations.get(what));
          } else {
            assertClose(gradients[name], t, what, { atol: GRAD_REL * largest(t.data), rtol: 0 });
            recordDeviation(`${flavour} GPT grads`, deviations.get(what));
          }
          deviations.delete(what);
        }
        gpt.dispose();
      }
    });

    for (const name of ['train_pre_200', 'train_post_accum2']) {
      test(`train_curve.json ${name}: PyTorch's loss curve step for step`, () => {
        const c = goldenCase('train_curve.json', name);
        const config = trainConfigOf(c);
        const gpt = bs.createGPT(c.config.model);
        gpt.loadParameters(params(c));
        const tokens = c.inputs.tokens.data;
        const trainer = bs.createTrainer(gpt, { tokens, config });
        const [steps, perStep] = c.inputs.starts.shape;
        assert.equal(steps, config.steps);
        assert.equal(perStep, config.grad_accum * config.batch_size);
        const { losses, grad_norms: norms, lrs } = c.outputs;
        let worst50 = 0;
        let worst = 0;
        let worstNorm50 = 0;
        const problems = [];
        for (let s = 0; s < steps; s++) {
          const r = trainer.step(batchAt(tokens, c.inputs.starts.data, s, perStep, config.seq_len));
          assert.ok(r.finite, `step ${s + 1} is not finite`);
          assert.equal(r.step, s + 1);
          const d = Math.abs(r.loss - losses.data[s]);
          worst = Math.max(worst, d);
          if (Math.abs(r.lr - lrs.data[s]) > 1e-6 * lrs.data[s]) problems.push(`step ${s + 1}: lr ${r.lr}, PyTorch ${lrs.data[s]}`);
          if (s < 50) {
            worst50 = Math.max(worst50, d);
            const rel = Math.abs(r.gradNorm - norms.data[s]) / norms.data[s];
            worstNorm50 = Math.max(worstNorm50, rel);
            if (!(rel <= 1e-3)) problems.push(`step ${s + 1}: grad norm ${r.gradNorm}, PyTorch ${norms.data[s]}`);
          }
        }
        recordDeviation(`${flavour} ${name} loss, steps 1-50`, worst50);
        recordDeviation(`${flavour} ${name} loss, all ${steps}`, worst);
        console.log(`${flavour} ${name}: max |loss - PyTorch| ${worst50.toExponential(2)} over steps 1-50, ` +
          `${worst.toExponential(2)} over all ${steps}; max grad-norm relative difference (1-50) ${worstNorm50.toExponential(2)}`);
        assert.deepEqual(problems, []);
        assert.ok(worst50 <= 1e-3, `largest loss difference over the first 50 steps is ${worst50}`);
        assert.ok(worst < 1e-2, `largest loss difference over all ${steps} steps is ${worst}`);
        assert.ok(losses.data.at(-1) < losses.data[0] - 0.5); // the golden learned something
        assert.equal(trainer.stepsDone, steps);
        trainer.dispose();
        gpt.dispose();
      });
    }

    test('sampled steps are seeded; per-layer gradient norms add up; evaluate is deterministic', () => {
      const config = { steps: 5, batch_size: 3, val_fraction: 0.1 };
      const a = sampledLosses(bs, SMALL, TOKENS, { ...config, seed: 5 }, 5);
      assert.ok(a.every(Number.isFinite));
      assert.deepEqual(sampledLosses(bs, SMALL, TOKENS, { ...config, seed: 5 }, 5), a);
      assert.notDeepEqual(sampledLosses(bs, SMALL, TOKENS, { ...config, seed: 6 }, 5), a);

      const gpt = bs.createGPT({ ...SMALL, n_layers: 3, drop_rate: 0 }, { seed: 3 });
      const tokens = stream(400, (i) => (i * 7 + Math.floor(i / 5)) % 16);
      const trainer = bs.createTrainer(gpt, { tokens, config: { steps: 5, batch_size: 2, clip: 0, val_fraction: 0.1 } });
      const r = trainer.step();
      assert.deepEqual(r.layerGradNorms.map((l) => l.name), ['embeddings', 'trf_blocks.0', 'trf_blocks.1', 'trf_blocks.2', 'head']);
      const rss = Math.sqrt(r.layerGradNorms.reduce((s, l) => s + l.norm * l.norm, 0));
      assert.ok(Math.abs(rss - r.gradNorm) <= 1e-9 * r.gradNorm, `root-sum-square ${rss} vs gradNorm ${r.gradNorm}`);
      const val = trainer.evaluate();
      assert.ok(Number.isFinite(val));
      assert.equal(trainer.evaluate(), val); // fixed validation windows
      assert.ok(trainer.memoryBytes > 12 * gpt.numParameters, `memoryBytes ${trainer.memoryBytes}`);
      trainer.dispose();
      gpt.dispose();
    });

    test('residual_flow.json: y, the 8 weight-gradient norms and every gradient', () => {
      const lesson = { no_residual: [15.069, 9.787], residual: [29.272, 31.163] };
      for (const name of ['no_residual', 'residual']) {
        const c = goldenCase('residual_flow.json', name);
        const { depth, dim, activation, residual, init_std: initStd } = c.config;
        const mlp = bs.createResidualMLP({ depth, dim, activation, residual, ...(initStd == null ? {} : { init_std: initStd }) });
        assert.equal(mlp.config.residual, name === 'residual');
        mlp.loadParameters(params(c));
        assertClose(mlp.forward(c.inputs.x.data, c.inputs.x.shape[0]), c.outputs.y, `${flavour} ResidualMLP`);
        const norms = mlp.backwardSum();
        assertClose(norms, c.outputs.grad_norms, `${flavour} ResidualMLP grad norms`);
        assert.ok(Math.abs(norms[0] - lesson[name][0]) <= 5e-4 && Math.abs(norms[7] - lesson[name][1]) <= 5e-4,
          `${name}: the lesson prints L1=${lesson[name][0]}, L8=${lesson[name][1]}; got ${norms[0]}, ${norms[7]}`);
        const grads = Object.entries(c.outputs).filter(([k]) => k.startsWith('grad.'));
        assert.equal(grads.length, 16);
        for (const [key, t] of grads) assertClose(mlp.getGradient(key.slice(5)), t, `${flavour} ResidualMLP backward`);
        mlp.dispose();
      }
    });

    describe('bad input', () => {
      let gpt;
      before(() => {
        gpt = bs.createGPT({ ...SMALL, drop_rate: 0 }, { seed: 1 });
      });
      const stillWorks = () => {
        const r = gpt.lossAndGradients([1, 2, 3, 4], [2, 3, 4, 5]);
        assert.ok(Number.isFinite(r.loss));
        assert.equal(r.gradients['tok_emb.weight'].length, 16 * 8);
        const trainer = bs.createTrainer(gpt, { tokens: TOKENS, config: { steps: 2, batch_size: 2 } });
        assert.ok(trainer.step().finite);
        trainer.dispose();
      };

      test('lossAndGradients: targets of the wrong length, target ids outside the vocabulary', () => {
        rejects(() => gpt.lossAndGradients([1, 2, 3, 4], [1, 2, 3]), /targets are 1 x 3, the ids 1 x 4/);
        rejects(() => gpt.lossAndGradients([[1, 2], [3, 4]], [1, 2, 3, 4]), /targets are 1 x 4, the ids 2 x 2/);
        rejects(() => gpt.lossAndGradients([1, 2, 3, 4], [1, 2, 3, 16]),
          /target id 16 at position 3 is outside the vocabulary \[0, 16\)/);
        rejects(() => gpt.lossAndGradients([1, 2, -1, 4], [1, 2, 3, 4]), /token id -1 at position 2/);
        rejects(() => gpt.loss([1, 2, 3, 4], [1, 2, 3]), /targets are 1 x 3, the ids 1 x 4/);
        rejects(() => gpt.loss([1, 2, 3, 4], [1, 2, 3, 16]), /target id 16 at position 3 is outside the vocabulary/);
        rejects(() => gpt.loss([1, 2, 99, 4], [1, 2, 3, 4]), /99/);
        stillWorks();
      });

      test('trainer configs and data are rejected by name', () => {
        const make = (config, tokens = TOKENS) => () => bs.createTrainer(gpt, { tokens, config });
        rejects(make({ lr: 0 }), /learning rate must be a positive number, got 0/);
        rejects(make({ steps: 0 }), /steps must be at least 1, got 0/);
        rejects(make({ stepz: 3 }), /unknown config key 'stepz'/);
        rejects(make({ seq_len: 8 }, TOKENS.slice(0, 8)), /the training data has 8 tokens; a sequence length of 8 needs at least 9/);
        rejects(make({ seq_len: 9 }), /seq_len 9 exceeds the model's context_length 8/);
        rejects(make({}, [1, 2, 16, 3, 4, 5, 6, 7, 8, 9]), /token id 16 at position 2 of the training data is outside the vocabulary/);
        const trainer = bs.createTrainer(gpt, { tokens: TOKENS, config: { steps: 3, batch_size: 2, val_fraction: 0 } });
        rejects(() => trainer.step({ ids: new Int32Array(2), targets: new Int32Array(2) }),
          /a step needs grad_accum x batch_size x seq_len = 1 x 2 x 8 token ids/);
        rejects(() => trainer.evaluate(), /there is no validation data/);
        assert.equal(trainer.stepsDone, 0);
        trainer.dispose();
        stillWorks();
      });

      test('a trainer dies with its GPT', () => {
        const own = bs.createGPT(SMALL);
        const trainer = bs.createTrainer(own, { tokens: TOKENS, config: { steps: 2, batch_size: 2 } });
        assert.ok(trainer.step().finite);
        own.dispose();
        assert.ok(trainer.disposed);
        rejects(() => trainer.step(), /has been disposed/);
        rejects(() => trainer.stepsDone, /has been disposed/);
        rejects(() => bs.createTrainer(own, { tokens: TOKENS }), /has been disposed/);
        trainer.dispose(); // a second dispose is harmless
        stillWorks();
      });

      test('200 failing createTrainer calls leak nothing', () => {
        // Also the handle's own storage: a failing constructor's JS Error must not unwind past embind's `new`.
        const failing = [
          { tokens: TOKENS, config: { lr: 0 } }, // the config
          { tokens: TOKENS.slice(0, 5), config: { seq_len: 8 } }, // the data
          { tokens: TOKENS, config: { seq_len: 9 } }, // the trainer, after the data was copied
          { tokens: TOKENS, config: { steps: 5, warmup: 9 } },
        ];
        const call = (i) => assert.throws(() => bs.createTrainer(gpt, failing[i % failing.length]));
        for (let i = 0; i < 20; i++) call(i); // warm up
        const before = bs.memoryStats();
        for (let i = 0; i < 200; i++) call(i);
        const afterStats = bs.memoryStats();
        const grown = afterStats.allocatedBytes - before.allocatedBytes;
        assert.equal(grown, 0, `malloc'd bytes grew by ${grown} (${grown / 200} per failing call)`);
        assert.equal(afterStats.heapBytes, before.heapBytes, 'wasm memory grew');
        stillWorks();
      });

      after(() => gpt.dispose());
    });

    test('checkpoints: a trained model saves and loads bit for bit; optimizer state round trip', async () => {
      const config = { steps: 6, batch_size: 4, lr: 3e-3, val_fraction: 0 };
      const gpt = bs.createGPT({ ...WIDE, drop_rate: 0 }, { seed: 4 });
      const trainer = bs.createTrainer(gpt, { tokens: WIDE_TOKENS, config });
      for (let s = 0; s < 3; s++) assert.ok(trainer.step().finite);
      const ids = [[1, 5, 9, 33, 63, 0, 2], [7, 7, 40, 12, 3, 60, 61]];
      const logits = gpt.forward(ids).logits;

      const book = gpt.save();
      assert.equal(book.layout, 'book');
      const loaded = await bs.loadModel({ config: book.config, weights: book.weights });
      assert.ok(bitEqual(loaded.forward(ids).logits, logits), 'book-layout reload changed the logits');
      for (const { name } of gpt.parameters()) assert.ok(bitEqual(loaded.getParameter(name), gpt.getParameter(name)), name);

      const hf = gpt.save({ layout: 'huggingface' });
      assert.equal(hf.layout, 'huggingface');
      assert.equal(JSON.parse(hf.config).model_type, 'gpt2');
      const fromHf = await bs.loadModel({ config: hf.config, weights: hf.weights });
      assert.equal(fromHf.config.norm, 'pre');
      assert.ok(bitEqual(fromHf.forward(ids).logits, logits), 'Hugging Face-layout reload changed the logits');
      fromHf.dispose();

      // AdamW's state moves to a trainer of the reloaded model, which then takes the very same step.
      const state = trainer.saveOptimizerState();
      const resumed = bs.createTrainer(loaded, { tokens: WIDE_TOKENS, config });
      assert.equal(resumed.stepsDone, 0);
      resumed.loadOptimizerState(state);
      assert.equal(resumed.stepsDone, 3);
      const batch = batchAt(WIDE_TOKENS, [10, 200, 431, 999], 0, 4, 16);
      const r1 = trainer.step(batch);
      const r2 = resumed.step(batch);
      assert.deepEqual([r2.step, r2.loss, r2.lr, r2.gradNorm], [r1.step, r1.loss, r1.lr, r1.gradNorm]);
      assert.equal(r2.step, 4);
      assert.ok(bitEqual(loaded.forward(ids).logits, gpt.forward(ids).logits), 'the resumed step updated differently');
      assert.throws(() => resumed.loadOptimizerState(new Uint8Array(10)), Error);
      assert.equal(resumed.stepsDone, 4);
      resumed.dispose();
      loaded.dispose();
      trainer.dispose();
      gpt.dispose();
    });

    after(() => reportDeviations(flavour));
  });
}

test('SIMD and baseline train alike: 20 sampled steps', async () => {
  const runs = [];
  for (const flavour of FLAVOURS) {
    const bs = await loadBlockscope({ flavour });
    runs.push(sampledLosses(bs, WIDE, WIDE_TOKENS, { steps: 20, batch_size: 4, lr: 3e-3, warmup: 2, seed: 11, val_fraction: 0 }, 20));
  }
  const [simd, base] = runs;
  const diffs = simd.map((l, i) => Math.abs(l - base[i]));
  const worst = Math.max(...diffs);
  console.log(`max |loss_simd - loss_baseline| over 20 steps: ${worst.toExponential(3)}` +
    (worst === 0 ? ' (bit-identical)' : '') + `; losses ${simd[0].toFixed(4)} -> ${simd[19].toFixed(4)}`);
  assert.ok(simd.every(Number.isFinite) && base.every(Number.isFinite));
  assert.ok(simd[19] < simd[0], 'the 20 steps did not lower the loss');
  assert.ok(worst < 1e-4, `SIMD and baseline losses differ by up to ${worst}`);
});
