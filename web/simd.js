// simd.js — WebAssembly SIMD128 feature detection, shared by blockscope.js (which flavour to load) and client.js
// (which flavour the worker should start fetching before it is even asked).

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
