// Lifecycles in Chromium: widgets inserted and removed faster than they finish building (a page that re-renders, a
// learner paging through slides) while the training lab trains free everything they asked the worker for — the
// worker's malloc'd bytes stay flat over 1,000 rounds —; and the lab keeps training meanwhile.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { addWidgetChurn, assertClean, browserSuite, openPage } from './support.mjs';

const env = browserSuite();
const MiB = 2 ** 20;

test('1,000 widgets removed 5–35 ms after insertion leak nothing in the worker while the lab trains', async () => {
  const { page, context, problems } = await openPage(env.browser);
  await addWidgetChurn(page);
  await page.addInitScript(() => {
    window.__steps = 0;
    document.addEventListener('blockscope-train-step', () => window.__steps++);
  });
  await page.goto(`${env.url}examples/training-lab.html#training-lab.layers=2&training-lab.steps=5000`);
  await page.waitForFunction(() => document.querySelector('training-lab')?.dataset.state === 'ready', null, { timeout: 60000 });
  await page.click('training-lab button.play');
  const churn = (rounds) => page.evaluate(async (n) => {
    for (let i = 0; i < n; i++) await window.__churnOne(i);
  }, rounds);
  const allocated = () => page.evaluate(async () => {
    const { connect } = await import('/dist/blockscope-widgets.js');
    await new Promise((r) => setTimeout(r, 1500)); // the last removals' disposals
    return (await (await connect()).memoryStats()).allocatedBytes;
  });
  await churn(80); // caches and scratch buffers reach their size
  const before = await allocated();
  const stepsBefore = await page.evaluate(() => window.__steps);
  const t0 = Date.now();
  await churn(1000);
  const after = await allocated();
  const steps = (await page.evaluate(() => window.__steps)) - stepsBefore;
  console.log(`churn: worker malloc ${(before / MiB).toFixed(1)} -> ${(after / MiB).toFixed(1)} MiB over 1,000 rounds ` +
    `(${((Date.now() - t0) / 1000).toFixed(0)} s), the lab trained ${steps} steps meanwhile`);
  assert.ok(after - before < 4 * MiB, `worker memory grew by ${((after - before) / MiB).toFixed(1)} MiB`);
  assert.ok(steps > 10, 'the lab kept training');
  assert.equal(await page.locator('training-lab .status.error').count(), 0);
  assertClean(problems);
  await context.close();
});

test('a worker that dies is noticed and restarted: pending calls fail with a message, widgets rebuild, objects of the old worker are refused', async () => {
  const { page, context, problems } = await openPage(env.browser);
  await page.goto(`${env.url}examples/block-explorer.html`);
  const status = page.locator('block-explorer .status');
  await status.filter({ hasText: 'forward passes in the core' }).waitFor({ timeout: 30000 });
  // An uncaught error inside the worker: the page hears it at once, restarts the worker, the widget rebuilds.
  const [crashing] = page.workers();
  const rebuilt = page.evaluate(() => new Promise((resolve) => {
    document.addEventListener('blockscope-forward', () => resolve(true), { once: true });
  }));
  await crashing.evaluate(() => setTimeout(() => { throw new Error('simulated crash'); }, 0));
  assert.ok(await rebuilt, 'the rebuilt widget computes again');
  await status.filter({ hasText: /forward passes in the core.*worker stopped — it failed \(.*simulated crash\) — and was restarted/ })
    .waitFor({ timeout: 10000 });
  await page.evaluate(() => document.querySelector('block-explorer').setAttribute('prompt', 'Hello'));
  await status.filter({ hasText: /^5 tokens/ }).waitFor({ timeout: 10000 }); // "Hello": 5 bytes

  // A worker that falls silent (closed from inside: no error event reaches the page) — the watchdog notices. A
  // second client (its own worker, a short watchdog) so the widget's runtime is left alone.
  await page.evaluate(async () => {
    const { connect } = await import('/dist/blockscope-widgets.js');
    const client = await connect({ silentTimeout: 1500, workerUrl: new URL('/dist/blockscope-worker.js?silent', location.href).href });
    window.__silent = { client, ff: await client.createFeedForward({ embDim: 8, seed: 1 }) };
  });
  const silent = page.workers().find((w) => w.url().includes('?silent'));
  assert.ok(silent, `the second client's worker: ${page.workers().map((w) => w.url())}`);
  await silent.evaluate(() => setTimeout(() => close(), 0));
  const after = await page.evaluate(async () => {
    const { client, ff } = window.__silent;
    const t0 = performance.now();
    const pending = await client.activation('gelu_tanh', new Float32Array([1, 2])).then(() => 'answered', (err) => err.message);
    const seconds = (performance.now() - t0) / 1000;
    const again = Array.from(await client.activation('gelu_tanh', new Float32Array([1]))); // waits for the new worker
    const stale = await ff.forward(new Float32Array(8)).then(() => 'answered', (err) => err.message);
    await ff.dispose(); // an object of the dead worker: nothing to free, no error
    return { pending, seconds, reason: client.restartReason, again, stale, mode: client.mode };
  });
  assert.match(after.pending, /the Blockscope worker stopped: it sent nothing for 5 s/);
  assert.ok(after.seconds < 12, `noticed after ${after.seconds} s`);
  assert.equal(after.mode, 'worker');
  assert.ok(Math.abs(after.again[0] - 0.8412) < 1e-3, `the restarted runtime answers: ${after.again}`);
  assert.match(after.stale, /this FeedForward was lost when the runtime's worker stopped/);
  assertClean({ ...problems, console: problems.console.filter((m) => !/simulated crash|worker stopped/.test(m)) });
  await context.close();
});
