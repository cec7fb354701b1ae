// <gpt-explorer> in real Chromium: the next-token tables (trained | untrained), the LayerNorm heatmap and the
// attention readout show the core's numbers (checked against a second forward pass made in the page through the
// client), probabilities sit on one absolute log scale, the views follow the prompt and the layer/head selectors,
// generation streams tokens and Stop cancels it, greedy generation matches the core's, long prompts are cropped or
// rejected with a message, the checkpoint loader and the random settings replace the trained model and the widget
// comes back to it, deep links work, removal frees the models, and the page stays narrow-screen friendly.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertClean, browserSuite, fmt4, screenshot } from './support.mjs';
import { argmax, coreRun, openExplorer, safetensors, setAttrs, softmaxAt, tableRows } from './gpt-support.mjs';

const env = browserSuite();
const open = (options, hash) => openExplorer(env, options, hash);

/** Where probability p sits on the tables' log scale (0.01 % … 100 % for a 256-token vocabulary), in %. */
const logPosition = (p) => (100 * (Math.log10(p) + 4)) / 4;

test('next-token tables, LayerNorm heatmap and attention show the core\'s numbers and follow the controls', async () => {
  const { page, context, problems } = await open({ width: 1280 });
  const event = await page.evaluate(() => window.__ev.forward.at(-1));
  assert.equal(event.weights, 'trained');
  assert.equal(event.compare.weights, 'untrained');
  let core = await coreRun(page, 'trained');
  const twin = await coreRun(page, 'untrained');
  assert.deepEqual(twin.config, core.config, 'the untrained twin has exactly the trained model\'s config');

  // Both tables: top-1 is the core's argmax, with its logit and softmax probability; 10 rows each.
  for (const [model, run] of [['trained', core], ['untrained', twin]]) {
    const rows = await tableRows(page, model);
    assert.equal(rows.length, 10);
    const top = argmax(run.last);
    const p = softmaxAt(run.last, top);
    assert.equal(rows[0].id, top, `${model}: top-1 id`);
    assert.equal(rows[0].logit, fmt4(run.last[top]));
    const pct = 100 * p;
    assert.equal(rows[0].prob, `${pct >= 1 ? pct.toFixed(2) : pct.toPrecision(3)} %`);
    // One absolute log scale: bar length from the probability, the uniform line at 1/256, in both tables.
    assert.ok(Math.abs(rows[0].bar - logPosition(p)) < 0.01, `${model}: bar ${rows[0].bar}% for p = ${p}`);
    assert.ok(Math.abs(rows[0].uniformAt - logPosition(1 / 256)) < 0.01, `${model}: uniform line at ${rows[0].uniformAt}%`);
    assert.ok(Math.abs(rows[0].timesUniform - p * 256) < 1e-4 * p * 256, `${model}: × uniform ${rows[0].timesUniform}`);
  }
  assert.match(await page.textContent('gpt-explorer .uniform-label'), /^uniform 1\/256 = 0\.39 %$/);
  assert.equal(await page.locator('gpt-explorer table.candidates.selected').getAttribute('data-model'), 'trained');
  assert.equal(await page.locator('gpt-explorer .chips li').count(), core.T);

  // The LayerNorm readout (block 1, last token, norm1 input variance by default) is the core's.
  assert.match(await page.textContent('gpt-explorer .ln-readout'), new RegExp(`block 1, .*position ${core.T - 1}\\): ${fmt4(core.norm1InVar[0][core.T - 1])}$`));
  await page.selectOption('gpt-explorer select#ln', 'norm2');
  await page.selectOption('gpt-explorer select#stat', 'mean');
  await page.waitForFunction(() => /norm2/.test(document.querySelector('gpt-explorer').shadowRoot.querySelector('.ln-heat svg title').textContent));
  await page.focus('gpt-explorer .ln-heat');
  await page.keyboard.press('ArrowDown');
  assert.match(await page.textContent('gpt-explorer .ln-readout'), new RegExp(`block 2, .*: ${fmt4(core.norm2InMean[1][core.T - 1])}$`));

  // Attention: the default view (block 1, head 1) and its readout are the core's; head and layer selectors change it.
  const fills = () => page.locator('gpt-explorer .att-heat svg rect').evaluateAll((els) => els.map((e) => e.getAttribute('fill')).join());
  const T = core.T;
  const w = (layer, head, q, k) => core.attn[layer][head * T * T + q * T + k];
  assert.deepEqual(await page.evaluate(() => ({ ...document.querySelector('gpt-explorer').shadowRoot.querySelector('.att-heat').dataset })),
    { layer: '1', head: '1' });
  // The readout starts on the last token's strongest key.
  const row = core.attn[0].slice((T - 1) * T, T * T); // head 1 is the first T × T block
  const k0 = argmax(row);
  assert.match(await page.textContent('gpt-explorer .att-readout'), new RegExp(`\\(position ${k0}\\) with weight ${fmt4(w(0, 0, T - 1, k0))}\\.$`));
  const before = await fills();
  await page.selectOption('gpt-explorer select#head', '2');
  await page.waitForFunction(() => document.querySelector('gpt-explorer').shadowRoot.querySelector('.att-heat').dataset.head === '2');
  const head2 = await fills();
  assert.notEqual(head2, before);
  await page.focus('gpt-explorer .att-heat');
  await page.keyboard.press('ArrowLeft');
  const k1 = Math.max(0, k0 - 1);
  assert.match(await page.textContent('gpt-explorer .att-readout'), new RegExp(`\\(position ${k1}\\) with weight ${fmt4(w(0, 1, T - 1, k1))}\\.$`));
  await page.selectOption('gpt-explorer select#layer', '3');
  await page.waitForFunction(() => document.querySelector('gpt-explorer').shadowRoot.querySelector('.att-heat').dataset.layer === '3');
  assert.notEqual(await fills(), head2);
  assert.match(await page.textContent('gpt-explorer .att-readout'), new RegExp(`\\(position ${k1}\\) with weight ${fmt4(w(2, 1, T - 1, k1))}\\.$`));
  assert.match(await page.textContent('gpt-explorer .hist-text'), /^Block 3: /);

  // Typing a prompt reruns both models and updates the tables.
  const table = await page.textContent('gpt-explorer table.candidates.trained tbody');
  await page.fill('gpt-explorer textarea#prompt', 'The cat sat on the mat');
  await page.waitForFunction(() => window.__ev.forward.at(-1).ids.length === 22 && window.__ev.forward.at(-1).tokens[1] === 'h');
  await page.waitForFunction((prev) => document.querySelector('gpt-explorer').shadowRoot.querySelector('table.candidates.trained tbody').textContent !== prev, table);
  core = await coreRun(page, 'trained');
  const top = argmax(core.last);
  const [first] = await tableRows(page, 'trained');
  assert.equal(first.id, top);
  assert.equal(first.logit, fmt4(core.last[top]));

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
  // The output is redrawn once per animation frame, so under load it can trail the token events by a frame.
  await page.locator('gpt-explorer .gen-output .generated').filter({ hasText: /./ }).waitFor({ timeout: 10000 });
  await page.click('gpt-explorer button.stop');
  await page.waitForFunction(() => window.__ev.generated.length === 1);
  const stopped = await page.evaluate(() => window.__ev.generated[0]);
  assert.equal(stopped.stopReason, 'cancelled');
  assert.ok(stopped.tokens.length >= 5 && stopped.tokens.length < 1000, `${stopped.tokens.length} tokens before Stop`);
  assert.match(await page.textContent('gpt-explorer .gen-status'), /stopped/);
  assert.equal(await page.locator('gpt-explorer button.generate').isDisabled(), false);

  // Greedy (temperature 0), 8 tokens: the same tokens as the core's own generate() on the shipped model.
  await setAttrs(page, { temperature: '0', 'max-new-tokens': '8' });
  await page.click('gpt-explorer button.generate');
  await page.waitForFunction(() => window.__ev.generated.length === 2);
  const greedy = await page.evaluate(() => window.__ev.generated[1]);
  assert.equal(greedy.stopReason, 'max_new_tokens');
  const expected = await page.evaluate(async () => {
    const { connect } = await import('/dist/blockscope-widgets.js');
    const { ids } = window.__ev.forward.at(-1);
    const gpt = await (await connect()).loadModel({ url: '/models/brown/' });
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

test('long prompts are cropped or rejected; checkpoints and random settings replace the trained model, which comes back', async () => {
  const { page, context, problems } = await open({ width: 1280 });
  const trained = await page.evaluate(() => window.__ev.model.at(-1));
  assert.equal(trained.source, 'trained');
  const ctx = trained.config.context_length;
  const long = 'abcdefghij'.repeat(Math.ceil((ctx + 40) / 10)); // byte tokens beyond the context
  await setAttrs(page, { prompt: long });
  await page.waitForFunction((n) => window.__ev.forward.at(-1).ids.length === n, ctx);
  assert.match(await page.textContent('gpt-explorer .prompt-note'), new RegExp(`${long.length} tokens; the model reads the last ${ctx}`));
  assert.equal(await page.locator('gpt-explorer .chips li.cropped').count(), long.length - ctx);
  await setAttrs(page, { overflow: 'error' });
  await page.waitForFunction((c) => new RegExp(`context length is ${c}`).test(document.querySelector('gpt-explorer').shadowRoot.querySelector('.prompt-note').textContent), ctx);
  await setAttrs(page, { prompt: 'Short again' });
  await page.waitForFunction(() => window.__ev.forward.at(-1).ids.length === 11);
  assert.equal(await page.textContent('gpt-explorer .prompt-note'), '');

  await page.click('gpt-explorer details.loader summary');
  // A broken checkpoint (invalid config, junk weights) is refused with a message; the trained model stays.
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
  await page.waitForFunction(() => /needs [\d.]+ [KMGT]iB of float32 weights.*the limit is [\d.]+ GiB/.test(document.querySelector('gpt-explorer').shadowRoot.querySelector('.loader-message').textContent));
  const n = await page.evaluate(() => window.__ev.forward.length);
  await page.fill('gpt-explorer textarea#prompt', 'still working');
  await page.waitForFunction((k) => window.__ev.forward.length > k, n);
  assert.equal(await page.evaluate(() => window.__ev.forward.at(-1).weights), 'trained');

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
  const rows = await tableRows(page);
  assert.equal(rows[0].id, argmax(expected));
  assert.equal(rows[0].logit, fmt4(expected[argmax(expected)]));
  assert.equal(await page.locator('gpt-explorer table.candidates').count(), 1, 'a checkpoint has no untrained twin table');
  assert.equal(await page.locator('gpt-explorer input#weights-trained').isDisabled(), true, 'the trained/untrained switch is off');
  assert.match(await page.textContent('gpt-explorer .loader-message'), /^Loaded config\.json \+ model\.safetensors\.$/);

  // Back to the shipped trained model (and its twin).
  await page.click('gpt-explorer button.use-shipped');
  await page.waitForFunction((emb) => window.__ev.model.at(-1).source === 'trained' && window.__ev.forward.at(-1).config.emb_dim === emb &&
    window.__ev.forward.at(-1).compare, trained.config.emb_dim);
  assert.equal(await page.locator('gpt-explorer table.candidates').count(), 2);

  // Random model settings: changing one builds a seeded random model of that size; the button brings the trained one back.
  await page.click('gpt-explorer details.settings summary');
  await page.fill('gpt-explorer input#layers', '2');
  await page.dispatchEvent('gpt-explorer input#layers', 'change');
  await page.waitForFunction(() => window.__ev.model.at(-1).source === 'random' && window.__ev.forward.at(-1).config.n_layers === 2);
  assert.equal(await page.evaluate(() => document.querySelector('gpt-explorer').getAttribute('weights')), 'random');
  assert.equal(await page.evaluate(() => window.__ev.forward.at(-1).config.emb_dim), 64);
  assert.equal(await page.locator('gpt-explorer table.candidates').count(), 1);
  await page.click('gpt-explorer button.use-shipped');
  await page.waitForFunction(() => window.__ev.model.at(-1).source === 'trained' && window.__ev.forward.at(-1).weights === 'trained');
  assertClean(problems);
  await context.close();
});

test('deep link configures the view; 360 px and dark mode fit without horizontal scrolling', async () => {
  for (const [width, colorScheme] of [[360, 'dark'], [360, 'light'], [1280, 'dark']]) {
    const { page, context, problems } = await open({ width, height: 800, colorScheme, reducedMotion: 'reduce' },
      '#gpt.layer=2&gpt.head=3&gpt.stat=mean&gpt.prompt=Hello%20world&gpt.top-k=5&gpt.weights=untrained');
    await page.waitForFunction(() => document.querySelector('gpt-explorer').shadowRoot.querySelector('.att-heat').dataset.head === '3');
    assert.equal(await page.inputValue('gpt-explorer select#layer'), '2');
    assert.equal(await page.inputValue('gpt-explorer select#stat'), 'mean');
    assert.equal(await page.inputValue('gpt-explorer input#top-k'), '5');
    assert.equal(await page.isChecked('gpt-explorer input#weights-untrained'), true);
    const last = await page.evaluate(() => window.__ev.forward.at(-1));
    assert.equal(last.ids.length, 11);
    assert.equal(last.weights, 'untrained');
    assert.equal(await page.locator('gpt-explorer table.candidates.selected').getAttribute('data-model'), 'untrained');
    const [scrollW, innerW] = await page.evaluate(() => [document.documentElement.scrollWidth, innerWidth]);
    assert.ok(scrollW <= innerW, `page scrolls horizontally: ${scrollW} > ${innerW}`);
    // Stacked on a phone, side by side on a desktop (trained first).
    const boxes = await page.locator('gpt-explorer .cand-col').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON()));
    assert.equal(boxes.length, 2);
    if (width === 360) assert.ok(boxes[1].top >= boxes[0].bottom, 'tables stacked at 360 px');
    else assert.ok(Math.abs(boxes[1].top - boxes[0].top) < 1 && boxes[1].left > boxes[0].right, 'tables side by side');
    assert.ok(boxes.every((b) => b.right <= innerW), 'tables fit the screen');
    await screenshot(page, `gpt-explorer-${width === 360 ? '360' : 'desktop'}-${colorScheme}`);
    assertClean(problems);
    await context.close();
  }
});

test('removing the widget frees both models in the worker; putting it back rebuilds them', async () => {
  const { page, context, problems } = await open();
  const allocated = () => page.evaluate(async () => {
    const { connect } = await import('/dist/blockscope-widgets.js');
    return (await (await connect()).memoryStats()).allocatedBytes;
  });
  const { numParameters } = await page.evaluate(() => window.__ev.model.at(-1));
  const withModel = await allocated();
  await page.evaluate(() => { window.__parked = document.querySelector('gpt-explorer'); window.__parked.remove(); });
  let without = await allocated();
  for (let i = 0; i < 50 && withModel - without < 2 * 4 * numParameters; i++) { // the disposal runs on a timer after removal
    await page.waitForTimeout(50);
    without = await allocated();
  }
  assert.ok(withModel - without >= 2 * 4 * numParameters, `allocated bytes ${withModel} -> ${without} after removal: ` +
    'both the trained model and its twin are freed');
  const before = await page.evaluate(() => window.__ev.forward.length);
  await page.evaluate(() => document.body.append(window.__parked));
  await page.waitForFunction((n) => window.__ev.forward.length > n && window.__ev.forward.at(-1).compare, before, { timeout: 20000 });
  assert.ok(await allocated() > without, 'the models were rebuilt');
  assertClean(problems);
  await context.close();
});
