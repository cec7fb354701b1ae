// <ffn-explorer> in Chromium, from its bare example page: the lesson LM4-T3 numbers (4,722,432 parameters,
// 66.7%, 16d² FLOPs, 25,165,824 hidden entries) equal the core's; changing d and the Q/K/V-bias switch; histograms
// of a seeded GPT's real FFN hidden values before/after GELU; the position-wise check (one edited token moves one
// output row, bit for bit); invalid input, URL-hash deep links and the 360 px layout.
import assert from 'node:assert/strict';
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
  return session;
}

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

  await page.locator(`${TAG} #qkv-bias`).check();
  ({ ff, block } = await costsOf(page, 512, true));
  await page.locator(`${TAG} [data-cost="attention"]`).filter({ hasText: int(block.attention) }).waitFor();
  assert.equal(block.attention, 4 * 512 * 512 + 4 * 512);
  assert.equal(await cost(page, 'share'), `${(100 * ff.parameters / (ff.parameters + block.attention)).toFixed(1)}%`);

  await page.locator(`${TAG} #in-d`).fill('0');
  await page.locator(`${TAG} .status.error`).waitFor();
  assert.match(await page.locator(`${TAG} .status`).textContent(), /d must be a whole number from 1/);
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
  await page.locator(`${TAG} .status.error`).waitFor();
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
  await page.locator(`${TAG} .status.error`).waitFor();
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
