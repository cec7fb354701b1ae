// <gpt-explorer>'s generation in real Chromium: past the context it gives PyTorch's greedy tokens
// (tests/golden/generation_slide.json) and a note says that the window slides, why every token is then a full pass,
// and how fast it goes before and after (in English and German); while it generates, an edited prompt and newly
// ablated heads reach the next-token table and the heatmaps within a few tokens (the generation waits between two
// tokens while the explorer's passes run), the generation going on.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { assertClean, browserSuite, screenshot } from './support.mjs';
import { argmax, coreRun, openExplorer, setAttrs, tableRows } from './gpt-support.mjs';

const env = browserSuite();
const slide = JSON.parse(readFileSync(new URL('../golden/generation_slide.json', import.meta.url), 'utf8'));
const text = (ids) => String.fromCharCode(...ids); // the golden prompts are ASCII bytes
const shadowText = (page, sel) => page.evaluate((s) => document.querySelector('gpt-explorer').shadowRoot.querySelector(s)?.textContent ?? '', sel);

test('past the context the window slides: PyTorch\'s greedy tokens, and a note says why and how fast', async () => {
  const { page, context, problems } = await openExplorer(env, { width: 1280 });
  const fills = slide.cases.find((c) => c.name === 'fills'); // 250 bytes: 13 of its 20 tokens come from a slid window
  await setAttrs(page, { prompt: text(fills.prompt), temperature: '0', 'max-new-tokens': String(fills.generated.length) });
  await page.waitForFunction((n) => window.__ev.forward.at(-1)?.ids.length === n, fills.prompt.length);
  assert.equal(await page.locator('gpt-explorer .gen-slide').isVisible(), false, 'no note before a generation slides');
  await page.click('gpt-explorer button.generate');
  await page.waitForFunction(() => window.__ev.generated.length === 1, null, { timeout: 60000 });
  const done = await page.evaluate(() => window.__ev.generated[0]);
  assert.deepEqual(done.tokens, fills.generated, 'the tokens of PyTorch\'s generate_text_simple');
  assert.equal(done.stopReason, 'max_new_tokens');
  assert.equal(await page.locator('gpt-explorer .gen-slide').isVisible(), true);
  const note = await shadowText(page, '.gen-slide');
  assert.match(note, /The context is full \(256 tokens\), so the window slides/);
  assert.match(note, /learned an embedding for each position/);
  assert.match(note, /every new token is a full forward pass over all 256 tokens/);
  assert.match(note, /Past the context: [\d.,]+ tokens\/s; before it: [\d.,]+ tokens\/s\./);
  await page.locator('gpt-explorer .gen-slide').scrollIntoViewIfNeeded();
  await screenshot(page, 'gpt-explorer-generate-slide-desktop-light');

  // German, from a prompt longer than the context (cropped): every token after the first slides, no "before" speed.
  const cropped = slide.cases.find((c) => c.name === 'cropped');
  await setAttrs(page, { lang: 'de', prompt: text(cropped.prompt), 'max-new-tokens': String(cropped.generated.length) });
  await page.waitForFunction((n) => window.__ev.forward.at(-1)?.ids.length === n, 256);
  await page.click('gpt-explorer button.generate');
  await page.waitForFunction(() => window.__ev.generated.length === 2, null, { timeout: 60000 });
  assert.deepEqual((await page.evaluate(() => window.__ev.generated[1])).tokens, cropped.generated);
  const de = await shadowText(page, '.gen-slide');
  assert.match(de, /Der Kontext ist voll \(256 Tokens\), also gleitet das Fenster/);
  assert.match(de, /Nach dem Kontext: [\d.,]+ Tokens\/s\.$/);
  assertClean(problems);
  await context.close();
});

test('edits during generation are served between tokens: the table and heatmaps follow, the generation goes on', async () => {
  const { page, context, problems } = await openExplorer(env, { width: 1280 });
  // Past the context from the first token (the slowest tokens), and more of them than the test will wait for.
  await setAttrs(page, { prompt: text(slide.cases[1].prompt), 'max-new-tokens': '2000' });
  await page.waitForFunction(() => window.__ev.forward.at(-1)?.ids.length === 256);
  await page.click('gpt-explorer button.generate');
  await page.waitForFunction(() => window.__ev.token.length >= 3, null, { timeout: 30000 });

  // Each forward event records how many tokens had arrived when it came.
  await page.evaluate(() => document.addEventListener('blockscope-forward', (e) => { e.detail.tokensSoFar = window.__ev.token.length; }));
  const edited = 'An edited prompt.';
  const before = await page.evaluate(() => window.__ev.token.length);
  await setAttrs(page, { prompt: edited });
  await page.waitForFunction((n) => window.__ev.forward.at(-1)?.ids.length === n, edited.length, { timeout: 20000 });
  const forward = await page.evaluate(() => window.__ev.forward.at(-1));
  assert.deepEqual(forward.ids, Array.from(Buffer.from(edited)));
  assert.equal(await page.evaluate(() => window.__ev.generated.length), 0, 'the generation is still running');
  assert.ok(forward.tokensSoFar - before <= 6, `the edited prompt's pass came ${forward.tokensSoFar - before} tokens after the edit`);
  // The views show the edited prompt: its chips, the LayerNorm heatmap's columns, the core's next token on top.
  assert.equal(await page.locator('gpt-explorer .chips li:not(.cropped)').count(), edited.length);
  await page.waitForFunction((n) => new RegExp(`\\b${n}\\b`).test(document.querySelector('gpt-explorer').shadowRoot
    .querySelector('.ln-heat').getAttribute('aria-label')), edited.length);
  const core = await coreRun(page);
  assert.equal((await tableRows(page))[0].id, argmax(core.last));

  // A head ablated while it generates: the next pass runs with it.
  const n = await page.evaluate(() => window.__ev.forward.length);
  await setAttrs(page, { ablate: '0.1' });
  await page.waitForFunction((k) => window.__ev.forward.length > k && window.__ev.forward.at(-1).ablated.length === 1, n, { timeout: 20000 });
  assert.equal(await page.evaluate(() => window.__ev.generated.length), 0, 'the generation is still running');

  await page.click('gpt-explorer button.stop');
  await page.waitForFunction(() => window.__ev.generated.length === 1);
  assert.equal((await page.evaluate(() => window.__ev.generated[0])).stopReason, 'cancelled');
  assertClean(problems);
  await context.close();
});
