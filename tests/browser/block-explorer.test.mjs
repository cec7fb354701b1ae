// <block-explorer> in real Chromium: the statistics it shows are the core's (checked against a second, independent
// forward pass made in the page through the client), stepping by button and by keyboard moves the highlight and
// the numbers, the pre/post toggle rewires the same weights, post-norm keeps the residual stream at √emb_dim while
// pre-norm lets it grow, deep links work, and the page stays clean and narrow-screen friendly. Lesson 82's
// EncoderBlock(8, 2, 32) with the lesson's PyTorch weights (web/presets/encoder-block-lesson82.json) gives PyTorch's
// output within 1e-5 and 840 = 256 + 552 + 32 parameters; seeds read as Blockscope seeds; the element survives
// removal and re-insertion.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { assertClean, assertFits, browserSuite, fmt4, openPage, screenshot } from './support.mjs';

const env = browserSuite();

const PRE_OPS = ['x (input)', 'norm1', 'att', 'drop_shortcut', 'x + shortcut', 'norm2', 'ff', 'drop_shortcut', 'x + shortcut'];
const POST_OPS = ['x (input)', 'att', 'drop_shortcut', 'x + shortcut', 'norm1', 'ff', 'drop_shortcut', 'x + shortcut', 'norm2'];
const num = (text) => Number(text.replace('−', '-'));

/** Opens the example page, recording the widget's events from the start. */
async function open(options, hash = '') {
  const { page, context, problems } = await openPage(env.browser, options);
  await page.addInitScript(() => {
    window.__forward = [];
    window.__steps = [];
    document.addEventListener('blockscope-forward', (e) => window.__forward.push(e.detail));
    document.addEventListener('blockscope-step', (e) => window.__steps.push(e.detail));
  });
  await page.goto(`${env.url}examples/block-explorer.html${hash}`);
  await page.waitForFunction(() => window.__forward.length > 0 && window.__steps.length > 0, null, { timeout: 30000 });
  return { page, context, problems };
}

/** A second forward pass of the same seeded model, made in the page through the client (not through the widget). */
async function coreRun(page, placement) {
  return page.evaluate(async (p) => {
    const { connect } = await import('/dist/blockscope-widgets.js');
    const { config, seed, ids } = window.__forward.at(-1);
    const client = await connect();
    const gpt = await client.createGPT({ ...config, norm: 'pre' }, { seed });
    await gpt.setNormPlacement(p);
    const { inspection } = await gpt.forward(ids, { inspect: true });
    await gpt.dispose();
    const mean = (a) => Array.from(a).reduce((s, v) => s + v, 0) / a.length;
    return {
      steps: inspection.layers.map((l) => l.steps.map((s) => ({ op: s.op, mean: Array.from(s.mean), var: Array.from(s.var), norm: Array.from(s.norm) }))),
      residual: [mean(inspection.layers[0].steps[0].norm), ...inspection.layers.map((l) => mean(l.residualNorm))],
      C: inspection.C,
    };
  }, placement);
}

const json = (path) => JSON.parse(readFileSync(new URL(path, import.meta.url)));
const LESSON = json('../../web/presets/encoder-block-lesson82.json');
const forwardCount = (page) => page.evaluate(() => window.__forward.length);
/** Switches the widget to the lesson's block (or waits for a deep link to have done so) and returns its event. */
async function lessonForward(page, { select = true } = {}) {
  if (select) await page.selectOption('block-explorer select#preset', 'encoder-block-lesson82');
  await page.waitForFunction(() => window.__forward.at(-1)?.preset === 'encoder-block-lesson82', null, { timeout: 30000 });
  return page.evaluate(() => window.__forward.at(-1));
}

const currentOp = (page) => page.locator('block-explorer .node.current').getAttribute('data-op');
const nodeOps = (page) => page.locator('block-explorer .node').evaluateAll((els) => els.map((e) => e.dataset.op));
const tokenColumn = (page, stat) => page.locator(`block-explorer table.tokens td[data-stat="${stat}"]`).allTextContents();

