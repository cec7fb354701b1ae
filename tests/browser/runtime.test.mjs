// The runtime demo page in real Chromium: every wasm flavour loads from the local server and run a tiny GPT
// forward pass; logits and LayerNorm statistics appear and follow the prompt.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertClean, browserSuite, openPage, screenshot } from './support.mjs';

const env = browserSuite();

for (const flavour of ['simd-relaxed', 'simd', 'baseline']) {
  test(`runtime demo runs a GPT forward pass in Chromium (${flavour})`, async () => {
    const { page, context, problems } = await openPage(env.browser);
    await page.goto(`${env.url}runtime.html?flavour=${flavour}`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
    assert.match(await page.textContent('#status'), new RegExp(`wasm ${flavour}`));
    assert.equal(await page.locator('#logits tbody tr').count(), 5);
    assert.equal(await page.locator('#stats tbody tr').count(), 5); // 2 blocks x 2 norms + final
    // Pre-norm: every LayerNorm output has mean ~0 for the last token.
    const outMeans = await page.locator('#stats tbody tr td:nth-child(4)').allTextContents();
    for (const m of outMeans) assert.ok(Math.abs(Number(m)) < 0.5, `output mean ${m}`);
    const before = await page.textContent('#logits tbody');
    await page.fill('#prompt', 'A different prompt');
    await page.waitForFunction((prev) => document.querySelector('#logits tbody').textContent !== prev, before);
    assert.match(await page.textContent('#status'), /^18 tokens/);
    await screenshot(page, `runtime-${flavour}`);
    assertClean(problems);
    await context.close();
  });
}
