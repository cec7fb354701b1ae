// The runtime's pool of workers in Chromium (web/runtime/pool.js): two trainers land on two workers and train there to
// the very curves they reach on one worker (connect({workers: 1})) and in-thread; a GPT on a third worker answers
// while both train; a worker killed in the middle is replaced alone (the other worker's objects keep working); a page
// whose CSP forbids workers runs everything in-thread.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertClean, browserSuite, openPage, widgetPage } from './support.mjs';

const pages = {};
const env = browserSuite({ pages });
const PLAIN = widgetPage(pages, '/__pool.html', '<p>no widgets</p>');
const NO_WORKERS = '/__pool-csp.html';
pages[NO_WORKERS] = { ...pages[PLAIN], headers: { 'Content-Security-Policy': "worker-src 'none'" } };

/**
 * Gives the page window.__pair(options, steps): a client connected with `options`, two GPTs of the lab's kind (pre- and
 * post-norm, the same seed) with their trainers (the same seed), trained at once for `steps` steps; returns where
 * each lives, both curves (loss, gradient norm, validation loss per step) and the client's mode.
 */
function addPair(page) {
  return page.addInitScript(() => {
    window.__pair = async (options, steps, { keep = false } = {}) => {
      const { connect } = await import('/dist/blockscope-widgets.js');
      const client = await connect(options);
      const tokens = Int32Array.from(new Uint8Array(await (await fetch('/data/brown/train.txt')).arrayBuffer()).subarray(0, 200000));
      const config = { vocab_size: 256, context_length: 32, emb_dim: 32, n_heads: 4, n_layers: 2, drop_rate: 0, qkv_bias: false };
      const gpts = [];
      for (const norm of ['pre', 'post']) gpts.push(await client.createGPT({ ...config, norm }, { seed: 7 }));
      const trainers = await Promise.all(gpts.map((g) => g.createTrainer({ tokens,
        config: { steps: Math.max(400, steps), batch_size: 4, seq_len: 32, lr: 0.01, eval_batches: 2, seed: 9 } })));
      const curves = [[], []];
      const runs = trainers.map((t, i) => t.train({ steps, evalEvery: 10,
        onStep: (s) => curves[i].push([s.step, s.loss, s.gradNorm, s.valLoss ?? null]) }));
      const result = { placed: gpts.map((g) => g.worker), trainersPlaced: trainers.map((t) => t.worker), mode: client.mode };
      if (keep) {
        window.__kept = { client, gpts, trainers, curves, runs };
        return result;
      }
      await Promise.all(runs);
      for (const o of [...trainers, ...gpts]) await o.dispose();
      return { ...result, curves };
    };
  });
}

let workerCurves = null;

test('two trainers train on two workers to the curves of one worker; a GPT on a third worker answers while both train', async () => {
  const { page, context, problems } = await openPage(env.browser);
  await addPair(page);
  await page.goto(`${env.url}__pool.html`);
  const two = await page.evaluate(() => window.__pair({ workers: 2 }, 40));
  const one = await page.evaluate(() => window.__pair({ workers: 1 }, 40));
  const inThread = await page.evaluate(() => window.__pair({ inThread: true }, 40));
  assert.deepEqual([two.placed, two.trainersPlaced, two.mode], [[0, 1], [0, 1], 'worker'], 'one run per worker');
  assert.deepEqual([one.placed, one.trainersPlaced], [[0, 0], [0, 0]], 'workers: 1 keeps both on one');
  assert.equal(page.workers().length, 3, 'two workers for the first client, one for the second');
  assert.equal(two.curves[0].length, 40);
  assert.ok(two.curves[0][39][1] < two.curves[0][0][1] - 1, `run A learns: ${two.curves[0][0][1]} -> ${two.curves[0][39][1]}`);
  assert.notDeepEqual(two.curves[0], two.curves[1], 'pre- and post-norm differ');
  assert.deepEqual(two.curves, one.curves, 'the same curves on two workers as on one, bit for bit');
  assert.deepEqual(two.curves, inThread.curves, 'and as in-thread');
  workerCurves = two.curves;

  // Three workers: while both trainers train, a third GPT lands on the idle worker and answers there.
  await page.evaluate(() => window.__pair({ workers: 3 }, 5000, { keep: true }));
  const during = await page.evaluate(async () => {
    const { client, trainers, curves } = window.__kept;
    while (curves[0].length < 3 || curves[1].length < 3) await new Promise((r) => setTimeout(r, 10));
    const gpt = await client.createGPT({ vocab_size: 256, context_length: 64, emb_dim: 64, n_heads: 4, n_layers: 2 }, { seed: 1 });
    const steps = () => curves[0].length + curves[1].length;
    const before = steps();
    const { logits } = await gpt.forward([1, 2, 3]);
    const { tokens } = await gpt.generate([1, 2, 3], { maxNewTokens: 20, temperature: 0 });
    const out = { worker: gpt.worker, running: trainers.map((t) => t.running), steps: steps() - before, logits: logits.length, tokens: tokens.length };
    await Promise.all(trainers.map((t) => t.pause()));
    await gpt.dispose();
    return out;
  });
  console.log(`# a GPT's forward pass and 20 generated tokens on worker ${during.worker} while both trainers train: ` +
    `${during.steps} training steps meanwhile`);
  assert.equal(during.worker, 2, 'the GPT went to the third worker, which held nothing');
  assert.deepEqual(during.running, [true, true], 'answered while both trainers were still training');
  assert.deepEqual([during.logits, during.tokens], [3 * 256, 20]);
  assertClean(problems);
  await context.close();
});

