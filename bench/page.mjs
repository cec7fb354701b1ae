// Page-load benchmark (not a test): bytes the lesson page and the single-widget embed page transfer (as served by
// scripts/serve.mjs, which compresses like a static host: brotli or gzip, weights as they are), the time from
// navigation until the first widget (and every eagerly loaded widget) shows the core's numbers, and — for the lesson's
// GPT section, which loads its trained model only when it nears the viewport — the time from scrolling it into view
// to its first next-token table from the trained model. Debian's Chromium served from localhost, a cold cache per
// run. The start-up breakdown comes from the runtime's performance marks (web/runtime/marks.js): when the widget bundle was
// downloaded and evaluated, the worker created, every widget defined, the widget on screen set up and started (the
// others start after it has its numbers: web/widgets/kit/start-order.js), the worker running, the glue loaded, the wasm
// compiled and the runtime instantiated (by the first runtime: the light one on the page's thread, which answers the
// first light calls while the worker starts — web/runtime/pool.js), the page told it is ready, the first result
// computed by the core, and the first widget interactive.
// Each run opens a new browser context (a new window: empty cache) and lets it settle on about:blank for --settle ms
// (default 1500) before navigating: a new Chromium window loads its own WebUI (the omnibox popup, a few hundred
// chrome:// modules, for about a second on this machine), which competes with the page for the CPU and is no part of
// a reader's page load; --settle 0 measures with it, as this benchmark did before.
// --mobile loads the pages as Lighthouse's mobile profile does (a Moto G Power: 412 × 823 CSS px at DPR 1.75, touch;
// the CPU slowed 4× and the network to 1.6 Mbit/s down, 750 kbit/s up with 150 ms round trips, through the DevTools
// protocol, applied to the page and to its workers), and reports into its own section (page-mobile).
// Run after `npm run build`:  node bench/page.mjs [--runs N] [--pages lesson,embed] [--root DIR] [--settle MS] [--mobile]
// (--root serves another copy of web/, e.g. an older build to compare against.)
import { resolve } from 'node:path';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';

import { serve } from '../scripts/serve.mjs';
import { launchBrowser, openPage, startServer } from '../tests/browser/support.mjs';
import { median, report } from './report.mjs';

const arg = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const runs = Number(arg('--runs', 5));
const pageNames = arg('--pages', 'lesson,embed').split(',');
const settleMs = Number(arg('--settle', 1500));
const mobile = process.argv.includes('--mobile');
/** Lighthouse's mobile profile (its default "Moto G Power" settings). */
const MOBILE = {
  viewport: { width: 412, height: 823, deviceScaleFactor: 1.75, isMobile: true, hasTouch: true },
  cpuSlowdown: 4,
  network: { offline: false, latency: 150, downloadThroughput: (1.6 * 1024 * 1024) / 8, uploadThroughput: (750 * 1024) / 8 },
  // The goals the light first module and the per-widget bundle are measured against (ms to the first core number).
  goals: { lesson: 1500, embed: 1200 },
  embedBytesGoal: 110 * 1024,
};
const PAGES = [
  { name: 'lesson', path: '', label: 'lesson page (5 widgets at load; <training-lab> and <gpt-explorer> load when scrolled to)', widgets: 5, lazyGPT: true },
  { name: 'embed', path: 'embed.html', label: 'embed page (<gelu-explorer> alone)', widgets: 1 },
].filter((p) => pageNames.includes(p.name));
if (PAGES.length === 0 || !Number.isInteger(runs) || runs < 1 || !(settleMs >= 0)) {
  console.error('usage: node bench/page.mjs [--runs N] [--pages lesson,embed] [--root DIR] [--settle MS] [--mobile]');
  process.exit(2);
}

/** The start-up phases, in order: [label, how to read its time (ms since navigation) from a run's timings]. */
const PHASES = [
  ['HTML received', (t) => t.html],
  ['widget bundle downloaded', (t) => t.bundle],
  ['widget bundle entry evaluated', (t) => t.marks['entry-evaluated']],
  ['worker created', (t) => t.marks['worker-created']],
  ['every widget defined', (t) => t.marks['widgets-defined']],
  ['first widget set up and started', (t) => t.marks['first-widget-started']],
  ['worker script running', (t) => t.marks['worker-started']],
  ['glue loaded (first runtime)', (t) => t.marks['glue-loaded']],
  ['wasm compiled (first runtime)', (t) => t.marks['wasm-compiled']],
  ['runtime instantiated (first runtime)', (t) => t.marks['runtime-ready']],
  ['page told the runtime is ready', (t) => t.marks['client-ready']],
  ['first result from the core', (t) => t.marks['first-result']],
  ['first widget interactive', (t) => t.first],
];

