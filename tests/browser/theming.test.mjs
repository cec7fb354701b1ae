// Theming from the host page: theme="auto" (the default) follows the page's own background, not only the OS
// preference; theme="light|dark" forces one; --bs-* custom properties, ::part() names and the page's font reach
// into the shadow DOM; color-scheme on :host matches. Screenshots of an author's page in light and dark.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertClean, browserSuite, openPage, screenshot } from './support.mjs';

const env = browserSuite();
const LIGHT_BG = 'rgb(255, 255, 255)';
const DARK_BG = 'rgb(13, 17, 23)';

/** An author's page served at /author-*.html (routed, not on disk) with `body` inside it and the bundle loaded. */
async function authorPage({ colorScheme, head = '', body, name = 'author' }) {
  const session = await openPage(env.browser, { width: 900, height: 900, colorScheme });
  await session.page.route(`${env.url}${name}.html`, (route) => route.fulfill({ contentType: 'text/html', body: `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,"><title>An author's lesson</title>${head}</head>
<body>${body}<script type="module" src="/dist/blockscope-widgets.js"></script></body></html>` }));
  await session.page.goto(`${env.url}${name}.html`);
  await session.page.waitForFunction(() => [...document.querySelectorAll('gelu-explorer')]
    .every((el) => /points from the core/.test(el.shadowRoot?.querySelector('.status')?.textContent)), null, { timeout: 20000 });
  return session;
}

/** Computed background, color-scheme and resolved theme of each <gelu-explorer>. */
function hosts(page) {
  return page.evaluate(() => [...document.querySelectorAll('gelu-explorer')].map((el) => {
    const cs = getComputedStyle(el);
    return { bg: cs.backgroundColor, scheme: cs.colorScheme, theme: el.resolvedTheme };
  }));
}

test('a light page read in OS dark mode gets a light widget; a dark page in OS light mode a dark one', async () => {
  const light = await authorPage({ colorScheme: 'dark', head: '<style>body { background: #fdfcf7; color: #222; }</style>',
    body: '<gelu-explorer></gelu-explorer>' });
  assert.deepEqual(await hosts(light.page), [{ bg: LIGHT_BG, scheme: 'light', theme: 'light' }]);
  assertClean(light.problems);
  await light.context.close();

  const dark = await authorPage({ colorScheme: 'light', head: '<style>body { background: #1e1e24; color: #eee; }</style>',
    body: '<gelu-explorer></gelu-explorer>' });
  assert.deepEqual(await hosts(dark.page), [{ bg: DARK_BG, scheme: 'dark', theme: 'dark' }]);
  // The native checkbox follows the widget's color-scheme.
  const boxScheme = await dark.page.evaluate(() => getComputedStyle(document.querySelector('gelu-explorer').shadowRoot.querySelector('#deriv')).colorScheme);
  assert.equal(boxScheme, 'dark');
  assertClean(dark.problems);
  await dark.context.close();
});

test('a page without a background: light unless it declares a dark color-scheme and the reader prefers dark', async () => {
  const plain = await authorPage({ colorScheme: 'dark', body: '<gelu-explorer></gelu-explorer>' });
  assert.equal((await hosts(plain.page))[0].bg, LIGHT_BG, 'the canvas of a page without color-scheme is white');
  await plain.context.close();

  const both = await authorPage({ colorScheme: 'dark', head: '<meta name="color-scheme" content="light dark">',
    body: '<gelu-explorer></gelu-explorer>' });
  assert.equal((await hosts(both.page))[0].bg, DARK_BG);
  await both.page.emulateMedia({ colorScheme: 'light' }); // the reader switches: the widget re-checks
  await both.page.waitForFunction(() => getComputedStyle(document.querySelector('gelu-explorer')).backgroundColor === 'rgb(255, 255, 255)');
  assertClean(both.problems);
  await both.context.close();
});

test('theme="dark" forces dark; --bs-accent, ::part() and the page font reach the widget', async () => {
  const { page, context, problems } = await authorPage({ colorScheme: 'light',
    head: `<style>
      body { background: white; font-family: Georgia, serif; }
      #styled { --bs-accent: rgb(200, 30, 120); }
      #styled::part(title) { color: rgb(0, 120, 60); letter-spacing: 0.1em; }
    </style>`,
    body: '<gelu-explorer id="forced" theme="dark"></gelu-explorer><gelu-explorer id="styled"></gelu-explorer>' });
  const [forced, styled] = await hosts(page);
  assert.deepEqual(forced, { bg: DARK_BG, scheme: 'dark', theme: 'dark' });
  assert.equal(styled.bg, LIGHT_BG);
  const inside = await page.evaluate(() => {
    const root = document.querySelector('#styled').shadowRoot;
    return {
      accent: getComputedStyle(root.querySelector('#deriv')).accentColor,
      title: getComputedStyle(root.querySelector('[part="title"]')).color,
      font: getComputedStyle(root.querySelector('h3')).fontFamily,
      forcedTitle: getComputedStyle(document.querySelector('#forced').shadowRoot.querySelector('h3')).color,
    };
  });
  assert.equal(inside.accent, 'rgb(200, 30, 120)');
  assert.equal(inside.title, 'rgb(0, 120, 60)');
  assert.match(inside.font, /Georgia/);
  assert.equal(inside.forcedTitle, 'rgb(230, 237, 243)', 'the forced dark widget keeps its own text colour');
  // Switching the attribute re-themes without a reload.
  await page.evaluate(() => document.querySelector('#forced').setAttribute('theme', 'light'));
  assert.equal((await hosts(page))[0].bg, LIGHT_BG);
  assertClean(problems);
  await context.close();
});

test('a page on the browser default font gets the system-ui fallback', async () => {
  const { page, context } = await authorPage({ colorScheme: 'light', body: '<gelu-explorer></gelu-explorer>' });
  const font = await page.evaluate(() => getComputedStyle(document.querySelector('gelu-explorer').shadowRoot.querySelector('h3')).fontFamily);
  assert.match(font, /system-ui/);
  await context.close();
});

const AUTHOR_CSS = (bg, fg) => `<style>
  body { background: ${bg}; color: ${fg}; font: 17px/1.6 Georgia, serif; max-width: 46rem; margin: 0 auto; padding: 1rem; }
  gelu-explorer { margin: 1rem 0; }
</style>`;

test('screenshots: an author page in light and in dark, one widget following the page and one forced', async () => {
  const light = await authorPage({ colorScheme: 'dark', name: 'author-light', head: AUTHOR_CSS('#fffdf8', '#222'),
    body: `<h1>GELU, by hand</h1><p>The page is light; the reader's system is dark. The first widget follows the page,
      the second is forced with theme="dark".</p><gelu-explorer></gelu-explorer><gelu-explorer theme="dark"></gelu-explorer>` });
  assert.deepEqual((await hosts(light.page)).map((h) => h.theme), ['light', 'dark']);
  await screenshot(light.page, 'author-page-light');
  assertClean(light.problems);
  await light.context.close();

  const dark = await authorPage({ colorScheme: 'light', name: 'author-dark', head: AUTHOR_CSS('#15161a', '#e8e6e3'),
    body: `<h1>GELU, by hand</h1><p>The page is dark; the reader's system is light. The first widget follows the page,
      the second is forced with theme="light".</p><gelu-explorer></gelu-explorer><gelu-explorer theme="light"></gelu-explorer>` });
  assert.deepEqual((await hosts(dark.page)).map((h) => h.theme), ['dark', 'light']);
  await screenshot(dark.page, 'author-page-dark');
  assertClean(dark.problems);
  await dark.context.close();
});