test("a worker killed mid-training is replaced alone: the other worker's run goes on, the lost run is refused by name", async () => {
  const { page, context, problems } = await openPage(env.browser);
  await addPair(page);
  await page.goto(`${env.url}__pool.html`);
  await page.evaluate(() => window.__pair({ workers: 2, workerUrl: '/dist/blockscope-worker.js?killed' }, 5000, { keep: true }));
  await page.evaluate(() => {
    const { client, curves } = window.__kept;
    window.__restarts = [];
    client.onRestart((info) => window.__restarts.push(info));
    return new Promise((resolve) => { const poll = () => (curves[1].length >= 3 ? resolve() : setTimeout(poll, 10)); poll(); });
  });
  const killed = page.workers().find((w) => /\?killed#.*&worker=1$/.test(w.url()));
  assert.ok(killed, `worker 1 of the client: ${page.workers().map((w) => w.url())}`);
  await killed.evaluate(() => setTimeout(() => { throw new Error('simulated crash'); }, 0));
  const after = await page.evaluate(async () => {
    const { client, gpts, trainers, curves, runs } = window.__kept;
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
    const lostRun = await runs[1].then(() => 'finished', (err) => err.message);
    while (window.__restarts.length === 0) await sleep(20);
    const stepsA = curves[0].length;
    while (curves[0].length < stepsA + 3) await sleep(10); // run A trains on
    const lost = await gpts[1].forward([1, 2]).then(() => 'answered', (err) => err.message);
    const kept = (await gpts[0].forward([1, 2])).logits.length;
    await trainers[0].pause();
    // A new run on the replaced worker trains again.
    const gpt = await client.createGPT(gpts[1].config, { seed: 7 });
    const trainer = await gpt.createTrainer({ tokens: Int32Array.from({ length: 5000 }, (_, i) => (i * 31) % 256),
      config: { steps: 3, batch_size: 2, seq_len: 16, seed: 1 } });
    const r = await trainer.train({ steps: 3 });
    for (const o of [trainer, gpt, trainers[0], gpts[0]]) await o.dispose();
    return { restarts: window.__restarts, lostRun, lost, kept, newWorker: gpt.worker, r, running: trainers[0].running };
  });
  assert.match(after.lostRun, /the Blockscope worker stopped: it failed \(.*simulated crash\)/);
  assert.equal(after.restarts.length, 1);
  assert.equal(after.restarts[0].worker, 1);
  assert.match(after.restarts[0].reason, /simulated crash/);
  assert.match(after.lost, /this GPT was lost when the runtime's worker stopped/);
  assert.equal(after.kept, 2 * 256, "worker 0's GPT still answers");
  assert.equal(after.newWorker, 1, 'the replaced worker takes the new run');
  assert.equal(after.r.steps, 3);
  assertClean({ ...problems, console: problems.console.filter((m) => !/simulated crash|worker stopped/.test(m)) });
  await context.close();
});

test("a page whose CSP forbids workers runs the pool's work in-thread, to the same curves", async () => {
  const { page, context, problems } = await openPage(env.browser);
  await addPair(page);
  await page.goto(`${env.url}${NO_WORKERS.slice(1)}`);
  const r = await page.evaluate(() => window.__pair({ workers: 2 }, 40));
  assert.deepEqual([r.mode, r.placed, r.trainersPlaced], ['in-thread', [0, 0], [0, 0]]);
  assert.equal(page.workers().length, 0);
  if (workerCurves) assert.deepEqual(r.curves, workerCurves, 'the curves the workers computed');
  assert.deepEqual(problems.console.filter((m) => !/Content Security Policy/i.test(m)), []);
  assert.deepEqual(problems.external, []);
  await context.close();
});
