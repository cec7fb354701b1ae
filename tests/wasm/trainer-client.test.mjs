// The worker protocol's trainer (web/runtime/client.js + web/runtime/runtime-host.js), driven in Node through the in-thread
// host: train() streams steps, another object's call is served between two steps, pause() stops after the
// step in progress and resume() finishes the remaining steps; disposal frees the trainer.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { connect } from '../../web/runtime/client.js';

const CONFIG = { vocab_size: 32, context_length: 16, emb_dim: 32, n_heads: 4, n_layers: 2, drop_rate: 0 };
const tokens = Array.from({ length: 3000 }, (_, i) => (i * 7 + Math.floor(i / 5)) % 32);
let client;
let gpt;
let other;

before(async () => {
  client = await connect({ inThread: true, flavour: 'simd' });
  assert.equal(client.mode, 'in-thread');
  gpt = await client.createGPT(CONFIG, { seed: 1 });
  other = await client.createGPT(CONFIG, { seed: 2 });
});
after(async () => {
  await other?.dispose();
  await gpt?.dispose();
});

test('train() streams every step and the loss goes down', async () => {
  const trainer = await gpt.createTrainer({ tokens, config: { steps: 40, batch_size: 4, lr: 3e-3, seed: 3 } });
  assert.ok(trainer.memoryBytes > 0);
  const seen = [];
  const r = await trainer.train({ steps: 40, evalEvery: 20, onStep: (s) => seen.push(s) });
  assert.deepEqual(r, { steps: 40, stepsDone: 40, reason: 'steps' });
  assert.deepEqual(seen.map((s) => s.step), Array.from({ length: 40 }, (_, i) => i + 1));
  assert.ok(seen.every((s) => s.finite && Number.isFinite(s.gradNorm) && s.layerGradNorms.length === 4));
  assert.equal(typeof seen[19].valLoss, 'number');
  assert.equal(seen[18].valLoss, undefined);
  assert.ok(seen.at(-1).loss < seen[0].loss - 0.3, `loss ${seen[0].loss} -> ${seen.at(-1).loss}`);
  assert.equal(trainer.stepsDone, 40);
  await trainer.dispose();
});

test("another widget's forward pass is served between two training steps", async () => {
  const trainer = await gpt.createTrainer({ tokens, config: { steps: 200, batch_size: 8, seed: 4 } });
  let stepsSeen = 0;
  const training = trainer.train({ steps: 60, onStep: () => stepsSeen++ });
  while (stepsSeen < 2) await new Promise((resolve) => setTimeout(resolve, 5));
  // Counted in training steps, not milliseconds (a loaded machine stretches both alike). The host serves the call
  // after the step in progress; by the reply, at most that step and one finished just before the call (its
  // notification still on its way) have been reported. Without the yield between steps it would wait for all 60.
  const stepsBefore = stepsSeen;
  const { logits } = await other.forward([1, 2, 3]);
  const stepsWaited = stepsSeen - stepsBefore;
  assert.ok(trainer.running, 'the forward pass was answered while training was still running');
  assert.equal(logits.length, 3 * 32);
  assert.ok(stepsWaited <= 2, `the forward pass waited for ${stepsWaited} training steps`);
  const done = await training;
  assert.equal(done.steps, 60);
  await trainer.dispose();
});

test('pause() stops after the current step and resume() finishes the remaining steps', async () => {
  const trainer = await gpt.createTrainer({ tokens, config: { steps: 50, batch_size: 2, seed: 5 } });
  const steps = [];
  const first = trainer.train({ steps: 30, onStep: (s) => steps.push(s.step) });
  while (steps.length < 5) await new Promise((resolve) => setTimeout(resolve, 5));
  await trainer.pause();
  const paused = await first;
  assert.equal(paused.reason, 'cancelled');
  assert.ok(paused.steps >= 5 && paused.steps < 30, `paused after ${paused.steps} steps`);
  assert.equal(trainer.running, false);
  const rest = await trainer.resume();
  assert.equal(rest.reason, 'steps');
  assert.equal(paused.steps + rest.steps, 30);
  assert.deepEqual(steps, Array.from({ length: 30 }, (_, i) => i + 1));
  const again = trainer.train({ steps: 2 });
  await assert.rejects(trainer.train({ steps: 1 }), /already training/);
  await again;
  await trainer.dispose();
  await assert.rejects(trainer.step(), /disposed/);
});

