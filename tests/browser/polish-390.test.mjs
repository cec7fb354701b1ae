// The widgets on a 390 px phone (touch, coarse pointer): radio buttons and checkboxes beside their text, heatmaps no
// wider than their box with each axis title next to its axis (not by the colour bar), the GELU dip label clear of
// every line, the readout position kept when derivatives are toggled, instructions that speak of tapping (not
// hovering) in en/de/es, and LayerNorm on inputs whose variance overflows float32. Element screenshots of the fixed
// layouts go to artifacts/screenshots/polish-*.png (docs/screenshots/ keeps copies; docs/testing.md).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { test } from 'node:test';

import { ARTIFACTS, assertClean, browserSuite, openPage, widgetPage } from './support.mjs';
import { openExplorer } from './gpt-support.mjs';

const pages = {};
const env = browserSuite({ pages });
const PHONE = { width: 390, height: 844, hasTouch: true, isMobile: true };

async function shoot(locator, name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await locator.screenshot({ path: `${ARTIFACTS}polish-${name}.png` });
}

/** Opens `body` (in language `lang`) on a page of its own and waits for `ready` (a locator text) to appear. */
async function open(name, body, { lang = 'en', options = PHONE, ready } = {}) {
  const path = widgetPage(pages, `/polish-${name}.html`, body, { lang });
  const session = await openPage(env.browser, options);
  await session.page.goto(`${env.url}${path.slice(1)}`);
  if (ready) await session.page.locator(ready.selector).filter({ hasText: ready.text }).waitFor({ timeout: 30000 });
  return session;
}

/**
 * For every visible radio button and checkbox wrapped in a <label> inside `tag`: the button's middle and the first
 * line of its text (client rects), so a test can see whether they share a line.
 */
function choicePlacement(page, tag) {
  return page.evaluate((t) => [...document.querySelector(t).shadowRoot.querySelectorAll('label > input:is([type=radio], [type=checkbox])')]
    .filter((input) => input.getClientRects().length > 0 && input.getBoundingClientRect().width > 0)
    .map((input) => {
      const label = input.parentElement;
      const range = document.createRange();
      range.setStartAfter(input);
      range.setEnd(label, label.childNodes.length);
      const first = [...range.getClientRects()].find((r) => r.width > 1);
      const b = input.getBoundingClientRect();
      return { text: label.textContent.trim().slice(0, 40), inputMid: b.top + b.height / 2, inputRight: b.right,
        lineTop: first.top, lineBottom: first.bottom, lineLeft: first.left };
    }), tag);
}

function assertBeside(choices, what) {
  assert.ok(choices.length > 0, `${what}: no radio buttons or checkboxes found`);
  for (const c of choices) {
    assert.ok(c.inputMid >= c.lineTop && c.inputMid <= c.lineBottom,
      `${what}: "${c.text}" — the button's middle (${c.inputMid}) is not on its text's first line (${c.lineTop}–${c.lineBottom})`);
    const gap = c.lineLeft - c.inputRight;
    assert.ok(gap >= 0 && gap <= 12, `${what}: "${c.text}" starts ${gap} px from its button`);
  }
}

test('at 390 px every radio button and checkbox sits on the first line of its own text', async () => {
  const block = await open('block', '<block-explorer></block-explorer>', { ready: { selector: 'block-explorer .status', text: 'core' } });
  const placement = await choicePlacement(block.page, 'block-explorer');
  assertBeside(placement, '<block-explorer>');
  assert.ok(placement.some((c) => c.text.startsWith('Post-LayerNorm')), 'the placement radios are among them');
  await shoot(block.page.locator('block-explorer fieldset').filter({ hasText: 'Post-LayerNorm' }).first(), 'block-placement-radios');
  assertClean(block.problems);
  await block.context.close();

  const ffn = await open('ffn', '<ffn-explorer></ffn-explorer>', { ready: { selector: 'ffn-explorer .status', text: 'Computed by the core' } });
  const activation = await choicePlacement(ffn.page, 'ffn-explorer');
  assertBeside(activation, '<ffn-explorer>');
  assert.ok(activation.some((c) => c.text.startsWith('none: W₂')), 'the worked example\'s activation radios are among them');
  await shoot(ffn.page.locator('ffn-explorer fieldset.example-activation'), 'ffn-activation-radios');
  assertClean(ffn.problems);
  await ffn.context.close();
});

