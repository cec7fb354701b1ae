// What the peer benchmark needs before it can time anything, each made once and cached under build/peers/
// (outside git): the exported model (export.py, redone when the script changes), the onnxruntime npm
// packages (installed on demand, so `npm ci` for `npm test` never downloads them) and OpenBLAS for PyTorch.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CACHE = join(ROOT, 'build', 'peers');
export const PYTHON = '/usr/bin/python3'; // Debian's python3-torch; the pyenv python3 on PATH has no torch
// The peer runtimes, pinned: results compare across runs only with the same versions.
export const PEER_PACKAGES = { 'onnxruntime-web': '1.30.0', 'onnxruntime-node': '1.30.0' };
export const PEER_MODULES = join(CACHE, 'node_modules');
const MODEL_FILES = ['config.json', 'model.safetensors', 'forward.onnx', 'decode.onnx', 'reference.json', 'reference_logits.f32'];

const log = (s) => process.stderr.write(`${s}\n`);

export function torchVersion() {
  const r = spawnSync(PYTHON, ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8' });
  return r.status === 0 ? { version: r.stdout.trim() } : { error: `${PYTHON} cannot import torch (apt-get install python3-torch)` };
}

/**
 * The exported model directory, (re)made by export.py when a file is missing or the script changed since
 * (stamp.json holds the hash of the export.py that wrote it). {dir} or {error}.
 */
export function ensureModel({ dir = join(CACHE, 'gpt2-124m'), layers = null, blasEnv = {} } = {}) {
  const script = join(ROOT, 'bench', 'peers', 'export.py');
  const hash = createHash('sha256').update(readFileSync(script)).digest('hex');
  const stamp = join(dir, 'stamp.json');
  const current = existsSync(stamp) && JSON.parse(readFileSync(stamp, 'utf8'));
  const complete = MODEL_FILES.every((f) => existsSync(join(dir, f)));
  if (complete && current?.script_sha256 === hash && (layers == null || current.n_layer === layers)) return { dir };
  const torch = torchVersion();
  if (torch.error) return { error: torch.error };
  log(`exporting the peer model to ${dir} (export.py ${current ? 'changed' : 'not run yet'}; takes a minute or two)`);
  const args = [script, dir, ...(layers != null ? ['--layers', String(layers)] : [])];
  const r = spawnSync(PYTHON, args, { stdio: ['ignore', process.stderr, 'inherit'], env: { ...process.env, ...blasEnv } });
  return r.status === 0 ? { dir } : { error: `export.py failed (exit ${r.status})` };
}

/** Installs the pinned peer packages into build/peers/node_modules when missing. {} or {error}. */
export function ensurePeerPackages() {
  const want = Object.entries(PEER_PACKAGES).filter(([name, version]) => {
    const p = join(PEER_MODULES, name, 'package.json');
    return !existsSync(p) || JSON.parse(readFileSync(p, 'utf8')).version !== version;
  });
  if (!want.length) return {};
  const specs = want.map(([n, v]) => `${n}@${v}`);
  log(`installing ${specs.join(', ')} into ${PEER_MODULES}`);
  mkdirSync(CACHE, { recursive: true });
  // onnxruntime-node's install script downloads CUDA files and fails here; its CPU library is in the package.
  const r = spawnSync('npm', ['install', '--no-save', '--no-package-lock', '--ignore-scripts', '--no-audit', '--no-fund',
    '--loglevel=error', '--prefix', CACHE, ...specs], {
    stdio: ['ignore', process.stderr, 'inherit'], // npm's summary must not land in the printed tables env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'skip' },
  });
  return r.status === 0 ? {} : { error: `npm install ${specs.join(' ')} failed (exit ${r.status})` };
}

/** Whether `name` is installed in build/peers/node_modules: {version} or {error}. */
export function peerPackage(name) {
  const p = join(PEER_MODULES, name, 'package.json');
  return existsSync(p) ? { version: JSON.parse(readFileSync(p, 'utf8')).version } : { error: `${name} is not installed in ${PEER_MODULES}` };
}

/**
 * Environment that gives the PyTorch process OpenBLAS on one thread: the libopenblas0-pthread package extracted
 * under build/openblas (the cache bench/train.mjs also uses), and the kernel set bench/train.mjs forces for this
 * CPU's features. {env, note} or {error}.
 */
export function openblasEnv() {
  const cache = join(ROOT, 'build', 'openblas');
  const find = (d) => {
    if (!existsSync(d)) return null;
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (e === 'openblas-pthread' && existsSync(join(p, 'libblas.so.3'))) return p;
      if (lstatSync(p).isDirectory()) {
        const r = find(p);
        if (r) return r;
      }
    }
    return null;
  };
  if (!find(cache)) {
    const tmp = mkdtempSync(join(tmpdir(), 'blockscope-openblas-'));
    try {
      execFileSync('apt-get', ['download', 'libopenblas0-pthread'], { cwd: tmp, stdio: 'pipe' });
      mkdirSync(cache, { recursive: true });
      execFileSync('dpkg-deb', ['-x', join(tmp, readdirSync(tmp).find((f) => f.endsWith('.deb'))), cache], { stdio: 'pipe' });
    } catch (e) {
      return { error: `no OpenBLAS (apt-get download libopenblas0-pthread failed: ${String(e.stderr || e.message).trim().split('\n').pop()})` };
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  const dir = find(cache);
  if (!dir) return { error: 'the libopenblas0-pthread package holds no openblas-pthread/libblas.so.3' };
  const env = { LD_LIBRARY_PATH: dir, OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' };
  const flags = new Set((readFileSync('/proc/cpuinfo', 'utf8').match(/^flags\s*:(.*)$/m)?.[1] ?? '').trim().split(/\s+/));
  if (['avx512f', 'avx512bw', 'avx512vl'].every((f) => flags.has(f))) env.OPENBLAS_CORETYPE = 'SkylakeX';
  else if (flags.has('avx2') && flags.has('fma')) env.OPENBLAS_CORETYPE = 'Haswell';
  return { env };
}
