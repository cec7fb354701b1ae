// <ffn-explorer> in Chromium, from its bare example page: lesson LM4-T3's d = 2 worked example (the core's numbers
// against PyTorch's, from web/presets/ffn-d2-lesson-example.json, and against the tanh formula written out here),
// editable cells with named errors; the lesson LM4-T3 numbers (4,722,432 parameters, 66.7%, 16d² FLOPs, 25,165,824
// hidden entries) and lesson 82's 840 = 256 + 552 + 32 equal the core's; changing d and the attention-bias
// convention; histograms of a seeded GPT's real FFN hidden values before/after GELU; the position-wise check (one
// edited token moves one output row, bit for bit); "Blockscope seed" wording; removal and re-insertion; invalid
// input, URL-hash deep links and the 360 px layout.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { assertClean, assertFits, browserSuite, fmt4, openPage, screenshot } from './support.mjs';

const TAG = 'ffn-explorer';
const GPT_CONFIG = { vocab_size: 256, context_length: 256, emb_dim: 32, n_heads: 4, n_layers: 2, drop_rate: 0, qkv_bias: false };
const env = browserSuite();

/** Opens the example page and waits until all three parts show the core's numbers. */
async function open(options = {}, hash = '') {
  const session = await openPage(env.browser, options);
  await session.page.goto(`${env.url}examples/${TAG}.html${hash}`);
  const { page } = session;
  await page.locator(`${TAG} .status`).filter({ hasText: 'Computed by the core' }).waitFor({ timeout: 20000 });
  await page.locator(`${TAG} [data-hidden="post-min"]`).waitFor({ timeout: 20000 });
  await page.locator(`${TAG} table.demo-out tr[data-position="1"]`).waitFor({ timeout: 20000 });
  await page.locator(`${TAG} [data-example="output"]`).waitFor({ timeout: 20000 });
  return session;
}

// PyTorch's numbers for the lesson's d = 2 example (tests/reference/make_lesson_presets.py).
const FFN_GOLDEN = JSON.parse(readFileSync(new URL('../../web/presets/ffn-d2-lesson-example.json', import.meta.url)));
/** The lesson's GELU, tanh form, written out here as an independent check of the core: 0.5x(1 + tanh(√(2/π)(x + 0.044715x³))). */
const geluTanh = (x) => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3)));
const matVec = (W, x, b) => W.map((row, i) => row.reduce((s, w, k) => s + w * x[k], b[i]));
const stepCells = (page, step) => page.locator(`${TAG} td[data-step="${step}"]`).allTextContents();
/** Records the widget's blockscope-change events of one section into window.__changes. */
async function recordChanges(page) {
  await page.evaluate((tag) => {
    window.__changes = [];
    document.querySelector(tag).addEventListener('blockscope-change', (e) => window.__changes.push(e.detail));
  }, TAG);
}
const lastExample = (page) => page.evaluate(() => window.__changes.filter((e) => e.section === 'example').at(-1));
const cost = (page, key) => page.locator(`${TAG} [data-cost="${key}"]`).textContent();
const int = (n) => new Intl.NumberFormat('en-US').format(n);

/** Calls the runtime client in the page (the same worker the widget uses). */
function core(page, fn, arg) {
  return page.evaluate(async ([src, a]) => {
    const { connect } = await import('/dist/blockscope-widgets.js');
    const rt = await connect();
    // eslint-disable-next-line no-new-func
    return new Function('rt', 'arg', `return (${src})(rt, arg);`)(rt, a);
  }, [fn.toString(), arg]);
}
const costsOf = (page, d, qkvBias = false) => core(page, async (rt, { d: dd, q }) => ({
  ff: await rt.feedForwardCosts({ embDim: dd, hiddenDim: 4 * dd, batch: 8, tokens: 1024 }),
  block: await rt.blockParameters({ emb_dim: dd, context_length: 1024, n_heads: 1, qkv_bias: q, ffn_hidden: 4 * dd }),
}), { d, q: qkvBias });