test('steps through a pre-norm block showing the core\'s statistics; keyboard and toggle work', async () => {
  const { page, context, problems } = await open({ width: 1280 });
  const core = await coreRun(page, 'pre');
  assert.deepEqual(core.steps[0].map((s) => s.op), PRE_OPS);
  assert.deepEqual(await nodeOps(page), PRE_OPS);
  assert.equal(await currentOp(page), 'x (input)');
  assert.match(await page.textContent('block-explorer .step-label'), /step 1 of 9/);

  // Next: norm1 — the shown per-token numbers are the core's, and a LayerNorm output has variance ≈ 1, norm ≈ √64.
  await page.click('block-explorer button.next');
  await page.waitForFunction(() => window.__steps.at(-1).op === 'norm1');
  assert.equal(await currentOp(page), 'norm1');
  assert.deepEqual(await tokenColumn(page, 'norm'), core.steps[0][1].norm.map(fmt4));
  assert.deepEqual(await tokenColumn(page, 'var'), core.steps[0][1].var.map(fmt4));
  assert.ok(Math.abs(num(await page.textContent('block-explorer table.summary td[data-stat="norm"]')) - 8) < 1e-3);
  assert.ok(Math.abs(num(await page.textContent('block-explorer table.summary td[data-stat="var"]')) - 1) < 1e-3);
  assert.match(await page.textContent('block-explorer .step-code'), /x = self\.norm1\(x\)/);

  // Arrow keys on the diagram: → → lands on dropout, whose statistics equal attention's (identity at inference).
  await page.focus('block-explorer .diagram');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => window.__steps.at(-1).index === 3);
  assert.equal(await currentOp(page), 'drop_shortcut');
  assert.deepEqual(await tokenColumn(page, 'norm'), core.steps[0][2].norm.map(fmt4));
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => window.__steps.at(-1).index === 2);
  assert.equal(await currentOp(page), 'att');
  await page.keyboard.press('End');
  await page.waitForFunction(() => window.__steps.at(-1).index === 8);
  assert.equal(await page.locator('block-explorer button.next').isDisabled(), true);
  assert.deepEqual(await tokenColumn(page, 'mean'), core.steps[0][8].mean.map(fmt4));

  // Block 3 of the same run.
  await page.selectOption('block-explorer select#block', '3');
  await page.waitForFunction(() => window.__steps.at(-1).block === 3);
  assert.deepEqual(await tokenColumn(page, 'norm'), core.steps[2][8].norm.map(fmt4));

  // Post-norm: same weights, other wiring — the step list and the numbers change; the block output is renormalized.
  const preShown = await tokenColumn(page, 'norm');
  await page.check('block-explorer input[name="placement"][value="post"]');
  await page.waitForFunction(() => window.__steps.at(-1).placement === 'post');
  const post = await coreRun(page, 'post');
  assert.deepEqual(await nodeOps(page), POST_OPS);
  assert.equal(await currentOp(page), 'norm2');
  const postShown = await tokenColumn(page, 'norm');
  assert.notDeepEqual(postShown, preShown);
  assert.deepEqual(postShown, post.steps[2][8].norm.map(fmt4));
  for (const v of postShown) assert.ok(Math.abs(num(v) - Math.sqrt(64)) < 1e-3, `post-norm block output norm ${v}`);
  assert.match(await page.textContent('block-explorer .step-code'), /norm2/);

  // Depth plot: the table is the core's residual norms; post-norm sits at √emb_dim, pre-norm grows with depth.
  const preCol = (await page.locator('block-explorer .depth-table td[data-placement="pre"]').allTextContents()).map(num);
  const postCol = (await page.locator('block-explorer .depth-table td[data-placement="post"]').allTextContents()).map(num);
  assert.equal(preCol.length, 9);
  preCol.forEach((v, k) => assert.ok(Math.abs(v - core.residual[k]) < 1e-4, `pre block ${k}: ${v} vs ${core.residual[k]}`));
  postCol.forEach((v, k) => assert.ok(Math.abs(v - post.residual[k]) < 1e-4, `post block ${k}: ${v} vs ${post.residual[k]}`));
  for (const v of postCol.slice(1)) assert.ok(Math.abs(v - 8) < 1e-3, `post-norm residual ${v} ≈ √64`);
  assert.ok(preCol.at(-1) > preCol[1] && preCol[1] > 8.5, `pre-norm grows: ${preCol.join(', ')}`);
  assert.equal(await page.locator('block-explorer .depth svg .axis-label').first().textContent(), 'block (0 = token + position embeddings)');
  assert.equal(await page.locator('block-explorer .depth svg .axis-label').nth(1).textContent(), 'residual-stream L2 norm');
  assert.equal(await page.locator('block-explorer .depth svg path.line-pre').count(), 1);

  // A new prompt re-runs the block.
  await page.fill('block-explorer input#prompt', 'Hi');
  await page.waitForFunction(() => window.__forward.at(-1).ids.length === 2);
  assert.equal(await page.locator('block-explorer table.tokens tbody tr').count(), 2);

  await page.check('block-explorer input[name="placement"][value="pre"]');
  await page.click('block-explorer button.prev');
  await page.waitForFunction(() => window.__steps.at(-1).placement === 'pre' && window.__steps.at(-1).index === 7);
  await screenshot(page, 'block-explorer-desktop-light');
  assertClean(problems);
  await context.close();
});

