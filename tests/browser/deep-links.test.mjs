// Deep links and sync-url: hash values only set attributes within their controls' limits (numbers clamped,
// enumerations checked), never a `model` URL without the author's allow-remote-models; sync-url writes the state
// back to the hash so a reload shows the same view; embed.html takes a widget and its attributes from its query.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { openExplorer } from './gpt-support.mjs';
import { assertClean, browserSuite, openPage } from './support.mjs';

const env = browserSuite();

const gelu = (page, sel = 'gelu-explorer') => page.evaluate((s) => {
  const el = document.querySelector(s);
  const root = el.shadowRoot;
  return {
    attrs: Object.fromEntries([...el.attributes].map((a) => [a.name, a.value])),
    x: root.querySelector('td[data-kind="x"]')?.textContent,
    derivative: root.querySelector('#deriv').checked,
    bg: getComputedStyle(el).backgroundColor,
  };
}, sel);
const geluReady = (page) => page.locator('gelu-explorer .status').filter({ hasText: 'points from the core' }).waitFor({ timeout: 20000 });

test('#gpt-explorer.layers=100000 is clamped to the control’s 48 and the model still builds', async () => {
  const { page, context, problems } = await openExplorer(env, {}, '#gpt-explorer.weights=random&gpt-explorer.layers=100000');
  const attrs = await page.evaluate(() => ({ layers: document.querySelector('gpt-explorer').getAttribute('layers'),
    config: window.__ev.forward.at(-1).config }));
  assert.equal(attrs.layers, '48');
  assert.equal(attrs.config.n_layers, 48);
  assertClean(problems);
  await context.close();
});

test('#gpt-explorer.model=https://other.example/m/ is ignored without allow-remote-models', async () => {
  const { page, context, problems } = await openExplorer(env, {}, '#gpt-explorer.model=https://other.example/m/&gpt-explorer.stat=bogus&gpt-explorer.top-k=7.6');
  const attrs = await page.evaluate(() => {
    const el = document.querySelector('gpt-explorer');
    return { model: el.getAttribute('model'), stat: el.getAttribute('stat'), topK: el.getAttribute('top-k'),
      weights: window.__ev.forward.at(-1).weights };
  });
  assert.deepEqual(attrs, { model: null, stat: null, topK: '8', weights: 'trained' });
  assertClean(problems); // also: no request left localhost
  await context.close();
});

test('with allow-remote-models the author lets the hash choose a model', async () => {
  const { page, context } = await openPage(env.browser);
  await page.route(`${env.url}remote-ok.html`, (route) => route.fulfill({ contentType: 'text/html', body: `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>t</title></head><body>
<gpt-explorer allow-remote-models loading="lazy" style="margin-top: 3000px"></gpt-explorer>
<script type="module" src="/dist/blockscope-widgets.js"></script></body></html>` }));
  await page.goto(`${env.url}remote-ok.html#gpt-explorer.model=/models/brown/`);
  await page.waitForFunction(() => document.querySelector('gpt-explorer')?.getAttribute('model') === '/models/brown/');
  await context.close();
});

test('numbers are clamped, bad enumerations and booleans rejected (gelu-explorer)', async () => {
  const { page, context, problems } = await openPage(env.browser);
  await page.goto(`${env.url}embed.html#gelu.min=-1000&gelu.max=abc&gelu.derivative=maybe&gelu.step=0`);
  await geluReady(page);
  const { attrs } = await gelu(page);
  assert.equal(attrs.min, '-20');
  assert.equal(attrs.step, '0.001');
  assert.equal(attrs.max, undefined);
  assert.equal(attrs.derivative, undefined);
  assertClean(problems);
  await context.close();
});

test('sync-url round trip: change controls → hash updated → reload → same view', async () => {
  const { page, context, problems } = await openPage(env.browser);
  await page.goto(`${env.url}examples/gelu-explorer.html`);
  await geluReady(page);
  await page.locator('gelu-explorer #deriv').check();
  const plot = page.locator('gelu-explorer .chart');
  await plot.focus();
  for (let i = 0; i < 3; i++) await plot.press('ArrowLeft'); // 1 − 3 · 0.05 = 0.85
  await page.waitForFunction(() => location.hash.includes('gelu.x=0.85') && location.hash.includes('gelu.derivative'));
  const hash = await page.evaluate(() => location.hash);
  assert.equal(new URLSearchParams(hash.slice(1)).get('gelu.x'), '0.85');
  await page.reload();
  await geluReady(page);
  await page.locator('gelu-explorer td[data-kind="x"]').filter({ hasText: '0.85' }).waitFor();
  const after = await gelu(page);
  assert.equal(after.derivative, true);
  assert.equal(after.x, '0.85');
  assert.equal(await page.locator('gelu-explorer path[data-kind="gelu_tanh-derivative"]').count(), 1);
  // Back to the defaults: the widget's entries leave the hash.
  await page.locator('gelu-explorer #deriv').uncheck();
  await page.evaluate(() => document.querySelector('gelu-explorer').setAttribute('x', '1'));
  await page.waitForFunction(() => !location.hash.includes('gelu.'));
  assertClean(problems);
  await context.close();
});

