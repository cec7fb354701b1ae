// Embedding Blockscope in other sites' pages, in Chromium: the widgets bundle served from another origin (a CDN
// with CORS headers) starts its worker through a same-origin blob: URL and finds its wasm and model there; a page
// whose CSP forbids workers gets the in-thread fallback with working widgets; connect({inThread: true}) works from
// the bundle, the unbundled sources and a cross-origin bundle; loadModel refuses third-party origins unless the
// client opts in with allowRemoteModels.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { fmt4, launchBrowser, openPage, startServer } from './support.mjs';
import { tableRows } from './gpt-support.mjs';

const env = { page: null, cdn: null, third: null, browser: null, servers: [], pages: {} };
before(async () => {
  const [page, cdn, third] = await Promise.all([startServer({ pages: env.pages }), startServer({ cors: true }),
    startServer({ cors: true })]);
  env.servers = [page.server, cdn.server, third.server];
  Object.assign(env, { page: page.url, cdn: cdn.url, third: third.url });
  env.browser = await launchBrowser();
});
after(async () => {
  await env.browser?.close();
  for (const s of env.servers) s.close();
});

const isCspReport = (text) => /Content Security Policy/i.test(text);

/** Opens a lesson-like page (served on the page origin) with `body`, optional response headers. */
async function openLesson(body, headers = {}) {
  const session = await openPage(env.browser);
  session.info = [];
  session.page.on('console', (msg) => msg.type() === 'info' && session.info.push(msg.text()));
  await session.page.addInitScript(() => {
    window.__ev = { forward: [] };
    document.addEventListener('blockscope-forward', (e) => window.__ev.forward.push(e.detail));
  });
  const path = `/__lesson-${Object.keys(env.pages).length}.html`;
  env.pages[path] = {
    headers,
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>lesson</title></head><body>${body}</body></html>`,
  };
  const url = new URL(path, env.page).href;
  await session.page.goto(url);
  return session;
}

const widgetsPage = (bundle) => `<script type="module" src="${bundle}"></script>
  <gelu-explorer></gelu-explorer>
  <gpt-explorer prompt="th" loading="eager"></gpt-explorer>`;

/** Waits until both widgets show the core's numbers; returns the ms since navigation when each came alive. */
async function widgetsAlive(page) {
  const t0 = Date.now();
  await page.locator('gelu-explorer .status').filter({ hasText: 'points from the core' }).waitFor({ timeout: 30000 });
  const gelu = await page.evaluate(() => performance.now());
  await page.waitForFunction(() => window.__ev.forward.some((f) => f.weights === 'trained'), null, { timeout: 60000 });
  await page.waitForSelector('gpt-explorer table.candidates.trained tbody tr');
  const gpt = await page.evaluate(() => performance.now());
  assert.ok(Date.now() - t0 < 60000);
  return { gelu, gpt };
}

/** The core's GELU(1) and the trained model's top next byte after "th", through `bundle`'s client. */
function coreNumbers(page, bundle, modelUrl) {
  return page.evaluate(async ([b, url]) => {
    const { connect } = await import(b);
    const client = await connect();
    const [gelu1] = await client.activation('gelu_tanh', [1]);
    const gpt = await client.loadModel({ url });
    const ids = [...new TextEncoder().encode('th')];
    const { logits } = await gpt.forward(ids);
    await gpt.dispose();
    const V = gpt.config.vocab_size;
    const last = [...logits.slice((ids.length - 1) * V)];
    const top = last.reduce((best, v, i) => (v > last[best] ? i : best), 0);
    return { mode: client.mode, fallbackReason: client.fallbackReason, gelu1, top, topLogit: last[top] };
  }, [bundle, modelUrl]);
}

async function assertWidgetsShowCore(page, core) {
  assert.equal(await page.locator('gelu-explorer td[data-kind="gelu_tanh"]').textContent(), fmt4(core.gelu1));
  assert.equal(fmt4(core.gelu1), '0.8412');
  const [row] = await tableRows(page, 'trained');
  assert.equal(row.id, core.top);
  assert.equal(row.token, 'e');
  assert.ok(Math.abs(Number(row.logit.replace('−', '-')) - core.topLogit) < 0.01, `logit ${row.logit} vs ${core.topLogit}`);
}

test('a bundle served from another origin (CDN) runs its widgets in a worker, with its own wasm and model', async () => {
  const bundle = `${env.cdn}dist/blockscope-widgets.js`;
  const { page, context, problems, info } = await openLesson(widgetsPage(bundle));
  const alive = await widgetsAlive(page);
  console.log(`cross-origin bundle: <gelu-explorer> alive after ${alive.gelu.toFixed(0)} ms, <gpt-explorer> after ${alive.gpt.toFixed(0)} ms`);
  const core = await coreNumbers(page, bundle, `${env.cdn}models/brown/`);
  assert.equal(core.mode, 'worker', `fell back: ${core.fallbackReason}`);
  assert.equal(core.fallbackReason, null);
  await assertWidgetsShowCore(page, core);
  assert.deepEqual(info.filter((m) => m.startsWith('Blockscope')), []);
  assert.deepEqual(problems.console, []);
  assert.deepEqual(problems.external, []);
  await context.close();
});

test("a page with CSP worker-src 'none' gets the in-thread fallback and working widgets", async () => {
  const bundle = `${env.page}dist/blockscope-widgets.js`;
  const { page, context, problems, info } = await openLesson(widgetsPage(bundle), { 'Content-Security-Policy': "worker-src 'none'" });
  await widgetsAlive(page);
  const core = await coreNumbers(page, bundle, '/models/brown/');
  assert.equal(core.mode, 'in-thread');
  assert.match(core.fallbackReason, /worker/);
  await assertWidgetsShowCore(page, core);
  assert.equal(info.filter((m) => /^Blockscope: .*page's thread/.test(m)).length, 1, info.join('\n'));
  // The browser reports the refused worker itself (a CSP report); nothing else may fail.
  assert.deepEqual(problems.console.filter((m) => !isCspReport(m)), []);
  assert.deepEqual(problems.external, []);
  await context.close();
});

test('a Worker constructor that throws, or a worker that never starts, also falls back to in-thread', async () => {
  for (const [stub, reason] of [
    ['class { constructor() { throw new DOMException("workers are disabled here", "SecurityError"); } }', /could not be created \(workers are disabled here\)/],
    ['class { postMessage() {} terminate() { window.__terminated = true; } }', /did not start within 300 ms/],
  ]) {
    const { page, context, problems, info } = await openLesson('<p>no widgets</p>');
    const r = await page.evaluate(async ([b, s]) => {
      window.Worker = (0, eval)(`(${s})`);
      const client = await (await import(b)).connect({ workerTimeout: 300 });
      const [y] = await client.activation('gelu_tanh', [1]); // answered by the page's light runtime at once
      // A call the light module does not serve waits for the worker, here for the fallback that replaces it.
      const tokenizer = await client.createTokenizer({ kind: 'bytes' });
      return { mode: client.mode, fallbackReason: client.fallbackReason, y, terminated: !!window.__terminated,
        bytes: tokenizer.vocabSize };
    }, [`${env.page}dist/blockscope-widgets.js`, stub]);
    assert.equal(r.mode, 'in-thread');
    assert.match(r.fallbackReason, reason);
    assert.equal(fmt4(r.y), '0.8412');
    assert.equal(r.bytes, 256, 'the in-thread runtime serves the full API');
    if (/did not start/.test(r.fallbackReason)) assert.ok(r.terminated, 'the silent worker was terminated');
    assert.equal(info.filter((m) => m.startsWith('Blockscope:')).length, 1);
    assert.deepEqual(problems.console, []);
    await context.close();
  }
});

test('connect({inThread: true}) works from the bundle, the unbundled sources and a cross-origin bundle', async () => {
  const { page, context, problems } = await openLesson('<p>no widgets</p>');
  for (const module of [`${env.page}dist/blockscope-widgets.js`, `${env.page}runtime/client.js`, `${env.cdn}dist/blockscope-widgets.js`]) {
    const r = await page.evaluate(async (m) => {
      const { connect } = await import(m);
      const client = await connect({ inThread: true });
      const [y] = await client.activation('gelu_tanh', [1]);
      return { mode: client.mode, fallbackReason: client.fallbackReason, y };
    }, module);
    assert.deepEqual({ ...r, y: fmt4(r.y) }, { mode: 'in-thread', fallbackReason: null, y: '0.8412' }, module);
  }
  assert.deepEqual(problems.console, []);
  assert.deepEqual(problems.external, []);
  await context.close();
});

test('loadModel and createTokenizer refuse a third-party origin unless the client opts in with allowRemoteModels', async () => {
  const { page, context, problems } = await openLesson('<p>no widgets</p>');
  const requested = [];
  page.on('request', (req) => req.url().startsWith(env.third) && requested.push(req.url()));
  const remote = `${env.third}models/brown/`;
  const bundle = `${env.page}dist/blockscope-widgets.js`;
  const refused = await page.evaluate(async ([b, url]) => {
    const { connect } = await import(b);
    return (await connect()).loadModel({ url }).then(() => null, (e) => e.message);
  }, [bundle, remote]);
  assert.ok(refused?.includes(remote), `refusal names the URL: ${refused}`);
  assert.match(refused, /connect\(\{allowRemoteModels: true\}\)/);
  assert.deepEqual(requested, [], 'the refused URL was never fetched');
  const tokenizerRefused = await page.evaluate(async ([b, url]) => {
    const { connect } = await import(b);
    return (await connect()).createTokenizer({ kind: 'gpt2', baseUrl: url }).then(() => null, (e) => e.message);
  }, [bundle, `${env.third}dist/tokenizers/gpt2/`]);
  assert.match(tokenizerRefused ?? '', /^createTokenizer refused .*allowRemoteModels/);
  assert.deepEqual(requested, [], 'the refused tokenizer URL was never fetched');
  const vocab = await page.evaluate(async ([b, url]) => {
    const { connect } = await import(b);
    return (await (await connect({ allowRemoteModels: true })).loadModel({ url })).config.vocab_size;
  }, [bundle, remote]);
  assert.equal(vocab, 256, 'with the opt-in the same URL loads');
  assert.ok(requested.length > 0);
  assert.deepEqual(problems.console, []);
  await context.close();
});
