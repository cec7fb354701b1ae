// <gpt-explorer>'s default, the GPT trained on the Brown corpus (web/models/brown/), in Chromium: it has learned
// English (greedy text is printable words, "th" is followed by "e" far above the uniform 1/256), the switch to its
// untrained twin is keyboard-operable and gives near-uniform tables, bytes that are not characters show as <0xNN>
// chips and never as U+FFFD, the checkpoint loads lazily with a progress bar, and a missing checkpoint falls back
// to the untrained model with a message (and a retry that recovers).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertClean, browserSuite, openPage, screenshot } from './support.mjs';
import { openExplorer, setAttrs, shadowText, tableRows } from './gpt-support.mjs';

const env = browserSuite();
const UNIFORM = 1 / 256;
const probability = (row) => row.timesUniform * UNIFORM;

/** Waits for the forward pass of `prompt` by `weights` and returns its event. */
async function forwardOf(page, prompt, weights) {
  await page.waitForFunction(([p, w]) => {
    const f = window.__ev.forward.at(-1);
    return f && f.weights === w && new TextDecoder().decode(Uint8Array.from(f.ids)) === p;
  }, [prompt, weights], { timeout: 30000 });
  return page.evaluate(() => window.__ev.forward.at(-1));
}

/** Generates with the widget's current settings and returns the blockscope-generated event. */
async function generate(page) {
  const n = await page.evaluate(() => window.__ev.generated.length);
  await page.click('gpt-explorer button.generate');
  await page.waitForFunction((k) => window.__ev.generated.length > k, n, { timeout: 60000 });
  return page.evaluate(() => window.__ev.generated.at(-1));
}

