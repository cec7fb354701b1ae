// Blockscope in frameworks and generated pages: a React 19 app (react and react-dom from npm, built with esbuild)
// driving widgets through attributes, the `state` property, custom events and a ref; and a Markdown lesson turned
// into HTML by markdown-it, as a static site generator would, with widgets between its paragraphs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import * as esbuild from 'esbuild';
import MarkdownIt from 'markdown-it';

import { assertClean, launchBrowser, openPage, screenshot, startServer } from './support.mjs';

const DIR = new URL('../../web/examples/frameworks/', import.meta.url);
const env = { url: null, browser: null, server: null };
const pages = {};

before(async () => {
  const built = await esbuild.build({
    entryPoints: [fileURLToPath(new URL('react-lesson.jsx', DIR))], bundle: true, format: 'esm', jsx: 'automatic',
    external: ['/dist/*'], write: false, logLevel: 'silent', define: { 'process.env.NODE_ENV': '"production"' },
  });
  pages['/examples/frameworks/react-lesson.js'] = { body: built.outputFiles[0].text,
    headers: { 'Content-Type': 'text/javascript; charset=utf-8' } };
  const md = new MarkdownIt({ html: true }).render(readFileSync(new URL('lesson.md', DIR), 'utf8'));
  pages['/examples/frameworks/lesson.html'] = { body: `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"><title>Markdown lesson</title>
<script type="module" src="/dist/blockscope-widgets.js"></script></head><body><main>${md}</main></body></html>` };
  ({ server: env.server, url: env.url } = await startServer({ pages }));
  env.browser = await launchBrowser();
});
after(async () => {
  await env.browser?.close();
  env.server?.close();
});

const shadowText = (page, sel) => page.$eval(sel, (el) => el.shadowRoot.textContent);

test('React 19 drives a widget: props as attributes, lang as a property, events heard, a ref calls methods, state passes rows', async () => {
  const { page, context, problems } = await openPage(env.browser);
  await page.goto(`${env.url}examples/frameworks/react.html`);
  // The readout event reaches React's on<event-name> prop.
  await page.locator('#react-readout').filter({ hasText: 'React heard: GELU(1) = 0.8411' }).waitFor({ timeout: 20000 });
  // controls="none": no control of the widget takes room or reaches the accessibility tree.
  const visibleControls = await page.$eval('#gelu', (el) => [...el.shadowRoot.querySelectorAll('input, select, textarea, button')]
    .filter((c) => c.checkVisibility()).length);
  assert.equal(visibleControls, 0);
  const tree = await page.locator('#gelu').ariaSnapshot();
  assert.doesNotMatch(tree, /checkbox/);
  // React state -> attribute -> the widget's readout -> event -> React.
  await page.$eval('#react-x', (input) => {
    const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
    setValue.call(input, '2');
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
  await page.locator('#react-readout').filter({ hasText: 'GELU(2) = 1.95' }).waitFor({ timeout: 10000 });
  assert.equal(await page.$eval('#gelu', (el) => el.getAttribute('x')), '2');
  // The slot's prose sits inside the widget's frame.
  const slotted = await page.$eval('#gelu', (el) => el.shadowRoot.querySelector('slot[name="intro"]').assignedElements()[0]?.textContent);
  assert.match(slotted, /React state/);
  // Rows of numbers through the state property (from the first render on: the app loads the widgets' code first).
  assert.equal(await page.$eval('#ln', (el) => el.getAttribute('values')), '1, 3, 5, 7; 2, 4, 6, 8');
  assert.equal(await page.$eval('#ln', (el) => el.hasAttribute('state')), false, 'state reached the element as an attribute');
  await page.click('#react-rows');
  assert.equal(await page.$eval('#ln', (el) => el.getAttribute('values')), '0, 0, 0, 4; 1, -1, 1, -1');
  assert.deepEqual(await page.$eval('#ln', (el) => el.state.values), '0, 0, 0, 4; 1, -1, 1, -1');
  // lang is a property React sets; the widget speaks German, its numbers get a decimal comma, the code does not.
  await page.selectOption('#react-lang', 'de');
  await page.waitForFunction(() => document.querySelector('#gelu').shadowRoot.querySelector('.readout td.num, .readout td:nth-child(2)')?.textContent.includes(','), null, { timeout: 20000 });
  await page.click('#react-copy');
  const snippet = await page.textContent('#react-snippet');
  assert.match(snippet, /torch/);
  assert.doesNotMatch(snippet, /\d,\d{3}/, 'Copy as PyTorch stays locale-free');
  await screenshot(page, 'react-page');
  assertClean(problems);
  await context.close();
});

test('a Markdown lesson rendered by markdown-it: widgets between paragraphs, configured by attributes and slots', async () => {
  const { page, context, problems } = await openPage(env.browser, { width: 800 });
  await page.goto(`${env.url}examples/frameworks/lesson.html`);
  await page.locator('gelu-explorer .status, gelu-explorer').first().waitFor();
  await page.waitForFunction(() => document.querySelector('gelu-explorer')?.shadowRoot?.textContent.includes('points from the core'), null, { timeout: 20000 });
  await page.waitForFunction(() => document.querySelector('layernorm-explorer')?.shadowRoot?.querySelector('td'), null, { timeout: 20000 });
  // Paragraph, widget, paragraph, widget: the generator kept the elements where the author put them.
  const order = await page.$$eval('main > *', (els) => els.map((e) => e.localName));
  assert.deepEqual(order.filter((t) => t !== 'h1'), ['p', 'p', 'gelu-explorer', 'p', 'layernorm-explorer', 'p']);
  const x = await page.$eval('gelu-explorer', (el) => el.getAttribute('x'));
  assert.equal(x, '-0.75');
  const caption = await page.$eval('layernorm-explorer', (el) => el.shadowRoot.querySelector('slot[name="caption"]').assignedElements()[0]?.textContent);
  assert.match(caption, /stretch and shift/);
  assert.match(await shadowText(page, 'gelu-explorer'), /−0\.1700|−0\.17/);
  await screenshot(page, 'markdown-lesson');
  assertClean(problems);
  await context.close();
});