/** Scrolls <gpt-explorer> into view; ms until its first trained next-token table has been drawn and painted. */
function scrollToFirstTable(page) {
  return page.evaluate(() => new Promise((resolve, reject) => {
    const el = document.querySelector('gpt-explorer');
    const table = () => el.shadowRoot.querySelector('table.candidates.trained tbody tr');
    if (table()) reject(new Error('the GPT widget had already loaded before it was scrolled to'));
    const t0 = performance.now();
    const poll = () => (table() ? requestAnimationFrame(() => resolve(performance.now() - t0)) : requestAnimationFrame(poll));
    el.scrollIntoView({ block: 'start' });
    requestAnimationFrame(poll);
    setTimeout(() => reject(new Error('no next-token table 30 s after scrolling')), 30000);
  }));
}

/**
 * Applies the mobile profile's CPU and network throttling to `page` and to every worker it starts (a dedicated worker
 * is a target of its own: the page's settings do not reach it). Returns once the page is throttled.
 */
async function throttle(context, page) {
  const apply = async (session) => {
    await session.send('Network.enable').catch(() => {});
    await session.send('Network.emulateNetworkConditions', MOBILE.network).catch(() => {});
    await session.send('Emulation.setCPUThrottlingRate', { rate: MOBILE.cpuSlowdown }).catch(() => {});
  };
  const cdp = await context.newCDPSession(page);
  await apply(cdp);
  // Workers: attached paused, throttled, then resumed, so none of their requests escapes the profile.
  cdp.on('Target.attachedToTarget', async ({ sessionId, targetInfo, waitingForDebugger }) => {
    const send = (method, params = {}) => cdp.send('Target.sendMessageToTarget',
      { sessionId, message: JSON.stringify({ id: Math.floor(Math.random() * 1e9), method, params }) }).catch(() => {});
    if (targetInfo.type === 'worker' || targetInfo.type === 'service_worker') {
      await apply({ send });
    }
    if (waitingForDebugger) await send('Runtime.runIfWaitingForDebugger');
  });
  await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: false });
  return cdp;
}

async function measure(browser, url, { path, widgets, lazyGPT }) {
  const { page, context } = await openPage(browser, mobile ? MOBILE.viewport : {});
  if (mobile) await throttle(context, page);
  // Bodies are read and compressed after the timings: doing it while the page loads would compete for the CPU.
  const responses = [];
  context.on('response', (response) => responses.push(response));
  await page.addInitScript(() => {
    window.__ready = [];
    for (const name of ['ready', 'change', 'forward', 'readout']) {
      document.addEventListener(`blockscope-${name}`, (e) => {
        if (!window.__ready.some((r) => r.tag === e.target.localName)) window.__ready.push({ tag: e.target.localName, ms: performance.now() });
      });
    }
  });
  if (settleMs > 0) {
    await page.goto('about:blank');
    await page.waitForTimeout(settleMs);
  }
  await page.goto(url + path);
  await page.waitForFunction((n) => window.__ready.length >= n, widgets, { timeout: 60000 });
  await page.waitForLoadState('networkidle');
  const ready = await page.evaluate(() => window.__ready);
  const timings = await page.evaluate(() => {
    const marks = {};
    for (const e of performance.getEntriesByType('mark')) if (e.name.startsWith('blockscope:')) marks[e.name.slice(11)] = e.startTime;
    const bundle = performance.getEntriesByType('resource').find((e) => e.name.includes('blockscope-widgets'));
    return { marks, html: performance.getEntriesByType('navigation')[0]?.responseEnd, bundle: bundle?.responseEnd };
  });
  timings.first = ready[0].ms;
  const gpt = lazyGPT ? await scrollToFirstTable(page) : null;
  if (lazyGPT) await page.waitForLoadState('networkidle');
  const files = new Map();
  for (const response of responses) {
    try {
      // A revalidated copy (304: the worker asking for a file the page had prefetched) sends no body again.
      if (response.status() === 304) continue;
      const body = await response.body();
      // Bytes on the wire: Chromium's count where it has one (workers' and service workers' requests report 0),
      // else the body encoded as scripts/serve.mjs encodes it.
      const encoding = response.headers()['content-encoding'] ?? '';
      const reported = (await response.request().sizes()).responseBodySize;
      const encoded = { br: () => brotliCompressSync(body, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 9 } }).length,
        gzip: () => gzipSync(body, { level: 9 }).length }[encoding];
      const path = new URL(response.url()).pathname;
      if (files.has(path)) continue; // the one download of a file the page and its worker both asked for
      files.set(path, {
        raw: body.length, sent: reported > 0 ? reported : (encoded?.() ?? body.length), encoding,
        gzip: gzipSync(body, { level: 9 }).length,
      });
    } catch { /* redirects and aborted requests have no body */ }
  }
  await context.close();
  return { first: ready[0], all: ready.at(-1).ms, gpt, files, timings };
}