test('shows the lesson LM4-T3 costs at d = 768, equal to the core', async () => {
  const { page, context, problems } = await open();
  assert.equal(await cost(page, 'parameters'), '4,722,432');
  assert.equal(await cost(page, 'attention'), '2,360,064');
  assert.equal(await cost(page, 'share'), '66.7%');
  assert.equal(await cost(page, 'flops'), '9,437,184'); // 16 d²
  assert.equal(await cost(page, 'entries'), '25,165,824 (25.2 million)');
  assert.match(await cost(page, 'bytes'), /^100,663,296 bytes ≈ 100\.7 MB/);
  assert.equal(await cost(page, 'hidden'), '3,072');
  assert.match(await page.locator(`${TAG} .flow`).textContent(), /\(8, 1,024, 768\).*\(8, 1,024, 3,072\).*\(8, 1,024, 768\)/);
  const { ff, block } = await costsOf(page, 768);
  assert.equal(await cost(page, 'parameters'), int(ff.parameters));
  assert.equal(await cost(page, 'flops'), int(ff.flopsPerToken));
  assert.equal(await cost(page, 'attention'), int(block.attention));
  assert.equal(ff.hiddenEntries, 25165824);
  assert.equal(await page.locator(`${TAG} .param-chart rect[data-part]`).count(), 2);
  await screenshot(page, 'ffn-explorer-desktop-light');
  assertClean(problems);
  await context.close();
});

test('changing d and the Q/K/V biases updates every cost; invalid sizes keep the last good state', async () => {
  const { page, context, problems } = await open({ colorScheme: 'dark' });
  const events = [];
  await page.exposeFunction('recordChange', (d) => events.push(d));
  await page.evaluate((tag) => document.querySelector(tag).addEventListener('blockscope-change', (e) => window.recordChange(e.detail)), TAG);
  await page.locator(`${TAG} #in-d`).fill('512');
  await page.locator(`${TAG} [data-cost="parameters"]`).filter({ hasText: '2,099,712' }).waitFor(); // the lesson's question 1
  let { ff, block } = await costsOf(page, 512);
  assert.equal(await cost(page, 'parameters'), int(ff.parameters));
  assert.equal(await cost(page, 'flops'), int(ff.flopsPerToken));
  assert.equal(await cost(page, 'entries'), `${int(ff.hiddenEntries)} (16.8 million)`);
  assert.equal(await cost(page, 'attention'), int(block.attention));
  assert.match(await page.locator(`${TAG} .flow`).textContent(), /\(8, 1,024, 2,048\)/);
  const last = events.filter((e) => e.section === 'costs').at(-1);
  assert.equal(last.d, 512);
  assert.equal(last.parameters, 2099712);

  await page.locator(`${TAG} #attn-bias`).selectOption('all');
  ({ ff, block } = await costsOf(page, 512, true));
  await page.locator(`${TAG} [data-cost="attention"]`).filter({ hasText: int(block.attention) }).waitFor();
  assert.equal(block.attention, 4 * 512 * 512 + 4 * 512);
  assert.equal(await cost(page, 'share'), `${(100 * ff.parameters / (ff.parameters + block.attention)).toFixed(1)}%`);

  await page.locator(`${TAG} #in-d`).fill('0');
  await page.locator(`${TAG} #in-d-error`).waitFor(); // under the field (field-errors.test.mjs checks where)
  assert.match(await page.locator(`${TAG} #in-d-error`).textContent(), /d must be a whole number from 1/);
  assert.equal(await page.locator(`${TAG} #in-d`).getAttribute('aria-invalid'), 'true');
  assert.equal(await cost(page, 'parameters'), '2,099,712');
  await page.locator(`${TAG} #in-expansion`).fill('2'); // still invalid d: nothing changes
  assert.equal(await cost(page, 'parameters'), '2,099,712');
  await page.locator(`${TAG} #in-d`).fill('768');
  await page.locator(`${TAG} [data-cost="hidden"]`).filter({ hasText: '1,536' }).waitFor();
  const two = await core(page, (rt) => rt.feedForwardCosts({ embDim: 768, hiddenDim: 1536 }));
  assert.equal(await cost(page, 'parameters'), int(two.parameters));
  await screenshot(page, 'ffn-explorer-desktop-dark-d768-x2');
  assertClean(problems);
  await context.close();
});

