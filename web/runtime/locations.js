// locations.js — where Blockscope's files are and which wasm flavour to load: the one place both the runtime
// (blockscope.js) and the page client (client.js) ask. Every file is found from this module's own URL
// (import.meta.url), never from the page's, so a copy on a CDN loads its wasm from the CDN.
//   - Each file the runtime fetches is written out below as `new URL('<literal path>', import.meta.url)`: the form
//     app bundlers (Vite, webpack, Parcel) recognise, so an app that bundles Blockscope gets the files copied into its
//     output with the URLs rewritten. '../dist/' is web/dist/ both from web/runtime/ (source) and from the bundles
//     in web/dist/ (scripts/build-web.sh, which defines BLOCKSCOPE_BUNDLED there).
//   - A page may point at a hosted copy of web/dist/ instead (hostedBase(): <meta name="blockscope-base">, or
//     globalThis.BLOCKSCOPE_BASE): every file then comes from there, the worker too.
//   - A worker is handed its page's URLs (useFiles()): bundled into an app, its own import.meta.url says nothing.

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

/* global BLOCKSCOPE_BUNDLED */
/** The runtime's files as built, by their name under web/dist/ (literal URLs: see above). */
const BUILT = Object.freeze({
  'blockscope-glue.js': new URL('../dist/blockscope-glue.js', import.meta.url),
  'blockscope-simd-relaxed.wasm': new URL('../dist/blockscope-simd-relaxed.wasm', import.meta.url),
  'blockscope-simd.wasm': new URL('../dist/blockscope-simd.wasm', import.meta.url),
  'blockscope-baseline.wasm': new URL('../dist/blockscope-baseline.wasm', import.meta.url),
  'blockscope-light-simd.wasm': new URL('../dist/blockscope-light-simd.wasm', import.meta.url),
  'blockscope-light-baseline.wasm': new URL('../dist/blockscope-light-baseline.wasm', import.meta.url),
  'tokenizers/gpt2/encoder.json': new URL('../dist/tokenizers/gpt2/encoder.json', import.meta.url),
  'tokenizers/gpt2/vocab.bpe': new URL('../dist/tokenizers/gpt2/vocab.bpe', import.meta.url),
});

let given = null; // name -> URL: the files a worker's page handed it (useFiles)

/**
 * The hosted copy of web/dist/ a page asked for, or null: `globalThis.BLOCKSCOPE_BASE` (set before the first widget
 * or connect()), else the page's `<meta name="blockscope-base" content="https://…/web/dist/">`, resolved against the
 * page. A value that is not a URL is an Error naming it.
 */
export function hostedBase() {
  const value = globalThis.BLOCKSCOPE_BASE
    ?? globalThis.document?.querySelector?.('meta[name="blockscope-base"]')?.getAttribute('content');
  if (value == null || value === '') return null;
  try {
    const base = new URL(String(value), globalThis.location?.href);
    return base.href.endsWith('/') ? base : new URL(`${base.href}/`);
  } catch {
    throw new Error(`blockscope-base '${value}' is not a URL (expected the address of a hosted web/dist/ directory)`);
  }
}

/**
 * The URL of built file `name` (a key of BUILT): under `base` when given (loadBlockscope({baseUrl})), else as this
 * page's worker was told (useFiles), else under the hosted copy, else where the build put it.
 */
export function fileUrl(name, base = null) {
  if (!Object.hasOwn(BUILT, name)) throw new Error(`unknown Blockscope file '${name}'`);
  if (base != null) return new URL(name, base);
  if (given?.[name]) return new URL(given[name]);
  const hosted = hostedBase();
  return hosted ? new URL(name, hosted) : BUILT[name];
}

/** Makes fileUrl() answer with `files` (name -> URL string; a worker's page's fileUrls()). Unknown names are ignored. */
export function useFiles(files) {
  given = Object.fromEntries(Object.entries(files ?? {}).filter(([name]) => Object.hasOwn(BUILT, name)));
}

/** Every built file's URL as fileUrl() gives it here (name -> href): what a worker is handed. */
export function fileUrls() {
  return Object.fromEntries(Object.keys(BUILT).map((name) => [name, fileUrl(name).href]));
}

/**
 * A file or directory the widgets load from beside web/dist/ (presets, models, data): `built`, written as
 * new URL('<path>', import.meta.url) in a module that is bundled into web/dist/ (a literal URL, for app bundlers), or,
 * where the page names a hosted copy of web/dist/, `path` under it.
 */
export function shippedUrl(path, built) {
  const hosted = hostedBase();
  return hosted ? new URL(path, hosted) : built;
}

/**
 * The Web Worker script hosting the runtime: blockscope-worker.js in a hosted copy or next to the bundles (a literal
 * URL, which a bundler copies as it is: the worker is one self-contained file), worker.js next to this module unbundled.
 */
export function workerUrl() {
  const hosted = hostedBase();
  if (hosted) return new URL('blockscope-worker.js', hosted);
  return typeof BLOCKSCOPE_BUNDLED !== 'undefined'
    ? new URL('../dist/blockscope-worker.js', import.meta.url) : new URL('./worker.js', import.meta.url);
}

/**
 * The modules each flavour is built as (wasm/CMakeLists.txt): 'full' has everything; 'light' only the members api.js
 * marks `light` (activations and LayerNorm on arrays), so pages start on it and load the full one when a call needs it.
 */
export const WASM_MODULES = ['full', 'light'];

/**
 * The URL of one flavour's .wasm (fileUrl: under `base` if given): its full module, or its light one. simd-relaxed's
 * light module is simd's: it has no matrix products, the only code the two flavours compute differently.
 */
export function wasmUrl(flavour, base = null, module = 'full') {
  if (!WASM_MODULES.includes(module)) throw new Error(`unknown module '${module}' (expected ${WASM_MODULES.join(' or ')})`);
  if (module === 'light') return fileUrl(`blockscope-light-${flavour === 'simd-relaxed' ? 'simd' : flavour}.wasm`, base);
  return fileUrl(`blockscope-${flavour}.wasm`, base);
}

/** The URL of the JS glue every module of every flavour shares (fileUrl: under `base` if given). */
export function glueUrl(base = null) {
  return fileUrl('blockscope-glue.js', base);
}