test('bad trainer options are reported by name and the runtime keeps working', async () => {
  await assert.rejects(gpt.createTrainer({ tokens, config: { lr: 0 } }), /learning rate must be a positive number/);
  await assert.rejects(gpt.createTrainer({ tokens: [1, 2, 3], config: { seq_len: 8 } }), /needs at least 9/);
  await assert.rejects(gpt.createTrainer({ tokens, config: { seq_len: 99 } }), /exceeds the model's context_length 16/);
  const { logits } = await gpt.forward([1, 2]);
  assert.equal(logits.length, 64);
});

test('a step split into micro-batches (grad_accum) lets other calls in between its pieces', async () => {
  const trainer = await gpt.createTrainer({ tokens, config: { steps: 20, batch_size: 2, grad_accum: 4, seed: 6 } });
  let stepsSeen = 0;
  const training = trainer.train({ steps: 6, onStep: () => stepsSeen++ });
  await new Promise((resolve) => setTimeout(resolve, 5));
  const before = stepsSeen;
  await other.forward([3, 4]);
  // Served while the first steps were still running, not after all 6.
  assert.ok(stepsSeen - before <= 1, `${stepsSeen - before} steps completed while the forward pass waited`);
  const r = await training;
  assert.equal(r.steps, 6);
  await trainer.dispose();
});

test('the core stops a run: a loss ceiling, counted across train() calls, and divergence with its rollback', async () => {
  const trainer = await gpt.createTrainer({ tokens, config: { steps: 50, batch_size: 2, seed: 7 } });
  // Every loss is above -1: with one update per call (as the training lab trains) the stretch still adds up.
  const stopAbove = { loss: -1, steps: 3, after: 1 };
  const events = [];
  const results = [];
  for (let i = 0; i < 6 && results.at(-1)?.reason !== 'loss_above'; i++) {
    results.push(await trainer.train({ steps: 1, stopAbove, onStep: (s) => events.push(s) }));
  }
  assert.deepEqual(results.map((r) => r.reason), ['steps', 'steps', 'steps', 'loss_above']);
  assert.deepEqual(results.at(-1), { steps: 1, stepsDone: 4, reason: 'loss_above', divergedAt: 2, rolledBack: false, weightsStep: 4 });
  assert.equal(events.at(-1).stop, 'loss_above');
  assert.equal(events.at(-2).stop, undefined);
  await trainer.dispose();

  const wild = await client.createGPT(CONFIG, { seed: 9 });
  const diverging = await wild.createTrainer({ tokens, config: { steps: 50, batch_size: 2, lr: 1e6, clip: 0, seed: 7 } });
  const seen = [];
  const r = await diverging.train({ steps: 50, onStep: (s) => seen.push(s) });
  assert.equal(r.reason, 'diverged');
  assert.equal(r.divergedAt, seen.at(-1).step);
  assert.equal(seen.at(-1).finite, false);
  assert.equal(seen.at(-1).stop, 'diverged');
  assert.ok(seen.slice(0, -1).every((s) => s.finite));
  assert.equal(r.rolledBack, r.divergedAt >= 2);
  assert.equal(r.weightsStep, r.rolledBack ? r.divergedAt - 2 : r.divergedAt - 1);
  const logits = (await wild.forward([1, 2, 3])).logits;
  assert.ok(logits.every(Number.isFinite), 'the weights kept give finite logits');
  await diverging.dispose();
  await wild.dispose();
});
