// Side-by-side peer benchmark (npm run bench:peers; a benchmark that prints figures, not a test): Blockscope
// native and its wasm flavours (simd-relaxed, simd, baseline) against onnxruntime-web, onnxruntime-node and PyTorch on
// identical GPT-2-124M-shaped weights (bench/peers/export.py), each runtime in its own long-lived worker process.
// Every runtime's logits and greedy tokens are first checked against PyTorch's; then interleaved rounds
// (round r runs every runtime once, the order rotated by r) so machine noise hits all alike; medians over rounds.
// Training speed comes from bench/train.mjs in the same run. See bench/peers/README.md.
//   npm run bench:peers [-- --rounds N | --quick] [--only key,key] [--no-train] [--no-install] [--layers N]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { median, report } from '../report.mjs';
import { printReport, printTraining } from './report.mjs';
import { ROOT, ensureModel, ensurePeerPackages, openblasEnv } from './setup.mjs';
import { F32_CHECK, RUNTIMES, Worker } from './workers.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const quick = args.includes('--quick');
const rounds = Number(opt('--rounds', quick ? 3 : 15));
const only = opt('--only', null)?.split(',');
const layers = opt('--layers', null); // a smaller model for smoke tests of the harness itself
const STEADY_T1 = 3; // steady T=1 forwards per round (their median is the round's value)
const log = (s) => process.stderr.write(`${s}\n`);

// ---------------------------------------------------------------------------------------------------------
// Inputs: the exported model and the peer packages
// ---------------------------------------------------------------------------------------------------------
const blas = openblasEnv();
const model = ensureModel({
  dir: join(ROOT, 'build', 'peers', layers ? `gpt2-${layers}-layers` : 'gpt2-124m'),
  layers: layers ? Number(layers) : null,
  blasEnv: blas.env ?? {},
});
if (model.error) {
  console.error(`bench:peers: no model to compare on: ${model.error}`);
  process.exit(1);
}
const installNote = args.includes('--no-install') ? {} : ensurePeerPackages();
if (installNote.error) log(`${installNote.error}: the onnxruntime rows will say so`);
const ref = JSON.parse(readFileSync(join(model.dir, 'reference.json'), 'utf8'));
const config = JSON.parse(readFileSync(join(model.dir, 'config.json'), 'utf8'));
const refLogits = join(model.dir, 'reference_logits.f32');

// ---------------------------------------------------------------------------------------------------------
// Start, load and check each runtime (one at a time, so loads do not compete)
// ---------------------------------------------------------------------------------------------------------
const rows = RUNTIMES.filter((r) => !only || only.includes(r.key)).map((rt) => ({ ...rt, status: null, m: {} }));

async function prepare(row) {
  const command = row.command();
  if (command.skip) return (row.status = `n/a: ${command.skip}`);
  log(`${row.key}: loading`);
  const w = new Worker(command, model.dir);
  const load = await w.request({ op: 'load' });
  if (load.unsupported || load.error) {
    await w.quit();
    return (row.status = load.unsupported ? `n/a: ${load.unsupported}` : `failed to load: ${firstLine(load.error)}`);
  }
  row.worker = w;
  row.runtime = load.runtime;
  row.m.load_ms = load.ms;
  row.m.after_load = await w.request({ op: 'memory' });
  const first = await w.request({ op: 'forward', T: 64 });
  row.m.first_forward_ms = first.ms;
  const check = await w.request({ op: 'check', ids: ref.prompt, reference: refLogits });
  const dec = await w.request({ op: 'decode', prompt: ref.prompt, n: ref.greedy.length });
  const err = first.error ?? check.error ?? dec.error;
  if (err) return refuse(row, `failed: ${firstLine(err)}`);
  row.m.max_abs_diff = check.max_abs_diff;
  row.m.decode_graph_load_ms = dec.decode_graph_load_ms;
  const { tolerance, greedy } = row.check ?? F32_CHECK;
  const at = ref.greedy.findIndex((t, i) => dec.tokens[i] !== t); // the first differing greedy token, or -1
  row.m.greedy_match = at < 0 ? ref.greedy.length : at;
  if (!(check.max_abs_diff <= tolerance)) {
    return refuse(row, `refused: logits differ from PyTorch's by ${fmtDiff(check.max_abs_diff)} (> ${tolerance})`);
  }
  if (greedy && at >= 0) {
    return refuse(row, `refused: greedy token ${at} is ${dec.tokens[at]}, PyTorch's is ${ref.greedy[at]}`);
  }
  row.m.tolerance = tolerance;
  log(`${row.key}: ${row.runtime}; loaded in ${load.ms.toFixed(0)} ms; max |Δ logits| ${fmtDiff(check.max_abs_diff)} ` +
    `(limit ${tolerance}), greedy tokens equal PyTorch's for the first ${row.m.greedy_match} of ${ref.greedy.length}`);
  return null;
}