test('histograms the seeded GPT’s FFN hidden values before and after GELU, as the core computes them', async () => {
  const { page, context, problems } = await open();
  const stats = (layer, prompt) => core(page, async (rt, { cfg, layer: l, prompt: p }) => {
    const gpt = await rt.createGPT(cfg, { seed: 123 });
    const { inspection } = await gpt.forward(Array.from(new TextEncoder().encode(p)), { inspect: true });
    await gpt.dispose();
    const L = inspection.layers[l - 1];
    let preMin = Infinity;
    let postMin = Infinity;
    let negPost = 0;
    for (const v of L.ffnHiddenPre) preMin = Math.min(preMin, v);
    for (const v of L.ffnHiddenPost) { postMin = Math.min(postMin, v); negPost += v < 0; }
    return { T: inspection.T, H: inspection.H, n: L.ffnHiddenPre.length, preMin, postMin, negPost };
  }, { cfg: GPT_CONFIG, layer, prompt });
  const prompt = await page.locator(`${TAG} #prompt`).inputValue();
  const s1 = await stats(1, prompt);
  assert.equal(s1.H, 128);
  assert.equal(await page.locator(`${TAG} [data-hidden="post-min"]`).textContent(), fmt4(s1.postMin));
  assert.equal(await page.locator(`${TAG} [data-hidden="pre-min"]`).textContent(), fmt4(s1.preMin));
  assert.match(await page.locator(`${TAG} #hidden-summary`).textContent(), new RegExp(`${s1.T} tokens × h = 128 hidden units = ${int(s1.n)} values`));
  // GELU: negatives pushed into [−0.17, 0) — many of them, none below the dip — while the inputs reach far lower.
  assert.ok(s1.preMin < -1, `pre-GELU minimum ${s1.preMin}`);
  assert.ok(s1.postMin < 0 && s1.postMin > -0.1701, `post-GELU minimum ${s1.postMin}`);
  assert.ok(s1.negPost > s1.n / 10);
  assert.ok(await page.locator(`${TAG} .hist-pre svg rect`).count() > 20);
  assert.ok(await page.locator(`${TAG} .hist-post svg rect`).count() > 20);
  assert.ok(await page.locator(`${TAG} .hist-table tbody tr`).count() > 20);

  await page.locator(`${TAG} #layer`).selectOption('2');
  const s2 = await stats(2, prompt);
  await page.locator(`${TAG} [data-hidden="post-min"]`).filter({ hasText: fmt4(s2.postMin) }).waitFor();
  assert.match(await page.locator(`${TAG} #hidden-summary`).textContent(), /^Block 2:/);

  await page.locator(`${TAG} #prompt`).fill('Hello, GELU!');
  await page.locator(`${TAG} #hidden-summary`).filter({ hasText: '12 tokens' }).waitFor();
  const s3 = await stats(2, 'Hello, GELU!');
  assert.equal(await page.locator(`${TAG} [data-hidden="post-min"]`).textContent(), fmt4(s3.postMin));
  await page.locator(`${TAG} #prompt`).fill('');
  await page.locator(`${TAG} #prompt-error`).waitFor();
  assert.equal(await page.locator(`${TAG} #prompt`).getAttribute('aria-invalid'), 'true');
  assert.match(await page.locator(`${TAG} #hidden-summary`).textContent(), /12 tokens/);
  assertClean(problems);
  await context.close();
});

