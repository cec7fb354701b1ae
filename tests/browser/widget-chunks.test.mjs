// The widget bundle split per element (kit/elements.js, scripts/build-web.sh), in Chromium: a page with one widget
// downloads the entry, that widget's chunk and the chunks it imports — no other widget's code; an element created
// later by a script (createElement + append, with `state` set before its code arrived, as a framework does) is
// defined and upgraded then; embed.html?widget= loads the widget it names; and the split bundle works under a strict
// Content-Security-Policy (script-src hosts only: no inline script, no eval), its worker too, from the page's origin and
// from a CDN.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { chunkGraph, closure, elementChunk, ENTRY, inThreadChunk, pageFiles } from '../../scripts/widget-chunks.mjs';
import { WIDGET_TAGS } from '../../web/widgets/kit/elements.js';
import { assertClean, launchBrowser, openPage, startServer } from './support.mjs';

const DIST = fileURLToPath(new URL('../../web/dist/', import.meta.url));
const env = { page: null, cdn: null, browser: null, servers: [], pages: {}, graph: null };
before(async () => {
  env.graph = chunkGraph(DIST);
  const [page, cdn] = await Promise.all([startServer({ pages: env.pages }), startServer({ cors: true })]);
  env.servers = [page.server, cdn.server];
  Object.assign(env, { page: page.url, cdn: cdn.url });
  env.browser = await launchBrowser();
});
after(async () => {
  await env.browser?.close();
  for (const s of env.servers) s.close();
});

