// How the widget bundle starts the runtime, in real Chromium: the worker is told the wasm flavour in its URL (so it
// loads the wasm before the page asks), every start-up phase leaves its performance mark on the page's timeline
// (bench/page.mjs reads them) in causal order, light calls are answered by the page's own light module and the worker
// starts with the first request that module does not serve, a page without widgets starts no worker, and on the lesson
// page the widget on screen starts first, the others after it shows its numbers (start-order.js) — except on a reload,
// where every widget builds its DOM before the page loads, so the browser restores the reader's position on it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { assertClean, launchBrowser, openPage, startServer } from './support.mjs';
import { WIDGET_TAGS } from '../../web/widgets/kit/elements.js';

const PHASES = ['entry-evaluated', 'worker-created', 'worker-started', 'glue-loaded', 'wasm-compiled', 'runtime-ready',
  'client-ready', 'first-result', 'widgets-defined', 'first-widget-started'];
const NO_WIDGETS = `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>no widgets</title>
<script type="module">
  const { connect } = await import('./dist/blockscope-widgets.js');
  document.body.dataset.ready = String(typeof connect === 'function');
</script>`;

const env = { url: null, server: null, browser: null };
before(async () => {
  ({ server: env.server, url: env.url } = await startServer({ pages: {
    '/no-widgets.html': { body: NO_WIDGETS },
    // A worker script that starts but never says it is ready (the client waits up to workerTimeout for it).
    '/silent-worker.js': { body: 'setInterval(() => {}, 1000);', headers: { 'Content-Type': 'text/javascript' } },
  } }));
  env.browser = await launchBrowser();
});
after(async () => {
  await env.browser?.close();
  env.server?.close();
});

/** {phase: ms since navigation} of the page's blockscope:* marks. */
const marks = (page) => page.evaluate(() => Object.fromEntries(performance.getEntriesByType('mark')
  .filter((e) => e.name.startsWith('blockscope:')).map((e) => [e.name.slice(11), e.startTime])));

test('the embed page computes <gelu-explorer> on the page; a heavier request starts the worker, flavour in its URL', async () => {
  const { page, context, problems } = await openPage(env.browser);
  const workers = [];
  page.on('worker', (w) => workers.push(w.url()));
  await page.goto(`${env.url}embed.html`);
  await page.locator('gelu-explorer td[data-kind="gelu_tanh"]').filter({ hasText: '0.8412' }).waitFor({ timeout: 30000 });
  await page.waitForLoadState('networkidle');
  assert.deepEqual(workers, [], 'the light widget started no worker');
  // An object (here a tokenizer) lives in a worker: the first one starts now, on the page's compile of the light module.
  const flavour = await page.evaluate(async () => {
    const client = await (await import('./dist/blockscope-widgets.js')).connect();
    await client.createTokenizer({ kind: 'bytes' });
    return client.flavour;
  });
  assert.equal(workers.length, 1, `one worker: ${workers.join(', ')}`);
  assert.match(workers[0], new RegExp(`/dist/blockscope-worker\\.js#flavour=${flavour}&module=page&worker=0$`));
  const m = await marks(page);
  assert.deepEqual(PHASES.filter((p) => typeof m[p] !== 'number'), [], `marks: ${JSON.stringify(m)}`);
  // Causal order only (each phase needs the one before it); 1 ms of slack for the worker's clock conversion. The glue,
  // wasm and instantiation phases are the page's light runtime's; the worker started after the first result.
  const chains = [['entry-evaluated', 'wasm-compiled', 'runtime-ready', 'client-ready', 'first-result', 'worker-created',
    'worker-started'], ['glue-loaded', 'runtime-ready']];
  for (const chain of chains) {
    for (let i = 1; i < chain.length; i++) {
      assert.ok(m[chain[i]] + 1 >= m[chain[i - 1]], `${chain[i - 1]} (${m[chain[i - 1]]}) before ${chain[i]} (${m[chain[i]]})`);
    }
  }
  assertClean(problems);
  await context.close();
});

