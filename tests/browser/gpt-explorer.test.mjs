// <gpt-explorer> in real Chromium: the next-token table, the LayerNorm heatmap and the attention readout show the
// core's numbers (checked against a second forward pass made in the page through the client), they follow the
// prompt and the layer/head selectors, generation streams tokens and Stop cancels it, greedy generation matches
// the core's, long prompts are cropped or rejected with a message, the checkpoint loader reports failures, deep
// links work, and the page stays clean and narrow-screen friendly in light and dark.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertClean, browserSuite, fmt4, openPage, screenshot } from './support.mjs';

const env = browserSuite();


/** A safetensors file (8-byte header length, JSON header, float32 data) from [{name, shape, data}]. */
function safetensors(params) {
  const header = {};
  let offset = 0;
  for (const { name, shape, data } of params) {
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + 4 * data.length] };
    offset += 4 * data.length;
  }
  const json = Buffer.from(JSON.stringify(header));
  const out = Buffer.alloc(8 + json.length + offset);
  out.writeBigUInt64LE(BigInt(json.length), 0);
  json.copy(out, 8);
  let at = 8 + json.length;
  for (const { data } of params) {
    for (const v of data) {
      out.writeFloatLE(v, at);
      at += 4;
    }
  }
  return out;
}

async function open(options, hash = '') {
  const { page, context, problems } = await openPage(env.browser, options);
  await page.addInitScript(() => {
    window.__ev = { forward: [], token: [], generated: [], model: [] };
    for (const name of Object.keys(window.__ev)) {
      document.addEventListener(`blockscope-${name}`, (e) => window.__ev[name].push(e.detail));
    }
  });
  await page.goto(`${env.url}examples/gpt-explorer.html${hash}`);
  await page.waitForFunction(() => window.__ev.forward.length > 0, null, { timeout: 30000 });
  await page.waitForSelector('gpt-explorer .att-heat svg');
  return { page, context, problems };
}

/** The same model and prompt run again through the client in the page: last-token logits and inspection. */
async function coreRun(page) {
  return page.evaluate(async () => {
    const { connect } = await import('/dist/blockscope-widgets.js');
    const { config, ids } = window.__ev.forward.at(-1);
    const seed = Number(document.querySelector('gpt-explorer').getAttribute('seed') ?? 123);
    const client = await connect();
    const gpt = await client.createGPT(config, { seed });
    const { logits, inspection } = await gpt.forward(ids, { inspect: true });
    await gpt.dispose();
    const V = config.vocab_size;
    const T = ids.length;
    const last = Array.from(logits.slice((T - 1) * V));
    return {
      T, last,
      norm1InVar: inspection.layers.map((l) => Array.from(l.norm1.in.var)),
      norm2InMean: inspection.layers.map((l) => Array.from(l.norm2.in.mean)),
      attn: inspection.layers.map((l) => Array.from(l.attnWeights)),
      NH: inspection.NH,
    };
  });
}

