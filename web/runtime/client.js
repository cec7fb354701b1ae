// client.js — what widgets and pages use: an async interface to the Blockscope runtime running in a Web
// Worker (web/runtime/worker.js), so heavy work never blocks the page. If a worker cannot be started (some embedding
// contexts forbid it), the same interface runs the runtime on the page's thread instead.
// Every method returns a Promise; arrays come back as typed arrays the caller owns. The proxies' methods come from the
// API's one declaration (api.js): a declared call or create() is a request to the worker; what only the page can do
// (streams with callbacks, pause/resume, URL checks) is written here, and declare() fails at load if one is missing.
//
// How loading works (every file is found from this module's own URL, import.meta.url, never from the page's):
// - Worker mode: the worker script sits next to this module (./worker.js, or ./blockscope-worker.js next to the
//   widgets bundle). A bundle served from another origin (a CDN) cannot start it directly — workers must be
//   same-origin — so the client starts a same-origin blob: module worker whose one line import()s the real
//   worker script by its absolute URL (the CDN must send CORS headers, as CDNs do). The worker says
//   {ready: true} once its script has run; inside, blockscope.js finds blockscope-glue.js and the .wasm files from
//   its own (absolute) URL: the flavour's light module first, the full one when a call needs it (runtime-host.js).
//   The flavour (simd or baseline, detected here) rides in the worker URL's hash
//   (#flavour=simd), so the worker starts downloading and compiling the wasm as soon as its script runs, before
//   this thread — often still busy parsing widgets — has asked it anything.
// - Fallback: if the Worker constructor throws (CSP worker-src), or the worker fails (error event) or stays silent
//   for `workerTimeout` ms before it is ready, the client switches once to the in-thread mode, says so in
//   console.info and in client.mode / client.fallbackReason; widgets keep working.
// - In-thread mode (fallback, or connect({inThread: true})): in-thread.js runs the same host on the page's thread;
//   blockscope.js (inlined in the widgets bundle) finds the wasm from the bundle's URL.
// - loadModel({url}) and createTokenizer({baseUrl}) accept only the page's origin and the bundle's unless
//   connect({allowRemoteModels: true}).

import { API, membersOf } from './api.js';
import { BlockscopeError } from './wasm-module.js';
import { importMarks, mark } from './marks.js';
import { resolveFlavour, WASM_BASE, WORKER_URL, wasmUrl } from './locations.js';
import { precompile, startWorker, WorkerTransport } from './transport.js';

export { BlockscopeError };

const MAX_RESTARTS = 3; // worker restarts before the runtime moves to the page's thread
const instances = new Map(); // options key -> Promise<RuntimeClient>
const BUNDLE_ORIGIN = new URL(import.meta.url).origin;
const pageOrigin = () => (typeof location === 'undefined' ? null : location.origin);

/**
 * Connects to the runtime (once per page and set of options).
 * @param {{workerUrl?: string|URL, flavour?: 'auto'|'simd'|'baseline', inThread?: boolean,
 *          workerTimeout?: number, allowRemoteModels?: boolean, silentTimeout?: number}} [options]
 *   inThread runs the runtime on the page's thread; workerTimeout (ms, default 10000) is how long a worker may
 *   take to start before the in-thread fallback; allowRemoteModels lets loadModel fetch from any origin;
 *   silentTimeout (ms, default 20000) how long a worker may send nothing before it counts as dead and is replaced
 *   (pending calls rejected; after 3 replacements the runtime moves to the page's thread).
 */
export function connect(options = {}) {
  const workerUrl = new URL(options.workerUrl ?? WORKER_URL, import.meta.url).href;
  const key = [workerUrl, options.flavour ?? 'auto', !!options.inThread, !!options.allowRemoteModels].join('|');
  if (!instances.has(key)) {
    const p = RuntimeClient.start(workerUrl, options);
    p.catch(() => instances.delete(key));
    instances.set(key, p);
  }
  return instances.get(key);
}

/** Proxy class by runtime class name (api.js): what a create() returns. */
const PROXIES = {};

/**
 * Completes proxy class `Proxy` of runtime class `cls` from the declaration: each declared call or create() it does not
 * define itself becomes a request to the worker. Streams and page-side members must be defined by the class: a
 * missing one throws as this module loads.
 */
