// Shared helpers for the `blockscope` command-line tests: running the binary, a per-file scratch directory,
// a safetensors reader (8-byte LE header length + JSON header + data), tiny models and training text.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));
export const CLI = process.env.BLOCKSCOPE_CLI ?? join(root, 'build/release/cli/blockscope');
export const models = join(root, 'tests/golden/models');

// Fail closed: a missing binary is an error, not a skipped suite.
assert.ok(existsSync(CLI), `no blockscope binary at ${CLI} (build it, or set BLOCKSCOPE_CLI)`);

/** A scratch directory removed after the test file. */
export function scratch(prefix) {
  const dir = mkdtempSync(join(tmpdir(), `blockscope-${prefix}-`));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function run(...args) {
  return runWith({}, ...args);
}

/**
 * run() with extra environment variables (`env`) and a `timeout` in ms after which the process is killed, so
 * that a hang fails the test instead of blocking the suite: {code, signal, timedOut, stdout, stderr, ms}.
 */
export function runWith({ env = {}, timeout } = {}, ...args) {
  const started = Date.now();
  const r = spawnSync(CLI, args, {
    encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, ...env }, timeout, killSignal: 'SIGKILL',
  });
  const timedOut = r.error?.code === 'ETIMEDOUT';
  return { code: r.status, signal: r.signal, timedOut, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - started };
}

export function ok(...args) {
  const r = run(...args);
  assert.equal(r.code, 0, `blockscope ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

/** Asserts a non-zero exit, an error message on stderr matching `message`, nothing on stdout. */
export function fails(args, message, code) {
  const r = run(...args);
  assert.notEqual(r.code, 0, `blockscope ${args.join(' ')} should fail`);
  if (code !== undefined) assert.equal(r.code, code, `exit code of blockscope ${args.join(' ')}`);
  assert.match(r.stderr, message, `stderr of blockscope ${args.join(' ')}`);
  assert.equal(r.stdout, '', `stdout of blockscope ${args.join(' ')}`);
}

/** JSON lines -> objects; every non-empty line must parse. */
export function jsonLines(stdout) {
  return stdout.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
}

/**
 * {metadata, tensors: {name: {dtype, shape, data}}} of a safetensors file. Checks the structure: F32 data
 * ranges that match their shapes and tile the buffer exactly.
 */
export function readSafetensors(path) {
  const bytes = readFileSync(path);
  const n = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + n).toString('utf8'));
  const buffer = bytes.subarray(8 + n);
  const { __metadata__: metadata = {}, ...entries } = header;
  const tensors = {};
  let covered = 0;
  for (const [name, { dtype, shape, data_offsets: [begin, end] }] of Object.entries(entries)) {
    assert.equal(dtype, 'F32', `${path}: ${name} dtype`);
    const numel = shape.reduce((a, b) => a * b, 1);
    assert.equal(end - begin, 4 * numel, `${path}: ${name} byte range vs shape ${shape}`);
    assert.ok(begin >= 0 && end <= buffer.length, `${path}: ${name} outside the data buffer`);
    const copy = Buffer.from(buffer.subarray(begin, end));  // aligned for Float32Array
    tensors[name] = { dtype, shape, data: new Float32Array(copy.buffer, copy.byteOffset, numel) };
    covered += end - begin;
  }
  assert.equal(covered, buffer.length, `${path}: tensors do not tile the data buffer`);
  return { metadata, tensors };
}

export const tensorNames = (path) => Object.keys(readSafetensors(path).tensors).sort();

/** ~3 KB of repeated English sentences. */
export function englishText() {
  const sentences = [
    'The quick brown fox jumps over the lazy dog.',
    'Every effort moves you a little closer to the goal.',
    'A small model learns to repeat what it reads.',
    'Rain fell softly on the quiet town all night long.',
  ];
  let text = '';
  for (let i = 0; text.length < 3000; i++) text += `${sentences[i % sentences.length]} `;
  return text.slice(0, 3000);
}

/** A tiny byte-level model (vocab 256, C 32, 4 heads, 2 layers) from `blockscope init`. */
export function initTiny(dir, { layout = 'book', seed = 7, context = 32 } = {}) {
  ok('init', '--vocab-size', '256', '--context-length', String(context), '--emb-dim', '32', '--n-heads', '4',
    '--n-layers', '2', '--seed', String(seed), '--layout', layout, '--out', dir);
  return dir;
}

export function writeText(path, text) {
  writeFileSync(path, text);
  return path;
}

/** Mean cross-entropy of logit rows against targets, in double precision (log-sum-exp). */
export function crossEntropy(logits, targets) {
  let sum = 0;
  logits.forEach((row, t) => {
    const max = Math.max(...row);
    const lse = max + Math.log(row.reduce((s, v) => s + Math.exp(v - max), 0));
    sum += lse - row[targets[t]];
  });
  return sum / targets.length;
}

/** The largest |actual[i] - expected[i]| over a flat array and PyTorch's rows (which must hold as many values). */
export function maxDiff(actual, expectedRows) {
  const flat = expectedRows.flat();
  assert.equal(actual.length, flat.length);
  let worst = 0;
  for (let i = 0; i < flat.length; i++) worst = Math.max(worst, Math.abs(actual[i] - flat[i]));
  return worst;
}
