// <residual-flow-explorer> in Chromium, on its example page: the default view shows the lesson's experiment (its
// PyTorch weights and input) with PyTorch's gradient norms (tests/golden/residual_flow.json) on a log-scale chart and
// in a table; the event carries the same arrays; every control recomputes with Blockscope-seeded weights that a
// second, independent computation through the client reproduces; std 0.1 makes the plain net's layer-1 gradient
// vanish while the residual net's does not; deep-link values are clamped; it fits 360 px in dark mode, works from the
// keyboard and frees its worker objects.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { assertClean, assertFits, browserSuite, openPage, screenshot } from './support.mjs';

const env = browserSuite();
const TAG = 'residual-flow-explorer';
const GOLDEN = Object.fromEntries(JSON.parse(readFileSync(new URL('../golden/residual_flow.json', import.meta.url), 'utf8'))
  .cases.map((c) => [c.name, c.outputs.grad_norms.data]));

/** Opens the example page, recording every blockscope-gradient-norms event from the start. */
async function open(options = {}, hash = '') {
  const session = await openPage(env.browser, options);
  await session.page.addInitScript(() => {
    window.__ev = [];
    document.addEventListener('blockscope-gradient-norms', (e) => window.__ev.push(e.detail));
  });
  await session.page.goto(`${env.url}examples/residual-flow-explorer.html${hash}`);
  await nextEvent(session.page, 0);
  return session;
}

/** Waits for the (n+1)-th event and for the widget to settle (no newer event within 150 ms); returns the last one. */
async function nextEvent(page, n) {
  await page.waitForFunction((k) => window.__ev.length > k, n, { timeout: 30000 });
  let count;
  do {
    count = await page.evaluate(() => window.__ev.length);
    await page.waitForTimeout(150);
  } while (count !== await page.evaluate(() => window.__ev.length));
  return page.evaluate(() => window.__ev.at(-1));
}
const eventCount = (page) => page.evaluate(() => window.__ev.length);

/** Runs `action`, then waits for the widget's recompute and returns its event. */
async function after(page, action) {
  const n = await eventCount(page);
  await action();
  return nextEvent(page, n);
}
const setAttr = (page, name, value) => page.evaluate(([t, k, v]) => document.querySelector(t).setAttribute(k, v), [TAG, name, value]);

function assertClose(got, want, what, rtol = 1e-4) {
  assert.equal(got.length, want.length, `${what}: length`);
  got.forEach((g, i) => assert.ok(Math.abs(g - want[i]) <= rtol * Math.abs(want[i]), `${what}[${i}]: ${g} vs ${want[i]}`));
}

/** The same nets computed in the page through the client, not through the widget (seeded weights, lesson's x). */
function coreNorms(page, ev) {
  return page.evaluate(async (e) => {
    const { connect } = await import('/dist/blockscope-widgets.js');
    const preset = await (await fetch('/presets/residual-flow-lesson82.json')).json();
    const rt = await connect();
    const act = { tanh: 'tanh', gelu: 'gelu_tanh', relu: 'relu' }[e.activation];
    const base = { depth: e.depth, dim: 16, activation: act, layer_norm: e.layerNorm };
    const out = {};
    for (const [key, cfg] of [['withoutResidual', { ...base, residual: false, init_std: e.std }],
      ['withResidual', { ...base, residual: true, init_std: e.sameStd ? e.std : 0 }]]) {
      const mlp = await rt.createResidualMLP(cfg, { seed: e.seed });
      await mlp.forward(preset.x.data, preset.x.shape[0]);
      out[key] = Array.from(await mlp.backwardSum());
      await mlp.dispose();
    }
    return out;
  }, ev);
}

const cells = (page, net) => page.locator(`${TAG} td[data-net="${net}"]`).allTextContents();
const ratioOf = (page, net) => page.locator(`${TAG} dd[data-ratio="${net}"]`).getAttribute('data-value').then(Number);