test('the page answers light calls with its own light module while the worker starts; the rest waits for the worker', async () => {
  const { page, context, problems } = await openPage(env.browser);
  const workers = [];
  page.on('worker', (w) => workers.push(w.url()));
  await page.goto(`${env.url}no-widgets.html`);
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 30000 });
  const r = await page.evaluate(async () => {
    const { connect } = await import('./dist/blockscope-widgets.js');
    const client = await connect({ workerUrl: '/silent-worker.js', workerTimeout: 60000 });
    const gelu = await client.activation('gelu', [1]);
    let tokenizer = 'pending';
    client.createTokenizer({ kind: 'bytes' }).then(() => { tokenizer = 'created'; }, (e) => { tokenizer = e.message; });
    await new Promise((resolve) => setTimeout(resolve, 500));
    return { gelu: gelu[0], mode: client.mode, why: client.fallbackReason, tokenizer, workers: client._workers() };
  });
  assert.equal(r.gelu.toFixed(4), '0.8412');
  assert.equal(r.mode, 'worker', r.why);
  assert.equal(r.tokenizer, 'pending', 'a call the light module does not serve waits for the worker');
  assert.equal(workers.length, 1);
  assert.deepEqual(r.workers.map((w) => w.mode), ['worker']);
  assertClean(problems);
  await context.close();
});

test('a page that imports the bundle without showing a widget starts no worker', async () => {
  const { page, context, problems } = await openPage(env.browser);
  const workers = [];
  page.on('worker', (w) => workers.push(w.url()));
  await page.goto(`${env.url}no-widgets.html`);
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 30000 });
  await page.waitForLoadState('networkidle');
  assert.deepEqual(workers, []);
  const m = await marks(page);
  assert.equal(typeof m['entry-evaluated'], 'number', 'the bundle ran');
  assert.equal(m['worker-created'], undefined);
  assertClean(problems);
  await context.close();
});

const LESSON = WIDGET_TAGS; // the lesson page shows every widget, in this order

test('the lesson\'s widget on screen starts first; on a reload every widget is built when the page loads', async () => {
  const { page, context, problems } = await openPage(env.browser, { width: 1280, height: 900 });
  await page.addInitScript((tags) => {
    window.__built = {}; // tag -> first frame its shadow root had content (ms)
    window.__alive = {}; // tag -> its first blockscope-* event (ms)
    for (const name of ['ready', 'change', 'forward', 'readout']) {
      document.addEventListener(`blockscope-${name}`, (e) => { window.__alive[e.target.localName] ??= performance.now(); });
    }
    const poll = () => {
      for (const t of tags) if (document.querySelector(t)?.shadowRoot?.childElementCount) window.__built[t] ??= performance.now();
      requestAnimationFrame(poll);
    };
    requestAnimationFrame(poll);
    addEventListener('load', () => {
      window.__builtAtLoad = tags.filter((t) => document.querySelector(t)?.shadowRoot?.childElementCount > 0);
    });
  }, LESSON);
  await page.goto(env.url);
  await page.waitForFunction((n) => Object.keys(window.__alive).length >= 5 && Object.keys(window.__built).length === n,
    LESSON.length, { timeout: 60000 });
  const { built, alive } = await page.evaluate(() => ({ built: window.__built, alive: window.__alive }));
  const first = alive['layernorm-explorer'];
  assert.equal(typeof first, 'number', `the widget on screen came alive: ${JSON.stringify(alive)}`);
  for (const tag of LESSON.slice(1)) assert.ok(built[tag] >= first, `${tag} built at ${built[tag]} ms, before ${first} ms`);

  // Scrolled to the last section (the BPE model's GPT explorer) and reloaded: the widgets above it have their DOM
  // when the page loads (no widget waits), and the browser brings the reader back to it. (Widgets still grow after
  // the load event — the page is about half its final height then — so a reader in the middle of the page lands
  // lower than they were; the restore is exact only for the end of the page.)
  await page.locator('#gpt-words').scrollIntoViewIfNeeded();
  await page.reload();
  await page.waitForFunction(() => window.__builtAtLoad, null, { timeout: 30000 });
  assert.deepEqual(await page.evaluate(() => window.__builtAtLoad), LESSON);
  await page.waitForFunction((n) => Object.keys(window.__alive).length >= n, 5, { timeout: 60000 });
  const box = await page.locator('#gpt-words').boundingBox();
  assert.ok(box.y < 900 && box.y + box.height > 0, `the last GPT section is in view after the reload (top ${box.y} px)`);
  assertClean(problems);
  await context.close();
});
