// The demo lesson page (web/index.html) in Chromium: all five widgets come alive in the chapter's order with
// the core's numbers, the page states the PyTorch tolerance, nothing leaves localhost, no console errors, and
// it fits a 360 px phone in light and dark mode.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertClean, browserSuite, openPage, screenshot } from './support.mjs';

const WIDGETS = ['layernorm-explorer', 'gelu-explorer', 'ffn-explorer', 'block-explorer', 'gpt-explorer'];
const env = browserSuite();

/** Opens the lesson and waits until every widget has reported its first result (a blockscope-* event). */
async function openLesson(options) {
  const session = await openPage(env.browser, options);
  await session.page.addInitScript(() => {
    window.__alive = new Set();
    for (const name of ['ready', 'change', 'forward', 'readout']) {
      document.addEventListener(`blockscope-${name}`, (e) => window.__alive.add(e.target.localName));
    }
  });
  await session.page.goto(env.url);
  await session.page.waitForFunction((n) => window.__alive.size >= n, WIDGETS.length, { timeout: 60000 });
  return session;
}

test('the lesson page runs all five widgets in chapter order with the core\'s numbers', async () => {
  const { page, context, problems } = await openLesson({ width: 1280, height: 900 });
  const order = await page.evaluate((tags) => [...document.querySelectorAll(tags.join(','))].map((e) => e.localName), WIDGETS);
  assert.deepEqual(order, WIDGETS);
  assert.match(await page.textContent('#accuracy'), /10⁻⁵ \+ 10⁻⁵·\|e\|.*10⁻⁴/s);
  await page.locator('gelu-explorer td[data-kind="gelu_tanh"]').filter({ hasText: '0.8412' }).waitFor();
  assert.equal(await page.locator('layernorm-explorer [data-stat="mean"]').first().textContent(), '4.0000');
  assert.equal(await page.locator('layernorm-explorer [data-stat="variance"]').first().textContent(), '5.0000');
  await page.locator('ffn-explorer [data-cost="parameters"]').filter({ hasText: '4,722,432' }).waitFor();
  // Keyboard: Tab reaches the first widget's controls from the skip link onwards.
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.className), 'skip');
  await screenshot(page, 'lesson-desktop-light');
  assertClean(problems);
  await context.close();
});

for (const colorScheme of ['light', 'dark']) {
  test(`the lesson page fits 360 px without horizontal scrolling (${colorScheme})`, async () => {
    const { page, context, problems } = await openLesson({ width: 360, height: 800, colorScheme });
    const widths = await page.evaluate((tags) => ({
      doc: document.documentElement.scrollWidth,
      widgets: tags.map((t) => Math.ceil(document.querySelector(t).getBoundingClientRect().right)),
    }), WIDGETS);
    assert.ok(widths.doc <= 360, `page scrolls horizontally: ${widths.doc}px`);
    for (const [i, right] of widths.widgets.entries()) assert.ok(right <= 360, `${WIDGETS[i]} ends at ${right}px`);
    await screenshot(page, `lesson-360-${colorScheme}`);
    assertClean(problems);
    await context.close();
  });
}

test('the embedding guide is served and shows the one-script snippet', async () => {
  const { page, context, problems } = await openPage(env.browser);
  await page.goto(`${env.url}docs/embedding.html`);
  assert.match(await page.textContent('pre'), /<script type="module" src="dist\/blockscope-widgets\.js"><\/script>/);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));
  assertClean(problems);
  await context.close();
});

test('after one visit the lesson page works offline (service worker)', async () => {
  const { page, context, problems } = await openPage(env.browser);
  await page.goto(env.url);
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.reload(); // now controlled by the worker, which caches every file this load fetches
  await page.locator('gelu-explorer td[data-kind="gelu_tanh"]').filter({ hasText: '0.8412' }).waitFor({ timeout: 30000 });
  await page.locator('ffn-explorer [data-cost="parameters"]').filter({ hasText: '4,722,432' }).waitFor({ timeout: 30000 });
  await page.waitForLoadState('networkidle');
  await context.setOffline(true);
  problems.console.length = 0;
  await page.reload();
  await page.locator('gelu-explorer td[data-kind="gelu_tanh"]').filter({ hasText: '0.8412' }).waitFor({ timeout: 30000 });
  assert.equal(await page.locator('layernorm-explorer [data-stat="mean"]').first().textContent(), '4.0000');
  assertClean(problems);
  await context.close();
});