async function refuse(row, status) {
  row.status = status;
  await row.worker.quit();
  row.worker = null;
  return status;
}

const firstLine = (s) => String(s).split('\n')[0];
const fmtDiff = (d) => (typeof d === 'number' ? d.toExponential(1) : String(d));

for (const row of rows) {
  await prepare(row);
  if (row.status) log(`${row.key}: ${row.status}`);
}

// ---------------------------------------------------------------------------------------------------------
// Interleaved rounds
// ---------------------------------------------------------------------------------------------------------
const active = rows.filter((r) => r.worker);
for (const r of active) {
  Object.assign(r.m, { fwd64: [], fwd64_cpu: [], fwd1_first: [], fwd1: [], fwd1_cpu: [], decode_tps: [], decode_cpu_tps: [], prefill_ms: [] });
}

async function round(row) {
  const w = row.worker;
  const f64 = await w.request({ op: 'forward', T: 64 });
  const f1first = await w.request({ op: 'forward', T: 1 }); // the first T=1 forward after a T=64 one
  const steady = [];
  for (let i = 0; i < STEADY_T1; i++) steady.push(await w.request({ op: 'forward', T: 1 }));
  const dec = await w.request({ op: 'decode', prompt: ref.prompt, n: ref.greedy.length });
  const err = [f64, f1first, ...steady, dec].find((x) => x.error)?.error;
  if (err) throw new Error(`${row.key}: ${firstLine(err)}`);
  row.m.fwd64.push(f64.ms);
  row.m.fwd64_cpu.push(f64.cpu_ms);
  row.m.fwd1_first.push(f1first.ms);
  row.m.fwd1.push(median(steady.map((s) => s.ms)));
  row.m.fwd1_cpu.push(median(steady.map((s) => s.cpu_ms)));
  row.m.decode_tps.push(dec.steps / (dec.decode_ms / 1000));
  row.m.decode_cpu_tps.push(dec.steps / (dec.decode_cpu_ms / 1000));
  row.m.prefill_ms.push(dec.prefill_ms);
  return `${row.key} ${f64.ms.toFixed(0)}/${median(steady.map((s) => s.ms)).toFixed(1)} ms ${(dec.steps / (dec.decode_ms / 1000)).toFixed(1)} tok/s`;
}

for (let r = 0; r < rounds && active.length; r++) {
  const order = active.map((_, i) => active[(i + r) % active.length]);
  const line = [];
  for (const row of order) {
    if (!row.worker) continue;
    try {
      line.push(await round(row));
    } catch (err) {
      row.status = `failed during round ${r + 1}: ${err.message}`;
      await row.worker.quit();
      row.worker = null;
    }
  }
  log(`round ${r + 1}/${rounds}: ${line.join(', ')}`);
}

for (const row of active.filter((r) => r.worker)) {
  row.m.end = await row.worker.request({ op: 'memory' });
  await row.worker.quit();
}

// ---------------------------------------------------------------------------------------------------------
// Training speed: bench/train.mjs in a child process, its table read back
// ---------------------------------------------------------------------------------------------------------
function trainingRows() {
  if (args.includes('--no-train')) return Promise.resolve({ skipped: '--no-train' });
  const trainArgs = quick ? ['--rounds', '1', '--steps', '2', '--warmup', '1'] : ['--rounds', '5'];
  log(`training: node bench/train.mjs ${trainArgs.join(' ')}`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--experimental-wasm-relaxed-simd', join(ROOT, 'bench', 'train.mjs'), ...trainArgs],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => resolve(code === 0 ? parseTraining(out) : { skipped: `bench/train.mjs exited with ${code}` }));
  });
}

// bench/train.mjs's "Training step" table: | runtime | ms/step | min–max | tokens/s | × PyTorch | ...
function parseTraining(text) {
  const lines = text.split('\n');
  const title = lines.find((l) => l.startsWith('## Training step'))?.replace(/^## /, '') ?? 'training step';
  const start = lines.findIndex((l) => l.startsWith('| runtime | ms/step'));
  if (start < 0) return { skipped: 'bench/train.mjs printed no training table' };
  const out = [];
  for (const l of lines.slice(start + 2)) {
    if (!l.startsWith('|')) break;
    const c = l.split('|').slice(1, -1).map((s) => s.trim());
    out.push({ runtime: c[0], ms: c[1], tokensPerS: c[3], vsTorch: c[4] });
  }
  const flavours = lines.find((l) => l.startsWith('simd-relaxed against simd:'));
  return { title, rows: out, flavours };
}

const training = await trainingRows();
const out = report('peers', 'npm run bench:peers');
await out.capture(() => printReport({ rows, rounds, config, ref, tolerance: F32_CHECK.tolerance, steadyT1: STEADY_T1 }));
if (!only && !layers) out.publish(); // a partial or smaller run is a smoke test of the harness, not the figures
printTraining(training);
