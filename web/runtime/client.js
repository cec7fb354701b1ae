// client.js — what widgets and pages use: an async interface to the Blockscope runtime running in Web Workers
// (web/runtime/worker.js), so heavy work never blocks the page: a small pool of them (pool.js), one per heavy job, so
// two trainings, or a training and a generation, run on two cores. If a worker cannot be started (some embedding
// contexts forbid it), the same interface runs the runtime on the page's thread instead.
// Every method returns a Promise; arrays come back as typed arrays the caller owns. The proxies' methods come from the
// API's one declaration (api.js): a declared call or create() is a request to the worker; what only the page can do
// (streams with callbacks, pause/resume, URL checks) is written here, and declare() fails at load if one is missing.
//
// How loading works (every file is found from this module's own URL, import.meta.url, never from the page's):
// - Worker mode: the worker script sits next to this module (./worker.js, or ./blockscope-worker.js next to the
//   widgets bundle, or in a page's hosted copy: locations.js workerUrl). The page hands it the URLs of the wasm files
//   (locations.js fileUrls), which an app bundler may have renamed. A bundle served from another origin (a CDN) cannot start it directly — workers must be
//   same-origin — so the client starts a same-origin blob: module worker whose one line import()s the real
//   worker script by its absolute URL (the CDN must send CORS headers, as CDNs do). The worker says
//   {ready: true} once its script has run; inside, blockscope.js finds blockscope-<flavour>.js/.wasm from its
//   own (absolute) URL. The flavour (simd or baseline, detected here) rides in the worker URL's hash
//   (#flavour=simd), so the worker starts downloading and compiling the wasm as soon as its script runs, before
//   this thread — often still busy parsing widgets — has asked it anything.
// - Light calls on the page (pool.js): the page's thread runs the light wasm module itself (in-thread.js, on the
//   page's one compile of it) and answers the light stateless calls (api.js `light`) until a worker runs; connect()
//   resolves when it is ready. The first worker starts with the first request it does not serve (an object, a call
//   the light module lacks), so a page of light widgets starts none.
// - More workers (pool.js): the first starts with the first request the page's light runtime does not serve (at
//   connect() where there is none); another when a GPT (api.js `heavy`) is created while every
//   running worker holds one, up to poolSize() (connect({workers}) sets the number). Each is handed the
//   WebAssembly.Module the page compiled once. An object lives in the worker that created it; requests about it go there.
// - Fallback: if the Worker constructor throws (CSP worker-src), or the worker fails (error event) or stays silent
//   for `workerTimeout` ms before it is ready, the client switches once to the in-thread mode, says so in
//   console.info and in client.mode / client.fallbackReason; widgets keep working.
// - In-thread mode (fallback, or connect({inThread: true})): in-thread.js runs the same host on the page's thread;
//   blockscope.js (inlined in the widgets bundle) finds the wasm from the bundle's URL.
// - loadModel({url}) and createTokenizer({baseUrl}) accept only the page's origin and the bundle's unless
//   connect({allowRemoteModels: true}).

import { API, membersOf } from './api.js';
import { BlockscopeError } from './wasm-module.js';
import { mark } from './marks.js';
import { resolveFlavour, workerUrl as defaultWorkerUrl } from './locations.js';
import { RuntimePool } from './pool.js';

export { BlockscopeError };

const instances = new Map(); // options key -> Promise<RuntimeClient>
// This module's URL, kept out of `new URL(…, import.meta.url)`: app bundlers take that form for a file to copy.
const MODULE_URL = import.meta.url;
const BUNDLE_ORIGIN = new URL(MODULE_URL).origin;
const pageOrigin = () => (typeof location === 'undefined' ? null : location.origin);

/**
 * Connects to the runtime (once per page and set of options).
 * @param {{workerUrl?: string|URL, flavour?: 'auto'|'simd'|'baseline', inThread?: boolean, workers?: 'auto'|number,
 *          workerTimeout?: number, allowRemoteModels?: boolean, silentTimeout?: number}} [options]
 *   inThread runs the runtime on the page's thread; workers is how many workers the pool may start ('auto', the
 *   default: hardwareConcurrency − 1 but two on two cores, from 1 to 4); workerTimeout (ms, default 10000) is how long a worker may
 *   take to start before the in-thread fallback; allowRemoteModels lets loadModel fetch from any origin;
 *   silentTimeout (ms, default 20000) how long a worker may send nothing before it counts as dead and is replaced
 *   (pending calls rejected; after 3 replacements of one worker its place goes to the page's thread).
 */