test('at 390 and 360 px the heatmaps fit their boxes and each axis title stays by its axis, apart from the colour bar', async () => {
  for (const width of [390, 360]) {
    const { page, context, problems } = await openExplorer(env, { ...PHONE, width });
    const boxes = await page.evaluate(() => [...document.querySelector('gpt-explorer').shadowRoot.querySelectorAll('.heatbox')]
      .map((box) => {
        const svg = box.querySelector('svg.heat').getBoundingClientRect();
        const legend = box.nextElementSibling; // the colour legend follows its heatmap
        const rect = (el) => {
          const r = el.getBoundingClientRect();
          return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
        };
        const heat = box.querySelector('svg.heat');
        return { cls: box.className, box: box.clientWidth, scroll: box.scrollWidth, svgWidth: svg.width,
          ticks: rect(heat.querySelector('.axis')), xTitle: rect(heat.querySelector('.x-title')),
          legendTitle: rect(legend.querySelector('.legend-title')), ramp: rect(legend.querySelector('.ramp')),
          tokens: heat.querySelectorAll('rect[fill]').length };
      }));
    assert.equal(boxes.length, 2);
    for (const b of boxes) {
      const what = `${b.cls} at ${width} px`;
      assert.ok(b.svgWidth <= b.box, `${what}: the heatmap is ${b.svgWidth} px wide in a ${b.box} px box`);
      assert.ok(b.scroll <= b.box, `${what}: its box scrolls (${b.scroll} > ${b.box})`);
      // The x title is under the tick labels (not on them) and close to them …
      assert.ok(b.xTitle.top >= b.ticks.bottom - 1, `${what}: x title at ${b.xTitle.top} overlaps the tick labels (to ${b.ticks.bottom})`);
      assert.ok(b.xTitle.top - b.ticks.bottom <= 10, `${what}: x title ${b.xTitle.top - b.ticks.bottom} px under the tick labels`);
      // … and the colour bar has its own title between the two, after a blank band.
      assert.ok(b.legendTitle.top - b.xTitle.bottom >= 12, `${what}: colour legend title ${b.legendTitle.top - b.xTitle.bottom} px under the x title`);
      assert.ok(b.legendTitle.bottom <= b.ramp.top + 1, `${what}: the colour legend's title is not above its bar`);
      assert.ok(b.ramp.top - b.xTitle.bottom > 2 * (b.xTitle.top - b.ticks.bottom),
        `${what}: the x title is nearer the colour bar than its tick labels`);
    }
    if (width === 390) {
      await shoot(page.locator('gpt-explorer section.norms'), 'gpt-layernorm-heatmap');
      // The attention heatmap with its colour legend and readout (one clip around the three).
      await page.locator('gpt-explorer .att-legend').scrollIntoViewIfNeeded();
      const boxes = await Promise.all(['.att-heat', '.att-legend', '.att-readout'].map((c) => page.locator(`gpt-explorer ${c}`).boundingBox()));
      const top = Math.min(...boxes.map((b) => b.y));
      const left = Math.min(...boxes.map((b) => b.x));
      await page.screenshot({ path: `${ARTIFACTS}polish-gpt-attention-heatmap.png`, clip: { x: left, y: top,
        width: Math.max(...boxes.map((b) => b.x + b.width)) - left, height: Math.max(...boxes.map((b) => b.y + b.height)) - top } });
    }
    assertClean(problems);
    await context.close();
  }
});

/** Every drawn line of the GELU plot (curves, derivatives, the zero line) sampled each px, in client coordinates, and
 * the dip label's box. */
