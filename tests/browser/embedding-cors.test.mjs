// Blockscope hosted on another origin, in Chromium, when that host's CORS setup is incomplete: a refused .wasm, glue
// or widget chunk is said on screen, in the widgets, naming the file and the Access-Control-Allow-Origin header; with
// the header on every file and the embedding guide's Content-Security-Policy the widgets run (in a worker). The
// cross-origin setups that work are in embedding-origins.test.mjs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';

import { launchBrowser, openPage, screenshot, startServer } from './support.mjs';

const env = { lesson: null, browser: null, servers: [], pages: {} };
before(async () => {
  const lesson = await startServer({ pages: env.pages });
  env.servers.push(lesson.server);
  env.lesson = lesson.url;
  env.browser = await launchBrowser();
});
after(async () => {
  await env.browser?.close();
  for (const s of env.servers) s.close();
});

/** A host of web/ that sends Access-Control-Allow-Origin only for the paths `allowed` accepts. */
async function host(allowed) {
  const started = await startServer({ cors: allowed });
  env.servers.push(started.server);
  return started.url;
}

/** Opens a lesson page (on the lesson origin) with the bundle from `cdn` and `tags`, optional headers. */
async function openLesson(cdn, tags, headers = {}) {
  const path = `/__cors-${Object.keys(env.pages).length}.html`;
  env.pages[path] = {
    headers,
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>lesson</title></head>
<body><script type="module" src="${cdn}dist/blockscope-widgets.js"></script>${tags.map((t) => `<${t}></${t}>`).join('')}</body></html>`,
  };
  const session = await openPage(env.browser);
  await session.page.goto(new URL(path, env.lesson).href);
  return session;
}

const statusOf = (page, tag) => page.evaluate((t) => {
  const status = document.querySelector(t).shadowRoot?.querySelector('.status');
  return { text: status?.textContent ?? null, error: status?.classList.contains('error') ?? false };
}, tag);

/** Waits until widget `tag`'s status line shows an error; returns its text. */
async function errorShown(page, tag) {
  await page.waitForFunction((t) => document.querySelector(t).shadowRoot?.querySelector('.status.error'), tag, { timeout: 30000 });
  return (await statusOf(page, tag)).text;
}

for (const [what, refused, file] of [
  ['its .wasm', (p) => p.endsWith('.wasm'), /blockscope-(light-)?(simd|simd-relaxed|baseline)\.wasm/],
  ['its glue', (p) => p.endsWith('blockscope-glue.js'), /blockscope-glue\.js/],
]) {
  test(`a host that sends no Access-Control-Allow-Origin for ${what}: each widget says so on screen, naming the file`, async () => {
    const cdn = await host((p) => !refused(p));
    const { page, context, problems } = await openLesson(cdn, ['gelu-explorer', 'block-explorer']);
    for (const tag of ['gelu-explorer', 'block-explorer']) {
      const text = await errorShown(page, tag);
      const url = text.match(/could not load (\S+)/)?.[1] ?? '';
      assert.ok(url.startsWith(`${cdn}dist/`) && file.test(url), `<${tag}> names the refused file: ${text}`);
      assert.match(text, /another origin \(http:\/\/127\.0\.0\.1:\d+\) than this page/, tag);
      assert.match(text, /must send the header Access-Control-Allow-Origin/, tag);
      assert.ok(await page.locator(`${tag} .status`).isVisible(), `<${tag}>'s message is on screen`);
      // Also at the widget's top, where the reader looks first (the status line may be far below).
      const top = page.locator(`${tag} [part="load-error"]`);
      assert.equal(await top.textContent(), text.slice(text.indexOf('Blockscope could not load')));
      const [box, widget] = [await top.boundingBox(), await page.locator(tag).boundingBox()];
      assert.ok(box.y - widget.y < 60 && box.height > 20, `<${tag}>'s notice is at its top: ${box.y} vs ${widget.y}`);
    }
    if (what === 'its .wasm') console.log(`screenshot: ${await screenshot(page, 'cors-wasm-refused')}`);
    assert.deepEqual(problems.external, []);
    await context.close();
  });
}

test("a widget's code refused by the host: the element shows why, the page's other widgets work", async () => {
  const cdn = await host((p) => !/chunk-gelu-explorer-|widgets\/gelu-explorer\.js/.test(p));
  const { page, context, problems } = await openLesson(cdn, ['gelu-explorer', 'layernorm-explorer']);
  const notice = page.locator('gelu-explorer > [role="alert"]');
  await notice.waitFor({ timeout: 30000 });
  const text = await notice.textContent();
  assert.match(text, /^<gelu-explorer>: Blockscope could not load http:\/\/127\.0\.0\.1:\d+\/dist\/(chunk-gelu-explorer-\w+|widgets\/gelu-explorer)\.js /);
  assert.match(text, /must send the header Access-Control-Allow-Origin/);
  assert.equal((text.match(/http:\/\/\S+\.js/g) ?? []).length, 1, `the file is named once: ${text}`);
  const box = await notice.boundingBox();
  assert.ok(box && box.height > 20 && box.width > 200, `the notice is on screen: ${JSON.stringify(box)}`);
  assert.equal(await page.evaluate(() => customElements.get('gelu-explorer')), undefined);
  console.log(`screenshot: ${await screenshot(page, 'cors-widget-chunk-refused')}`);
  await page.locator('layernorm-explorer .status').filter({ hasText: /\S/ }).waitFor();
  assert.equal((await statusOf(page, 'layernorm-explorer')).error, false);
  // The console says it too (with the browser's own CORS report).
  assert.ok(problems.console.some((m) => m.startsWith('Blockscope: the code of <gelu-explorer> could not be loaded')));
  assert.deepEqual(problems.external, []);
  await context.close();
});

test("with the header on every file and the guide's Content-Security-Policy, the widgets run in a worker", async () => {
  const html = readFileSync(new URL('../../web/docs/embedding.html', import.meta.url), 'utf8');
  const policy = html.match(/Content-Security-Policy: ([^<]+)<\/code>/)?.[1];
  assert.ok(policy, 'the guide gives a policy');
  const cdn = await host(() => true);
  const csp = policy.replace(/\s+/g, ' ').replaceAll('https://cdn.example', new URL(cdn).origin);
  const { page, context, problems } = await openLesson(cdn, ['gelu-explorer', 'block-explorer'], { 'Content-Security-Policy': csp });
  await page.locator('gelu-explorer .status').filter({ hasText: 'points from the core' }).waitFor({ timeout: 30000 });
  await page.waitForFunction(() => document.querySelector('block-explorer').shadowRoot?.querySelector('.status')?.textContent, null,
    { timeout: 30000 });
  assert.equal((await statusOf(page, 'block-explorer')).error, false, (await statusOf(page, 'block-explorer')).text);
  const mode = await page.evaluate(async (b) => (await (await import(b)).connect()).mode, `${cdn}dist/blockscope-widgets.js`);
  assert.equal(mode, 'worker');
  assert.deepEqual(problems.console, []);
  assert.deepEqual(problems.external, []);
  await context.close();
});