const root = arg('--root', null);
const { server, url } = await (root ? serve({ root: resolve(root), port: 0 }) : startServer());
const browser = await launchBrowser();
const out = report(mobile ? 'page-mobile' : 'page', `npm run bench:page${process.argv.length > 2 ? ' --' : ''}`);
try {
  await out.capture(async () => {
    for (const p of PAGES) {
      const results = [];
      for (let i = 0; i < runs; i++) results.push(await measure(browser, url, p));
      const { files } = results.at(-1);
      const total = [...files.values()].reduce((s, f) => ({ raw: s.raw + f.raw, sent: s.sent + f.sent, gzip: s.gzip + f.gzip }),
        { raw: 0, sent: 0, gzip: 0 });
      const n = (x) => x.toLocaleString('en');
      console.log(`\n## ${p.label}\n`);
      console.log('| file | bytes | transferred (npm start) | gzip -9 |\n|---|---:|---:|---:|');
      for (const [name, f] of [...files.entries()].sort((a, b) => b[1].raw - a[1].raw)) {
        console.log(`| ${name} | ${n(f.raw)} | ${n(f.sent)}${f.encoding ? ` (${f.encoding})` : ''} | ${n(f.gzip)} |`);
      }
      console.log(`| **total (${files.size} requests)** | **${n(total.raw)}** | **${n(total.sent)}** | **${n(total.gzip)}** |`);
      const eager = [...files.entries()].filter(([name]) => !name.startsWith('/models/')).reduce((sum, [, f]) => sum + f.sent, 0);
      console.log(`\ntransferred before any model is requested: ${n(eager)} bytes\n`);
      console.log(`navigation → first interactive widget (${results[0].first.tag}): median ${median(results.map((r) => r.first.ms)).toFixed(0)} ms; ` +
        `→ all ${p.widgets} widget(s) loaded at start: median ${median(results.map((r) => r.all)).toFixed(0)} ms (${runs} runs, localhost, cold cache per run, ` +
        `${settleMs > 0 ? `new window settled ${settleMs} ms first` : 'new window not settled'}); each run: ` +
        `${results.map((r) => r.first.ms.toFixed(0)).join(', ')} ms (first), ${results.map((r) => r.all.toFixed(0)).join(', ')} ms (all)`);
      console.log(`\nstart-up breakdown (ms since navigation; median of ${runs} cold runs, min–max):\n`);
      console.log('| phase | median | min | max |\n|---|---:|---:|---:|');
      for (const [label, read] of PHASES) {
        const xs = results.map((r) => read(r.timings)).filter((x) => typeof x === 'number');
        if (xs.length === 0) continue;
        console.log(`| ${label} | ${median(xs).toFixed(0)} | ${Math.min(...xs).toFixed(0)} | ${Math.max(...xs).toFixed(0)} |`);
      }
      if (mobile) {
        const first = median(results.map((r) => r.first.ms));
        const goal = MOBILE.goals[p.name];
        console.log(`\nmobile profile (4× CPU, 1.6 Mbit/s, 150 ms RTT): first widget's first core number after ${first.toFixed(0)} ms ` +
          `(goal ≤ ${goal} ms: ${first <= goal ? 'met' : 'not met'})` + (p.name === 'embed'
          ? `; ${n(total.sent)} bytes transferred (goal ≤ ${n(MOBILE.embedBytesGoal)}: ${total.sent <= MOBILE.embedBytesGoal ? 'met' : 'not met'})` : ''));
      }
      if (p.lazyGPT) {
        const gpt = results.map((r) => r.gpt);
        console.log(`<gpt-explorer> scrolled into view → first next-token table from the trained model (download + load + ` +
          `untrained twin + both forward passes + drawing): median ${median(gpt).toFixed(0)} ms, ` +
          `min ${Math.min(...gpt).toFixed(0)} ms, max ${Math.max(...gpt).toFixed(0)} ms (${runs} runs; target < 1000 ms)`);
      }
    }
  });
  if (!root) out.publish(); // an older tree (--root) is measured for comparison only: its figures are not this tree's
} finally {
  await browser.close();
  server.close();
}
