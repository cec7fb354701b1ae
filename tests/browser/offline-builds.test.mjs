// The service worker caches one build as a unit (web/sw.js): a site deployed as build A, then as build B with one
// refresh that fails half-way, then as B for good. At no point — online or offline — does the page get files of
// two builds: after the failed refresh it runs A entirely (offline too), after the good one B entirely, and A's
// cache is gone. Two copies of web/ serve as the builds; B differs from A in its bundles (the widgets' entry and two of
// its chunks among them), its glue and its page.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, appendFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { serve } from '../../scripts/serve.mjs';
import { chunkGraph, elementChunk } from '../../scripts/widget-chunks.mjs';
import { assertClean, launchBrowser, openPage } from './support.mjs';

const WEB = fileURLToPath(new URL('../../web/', import.meta.url));
const MANIFEST = fileURLToPath(new URL('../../scripts/build-manifest.mjs', import.meta.url));
// The widget bundle's entry, the chunk of <gelu-explorer> (which the page loads on demand) and a chunk the widgets share.
const GRAPH = chunkGraph(join(WEB, 'dist'));
const GELU = elementChunk(GRAPH, 'gelu-explorer');
const SHARED = [...GRAPH.files.get(GELU).imports].sort()[0];
const CHANGED = ['dist/blockscope-widgets.js', `dist/${GELU}`, `dist/${SHARED}`, 'dist/blockscope-worker.js',
  'dist/blockscope-glue.js', 'index.html'];

let tmp;
let browser;
let front;
let url;
const builds = {};
const state = { build: 'A', failing: null }; // which build the site serves, and a path it answers with 500

/** A copy of web/ as build `name` (its changed files marked with the name), with its own manifest. */
function makeBuild(name) {
  const root = join(tmp, name);
  cpSync(WEB, root, { recursive: true, filter: (src) => !src.endsWith('.map') });
  if (name !== 'A') {
    for (const f of CHANGED) appendFileSync(join(root, f), f.endsWith('.html') ? `\n<!-- build ${name} -->\n` : `\n/* build ${name} */\n`);
  }
  execFileSync(process.execPath, [MANIFEST, root]);
  const text = readFileSync(join(root, 'dist/build-manifest.js'), 'utf8');
  const manifest = JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1));
  return { root, manifest };
}

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'blockscope-builds-'));
  for (const name of ['A', 'B']) {
    builds[name] = makeBuild(name);
    const started = await serve({ root: builds[name].root, port: 0 });
    builds[name].server = started.server;
    [builds[name].handle] = started.server.listeners('request');
  }
  front = createServer((req, res) => {
    if (state.failing && new URL(req.url, 'http://x').pathname === `/${state.failing}`) return res.writeHead(500).end('deploy in progress');
    builds[state.build].handle(req, res);
  });
  await new Promise((r) => front.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${front.address().port}/`;
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  front?.close();
  for (const b of Object.values(builds)) b.server.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** Which build each of the page's changed files came from (fetched through the page, so through its worker). */
function filesBuild(page) {
  return page.evaluate(async (files) => {
    const out = {};
    for (const f of files) {
      const text = await (await fetch(`/${f}`)).text();
      out[f] = /build B/.test(text) ? 'B' : 'A';
    }
    return out;
  }, CHANGED);
}

const allOf = (build) => Object.fromEntries(CHANGED.map((f) => [f, build]));
/** The page runs: the GELU widget, once its prediction is answered, shows the core's GELU(1). */
async function working(page) {
  await page.locator('gelu-explorer #predict-value').fill('0.84');
  await page.locator('gelu-explorer #predict-value').press('Enter');
  await page.locator('gelu-explorer td[data-kind="gelu_tanh"]').filter({ hasText: '0.8412' }).first().waitFor({ timeout: 30000 });
}
/** Asks for an update and waits until the browser is done installing (or failing to install) a new worker. */
const settleUpdate = (page) => page.evaluate(async () => {
  const reg = await navigator.serviceWorker.ready;
  await reg.update().catch(() => {});
  while (reg.installing) await new Promise((r) => setTimeout(r, 100));
  return { waiting: !!reg.waiting, caches: await caches.keys() };
});

test('two builds and a failed refresh are never mixed, online or offline', async () => {
  const { page, context, problems } = await openPage(browser);
  // Build A: first visit, the worker installs with A's files; from the reload on it serves them.
  await page.goto(url);
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.reload();
  await working(page);
  assert.ok(await page.evaluate(() => !!navigator.serviceWorker.controller), 'the page is controlled');
  assert.deepEqual(await page.evaluate(() => caches.keys()), [`blockscope-${builds.A.manifest.id}`]);

  // Build B is deployed, but its worker script fails to download during the refresh: B's install fails and is
  // discarded; A keeps serving A, online and offline.
  state.build = 'B';
  state.failing = 'dist/blockscope-worker.js';
  let update = await settleUpdate(page);
  assert.equal(update.waiting, false, 'the failed install left no waiting worker');
  assert.deepEqual(update.caches, [`blockscope-${builds.A.manifest.id}`], 'no partial cache of B');
  await page.reload();
  await working(page);
  assert.deepEqual(await filesBuild(page), allOf('A'), 'online after the failed refresh: all A');
  await context.setOffline(true);
  await page.reload();
  await working(page);
  assert.deepEqual(await filesBuild(page), allOf('A'), 'offline after the failed refresh: all A');
  await context.setOffline(false);

  // The deploy completes: B installs completely and waits while A's page is open (that page stays all A) ...
  state.failing = null;
  update = await settleUpdate(page);
  assert.equal(update.waiting, true, 'B installed and waits for A\'s pages to close');
  assert.deepEqual(await filesBuild(page), allOf('A'), 'the open page of A still gets only A');
  // ... and takes over on the reload of the only page: all B, and A's cache is deleted.
  await page.reload();
  await working(page);
  assert.deepEqual(await filesBuild(page), allOf('B'), 'after the switch: all B');
  // B's activation deletes A's cache; the page, whose widgets start on the page's thread, can be working before that
  // has finished: give it a few seconds.
  const onlyB = [`blockscope-${builds.B.manifest.id}`];
  for (let i = 0; i < 50 && (await page.evaluate(() => caches.keys())).length > 1; i++) await page.waitForTimeout(100);
  assert.deepEqual(await page.evaluate(() => caches.keys()), onlyB);
  await context.setOffline(true);
  await page.reload();
  await working(page);
  assert.deepEqual(await filesBuild(page), allOf('B'), 'offline after the switch: all B');
  // A file of a newer build that the site no longer matches is refused, not mixed in (here: a lazy file, a lesson
  // dataset, asked for offline without having been cached: the worker says why).
  const lazy = await page.evaluate(async () => (await fetch('/data/brown/README.md')).status);
  assert.equal(lazy, 503);
  assertClean({ ...problems, console: problems.console.filter((m) => !/Failed to load resource|503|500/.test(m)) });
  await context.close();
});