test('deep link sets placement, block and step; fits 360 px in light and dark', async () => {
  for (const colorScheme of ['dark', 'light']) {
    const { page, context, problems } = await open({ width: 360, height: 800, colorScheme },
      '#block.norm=post&block.step=5&block.block=2&block.layers=10');
    await page.waitForFunction(() => window.__steps.at(-1)?.block === 2 && window.__steps.at(-1).placement === 'post');
    assert.equal(await page.isChecked('block-explorer input[name="placement"][value="post"]'), true);
    assert.equal(await page.inputValue('block-explorer select#block'), '2');
    assert.match(await page.textContent('block-explorer .step-label'), /step 5 of 9/);
    assert.equal(await currentOp(page), 'norm1');
    assert.equal(await page.locator('block-explorer .depth-table tbody tr').count(), 11); // embeddings + 10 blocks
    const [scrollW, innerW] = await page.evaluate(() => [document.documentElement.scrollWidth, innerWidth]);
    assert.ok(scrollW <= innerW, `page scrolls horizontally: ${scrollW} > ${innerW}`);
    await assertFits(page, 'block-explorer', 360, `(${colorScheme})`);
    // The depth plot's √emb_dim label sits below its reference line, clear of the post-norm markers on that line.
    const label = await page.evaluate(() => {
      const svg = document.querySelector('block-explorer').shadowRoot.querySelector('.depth svg');
      const b = svg.querySelector('.ref-label').getBoundingClientRect();
      const overlaps = [...svg.querySelectorAll('circle')].map((c) => c.getBoundingClientRect())
        .filter((c) => c.left < b.right && c.right > b.left && c.top < b.bottom && c.bottom > b.top).length;
      return { text: svg.querySelector('.ref-label').textContent, top: b.top, lineY: svg.querySelector('line.ref').getBoundingClientRect().top, overlaps };
    });
    assert.equal(label.text, '√emb_dim = √64 = 8.00');
    assert.equal(label.overlaps, 0, 'the √emb_dim label overlaps no marker');
    assert.ok(label.top > label.lineY, `the √emb_dim label (top ${label.top}) is below its line (${label.lineY})`);
    await screenshot(page, `block-explorer-360-${colorScheme}`);
    assertClean(problems);
    await context.close();
  }
  const { page, context, problems } = await open({ width: 1280, colorScheme: 'dark', reducedMotion: 'reduce' }, '#block.step=3');
  assert.equal(await currentOp(page), 'att');
  await screenshot(page, 'block-explorer-desktop-dark');
  assertClean(problems);
  await context.close();
});

