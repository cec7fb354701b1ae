// A model with its own byte-level BPE in <gpt-explorer>, in Chromium: tests/golden/models/bpe_tiny holds a tiny random
// GPT next to a hand-written GPT-2-format vocab.json + merges.txt (tests/reference/make_bpe_model.mjs). Loaded from a
// directory URL, and from picked files, the explorer tokenizes the prompt with those files (the chips are the BPE
// tokens worked out by hand, which the CLI's tokenizer also gives) and its next-token table shows the CLI's
// `blockscope forward` logits on those ids within 1e-4. No console errors (nothing is looked for in vain).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

import { assertClean, browserSuite, openPage } from './support.mjs';

const env = browserSuite();
const MODEL_DIR = fileURLToPath(new URL('../golden/models/bpe_tiny/', import.meta.url));
const golden = JSON.parse(readFileSync(new URL('../golden/models/bpe_tiny.json', import.meta.url), 'utf8'));
const FILES = ['config.json', 'model.safetensors', 'vocab.json', 'merges.txt'];
const visible = (t) => t.replace(/ /g, '␣');
const num = (text) => Number(text.replace('−', '-'));

/** Serves the fixture at /models/bpe_tiny/ (requests from the runtime's worker included); anything else there 404s. */
async function serveFixture(context) {
  await context.route('**/models/bpe_tiny/*', (route) => {
    const name = new URL(route.request().url()).pathname.split('/').pop();
    return FILES.includes(name) && existsSync(MODEL_DIR + name)
      ? route.fulfill({ path: MODEL_DIR + name }) : route.fulfill({ status: 404, body: 'not found' });
  });
}

/** The explorer's prompt chips, next-token rows and token note once its forward pass of `ids.length` tokens is shown. */
async function shown(page, n) {
  await page.waitForFunction((k) => window.__forward.at(-1)?.ids.length === k, n, { timeout: 30000 });
  await page.waitForFunction(() => document.querySelector('gpt-explorer').shadowRoot.querySelectorAll('table.candidates.selected tbody tr').length > 0);
  return page.evaluate(() => {
    const r = document.querySelector('gpt-explorer').shadowRoot;
    return {
      ev: window.__forward.at(-1),
      chips: [...r.querySelectorAll('.chips li[data-position]')].map((li) => li.textContent),
      chipIds: [...r.querySelectorAll('.chips li[data-position]')].map((li) => Number(li.dataset.id)),
      rows: [...r.querySelectorAll('table.candidates.selected tbody tr')].map((tr) => ({ id: Number(tr.dataset.id),
        logit: tr.querySelector('td.logit').textContent })),
      note: r.querySelector('.token-note').textContent,
    };
  });
}

function assertGolden(seen) {
  assert.deepEqual(seen.ev.ids, golden.ids, 'the BPE ids of the model\'s own files');
  assert.deepEqual(seen.chipIds, golden.ids);
  assert.deepEqual(seen.chips, golden.tokens.map(visible), 'the chips show the BPE tokens');
  assert.match(seen.note, /model's own byte-level BPE .*vocab\.json \+ merges\.txt; vocabulary 262/);
  const expected = golden.lastLogits;
  assert.equal(seen.ev.lastLogits.length, expected.length);
  const diff = Math.max(...seen.ev.lastLogits.map((v, i) => Math.abs(v - expected[i])));
  assert.ok(diff <= 1e-4, `logits differ from the CLI's by ${diff}`);
  const ranked = expected.map((v, id) => ({ v, id })).sort((a, b) => b.v - a.v || a.id - b.id).slice(0, seen.rows.length);
  assert.deepEqual(seen.rows.map((r) => r.id), ranked.map((r) => r.id), 'the table ranks the CLI\'s logits');
  for (const r of seen.rows) {
    assert.ok(Math.abs(num(r.logit) - expected[r.id]) <= 1e-4 + 5e-5, `token ${r.id}: shows ${r.logit}, the CLI ${expected[r.id]}`);
  }
}

test('a model directory with vocab.json + merges.txt: the explorer shows its BPE tokens and the CLI\'s logits', async () => {
  const { page, context, problems } = await openPage(env.browser, { width: 800 });
  await serveFixture(context);
  await page.addInitScript(() => {
    window.__forward = [];
    document.addEventListener('blockscope-forward', (e) => window.__forward.push(e.detail));
  });
  await page.route(`${env.url}own-bpe.html`, (route) => route.fulfill({ contentType: 'text/html', body: `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>own BPE</title></head><body>
<gpt-explorer loading="eager" model="/models/bpe_tiny/" prompt="${golden.text}"></gpt-explorer>
<script type="module" src="/dist/blockscope-widgets.js"></script></body></html>` }));
  await page.goto(`${env.url}own-bpe.html`);
  assertGolden(await shown(page, golden.ids.length));
  // Copy as PyTorch names the model's own tokenizer (not GPT-2's) and carries its ids.
  const snippet = await page.evaluate(() => document.querySelector('gpt-explorer').toPyTorch());
  assert.match(snippet, /model's own byte-level BPE \(.*\/models\/bpe_tiny\/vocab\.json \+ merges\.txt\)/);
  assert.ok(snippet.includes(`ids = ${JSON.stringify(golden.ids)}`));
  assert.doesNotMatch(snippet, /tiktoken/);
  assertClean(problems);
  await context.close();
});

test('picked files with vocab.json + merges.txt replace the shipped model and its byte tokenizer', async () => {
  const { page, context, problems } = await openPage(env.browser, { width: 800 });
  await page.addInitScript(() => {
    window.__forward = [];
    document.addEventListener('blockscope-forward', (e) => window.__forward.push(e.detail));
  });
  await page.goto(`${env.url}examples/gpt-explorer.html#gpt.prompt=${encodeURIComponent(golden.text)}`);
  const bytes = await shown(page, golden.text.length); // the shipped model reads one token per byte
  assert.match(bytes.note, /UTF-8 bytes/);
  await page.locator('gpt-explorer details.loader summary').click();
  await page.setInputFiles('gpt-explorer #model-files', FILES.map((f) => MODEL_DIR + f));
  assertGolden(await shown(page, golden.ids.length));
  assertClean(problems);
  await context.close();
});
