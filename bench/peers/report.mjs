// Prints the peer benchmark's tables (markdown) from what bench/peers/run.mjs measured: the main comparison,
// details (load, first passes, correctness, decode bandwidth), ratios against the reference runtime
// (onnxruntime-web) and bench/train.mjs's training speed.

import { median } from '../report.mjs';

const fmt = (n, d = 1) => n.toLocaleString('en', { minimumFractionDigits: d, maximumFractionDigits: d });
const MiB = (b) => `${fmt(b / 2 ** 20, 0)} MiB`;

/**
 * Bytes one decoded token reads from the weights: every block's four matrices and the (tied) head at
 * `weightBytes` each, the vectors (biases, LayerNorms) and one position-embedding row as float32. The KV
 * cache (at most 48 positions here, < 4 MB) is left out.
 */
export function weightBytesPerToken(config, weightBytes) {
  const C = config.n_embd, L = config.n_layer, V = config.vocab_size;
  const matrices = L * 12 * C * C + V * C;
  const vectors = L * 13 * C + 3 * C;
  return matrices * weightBytes + vectors * 4;
}

function summary(row) {
  const m = row.m;
  if (!m.fwd64?.length) return null;
  return {
    fwd64: median(m.fwd64), fwd1: median(m.fwd1), fwd1First: median(m.fwd1_first), tps: median(m.decode_tps),
    prefill: median(m.prefill_ms), tpsRange: [Math.min(...m.decode_tps), Math.max(...m.decode_tps)],
  };
}

function memoryCell(row) {
  const a = row.m.after_load, e = row.m.end;
  if (!a || !e) return '–';
  return row.memory === 'heap' ? `${MiB(a.heap)} wasm heap (${MiB(e.heap)})` : `${MiB(a.rss)} RSS (${MiB(e.peak_rss)})`;
}

const spread = (v) => `${fmt(Math.min(...v), 0)}–${fmt(Math.max(...v), 0)}`;

/**
 * Wall-clock against CPU time, round by round: a round whose wall time is well above the runtime's median
 * while its CPU time is not was waiting for a core (another process ran), not doing more work. This is how
 * "two speeds within one process" shows up on a shared machine; a runtime that really changed speed has
 * slow CPU times too.
 */
function printSteadiness(timed) {
  const rows = timed.filter((r) => r.m.fwd64_cpu?.every((c) => Number.isFinite(c)));
  if (!rows.length) return;
  console.log('\n### Steadiness: wall-clock vs CPU time per round (forward T=64, KV decode)\n');
  console.log('| runtime | T=64 wall median (min–max) | T=64 CPU median (min–max) | rounds > 1.15× median wall | ' +
    'of those, CPU also > 1.15× | decode tok/s wall (min–max) | decode tok/s by CPU time (min–max) |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    const { fwd64: wall, fwd64_cpu: cpu, decode_tps: tps, decode_cpu_tps: ctps } = row.m;
    const mw = median(wall), mc = median(cpu);
    const slow = wall.map((w, i) => i).filter((i) => wall[i] > 1.15 * mw);
    const slowCpu = slow.filter((i) => cpu[i] > 1.15 * mc);
    console.log(`| ${row.label} | ${fmt(mw, 0)} ms (${spread(wall)}) | ${fmt(mc, 0)} ms (${spread(cpu)}) | ${slow.length}/${wall.length} | ` +
      `${slowCpu.length}/${slow.length} | ${fmt(median(tps))} (${fmt(Math.min(...tps))}–${fmt(Math.max(...tps))}) | ` +
      `${fmt(median(ctps))} (${fmt(Math.min(...ctps))}–${fmt(Math.max(...ctps))}) |`);
  }
  console.log('\n(CPU time = the worker process\'s user + system time over all its threads; a runtime using more ' +
    'than one thread would show CPU above wall.)');
}