test('the default view is the lesson\'s experiment: PyTorch\'s gradient norms for both nets, on a log scale', async () => {
  const { page, context, problems } = await open();
  const ev = await page.evaluate(() => window.__ev.at(-1));
  assert.equal(ev.weights, 'lesson');
  assert.equal(ev.depth, 8);
  assertClose(ev.withoutResidual, GOLDEN.no_residual, 'event withoutResidual');
  assertClose(ev.withResidual, GOLDEN.residual, 'event withResidual');
  // The table shows the lesson's printout: no-res L1=15.069, L8=9.787; residual L1=29.272, L8=31.163.
  const plain = await cells(page, 'withoutResidual');
  const res = await cells(page, 'withResidual');
  assert.deepEqual([plain[0], plain[7], res[0], res[7]], ['15.069', '9.787', '29.272', '31.163']);
  assert.deepEqual(plain, GOLDEN.no_residual.map((v) => v.toFixed(3)));
  assert.deepEqual(res, GOLDEN.residual.map((v) => v.toFixed(3)));
  for (const [net, name] of [['withoutResidual', 'no_residual'], ['withResidual', 'residual']]) {
    const shown = await page.locator(`${TAG} td[data-net="${net}"]`).evaluateAll((els) => els.map((e) => Number(e.dataset.value)));
    assertClose(shown, GOLDEN[name], `table data-value ${net}`);
  }
  assert.ok(Math.abs(await ratioOf(page, 'withoutResidual') - GOLDEN.no_residual[0] / GOLDEN.no_residual[7]) < 1e-4);
  assert.ok(Math.abs(await ratioOf(page, 'withResidual') - GOLDEN.residual[0] / GOLDEN.residual[7]) < 1e-4);
  assert.match(await page.locator(`${TAG} .torch`).textContent(),
    /no-res: L1=15\.069, L8=9\.787.*residual: L1=29\.272, L8=31\.163.*at most \d\.\de−\d+ \(relative\)/);
  assert.match(await page.locator(`${TAG} .setup`).textContent(), /the lesson’s own PyTorch weights and input/);
  assert.match(await page.locator(`${TAG} .note`).textContent(), /does not have vanishing gradients.*0\.3·√16 = 1\.2/);
  // Log scale: each mark's height is a linear function of log10 of its value.
  const marks = await page.locator(`${TAG} path.mark`).evaluateAll((els) => els.map((e) => ({
    v: Number(e.dataset.value), y: Number(e.getAttribute('transform').match(/,([-\d.e]+)\)/)[1]) })));
  assert.equal(marks.length, 16);
  const [a, b] = [marks[0], marks[7]];
  const slope = (b.y - a.y) / (Math.log10(b.v) - Math.log10(a.v));
  assert.ok(slope < 0, 'larger norms are drawn higher');
  for (const m of marks) assert.ok(Math.abs(a.y + slope * (Math.log10(m.v) - Math.log10(a.v)) - m.y) < 0.5, `mark at ${m.v}`);
  await screenshot(page, 'residual-flow-explorer');
  assertClean(problems);
  await context.close();
});

test('depth, activation, LayerNorm, std and same-init recompute with seeded weights the core reproduces', async () => {
  const { page, context, problems } = await open();
  // Keyboard: Tab reaches the depth slider first; one ArrowRight is one more layer.
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate((t) => document.querySelector(t).shadowRoot.activeElement?.id, TAG), 'depth');
  let ev = await after(page, () => page.keyboard.press('ArrowRight'));
  assert.equal(ev.depth, 9);
  assert.equal(ev.weights, 'seeded');
  assert.equal(ev.seed, 1);
  assert.equal(ev.withResidual.length, 9);
  assert.equal(ev.withoutResidual.length, 9);
  assert.equal(await page.locator(`${TAG} tbody tr`).count(), 9);
  assert.match(await page.locator(`${TAG} .setup`).textContent(), /Blockscope seed 1/);
  assertClose(ev.withoutResidual, (await coreNorms(page, ev)).withoutResidual, 'depth 9 plain vs client');

  ev = await after(page, () => page.locator(`${TAG} #activation`).selectOption('relu'));
  assert.equal(ev.activation, 'relu');
  assert.equal(ev.withResidual.length, 9);

  await page.locator(`${TAG} #layernorm`).focus();
  ev = await after(page, () => page.keyboard.press('Space'));
  assert.equal(ev.layerNorm, true);

  await page.locator(`${TAG} #std`).focus();
  ev = await after(page, () => page.keyboard.press('Home'));
  assert.equal(ev.std, 0.01);
  ev = await after(page, () => page.locator(`${TAG} #same-std`).check());
  assert.equal(ev.sameStd, true);
  const core = await coreNorms(page, ev);
  assertClose(ev.withoutResidual, core.withoutResidual, 'relu+LN+std 0.01 plain vs client');
  assertClose(ev.withResidual, core.withResidual, 'relu+LN+std 0.01 residual vs client');

  ev = await after(page, () => page.locator(`${TAG} #depth`).fill('3'));
  assert.equal(ev.withResidual.length, 3);

  // Re-seed: the next Blockscope seed, other weights, other norms.
  const before = ev;
  ev = await after(page, () => page.locator(`${TAG} button.reseed`).click());
  assert.equal(ev.seed, 2);
  assert.notDeepEqual(ev.withResidual, before.withResidual);
  assertClose(ev.withResidual, (await coreNorms(page, ev)).withResidual, 'seed 2 residual vs client');

  // Back to the lesson's weights, by keyboard.
  await page.locator(`${TAG} button.lesson`).focus();
  ev = await after(page, () => page.keyboard.press('Enter'));
  assert.equal(ev.weights, 'lesson');
  assertClose(ev.withoutResidual, GOLDEN.no_residual, 'back to the lesson: plain');
  assertClose(ev.withResidual, GOLDEN.residual, 'back to the lesson: residual');
  assert.equal(await page.locator(`${TAG} #depth`).inputValue(), '8');
  assertClean(problems);
  await context.close();
});

