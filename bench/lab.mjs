// Training-lab benchmark (not a test): <training-lab>'s two runs (its default comparison, pre- vs post-norm, 6 blocks,
// d_model 48, the same seeds) trained in Debian's Chromium with one worker and with two, in interleaved rounds, each in
// a new browser context. The figure is steps per second of both runs together (the pair), from the moment both
// runs have finished step --warmup until both have finished step --warmup + --steps; checkpoints (every 25 steps) and
// samples (every 50) are part of the lab's work and are counted in. Every round's curves (each step's loss and
// gradient norm, each validation loss) must equal the first one-worker round's bit for bit: the pool changes where
// a run trains, never what it computes — the benchmark exits non-zero when they differ.
// The number of workers is set as a machine sets it: the client's default pool (pool.js poolSize) is one worker on one
// core, two on two, else navigator.hardwareConcurrency − 1, so a round with n workers runs with that property at the
// core count that gives n (1 → 1, 2 → 2, n → n + 1).
// --baseline DIR adds rounds served from another copy of web/ (e.g. an older build, one worker) in the same
// interleaved run, so its ratio is measured under the same load (--baseline-label names it in the table).
// On a machine shared with other jobs two workers are only faster than one while a second core is free, so every
// measurement also records the CPU the rest of the machine used meanwhile (Linux: all CPU time in /proc/stat minus
// this benchmark's own processes: Chromium's and its own), printed with the figures. --quiet C keeps a measurement
// only if the others used less than C cores; else it is repeated (up to 8 times, after the load has dropped).
// Run after `npm run build`:  node bench/lab.mjs [--rounds N] [--steps M] [--warmup W] [--baseline DIR] [--quiet C]
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { serve } from '../scripts/serve.mjs';
import { launchBrowser, openPage } from '../tests/browser/support.mjs';
import { median, report } from './report.mjs';

const arg = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const rounds = Number(arg('--rounds', 3));
const steps = Number(arg('--steps', 150));
const warmup = Number(arg('--warmup', 10));
const baseline = arg('--baseline', null);
const quiet = arg('--quiet', null) === null ? null : Number(arg('--quiet', null));
const ATTEMPTS = 8;
if (![rounds, steps, warmup].every((n) => Number.isInteger(n) && n >= 1) || steps + warmup > 600) {
  console.error('usage: node bench/lab.mjs [--rounds N] [--steps M] [--warmup W] [--baseline DIR [--baseline-label TEXT]] ' +
    '[--quiet CORES]  (W + M <= 600, the lab\'s steps)');
  process.exit(2);
}

const WEB = fileURLToPath(new URL('../web/', import.meta.url));
const CONFIGS = [
  { key: 'one', label: 'one worker', root: WEB, workers: 1 },
  { key: 'two', label: 'two workers', root: WEB, workers: 2 },
  ...(baseline ? [{ key: 'baseline', label: arg('--baseline-label', `baseline ${baseline}`), root: resolve(baseline), workers: 1 }] : []),
];

/** CPU seconds so far: the whole machine's (busy time in /proc/stat) and this benchmark's (Chromium + this process). */
function cpuSeconds() {
  const hz = 100; // USER_HZ, the unit of /proc's tick counts on Linux
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is counted in user already): all but idle and iowait
  const machine = (fields.slice(0, 8).reduce((a, b) => a + b, 0) - fields[3] - fields[4]) / hz;
  const ticks = (pid) => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]); // utime + stime
  };
  let own = ticks('self');
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('chromium')) own += ticks(pid);
    } catch { /* the process ended */ }
  }
  return { machine, own: own / hz };
}
const linux = (() => {
  try {
    return cpuSeconds() && true;
  } catch {
    return false;
  }
})();

/** Waits until the rest of the machine has used less than `quiet` cores over 5 s (at most 10 minutes). */
async function waitQuiet() {
  for (const until = Date.now() + 600000; Date.now() < until;) {
    const a = cpuSeconds();
    await new Promise((r) => setTimeout(r, 5000));
    const b = cpuSeconds();
    if ((b.machine - a.machine - (b.own - a.own)) / 5 < quiet) return;
  }
}