test('the trained model continues English with English words (greedy)', async () => {
  const { page, context, problems } = await openExplorer(env, { width: 1280 });
  await setAttrs(page, { prompt: 'The man said that', temperature: '0', 'max-new-tokens': '40' });
  await forwardOf(page, 'The man said that', 'trained');
  const { text, tokens } = await generate(page);
  assert.equal(tokens.length, 40);
  // Letters, spaces and punctuation only, and at least three words of two or more letters.
  assert.match(text, /^[A-Za-z0-9 ,.;:'"?!()-]+$/, `greedy continuation ${JSON.stringify(text)}`);
  assert.ok((text.match(/[A-Za-z]{2,}/g) ?? []).length >= 3, `few words in ${JSON.stringify(text)}`);
  assert.equal(await page.textContent('gpt-explorer .gen-output .generated'), text, 'the output shows the decoded text');
  assertClean(problems);
  await context.close();
});

test('after "th" the trained model predicts "e", far above the uniform baseline', async () => {
  const { page, context, problems } = await openExplorer(env, { width: 1280 });
  await setAttrs(page, { prompt: 'th' });
  await forwardOf(page, 'th', 'trained');
  const [trained] = await tableRows(page, 'trained');
  assert.equal(trained.id, 'e'.charCodeAt(0));
  assert.equal(trained.token, 'e');
  assert.ok(trained.timesUniform > 20, `p("e" | "th") = ${probability(trained)} is only ${trained.timesUniform}× uniform`);
  assertClean(problems);
  await context.close();
});

test('the trained/untrained switch works from the keyboard and back; untrained tables are near-uniform', async () => {
  const { page, context, problems } = await openExplorer(env, { width: 1280 });
  const prompt = await page.evaluate(() => document.querySelector('gpt-explorer').getAttribute('prompt') ?? 'The jury said that the');
  const trainedTop = (await tableRows(page, 'trained'))[0];
  assert.ok(trainedTop.timesUniform > 5, `trained top-1 only ${trainedTop.timesUniform}× uniform`);
  assert.equal(await page.isChecked('gpt-explorer input#weights-trained'), true);

  await page.focus('gpt-explorer input#weights-trained');
  await page.keyboard.press('ArrowDown'); // radio group: arrow keys move the selection
  const untrained = await forwardOf(page, prompt, 'untrained');
  assert.equal(await page.evaluate(() => document.querySelector('gpt-explorer').getAttribute('weights')), 'untrained');
  assert.equal(await page.evaluate(() => window.__ev.model.at(-1).source), 'untrained');
  assert.equal(await page.locator('gpt-explorer table.candidates.selected').getAttribute('data-model'), 'untrained');
  const rows = await tableRows(page, 'selected');
  assert.equal(rows[0].id, untrained.candidates[0].id);
  assert.ok(rows[0].timesUniform < 5, `untrained top-1 is ${rows[0].timesUniform}× uniform`);
  // The charts now show the untrained model; the trained table is still there, unchanged, for comparison.
  assert.deepEqual((await tableRows(page, 'trained'))[0], trainedTop);
  assert.match(await page.textContent('gpt-explorer .gen-model'), /untrained/);

  await page.keyboard.press('ArrowUp');
  await forwardOf(page, prompt, 'trained');
  assert.equal(await page.locator('gpt-explorer table.candidates.selected').getAttribute('data-model'), 'trained');
  assert.equal(await page.isChecked('gpt-explorer input#weights-trained'), true);
  assertClean(problems);
  await context.close();
});

test('bytes that are not characters show as <0xNN> chips, never as U+FFFD', async () => {
  const { page, context, problems } = await openExplorer(env, { width: 1280 });
  // A prompt with two-byte characters: each byte is its own token.
  await setAttrs(page, { prompt: 'naïve café' });
  await forwardOf(page, 'naïve café', 'trained');
  const chips = await page.locator('gpt-explorer .chips li.bytes').evaluateAll((els) => els.map((e) => ({
    text: e.textContent, title: e.querySelector('.byte').title })));
  assert.deepEqual(chips.map((c) => c.text), ['<0xC3>', '<0xAF>', '<0xC3>', '<0xA9>']);
  assert.match(chips[0].title, /first byte of a multi-byte UTF-8 character/);
  assert.match(chips[1].title, /part of a multi-byte UTF-8 character/);
  const axis = await page.locator('gpt-explorer .att-heat .byte-label').evaluateAll((els) => els.map((e) => e.textContent));
  assert.ok(axis.some((t) => t.startsWith('<0xC3>')), `attention axis labels: ${axis}`);

  // The untrained model generates arbitrary bytes: invalid UTF-8 becomes chips, valid sequences characters.
  await setAttrs(page, { weights: 'untrained', temperature: '1.5', 'top-k': '0', 'max-new-tokens': '120' });
  await forwardOf(page, 'naïve café', 'untrained');
  const { tokens } = await generate(page);
  assert.equal(tokens.length, 120);
  const shown = await page.locator('gpt-explorer .gen-output .generated .byte').count();
  assert.ok(shown > 0, 'byte chips in the generated text');
  const invalid = tokens.filter((t) => t >= 0x80).length;
  assert.ok(invalid > 0, 'the untrained model produced bytes above 0x7F');
  const text = await shadowText(page);
  assert.ok(!text.includes('\uFFFD'), 'no U+FFFD in the widget');
  assert.ok(text.includes('<0xC3>'), 'byte chips in the widget');
  await screenshot(page, 'gpt-explorer-bytes-untrained');
  assertClean(problems);
  await context.close();
});

test('a missing trained model falls back to the untrained model with a message; retry recovers', async () => {
  let block = true;
  const { page, context, problems } = await openExplorer(env, { width: 1280 }, '', {
    before: (_, ctx) => ctx.route('**/models/brown/model.safetensors', (route) => (block
      ? route.fulfill({ status: 404, contentType: 'text/plain', body: 'not found' }) : route.continue())),
  });
  const first = await page.evaluate(() => window.__ev.forward.at(-1));
  assert.equal(first.weights, 'fallback');
  assert.match(await page.textContent('gpt-explorer .model-message'), /trained model could not be loaded .*404.*untrained model/);
  assert.equal(await page.locator('gpt-explorer input#weights-trained').isDisabled(), true);
  assert.equal(await page.isChecked('gpt-explorer input#weights-untrained'), true);
  assert.equal(await page.locator('gpt-explorer table.candidates').count(), 1);
  assert.ok((await tableRows(page))[0].timesUniform < 10, 'the fallback is untrained');
  // The widget still works: a prompt change reruns the fallback model.
  await setAttrs(page, { prompt: 'Still alive' });
  await forwardOf(page, 'Still alive', 'fallback');
  problems.console = problems.console.filter((m) => !/404/.test(m)); // the browser logs the failed request

  block = false;
  await page.click('gpt-explorer button.retry');
  await forwardOf(page, 'Still alive', 'trained');
  assert.equal(await page.textContent('gpt-explorer .model-message'), '');
  assert.equal(await page.locator('gpt-explorer table.candidates').count(), 2);
  assertClean(problems);
  await context.close();
});

test('on the lesson page the checkpoint loads only near the viewport, with a progress bar', async () => {
  const { page, context, problems } = await openPage(env.browser, { width: 1280, height: 900 });
  const requests = [];
  page.on('request', (r) => r.url().endsWith('/models/brown/model.safetensors') && requests.push(r.url()));
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  await context.route('**/models/brown/model.safetensors', async (route) => {
    const response = await route.fetch();
    await held; // hold the weights until the progress bar has been seen
    await route.fulfill({ response });
  });
  await page.addInitScript(() => {
    window.__gpt = [];
    document.addEventListener('blockscope-forward', (e) => e.target.id === 'gpt-widget' && window.__gpt.push(e.detail));
  });
  await page.goto(env.url);
  await page.locator('gelu-explorer td[data-kind="relu"]').filter({ hasText: '1.0000' }).waitFor();
  await page.waitForTimeout(300);
  assert.deepEqual(requests, [], 'no checkpoint request before the widget is near the viewport');
  assert.match(await page.textContent('#gpt-widget .status'), /loads when this widget scrolls into view/);

  await page.locator('#gpt-widget').scrollIntoViewIfNeeded();
  await page.locator('#gpt-widget .loading:not([hidden]) progress').waitFor();
  assert.match(await page.textContent('#gpt-widget .progress-text'), /Loading the trained model/);
  release();
  await page.waitForFunction(() => window.__gpt.length > 0, null, { timeout: 30000 });
  assert.equal(await page.evaluate(() => window.__gpt[0].weights), 'trained');
  assert.equal(await page.locator('#gpt-widget .loading').isHidden(), true);
  assert.equal(requests.length, 1);
  assertClean(problems);
  await context.close();
});