function dipAndLines(page) {
  return page.evaluate(() => {
    const root = document.querySelector('gelu-explorer').shadowRoot;
    const svg = root.querySelector('.chart svg');
    const points = [];
    for (const el of svg.querySelectorAll('path[data-kind], line.zero')) {
      const m = el.getScreenCTM();
      const len = el.getTotalLength();
      for (let s = 0; s <= len; s += 1) {
        const p = el.getPointAtLength(s);
        points.push([m.a * p.x + m.c * p.y + m.e, m.b * p.x + m.d * p.y + m.f]);
      }
    }
    const r = root.querySelector('.dip text').getBoundingClientRect();
    return { label: { left: r.left, right: r.right, top: r.top, bottom: r.bottom }, points,
      text: root.querySelector('.dip text').textContent };
  });
}

test('the GELU dip label crosses no curve, no derivative and not the ReLU or zero line', async () => {
  const cases = [
    ['phone', '<gelu-explorer></gelu-explorer>', PHONE],
    ['phone-derivatives', '<gelu-explorer derivative></gelu-explorer>', PHONE],
    ['phone-wide-range', '<gelu-explorer min="-6" max="2"></gelu-explorer>', PHONE],
    ['desktop', '<gelu-explorer></gelu-explorer>', { width: 1000, height: 800 }],
  ];
  for (const [name, body, options] of cases) {
    const { page, context, problems } = await open(`gelu-${name}`, body, { options,
      ready: { selector: 'gelu-explorer .status', text: 'points from the core' } });
    const { label, points, text } = await dipAndLines(page);
    assert.match(text, /dip −0\.17 at x ≈ −0\.7[4-6]/);
    assert.ok(points.length > 1000, `${name}: ${points.length} points sampled`);
    const inside = points.filter(([x, y]) => x > label.left + 0.5 && x < label.right - 0.5 && y > label.top + 0.5 && y < label.bottom - 0.5);
    assert.deepEqual(inside, [], `${name}: the dip label (${JSON.stringify(label)}) covers ${inside.length} points of the lines`);
    if (name === 'phone') await shoot(page.locator('gelu-explorer .chart'), 'gelu-dip-label');
    assertClean(problems);
    await context.close();
  }
});

test('toggling derivatives or the difference keeps the readout where the learner put it', async () => {
  const { page, context, problems } = await open('gelu-readout', '<gelu-explorer></gelu-explorer>',
    { ready: { selector: 'gelu-explorer .status', text: 'points from the core' } });
  const x = () => page.locator('gelu-explorer td[data-kind="x"]').textContent();
  await page.locator('gelu-explorer td[data-kind="x"]').filter({ hasText: '1.00' }).waitFor();
  const plot = page.locator('gelu-explorer .chart');
  await plot.focus();
  for (let i = 0; i < 30; i++) await plot.press('ArrowLeft'); // 1 − 30 × 0.05 = −0.5
  await page.locator('gelu-explorer td[data-kind="x"]').filter({ hasText: '−0.50' }).waitFor();
  await page.locator('gelu-explorer #deriv').check();
  // The derivative column appears at the same x: GELU-tanh′(−0.5) = 0.13263 (PyTorch autograd through
  // F.gelu(x, approximate='tanh') at x = −0.5: 0.1326301097869873).
  await page.locator('gelu-explorer td[data-kind="gelu_tanh-derivative"]').filter({ hasText: /\d/ }).waitFor();
  assert.equal(await x(), '−0.50');
  assert.equal(await page.locator('gelu-explorer td[data-kind="gelu_tanh-derivative"]').textContent(), '0.1326');
  await page.locator('gelu-explorer #diff').check();
  await page.locator('gelu-explorer .diff-text').filter({ hasText: /\d/ }).waitFor();
  assert.equal(await x(), '−0.50');
  await page.locator('gelu-explorer #deriv').uncheck();
  await page.locator('gelu-explorer th.deriv-col[hidden]').waitFor({ state: 'attached' });
  assert.equal(await x(), '−0.50');
  assertClean(problems);
  await context.close();
});

