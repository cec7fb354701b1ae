// Framed widgets, in Chromium: a lesson page (one origin) frames embed.html from another origin through
// <blockscope-frame> and through the guide's plain snippet; the frame is as tall as its widget (no inner scroll bar)
// and follows it when it grows or shrinks; with sync-url the framed widget's state goes into the lesson page's URL
// and comes back from it (a reload, a changed hash); messages from other windows are ignored on both sides.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';

import { launchBrowser, openPage, startServer } from './support.mjs';

const env = { lesson: null, host: null, browser: null, servers: [], pages: {} };
before(async () => {
  const [lesson, host] = await Promise.all([startServer({ pages: env.pages }), startServer({ cors: true })]);
  env.servers = [lesson.server, host.server];
  Object.assign(env, { lesson: lesson.url, host: host.url });
  env.browser = await launchBrowser();
});
after(async () => {
  await env.browser?.close();
  for (const s of env.servers) s.close();
});

/** Serves a lesson page with `body` on the lesson origin; returns its URL. */
function lessonPage(body) {
  const path = `/__frames-${Object.keys(env.pages).length}.html`;
  env.pages[path] = {
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>lesson</title>
<style>body { margin: 0; width: 720px; }</style></head><body><h1>A lesson</h1>${body}<p>after the frame</p></body></html>`,
  };
  return new URL(path, env.lesson).href;
}

const helper = () => `<script type="module" src="${env.host}blockscope-frame.js"></script>`;

/** The frame's own view of itself: its content height and whether it scrolls. */
function frameMetrics(frame) {
  return frame.evaluate(() => ({
    content: Math.ceil(document.documentElement.getBoundingClientRect().height),
    scrolls: document.documentElement.scrollHeight > document.documentElement.clientHeight,
    viewport: innerHeight,
  }));
}

/**
 * Waits until the iframe `selector` is as tall as its content (and the frame does not scroll), the same for three
 * looks 100 ms apart; returns the height.
 */
async function settledHeight(page, frame, selector) {
  let last = null;
  let same = 0;
  for (let i = 0; i < 150; i++) {
    const m = await frameMetrics(frame);
    const outer = await page.evaluate((s) => document.querySelector(s).getBoundingClientRect().height, selector);
    const fits = Math.abs(outer - m.content) <= 1 && !m.scrolls && m.viewport === Math.round(outer);
    same = fits && last?.outer === outer ? same + 1 : 0;
    last = { ...m, outer };
    if (same >= 2) return outer;
    await page.waitForTimeout(100);
  }
  assert.fail(`the frame never fitted its content: ${JSON.stringify(last)}`);
}

const frameOf = async (page, selector) => (await page.locator(selector).elementHandle()).contentFrame();

test('<blockscope-frame> is as tall as the block explorer inside and follows it when it grows or shrinks', async () => {
  const { page, context, problems } = await openPage(env.browser, { width: 760, height: 720 });
  await page.goto(lessonPage(`${helper()}<blockscope-frame widget="block-explorer" theme="light"></blockscope-frame>`));
  const frame = await frameOf(page, 'blockscope-frame iframe');
  await frame.locator('block-explorer .status').filter({ hasText: 'forward passes in the core' }).waitFor({ timeout: 30000 });
  const full = await settledHeight(page, frame, 'blockscope-frame iframe');
  console.log(`<block-explorer> in <blockscope-frame>: ${full.toFixed(0)} px tall, no inner scroll bar`);
  assert.ok(full > 1000, `the block explorer is taller than a 720 px frame (${full} px)`);
  // The page around it flows: the paragraph after the frame starts below the whole widget.
  const after = await page.evaluate(() => document.querySelector('p').getBoundingClientRect().top);
  assert.ok(after >= full, `the text after the frame starts at ${after} px`);

  // Fewer sections: the frame shrinks; all of them again: it grows back.
  await frame.evaluate(() => document.querySelector('block-explorer').setAttribute('sections', 'title status'));
  const small = await settledHeight(page, frame, 'blockscope-frame iframe');
  assert.ok(small < full / 3, `with two sections the frame is ${small} px (was ${full})`);
  await frame.evaluate(() => document.querySelector('block-explorer').removeAttribute('sections'));
  const again = await settledHeight(page, frame, 'blockscope-frame iframe');
  assert.ok(Math.abs(again - full) < 80, `all sections again: ${again} px (was ${full})`);
  assert.equal(await page.evaluate(() => document.querySelector('blockscope-frame').contentHeight), Math.round(again));
  assert.deepEqual(problems.console, []);
  assert.deepEqual(problems.external, []);
  await context.close();
});

test("the guide's plain snippet sizes an iframe without the element", async () => {
  const html = readFileSync(new URL('../../web/docs/embedding.html', import.meta.url), 'utf8');
  const pre = html.match(/<pre id="frame-snippet"><code>([\s\S]*?)<\/code><\/pre>/);
  assert.ok(pre, 'the guide has the snippet (pre#frame-snippet)');
  const snippet = pre[1].replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&')
    .replace('https://your.site/blockscope/', env.host);
  assert.ok(snippet.split('\n').length <= 12, 'the snippet stays short');
  const { page, context, problems } = await openPage(env.browser, { width: 760, height: 720 });
  await page.goto(lessonPage(snippet));
  const frame = await frameOf(page, 'iframe#gelu');
  await frame.locator('gelu-explorer .status').filter({ hasText: 'points from the core' }).waitFor({ timeout: 30000 });
  const full = await settledHeight(page, frame, 'iframe#gelu');
  assert.notEqual(Math.round(full), 720, 'the frame took its content height, not the snippet\'s 720 px');
  await frame.evaluate(() => document.querySelector('gelu-explorer').setAttribute('sections', 'title chart'));
  const small = await settledHeight(page, frame, 'iframe#gelu');
  assert.ok(small < full - 50, `fewer sections: ${small} px (was ${full})`);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('sync-url through a frame: the widget state goes into the lesson URL and a reload or a new hash restores it', async () => {
  const { page, context, problems } = await openPage(env.browser, { width: 760, height: 720 });
  const url = lessonPage(`${helper()}<p id="other">x</p>
    <blockscope-frame id="gelu" widget="gelu-explorer" theme="light" sync-url></blockscope-frame>`);
  await page.goto(`${url}#other.thing=1`);
  let frame = await frameOf(page, '#gelu iframe');
  await frame.locator('gelu-explorer .status').filter({ hasText: 'points from the core' }).waitFor({ timeout: 30000 });
  // The learner changes the range inside the frame (as the controls do): the lesson page's hash follows.
  await frame.evaluate(() => document.querySelector('gelu-explorer').set('min', -5));
  await page.waitForFunction(() => location.hash.includes('gelu.min=-5'), null, { timeout: 5000 });
  const synced = page.url();
  assert.equal(new URL(synced).hash, '#other.thing=1&gelu.min=-5', 'the page keeps its own hash entries');
  assert.equal(new URL(frame.url()).hash, '#widget.min=-5');

  // Reopening the lesson's address brings the framed widget back in that state.
  await page.goto('about:blank');
  await page.goto(synced);
  frame = await frameOf(page, '#gelu iframe');
  await frame.locator('gelu-explorer .status').filter({ hasText: 'points from the core' }).waitFor({ timeout: 30000 });
  assert.equal(await frame.evaluate(() => document.querySelector('gelu-explorer').getAttribute('min')), '-5');
  assert.equal(await frame.locator('gelu-explorer input[type="range"], gelu-explorer svg').first().isVisible(), true);

  // A link on the lesson page that changes the hash changes the framed widget.
  await page.evaluate(() => { location.hash = 'other.thing=1&gelu.min=-4&gelu.derivative=true'; });
  await frame.waitForFunction(() => document.querySelector('gelu-explorer').getAttribute('min') === '-4', null, { timeout: 5000 });
  assert.equal(await frame.evaluate(() => document.querySelector('gelu-explorer').getAttribute('derivative')), 'true');
  // A hash without the frame's settings: the widget goes back to what the page gave it.
  await page.evaluate(() => { location.hash = 'other.thing=2'; });
  await frame.waitForFunction(() => !document.querySelector('gelu-explorer').hasAttribute('min'), null, { timeout: 5000 });
  assert.equal(await frame.evaluate(() => document.querySelector('gelu-explorer').getAttribute('theme')), 'light');
  assert.equal(await frame.evaluate(() => document.querySelector('gelu-explorer').hasAttribute('derivative')), false);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('frame messages from any other window are ignored, on both sides', async () => {
  const { page, context, problems } = await openPage(env.browser, { width: 760, height: 720 });
  // A second frame from the same host origin: a neighbour that forges messages to the page and to the widget's frame.
  await page.goto(lessonPage(`${helper()}
    <blockscope-frame id="gelu" widget="gelu-explorer" theme="light" sync-url></blockscope-frame>
    <iframe id="neighbour" src="${env.host}runtime.html" style="height: 50px"></iframe>`));
  const frame = await frameOf(page, '#gelu iframe');
  await frame.locator('gelu-explorer .status').filter({ hasText: 'points from the core' }).waitFor({ timeout: 30000 });
  const height = await settledHeight(page, frame, '#gelu iframe');
  const neighbour = await frameOf(page, '#neighbour');
  await neighbour.evaluate(() => {
    const widgetFrame = parent.frames[0];
    parent.postMessage({ type: 'blockscope-frame-height', frame: 'gelu', height: 7 }, '*');
    parent.postMessage({ type: 'blockscope-frame-state', frame: 'gelu', widget: 'gelu-explorer', state: 'min=-2' }, '*');
    widgetFrame.postMessage({ type: 'blockscope-frame-state', frame: 'gelu', state: 'min=-1' }, '*');
  });
  // The page itself (not the frame) posting to itself, and a message naming another frame.
  await page.evaluate(() => {
    postMessage({ type: 'blockscope-frame-height', frame: 'gelu', height: 9 }, '*');
    postMessage({ type: 'blockscope-frame-state', frame: 'gelu', state: 'min=-3' }, '*');
  });
  await page.waitForTimeout(500);
  assert.equal(await page.evaluate(() => document.querySelector('#gelu iframe').getBoundingClientRect().height), height);
  assert.equal(new URL(page.url()).hash, '');
  assert.equal(await frame.evaluate(() => document.querySelector('gelu-explorer').getAttribute('min')), null);
  assert.deepEqual(problems.console, []);
  await context.close();
});
