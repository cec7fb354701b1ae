// Browser-test support: Debian's Chromium driven by playwright-core (never a downloaded browser), the
// project's own static server on a free loopback port, and guards that fail a test on console errors or
// on any request leaving localhost.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';

import { serve } from '../../scripts/serve.mjs';

export const ARTIFACTS = fileURLToPath(new URL('../../artifacts/screenshots/', import.meta.url));
const WEB_ROOT = fileURLToPath(new URL('../../web/', import.meta.url));

/**
 * Registers before/after hooks that start the local server and Chromium once for a test file; the returned
 * object's `url` and `browser` are set by the time tests run. `pages`: in-memory pages the server also serves
 * (startServer; a test may add some later, e.g. with widgetPage()).
 */
export function browserSuite({ pages = null } = {}) {
  const env = { url: null, browser: null, server: null, pages };
  before(async () => {
    ({ server: env.server, url: env.url } = await startServer({ pages }));
    env.browser = await launchBrowser();
  });
  after(async () => {
    await env.browser?.close();
    env.server?.close();
  });
  return env;
}

/**
 * Adds an in-memory page at `path` to `pages` (see browserSuite): the widgets' bundle and `body` in an
 * <html lang="…">, with a viewport and no favicon request. Returns the path.
 */
export function widgetPage(pages, path, body, { lang = 'en', dir = 'ltr', head = '' } = {}) {
  pages[path] = { body: `<!doctype html><html lang="${lang}" dir="${dir}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">${head}</head>
<body><script type="module" src="/dist/blockscope-widgets.js"></script>${body}</body></html>` };
  return path;
}

/** Formats a number as the widgets display it: 4 decimals, U+2212 minus, no "−0.0000". */
export function fmt4(v) {
  const s = v.toFixed(4);
  return /^-0\.?0*$/.test(s) ? s.slice(1) : s.replace('-', '−');
}

/**
 * Serves web/ (or `root`) on a free loopback port. With {cors: true} every response carries Access-Control-Allow-Origin: *,
 * as a CDN serving the bundle to other sites would (cors: a function of the path: only those it accepts, as a host set
 * up for part of the files); `pages` maps paths to in-memory pages {body, headers} (read at
 * request time, so a test may add some later) — real responses, unlike routed ones, which Chromium treats as public
 * pages that may not load from loopback.
 */
export async function startServer({ cors = false, pages = null, root = WEB_ROOT } = {}) {
  const started = await serve({ root, port: 0 });
  if (!cors && !pages) return started;
  const [serveFile] = started.server.listeners('request');
  started.server.removeAllListeners('request');
  started.server.on('request', (req, res) => {
    const { pathname } = new URL(req.url, 'http://localhost');
    if (cors === true || (typeof cors === 'function' && cors(pathname))) res.setHeader('Access-Control-Allow-Origin', '*');
    const page = pages?.[pathname];
    if (!page) return serveFile(req, res);
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache', ...page.headers });
    res.end(page.body);
  });
  return started;
}

export async function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    // This machine has no network: keep Chromium from trying to reach Google's services.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
}

/** A page that records console errors, page errors and non-local requests. */
export async function openPage(browser, { width = 1280, height = 900, reducedMotion = 'no-preference', colorScheme = 'light',
  hasTouch = false, isMobile = false, deviceScaleFactor = 1 } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, reducedMotion, colorScheme, hasTouch, isMobile,
    deviceScaleFactor });
  const page = await context.newPage();
  const problems = { console: [], external: [] };
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.console.push(msg.text());
  });
  page.on('pageerror', (err) => problems.console.push(String(err)));
  page.on('request', (req) => {
    const { hostname, protocol } = new URL(req.url());
    if (!['data:', 'blob:'].includes(protocol) && hostname !== '127.0.0.1' && hostname !== 'localhost') {
      problems.external.push(req.url());
    }
  });
  return { page, context, problems };
}

export function assertClean(problems) {
  assert.deepEqual(problems.console, [], `console errors: ${problems.console.join('\n')}`);
  assert.deepEqual(problems.external, [], `requests left localhost: ${problems.external.join('\n')}`);
}

/**
 * Asserts that at `width` px neither the page nor the widget `tag` is wider than the viewport and that none of the
 * widget's .scroll boxes (a fallback for wide tables) actually has to scroll sideways. `what` labels failures.
 */
export async function assertFits(page, tag, width = 360, what = '') {
  const widths = await page.evaluate((t) => {
    const host = document.querySelector(t);
    const overflowing = [...host.shadowRoot.querySelectorAll('.scroll')].filter((el) => el.scrollWidth > el.clientWidth + 1)
      .map((el) => el.firstElementChild?.className);
    return { page: document.documentElement.scrollWidth, host: host.getBoundingClientRect().right, overflowing };
  }, tag);
  assert.ok(widths.page <= width, `page is ${widths.page} px wide ${what}`);
  assert.ok(widths.host <= width, `widget ends at ${widths.host} px ${what}`);
  assert.deepEqual(widths.overflowing, [], `elements scrolling sideways ${what}`);
}

export async function screenshot(page, name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = `${ARTIFACTS}${name}.png`;
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * Gives the page window.__churnOne(i): inserts widget i of a fixed mix (every kind, presets and a small random GPT
 * among them), waits 5–35 ms (its setup is still under way) and removes it — a page that re-renders, slides paged
 * through. Shared by the lifecycle test and the soak benchmark. Call before page.goto.
 */
export function addWidgetChurn(page) {
  return page.addInitScript(() => {
    const kinds = [
      ['block-explorer', {}], ['ffn-explorer', {}], ['layernorm-explorer', {}], ['gelu-explorer', {}],
      ['residual-flow-explorer', {}], ['block-explorer', { preset: 'encoder-block-lesson82' }],
      ['ffn-explorer', { preset: 'ffn-lesson82' }],
      ['gpt-explorer', { weights: 'random', layers: '1', 'emb-dim': '16', heads: '2', context: '32' }],
    ];
    window.__churnOne = async (i) => {
      const [tag, attrs] = kinds[i % kinds.length];
      const el = document.createElement(tag);
      el.setAttribute('loading', 'eager');
      for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
      document.body.append(el);
      await new Promise((r) => setTimeout(r, 5 + ((i * 7) % 31)));
      el.remove();
    };
  });
}