/** One round: the lab trained until both runs have done warmup + steps; the pair's steps/s and both runs' curves. */
async function measure(browser, url, workers) {
  const { page, context, problems } = await openPage(browser);
  await page.addInitScript((cores) => {
    Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { configurable: true, get: () => cores });
    window.__steps = [];
    document.addEventListener('blockscope-train-step', (e) => window.__steps.push({ ...e.detail, t: performance.now() }));
    document.addEventListener('blockscope-ready', (e) => { if (e.target.localName === 'training-lab') window.__ready = true; });
  }, workers <= 2 ? workers : workers + 1);
  await page.goto(`${url}examples/training-lab.html`);
  await page.waitForFunction(() => window.__ready, null, { timeout: 60000 });
  await page.click('training-lab button.play');
  const cpu0 = linux ? cpuSeconds() : null;
  const t0 = Date.now();
  const last = warmup + steps;
  await page.waitForFunction((n) => ['a', 'b'].every((r) => window.__steps.filter((e) => e.run === r).length >= n), last,
    { timeout: 600000, polling: 250 });
  const events = await page.evaluate(() => window.__steps);
  const cpu1 = linux ? cpuSeconds() : null;
  // Cores the rest of the machine used while the lab trained (null where /proc is not Linux's).
  const others = cpu0 && Math.max(0, (cpu1.machine - cpu0.machine - (cpu1.own - cpu0.own)) / ((Date.now() - t0) / 1000));
  const { memory, flavour } = await page.evaluate(async () => {
    const client = await (await import('/dist/blockscope-widgets.js')).connect();
    const stats = await client.memoryStats();
    return { memory: (stats.workers ?? [stats]).map((w) => ({ heap: w.heapBytes, allocated: w.allocatedBytes })), flavour: client.flavour };
  });
  await page.click('training-lab button.play'); // pause before closing
  const runWorkers = page.workers().length;
  await context.close();
  if (problems.console.length) throw new Error(`console errors: ${problems.console.join('\n')}`);
  const byRun = Object.fromEntries(['a', 'b'].map((r) => [r, events.filter((e) => e.run === r).slice(0, last)]));
  const doneAt = (step) => Math.max(byRun.a[step - 1].t, byRun.b[step - 1].t);
  const rate = (2 * steps * 1000) / (doneAt(last) - doneAt(warmup));
  const curves = Object.fromEntries(Object.entries(byRun).map(([r, list]) => [r, list.map(({ step, loss, gradNorm, valLoss }) =>
    ({ step, loss, gradNorm, valLoss }))]));
  return { rate, curves, runWorkers, memory, others, flavour };
}

/** The largest |difference| of the loss between two rounds' curves (another build may round differently). */
function lossGap(x, y) {
  let gap = 0;
  for (const r of ['a', 'b']) x[r].forEach((e, i) => { gap = Math.max(gap, Math.abs(e.loss - y[r][i].loss)); });
  return gap;
}

/** The first difference between two rounds' curves, or null when they are identical bit for bit. */
function difference(x, y) {
  for (const r of ['a', 'b']) {
    for (let i = 0; i < x[r].length; i++) {
      for (const k of ['step', 'loss', 'gradNorm', 'valLoss']) {
        if (!Object.is(x[r][i][k], y[r][i]?.[k])) return `run ${r.toUpperCase()} step ${i + 1} ${k}: ${x[r][i][k]} vs ${y[r][i]?.[k]}`;
      }
    }
  }
  return null;
}