/** Serves `body` as a page on the page origin (with response `headers`); returns its URL. */
function pageWith(body, headers = {}) {
  const path = `/__chunks-${Object.keys(env.pages).length}.html`;
  env.pages[path] = { headers, body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<title>chunks</title></head><body>${body}</body></html>` };
  return new URL(path, env.page).href;
}

/** Opens `url`, recording the names of the files under dist/ the page (and its worker) requests, in order. */
async function openRecording(url) {
  const session = await openPage(env.browser);
  session.dist = [];
  session.context.on('request', (r) => {
    const path = new URL(r.url()).pathname;
    if (path.startsWith('/dist/')) session.dist.push({ name: path.slice('/dist/'.length), origin: new URL(r.url()).origin });
  });
  await session.page.goto(url);
  return session;
}

const geluReady = (page) => page.locator('gelu-explorer td[data-kind="gelu_tanh"]').filter({ hasText: '0.8412' })
  .waitFor({ timeout: 30000 });
/** The JS files of the widget bundle among `requested` (entry, chunks, per-element modules). */
const bundleFiles = (requested) => new Set(requested.map((r) => r.name)
  .filter((n) => n === ENTRY || n.startsWith('chunk-') || n.startsWith('widgets/')));
/**
 * What a page showing widgets `tags` must download of the bundle: the entry, the chunks, each tag's element module, and
 * the in-thread runtime's files (the page answers the first light calls itself while the worker starts).
 */
const runtimeFiles = () => closure(env.graph, [inThreadChunk(env.graph)]);
const expected = (tags) => new Set([...pageFiles(env.graph, tags), ...tags.map((t) => `widgets/${t}.js`), ...runtimeFiles()]);

test('a page with only <gelu-explorer> downloads the entry, its chunk and the chunks these import — no other widget', async () => {
  const others = WIDGET_TAGS.filter((t) => t !== 'gelu-explorer').map((t) => elementChunk(env.graph, t));
  assert.equal(others.length, 6);
  const { page, context, problems, dist } = await openRecording(pageWith(`<gelu-explorer></gelu-explorer>
<script type="module" src="/dist/blockscope-widgets.js"></script>`));
  await geluReady(page);
  await page.waitForLoadState('networkidle');
  const got = bundleFiles(dist);
  assert.deepEqual([...got].filter((f) => others.includes(f) || f.includes('-explorer-') && !f.includes('gelu')), [],
    'another widget\'s chunk was requested');
  assert.deepEqual([...got].sort(), [...expected(['gelu-explorer'])].sort());
  // Every file of the widget's code and of the page's light runtime beyond the entry's was asked for at once (not one
  // import level at a time).
  const preloads = await page.$$eval('link[rel="modulepreload"]', (links) => links.map((l) => new URL(l.href).pathname.slice(6)));
  const early = closure(env.graph, [ENTRY]);
  assert.deepEqual(preloads.sort(), [...new Set([...pageFiles(env.graph, ['gelu-explorer']), ...runtimeFiles()])]
    .filter((f) => !early.has(f)).sort());
  assertClean(problems);
  await context.close();
});

test('an element created later (createElement, state set before its code arrives, then appended) is defined then', async () => {
  const { page, context, problems, dist } = await openRecording(pageWith(`<gelu-explorer></gelu-explorer>
<script type="module" src="/dist/blockscope-widgets.js"></script>`));
  await geluReady(page);
  const layernorm = elementChunk(env.graph, 'layernorm-explorer');
  assert.ok(!dist.some((r) => r.name === layernorm), 'the LayerNorm chunk was loaded before the page used the tag');
  const before = await page.evaluate(() => {
    const el = document.createElement('layernorm-explorer');
    el.id = 'late';
    el.state = { values: [[2, 4, 6, 8]] }; // as React 19 does for a prop the element has, or a script before append
    const defined = Boolean(customElements.get('layernorm-explorer'));
    document.body.append(el);
    return { defined };
  });
  assert.equal(before.defined, false, 'the element was defined before the page used its tag');
  await page.locator('#late [data-stat="mean"]').first().filter({ hasText: '5.0000' }).waitFor({ timeout: 30000 });
  assert.equal(await page.$eval('#late', (el) => el.getAttribute('values')), '2, 4, 6, 8');
  assert.ok(dist.some((r) => r.name === layernorm));
  // load(tag) resolves with the defined class; an unknown tag is refused by name.
  const loaded = await page.evaluate(async () => {
    const { load } = await import('/dist/blockscope-widgets.js');
    const cls = await load('layernorm-explorer');
    const refused = await load('layernorm-explorer-x').then(() => null, (e) => e.message);
    return { same: cls === customElements.get('layernorm-explorer'), refused };
  });
  assert.equal(loaded.same, true);
  assert.match(loaded.refused, /^<layernorm-explorer-x> is not a Blockscope element: use one of layernorm-explorer, /);
  assertClean(problems);
  await context.close();
});

test('embed.html?widget=block-explorer loads the block explorer alone, and it shows the core\'s numbers', async () => {
  const session = await openPage(env.browser);
  const { page, context, problems } = session;
  const dist = [];
  context.on('request', (r) => new URL(r.url()).pathname.startsWith('/dist/') && dist.push({ name: new URL(r.url()).pathname.slice(6) }));
  await page.addInitScript(() => {
    window.__forward = [];
    document.addEventListener('blockscope-forward', (e) => window.__forward.push(e.detail));
  });
  await page.goto(`${env.page}embed.html?widget=block-explorer&emb-dim=8`);
  await page.waitForFunction(() => window.__forward.length > 0, null, { timeout: 30000 });
  assert.equal(await page.locator('block-explorer#widget').getAttribute('emb-dim'), '8');
  assert.equal(await page.locator('gelu-explorer').count(), 0);
  await page.waitForLoadState('networkidle');
  assert.deepEqual([...bundleFiles(dist)].sort(), [...expected(['block-explorer'])].sort());
  assertClean(problems);
  await context.close();
});

// script-src names hosts only (no 'unsafe-inline', no 'unsafe-eval'; 'wasm-unsafe-eval' lets the core compile); the
// widgets' shadow styles are <style> elements, hence style-src's 'unsafe-inline'.
const csp = (host, worker) => `default-src 'none'; script-src ${host} 'wasm-unsafe-eval'; worker-src ${worker}; ` +
  `connect-src ${host}; style-src 'unsafe-inline'; img-src data:`;

for (const [where, origin, policy] of [
  ['the page\'s origin', () => env.page, () => csp("'self'", "'self'")],
  ['a CDN (CORS)', () => env.cdn, () => csp(new URL(env.cdn).origin, 'blob:')],
]) {
  test(`under a strict CSP (script-src hosts only) the split bundle from ${where} runs <gelu-explorer> on the page and <block-explorer> in a worker`, async () => {
    const bundle = `${origin()}dist/blockscope-widgets.js`;
    const { page, context, problems, dist } = await openRecording(pageWith(`<gelu-explorer></gelu-explorer>
<block-explorer emb-dim="8"></block-explorer><script type="module" src="${bundle}"></script>`, { 'Content-Security-Policy': policy() }));
    await geluReady(page);
    // The page cannot run inline code, so the client is asked through the bundle's own module graph (a test hook
    // would be inline): the worker's start mark shows the block's core came up in a worker (GELU's light calls are
    // answered on the page, which starts no worker for them).
    await page.waitForFunction(() => performance.getEntriesByName('blockscope:worker-started').length > 0, null, { timeout: 30000 })
      .catch(() => {});
    const marks = await page.evaluate(() => performance.getEntriesByType('mark').map((e) => e.name));
    assert.ok(marks.includes('blockscope:worker-started'), `the core did not start in a worker: ${marks.join(', ')}`);
    await page.waitForLoadState('networkidle');
    assert.deepEqual([...bundleFiles(dist)].sort(), [...expected(['gelu-explorer', 'block-explorer'])].sort());
    assert.deepEqual([...new Set(dist.filter((r) => r.name.endsWith('.js')).map((r) => r.origin))], [new URL(origin()).origin],
      'every file of the bundle comes from where the bundle is');
    assertClean(problems); // a CSP violation is a console error
    await context.close();
  });
}
