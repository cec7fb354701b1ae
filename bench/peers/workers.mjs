// The peer benchmark's runtimes, as data: one entry per runtime (Blockscope native / wasm flavours, their int8
// variants, onnxruntime-web, onnxruntime-node, PyTorch) saying how to start its long-lived worker process, and
// the Worker class that talks to such a process (bench/peers/protocol.mjs's line protocol).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

import { PEER_MODULES, PYTHON, ROOT, openblasEnv, peerPackage, torchVersion } from './setup.mjs';

const here = join(ROOT, 'bench', 'peers');
const nativeExe = join(ROOT, 'build', 'release', 'bench', 'blockscope_bench_peer');
const wasmBuilt = (f) => [`blockscope-${f}.wasm`, 'blockscope-glue.js'].every((x) => existsSync(join(ROOT, 'web', 'dist', x)));

function nativeCommand(weights) {
  if (!existsSync(nativeExe)) return { skip: `${nativeExe} is missing: run bash scripts/build.sh native` };
  return { cmd: nativeExe, args: ['MODEL', '--weights', weights] };
}
// Node 20 validates relaxed SIMD only behind this flag (Chromium needs none).
const RELAXED_FLAG = '--experimental-wasm-relaxed-simd';
function wasmCommand(flavour, weights) {
  if (!wasmBuilt(flavour)) return { skip: `web/dist/blockscope-${flavour}.wasm or blockscope-glue.js missing: run bash scripts/build.sh wasm` };
  const flags = flavour === 'simd-relaxed' ? [RELAXED_FLAG] : [];
  return { cmd: process.execPath, args: [...flags, join(here, 'worker-blockscope.mjs'), 'MODEL', '--flavour', flavour, '--weights', weights] };
}
function ortCommand(pkg) {
  const p = peerPackage(pkg);
  if (p.error) return { skip: `${p.error} (bench:peers installs it unless --no-install)` };
  return { cmd: process.execPath, args: [join(here, 'worker-ort.mjs'), 'MODEL', '--package', pkg, '--modules', PEER_MODULES] };
}
function torchCommand() {
  const t = torchVersion();
  if (t.error) return { skip: t.error };
  const blas = openblasEnv();
  if (blas.error) return { skip: `${blas.error}; Debian's reference BLAS would make PyTorch ~20x slower` };
  return { cmd: PYTHON, args: [join(here, 'worker_torch.py'), 'MODEL'], env: blas.env };
}

/**
 * Every runtime the benchmark knows, in table order. key: short name for --only; memory: what "memory" means
 * for it ('heap' = the wasm memory size from bs.memoryStats().heapBytes, 'rss' = the process's resident set);
 * weightBytes: bytes per matrix weight its decode streams (4 = float32, 1.125 = int8 codes + one f32 scale per 32); blockscope: a Blockscope
 * build (gets a ratio against the reference); reference: the runtime ratios are taken against.
 * check (optional): how close to PyTorch it must be to be timed, {tolerance: max |Δ logits|, greedy: whether its
 * greedy tokens must all equal PyTorch's}; the default is float32's {tolerance: 1e-4, greedy: true}. int8
 * weights change logits by a few hundredths (Q8_0 rounding), so those entries allow 0.1 and only report tokens.
 * An extra Blockscope variant is one more entry here.
 */
