// transport.js — how the page client (client.js) reaches the runtime host: a module Web Worker started from any
// origin (cross-origin scripts through a same-origin blob: URL), the page's compile of the wasm handed to it, and
// request/response messages with streamed events over the worker (or over the in-thread stand-in, which has the same
// port shape).
import { BlockscopeError } from './wasm-module.js';
import { mark } from './marks.js';

const pageOrigin = () => (typeof location === 'undefined' ? null : location.origin);

/**
 * Starts a module worker and resolves once it reports {ready: true}; rejects (and terminates it) if it cannot be
 * created, fails or stays silent for timeoutMs. A cross-origin script is started through a same-origin blob: URL.
 */
export function startWorker(url, timeoutMs, hash = '', precompiled = null) {
  return new Promise((resolve, reject) => {
    let blobUrl = null;
    let worker;
    try {
      if (pageOrigin() === null || new URL(url).origin === pageOrigin()) {
        worker = new Worker(url + hash, { type: 'module' });
      } else {
        const boot = `import(${JSON.stringify(url)}).catch((e) => postMessage({ ready: false, error: String(e?.message ?? e) }));`;
        blobUrl = URL.createObjectURL(new Blob([boot], { type: 'text/javascript' }));
        worker = new Worker(blobUrl + hash, { type: 'module' }); // the worker reads its location's hash
      }
      mark('worker-created');
    } catch (err) {
      if (blobUrl) URL.revokeObjectURL(blobUrl);
      reject(new Error(`the worker could not be created (${err?.message ?? err})`));
      return;
    }
    const settle = (error) => {
      clearTimeout(timer);
      worker.onmessage = worker.onerror = null;
      if (blobUrl) URL.revokeObjectURL(blobUrl);
      if (!error) return resolve(worker);
      worker.terminate();
      reject(new Error(error));
    };
    const timer = setTimeout(() => settle(`the worker did not start within ${timeoutMs} ms`), timeoutMs);
    worker.onerror = (e) => {
      e.preventDefault?.();
      settle(`the worker failed to start (${e.message || `refused or not loadable: ${url}`})`);
    };
    worker.onmessage = ({ data }) => {
      if (data?.ready === true) {
        // The compiled module goes out only now: a worker started through a blob: URL import()s its real script,
        // and a message posted before that script has set its onmessage would be dropped (the worker would then
        // wait for the module forever). {wasmModule: null} if the page could not compile it or clone it.
        precompiled?.then((message) => {
          try {
            worker.postMessage(message);
          } catch {
            worker.postMessage({ wasmModule: null }); // the worker loads its own
          }
        });
        settle(null);
      } else if (data?.ready === false) settle(`the worker failed to start (${data.error})`);
    };
  });
}

const compiled = new Map(); // wasm URL -> Promise<{wasmModule}>: one compile per file for the page's workers

/**
 * {wasmModule: {url, module}} once the page has compiled the wasm at `url` (streaming), or {wasmModule: null} if it
 * could not (network, CORS, a server without application/wasm): never rejects. Compiled once per URL: every worker
 * of the page is handed the same WebAssembly.Module (posting one shares its compiled code, it is not compiled again).
 */
export function precompile(url) {
  const key = String(url);
  if (!compiled.has(key)) {
    compiled.set(key, fetch(url, { credentials: 'same-origin' })
      .then((response) => (response.ok ? WebAssembly.compileStreaming(response) : null))
      .then((module) => ({ wasmModule: module && { url: key, module } }), () => ({ wasmModule: null }))
      .then((message) => {
        if (!message.wasmModule) compiled.delete(key); // a later worker may try again
        return message;
      }));
  }
  return compiled.get(key);
}

/**
 * Request/response transport over a worker (or the in-thread stand-in with the same port shape). A worker that
 * fails (an uncaught error) or falls silent — the worker posts {alive: true} every second, so no message for
 * `silentMs` (3 × that while calls are in flight) while the page is visible means it is gone (closed, or killed by
 * the browser) — is declared dead: every pending request is rejected with an error saying so, and `onDead(reason)`
 * lets the client restart it.
 */
export class WorkerTransport {
  #worker;
  #pending = new Map();
  #nextId = 1;
  #lastHeard = Date.now();
  #watchdog = null;
  #onDead;
  dead = null; // why the worker is gone, once it is
  constructor(worker, { silentMs = 20000, onDead = null } = {}) {
    this.#worker = worker;
    this.#onDead = onDead;
    worker.onmessage = ({ data }) => {
      this.#lastHeard = Date.now();
      if (data?.alive !== true) this.#receive(data);
    };
    worker.onerror = (e) => {
      e?.preventDefault?.();
      this.#die(`it failed (${e?.message ?? 'unknown error'})`);
    };
    if (onDead && typeof setInterval === 'function') {
      this.#watchdog = setInterval(() => {
        const hidden = typeof document !== 'undefined' && document.visibilityState === 'hidden';
        // A worker busy with one long synchronous call cannot post: calls in flight give it three times as long.
        const limit = this.#pending.size ? 3 * silentMs : silentMs;
        if (!hidden && Date.now() - this.#lastHeard > limit) this.#die(`it sent nothing for ${Math.round(limit / 1000)} s`);
      }, Math.min(1000, silentMs / 3));
      this.#watchdog.unref?.(); // in Node (tests), the watchdog alone does not keep the process alive
    }
  }
  #die(why) {
    if (this.dead) return;
    this.dead = why;
    clearInterval(this.#watchdog);
    this.#worker.onmessage = this.#worker.onerror = null;
    this.#worker.terminate?.();
    const err = new Error(`the Blockscope worker stopped: ${why}. It is being restarted; objects created before are gone`);
    for (const p of this.#pending.values()) p.reject(err);
    this.#pending.clear();
    this.#onDead?.(why);
  }
  #receive(msg) {
    const p = this.#pending.get(msg.id);
    if (!p) return;
    if (msg.event) {
      p.onEvent?.(msg.event, msg.data);
      return;
    }
    this.#pending.delete(msg.id);
    if (p.call) mark('first-result'); // marked once: the first answer computed by the core
    if (msg.ok) p.resolve(msg.result);
    else p.reject(msg.name === 'BlockscopeError' ? new BlockscopeError(msg.error) : new Error(msg.error));
  }
  send(msg, { onEvent, transfer = [] } = {}) {
    if (this.dead) return { id: null, promise: Promise.reject(new Error(`the Blockscope worker stopped: ${this.dead}`)) };
    const id = this.#nextId++;
    const call = msg.op !== 'init';
    const promise = new Promise((resolve, reject) => this.#pending.set(id, { resolve, reject, onEvent, call }));
    this.#worker.postMessage({ ...msg, id }, transfer);
    return { id, promise };
  }
}