test('next-token table, LayerNorm heatmap and attention show the core\'s numbers and follow the controls', async () => {
  const { page, context, problems } = await open({ width: 1280 });
  let core = await coreRun(page);
  // Top-1 candidate: the core's argmax logit, and its softmax probability.
  const argmax = core.last.reduce((best, v, i) => (v > core.last[best] ? i : best), 0);
  const m = core.last[argmax];
  const z = core.last.reduce((s, v) => s + Math.exp(v - m), 0);
  const first = page.locator('gpt-explorer table.candidates tbody tr').first();
  assert.equal(await first.getAttribute('data-id'), String(argmax));
  assert.equal(await first.locator('td.logit').textContent(), fmt4(core.last[argmax]));
  const pct = 100 / z; // the top token's softmax probability, in percent
  assert.equal(await first.locator('td.prob').textContent(), `${pct >= 1 ? pct.toFixed(2) : pct.toPrecision(3)} %`);
  assert.equal(await page.locator('gpt-explorer table.candidates tbody tr').count(), 10);
  assert.equal(await page.locator('gpt-explorer .chips li').count(), core.T);

  // The LayerNorm readout (block 1, last token, norm1 input variance by default) is the core's.
  assert.match(await page.textContent('gpt-explorer .ln-readout'), new RegExp(`block 1, .*position ${core.T - 1}\\): ${fmt4(core.norm1InVar[0][core.T - 1])}$`));
  await page.selectOption('gpt-explorer select#ln', 'norm2');
  await page.selectOption('gpt-explorer select#stat', 'mean');
  await page.waitForFunction(() => /norm2/.test(document.querySelector('gpt-explorer').shadowRoot.querySelector('.ln-heat svg title').textContent));
  await page.focus('gpt-explorer .ln-heat');
  await page.keyboard.press('ArrowDown');
  assert.match(await page.textContent('gpt-explorer .ln-readout'), new RegExp(`block 2, .*: ${fmt4(core.norm2InMean[1][core.T - 1])}$`));

  // Attention: the readout is the core's weight; head and layer selectors change the heatmap.
  const fills = () => page.locator('gpt-explorer .att-heat svg rect').evaluateAll((els) => els.map((e) => e.getAttribute('fill')).join());
  const T = core.T;
  const w = (layer, head, q, k) => core.attn[layer][head * T * T + q * T + k];
  assert.match(await page.textContent('gpt-explorer .att-readout'), new RegExp(`weight ${fmt4(w(0, 0, T - 1, 0))}\\.$`));
  const before = await fills();
  await page.selectOption('gpt-explorer select#head', '2');
  await page.waitForFunction(() => document.querySelector('gpt-explorer').shadowRoot.querySelector('.att-heat').dataset.head === '2');
  const head2 = await fills();
  assert.notEqual(head2, before);
  await page.focus('gpt-explorer .att-heat');
  await page.keyboard.press('ArrowRight');
  assert.match(await page.textContent('gpt-explorer .att-readout'), new RegExp(`\\(position 1\\) with weight ${fmt4(w(0, 1, T - 1, 1))}\\.$`));
  await page.selectOption('gpt-explorer select#layer', '3');
  await page.waitForFunction(() => document.querySelector('gpt-explorer').shadowRoot.querySelector('.att-heat').dataset.layer === '3');
  assert.notEqual(await fills(), head2);
  assert.match(await page.textContent('gpt-explorer .att-readout'), new RegExp(`weight ${fmt4(w(2, 1, T - 1, 1))}\\.$`));
  assert.match(await page.textContent('gpt-explorer .hist-text'), /^Block 3: /);

  // Typing a prompt reruns the model and updates the table.
  const table = await page.textContent('gpt-explorer table.candidates tbody');
  await page.fill('gpt-explorer textarea#prompt', 'The cat sat on the mat');
  await page.waitForFunction(() => window.__ev.forward.at(-1).ids.length === 22 && window.__ev.forward.at(-1).tokens[1] === 'h');
  await page.waitForFunction((prev) => document.querySelector('gpt-explorer').shadowRoot.querySelector('table.candidates tbody').textContent !== prev, table);
  core = await coreRun(page);
  const top = core.last.reduce((best, v, i) => (v > core.last[best] ? i : best), 0);
  assert.equal(await first.getAttribute('data-id'), String(top));
  assert.equal(await first.locator('td.logit').textContent(), fmt4(core.last[top]));

  await screenshot(page, 'gpt-explorer-desktop-light');
  assertClean(problems);
  await context.close();
});

