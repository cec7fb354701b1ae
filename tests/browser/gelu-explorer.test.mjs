// <gelu-explorer> in Chromium, on the single-widget embed page: the lesson's values (GELU(1) = 0.8412,
// GELU(−1) = −0.1588) equal the core's, the dip near −0.75 is marked, keyboard steps, hover and (on a 360 px touch
// screen) taps and drags move the readout, derivatives and the tanh-vs-erf difference appear on demand, and deep
// links configure it.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertClean, browserSuite, openPage, screenshot } from './support.mjs';

const env = browserSuite();

async function open(options = {}, hash = '') {
  const session = await openPage(env.browser, options);
  await session.page.goto(`${env.url}embed.html${hash}`);
  await session.page.locator('gelu-explorer .status').filter({ hasText: 'points from the core' }).waitFor({ timeout: 20000 });
  return session;
}
const value = (page, kind) => page.locator(`gelu-explorer td[data-kind="${kind}"]`).textContent();

/** GELU-tanh from the core through the page's own runtime client. */
function coreActivation(page, kind, xs) {
  return page.evaluate(async ([k, x]) => {
    const { connect } = await import('/dist/blockscope-widgets.js');
    return [...(await (await connect()).activation(k, x))];
  }, [kind, xs]);
}

test('the embed page shows GELU(1) = 0.8412 and the dip, equal to the core', async () => {
  const { page, context, problems } = await open();
  await page.locator('gelu-explorer td[data-kind="x"]').filter({ hasText: '1.00' }).waitFor();
  assert.equal(await value(page, 'gelu_tanh'), '0.8412');
  assert.equal(await value(page, 'relu'), '1.0000');
  const [core] = await coreActivation(page, 'gelu_tanh', [1]);
  assert.equal(await value(page, 'gelu_tanh'), core.toFixed(4));
  const dip = await page.locator('gelu-explorer .dip text').textContent();
  assert.match(dip, /dip −0\.17 at x ≈ −0\.7[4-6]/);
  assert.equal(await page.locator('gelu-explorer path[data-kind]').count(), 3);
  await screenshot(page, 'gelu-explorer-embed-desktop-light');
  assertClean(problems);
  await context.close();
});

test('keyboard steps and hover move the readout; derivatives and the difference appear on demand', async () => {
  const { page, context, problems } = await open();
  const plot = page.locator('gelu-explorer .chart');
  await plot.focus();
  for (let i = 0; i < 40; i++) await plot.press('ArrowLeft'); // 1 - 40 * 0.05 = -1
  await page.locator('gelu-explorer td[data-kind="x"]').filter({ hasText: '−1.00' }).waitFor();
  assert.equal(await value(page, 'gelu_tanh'), '−0.1588');
  assert.equal(await value(page, 'relu'), '0.0000');
  assert.match(await plot.getAttribute('aria-valuetext'), /x = −1\.00: GELU \(tanh approx\.\) −0\.1588/);
  await plot.press('Home');
  await page.locator('gelu-explorer td[data-kind="x"]').filter({ hasText: '−3.00' }).waitFor();
  assert.equal(await value(page, 'gelu_tanh'), '−0.0036');
  // Hover near the right edge of the plot area reads a larger x.
  const box = await plot.locator('svg').boundingBox();
  await page.mouse.move(box.x + box.width * 0.85, box.y + box.height * 0.5);
  await page.waitForFunction(() => {
    const el = document.querySelector('gelu-explorer').shadowRoot.querySelector('td[data-kind="x"]');
    return Number(el.textContent.replace('−', '-')) > 1.5;
  });
  await page.locator('gelu-explorer #deriv').check();
  await page.locator('gelu-explorer path[data-kind="gelu_tanh-derivative"]').waitFor();
  await page.locator('gelu-explorer #diff').check();
  const diff = await page.locator('gelu-explorer .diff-text').filter({ hasText: 'Largest' }).textContent();
  const worst = Number(diff.match(/: ([0-9.e+-]+) at/)[1]);
  assert.ok(worst > 1e-4 && worst <= 1e-3, `tanh vs erf difference ${worst}`);
  const xs = Array.from({ length: 601 }, (_, i) => -3 + i / 100);
  const [t, e] = await Promise.all([coreActivation(page, 'gelu_tanh', xs), coreActivation(page, 'gelu_erf', xs)]);
  const coreWorst = Math.max(...t.map((v, i) => Math.abs(v - e[i])));
  assert.equal(worst.toExponential(2), coreWorst.toExponential(2));
  await screenshot(page, 'gelu-explorer-embed-derivatives');
  assertClean(problems);
  await context.close();
});

