// <layernorm-explorer> in Chromium, from its bare example page: the lesson's numbers for [1, 3, 5, 7] and the
// book's toy layer output equal the core's; typing, the γ/β sliders (keyboard), the wrong-axis switch (editing
// one token moves the others only there), invalid input, URL-hash deep links and the 360 px layout; removal and
// re-insertion; the book preset labelled as PyTorch's numbers (torch.manual_seed), not a Blockscope seed.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertClean, assertFits, browserSuite, fmt4, openPage, screenshot } from './support.mjs';

const TAG = 'layernorm-explorer';
const env = browserSuite();

/** Opens the example page and waits until the widget has drawn the core's numbers. */
async function open(options = {}, hash = '') {
  const session = await openPage(env.browser, options);
  await session.page.goto(`${env.url}examples/${TAG}.html${hash}`);
  await session.page.locator(`${TAG} .status`).filter({ hasText: 'Computed by the core' }).waitFor({ timeout: 20000 });
  return session;
}

const text = (page, selector) => page.locator(`${TAG} ${selector}`).allTextContents();
const detail = (page, col) => text(page, `table.detail td[data-col="${col}"]`);
const seqRow = (page, t) => page.locator(`${TAG} table.sequence tr[data-token="${t}"] td[data-col="output"]`).textContent();


/** Runs LayerNorm in the page through the same runtime client the widget uses. */
function coreLayerNorm(page, x, options) {
  return page.evaluate(async ([xs, opts]) => {
    const { connect } = await import('/dist/blockscope-widgets.js');
    const r = await (await connect()).layerNorm(xs, opts);
    return { mean: [...r.mean], variance: [...r.variance], rstd: [...r.rstd], normalized: [...r.normalized], output: [...r.output] };
  }, [x, options]);
}

test('shows the lesson 82 numbers for [1, 3, 5, 7], equal to the core', async () => {
  const { page, context, problems } = await open();
  assert.equal(await page.locator(`${TAG} [data-stat="mean"]`).first().textContent(), '4.0000');
  assert.equal(await page.locator(`${TAG} [data-stat="variance"]`).first().textContent(), '5.0000');
  assert.deepEqual(await detail(page, 'normalized'), ['−1.3416', '−0.4472', '0.4472', '1.3416']);
  assert.deepEqual(await detail(page, 'output'), ['−1.3416', '−0.4472', '0.4472', '1.3416']);
  const core = await coreLayerNorm(page, [1, 3, 5, 7], {});
  assert.deepEqual(await detail(page, 'normalized'), core.normalized.map(fmt4));
  assert.equal(await page.locator(`${TAG} [data-stat="rstd"]`).textContent(), fmt4(core.rstd[0]));
  // The sequence view: token 2 = 10·(token 1) + 0 normalizes to the same vector; every row has its own stats.
  assert.deepEqual(await text(page, 'table.sequence td[data-stat="mean"]'), ['4.0000', '25.0000', '2.0000']);
  assert.deepEqual(await text(page, 'table.sequence td[data-stat="variance"]'), ['5.0000', '125.0000', '4.0000']);
  assert.equal(await page.locator(`${TAG} .detail-chart svg rect`).count(), 8); // 4 features x before/after
  assert.equal(await page.locator(`${TAG} .seq-chart svg rect`).count(), 12); // 4 features x 3 tokens
  await screenshot(page, 'layernorm-explorer-desktop-light');
  assertClean(problems);
  await context.close();
});

test('the book §4.2 toy preset shows the biased variance 0.0192 / 0.0332 and says why the book printed 0.0231', async () => {
  const { page, context, problems } = await open({ colorScheme: 'dark' });
  await page.locator(`${TAG} #preset`).selectOption('book');
  await page.locator(`${TAG} table.sequence td[data-stat="mean"]`).first().filter({ hasText: '0.1324' }).waitFor();
  assert.deepEqual(await text(page, 'table.sequence td[data-stat="mean"]'), ['0.1324', '0.2170']);
  assert.deepEqual(await text(page, 'table.sequence td[data-stat="variance"]'), ['0.0192', '0.0332']);
  const note = await page.locator(`${TAG} .book-note`).textContent();
  assert.match(note, /PyTorch’s own output after torch\.manual_seed\(123\), copied exactly/);
  assert.match(note, /a Blockscope seed 123 gives other numbers/);
  assert.match(note, /0\.0231 and 0\.0398/);
  assert.match(note, /0\.0192 and 0\.0332/);
  const toy = [0.2259521335363388, 0.346953809261322, 0, 0.22160431742668152, 0, 0,
    0.2132834792137146, 0.23942121863365173, 0, 0.5198363661766052, 0.3297472298145294, 0];
  const core = await coreLayerNorm(page, toy, { dim: 6 });
  assert.deepEqual(await detail(page, 'output'), core.output.slice(0, 6).map(fmt4));
  await page.locator(`${TAG} #token`).selectOption('2');
  await page.locator(`${TAG} [data-stat="mean"]`).first().filter({ hasText: '0.2170' }).waitFor();
  assert.deepEqual(await detail(page, 'output'), core.output.slice(6).map(fmt4));
  await screenshot(page, 'layernorm-explorer-desktop-dark-book');
  assertClean(problems);
  await context.close();
});

