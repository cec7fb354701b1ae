// <training-lab> while it trains: a learning-rate change (an arrow key on the slider) applies from the next step on —
// both runs go on from where they were (no step 1 again, no new models, the loss does not jump back to a uniform
// guess), the steps after it use the new peak in the documented schedule (cosine decay to lr/10), the loss chart marks
// the step and the status line says so — while a change that needs new models (layers) asks first: Keep training
// leaves everything as it was, Restart both runs starts again from step 0.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertClean, browserSuite, openPage, widgetPage } from './support.mjs';

const pages = {};
const env = browserSuite({ pages });
const STEPS = 300;
widgetPage(pages, '/lab.html', `<training-lab id="lab" loading="eager" layers="2" emb-dim="32" steps="${STEPS}"></training-lab>`);

/** The lr the schedule gives reported step k (1-based): warmup 0, cosine from `peak` to peak/10 over STEPS steps. */
function scheduled(peak, k) {
  const min = peak / 10;
  return min + 0.5 * (peak - min) * (1 + Math.cos(Math.PI * Math.min((k - 1) / STEPS, 1)));
}

const stepsOf = (page, run) => page.evaluate((r) => window.__ev.step.filter((e) => e.run === r), run);
const waitSteps = (page, n) => page.waitForFunction(
  (k) => ['a', 'b'].every((r) => window.__ev.step.filter((e) => e.run === r).length >= k), n, { timeout: 90000 });
const lab = (page, fn, arg) => page.evaluate(([f, a]) => new Function('lab', 'arg', `return (${f})(lab, arg)`)(document.getElementById('lab'), a), [String(fn), arg]);

test('an lr change while training goes on from the next step, marked; a layers change asks before restarting', async () => {
  const { page, context, problems } = await openPage(env.browser);
  await page.addInitScript(() => {
    window.__ev = { step: [], ready: [] };
    document.addEventListener('blockscope-train-step', (e) => window.__ev.step.push(e.detail));
    document.addEventListener('blockscope-ready', (e) => window.__ev.ready.push(e.detail));
  });
  await page.goto(`${env.url}lab.html`);
  await page.waitForFunction(() => window.__ev.ready.length === 1, null, { timeout: 60000 });
  await page.click('training-lab button.play');
  await waitSteps(page, 12);

  // One arrow key on the lr slider (a step of 0.05 decades on its grid: 0.015 -> 0.018), taken over between two steps.
  await page.focus('training-lab input#lr');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.getElementById('lab').hasAttribute('lr'));
  const lr = Number(await page.getAttribute('training-lab', 'lr'));
  assert.ok(lr > 0.015 && lr < 0.02, `lr ${lr}`);
  await page.waitForFunction(() => document.getElementById('lab').pair.changes.length === 1, null, { timeout: 30000 });
  const at = await lab(page, (l) => l.pair.changes[0].step);
  await waitSteps(page, at + 10);
  assert.equal(await page.locator('training-lab .restart-prompt').isVisible(), false, 'no question asked');
  assert.equal(await page.evaluate(() => window.__ev.ready.length), 1, 'no new models');
  for (const run of ['a', 'b']) {
    const steps = await stepsOf(page, run);
    assert.deepEqual(steps.map((e) => e.step), steps.map((_, i) => i + 1), `run ${run}: steps 1, 2, 3, … without a restart`);
    for (const e of steps) {
      const peak = e.step <= at ? 0.015 : lr;
      assert.ok(Math.abs(e.lr - scheduled(peak, e.step)) <= 1e-9 * peak, `run ${run} step ${e.step}: lr ${e.lr}, schedule with peak ${peak}`);
    }
    assert.ok(steps[at].loss < steps[0].loss - 0.5, `run ${run}: the loss after the change (${steps[at].loss}) goes on from where it was`);
  }
  assert.equal(await page.locator('training-lab .loss-chart .schedule-change').count(), 1);
  assert.equal(await page.locator('training-lab .loss-chart .schedule-change text').textContent(), `lr → ${lr}`);
  assert.match(await page.textContent('training-lab .status'), new RegExp(`^After step ${at} both runs train with learning rate ${String(lr).replace('.', '\\.')} `));

  // layers: new models. Asked first; "Keep training" changes nothing.
  await page.selectOption('training-lab select#layers', '1');
  const prompt = page.locator('training-lab .restart-prompt');
  await prompt.waitFor();
  assert.match(await prompt.textContent(), /Changing layers to 1 means new models: both runs would start again from step 0 \(they are at step \d+\)/);
  assert.equal(await page.getAttribute('training-lab', 'layers'), '2');
  assert.equal(await page.inputValue('training-lab select#layers'), '2', 'the menu shows the layers in use');
  const before = (await stepsOf(page, 'a')).length;
  await page.click('training-lab .restart-prompt button.keep');
  assert.equal(await prompt.isVisible(), false);
  await waitSteps(page, before + 5);
  assert.equal(await page.evaluate(() => window.__ev.ready.length), 1);

  // Asked again and confirmed: both runs start again from step 0 with one layer.
  await page.selectOption('training-lab select#layers', '1');
  await page.click('training-lab .restart-prompt button.restart');
  await page.waitForFunction(() => window.__ev.ready.length === 2, null, { timeout: 60000 });
  assert.equal(await page.getAttribute('training-lab', 'layers'), '1');
  assert.equal((await page.evaluate(() => window.__ev.ready[1])).runs[0].config.n_layers, 1);
  assert.equal(await lab(page, (l) => l.pair.runs[0].stepsDone <= 5), true, 'the new runs start from step 0');
  assertClean(problems);
  await context.close();
});