test('on a touch screen the instructions say tap and drag, not hover, in every language', async () => {
  const words = { en: [/hover|mouse/i, /tap/i], de: [/Maus|darüberfahren/i, /tippen/i], es: [/ratón|pasa el/i, /toca/i] };
  for (const [lang, [hover, tap]] of Object.entries(words)) {
    const { page, context, problems } = await open(`gelu-touch-${lang}`, `<gelu-explorer lang="${lang}"></gelu-explorer>`, { lang });
    const text = await page.locator('gelu-explorer p.instructions').textContent();
    assert.equal(await page.evaluate(() => matchMedia('(pointer: coarse)').matches), true);
    assert.doesNotMatch(text, hover, `${lang} touch instructions: ${text}`);
    assert.match(text, tap, `${lang} touch instructions: ${text}`);
    assertClean(problems);
    await context.close();
    // With a mouse (a fine pointer) the same widget still offers hovering.
    const desk = await open(`gelu-mouse-${lang}`, `<gelu-explorer lang="${lang}"></gelu-explorer>`, { lang, options: { width: 1000, height: 800 } });
    assert.match(await desk.page.locator('gelu-explorer p.instructions').textContent(), hover);
    await desk.context.close();
  }
  const { page, context, problems } = await openExplorer(env, PHONE);
  const intro = await page.locator('gpt-explorer section.norms p.instructions').textContent();
  assert.doesNotMatch(intro, /hover/i, intro);
  assert.match(intro, /Tap a cell, or drag a finger across the heatmap/);
  assertClean(problems);
  await context.close();
});

test('LayerNorm of 1e30: the variance reads as beyond float32 and the note says why x̂ is still exact', async () => {
  const ready = { selector: 'layernorm-explorer .status', text: 'Computed by the core' };
  const { page, context, problems } = await open('ln-overflow', '<layernorm-explorer values="1e30, 0, 0, 0"></layernorm-explorer>', { ready });
  const stat = (name) => page.locator(`layernorm-explorer dd[data-stat="${name}"]`).textContent();
  // PyTorch (float64, what the core's float64 statistics give): x = [1e30, 0, 0, 0]; F.layer_norm -> [1.7321, -0.5774, …],
  // mean 2.5000e29, var 1.875e59 (float32: inf, as torch.var gives), 1/sqrt(var + 1e-5) = 2.3094e-30. PyTorch's
  // float32 layer_norm gives [nan, nan, nan, nan] for this row.
  assert.equal(await stat('mean'), '2.5000e29');
  assert.equal(await stat('variance'), '∞ (beyond float32)');
  assert.equal(await stat('rstd'), '2.3094e−30');
  assert.deepEqual(await page.locator('layernorm-explorer table.detail td[data-col="normalized"]').allTextContents(),
    ['1.7321', '−0.5774', '−0.5774', '−0.5774']);
  const note = page.locator('layernorm-explorer .overflow-note');
  assert.equal(await note.isVisible(), true);
  assert.match(await note.textContent(), /larger than float32’s largest number .* float64 gives the same numbers.* NaN/);
  const snippet = await page.evaluate(() => document.querySelector('layernorm-explorer').toPyTorch());
  // The copied code runs in float64, where PyTorch prints the numbers shown (in float32 it would print nan).
  assert.match(snippet, /\[1\.0000000150474662e\+30, 0\.0, 0\.0, 0\.0\],\n\], dtype=torch\.float64\)/);
  assert.match(snippet, /LayerNorm\(xs\.shape\[-1\], eps=0\.00001, dtype=torch\.float64\)/);
  await shoot(page.locator('layernorm-explorer [part~="detail"]'), 'layernorm-overflow');
  assertClean(problems);
  await context.close();

  // 1e19 stays within float32 (PyTorch float32: var 1.8750e37, layer_norm 1.7321): no note, float32 code.
  const small = await open('ln-1e19', '<layernorm-explorer values="1e19, 0, 0, 0"></layernorm-explorer>', { ready });
  assert.equal(await small.page.locator('layernorm-explorer dd[data-stat="variance"]').textContent(), '1.8750e37');
  assert.equal(await small.page.locator('layernorm-explorer .overflow-note').isVisible(), false);
  assert.doesNotMatch(await small.page.evaluate(() => document.querySelector('layernorm-explorer').toPyTorch()), /float64/);
  await small.context.close();
});