function declare(Proxy, cls) {
  Proxy.api = cls;
  PROXIES[cls] = Proxy;
  for (const [name, spec] of Object.entries(API[cls].members)) {
    if (Object.hasOwn(Proxy.prototype, name)) continue;
    if (spec.kind === 'call') {
      Proxy.prototype[name] = function call(...args) {
        return this._request({ op: 'call', method: name, args });
      };
    } else if (spec.kind === 'create') {
      Proxy.prototype[name] = function create(...args) {
        return this._create(name, args, spec);
      };
    } else if (spec.kind === 'stream' || spec.kind === 'dispose') {
      throw new Error(`client.js: ${Proxy.name} must implement ${cls}.${name} (a ${spec.kind})`);
    }
    // snapshot members are set by RemoteObject's constructor; page-side fields by the class's own.
  }
  return Proxy;
}

/**
 * Asks `owner` (the client, or an object in the worker) to create a runtime object with its method `name`; the
 * callbacks the declaration names in the options argument stay here and hear the worker's events.
 */
async function createRemote(owner, client, name, args, spec, signal = null) {
  let onEvent;
  if (spec.events) {
    const options = { ...(args[spec.options] ?? {}) };
    const handlers = {};
    for (const [event, key] of Object.entries(spec.events)) {
      handlers[event] = options[key];
      delete options[key];
    }
    args = Object.assign([...args], { [spec.options]: options });
    onEvent = (event, data) => handlers[event]?.(data);
  }
  if (signal?.aborted) throw new Error(`${name} was cancelled before it started`);
  const { id, promise } = owner._send({ op: 'create', method: name, args }, { onEvent });
  // An AbortSignal cannot cross to the worker: its abort becomes a 'cancel' of this request there.
  const onAbort = () => owner._send({ op: 'cancel', target: id });
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return new PROXIES[spec.returns](client, await promise);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/** A transport whose worker is still starting: messages wait for it, then go through it. */
class QueuedTransport {
  #ready;
  constructor(ready, onReady) {
    this.#ready = ready.then((t) => {
      onReady(t);
      return t;
    });
  }
  send(msg, opts) {
    let cancelled = false;
    const sent = this.#ready.then((t) => (cancelled ? { promise: Promise.reject(new Error('cancelled')) } : t.send(msg, opts)));
    return { id: null, promise: sent.then((r) => r.promise), cancel: () => { cancelled = true; } };
  }
}

