// <gpt-explorer>'s "which layer, head and token?" section in Chromium, on the shipped trained model, against
// PyTorch (tests/golden/interpret.json, make_interpret_goldens.py): the logit lens rows (the predicted token's
// probability at each layer, and each layer's top token), heads ablated from the checkboxes with the keyboard (the
// next-token table then shows the ablated model's prediction: PyTorch's ablated logits), and the prompt shaded by
// attribution (gradient x input and integrated gradients). 360 px, dark mode, no console errors.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { assertClean, browserSuite, screenshot } from './support.mjs';
import { openExplorer } from './gpt-support.mjs';

const env = browserSuite();
const golden = JSON.parse(readFileSync(new URL('../golden/interpret.json', import.meta.url), 'utf8')).cases
  .find((c) => c.name === 'brown');
const softmax = (row) => {
  const top = Math.max(...row);
  const z = row.reduce((s, v) => s + Math.exp(v - top), 0);
  return row.map((v) => Math.exp(v - top) / z);
};
const argmax = (row) => row.indexOf(Math.max(...row));
const maxDiff = (a, e) => Math.max(...a.map((v, i) => Math.abs(v - e[i])));
const scale = (v) => Math.max(...v.map(Math.abs));

test('logit lens, head ablation and attribution in the widget equal PyTorch\'s', async () => {
  const prompt = encodeURIComponent(new TextDecoder().decode(Uint8Array.from(golden.ids)));
  const { page, context, problems } = await openExplorer(env, { width: 360, height: 900, colorScheme: 'dark' }, `#gpt.prompt=${prompt}`);
  await page.waitForFunction((n) => window.__ev.forward.at(-1).ids.length === n, golden.ids.length);
  let ev = await page.evaluate(() => window.__ev.forward.at(-1));
  assert.deepEqual(ev.ids, golden.ids);
  assert.equal(ev.candidates[0].id, golden.target);

  // The lens: the predicted token's probability at every layer (last position), and each layer's top token.
  const T = golden.ids.length;
  const lensLast = golden.lens.map((layer) => layer[T - 1]);
  assert.equal(ev.lens.length, lensLast.length);
  for (const [l, row] of lensLast.entries()) {
    assert.ok(Math.abs(ev.lens[l].probability - softmax(row)[golden.target]) < 1e-5, `layer ${l} probability`);
    assert.equal(ev.lens[l].top, argmax(row), `layer ${l} top token`);
  }
  const rows = page.locator('gpt-explorer table.lens tbody tr');
  assert.equal(await rows.count(), lensLast.length);
  assert.equal(await rows.first().locator('th').textContent(), 'embeddings');

  // Attribution: gradient x input of the top token's logit, then integrated gradients chosen in the select.
  const gxi = golden.attributions.find((a) => a.method === 'grad-x-input' && a.objective === 'logit').values;
  assert.ok(maxDiff(ev.attribution, gxi) <= 1e-4 * scale(gxi), 'grad x input');
  assert.equal(await page.locator('gpt-explorer ol.attr li').count(), T);
  await page.selectOption('gpt-explorer select#attribution', 'integrated-gradients');
  await page.waitForFunction(() => document.querySelector('gpt-explorer').getAttribute('attribution') === 'integrated-gradients');
  await page.waitForFunction(() => document.querySelector('gpt-explorer').shadowRoot.querySelector('.attr-note').textContent.includes('integrated'));
  ev = await page.evaluate(() => window.__ev.forward.at(-1));
  // The widget uses 32 steps; the golden 16: recompute the widget's through the page client instead of loosening.
  const ig16 = golden.attributions.find((a) => a.method === 'integrated-gradients' && a.objective === 'logit').values;
  const ig32 = await page.evaluate(async ({ ids, target }) => {
    const { connect } = await import('/dist/blockscope-widgets.js');
    const gpt = await (await connect()).loadModel({ url: '/models/brown/' });
    const at16 = Array.from(await gpt.attribute(ids, target, { method: 'integrated-gradients', steps: 16 }));
    const at32 = Array.from(await gpt.attribute(ids, target, { method: 'integrated-gradients', steps: 32 }));
    await gpt.dispose();
    return { at16, at32 };
  }, { ids: golden.ids, target: golden.target });
  assert.ok(maxDiff(ig32.at16, ig16) <= 1e-4 * scale(ig16), 'integrated gradients (16 steps) equal PyTorch\'s');
  assert.ok(maxDiff(ev.attribution, ig32.at32) <= 1e-6 * scale(ig32.at32), 'the widget shows the core\'s 32-step values');

  // Head ablation from the keyboard: check block 1 head 1 and block 4 head 2 (0-based 0.0 and 3.1: the golden's).
  const zero = golden.ablations.find((a) => a.mode === 'zero');
  assert.deepEqual(zero.heads, ['0.0', '3.1']);
  const before = ev.candidates[0];
  for (const id of ['ablate-0-0', 'ablate-3-1']) {
    await page.locator(`gpt-explorer input#${id}`).focus();
    const n = await page.evaluate(() => window.__ev.forward.length);
    await page.keyboard.press('Space');
    await page.waitForFunction((k) => window.__ev.forward.length > k, n);
  }
  await page.waitForFunction(() => document.querySelector('gpt-explorer').getAttribute('ablate') === '0.0,3.1');
  await page.waitForFunction(() => window.__ev.forward.at(-1).ablated?.length === 2);
  ev = await page.evaluate(() => window.__ev.forward.at(-1));
  const ablatedLast = zero.logits[T - 1];
  assert.ok(maxDiff(ev.lastLogits, ablatedLast) <= 1e-4, 'the ablated model\'s logits are PyTorch\'s');
  assert.equal(ev.candidates[0].id, argmax(ablatedLast));
  assert.match(await page.textContent('gpt-explorer .ablation-note'), /^2 heads zeroed: the top prediction is now .*; with every head on it was/);
  assert.ok((await page.textContent('gpt-explorer .ablation-note')).includes(`(${(100 * before.probability).toFixed(2)} %)`));
  // Mean ablation of one head, from the select; then Restore.
  const mean = golden.ablations.find((a) => a.mode === 'mean');
  await page.evaluate((heads) => document.querySelector('gpt-explorer').setAttribute('ablate', heads), mean.heads.join(','));
  await page.selectOption('gpt-explorer select#ablate-mode', 'mean');
  // The pass that used both settings (the event names the mode it ran with): no fixed wait.
  await page.waitForFunction(() => window.__ev.forward.at(-1).ablated?.join() === '5.2' &&
    window.__ev.forward.at(-1).ablateMode === 'mean');
  ev = await page.evaluate(() => window.__ev.forward.at(-1));
  assert.ok(maxDiff(ev.lastLogits, mean.logits[T - 1]) <= 1e-4, 'mean-ablated logits');
  await page.click('gpt-explorer button.clear-ablation');
  await page.waitForFunction(() => window.__ev.forward.at(-1).ablated?.length === 0);
  ev = await page.evaluate(() => window.__ev.forward.at(-1));
  assert.ok(maxDiff(ev.lastLogits, lensLast.at(-1)) <= 1e-4, 'restored: the model\'s own logits');
  assert.equal(await page.locator('gpt-explorer .heads input:checked').count(), 0);

  // A bad deep-linked head names itself in the status line; the page keeps working.
  await page.evaluate(() => document.querySelector('gpt-explorer').setAttribute('ablate', '9.0'));
  await page.locator('gpt-explorer .status').filter({ hasText: /head '9\.0': block 9 is outside the model's \[0, 6\)/ }).waitFor();
  await page.evaluate(() => document.querySelector('gpt-explorer').setAttribute('ablate', ''));
  await page.waitForFunction(() => window.__ev.forward.at(-1).ablated?.length === 0);

  const [scrollW, innerW] = await page.evaluate(() => [document.documentElement.scrollWidth, innerWidth]);
  assert.ok(scrollW <= innerW, `page scrolls horizontally: ${scrollW} > ${innerW}`);
  await page.locator('gpt-explorer .interpret').scrollIntoViewIfNeeded();
  await screenshot(page, 'gpt-interpret-360-dark');
  await page.locator('gpt-explorer .interpret').screenshot({ path: 'artifacts/screenshots/gpt-interpret-section-360-dark.png' });
  assertClean(problems);
  await context.close();
});
