// <gpt-explorer model="sort"> in Chromium (web/examples/gpt-explorer-sort.html): the shipped sort model, tokenized by
// its own tokens.json. The prompt defaults to its card's example input and Generate to greedy decoding of the task's n
// outputs (both from models/sort, not copied here); the chips are the symbols, and the generated text is the sorted
// input — also for a held-out input typed into the prompt. Ablating the head the card marks most essential (its
// checkbox, from the keyboard) gives the ablated model's logits and output, computed independently by the runtime in
// Node, which no longer sort; restoring the heads sorts again. At 360 px in dark mode nothing overflows, no request
// fails (tokens.json is the only tokenizer file looked for), no console error. A deep link may name the shipped model
// (model=sort) without allow-remote-models; a URL still needs it. Copy as PyTorch tokenizes with the model's symbols
// and, run by Debian's PyTorch, prints the widget's candidates. The guide's live example sorts too.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { promisify } from 'node:util';

import { example, makeSplits, symbols } from '../../models/sort/task.mjs';
import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { assertClean, browserSuite, openPage, screenshot } from './support.mjs';

const env = browserSuite();
const MODEL = new URL('../../web/models/sort/', import.meta.url);
const task = JSON.parse(readFileSync(new URL('../../models/sort/recipe.json', import.meta.url), 'utf8')).task;
const metrics = JSON.parse(readFileSync(new URL('metrics.json', MODEL), 'utf8'));
const { n } = task;
const words = (ids) => ids.map((id) => symbols(task)[id]).join(' ');
// The card's example input (models/sort/card.mjs: the first training input of a one-example split).
const cardInput = makeSplits({ ...task, train_examples: 1, heldout_examples: 1 }).train[0];
const heldout = makeSplits(task).heldout;
// The head whose ablation breaks the most held-out inputs, by the card's own measurement.
const essential = metrics.heads.reduce((a, b) => (b.ablated_exact < a.ablated_exact ? b : a)).head;

/** Greedy decoding of n outputs, with `ablate` heads zeroed, by the runtime in Node (not the page's). */
async function reference(ids, ablate = []) {
  const bs = await loadBlockscope();
  const gpt = await bs.loadModel({ url: MODEL.href });
  try {
    gpt.setHeadAblation(ablate);
    const V = gpt.config.vocab_size;
    const logits = gpt.forward(ids).logits;
    const out = [...gpt.generate(ids, { maxNewTokens: n, temperature: 0 })].map((g) => g.token);
    return { out, last: Array.from(logits.slice((ids.length - 1) * V)) };
  } finally {
    gpt.dispose();
  }
}

/** Opens the example page with the widget's events recorded and every failed response noted. */
async function openSortPage(options, hash = '', page = 'examples/gpt-explorer-sort.html') {
  const session = await openPage(env.browser, options);
  session.failed = [];
  session.context.on('response', (r) => r.status() >= 400 && session.failed.push(`${r.status()} ${r.url()}`));
  await session.page.addInitScript(() => {
    window.__ev = { forward: [], generated: [], model: [] };
    for (const name of Object.keys(window.__ev)) {
      document.addEventListener(`blockscope-${name}`, (e) => window.__ev[name].push(e.detail));
    }
  });
  await session.page.goto(`${env.url}${page}${hash}`);
  return session;
}

/** The last forward pass once it has `ids`, with the widget's chips and first table row. */
async function shownFor(page, ids) {
  await page.waitForFunction((want) => window.__ev.forward.at(-1)?.ids.join() === want, ids.join(), { timeout: 30000 });
  return page.evaluate(() => {
    const r = document.querySelector('gpt-explorer').shadowRoot;
    return {
      ev: window.__ev.forward.at(-1),
      chips: [...r.querySelectorAll('.chips li[data-position]')].map((li) => li.textContent),
      top: r.querySelector('table.candidates.selected tbody tr th .tok')?.textContent,
      note: r.querySelector('.token-note').textContent,
      prompt: r.querySelector('#prompt').value,
      temperature: r.querySelector('#temperature').value,
      maxNew: r.querySelector('#max-new-tokens').value,
    };
  });
}

