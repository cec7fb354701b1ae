// The heatmaps (chart-kit.js heatmap(), here <gpt-explorer>'s attention weights) on a 360 px touch screen: the SVG
// keeps vertical page scrolling (touch-action: pan-y) and a finger dragged across the cells moves the readout.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertClean, browserSuite } from './support.mjs';
import { openExplorer } from './gpt-support.mjs';

const env = browserSuite();

test('on a 360 px touch screen a drag across the attention heatmap moves the readout', async () => {
  const { page, context, problems } = await openExplorer(env, { width: 360, height: 740, hasTouch: true, isMobile: true });
  const svg = page.locator('gpt-explorer .att-heat svg');
  assert.equal(await svg.evaluate((el) => getComputedStyle(el).touchAction), 'pan-y', 'vertical page scrolling stays');
  const readout = () => page.textContent('gpt-explorer .att-readout');
  // The last query row has every key (the causal mask hides none): drag along it, from the first cell to the last.
  const drag = await svg.evaluate((el) => {
    const rects = [...el.querySelectorAll('g > rect:not(.cursor)')].filter((r) => r.getAttribute('fill'));
    const lastY = Math.max(...rects.map((r) => Number(r.getAttribute('y'))));
    const row = rects.filter((r) => Number(r.getAttribute('y')) === lastY).map((r) => r.getBoundingClientRect())
      .sort((a, b) => a.left - b.left);
    const y = row[0].top + row[0].height / 2;
    const at = (type, x) => el.dispatchEvent(new PointerEvent(type, { bubbles: true, composed: true, pointerId: 11,
      pointerType: 'touch', isPrimary: true, clientX: x, clientY: y }));
    const xs = row.map((r) => r.left + r.width / 2);
    at('pointerdown', xs[0]);
    const first = document.querySelector('gpt-explorer').shadowRoot.querySelector('.att-readout').textContent;
    for (const x of xs.slice(1)) at('pointermove', x);
    at('pointerup', xs.at(-1));
    return { first, cols: row.length };
  });
  assert.ok(drag.cols > 2, `the last row has ${drag.cols} cells`);
  assert.match(drag.first, /\(position 0\) with weight/, `the touch down reads the first key: ${drag.first}`);
  const after = await readout();
  assert.notEqual(after, drag.first, 'the drag moved the readout');
  assert.match(after, new RegExp(`\\(position ${drag.cols - 1}\\) with weight`), `the drag ends on the last key: ${after}`);
  assertClean(problems);
  await context.close();
});