export function connect(options = {}) {
  const workerUrl = new URL(options.workerUrl ?? defaultWorkerUrl(), MODULE_URL).href;
  const key = [workerUrl, options.flavour ?? 'auto', !!options.inThread, !!options.allowRemoteModels, options.workers ?? 'auto']
    .join('|');
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
 * Asks the runtime (`parent` null) or the object `parent`, in the pool's runtime `runtime`, to create a runtime object
 * with its method `name`; the callbacks the declaration names in the options argument stay here and hear the
 * worker's events. A heavy object (api.js) counts in the runtime's load from the moment it is asked for.
 */
async function createRemote(runtime, client, parent, name, args, spec, signal = null) {
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
  const weight = API[spec.returns].heavy ? 1 : 0;
  let epoch = runtime.epoch;
  runtime.load += weight; // before anything is awaited: the next heavy object already sees it
  try {
    if (!parent) {
      await runtime.ready; // a worker started for this object, or one being replaced
      if (runtime.epoch !== epoch) [runtime.load, epoch] = [runtime.load + weight, runtime.epoch];
    }
    if (signal?.aborted) throw new Error(`${name} was cancelled before it started`);
    const send = (msg, opts) => (parent ? parent._send(msg, opts) : runtime.send(msg, opts));
    const { id, promise } = send({ op: 'create', method: name, args }, { onEvent });
    // An AbortSignal cannot cross to the worker: its abort becomes a 'cancel' of this request there.
    const onAbort = () => send({ op: 'cancel', target: id });
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const proxy = new PROXIES[spec.returns](client, await promise, runtime, epoch);
      parent?._adopt(proxy);
      return proxy;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  } catch (err) {
    runtime.release(weight, epoch);
    throw err;
  }
}

export const RuntimeClient = declare(class RuntimeClient {
  #pool;
  #allowRemoteModels;
  #restartListeners = new Set();
  /** 'simd' or 'baseline' */
  flavour;

  static async start(workerUrl, options) {
    const client = new RuntimeClient(null, { allowRemoteModels: options.allowRemoteModels });
    const pool = new RuntimePool(workerUrl, options, resolveFlavour(options.flavour), (info) => client.#restarted(info));
    client.#pool = pool;
    const info = await pool.open();
    mark('client-ready');
    client.flavour = info.flavour;
    return client;
  }

  constructor(pool, { allowRemoteModels = false } = {}) {
    this.#pool = pool;
    this.#allowRemoteModels = allowRemoteModels;
  }

  /** 'worker', or 'in-thread' when the runtime (or a replaced worker of the pool) runs on the page's thread. */
  get mode() {
    return this.#pool?.mode;
  }
  /** Why the client runs in-thread although a worker was wanted (null otherwise). */
  get fallbackReason() {
    return this.#pool?.fallbackReason ?? null;
  }
  /** Why a worker was last replaced (null while none was). */
  get restartReason() {
    return this.#pool?.restartReason ?? null;
  }

  /**
   * Calls fn({reason, mode, worker}) each time a worker of the pool died and a new runtime took its place (the objects
   * created in it before are gone: widgets rebuild theirs; `worker` is its index). Returns a function that unsubscribes.
   */
  onRestart(fn) {
    this.#restartListeners.add(fn);
    return () => this.#restartListeners.delete(fn);
  }

  #restarted(info) {
    for (const fn of this.#restartListeners) {
      try {
        fn(info);
      } catch (err) {
        console.error(err);
      }
    }
  }

  /** @internal Sends a request about the runtime itself (no handle) to the least busy worker: {id, promise}. */
  _send(msg, opts) {
    return this.#pool.forCall(msg).send(msg, opts);
  }
  /** @internal A request about the runtime itself. */
  _request(msg, opts) {
    return this._send(msg, opts).promise;
  }
  /** @internal Creates a runtime object: a heavy one (api.js) on the least-loaded worker, a light one where few are. */
  async _create(name, args, spec, signal) {
    const runtime = API[spec.returns].heavy ? this.#pool.forHeavy() : this.#pool.forObject();
    try {
      return await createRemote(runtime, this, null, name, args, spec, signal);
    } catch (err) {
      if (runtime.removed) return this._create(name, args, spec, signal); // a new worker could not start: elsewhere
      throw err;
    }
  }
  /** @internal For tests: the pool's runtimes ({index, mode, load, inFlight, epoch}). */
  _workers() {
    return this.#pool.describe();
  }

  /**
   * malloc'd bytes in use, wasm memory and the stack pointer, of every running runtime of the pool: allocatedBytes
   * and heapBytes are their sums, stackPointer the first's, `workers` each one's stats.
   */
  async memoryStats() {
    const running = this.#pool.running();
    const each = await Promise.all((running.length ? running : [this.#pool.forCall({ op: 'call', method: 'memoryStats' })])
      .map((r) => r.send({ op: 'call', method: 'memoryStats', args: [] }).promise));
    const sum = (key) => each.reduce((total, stats) => total + stats[key], 0);
    return { allocatedBytes: sum('allocatedBytes'), heapBytes: sum('heapBytes'), stackPointer: each[0].stackPointer,
      workers: each };
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

/**
 * A runtime object living in one worker of the pool (the one that created it), with the snapshot properties it was
 * created with. dispose() frees it.
 */
const RemoteObject = declare(class RemoteObject {
  #client;
  #runtime; // the pool's runtime (pool.js) it lives in
  #epoch; // that runtime's epoch when it was created: another one means the worker was replaced, the object gone
  #weight; // 1 for a heavy object (api.js), counted in its runtime's load until disposed
  #parent = null; // the object that created it (a trainer's GPT)
  #children = new Set(); // the objects it created: disposing it frees them in the worker
  constructor(client, info, runtime = null, epoch = runtime?.epoch) {
    this.#client = client;
    this.#runtime = runtime;
    this.#epoch = epoch;
    this.#weight = runtime && API[this.constructor.api].heavy ? 1 : 0;
    this.handle = info.handle;
    for (const [name, spec] of Object.entries(membersOf(this.constructor.api))) {
      if (spec.kind === 'snapshot') this[name] = info[name];
    }
  }
  /** @internal Sends a message about this object to its worker: {id, promise}. */
  _send(msg, opts) {
    if (this.handle == null || this.#epoch !== this.#runtime?.epoch) {
      const why = this.handle == null ? 'has been disposed' : 'was lost when the runtime\'s worker stopped';
      const promise = Promise.reject(new Error(`this ${this.constructor.api} ${why}`));
      return { id: null, promise };
    }
    return this.#runtime.send({ ...msg, handle: this.handle }, opts);
  }
  /** @internal */
  _request(msg, opts) {
    return this._send(msg, opts).promise;
  }
  /** @internal */
  _create(name, args, spec) {
    return createRemote(this.#runtime, this.#client, this, name, args, spec);
  }
  /** @internal Records an object this one created (in the worker, disposing this one frees it). */
  _adopt(child) {
    this.#children.add(child);
    child.#parent = this;
  }
  /** The index of the pool's worker this object lives in (0 in-thread). */
  get worker() {
    return this.#runtime?.index ?? 0;
  }
  /** No longer counted in its worker's load, nor are the objects it created (freed with it there). */
  #release() {
    this.#runtime?.release(this.#weight, this.#epoch);
    this.#weight = 0;
    this.#parent?.#children.delete(this);
    for (const child of this.#children) child.#release();
  }
  async dispose() {
    if (this.handle == null) return;
    const h = this.handle;
    this.handle = null;
    this.#release();
    if (this.#epoch !== this.#runtime?.epoch) return; // its worker is gone, and the object with it
    await this.#runtime.send({ op: 'dispose', handle: h }).promise;
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
   * Generates tokens in the worker; onToken({token, index, sliding}) hears each as it comes; an AbortSignal cancels.
   * The promise also has pause() and resume(): paused, the worker finishes the token under way and then waits, so a
   * sequence of other calls on the model (a widget's passes after an edit) runs between two tokens.
   * @returns {Promise<{tokens: number[], stopReason: string}> & {pause(): void, resume(): void}}
   */
  generate(prompt, options = {}, { onToken, signal } = {}) {
    const { id, promise } = this._send(
      { op: 'stream', method: 'generate', args: [Array.from(prompt), options] },
      { onEvent: (event, data) => event === 'token' && onToken?.(data) },
    );
    // (a stream the runtime refused at once has no id; a lost worker rejects these with the stream itself)
    const tell = (op) => { if (id != null) this._send({ op, target: id }).promise.catch(() => {}); };
    signal?.addEventListener('abort', () => tell('cancel'), { once: true });
    return Object.assign(promise, { pause: () => tell('pause'), resume: () => tell('resume') });
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