test('typing a vector, invalid input and the γ/β sliders from the keyboard', async () => {
  const { page, context, problems } = await open();
  const events = [];
  await page.exposeFunction('recordChange', (d) => events.push(d));
  await page.evaluate((tag) => document.querySelector(tag).addEventListener('blockscope-change', (e) => window.recordChange(e.detail)), TAG);
  const token1 = page.locator(`${TAG} #tok-0`);
  await token1.fill('2, 4, 6, 9');
  await page.locator(`${TAG} [data-stat="mean"]`).first().filter({ hasText: '5.2500' }).waitFor();
  const core = await coreLayerNorm(page, [2, 4, 6, 9], {});
  assert.equal(await page.locator(`${TAG} [data-stat="variance"]`).first().textContent(), fmt4(core.variance[0]));
  assert.deepEqual(await detail(page, 'normalized'), core.normalized.map(fmt4));
  assert.deepEqual(events.at(-1).input[0], [2, 4, 6, 9]);
  assert.equal(fmt4(events.at(-1).mean[0]), '5.2500');

  // Invalid input: a clear message, the field marked, the last good state kept.
  await token1.fill('2, four, 6, 9');
  await page.locator(`${TAG} #tok-0-error`).waitFor(); // under the field (field-errors.test.mjs checks where)
  assert.match(await page.locator(`${TAG} #tok-0-error`).textContent(), /Token 1: entry 2 \("four"\) is not a number/);
  assert.equal(await token1.getAttribute('aria-invalid'), 'true');
  assert.equal(await page.locator(`${TAG} [data-stat="mean"]`).first().textContent(), '5.2500');
  await token1.fill('1, 2, 3');
  assert.match(await page.locator(`${TAG} #tok-0-error`).textContent(), /Token 2 has 4 features but token 1 has 3; every token needs the same d/);
  assert.equal(await page.locator(`${TAG} [data-stat="mean"]`).first().textContent(), '5.2500');
  await token1.fill('1, 3, 5, 7');
  await page.locator(`${TAG} [data-stat="mean"]`).first().filter({ hasText: '4.0000' }).waitFor();
  assert.equal(await token1.getAttribute('aria-invalid'), null);

  // γ: 1.0 -> 1.5 with five ArrowRight presses; β: 0 -> −0.3 with three ArrowLeft presses.
  await page.locator(`${TAG} #gamma`).focus();
  for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
  await page.locator(`${TAG} #beta`).focus();
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowLeft');
  await page.waitForFunction((tag) => document.querySelector(tag).getAttribute('beta') === '-0.3', TAG);
  const affine = await coreLayerNorm(page, [1, 3, 5, 7], { gamma: [1.5, 1.5, 1.5, 1.5], beta: [-0.3, -0.3, -0.3, -0.3] });
  await page.locator(`${TAG} table.detail td[data-col="output"]`).first().filter({ hasText: fmt4(affine.output[0]) }).waitFor();
  assert.deepEqual(await detail(page, 'output'), affine.output.map(fmt4));
  assert.deepEqual(await detail(page, 'normalized'), ['−1.3416', '−0.4472', '0.4472', '1.3416']); // x̂ does not move
  assert.equal(await page.locator(`${TAG} output[for="gamma"]`).textContent(), '1.5');
  assert.equal(await page.locator(`${TAG} output[for="beta"]`).textContent(), '−0.3');
  assert.equal(events.at(-1).gamma, 1.5);
  assertClean(problems);
  await context.close();
});

