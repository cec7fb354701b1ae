// Typed text is never lost: a prompt edit still waiting for its debounce is applied before anything else the learner
// does on the widget. Typing and then, within 50 ms, pressing another control (block-explorer, gpt-explorer) or
// leaving the field by keyboard keeps what was typed, in the field and in the prompt attribute, and the next forward
// pass runs on it.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertClean, browserSuite, openPage } from './support.mjs';
import { openExplorer } from './gpt-support.mjs';

const env = browserSuite();

/** Types `text` into `field` (replacing what it held) and, at once, clicks `other`: well within the 200 ms debounce. */
async function typeThenClick(page, field, text, other) {
  await page.locator(field).fill('');
  await page.locator(field).pressSequentially(text, { delay: 5 });
  const started = Date.now();
  await page.locator(other).click();
  return Date.now() - started;
}

const promptOf = (page, tag) => page.evaluate((t) => document.querySelector(t).getAttribute('prompt'), tag);

test('block-explorer: a prompt typed just before another control is pressed is used, not lost', async () => {
  const { page, context, problems } = await openPage(env.browser);
  await page.addInitScript(() => {
    window.__forward = [];
    document.addEventListener('blockscope-forward', (e) => window.__forward.push(e.detail));
  });
  await page.goto(`${env.url}examples/block-explorer.html`);
  await page.waitForFunction(() => window.__forward.length > 0, null, { timeout: 30000 });
  // The attribute is already set when the click's own handler runs (the pointerdown applied the edit).
  await page.evaluate(() => {
    const el = document.querySelector('block-explorer');
    el.shadowRoot.addEventListener('click', () => { window.__promptAtClick = el.getAttribute('prompt'); });
  });
  const took = await typeThenClick(page, 'block-explorer input#prompt', 'a cat sat', 'block-explorer input[name=metric] >> nth=1');
  assert.ok(took < 200, `the click came ${took} ms after the last keystroke`);
  assert.equal(await page.evaluate(() => window.__promptAtClick), 'a cat sat');
  await page.waitForTimeout(400); // past the debounce: nothing may put the old prompt back
  assert.equal(await promptOf(page, 'block-explorer'), 'a cat sat');
  assert.equal(await page.locator('block-explorer input#prompt').inputValue(), 'a cat sat');
  // The next forward pass runs on it (byte tokens: one id per byte).
  await page.waitForFunction(() => JSON.stringify(Array.from(window.__forward.at(-1).ids)) ===
    JSON.stringify(Array.from(new TextEncoder().encode('a cat sat'))), null, { timeout: 30000 });

  // Leaving the field with Tab applies the edit at once too.
  await page.locator('block-explorer input#prompt').fill('');
  await page.locator('block-explorer input#prompt').pressSequentially('dogs run', { delay: 5 });
  await page.keyboard.press('Tab');
  assert.equal(await promptOf(page, 'block-explorer'), 'dogs run');
  assertClean(problems);
  await context.close();
});

test('gpt-explorer: a prompt typed just before another control is pressed is used, not lost', async () => {
  const { page, context, problems } = await openExplorer(env, { width: 1280 });
  const before = await page.evaluate(() => window.__ev.forward.length);
  const took = await typeThenClick(page, 'gpt-explorer textarea#prompt', 'The jury said no', 'gpt-explorer select#ln');
  assert.ok(took < 200, `the click came ${took} ms after the last keystroke`);
  assert.equal(await promptOf(page, 'gpt-explorer'), 'The jury said no');
  await page.waitForTimeout(400);
  assert.equal(await page.locator('gpt-explorer textarea#prompt').inputValue(), 'The jury said no');
  assert.equal(await promptOf(page, 'gpt-explorer'), 'The jury said no');
  await page.waitForFunction((n) => window.__ev.forward.length > n, before, { timeout: 30000 });
  assert.deepEqual(await page.evaluate(() => Array.from(window.__ev.forward.at(-1).ids)),
    Array.from(new TextEncoder().encode('The jury said no')), 'the forward pass ran on the typed prompt (byte tokens)');
  assertClean(problems);
  await context.close();
});