test('generation streams tokens, Stop cancels it, and greedy output matches the core', async () => {
  const { page, context, problems } = await open({ width: 1280 });
  await page.fill('gpt-explorer input#max-new-tokens', '1000');
  await page.dispatchEvent('gpt-explorer input#max-new-tokens', 'change');
  await page.click('gpt-explorer button.generate');
  await page.waitForFunction(() => window.__ev.token.length >= 5);
  assert.equal(await page.locator('gpt-explorer button.generate').isDisabled(), true);
  assert.ok((await page.textContent('gpt-explorer .gen-output .generated')).length > 0, 'tokens stream into the output');
  await page.click('gpt-explorer button.stop');
  await page.waitForFunction(() => window.__ev.generated.length === 1);
  const stopped = await page.evaluate(() => window.__ev.generated[0]);
  assert.equal(stopped.stopReason, 'cancelled');
  assert.ok(stopped.tokens.length >= 5 && stopped.tokens.length < 1000, `${stopped.tokens.length} tokens before Stop`);
  assert.match(await page.textContent('gpt-explorer .gen-status'), /stopped/);
  assert.equal(await page.locator('gpt-explorer button.generate').isDisabled(), false);

  // Greedy (temperature 0), 8 tokens: the same tokens as the core's own generate() on the same model.
  await page.evaluate(() => {
    const el = document.querySelector('gpt-explorer');
    el.setAttribute('temperature', '0');
    el.setAttribute('max-new-tokens', '8');
  });
  await page.click('gpt-explorer button.generate');
  await page.waitForFunction(() => window.__ev.generated.length === 2);
  const greedy = await page.evaluate(() => window.__ev.generated[1]);
  assert.equal(greedy.stopReason, 'max_new_tokens');
  const expected = await page.evaluate(async () => {
    const { connect } = await import('/dist/blockscope-widgets.js');
    const { config, ids } = window.__ev.forward.at(-1);
    const gpt = await (await connect()).createGPT(config, { seed: 123 });
    const r = await gpt.generate(ids, { maxNewTokens: 8, temperature: 0, overflow: 'crop' });
    await gpt.dispose();
    return r.tokens;
  });
  assert.deepEqual(greedy.tokens, expected);
  assert.equal(await page.locator('gpt-explorer button.reuse').isDisabled(), false);
  await screenshot(page, 'gpt-explorer-generated-desktop-light');
  assertClean(problems);
  await context.close();
});