/** Presses Generate from the keyboard and returns the blockscope-generated detail and the output box's text. */
async function generate(page) {
  const before = await page.evaluate(() => window.__ev.generated.length);
  await page.locator('gpt-explorer button.generate').focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction((k) => window.__ev.generated.length > k, before, { timeout: 30000 });
  return page.evaluate(() => ({ ...window.__ev.generated.at(-1),
    output: document.querySelector('gpt-explorer').shadowRoot.querySelector('.gen-output').textContent }));
}

test('model="sort": symbols in, greedy sorted numbers out; ablating the essential head breaks it (360 px, dark)', async () => {
  const { page, context, problems, failed } = await openSortPage({ width: 360, height: 900, colorScheme: 'dark' });
  const cardIds = example(cardInput, task).slice(0, n + 1);
  const seen = await shownFor(page, cardIds);
  // The model's defaults: its card's example as the prompt, greedy decoding of n tokens.
  assert.equal(seen.prompt, words(cardIds));
  assert.equal(Number(seen.temperature), 0);
  assert.equal(Number(seen.maxNew), n);
  assert.deepEqual(seen.chips, words(cardIds).split(' '), 'one chip per symbol');
  assert.match(seen.note, new RegExp(`own ${symbols(task).length} symbols .*tokens\\.json`));
  const sorted = example(cardInput, task).slice(n + 1);
  assert.equal(seen.ev.candidates[0].id, sorted[0], 'the first output is the smallest input');
  assert.equal(seen.top, symbols(task)[sorted[0]]);
  let gen = await generate(page);
  assert.deepEqual(gen.tokens, sorted);
  assert.equal(gen.text, words(sorted));
  assert.equal(gen.output, `${words(cardIds)} ${words(sorted)}`, 'prompt and continuation, a space between');

  // A held-out input typed into the prompt is sorted too.
  const xs = heldout[0];
  const ids = example(xs, task);
  await page.locator('gpt-explorer #prompt').fill(words(ids.slice(0, n + 1)));
  await shownFor(page, ids.slice(0, n + 1));
  gen = await generate(page);
  assert.equal(gen.text, words(ids.slice(n + 1)), `${xs.join(' ')} sorted`);

  // Ablate the essential head from its checkbox, with the keyboard: the page shows the ablated model's logits and
  // output, as the runtime in Node computes them; they do not sort this input.
  const [block, head] = essential.split('.');
  const ablated = await reference(ids.slice(0, n + 1), [essential]);
  assert.notDeepEqual(ablated.out, ids.slice(n + 1), `ablating ${essential} leaves ${xs.join(' ')} sorted: pick another input`);
  await page.locator(`gpt-explorer input#ablate-${block}-${head}`).focus();
  await page.keyboard.press('Space');
  await page.waitForFunction((h) => window.__ev.forward.at(-1).ablated?.join() === h, essential);
  const ev = await page.evaluate(() => window.__ev.forward.at(-1));
  const diff = Math.max(...ev.lastLogits.map((v, i) => Math.abs(v - ablated.last[i])));
  assert.ok(diff <= 1e-4, `ablated logits differ from the runtime's by ${diff}`);
  gen = await generate(page);
  assert.deepEqual(gen.tokens, ablated.out, 'the ablated model\'s greedy output');
  assert.notEqual(gen.text, words(ids.slice(n + 1)));
  await page.locator('gpt-explorer button.clear-ablation').click();
  await page.waitForFunction(() => window.__ev.forward.at(-1).ablated?.length === 0);
  gen = await generate(page);
  assert.equal(gen.text, words(ids.slice(n + 1)), 'every head back: sorted again');

  // A word that is not a symbol is reported, naming it; the widget keeps working.
  await page.locator('gpt-explorer #prompt').fill(`3 1 ${task.alphabet} SEP`);
  await page.locator('gpt-explorer .status').filter({ hasText: new RegExp(`"${task.alphabet}" \\(at character 4\\) is not a symbol`) })
    .waitFor();

  // Nothing wider than the phone: the page, the widget, and the parts the sort model fills with its own text (the
  // explorer's per-token LayerNorm table and lens scroll inside their boxes by design, as with any model).
  const fit = await page.evaluate(() => {
    const host = document.querySelector('gpt-explorer');
    const right = (sel) => [...host.shadowRoot.querySelectorAll(sel)].map((el) => Math.round(el.getBoundingClientRect().right));
    return { page: document.documentElement.scrollWidth, host: host.getBoundingClientRect().right,
      parts: right('table.candidates, .chips, .token-note, .gen-output, .gen .controls, .ablation-note, .model-text') };
  });
  assert.ok(fit.page <= 360 && fit.host <= 360, `page ${fit.page} px, widget to ${fit.host} px`);
  assert.ok(fit.parts.every((r) => r <= 360), `parts end at ${fit.parts}`);
  await screenshot(page, 'gpt-sort-360-dark');
  assert.deepEqual(failed, [], 'no request failed (no tokenizer file looked for in vain)');
  assertClean(problems);
  await context.close();
});