export const RuntimeClient = declare(class RuntimeClient {
  #t;
  #allowRemoteModels;
  /** 'worker' or 'in-thread' */
  mode;
  /** Why the client runs in-thread although a worker was wanted (null otherwise). */
  fallbackReason = null;
  /** 'simd' or 'baseline' */
  flavour;

  static async start(workerUrl, options) {
    let transport = null;
    let reason = null; // why a wanted worker could not be used
    let precompiled = null; // the page's compile of the wasm for the worker (see below)
    let client = null;
    const flavour = resolveFlavour(options.flavour);
    if (!options.inThread) {
      try {
        if (typeof Worker === 'undefined') throw new Error('this context has no Worker');
        // The page downloads and compiles the wasm the worker starts on (the light module: runtime-host.js) while the
        // worker thread starts (which alone can take ~100 ms), and hands the compiled module over; the worker then only
        // instantiates it, and fetches the full module itself when a call needs it.
        precompiled = typeof WebAssembly.compileStreaming === 'function' ? precompile(wasmUrl(flavour, WASM_BASE, 'light')) : null;
        const hash = `#flavour=${flavour}${precompiled ? '&module=page' : ''}`;
        const worker = await startWorker(workerUrl, options.workerTimeout ?? 10000, hash, precompiled);
        transport = new WorkerTransport(worker, { silentMs: options.silentTimeout, onDead: (why) => client?._restart(why) });
      } catch (err) {
        reason = err.message;
        console.info(`Blockscope: ${reason}; running the runtime on the page's thread instead.`);
      }
    }
    if (!transport) {
      const { createInThreadPort } = await import('./in-thread.js');
      transport = new WorkerTransport(createInThreadPort());
    }
    const mode = options.inThread || reason !== null ? 'in-thread' : 'worker';
    client = new RuntimeClient(transport, { mode, allowRemoteModels: options.allowRemoteModels });
    client.fallbackReason = reason;
    client.#start = { workerUrl, options, flavour };
    // In-thread after a failed worker start, the module compiled for the worker is used here (the in-thread port
    // passes messages by reference); a worker's 'init' carries only cloneable options.
    const init = { flavour };
    if (mode === 'in-thread' && precompiled) init.compiled = precompiled.then((m) => m.wasmModule);
    const info = await transport.send({ op: 'init', options: init }).promise;
    importMarks(info.marks); // the worker's start-up phases, on this page's timeline
    mark('client-ready');
    client.flavour = info.flavour;
    return client;
  }

  #start = null; // what started the worker: {workerUrl, options, flavour}, to start another
  #restartListeners = new Set();
  /** How many times the worker was replaced: objects created under an earlier epoch are gone. @internal */
  _epoch = 0;
  /** Why the worker was last replaced (null while the first one lives). */
  restartReason = null;

  constructor(transport, { mode, allowRemoteModels = false } = {}) {
    this.#t = transport;
    this.mode = mode;
    this.#allowRemoteModels = allowRemoteModels;
  }

  /**
   * Calls fn({reason, mode}) each time the worker died and a new runtime took its place (the objects created
   * before are gone: widgets rebuild theirs). Returns a function that unsubscribes.
   */
  onRestart(fn) {
    this.#restartListeners.add(fn);
    return () => this.#restartListeners.delete(fn);
  }

  /**
   * Replaces a worker that died (transport.js noticed): a new worker, or the in-thread runtime if none starts.
   * Requests made meanwhile wait for it. @internal
   */
  _restart(why) {
    if (!this.#start) return null;
    this._epoch++;
    this.restartReason = why;
    const { workerUrl, options, flavour } = this.#start;
    const ready = (async () => {
      let transport;
      try {
        // A worker that keeps dying (its script crashes, the browser keeps killing it) is given up for the page's thread.
        if (this._epoch > MAX_RESTARTS) throw new Error(`it stopped ${this._epoch} times`);
        const worker = await startWorker(workerUrl, options.workerTimeout ?? 10000, `#flavour=${flavour}`);
        transport = new WorkerTransport(worker, { silentMs: options.silentTimeout, onDead: (w) => this._restart(w) });
      } catch (err) {
        console.info(`Blockscope: the worker could not be restarted (${err.message}); running in-thread.`);
        const { createInThreadPort } = await import('./in-thread.js');
        transport = new WorkerTransport(createInThreadPort());
        this.mode = 'in-thread';
        this.fallbackReason = `the worker stopped (${why}) and could not be restarted: ${err.message}`;
      }
      await transport.send({ op: 'init', options: { flavour } }).promise;
      return transport;
    })();
    this.#t = new QueuedTransport(ready, (t) => { this.#t = t; });
    console.warn(`Blockscope: the runtime's worker stopped (${why}); restarting it.`);
    ready.then(() => {
      for (const fn of this.#restartListeners) {
        try {
          fn({ reason: why, mode: this.mode });
        } catch (err) {
          console.error(err);
        }
      }
    }, (err) => console.error(`Blockscope: the runtime could not be restarted: ${err.message}`));
    return ready;
  }

  /** @internal Sends a message to the host: {id, promise}. */
  _send(msg, opts) {
    return this.#t.send(msg, opts);
  }
  /** @internal A request about the runtime itself (no handle). */
  _request(msg, opts) {
    return this.#t.send(msg, opts).promise;
  }
  /** @internal */
  _create(name, args, spec, signal) {
    return createRemote(this, this, name, args, spec, signal);
  }

  /**
   * A tokenizer: {kind: 'gpt2'} loads GPT-2's files shipped with the build (or {vocab, merges} text, or {baseUrl});
   * {kind: 'bytes'} is one id per byte. A baseUrl must be on the page's or Blockscope's origin unless allowed.
   */
  async createTokenizer(options = {}) {
    const opts = { ...options };
    if (opts.baseUrl != null) opts.baseUrl = this.#checkModelUrl(absolute(opts.baseUrl), 'createTokenizer');
    return this._create('createTokenizer', [opts], API.Blockscope.members.createTokenizer);
  }
  /**
   * A checkpoint's tokenizer as the CLI picks it (the runtime's loadTokenizer): its own files win, else the core's
   * default kind for options.vocabSize. A {url} must be on the page's or Blockscope's origin unless allowed.
   */
  async loadTokenizer(source, options = {}) {
    const src = source?.url != null ? { ...source, url: this.#checkModelUrl(absolute(source.url), 'loadTokenizer') } : source;
    return this._create('loadTokenizer', [src, options], API.Blockscope.members.loadTokenizer);
  }
  /**
   * Loads a checkpoint directory: source {url} or {files: File[]} (config.json + model.safetensors), or {config,
   * weights}; options as the runtime's loadModel, onProgress({loaded, total}) hearing the download. A {url} must be on
   * the page's or Blockscope's origin unless the client allows others. An AbortSignal in options.signal cancels
   * the load in the worker.
   */
  async loadModel(source, options = {}) {
    const src = source?.url != null ? { url: this.#checkModelUrl(absolute(source.url)) } : source;
    const { signal, ...rest } = options;
    const opts = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
    return this._create('loadModel', [src, opts], API.Blockscope.members.loadModel, signal);
  }

  /** Model and tokenizer URLs must be on the page's origin or the bundle's, unless the client allows others. */
  #checkModelUrl(url, what = 'loadModel') {
    const { origin } = new URL(url);
    if (this.#allowRemoteModels || origin === pageOrigin() || origin === BUNDLE_ORIGIN) return url;
    throw new Error(`${what} refused ${url}: its origin ${origin} is neither this page's (${pageOrigin()}) nor ` +
      `Blockscope's (${BUNDLE_ORIGIN}); create the client with connect({allowRemoteModels: true}) to allow it`);
  }
}, 'Blockscope');

/** Resolves a URL against the page (the worker would resolve it against its own script). */
function absolute(url) {
  return typeof location === 'undefined' ? String(url) : new URL(String(url), location.href).href;
}

/** A runtime object living in the worker, with the snapshot properties it was created with. dispose() frees it. */
const RemoteObject = declare(class RemoteObject {
  #client;
  #epoch;
  constructor(client, info) {
    this.#client = client;
    this.#epoch = client._epoch;
    this.handle = info.handle;
    for (const [name, spec] of Object.entries(membersOf(this.constructor.api))) {
      if (spec.kind === 'snapshot') this[name] = info[name];
    }
  }
  /** @internal Sends a message about this object: {id, promise}. */
  _send(msg, opts) {
    if (this.handle == null || this.#epoch !== this.#client._epoch) {
      const why = this.handle == null ? 'has been disposed' : 'was lost when the runtime\'s worker stopped';
      const promise = Promise.reject(new Error(`this ${this.constructor.api} ${why}`));
      return { id: null, promise };
    }
    return this.#client._send({ ...msg, handle: this.handle }, opts);
  }
  /** @internal */
  _request(msg, opts) {
    return this._send(msg, opts).promise;
  }
  /** @internal */
  _create(name, args, spec) {
    return createRemote(this, this.#client, name, args, spec);
  }
  async dispose() {
    if (this.handle == null) return;
    if (this.#epoch !== this.#client._epoch) { // its worker is gone, and the object with it
      this.handle = null;
      return;
    }
    const h = this.handle;
    this.handle = null;
    await this.#client._send({ op: 'dispose', handle: h }).promise;
  }
}, 'BaseHandle');

/** A runtime object with named parameters. */
const RemoteHandle = declare(class RemoteHandle extends RemoteObject {}, 'Handle');

export const RemoteGPT = declare(class RemoteGPT extends RemoteHandle {
  setNormPlacement(placement) {
    this.config = { ...this.config, norm: placement };
    return this._request({ op: 'call', method: 'setNormPlacement', args: [placement] });
  }
  /**
   * Generates tokens in the worker; onToken({token, index}) hears each as it comes; an AbortSignal cancels.
   * @returns {Promise<{tokens: number[], stopReason: string}>}
   */
  generate(prompt, options = {}, { onToken, signal } = {}) {
    const { id, promise } = this._send(
      { op: 'stream', method: 'generate', args: [Array.from(prompt), options] },
      { onEvent: (event, data) => event === 'token' && onToken?.(data) },
    );
    signal?.addEventListener('abort', () => this._send({ op: 'cancel', target: id }), { once: true });
    return promise;
  }
}, 'GPT');

export const RemoteBlock = declare(class RemoteBlock extends RemoteHandle {}, 'Block');
export const RemoteMultiHeadAttention = declare(class RemoteMultiHeadAttention extends RemoteHandle {}, 'MultiHeadAttention');
export const RemoteFeedForward = declare(class RemoteFeedForward extends RemoteHandle {}, 'FeedForward');
export const RemoteTokenizer = declare(class RemoteTokenizer extends RemoteObject {}, 'Tokenizer');
export const RemoteResidualMLP = declare(class RemoteResidualMLP extends RemoteHandle {}, 'ResidualMLP');

/**
 * A Trainer living in the worker. train() runs steps there, streaming each step's result to onStep, and yields
 * between micro-batches (config.grad_accum per step) so other widgets' calls and pause() are served within one
 * micro-batch's time: split a large batch with grad_accum to keep a page responsive.
 */
export const RemoteTrainer = declare(class RemoteTrainer extends RemoteObject {
  #run = null; // {id, promise, remaining, options} of the train() in progress
  #last = null; // the last train(), for resume()
  /** One update on sampled batches, or on {ids, targets}. */
  async step(batch) {
    const r = await this._request({ op: 'call', method: 'step', args: [batch] });
    this.stepsDone = r.step;
    return r;
  }
  /** True while train() runs. */
  get running() {
    return this.#run != null;
  }
  /**
   * Runs `steps` updates of the core's training loop in the worker (Trainer.run: its evaluation, stop and
   * rollback rules); onStep({step, loss, gradNorm, lr, finite, layerGradNorms, valLoss?, stop?, divergedAt?,
   * rolledBack?, weightsStep?}) after each (valLoss every evalEvery steps and after the schedule's last).
   * stopAbove {loss, steps, after} also stops a run whose loss stays above `loss` for `steps` updates in a row.
   * Resolves {steps, stepsDone, reason: 'steps' | 'cancelled' | 'diverged' | 'loss_above'} (+ {divergedAt,
   * rolledBack, weightsStep} when a rule stopped it) when done, paused or stopped.
   */
  train({ steps = 1, evalEvery = 0, stopAbove, onStep } = {}) {
    if (this.#run) return Promise.reject(new Error('this trainer is already training'));
    const run = { remaining: steps, options: { evalEvery, stopAbove, onStep } };
    const { id, promise } = this._send(
      { op: 'stream', method: 'train', args: [{ steps, evalEvery, stopAbove }] },
      {
        onEvent: (event, data) => {
          if (event !== 'step') return;
          run.remaining--;
          this.stepsDone = data.step;
          onStep?.(data);
        },
      },
    );
    if (id == null) return promise; // disposed
    run.id = id;
    run.promise = promise.finally(() => {
      if (this.#run === run) this.#run = null;
    });
    this.#last = run;
    this.#run = run;
    return run.promise;
  }
  /** Stops train() after the step in progress; resolves once it has stopped. */
  async pause() {
    const run = this.#run;
    if (!run) return;
    this._send({ op: 'cancel', target: run.id });
    await run.promise;
  }
  /** Continues the last paused train() with its remaining steps and callbacks. */
  resume() {
    const last = this.#last;
    if (!last || this.#run || last.remaining <= 0) return Promise.resolve({ steps: 0, stepsDone: this.stepsDone, reason: 'steps' });
    return this.train({ steps: last.remaining, ...last.options });
  }
  async dispose() {
    await this.pause();
    await super.dispose();
  }
}, 'Trainer');

/** @internal Every proxy class by its name, for tests/web/api.test.mjs. */
export const _proxies = Object.fromEntries(Object.values(PROXIES).map((P) => [P.name, P]));