test('position-wise: changing one token changes only that position’s output', async () => {
  const { page, context, problems } = await open();
  const outputs = () => page.locator(`${TAG} table.demo-out td[data-col="output"]`).allTextContents();
  const before = await outputs();
  assert.equal(before.length, 3);
  await page.locator(`${TAG} button[aria-label="Add 1 to the first feature of position 2"]`).click();
  await page.locator(`${TAG} tr[data-position="2"][data-changed="true"]`).waitFor();
  const afterNudge = await outputs();
  assert.equal(afterNudge[0], before[0]);
  assert.notEqual(afterNudge[1], before[1]);
  assert.equal(afterNudge[2], before[2]);
  assert.equal(await page.locator(`${TAG} tr[data-position="1"]`).getAttribute('data-changed'), 'false');
  assert.equal(await page.locator(`${TAG} tr[data-position="3"]`).getAttribute('data-changed'), 'false');
  assert.deepEqual(await page.locator(`${TAG} td[data-col="delta"]`).allTextContents().then((d) => [d[0], d[2]]), ['0', '0']);
  assert.match(await page.locator(`${TAG} .report`).textContent(), /changed position 2; the output changed at position 2 only/);

  // The displayed rows are the core's FFN (d = 4 -> 16 -> 4, seed 123; lesson 82's FFN(4, 16) has 148 parameters).
  const rows = [[1, 0, -1, 0.5], [1.5, -0.5, 1, 2], [-1, 2, 0, 1]];
  const ref = await core(page, async (rt, x) => {
    const ffn = await rt.createFeedForward({ embDim: 4, expansion: 4, activation: 'gelu_tanh', seed: 123 });
    const r = await ffn.forward(x.flat());
    await ffn.dispose();
    return { output: [...r.output], numParameters: ffn.numParameters };
  }, rows);
  assert.equal(ref.numParameters, 148);
  assert.match(await page.locator(`${TAG} .demo-info`).textContent(), /148 parameters/);
  const spans = await page.locator(`${TAG} tr[data-position="2"] td[data-col="output"] span`).allTextContents();
  assert.deepEqual(spans, ref.output.slice(4, 8).map(fmt4));

  // Typing into position 1 moves row 1 only.
  await page.locator(`${TAG} #pos-0`).fill('3, 0, -1, 0.5');
  await page.locator(`${TAG} tr[data-position="1"][data-changed="true"]`).waitFor();
  const afterTyping = await outputs();
  assert.notEqual(afterTyping[0], afterNudge[0]);
  assert.deepEqual(afterTyping.slice(1), afterNudge.slice(1));
  assert.equal(await page.locator(`${TAG} tr[data-changed="true"]`).count(), 1);
  await page.locator(`${TAG} #pos-0`).fill('3, 0, -1');
  await page.locator(`${TAG} #pos-0-error`).waitFor();
  assert.equal(await page.locator(`${TAG} #pos-0`).getAttribute('aria-invalid'), 'true');
  assert.deepEqual(await outputs(), afterTyping);
  await screenshot(page, 'ffn-explorer-desktop-light-positionwise');
  assertClean(problems);
  await context.close();
});

for (const colorScheme of ['light', 'dark']) {
  test(`fits 360 px without horizontal scrolling (${colorScheme}) and follows a URL-hash deep link`, async () => {
    const { page, context, problems } = await open({ width: 360, height: 800, colorScheme },
      '#ffn-explorer.d=512&ffn-explorer.layer=2');
    await page.locator(`${TAG} [data-cost="parameters"]`).filter({ hasText: '2,099,712' }).waitFor();
    assert.equal(await page.locator(`${TAG} #in-d`).inputValue(), '512');
    assert.equal(await page.locator(`${TAG} #layer`).inputValue(), '2');
    await assertFits(page, TAG);
    await screenshot(page, `ffn-explorer-360-${colorScheme}`);
    assertClean(problems);
    await context.close();
  });
}