test('std 0.1: the plain net\'s layer-1/layer-8 ratio falls orders of magnitude below the residual net\'s', async () => {
  const { page, context, problems } = await open();
  let ev = await after(page, () => page.locator(`${TAG} button.low-std`).click());
  assert.equal(ev.std, 0.1);
  assert.equal(await page.locator(`${TAG} #std-out`).textContent(), '0.10');
  // The claim holds for several Blockscope seeds, not just one.
  for (let seed = 1; seed <= 3; seed++) {
    assert.equal(ev.seed, seed);
    const plain = ev.withoutResidual[0] / ev.withoutResidual[7];
    const res = ev.withResidual[0] / ev.withResidual[7];
    assert.ok(plain < 1e-2, `seed ${seed}: plain ratio ${plain}`);
    assert.ok(res > 0.3, `seed ${seed}: residual ratio ${res}`);
    assert.ok(plain < res / 100, `seed ${seed}: ${plain} vs ${res}`);
    assert.ok(Math.abs(await ratioOf(page, 'withoutResidual') - plain) <= 1e-6 * plain);
    if (seed < 3) ev = await after(page, () => page.locator(`${TAG} button.reseed`).click());
  }
  assertClean(problems);
  await context.close();
});

test('deep-link values out of range are clamped to the controls\' limits', async () => {
  const { page, context, problems } = await open({}, '#residual-flow.depth=100000&residual-flow.std=0.0001&residual-flow.activation=swish');
  const ev = await page.evaluate(() => window.__ev.at(-1));
  assert.equal(ev.depth, 32);
  assert.equal(ev.withResidual.length, 32);
  assert.equal(ev.withoutResidual.length, 32);
  assert.equal(ev.std, 0.01);
  assert.equal(ev.activation, 'tanh');
  assert.equal(await page.locator(`${TAG} #depth`).inputValue(), '32');
  assert.equal(await page.locator(`${TAG} #std-out`).textContent(), '0.010');
  // The deep link is clamped (numbers) or ignored (an unknown activation) before the widget reads it.
  const attrs = await page.evaluate((t) => Object.fromEntries(['depth', 'std', 'activation']
    .map((n) => [n, document.querySelector(t).getAttribute(n)])), TAG);
  assert.deepEqual(attrs, { depth: '32', std: '0.01', activation: null });
  // Values written into the page are read as given and clamped by the widget, with a note.
  const noted = await after(page, () => page.evaluate((t) => {
    const el = document.querySelector(t);
    el.setAttribute('activation', 'swish');
    el.setAttribute('depth', '100000');
  }, TAG));
  assert.equal(noted.depth, 32);
  assert.equal(noted.activation, 'tanh');
  const status = await page.locator(`${TAG} .status`).textContent();
  assert.match(status, /depth 100000 is outside 1–32.*using 32/);
  assert.match(status, /activation “swish”/);
  // A seed in the hash is a Blockscope seed; a bad one is clamped too.
  const seeded = await after(page, () => page.evaluate(() => { location.hash = '#residual-flow.depth=-3&residual-flow.seed=-7'; }));
  assert.equal(seeded.depth, 1);
  assert.equal(seeded.seed, 0);
  assert.equal(seeded.withResidual.length, 1);
  assertClean(problems);
  await context.close();
});

test('fits 360 px in dark mode; frees its worker objects across many changes and on removal', async () => {
  const { page, context, problems } = await open({ width: 360, height: 800, colorScheme: 'dark' });
  await assertFits(page, TAG, 360, 'at the default view');
  const bg = await page.evaluate((t) => getComputedStyle(document.querySelector(t)).backgroundColor, TAG);
  assert.equal(bg, 'rgb(13, 17, 23)');
  await screenshot(page, 'residual-flow-explorer-360-dark');
  const allocated = () => page.evaluate(async () => {
    const { connect } = await import('/dist/blockscope-widgets.js');
    return (await (await connect()).memoryStats()).allocatedBytes;
  });
  const baseline = await allocated();
  for (let depth = 32; depth >= 1; depth -= 3) {
    await after(page, () => setAttr(page, 'depth', String(depth)));
  }
  await assertFits(page, TAG, 360, 'at depth 32 … 2');
  await after(page, () => setAttr(page, 'layernorm', ''));
  await after(page, () => page.locator(`${TAG} button.lesson`).click());
  const afterChanges = await allocated();
  assert.ok(afterChanges - baseline < 32 * 1024, `allocated bytes ${baseline} -> ${afterChanges} after 13 recomputes`);
  // Removed in the middle of a recompute: its nets are still freed; back on the page it recomputes.
  await page.evaluate((t) => {
    window.__parked = document.querySelector(t);
    window.__parked.setAttribute('depth', '32');
    window.__parked.remove();
  }, TAG);
  await page.waitForTimeout(500);
  const removed = await allocated();
  assert.ok(removed - baseline < 32 * 1024, `allocated bytes ${baseline} -> ${removed} after removal`);
  const ev = await after(page, async () => {
    await page.evaluate(() => document.body.append(window.__parked));
    await setAttr(page, 'depth', '5');
  });
  assert.equal(ev.depth, 5);
  assertClean(problems);
  await context.close();
});