test('editing one token changes the other tokens’ outputs only on the wrong axis', async () => {
  const { page, context, problems } = await open();
  const row1 = await seqRow(page, 1);
  // LayerNorm: +1 on token 3 changes token 3 only.
  await page.locator(`${TAG} button[aria-label="Add 1 to the first feature of token 3"]`).click();
  await page.locator(`${TAG} .report`).filter({ hasText: 'You changed token 3' }).waitFor();
  assert.equal(await seqRow(page, 1), row1);
  assert.equal(await page.locator(`${TAG} tr[data-token="3"]`).getAttribute('data-changed'), 'true');
  assert.equal(await page.locator(`${TAG} tr[data-token="1"]`).getAttribute('data-changed'), null);
  assert.match(await page.locator(`${TAG} .report`).textContent(), /only token 3’s output changed/);

  // Flip the switch from the keyboard, then the same edit moves token 1 and token 2 as well.
  await page.locator(`${TAG} #wrong-axis`).focus();
  await page.keyboard.press('Space');
  await page.waitForFunction((tag) => document.querySelector(tag).getAttribute('axis') === 'sequence', TAG);
  await page.locator(`${TAG} [data-stat="feature-mean"]`).waitFor();
  const wrongRow1 = await seqRow(page, 1);
  assert.notEqual(wrongRow1, row1);
  // Wrong axis = the core's LayerNorm over the columns of the (T, d) matrix.
  const T = 3;
  const rows = [[1, 3, 5, 7], [10, 20, 30, 40], [1, 4, 4, 0]]; // token 3 after its +1
  // (T, d) -> (d, T) here in the test too: each feature's T values are one row for the core.
  const cols = rows[0].map((_, i) => rows.map((r) => r[i])).flat();
  const core = await coreLayerNorm(page, cols, { dim: T });
  assert.deepEqual(await text(page, `table.sequence tr[data-token="1"] td[data-col="output"] span`),
    [0, 1, 2, 3].map((i) => fmt4(core.output[i * T])));
  await page.locator(`${TAG} button[aria-label="Add 1 to the first feature of token 3"]`).click();
  await page.locator(`${TAG} .report.trap`).waitFor();
  assert.notEqual(await seqRow(page, 1), wrongRow1);
  assert.equal(await page.locator(`${TAG} tr[data-token="1"]`).getAttribute('data-changed'), 'true');
  assert.equal(await page.locator(`${TAG} tr[data-token="2"]`).getAttribute('data-changed'), 'true');
  assert.match(await page.locator(`${TAG} .report`).textContent(), /changed without being edited/);
  await screenshot(page, 'layernorm-explorer-desktop-light-wrong-axis');
  assertClean(problems);
  await context.close();
});

for (const colorScheme of ['light', 'dark']) {
  test(`fits 360 px without horizontal scrolling (${colorScheme}) and follows a URL-hash deep link`, async () => {
    const { page, context, problems } = await open({ width: 360, height: 800, colorScheme },
      '#layernorm-explorer.values=2,4,6');
    await page.locator(`${TAG} [data-stat="mean"]`).first().filter({ hasText: '4.0000' }).waitFor();
    const core = await coreLayerNorm(page, [2, 4, 6], {});
    assert.equal(await page.locator(`${TAG} [data-stat="variance"]`).first().textContent(), fmt4(core.variance[0]));
    assert.equal(await page.locator(`${TAG} .tokens input`).count(), 1);
    await page.locator(`${TAG} #preset`).selectOption('book'); // the widest content: 6 features, 2 tokens
    await page.locator(`${TAG} [data-stat="mean"]`).first().filter({ hasText: '0.1324' }).waitFor();
    for (const axis of ['features', 'sequence']) {
      await page.evaluate(([tag, a]) => document.querySelector(tag).setAttribute('axis', a), [TAG, axis]);
      await page.locator(`${TAG} ${axis === 'sequence' ? '[data-stat="feature-mean"]' : 'td[data-stat="mean"]'}`).first().waitFor();
      await assertFits(page, TAG, 360, `(${axis})`);
      if (axis === 'features') await screenshot(page, `layernorm-explorer-360-${colorScheme}`);
    }
    await screenshot(page, `layernorm-explorer-360-${colorScheme}-wrong-axis`);
    assertClean(problems);
    await context.close();
  });
}

test('removed and re-inserted, it keeps computing with the core and logs no errors', async () => {
  const { page, context, problems } = await open();
  await page.evaluate(async (tag) => {
    const el = document.querySelector(tag);
    el.remove();
    await new Promise((r) => setTimeout(r, 50)); // after base.js's release check
    document.body.append(el);
    el.remove(); // a DOM move on the way back
    document.body.append(el);
  }, TAG);
  await page.locator(`${TAG} #tok-0`).fill('2, 4, 6, 8');
  await page.locator(`${TAG} [data-stat="mean"]`).first().filter({ hasText: '5.0000' }).waitFor();
  const core = await coreLayerNorm(page, [2, 4, 6, 8], {});
  assert.deepEqual(await detail(page, 'normalized'), core.normalized.map(fmt4));
  await page.locator(`${TAG} #wrong-axis`).check();
  await page.locator(`${TAG} [data-stat="feature-mean"]`).first().waitFor();
  assert.match(await page.locator(`${TAG} .status`).textContent(), /Computed by the core/);
  assertClean(problems);
  await context.close();
});