test('the d = 2 worked example shows the lesson’s numbers, computed by the core and equal to PyTorch’s', async () => {
  const { page, context, problems } = await open();
  await recordChanges(page);
  // The lesson's printout: hidden [1, −2, −1, 3] -> GELU [0.8412, −0.0454, −0.1588, 2.9964] -> output [0.8412, −0.0454].
  assert.deepEqual(await stepCells(page, 'pre'), ['1.0000', '−2.0000', '−1.0000', '3.0000']);
  assert.deepEqual(await stepCells(page, 'post'), ['0.8412', '−0.0454', '−0.1588', '2.9964']);
  assert.deepEqual(await stepCells(page, 'out'), ['0.8412', '−0.0454']);
  assert.equal(await page.locator(`${TAG} [data-example="output"]`).textContent(), '[0.8412, −0.0454]');
  assert.match(await page.locator(`${TAG} .example-badge`).textContent(), /lesson’s numbers/);
  // The cells hold the lesson's matrices, the same ones PyTorch ran.
  const cell = (key, r, c) => page.locator(`${TAG} #cell-${key}-${r}-${c}`).inputValue().then(Number);
  for (const key of ['W1', 'W2']) {
    for (const [r, row] of FFN_GOLDEN[key].entries()) for (const [c, v] of row.entries()) assert.equal(await cell(key, r, c), v);
  }
  for (const key of ['b1', 'b2', 'x']) for (const [r, v] of FFN_GOLDEN[key].entries()) assert.equal(await cell(key, r, 0), v);
  // Independent checks: the tanh formula written out here, and PyTorch's float32 outputs.
  const h = matVec(FFN_GOLDEN.W1, FFN_GOLDEN.x, FFN_GOLDEN.b1);
  assert.deepEqual(await stepCells(page, 'post'), h.map(geluTanh).map(fmt4));
  // The widget's numbers are the core's: a FeedForward made here through the client, with the same parameters.
  await page.locator(`${TAG} #cell-b2-0-0`).fill('0'); // an edit that changes nothing still recomputes (and is recorded)
  await page.waitForFunction(() => window.__changes.some((e) => e.section === 'example'));
  const shown = await lastExample(page);
  const direct = await core(page, async (rt, g) => {
    const ff = await rt.createFeedForward({ embDim: 2, hiddenDim: 4, activation: 'gelu_tanh' });
    await ff.loadParameters({ 'layers.0.weight': g.W1.flat(), 'layers.0.bias': g.b1, 'layers.2.weight': g.W2.flat(), 'layers.2.bias': g.b2 });
    const r = await ff.forward(g.x);
    await ff.dispose();
    return { hiddenPre: [...r.hiddenPre], hiddenPost: [...r.hiddenPost], output: [...r.output] };
  }, FFN_GOLDEN);
  assert.deepEqual([shown.hiddenPre, shown.hiddenPost, shown.output], [direct.hiddenPre, direct.hiddenPost, direct.output]);
  const torch = FFN_GOLDEN.torch.gelu_tanh;
  for (const key of ['hiddenPre', 'hiddenPost', 'output']) {
    const want = torch[{ hiddenPre: 'hidden_pre', hiddenPost: 'hidden_post', output: 'output' }[key]];
    shown[key].forEach((v, i) => assert.ok(Math.abs(v - want[i]) <= 1e-6, `${key}[${i}]: core ${v}, PyTorch ${want[i]}`));
  }
  await screenshot(page, 'ffn-explorer-d2-example');

  // ReLU, chosen from the keyboard: hidden [1, 0, 0, 3], output [1, 0] — again PyTorch's numbers.
  await page.locator(`${TAG} input[name="example-activation"][value="gelu"]`).focus();
  await page.keyboard.press('ArrowDown');
  await page.locator(`${TAG} td[data-step="out"][data-i="0"]`).filter({ hasText: /^1\.0000$/ }).waitFor();
  assert.equal(await page.evaluate((tag) => document.querySelector(tag).getAttribute('example-activation'), TAG), 'relu');
  assert.deepEqual(await stepCells(page, 'post'), ['1.0000', '0.0000', '0.0000', '3.0000']);
  assert.deepEqual(await stepCells(page, 'out'), ['1.0000', '0.0000']);
  assert.deepEqual((await lastExample(page)).output, FFN_GOLDEN.torch.relu.output);
  assert.match(await page.locator(`${TAG} .example-steps caption`).nth(1).textContent(), /ReLU/);
  await screenshot(page, 'ffn-explorer-d2-example-relu');
  assertClean(problems);
  await context.close();
});

