// locations.js — where Blockscope's files are and which wasm flavour to load: the one place both the runtime
// (blockscope.js) and the page client (client.js) ask. Every file is found from this module's own URL
// (import.meta.url), never from the page's, so a copy on a CDN loads its wasm from the CDN.
//   - From source (web/runtime/), the build outputs are ../dist/ next to this directory.
//   - In a bundle (web/dist/blockscope-widgets.js or blockscope-worker.js), scripts/build-web.sh defines
//     BLOCKSCOPE_WASM_BASE='./' (the wasm sits next to the bundle) and BLOCKSCOPE_WORKER_FILE.

/** A minimal wasm module using one SIMD128 instruction; validates only where SIMD128 is supported. */
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);
/** A minimal wasm module computing one f32x4.relaxed_madd (the standard opcode 0xfd 0x105, which the simd-relaxed
 * kernels use) of three splats; validates only where relaxed SIMD is supported. */
export const RELAXED_SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 19, 1, 17, 0,
  65, 0, 253, 17, 65, 0, 253, 17, 65, 0, 253, 17, 253, 133, 2, 11,
]);

const validates = (bytes) => {
  try {
    return WebAssembly.validate(bytes);
  } catch {
    return false;
  }
};

/** True if this engine supports WebAssembly SIMD128. */
export function simdSupported() {
  return validates(SIMD_PROBE);
}

/** True if this engine supports WebAssembly relaxed SIMD (Chrome 114+; Node 20 behind --experimental-wasm-relaxed-simd). */
export function relaxedSimdSupported() {
  return validates(RELAXED_SIMD_PROBE);
}

/**
 * The wasm flavours a build ships, fastest first. 'simd-relaxed' is 'simd' with its matrix products on relaxed SIMD's
 * multiply-add (an FMA where the CPU has one), so its last bits can differ between machines; 'simd' gives the same bits
 * everywhere (the reproducible one); 'baseline' runs where there is no SIMD128.
 */
export const FLAVOURS = ['simd-relaxed', 'simd', 'baseline'];

const NEEDS = {
  'simd-relaxed': [relaxedSimdSupported, 'WebAssembly relaxed SIMD (Chrome/Edge 114+; Node 20 with --experimental-wasm-relaxed-simd); use the simd flavour'],
  simd: [simdSupported, 'WebAssembly SIMD128; use the baseline flavour'],
  baseline: [() => true, ''],
};

/** Why this engine cannot run `flavour` (a sentence), or null when it can. */
export function unsupportedReason(flavour) {
  const [supported, what] = NEEDS[flavour];
  return supported() ? null : `this engine does not support ${what}`;
}

/**
 * The flavour to load for `requested` ('auto' or one of FLAVOURS; undefined means 'auto'): 'auto' picks the first
 * flavour of FLAVOURS this engine runs. An unknown name is an Error naming it.
 */
export function resolveFlavour(requested = 'auto') {
  if (requested === 'auto') return FLAVOURS.find((f) => !unsupportedReason(f));
  if (!FLAVOURS.includes(requested)) {
    throw new Error(`unknown flavour '${requested}' (expected auto, ${FLAVOURS.join(', ')})`);
  }
  return requested;
}

/* global BLOCKSCOPE_WASM_BASE, BLOCKSCOPE_WORKER_FILE */
/** The directory holding blockscope-glue.js, blockscope-[light-]<flavour>.wasm and tokenizers/. */
export const WASM_BASE = new URL(typeof BLOCKSCOPE_WASM_BASE === 'string' ? BLOCKSCOPE_WASM_BASE : '../dist/', import.meta.url);
/** The Web Worker script hosting the runtime (worker.js next to this module, or the bundled worker). */
export const WORKER_URL = new URL(typeof BLOCKSCOPE_WORKER_FILE === 'string' ? BLOCKSCOPE_WORKER_FILE : './worker.js', import.meta.url);

/**
 * The modules each flavour is built as (wasm/CMakeLists.txt): 'full' has everything; 'light' only the members api.js
 * marks `light` (activations and LayerNorm on arrays), so pages start on it and load the full one when a call needs it.
 */
export const WASM_MODULES = ['full', 'light'];

/**
 * The URL of one flavour's .wasm under `base` (default WASM_BASE): its full module, or its light one. simd-relaxed's
 * light module is simd's: it has no matrix products, the only code the two flavours compute differently.
 */
export function wasmUrl(flavour, base = WASM_BASE, module = 'full') {
  if (!WASM_MODULES.includes(module)) throw new Error(`unknown module '${module}' (expected ${WASM_MODULES.join(' or ')})`);
  if (module === 'light') return new URL(`blockscope-light-${flavour === 'simd-relaxed' ? 'simd' : flavour}.wasm`, base);
  return new URL(`blockscope-${flavour}.wasm`, base);
}

/** The URL of the JS glue every module of every flavour shares. */
export function glueUrl(base = WASM_BASE) {
  return new URL('blockscope-glue.js', base);
}
