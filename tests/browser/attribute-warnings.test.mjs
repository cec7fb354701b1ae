// An attribute value a widget cannot use is reported once — one console.warn per element, attribute and value,
// naming the attribute, the value, why, and the value kept — and the widget goes on with the value kept:
// preset="nonexistent", min="abc", min > max, a number outside its limits, a word not among the options.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertClean, browserSuite, openPage, widgetPage } from './support.mjs';

const pages = {};
const env = browserSuite({ pages });
widgetPage(pages, '/warn.html', `<gelu-explorer id="abc" min="abc"></gelu-explorer>
<gelu-explorer id="crossed" min="5" max="2"></gelu-explorer>
<block-explorer id="preset" preset="nonexistent" metric="nope"></block-explorer>
<ffn-explorer id="big" d="100000" batch="2.5"></ffn-explorer>
<gelu-explorer id="good" min="-2" max="2"></gelu-explorer>`);

async function open() {
  const { page, context, problems } = await openPage(env.browser);
  const warnings = [];
  page.on('console', (msg) => msg.type() === 'warning' && warnings.push(msg.text()));
  await page.goto(`${env.url}warn.html`);
  await page.waitForFunction(() => ['abc', 'crossed', 'good'].every((id) =>
    /points from the core/.test(document.getElementById(id).shadowRoot.querySelector('.status')?.textContent ?? '')), null, { timeout: 30000 });
  return { page, context, problems, warnings };
}

const count = (warnings, text) => warnings.filter((w) => w === text).length;

test('each refused attribute value is named once, with why and the value kept, and the widget uses that value', async () => {
  const { page, context, problems, warnings } = await open();
  const expected = [
    '<gelu-explorer> min="abc": not a number; using -3',
    '<gelu-explorer> min="5": not less than max (2); using min=-3 and max=3',
    '<block-explorer> preset="nonexistent": not one of "", encoder-block-lesson82, gpt2-124m; using ""',
    '<block-explorer> metric="nope": not one of norm, mean, var; using "norm"',
    '<ffn-explorer> d="100000": outside 1 … 65536; using 65536',
    '<ffn-explorer> batch="2.5": not a whole number; using 3',
  ];
  for (const text of expected) assert.equal(count(warnings, text), 1, `once: ${text}\n(all: ${warnings.join('\n')})`);
  assert.ok(!warnings.some((w) => w.includes('<gelu-explorer> min="-2"') || w.includes('max="2"')), 'valid values draw no warning');

  // The values kept are the ones used: the x axes of the two broken GELU plots span the default -3 … 3.
  const axes = await page.evaluate(() => ['abc', 'crossed', 'good'].map((id) =>
    document.getElementById(id).shadowRoot.querySelector('[role="slider"]').getAttribute('aria-valuemin')));
  assert.deepEqual(axes, ['-3', '-3', '-2']);
  assert.equal(await page.evaluate(() => document.getElementById('big').numAttr('d')), 65536);

  // Read again (the widgets redraw) and set to the same value again: still one warning each.
  await page.evaluate(() => {
    const el = document.getElementById('abc');
    el.setAttribute('min', 'abc');
    el.setAttribute('derivative', '');
    document.getElementById('preset').setAttribute('preset', 'nonexistent');
  });
  await page.waitForTimeout(500);
  for (const text of expected) assert.equal(count(warnings, text), 1, `still once: ${text}`);
  // A new bad value is a new warning.
  await page.evaluate(() => document.getElementById('abc').setAttribute('min', 'xyz'));
  await page.waitForTimeout(200);
  assert.equal(count(warnings, '<gelu-explorer> min="xyz": not a number; using -3'), 1);
  assertClean(problems);
  await context.close();
});
