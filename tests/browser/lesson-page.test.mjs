// The demo lesson page (web/index.html) in Chromium: every widget comes alive in the chapter's order with the core's
// numbers (the two GPT explorers — the byte model, then the BPE model — once scrolled to: they load lazily), the page states the
// PyTorch tolerance and links the model card, nothing leaves localhost, no console errors, it fits a 360 px phone
// in light and dark mode, and after one visit it works offline, trained model included.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertClean, browserSuite, openPage, screenshot } from './support.mjs';
import { WIDGET_TAGS } from '../../web/widgets/kit/elements.js';

// The lesson page shows every widget, in this order, and a second <gpt-explorer> (section 6, the BPE model) last.
const WIDGETS = [...WIDGET_TAGS.map((t) => (t === 'gpt-explorer' ? '#gpt-widget' : t)), '#gpt-words'];
const LAZY = ['training-lab', '#gpt-widget', '#gpt-words']; // load their data/model only when scrolled near
const GPT = '#gpt-widget'; // the lesson's GPT (the byte model)
const env = browserSuite();

/** The page asks first: answers its predictions (LayerNorm's mean and variance, GELU(1), the FFN's parameter count). */
async function answerPredictions(page) {
  for (const [tag, q, a] of [['layernorm-explorer', 'mean', '4'], ['layernorm-explorer', 'variance', '5'],
    ['gelu-explorer', 'value', '0.84'], ['ffn-explorer', 'params', '4722432']]) {
    await page.locator(`${tag} #predict-${q}`).fill(a);
    await page.locator(`${tag} #predict-${q}`).press('Enter');
    await page.locator(`${tag} #predict-${q}-result`).filter({ hasText: /\S/ }).waitFor();
  }
}

/**
 * Opens the lesson and waits until every widget has reported its first result (a blockscope-* event); the GPT
 * widget loads its model when it nears the viewport, so it is scrolled to once the others are alive.
 */
async function openLesson(options) {
  const session = await openPage(env.browser, options);
  await session.page.addInitScript(() => {
    window.__alive = new Set();
    for (const name of ['ready', 'change', 'forward', 'readout']) {
      document.addEventListener(`blockscope-${name}`, (e) => window.__alive.add(e.target.id || e.target.localName));
    }
  });
  await session.page.goto(env.url);
  await session.page.waitForFunction((n) => window.__alive.size >= n, WIDGETS.length - LAZY.length, { timeout: 60000 });
  for (const [i, tag] of LAZY.entries()) {
    await session.page.locator(tag).scrollIntoViewIfNeeded();
    const n = WIDGETS.length - LAZY.length + i + 1;
    await session.page.waitForFunction((k) => window.__alive.size >= k, n, { timeout: 60000 });
  }
  await session.page.evaluate(() => scrollTo(0, 0));
  return session;
}

test('the lesson page runs every widget in chapter order with the core\'s numbers', async () => {
  const { page, context, problems } = await openLesson({ width: 1280, height: 900 });
  const order = await page.evaluate((tags) => [...document.querySelectorAll(tags.join(','))].map((e) => e.localName), WIDGET_TAGS);
  assert.deepEqual(order, [...WIDGET_TAGS, 'gpt-explorer']);
  assert.match(await page.textContent('#accuracy'), /10⁻⁵ \+ 10⁻⁵·\|e\|.*10⁻⁴/s);
  // Keyboard: Tab reaches the first widget's controls from the skip link onwards.
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.className), 'skip');
  // The page asks before it shows: the numbers its text asks for are hidden until answered.
  assert.ok(!(await page.locator('layernorm-explorer [data-stat="mean"]').first().textContent()).includes('4.0000'));
  assert.equal(await page.locator('ffn-explorer [data-cost="parameters"] .masked').count(), 1);
  await answerPredictions(page);
  assert.match(await page.locator('gelu-explorer #predict-value-result').textContent(), /^Right: 0\.8412 \(within 0\.01\)/);
  assert.match(await page.locator('ffn-explorer #predict-params-result').textContent(), /^Right/);
  await page.locator('gelu-explorer td[data-kind="gelu_tanh"]').filter({ hasText: '0.8412' }).waitFor();
  // Lesson 82 §29's FFN at its section, with the lesson's printout.
  await page.locator('ffn-explorer .ffn-lesson pre.printout').filter({ hasText: '[−0.3974, 0.2011, 0.0934, −0.1582]' }).waitFor();
  assert.equal(await page.locator('layernorm-explorer [data-stat="mean"]').first().textContent(), '4.0000');
  assert.equal(await page.locator('layernorm-explorer [data-stat="variance"]').first().textContent(), '5.0000');
  await page.locator('ffn-explorer [data-cost="parameters"]').filter({ hasText: '4,722,432' }).waitFor();
  assert.equal(await page.locator('#gpt a[href="models/brown/README.md"]').count(), 1, 'the GPT section links the model card');
  assert.equal(await page.locator(`${GPT} table.candidates.selected`).getAttribute('data-model'), 'trained');
  assert.equal(await page.locator('#words a[href="models/brown-bpe/README.md"]').count(), 1, 'section 6 links its card');
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

test('after one visit the lesson page works offline (service worker), trained model included', async () => {
  const { page, context, problems } = await openPage(env.browser);
  const trainedTable = async () => {
    await page.locator(GPT).scrollIntoViewIfNeeded();
    await page.locator(`${GPT} table.candidates.trained tbody tr`).first().waitFor({ timeout: 30000 });
  };
  await page.goto(env.url);
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.reload(); // now controlled by the worker, which caches every file this load fetches
  await page.locator('ffn-explorer .ffn-lesson pre.printout').waitFor({ timeout: 30000 }); // the FFN preset, cached too
  await answerPredictions(page);
  await page.locator('gelu-explorer td[data-kind="gelu_tanh"]').filter({ hasText: '0.8412' }).waitFor({ timeout: 30000 });
  await page.locator('ffn-explorer [data-cost="parameters"]').filter({ hasText: '4,722,432' }).waitFor({ timeout: 30000 });
  await trainedTable();
  await page.waitForLoadState('networkidle');
  await context.setOffline(true);
  problems.console.length = 0;
  await page.reload();
  await page.locator('layernorm-explorer #predict-mean').waitFor({ timeout: 30000 });
  await answerPredictions(page);
  await page.locator('gelu-explorer td[data-kind="gelu_tanh"]').filter({ hasText: '0.8412' }).waitFor({ timeout: 30000 });
  assert.equal(await page.locator('layernorm-explorer [data-stat="mean"]').first().textContent(), '4.0000');
  await trainedTable(); // the shipped checkpoint came from the cache
  assert.equal(await page.textContent(`${GPT} .model-message`), '', 'no fallback message offline');
  // Only shipped checkpoints are in the cache (sw.js keeps other .safetensors out of it): the byte model always (it
  // is precached), the BPE model of section 6 if it was scrolled near.
  const cached = await page.evaluate(async () => (await caches.keys()).length &&
    (await (await caches.open((await caches.keys())[0])).keys()).map((r) => new URL(r.url).pathname).filter((p) => p.endsWith('.safetensors')));
  assert.ok(cached.includes('/models/brown/model.safetensors'), JSON.stringify(cached));
  assert.deepEqual(cached.filter((p) => !['/models/brown/model.safetensors', '/models/brown-bpe/model.safetensors'].includes(p)), []);
  assertClean(problems);
  await context.close();
});