test('deep link sets range, derivatives and the theme; fits 360 px in dark mode', async () => {
  const { page, context, problems } = await open({ width: 360, colorScheme: 'dark' }, '#gelu.min=-5&gelu.max=5&gelu.derivative=true&gelu.theme=dark');
  await page.locator('gelu-explorer path[data-kind="relu-derivative"]').waitFor();
  assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('gelu-explorer')).backgroundColor), 'rgb(13, 17, 23)');
  const ticks = await page.locator('gelu-explorer .x-axis .tick text').allTextContents();
  assert.ok(ticks.includes('−4') || ticks.includes('−5'), `x ticks ${ticks}`);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 360), 'no horizontal overflow');
  await screenshot(page, 'gelu-explorer-embed-360-dark');
  assertClean(problems);
  await context.close();
});

/** Opens embed.html on a 360 px phone with touch (no mouse), and waits for the curves. */
async function openPhone() {
  const context = await env.browser.newContext({ viewport: { width: 360, height: 740 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(String(err)));
  page.on('console', (msg) => { if (msg.type() === 'error') errors.push(msg.text()); });
  await page.goto(`${env.url}embed.html`);
  await page.locator('gelu-explorer .status').filter({ hasText: 'points from the core' }).waitFor({ timeout: 20000 });
  return { page, context, errors };
}
const readoutX = (page) => page.evaluate(() =>
  Number(document.querySelector('gelu-explorer').shadowRoot.querySelector('td[data-kind="x"]').textContent.replace('−', '-')));

test('on a 360 px touch screen a tap on the plot moves the readout, a sideways drag scans it', async () => {
  const { page, context, errors } = await openPhone();
  const plot = page.locator('gelu-explorer .chart');
  assert.equal(await plot.evaluate((el) => getComputedStyle(el).touchAction), 'pan-y', 'vertical page scrolling stays');
  const box = await plot.locator('svg').boundingBox();
  await page.touchscreen.tap(box.x + box.width * 0.2, box.y + box.height * 0.5);
  await page.waitForFunction(() => document.querySelector('gelu-explorer').shadowRoot.querySelector('td[data-kind="x"]').textContent.startsWith('−'));
  const tapped = await readoutX(page);
  assert.ok(tapped < -1, `a tap at 20 % of the plot reads x = ${tapped}`);
  // A drag: touch pointer events from left to right (what a finger sliding sideways sends).
  await plot.evaluate((el, b) => {
    const svg = el.querySelector('svg');
    const at = (type, f) => svg.dispatchEvent(new PointerEvent(type, { bubbles: true, composed: true, pointerId: 7,
      pointerType: 'touch', isPrimary: true, clientX: b.x + b.width * f, clientY: b.y + b.height / 2 }));
    at('pointerdown', 0.3);
    for (let f = 0.35; f <= 0.9; f += 0.05) at('pointermove', f);
    at('pointerup', 0.9);
  }, box);
  await page.waitForFunction(() => Number(document.querySelector('gelu-explorer').shadowRoot
    .querySelector('td[data-kind="x"]').textContent.replace('−', '-')) > 1.5);
  assert.deepEqual(errors, []);
  await context.close();
});

test('at 360 px the dip label stays clear of the y axis', async () => {
  const { page, context } = await openPhone();
  const r = await page.evaluate(() => {
    const root = document.querySelector('gelu-explorer').shadowRoot;
    const label = root.querySelector('.dip text').getBoundingClientRect();
    const axis = root.querySelector('.y-axis').getBoundingClientRect();
    const svg = root.querySelector('.chart svg').getBoundingClientRect();
    return { labelLeft: label.left, labelRight: label.right, axisRight: axis.right, svgRight: svg.right };
  });
  assert.ok(r.labelLeft >= r.axisRight, `dip label starts at ${r.labelLeft}, y axis ends at ${r.axisRight}`);
  assert.ok(r.labelRight <= r.svgRight, `dip label ends at ${r.labelRight}, chart at ${r.svgRight}`);
  await screenshot(page, 'gelu-explorer-embed-360-touch');
  await context.close();
});