export function printReport({ rows, rounds, config, ref, tolerance, steadyT1 }) {
  const C = config.n_embd, L = config.n_layer, V = config.vocab_size;
  const nParams = L * (12 * C * C + 13 * C) + V * C + config.n_positions * C + 2 * C;
  console.log(`## Peer benchmark: GPT-2-shaped model, ${L} layers, emb ${C}, ${config.n_head} heads, vocab ${V}, ` +
    `tied (${fmt(nParams / 1e6)}M parameters), identical weights, one thread each\n`);
  console.log(`${rounds} interleaved rounds, medians over rounds. Correctness first: logits of the ${ref.prompt.length}-token ` +
    `prompt within ${tolerance} of PyTorch's and its ${ref.greedy.length} greedy tokens equal, or the runtime is not timed ` +
    `(int8 weights: within 0.1, tokens reported).\n`);

  console.log('| runtime | forward T=64 | forward T=1 | KV decode | first T=1 after T=64 | memory after load (peak) |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    const s = summary(row);
    if (!s) {
      console.log(`| ${row.label} | ${row.status ?? 'not run'} | | | | |`);
      continue;
    }
    console.log(`| ${row.label} | ${fmt(s.fwd64)} ms | ${fmt(s.fwd1, 2)} ms | ${fmt(s.tps)} tok/s | ${fmt(s.fwd1First, 2)} ms | ${memoryCell(row)} |`);
  }
  console.log(`\n(forward: one pass over T positions, logits of all of them returned to the caller. forward T=1: median of ` +
    `${steadyT1} back-to-back passes after the first; first T=1 after T=64: the pass right after a T=64 one. KV decode: ` +
    `${ref.prompt.length}-token prompt, then ${ref.greedy.length} greedy tokens; the prefill is not counted, tok/s = ` +
    `${ref.greedy.length - 1} single-token steps / their time. Memory: wasm heap = bs.memoryStats().heapBytes (the wasm ` +
    `memory, which only grows, so its peak is its end size); RSS = the worker process's VmRSS, peak = VmHWM. ` +
    `onnxruntime holds forward.onnx after load and also decode.onnx (a second copy of the weights) at its peak.)\n`);

  const timed = rows.filter((r) => summary(r));
  console.log('| runtime | load | first forward after load (T=64) | prefill (16 tokens) | max \\|Δ logits\\| vs PyTorch | ' +
    'greedy tokens = PyTorch\'s | decode tok/s min–max | weight bytes / decoded token | implied GB/s | process peak RSS |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of timed) {
    const s = summary(row);
    const bytes = weightBytesPerToken(config, row.weightBytes);
    console.log(`| ${row.label} | ${fmt(row.m.load_ms, 0)} ms | ${fmt(row.m.first_forward_ms)} ms | ${fmt(s.prefill)} ms | ` +
      `${row.m.max_abs_diff.toExponential(1)} | ${row.m.greedy_match}/${ref.greedy.length} | ${fmt(s.tpsRange[0])}–${fmt(s.tpsRange[1])} | ${fmt(bytes / 1e6)} MB | ` +
      `${fmt((bytes * s.tps) / 1e9, 2)} | ${MiB(row.m.end.peak_rss)} |`);
  }
  console.log('\n(load: config + weights file to a model ready to run, in the worker, excluding the runtime\'s own start-up ' +
    '(wasm instantiation, import torch); onnxruntime: forward.onnx only, decode.onnx loads on the first decode. ' +
    'implied GB/s = weight bytes per token x decode tok/s: the rate the weights stream from memory.)');

  printSteadiness(timed);

  const refRow = timed.find((r) => r.reference);
  if (refRow) {
    const rs = summary(refRow);
    console.log(`\n### Ratios against ${refRow.label} (speed: above 1 is faster than it)\n`);
    for (const row of timed.filter((r) => r !== refRow)) {
      const s = summary(row);
      const byCpu = row.m.fwd64_cpu && refRow.m.fwd64_cpu
        ? `; by CPU time: forward T=64 = ${fmt(median(refRow.m.fwd64_cpu) / median(row.m.fwd64_cpu), 2)}×, decode = ` +
          `${fmt(median(row.m.decode_cpu_tps) / median(refRow.m.decode_cpu_tps), 2)}×`
        : '';
      console.log(`- ${row.label}: forward T=64 = ${fmt(rs.fwd64 / s.fwd64, 2)}× ort-web, forward T=1 = ` +
        `${fmt(rs.fwd1 / s.fwd1, 2)}×, decode = ${fmt(s.tps / rs.tps, 2)}× ort-web${byCpu}`);
    }
  } else {
    console.log('\n(no ratios: the reference runtime, onnxruntime-web, did not run)');
  }
  printFlavourRatios(timed, refRow);

  console.log('\n### Runtimes\n');
  for (const row of rows.filter((r) => r.runtime)) console.log(`- ${row.label}: ${row.runtime}${row.status ? ` — ${row.status}` : ''}`);

}

// Targets for the relaxed-SIMD flavour: its forward T=64 against onnxruntime-web (here) and its training tokens/s against
// the SIMD128 flavour (bench/train.mjs).
const RELAXED_FORWARD_TARGET = 1.5;

/** The simd-relaxed flavour against the bit-exact simd flavour, same run (wall-clock, and by CPU time). */
function printFlavourRatios(timed, refRow) {
  const relaxed = timed.find((r) => r.key === 'wasm-simd-relaxed'), simd = timed.find((r) => r.key === 'wasm-simd');
  if (!relaxed || !simd) return;
  const a = summary(relaxed), b = summary(simd);
  const cpu = (row, k) => median(row.m[k]);
  console.log(`\n### ${relaxed.label} against ${simd.label} (same run; above 1: relaxed is faster)\n`);
  const byCpu = (k, faster = 'lower') => fmt(faster === 'lower' ? cpu(simd, k) / cpu(relaxed, k) : cpu(relaxed, k) / cpu(simd, k), 2);
  console.log(`- forward T=64 = ${fmt(b.fwd64 / a.fwd64, 2)}× (by CPU time ${byCpu('fwd64_cpu')}×), ` +
    `forward T=1 = ${fmt(b.fwd1 / a.fwd1, 2)}× (by CPU time ${byCpu('fwd1_cpu')}×), decode = ${fmt(a.tps / b.tps, 2)}× ` +
    `(by CPU time ${byCpu('decode_cpu_tps', 'higher')}×)`);
  if (refRow) {
    const wall = summary(refRow).fwd64 / a.fwd64, byCpuTime = cpu(refRow, 'fwd64_cpu') / cpu(relaxed, 'fwd64_cpu');
    const verdict = (r) => (r >= RELAXED_FORWARD_TARGET ? 'met' : 'NOT met');
    console.log(`- target: forward T=64 ≥ ${RELAXED_FORWARD_TARGET}× onnxruntime-web: ${fmt(wall, 2)}× wall-clock (${verdict(wall)}), ` +
      `${fmt(byCpuTime, 2)}× by CPU time (${verdict(byCpuTime)})`);
  }
}

/** bench/train.mjs's table, read back from its run (bench/train.mjs publishes it in docs itself). */
export function printTraining(training) {
  console.log(`\n## Training speed (bench/train.mjs: ${training.title ?? 'skipped'})\n`);
  if (training.skipped) {
    console.log(`skipped: ${training.skipped}`);
  } else {
    console.log('| runtime | tokens/s | × PyTorch (1 thread) |\n|---|---:|---:|');
    for (const t of training.rows) console.log(`| ${t.runtime} | ${t.tokensPerS} | ${t.vsTorch} |`);
    if (training.flavours) console.log(`\n${training.flavours}`);
  }
}
