// Shared helpers for the wasm tests in Node: golden-file loading and mixed-tolerance comparison
// (|a - e| <= atol + rtol * |e|, NaN never matches), the same rule and tolerances as the native tests.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

export const ATOL = 1e-5;
export const RTOL = 1e-5;
export const LOGITS_ATOL = 1e-4;
// Every flavour the build ships, the bit-exact SIMD128 one first. simd-relaxed needs Node's --experimental-wasm-relaxed-simd
// (scripts/test.sh passes it); without it those tests fail, naming the flag.
export const FLAVOURS = ['simd', 'baseline', 'simd-relaxed'];
/** The wasm feature flags this process runs with, for the Node processes a test starts (so they run every flavour too). */
export const WASM_FLAGS = process.execArgv.filter((a) => a.startsWith('--experimental-wasm-'));

const goldenDir = new URL('../golden/', import.meta.url);
const cache = new Map();

/** The cases of tests/golden/<file>. */
export function goldenCases(file) {
  if (!cache.has(file)) cache.set(file, JSON.parse(readFileSync(new URL(file, goldenDir), 'utf8')).cases);
  return cache.get(file);
}

export function goldenCase(file, name) {
  const c = goldenCases(file).find((x) => x.name === name);
  assert.ok(c, `no case ${name} in ${file}`);
  return c;
}

/** {name: Float32Array} from a case's params, optionally renamed. */
export function params(c, rename = {}) {
  return Object.fromEntries(Object.entries(c.params).map(([k, t]) => [rename[k] ?? k, Float32Array.from(t.data)]));
}

export const deviations = new Map();

/** Asserts elementwise closeness and records the largest |a - e| under `what`. */
export function assertClose(actual, expected, what, { atol = ATOL, rtol = RTOL } = {}) {
  const e = expected.data ?? expected;
  assert.equal(actual.length, e.length, `${what}: length ${actual.length}, expected ${e.length}`);
  let failures = 0;
  let worst = 0;
  let worstExcess = -Infinity;
  let maxAbs = 0;
  for (let i = 0; i < e.length; i++) {
    const diff = Math.abs(actual[i] - e[i]);
    const allowed = atol + rtol * Math.abs(e[i]);
    if (!(diff <= allowed)) failures++;
    const d = Number.isNaN(diff) ? Infinity : diff;
    maxAbs = Math.max(maxAbs, d);
    if (d - allowed > worstExcess) {
      worstExcess = d - allowed;
      worst = i;
    }
  }
  deviations.set(what, Math.max(deviations.get(what) ?? 0, maxAbs));
  assert.equal(
    failures,
    0,
    `${what}: ${failures}/${e.length} outside atol ${atol} + rtol ${rtol}; worst at ${worst}: got ${actual[worst]}, expected ${e[worst]}`,
  );
}

export function reportDeviations(label) {
  const rows = [...deviations.entries()].sort(([a], [b]) => a.localeCompare(b));
  console.log(`Largest |actual - PyTorch| per component (${label}):`);
  for (const [k, v] of rows) console.log(`  ${k.padEnd(34)} ${v.toExponential(2)}`);
}

/** Records a deviation measured outside assertClose (e.g. the worst step of a loss curve) for reportDeviations. */
export function recordDeviation(what, value) {
  deviations.set(what, Math.max(deviations.get(what) ?? 0, Number.isNaN(value) ? Infinity : value));
}
