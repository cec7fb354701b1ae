// In real Chromium, a page starts on the light wasm module: <gelu-explorer> alone downloads only its flavour's light
// module (compiled by the page, instantiated in the worker) and never the full one; a <gpt-explorer> added later makes
// the worker fetch the full module once, and both widgets then work side by side.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { wasmUrl } from '../../web/runtime/locations.js';
import { assertClean, browserSuite, openPage, widgetPage } from './support.mjs';

/** The file name of `flavour`'s `module` (locations.js: simd-relaxed's light module is simd's). */
const wasmFile = (flavour, module) => wasmUrl(flavour, undefined, module).pathname.split('/').pop();

const pages = {};
const GELU_ONLY = widgetPage(pages, '/gelu-only.html', '<gelu-explorer></gelu-explorer>');
const env = browserSuite({ pages });

/** The wasm files requested so far by the page and its worker, by file name. */
function wasmRequests(context) {
  const seen = [];
  context.on('request', (req) => {
    const name = new URL(req.url()).pathname.split('/').pop();
    if (name.endsWith('.wasm')) seen.push(name);
  });
  return seen;
}

test('<gelu-explorer> alone downloads only the light module; a <gpt-explorer> added later brings the full one', async () => {
  const { page, context, problems } = await openPage(env.browser);
  const wasm = wasmRequests(context);
  await page.goto(`${env.url}${GELU_ONLY.slice(1)}`);
  await page.locator('gelu-explorer td[data-kind="gelu_tanh"]').filter({ hasText: '0.8412' }).first().waitFor({ timeout: 30000 });
  const client = () => page.evaluate(async () => {
    const rt = await (await import('./dist/blockscope-widgets.js')).connect();
    return { flavour: rt.flavour, mode: rt.mode, module: (await rt.buildInfo()).module };
  });
  const before = await client();
  assert.equal(before.mode, 'worker');
  assert.equal(before.module, 'light');
  // The widget has drawn every number it shows: let any late request show up before judging.
  await page.waitForLoadState('networkidle');
  assert.deepEqual(wasm, [wasmFile(before.flavour, 'light')], 'the page fetched only the light module, once');

  await page.evaluate(() => {
    window.__forward = [];
    document.addEventListener('blockscope-forward', (e) => window.__forward.push(e.target.localName));
    const gpt = document.createElement('gpt-explorer');
    for (const [k, v] of Object.entries({ weights: 'random', layers: '1', 'emb-dim': '16', heads: '2', context: '32' })) {
      gpt.setAttribute(k, v);
    }
    document.body.append(gpt);
  });
  await page.waitForFunction(() => window.__forward.includes('gpt-explorer'), null, { timeout: 30000 });
  assert.deepEqual(wasm, [wasmFile(before.flavour, 'light'), wasmFile(before.flavour, 'full')],
    'the full module of the same flavour was fetched once, after the light one');
  assert.deepEqual(await client(), { ...before, module: 'full' });

  // The GELU widget still answers, now from the full module: its readout moved to x = 2 shows GELU(2) = 1.9546.
  await page.evaluate(() => document.querySelector('gelu-explorer').setAttribute('x', '2'));
  await page.locator('gelu-explorer td[data-kind="gelu_tanh"]').filter({ hasText: '1.9546' }).first().waitFor({ timeout: 30000 });
  assertClean(problems);
  await context.close();
});
