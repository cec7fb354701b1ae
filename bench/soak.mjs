// Soak benchmark (not a test): one page in Debian's Chromium doing, for --minutes (default 30), what a long lesson
// session does at once — the training lab training (restarted whenever its run ends), widgets inserted and removed
// 5–35 ms apart (a page that re-renders, slides paged through), and the shipped model generating (every third
// generation cancelled half-way, as a learner who clicks again does). Every --interval seconds (default 60) it
// prints the worker's malloc'd bytes and wasm heap, the page's JS heap, and how much work was done. Memory that
// only grows shows here; the end prints the growth from the first sample after warm-up to the last.
// Run after `npm run build`:  npm run bench:soak -- [--minutes 30] [--interval 60] [--without lab,churn,generation]
// (--without leaves loads out, to tell which one a growth belongs to).
import { addWidgetChurn, launchBrowser, openPage, startServer } from '../tests/browser/support.mjs';

const arg = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const minutes = Number(arg('--minutes', 30));
const intervalS = Number(arg('--interval', 60));
const MiB = 2 ** 20;
const without = new Set(arg('--without', '').split(',').filter(Boolean));
for (const w of without) if (!['lab', 'churn', 'generation'].includes(w)) throw new Error(`--without: unknown load '${w}' (lab, churn, generation)`);

const { server, url } = await startServer();
const browser = await launchBrowser();
const { page, problems } = await openPage(browser);
await addWidgetChurn(page);
await page.goto(`${url}examples/training-lab.html#training-lab.layers=2&training-lab.steps=400`);
await page.waitForFunction(() => document.querySelector('training-lab')?.dataset.state === 'ready', null, { timeout: 60000 });

// The three loads run in the page until window.__stop; window.__work counts what they did.
await page.evaluate(({ minutes: total, without }) => {
  window.__work = { steps: 0, runs: 0, churn: 0, tokens: 0, generations: 0, cancelled: 0, errors: [] };
  window.__stop = false;
  const work = window.__work;
  document.addEventListener('blockscope-train-step', () => work.steps++);
  const lab = document.querySelector('training-lab');
  const play = () => lab.shadowRoot.querySelector('button.play')?.click();
  if (!without.includes('lab')) play();
  const labTimer = setInterval(() => {
    // A finished run is started again (a learner trying another setting); a running one is left alone.
    if (without.includes('lab')) return;
    if (lab.dataset.state === 'done') {
      work.runs++;
      lab.setAttribute('seed', String(work.runs + 1)); // rebuilds both runs
    } else if (lab.dataset.state === 'ready' || lab.dataset.state === 'paused') play();
  }, 2000);
  (async () => {
    for (let i = 0; !window.__stop && !without.includes('churn'); i++) {
      await window.__churnOne(i);
      work.churn++;
      if (i % 50 === 49) await new Promise((r) => setTimeout(r, 300)); // now and then one finishes building
    }
  })().catch((err) => work.errors.push(`churn: ${err.message}`));
  if (!without.includes('generation')) (async () => {
    const { connect } = await import('/dist/blockscope-widgets.js');
    const client = await connect();
    const gpt = await client.loadModel({ url: new URL('/models/brown/', location.href).href });
    const prompt = Array.from(new TextEncoder().encode('The jury said that the '));
    for (let i = 0; !window.__stop; i++) {
      const controller = new AbortController();
      const cancel = i % 3 === 2;
      let n = 0;
      await gpt.generate(prompt, { maxNewTokens: 48, temperature: 0.8, topK: 40, seed: i }, {
        signal: controller.signal,
        onToken: () => {
          work.tokens++;
          if (cancel && ++n === 12) controller.abort();
        },
      }).catch((err) => {
        if (!controller.signal.aborted) throw err;
      });
      work.generations++;
      if (cancel) work.cancelled++;
    }
    await gpt.dispose();
  })().catch((err) => work.errors.push(`generation: ${err.message}`));
  setTimeout(() => clearInterval(labTimer), total * 60000 + 60000);
}, { minutes, without: [...without] });

const sample = () => page.evaluate(async () => {
  const { connect } = await import('/dist/blockscope-widgets.js');
  const stats = await (await connect()).memoryStats();
  return { ...window.__work, errors: window.__work.errors.length, allocated: stats.allocatedBytes, heap: stats.heapBytes,
    js: performance.memory?.usedJSHeapSize ?? 0 };
});

const t0 = Date.now();
const rows = [];
console.log(`soak: ${minutes} min, a sample every ${intervalS} s (worker malloc / wasm heap / page JS heap)` +
  (without.size ? `, without ${[...without].join(', ')}` : ''));
console.log('  min  worker MiB  wasm MiB  page JS MiB  lab steps  churned  generations (cancelled)  tokens');
for (let next = intervalS; next <= minutes * 60; next += intervalS) {
  await page.waitForTimeout(Math.max(0, t0 + next * 1000 - Date.now()));
  const s = await sample();
  rows.push(s);
  console.log(`${(next / 60).toFixed(1).padStart(5)}  ${(s.allocated / MiB).toFixed(1).padStart(10)}  ${(s.heap / MiB).toFixed(0).padStart(8)}` +
    `  ${(s.js / MiB).toFixed(1).padStart(11)}  ${String(s.steps).padStart(9)}  ${String(s.churn).padStart(7)}` +
    `  ${`${s.generations} (${s.cancelled})`.padStart(23)}  ${String(s.tokens).padStart(6)}`);
}
await page.evaluate(() => { window.__stop = true; });
const errors = await page.evaluate(() => window.__work.errors);
const warm = rows[Math.min(1, rows.length - 1)];
const last = rows.at(-1);
console.log(`growth after warm-up (sample 2 to the last): worker malloc ${((last.allocated - warm.allocated) / MiB).toFixed(1)} MiB, ` +
  `wasm heap ${((last.heap - warm.heap) / MiB).toFixed(0)} MiB, page JS heap ${((last.js - warm.js) / MiB).toFixed(1)} MiB`);
console.log(`errors: ${errors.length ? errors.join('; ') : 'none'}; console errors: ${problems.console.length}`);
await browser.close();
server.close();
process.exit(errors.length || problems.console.length ? 1 : 0);