const servers = new Map();
for (const { root } of CONFIGS) if (!servers.has(root)) servers.set(root, await serve({ root, port: 0 }));
const browser = await launchBrowser();
const out = report('lab', 'npm run bench:lab');
const results = Object.fromEntries(CONFIGS.map((c) => [c.key, []]));
let reference = null;
const mismatches = [];
try {
  await out.capture(async () => {
    console.log(`\`<training-lab>\`, default comparison (pre- vs post-norm, 6 blocks, d_model 48, batch 8 × 64 bytes, seed 123): ` +
      `steps/s of both runs together from step ${warmup} to step ${warmup + steps}, ${rounds} interleaved rounds, ` +
      `a new browser context per round, Debian's Chromium${quiet === null ? '' : `; a round counts only if the rest of the machine ` +
        `used less than ${quiet} cores meanwhile`}\n`);
    for (let i = 0; i < rounds; i++) {
      for (const c of CONFIGS) {
        let r = null;
        for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
          r = await measure(browser, servers.get(c.root).url, c.workers);
          if (quiet === null || r.others === null || r.others < quiet) break;
          process.stderr.write(`  (round ${i + 1}, ${c.label}: ${r.rate.toFixed(1)} steps/s, not kept: the rest of the machine ` +
            `used ${r.others.toFixed(2)} cores meanwhile)\n`);
          if (attempt === ATTEMPTS) throw new Error(`the machine never stayed quiet (below ${quiet} cores) for a whole measurement`);
          await waitQuiet();
        }
        results[c.key].push(r);
        reference ??= r.curves;
        // This tree's rounds must agree bit for bit; a baseline is another build (perhaps another wasm flavour).
        const diff = c.root === WEB ? difference(reference, r.curves) : null;
        if (diff) mismatches.push(`${c.label}, round ${i + 1}: ${diff}`);
        process.stderr.write(`  round ${i + 1}, ${c.label}: ${r.rate.toFixed(1)} steps/s (${r.runWorkers} worker(s) on the page` +
          `${r.others === null ? '' : `; the rest of the machine used ${r.others.toFixed(2)} cores`})\n`);
      }
    }
    const med = (key) => median(results[key].map((r) => r.rate));
    const mib = (bytes) => (bytes / 2 ** 20).toFixed(0);
    const others = (key) => (results[key][0].others === null ? 'n/a'
      : `${median(results[key].map((r) => r.others)).toFixed(2)} cores`);
    console.log('| runtime | wasm flavour | workers on the page | steps/s, pair (median) | min | max | × one worker | ' +
      'wasm memory per worker (malloc) | CPU used by the rest of the machine meanwhile (median) |\n' +
      '|---|---|---:|---:|---:|---:|---:|---|---:|');
    for (const c of CONFIGS) {
      const rates = results[c.key].map((r) => r.rate);
      const memory = results[c.key].at(-1).memory.map((w) => `${mib(w.heap)} MiB (${mib(w.allocated)} MiB)`).join(', ');
      console.log(`| ${c.label} | ${results[c.key][0].flavour} | ${results[c.key][0].runWorkers} | ${med(c.key).toFixed(1)} | ${Math.min(...rates).toFixed(1)} | ` +
        `${Math.max(...rates).toFixed(1)} | ${(med(c.key) / med('one')).toFixed(2)}× | ${memory} | ${others(c.key)} |`);
    }
    if (baseline) console.log(`\ntwo workers vs the baseline: ${(med('two') / med('baseline')).toFixed(2)}× (goal ≥ 1.7×)`);
    const compared = warmup + steps;
    console.log(mismatches.length === 0
      ? `\ncurves: every round of this tree identical to the first one-worker round, bit for bit (loss and gradient norm of ` +
        `${compared} steps per run, every validation loss)`
      : `\ncurves DIFFER from the first one-worker round:\n${mismatches.join('\n')}`);
    if (baseline) {
      const gap = Math.max(...results.baseline.map((r) => lossGap(reference, r.curves)));
      console.log(gap === 0 ? 'the baseline\'s losses: identical too'
        : `the baseline's losses differ from this tree's by at most ${gap.toExponential(1)} nats (another build)`);
    }
  });
  if (mismatches.length === 0) out.publish();
} finally {
  await browser.close();
  for (const { server } of servers.values()) server.close();
}
if (mismatches.length) process.exit(1);