test('lesson 82’s EncoderBlock with the lesson’s PyTorch weights: PyTorch’s output within 1e-5, 840 = 256 + 552 + 32', async () => {
  const { page, context, problems } = await open({ width: 1280 });
  const ev = await lessonForward(page);
  // The preset is the same PyTorch run as the C++/wasm golden (make_goldens.make_encoder_block, torch.manual_seed(42)).
  const golden = json('../../tests/golden/encoder_block.json').cases.find((c) => c.name === 'lesson_d8_h2_ff32');
  assert.deepEqual(LESSON.torch_output.data, golden.outputs.y.data);
  assert.deepEqual(LESSON.x.data, golden.inputs.x.data);
  // The core's output (from the widget's forward pass) against PyTorch's, read here from the preset file.
  const torch = LESSON.torch_output.data;
  assert.equal(ev.output.length, 2 * 5 * 8);
  let worst = 0;
  ev.output.forEach((v, i) => { worst = Math.max(worst, Math.abs(v - torch[i])); });
  assert.ok(worst <= 1e-5, `largest |core − PyTorch| = ${worst}`);
  assert.ok(Math.abs(ev.maxAbsDiff - worst) < 1e-12);
  assert.equal(ev.numParameters, 840);
  // What the lesson prints, printed by the widget from the core's numbers.
  assert.equal(await page.textContent('block-explorer .lesson pre.printout'),
    'input:  torch.Size([2, 5, 8])\noutput: torch.Size([2, 5, 8])\nparams: 840');
  assert.equal(await page.textContent('block-explorer [data-lesson="params"]'), '840 = 256 + 552 + 32');
  assert.match(await page.textContent('block-explorer [data-lesson="verdict"]'), /all 80 output values agree with PyTorch’s to within 1e-5/);
  assert.match(await page.textContent('block-explorer .status'), /matches PyTorch’s/);
  // Every displayed output value is PyTorch's to 4 decimals (rounding plus the 1e-5 tolerance).
  const shown = await page.locator('block-explorer table.lesson-output td[data-col="output"] span').allTextContents();
  assert.equal(shown.length, 80);
  shown.forEach((t, i) => assert.ok(Math.abs(num(t) - torch[i]) <= 5e-5 + 1e-5, `value ${i}: shown ${t}, PyTorch ${torch[i]}`));
  // The same numbers from a Block made here through the client with the preset's config and weights.
  const direct = await page.evaluate(async (p) => {
    const { connect } = await import('/dist/blockscope-widgets.js');
    const block = await (await connect()).createBlock(p.config);
    await block.loadParameters(p.params);
    const r = await block.forward(p.x.data, 2, 5);
    await block.dispose();
    return Array.from(r.output);
  }, LESSON);
  assert.deepEqual(ev.output, direct);

  // Stepping uses the lesson's code; the last step's per-token norms are the norms of PyTorch's output rows.
  assert.deepEqual(await nodeOps(page), PRE_OPS);
  await page.focus('block-explorer .diagram');
  await page.keyboard.press('End');
  await page.waitForFunction(() => window.__steps.at(-1).index === 8);
  assert.equal(await page.textContent('block-explorer .step-code'), 'x = x + self.ffn(self.norm2(x))');
  const norms = (await tokenColumn(page, 'norm')).map(num);
  assert.equal(norms.length, 10);
  norms.forEach((v, r) => {
    const row = torch.slice(8 * r, 8 * r + 8);
    const want = Math.sqrt(row.reduce((s2, x) => s2 + x * x, 0));
    assert.ok(Math.abs(v - want) <= 1e-4, `row ${r}: norm ${v} vs PyTorch ${want}`);
  });
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => window.__steps.at(-1).index === 2);
  assert.match(await page.textContent('block-explorer .step-title'), /not causal, no biases/);
  assert.equal(await page.isHidden('block-explorer .depth-section'), true);
  assert.equal(await page.isHidden('block-explorer input#prompt'), true);
  await page.locator('block-explorer .lesson details summary').click();
  await screenshot(page, 'block-explorer-lesson82');

  // Post-norm rewires the same lesson weights; the PyTorch comparison stays the lesson's (pre-norm) output.
  await page.check('block-explorer input[name="placement"][value="post"]');
  await page.waitForFunction(() => window.__steps.at(-1).placement === 'post');
  assert.deepEqual(await nodeOps(page), POST_OPS);
  assert.equal(await page.textContent('block-explorer [data-lesson="params"]'), '840 = 256 + 552 + 32');
  // Back to the seeded GPT.
  await page.check('block-explorer input[name="placement"][value="pre"]');
  const n = await forwardCount(page);
  await page.selectOption('block-explorer select#preset', '');
  await page.waitForFunction((k) => window.__forward.length > k && window.__forward.at(-1).seed === 123, n);
  assert.equal(await page.isHidden('block-explorer .lesson'), true);
  assert.equal(await page.isVisible('block-explorer .depth-section'), true);
  assertClean(problems);
  await context.close();
});