test('editing a cell recomputes every step; a bad entry is named and the last result kept; reset', async () => {
  const { page, context, problems } = await open({ colorScheme: 'dark' });
  await recordChanges(page);
  // x = [1, 2]: h = [1, 2, 3, −1], output = [GELU(1), GELU(2)] = [0.8412, 1.9546].
  await page.locator(`${TAG} #cell-x-1-0`).fill('2');
  await page.locator(`${TAG} td[data-step="out"][data-i="1"]`).filter({ hasText: '1.9546' }).waitFor();
  const x = [1, 2];
  const h = matVec(FFN_GOLDEN.W1, x, FFN_GOLDEN.b1);
  assert.deepEqual(await stepCells(page, 'pre'), h.map(fmt4));
  assert.deepEqual(await stepCells(page, 'post'), h.map(geluTanh).map(fmt4));
  assert.deepEqual(await stepCells(page, 'out'), matVec(FFN_GOLDEN.W2, h.map(geluTanh), FFN_GOLDEN.b2).map(fmt4));
  assert.match(await page.locator(`${TAG} .example-badge`).textContent(), /Edited/);

  // Keyboard: ↓ moves down a column of W₁; typing there (W₁[2, 1] = 0.5) recomputes h₂ = 0.5·1 + 1·2 = 2.5.
  await page.locator(`${TAG} #cell-W1-0-0`).focus();
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.evaluate((tag) => document.querySelector(tag).shadowRoot.activeElement.id, TAG), 'cell-W1-1-0');
  await page.keyboard.type('0.5');
  await page.locator(`${TAG} td[data-step="pre"][data-i="1"]`).filter({ hasText: '2.5000' }).waitFor();
  assert.equal(await page.locator(`${TAG} td[data-step="post"][data-i="1"]`).textContent(), fmt4(geluTanh(2.5)));
  const good = await stepCells(page, 'out');

  // A bad entry: named in the message, marked, and the last valid numbers stay.
  await page.locator(`${TAG} #cell-W1-2-1`).fill('abc');
  await page.locator(`${TAG} .example-status.error`).waitFor();
  assert.match(await page.locator(`${TAG} .example-status`).textContent(), /W₁ row 3, column 2 \("abc"\) is not a number/);
  assert.equal(await page.locator(`${TAG} #cell-W1-2-1`).getAttribute('aria-invalid'), 'true');
  assert.deepEqual(await stepCells(page, 'out'), good);
  await page.locator(`${TAG} #cell-b2-1-0`).fill('');
  assert.match(await page.locator(`${TAG} .example-status`).textContent(), /W₁ row 3, column 2 .*\(and 1 more\)/);
  await page.locator(`${TAG} #cell-W1-2-1`).fill('1');
  assert.match(await page.locator(`${TAG} .example-status`).textContent(), /b₂ entry 2 is empty/);
  await page.locator(`${TAG} #cell-b2-1-0`).fill('−1'); // U+2212 is accepted
  await page.locator(`${TAG} td[data-step="out"][data-i="1"]`).filter({ hasText: fmt4(geluTanh(2.5) - 1) }).waitFor();
  assert.equal(await page.locator(`${TAG} .example-status`).textContent(), '');
  assert.equal(await page.locator(`${TAG} #cell-W1-2-1`).getAttribute('aria-invalid'), null);

  // The other parts kept working, and reset brings back the lesson.
  assert.equal(await cost(page, 'parameters'), '4,722,432');
  await page.locator(`${TAG} button.reset-example`).click();
  await page.locator(`${TAG} td[data-step="out"][data-i="1"]`).filter({ hasText: '−0.0454' }).waitFor();
  assert.deepEqual(await stepCells(page, 'out'), ['0.8412', '−0.0454']);
  assert.equal(await page.locator(`${TAG} button.reset-example`).isDisabled(), true);
  assertClean(problems);
  await context.close();
});

test('the block breakdown matches the lessons: 840 = 256 + 552 + 32 and GPT-2’s FFN 4,722,432', async () => {
  const { page, context, problems } = await open();
  const part = (key) => page.locator(`${TAG} [data-breakdown="${key}"]`).textContent();
  // Lesson LM4-T3's convention (out_proj with bias) at d = 768.
  assert.equal(await part('feed-forward'), '4,722,432');
  assert.equal(await part('attention'), '2,360,064');
  assert.equal(await page.locator(`${TAG} #attn-bias`).inputValue(), 'out');
  assert.match(await page.locator(`${TAG} .convention`).textContent(), /Lesson LM4-T3/);

  // Lesson 82's EncoderBlock(8, 2, 32): no bias anywhere in attention.
  await page.locator(`${TAG} button[data-preset="lesson82"]`).click();
  await page.locator(`${TAG} [data-breakdown="total"]`).filter({ hasText: '840 = 256 + 552 + 32' }).waitFor();
  const d = 8;
  const dff = 32;
  assert.equal(await part('attention'), String(4 * d * d));
  assert.equal(await part('feed-forward'), String(d * dff + dff + dff * d + d));
  assert.equal(await part('norms'), String(2 * 2 * d));
  assert.equal(await page.locator(`${TAG} #attn-bias`).inputValue(), 'none');
  assert.match(await page.locator(`${TAG} .convention`).textContent(), /Lesson 82’s EncoderBlock: .*bias=False/);
  assert.match(await page.locator(`${TAG} .flow`).textContent(), /\(2, 5, 8\).*\(2, 5, 32\).*\(2, 5, 8\)/);
  // The core agrees, counting and building the lesson's block (web/presets/encoder-block-lesson82.json's config).
  const config = JSON.parse(readFileSync(new URL('../../web/presets/encoder-block-lesson82.json', import.meta.url))).config;
  const counted = await core(page, async (rt, cfg) => {
    const block = await rt.createBlock(cfg);
    const n = block.numParameters;
    await block.dispose();
    return { parts: await rt.blockParameters(cfg), built: n, ff: await rt.feedForwardCosts({ embDim: 8, hiddenDim: 32 }) };
  }, config);
  assert.deepEqual(counted.parts, { attention: 256, feedForward: 552, norms: 32, total: 840 });
  assert.equal(counted.built, 840);
  assert.equal(await cost(page, 'parameters'), String(counted.ff.parameters));
  await screenshot(page, 'ffn-explorer-breakdown-lesson82');

  // The book's convention at the same size: out_proj's bias adds d.
  await page.locator(`${TAG} #attn-bias`).selectOption('out');
  await page.locator(`${TAG} [data-breakdown="total"]`).filter({ hasText: '848 = 264 + 552 + 32' }).waitFor();
  await page.locator(`${TAG} button[data-preset="gpt2"]`).click();
  await page.locator(`${TAG} [data-breakdown="feed-forward"]`).filter({ hasText: '4,722,432' }).waitFor();
  assert.equal(await cost(page, 'parameters'), '4,722,432');
  assert.equal(await cost(page, 'share'), '66.7%');
  assertClean(problems);
  await context.close();
});