test('embed.html?widget=… shows one widget configured from the query (for an iframe), checked the same way', async () => {
  const { page, context, problems } = await openPage(env.browser);
  await page.goto(`${env.url}embed.html?widget=gelu-explorer&min=-5&max=500&derivative=true&theme=dark&bogus=1`);
  await geluReady(page);
  const shown = await gelu(page, 'gelu-explorer#widget');
  assert.deepEqual(shown.attrs, { id: 'widget', min: '-5', max: '20', derivative: 'true', theme: 'dark' });
  assert.equal(shown.bg, 'rgb(13, 17, 23)');
  assert.equal(await page.locator('gelu-explorer').count(), 1);
  assert.equal(await page.evaluate(async () => (await (await import('/dist/blockscope-widgets.js')).load('gpt-explorer'))
    .checkedValue('model', 'https://other.example/m/')), null);
  assertClean(problems);
  await context.close();
});

// The embedding guide cannot drift: its attribute tables come from the classes' metadata, and the lists written by
// hand (events, parts, custom properties, example pages) are checked against the widget sources.
const WIDGETS = new URL('../../web/widgets/', import.meta.url);
async function widgetSources() {
  const { readdirSync, readFileSync } = await import('node:fs');
  return readdirSync(WIDGETS, { recursive: true }).filter((f) => f.endsWith('.js'))
    .map((f) => readFileSync(new URL(f, WIDGETS), 'utf8')).join('\n');
}

test('the guide documents every widget, attribute, event, part and custom property the code has', async () => {
  const { existsSync } = await import('node:fs');
  const src = await widgetSources();
  const tags = [...src.matchAll(/define\('([a-z-]+)'/g)].map((m) => m[1]);
  assert.equal(tags.length, 7, `widget tags ${tags}`);
  const events = [...new Set([...src.matchAll(/emit\('([a-z-]+)'/g)].map((m) => `blockscope-${m[1]}`))];
  const parts = [...new Set([...src.matchAll(/part: '([a-z-]+)'/g), ...src.matchAll(/': '(title|status|chart)'/g)].map((m) => m[1]))];
  const props = [...new Set([...src.matchAll(/var\((--bs-[a-z0-9-]+)/g), ...src.matchAll(/(--bs-[a-z0-9-]+):/g)].map((m) => m[1]))];

  const { page, context, problems } = await openPage(env.browser);
  await page.goto(`${env.url}docs/embedding.html`);
  await page.waitForSelector('#attribute-tables[data-generated]');
  const guide = await page.evaluate((ts) => ({
    tables: Object.fromEntries(ts.map((t) => {
      const table = document.querySelector(`table.attrs[data-tag="${t}"]`);
      return [t, table && [...table.tBodies[0].rows].map((r) => [r.dataset.attr, r.cells[1].textContent, r.cells[2].textContent])];
    })),
    specs: Object.fromEntries(ts.map((t) => [t, customElements.get(t).attrSpecs()])),
    events: document.querySelector('#events-table').textContent,
    parts: document.querySelector('#parts').textContent,
    props: document.querySelector('#custom-properties').textContent,
    minimal: document.querySelector('#minimal + pre').textContent,
  }), tags);
  for (const tag of tags) {
    const specs = guide.specs[tag];
    assert.ok(guide.tables[tag], `no attribute table for <${tag}>`);
    assert.deepEqual(guide.tables[tag].map((r) => r[0]), Object.keys(specs), `<${tag}> attributes`);
    for (const [name, values, shown] of guide.tables[tag]) {
      const spec = specs[name];
      if (spec.type === 'boolean') assert.equal(shown, spec.default ? 'on' : 'off', `${tag} ${name}`);
      else assert.ok(shown.includes(String(spec.default)) || (spec.default === '' && shown === '""'), `${tag} ${name} default ${shown}`);
      if (spec.type === 'number' && !spec.options) assert.ok(spec.min != null && spec.max != null, `${tag} ${name}: a number without limits`);
      if (spec.max != null) assert.ok(values.includes(String(spec.max)), `${tag} ${name} range ${values}`);
      for (const o of spec.options ?? []) assert.ok(values.includes(String(o)), `${tag} ${name} option ${o}`);
    }
    assert.ok(existsSync(new URL(`../../web/examples/${tag}.html`, import.meta.url)), `examples/${tag}.html`);
  }
  for (const e of events) assert.ok(guide.events.includes(e), `event ${e} not in the guide`);
  for (const p of parts) assert.ok(guide.parts.includes(p), `part ${p} not in the guide`);
  for (const p of props) assert.ok(guide.props.includes(p), `custom property ${p} not in the guide`);
  assert.match(guide.minimal, /^<!doctype html>/);
  assert.match(guide.minimal, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
  // The live examples on the guide itself run.
  await page.locator('#live-gelu .status').filter({ hasText: 'points from the core' }).waitFor({ timeout: 20000 });
  await page.locator('#live-ln td').first().waitFor({ timeout: 20000 });
  assertClean(problems);
  await context.close();
});
