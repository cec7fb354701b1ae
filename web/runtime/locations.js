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

/** True if this engine supports WebAssembly SIMD128. */
export function simdSupported() {
  try {
    return WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

/** The wasm flavours a build ships. */
export const FLAVOURS = ['simd', 'baseline'];

/**
 * The flavour to load for `requested` ('auto' | 'simd' | 'baseline'; undefined means 'auto'): 'auto' picks 'simd'
 * where the engine supports SIMD128. An unknown name is an Error naming it.
 */
export function resolveFlavour(requested = 'auto') {
  if (requested === 'auto') return simdSupported() ? 'simd' : 'baseline';
  if (!FLAVOURS.includes(requested)) {
    throw new Error(`unknown flavour '${requested}' (expected auto, ${FLAVOURS.join(' or ')})`);
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

/** The URL of one flavour's .wasm under `base` (default WASM_BASE): its full module, or its light one. */
export function wasmUrl(flavour, base = WASM_BASE, module = 'full') {
  if (!WASM_MODULES.includes(module)) throw new Error(`unknown module '${module}' (expected ${WASM_MODULES.join(' or ')})`);
  return new URL(`blockscope-${module === 'light' ? 'light-' : ''}${flavour}.wasm`, base);
}

/** The URL of the JS glue every module of both flavours shares. */
export function glueUrl(base = WASM_BASE) {
  return new URL('blockscope-glue.js', base);
}