test('a deep link may name the shipped sort model (not a URL); the untrained twin does not sort', async () => {
  const { page, context, problems, failed } = await openSortPage({ width: 1280 }, '#gpt.model=sort&gpt.weights=untrained',
    'examples/gpt-explorer.html');
  const cardIds = example(cardInput, task).slice(0, n + 1);
  const seen = await shownFor(page, cardIds);
  assert.equal(seen.ev.weights, 'untrained');
  assert.equal(await page.evaluate(() => document.querySelector('gpt-explorer').getAttribute('model')), 'sort');
  // Both tables: the trained model's first choice is the smallest input, with the twin next to it.
  assert.equal(seen.ev.compare.weights, 'trained');
  assert.equal(seen.ev.compare.candidates[0].id, example(cardInput, task)[n + 1]);
  const model = await page.evaluate(() => window.__ev.model.at(-1));
  assert.equal(model.config.vocab_size, symbols(task).length);
  assert.match(await page.locator('gpt-explorer label[for="weights-trained"]').textContent(), new RegExp(`to sort ${n} numbers from 0 to ${task.alphabet - 1}`));
  assert.match(await page.locator('gpt-explorer .model-text').textContent(), new RegExp(`vocabulary ${symbols(task).length} .* untrained`));
  // A URL in the hash is still refused without allow-remote-models.
  await page.evaluate(() => { location.hash = 'gpt.model=https://example.com/x/'; });
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => document.querySelector('gpt-explorer').getAttribute('model')), 'sort');
  assert.deepEqual(failed, []);
  assertClean(problems);
  await context.close();
});

test('Copy as PyTorch with the sort model: the symbols tokenize the prompt and PyTorch gives the widget\'s candidates', async () => {
  const { page, context, problems } = await openSortPage({ width: 800 });
  await shownFor(page, example(cardInput, task).slice(0, n + 1));
  const { code, shown } = await page.evaluate(() => ({ code: document.querySelector('gpt-explorer').toPyTorch(),
    shown: window.__ev.forward.at(-1).candidates }));
  assert.ok(code.includes(`SYMBOLS = ${JSON.stringify(symbols(task))}`), 'the snippet carries tokens.json');
  const { stdout } = await promisify(execFile)('/usr/bin/python3', ['-c', code], { encoding: 'utf8', timeout: 300_000 });
  const line = stdout.trim().split('\n').find((l) => l.startsWith('candidates '));
  const py = JSON.parse(line.slice('candidates '.length));
  assert.deepEqual(py.map(([id]) => id), shown.map((c) => c.id), 'the same ranked ids');
  py.forEach(([, p], i) => assert.ok(Math.abs(p - shown[i].probability) <= 2e-6, `#${i + 1}: PyTorch ${p}, widget ${shown[i].probability}`));
  assertClean(problems);
  await context.close();
});

test('the guide\'s "A model that sorts" runs live, and its attribute table lists the shipped names', async () => {
  const { page, context, problems, failed } = await openSortPage({ width: 1000 }, '', 'docs/embedding.html');
  await page.waitForSelector('#attribute-tables[data-generated]');
  const row = await page.locator('table.attrs[data-tag="gpt-explorer"] tr[data-attr="model"] td.values').textContent();
  assert.equal(row, 'brown | brown-bpe | sort | URL');
  await page.locator('#live-sort').scrollIntoViewIfNeeded();
  await shownFor(page, example(cardInput, task).slice(0, n + 1));
  const gen = await generate(page);
  assert.equal(gen.text, words(example(cardInput, task).slice(n + 1)));
  assert.deepEqual(failed, []);
  assertClean(problems);
  await context.close();
});