test('the lesson’s block by deep link fits 360 px (dark); seeds read as Blockscope seeds', async () => {
  const { page, context, problems } = await open({ width: 360, height: 800, colorScheme: 'dark' },
    '#block.preset=encoder-block-lesson82&block.step=5');
  const ev = await lessonForward(page, { select: false });
  assert.ok(ev.maxAbsDiff <= 1e-5);
  await page.waitForFunction(() => window.__steps.at(-1)?.index === 4);
  assert.equal(await page.textContent('block-explorer .step-code'), 'x = x + self.attn(self.norm1(x))');
  await page.locator('block-explorer .lesson details summary').click();
  await assertFits(page, 'block-explorer', 360, '(lesson block)');
  await screenshot(page, 'block-explorer-lesson82-360-dark');
  assertClean(problems);
  await context.close();

  const gpt = await open({ width: 1280 });
  const text = await gpt.page.evaluate(() => document.querySelector('block-explorer').shadowRoot.textContent);
  assert.match(text, /random weights from Blockscope seed 123/);
  assert.doesNotMatch(text.replaceAll('Blockscope seed', ''), /\bseed \d/, 'a bare "seed N"');
  assert.match(await gpt.page.getAttribute('block-explorer label[for="seed"]', 'title'), /torch\.manual_seed/);
  assert.equal((await gpt.page.textContent('block-explorer label[for="seed"]')).trim(), 'Blockscope seed');
  assert.match(await gpt.page.textContent('block-explorer .seed-note'), /torch\.manual_seed .*different weights/);
  assertClean(gpt.problems);
  await gpt.context.close();
});

test('removed and re-inserted, it frees its model, rebuilds it and keeps working (GPT and lesson block)', async () => {
  const { page, context, problems } = await open({ width: 1280 });
  const roundTrip = () => page.evaluate(async () => {
    const el = document.querySelector('block-explorer');
    window.__block = el;
    el.remove();
    await new Promise((r) => setTimeout(r, 50)); // base.js releases once the element has really left
    const freed = el.blockModel === null;
    document.body.append(el);
    return freed;
  });
  let n = await forwardCount(page);
  assert.equal(await roundTrip(), true);
  await page.waitForFunction((k) => window.__forward.length > k, n, { timeout: 30000 }); // rebuilt on return
  await page.click('block-explorer button.next');
  await page.waitForFunction(() => window.__steps.at(-1).op === 'norm1');
  const core = await coreRun(page, 'pre');
  assert.deepEqual(await tokenColumn(page, 'norm'), core.steps[0][1].norm.map(fmt4));
  n = await forwardCount(page);
  await page.fill('block-explorer input#prompt', 'Hi');
  await page.waitForFunction((k) => window.__forward.length > k && window.__forward.at(-1).ids.length === 2, n);

  await lessonForward(page);
  n = await forwardCount(page);
  assert.equal(await roundTrip(), true);
  await page.waitForFunction((k) => window.__forward.length > k, n, { timeout: 30000 });
  const ev = await page.evaluate(() => window.__forward.at(-1));
  assert.equal(ev.preset, 'encoder-block-lesson82');
  assert.ok(ev.maxAbsDiff <= 1e-5);
  assert.equal(await page.textContent('block-explorer [data-lesson="params"]'), '840 = 256 + 552 + 32');
  assertClean(problems);
  await context.close();
});