test('seeds read as Blockscope seeds, not torch.manual_seed', async () => {
  const { page, context, problems } = await open();
  const text = await page.evaluate((tag) => document.querySelector(tag).shadowRoot.textContent, TAG);
  assert.match(text, /Blockscope seed 123/);
  assert.equal(text.match(/seed 123/g).length, text.match(/Blockscope seed 123/g).length, 'every "seed 123" says Blockscope');
  assert.match(text, /torch\.manual_seed\(123\) gives different weights/);
  assert.match(await page.locator(`${TAG} abbr.seed`).getAttribute('title'), /torch\.manual_seed\(123\)/);
  assert.match(await page.locator(`${TAG} .demo-info`).textContent(), /Blockscope seed 123/);
  assertClean(problems);
  await context.close();
});

test('removed and re-inserted, it frees and rebuilds its core objects and keeps working', async () => {
  const { page, context, problems } = await open();
  await page.evaluate(async (tag) => {
    const el = document.querySelector(tag);
    window.__ffn = el;
    el.remove();
    await new Promise((r) => setTimeout(r, 50)); // base.js releases once the element has really left
  }, TAG);
  assert.equal(await page.evaluate(() => window.__ffn.gpt), null);
  await page.evaluate(() => document.body.append(window.__ffn));
  await recordChanges(page);
  // Every part still computes: the worked example, the costs, a new prompt (a new GPT) and the position-wise FFN.
  await page.locator(`${TAG} #cell-x-0-0`).fill('3');
  await page.locator(`${TAG} td[data-step="pre"][data-i="0"]`).filter({ hasText: '3.0000' }).waitFor();
  assert.equal(await page.locator(`${TAG} td[data-step="post"][data-i="0"]`).textContent(), fmt4(geluTanh(3)));
  await page.locator(`${TAG} #in-d`).fill('512');
  await page.locator(`${TAG} [data-cost="parameters"]`).filter({ hasText: '2,099,712' }).waitFor();
  await page.locator(`${TAG} #prompt`).fill('Hi!');
  await page.locator(`${TAG} #hidden-summary`).filter({ hasText: '3 tokens' }).waitFor();
  await page.locator(`${TAG} button[aria-label="Add 1 to the first feature of position 1"]`).click();
  await page.locator(`${TAG} tr[data-position="1"][data-changed="true"]`).waitFor();
  // A second round trip, and a DOM move (which keeps the objects) on the way.
  await page.evaluate(async () => {
    const el = window.__ffn;
    el.remove();
    document.body.append(el);
    await new Promise((r) => setTimeout(r, 50));
    el.remove();
    await new Promise((r) => setTimeout(r, 50));
    document.body.append(el);
  });
  await page.locator(`${TAG} #cell-x-0-0`).fill('1');
  await page.locator(`${TAG} td[data-step="post"][data-i="0"]`).filter({ hasText: '0.8412' }).waitFor();
  assert.doesNotMatch(await page.locator(`${TAG} .status`).textContent(), /not a function|disposed/);
  assertClean(problems);
  await context.close();
});