test('long prompts are cropped or rejected with a message; the loader reports failures; the widget keeps working', async () => {
  const { page, context, problems } = await open({ width: 1280 });
  const long = 'abcdefghij'.repeat(20); // 200 byte tokens > context 128
  await page.evaluate((p) => document.querySelector('gpt-explorer').setAttribute('prompt', p), long);
  await page.waitForFunction(() => window.__ev.forward.at(-1).ids.length === 128);
  assert.match(await page.textContent('gpt-explorer .prompt-note'), /200 tokens; the model reads the last 128/);
  assert.equal(await page.locator('gpt-explorer .chips li.cropped').count(), 72);
  await page.evaluate(() => document.querySelector('gpt-explorer').setAttribute('overflow', 'error'));
  await page.waitForFunction(() => /context length is 128/.test(document.querySelector('gpt-explorer').shadowRoot.querySelector('.prompt-note').textContent));
  await page.evaluate(() => document.querySelector('gpt-explorer').setAttribute('prompt', 'Short again'));
  await page.waitForFunction(() => window.__ev.forward.at(-1).ids.length === 11);
  assert.equal(await page.textContent('gpt-explorer .prompt-note'), '');

  await page.click('gpt-explorer details.loader summary');
  // A broken checkpoint (invalid config, junk weights) is refused with a message; the random model stays.
  await page.setInputFiles('gpt-explorer input#model-files', [
    { name: 'config.json', mimeType: 'application/json', buffer: Buffer.from('{"vocab_size": 256}') },
    { name: 'model.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.alloc(64) },
  ]);
  await page.waitForFunction(() => /Could not load the model: ./.test(document.querySelector('gpt-explorer').shadowRoot.querySelector('.loader-message').textContent));
  // A model too large for the tab is refused from its config alone, with the sizes in the message.
  const huge = { vocab_size: 100000000, context_length: 64, emb_dim: 64, n_heads: 4, n_layers: 2 };
  await page.setInputFiles('gpt-explorer input#model-files', [
    { name: 'config.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(huge)) },
    { name: 'model.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.alloc(64) },
  ]);
  await page.waitForFunction(() => /needs \d+ MB of float32 weights.*the limit is \d+ MB/.test(document.querySelector('gpt-explorer').shadowRoot.querySelector('.loader-message').textContent));
  const n = await page.evaluate(() => window.__ev.forward.length);
  await page.fill('gpt-explorer textarea#prompt', 'still working');
  await page.waitForFunction((k) => window.__ev.forward.length > k, n);

  // A valid checkpoint (a seed-7 model's weights written as safetensors) loads, and its logits are that model's.
  const { config, params, expected } = await page.evaluate(async () => {
    const { connect } = await import('/dist/blockscope-widgets.js');
    const cfg = { vocab_size: 256, context_length: 32, emb_dim: 32, n_heads: 2, n_layers: 2, drop_rate: 0, qkv_bias: false, tie_weights: false, norm: 'pre' };
    const gpt = await (await connect()).createGPT(cfg, { seed: 7 });
    const out = [];
    for (const { name, shape } of gpt.parameters) out.push({ name, shape, data: Array.from(await gpt.getParameter(name)) });
    const ids = Array.from(new TextEncoder().encode('still working'));
    const { logits } = await gpt.forward(ids);
    await gpt.dispose();
    return { config: cfg, params: out, expected: Array.from(logits.slice((ids.length - 1) * 256)) };
  });
  await page.setInputFiles('gpt-explorer input#model-files', [
    { name: 'config.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(config)) },
    { name: 'model.safetensors', mimeType: 'application/octet-stream', buffer: safetensors(params) },
  ]);
  await page.waitForFunction(() => window.__ev.model.at(-1).source === 'loaded' && window.__ev.forward.at(-1).config.emb_dim === 32);
  const top = expected.reduce((best, v, i) => (v > expected[best] ? i : best), 0);
  const first = page.locator('gpt-explorer table.candidates tbody tr').first();
  assert.equal(await first.getAttribute('data-id'), String(top));
  assert.equal(await first.locator('td.logit').textContent(), fmt4(expected[top]));
  assert.match(await page.textContent('gpt-explorer .loader-message'), /^Loaded config\.json \+ model\.safetensors\.$/);
  await page.click('gpt-explorer button.use-random');
  await page.waitForFunction(() => window.__ev.model.at(-1).source === 'random' && window.__ev.forward.at(-1).config.emb_dim === 64);
  assert.equal(await page.locator('gpt-explorer table.candidates tbody tr').count(), 10);
  assertClean(problems);
  await context.close();
});

test('deep link configures the view; 360 px and dark mode fit without horizontal scrolling', async () => {
  for (const [width, colorScheme] of [[360, 'dark'], [360, 'light'], [1280, 'dark']]) {
    const { page, context, problems } = await open({ width, height: 800, colorScheme, reducedMotion: 'reduce' },
      '#gpt.layer=2&gpt.head=3&gpt.stat=mean&gpt.prompt=Hello%20world&gpt.top-k=5');
    await page.waitForFunction(() => document.querySelector('gpt-explorer').shadowRoot.querySelector('.att-heat').dataset.head === '3');
    assert.equal(await page.inputValue('gpt-explorer select#layer'), '2');
    assert.equal(await page.inputValue('gpt-explorer select#stat'), 'mean');
    assert.equal(await page.inputValue('gpt-explorer input#top-k'), '5');
    assert.deepEqual(await page.evaluate(() => window.__ev.forward.at(-1).ids.length), 11);
    const [scrollW, innerW] = await page.evaluate(() => [document.documentElement.scrollWidth, innerWidth]);
    assert.ok(scrollW <= innerW, `page scrolls horizontally: ${scrollW} > ${innerW}`);
    await screenshot(page, `gpt-explorer-${width === 360 ? '360' : 'desktop'}-${colorScheme}`);
    assertClean(problems);
    await context.close();
  }
});

test('removing the widget frees its model in the worker; putting it back rebuilds it', async () => {
  const { page, context, problems } = await open();
  const allocated = () => page.evaluate(async () => {
    const { connect } = await import('/dist/blockscope-widgets.js');
    return (await (await connect()).memoryStats()).allocatedBytes;
  });
  const withModel = await allocated();
  await page.evaluate(() => { window.__parked = document.querySelector('gpt-explorer'); window.__parked.remove(); });
  let without = await allocated();
  for (let i = 0; i < 50 && without >= withModel; i++) { // the disposal runs on a timer after removal
    await page.waitForTimeout(50);
    without = await allocated();
  }
  assert.ok(without < withModel, `allocated bytes ${withModel} -> ${without} after removal`);
  const before = await page.evaluate(() => window.__ev.forward.length);
  await page.evaluate(() => document.body.append(window.__parked));
  await page.waitForFunction((n) => window.__ev.forward.length > n, before, { timeout: 20000 });
  assert.ok(await allocated() > without, 'the model was rebuilt');
  assertClean(problems);
  await context.close();
});
