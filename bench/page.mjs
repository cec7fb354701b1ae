// Page-load benchmark (not a test): bytes the lesson page and the single-widget embed page transfer, and the
// time from navigation until the first widget (and every widget) shows the core's numbers, in Debian's
// Chromium served from localhost. Run after `npm run build`:  node bench/page.mjs [--runs N]
import { gzipSync } from 'node:zlib';

import { launchBrowser, openPage, startServer } from '../tests/browser/support.mjs';

const runs = Number(process.argv.includes('--runs') ? process.argv[process.argv.indexOf('--runs') + 1] : 3);
const PAGES = [
  { path: '', label: 'lesson page (5 widgets)', widgets: 5 },
  { path: 'embed.html', label: 'embed page (<gelu-explorer> alone)', widgets: 1 },
];

async function measure(browser, url, { path, widgets }) {
  const { page, context } = await openPage(browser);
  const files = new Map();
  context.on('response', async (response) => {
    try {
      const body = await response.body();
      files.set(new URL(response.url()).pathname, { raw: body.length, gzip: gzipSync(body, { level: 9 }).length });
    } catch { /* redirects and aborted requests have no body */ }
  });
  await page.addInitScript(() => {
    window.__ready = [];
    for (const name of ['ready', 'change', 'forward', 'readout']) {
      document.addEventListener(`blockscope-${name}`, (e) => {
        if (!window.__ready.some((r) => r.tag === e.target.localName)) window.__ready.push({ tag: e.target.localName, ms: performance.now() });
      });
    }
  });
  await page.goto(url + path);
  await page.waitForFunction((n) => window.__ready.length >= n, widgets, { timeout: 60000 });
  await page.waitForLoadState('networkidle');
  const ready = await page.evaluate(() => window.__ready);
  await context.close();
  return { first: ready[0], all: ready.at(-1).ms, files };
}

const { server, url } = await startServer();
const browser = await launchBrowser();
try {
  for (const p of PAGES) {
    const results = [];
    for (let i = 0; i < runs; i++) results.push(await measure(browser, url, p));
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const { files } = results.at(-1);
    const total = [...files.values()].reduce((s, f) => ({ raw: s.raw + f.raw, gzip: s.gzip + f.gzip }), { raw: 0, gzip: 0 });
    console.log(`\n## ${p.label}\n`);
    console.log('| file | bytes | gzip -9 |\n|---|---:|---:|');
    for (const [name, f] of [...files.entries()].sort((a, b) => b[1].raw - a[1].raw)) {
      console.log(`| ${name} | ${f.raw.toLocaleString('en')} | ${f.gzip.toLocaleString('en')} |`);
    }
    console.log(`| **total (${files.size} requests)** | **${total.raw.toLocaleString('en')}** | **${total.gzip.toLocaleString('en')}** |\n`);
    console.log(`navigation → first interactive widget (${results[0].first.tag}): median ${median(results.map((r) => r.first.ms)).toFixed(0)} ms; ` +
      `→ all ${p.widgets} widget(s): median ${median(results.map((r) => r.all)).toFixed(0)} ms (${runs} runs, localhost, cold cache per run)`);
  }
} finally {
  await browser.close();
  server.close();
}
