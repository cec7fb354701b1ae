// node-builtins.js — how the runtime reaches Node's own modules (fs for the wasm bytes and file: URLs): only in Node,
// and through a specifier that no bundler resolves, so a browser build (esbuild, Vite, webpack) never contains or asks
// for Node code. Browser code paths never call nodeBuiltin().

/** True in Node (not in a browser, a worker or a Deno/Bun page shim that defines window). */
export const isNode = typeof process !== 'undefined' && !!process.versions?.node && typeof window === 'undefined';

/** Node's built-in module `name` ('fs', 'fs/promises', 'stream'). */
export function nodeBuiltin(name) {
  if (!isNode) return Promise.reject(new Error(`node:${name} is only available in Node`));
  return import(/* webpackIgnore: true */ /* @vite-ignore */ `node:${name}`);
}
