// The wasm flavour a page gets in Chromium, which validates relaxed SIMD without flags: 'auto' (the default) loads
// simd-relaxed, in the calling thread and in the client's Web Worker; a page that forces the simd flavour computes the
// bits of tests/golden/simd128_bits.json exactly (tests/reference/simd128_bits.mjs, run in the page as it is), the
// same bits Node computes; and simd-relaxed's logits stay within the logits tolerance of simd's.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { assertClean, browserSuite, openPage } from './support.mjs';

const golden = JSON.parse(readFileSync(new URL('../golden/simd128_bits.json', import.meta.url), 'utf8')).outputs;
const js = { 'Content-Type': 'text/javascript; charset=utf-8' };
const env = browserSuite({
  pages: {
    '/flavours.html': { body: '<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body></body></html>' },
    '/test/simd128_bits.mjs': { body: readFileSync(new URL('../reference/simd128_bits.mjs', import.meta.url), 'utf8'), headers: js },
  },
});

test('Chromium: auto loads simd-relaxed in the page and in the worker; forced simd computes the golden bits', async () => {
  const { page, context, problems } = await openPage(env.browser);
  await page.goto(`${env.url}flavours.html`);
  const r = await page.evaluate(async () => {
    const { loadBlockscope, relaxedSimdSupported } = await import('/runtime/blockscope.js');
    const { connect } = await import('/runtime/client.js');
    const { CONFIG, simd128Outputs } = await import('/test/simd128_bits.mjs');
    const sha256 = async (bytes) => Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)),
      (b) => b.toString(16).padStart(2, '0')).join('');
    const auto = await loadBlockscope();
    const client = await connect();
    const simd = await loadBlockscope({ flavour: 'simd' });
    const ids = [1, 5, 9, 33, 63, 0, 2];
    const logits = (bs) => Array.from(bs.createGPT(CONFIG, { seed: 99 }).forward(ids).logits);
    return {
      relaxed: relaxedSimdSupported(), auto: auto.flavour, isa: auto.buildInfo().isa, worker: client.flavour, mode: client.mode,
      simdBits: await simd128Outputs(simd, sha256), simdLogits: logits(simd), relaxedLogits: logits(auto),
    };
  });
  assert.equal(r.relaxed, true);
  assert.equal(r.auto, 'simd-relaxed');
  assert.equal(r.isa, 'relaxed-simd');
  assert.deepEqual([r.worker, r.mode], ['simd-relaxed', 'worker']);
  assert.deepEqual(r.simdBits, golden);
  const worst = Math.max(...r.simdLogits.map((v, i) => Math.abs(v - r.relaxedLogits[i])));
  console.log(`Chromium: largest |simd-relaxed - simd| logit ${worst.toExponential(2)}`);
  assert.ok(worst <= 1e-4, `simd-relaxed logits differ from simd's by ${worst}`);
  assertClean(problems);
  await context.close();
});