export const F32_CHECK = { tolerance: 1e-4, greedy: true };
const INT8_CHECK = { tolerance: 0.1, greedy: false };
export const RUNTIMES = [
  { key: 'native', label: 'Blockscope native Release', memory: 'rss', weightBytes: 4, blockscope: true, command: () => nativeCommand('f32') },
  { key: 'native-int8', label: 'Blockscope native Release, int8 weights', memory: 'rss', weightBytes: 1.125, blockscope: true, check: INT8_CHECK, command: () => nativeCommand('int8') },
  { key: 'wasm-simd-relaxed', label: 'Blockscope wasm SIMD relaxed (FMA)', memory: 'heap', weightBytes: 4, blockscope: true, command: () => wasmCommand('simd-relaxed', 'f32') },
  { key: 'wasm-simd', label: 'Blockscope wasm SIMD', memory: 'heap', weightBytes: 4, blockscope: true, command: () => wasmCommand('simd', 'f32') },
  { key: 'wasm-simd-int8', label: 'Blockscope wasm SIMD, int8 weights', memory: 'heap', weightBytes: 1.125, blockscope: true, check: INT8_CHECK, command: () => wasmCommand('simd', 'int8') },
  { key: 'wasm-baseline', label: 'Blockscope wasm baseline', memory: 'heap', weightBytes: 4, blockscope: true, command: () => wasmCommand('baseline', 'f32') },
  { key: 'wasm-baseline-int8', label: 'Blockscope wasm baseline, int8 weights', memory: 'heap', weightBytes: 1.125, blockscope: true, check: INT8_CHECK, command: () => wasmCommand('baseline', 'int8') },
  { key: 'ort-web', label: 'onnxruntime-web (wasm, 1 thread)', memory: 'rss', weightBytes: 4, reference: true, command: () => ortCommand('onnxruntime-web') },
  { key: 'ort-node', label: 'onnxruntime-node (CPU, 1 thread)', memory: 'rss', weightBytes: 4, command: () => ortCommand('onnxruntime-node') },
  { key: 'pytorch', label: 'PyTorch (1 thread, OpenBLAS)', memory: 'rss', weightBytes: 4, command: torchCommand },
];

/** A runtime's long-lived worker process: request(obj) sends one JSON line and resolves with the reply. */
export class Worker {
  #child;
  #pending = [];
  #stderr = [];
  #exited = null;

  constructor({ cmd, args, env = {} }, modelDir) {
    this.#child = spawn(cmd, args.map((a) => (a === 'MODEL' ? modelDir : a)), {
      cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'],
    });
    createInterface({ input: this.#child.stdout }).on('line', (line) => {
      const p = this.#pending.shift();
      if (!p) return;
      try {
        p.resolve(JSON.parse(line));
      } catch {
        p.resolve({ error: `not a JSON reply: ${line.slice(0, 200)}` });
      }
    });
    createInterface({ input: this.#child.stderr }).on('line', (line) => {
      this.#stderr.push(line);
      if (this.#stderr.length > 20) this.#stderr.shift();
    });
    this.#child.on('exit', (code, signal) => {
      this.#exited = `exited (${signal ?? code})`;
      for (const p of this.#pending.splice(0)) p.resolve({ error: `worker ${this.#exited}: ${this.#stderr.slice(-5).join(' | ')}` });
    });
    this.#child.on('error', (err) => {
      this.#exited = err.message;
      for (const p of this.#pending.splice(0)) p.resolve({ error: err.message });
    });
  }

  /** The reply to `req`; a worker that died, or did not answer within `timeoutMs`, gives {error}. */
  request(req, timeoutMs = 15 * 60 * 1000) {
    if (this.#exited) return Promise.resolve({ error: `worker ${this.#exited}` });
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        resolve({ error: `no reply to ${req.op} within ${timeoutMs / 1000} s` });
        this.kill();
      }, timeoutMs);
      this.#pending.push({ resolve: (r) => (clearTimeout(timer), resolve(r)) });
      this.#child.stdin.write(`${JSON.stringify(req)}\n`);
    });
  }

  async quit() {
    if (this.#exited) return;
    const done = new Promise((r) => this.#child.once('exit', r));
    this.#child.stdin.end(`${JSON.stringify({ op: 'quit' })}\n`);
    await Promise.race([done, new Promise((r) => setTimeout(r, 5000))]);
    this.kill();
  }

  kill() {
    if (!this.#exited) this.#child.kill('SIGKILL');
  }
}
