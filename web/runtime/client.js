// client.js — what widgets and pages use: an async interface to the Blockscope runtime running in a Web
// Worker (web/runtime/worker.js), so heavy work never blocks the page. If a worker cannot be started (some embedding
// contexts forbid it), the same interface runs the runtime on the page's thread instead.
// Every method returns a Promise; arrays come back as typed arrays the caller owns.
//
// How loading works (every file is found from this module's own URL, import.meta.url, never from the page's):
// - Worker mode: the worker script sits next to this module (./worker.js, or ./blockscope-worker.js next to the
//   widgets bundle). A bundle served from another origin (a CDN) cannot start it directly — workers must be
//   same-origin — so the client starts a same-origin blob: module worker whose one line import()s the real
//   worker script by its absolute URL (the CDN must send CORS headers, as CDNs do). The worker says
//   {ready: true} once its script has run; inside, blockscope.js finds blockscope-<flavour>.js/.wasm from its
//   own (absolute) URL. The flavour (simd or baseline, detected here) rides in the worker URL's hash
//   (#flavour=simd), so the worker starts downloading and compiling the wasm as soon as its script runs, before
//   this thread — often still busy parsing widgets — has asked it anything.
// - Fallback: if the Worker constructor throws (CSP worker-src), or the worker fails (error event) or stays silent
//   for `workerTimeout` ms before it is ready, the client switches once to the in-thread mode, says so in
//   console.info and in client.mode / client.fallbackReason; widgets keep working.
// - In-thread mode (fallback, or connect({inThread: true})): in-thread.js runs the same host on the page's thread;
//   blockscope.js (inlined in the widgets bundle) finds the wasm from the bundle's URL.
// - loadModel({url}) and createTokenizer({baseUrl}) accept only the page's origin and the bundle's unless
//   connect({allowRemoteModels: true}).

import { BlockscopeError } from './wasm-module.js';
import { importMarks, mark } from './marks.js';
import { resolveFlavour, WORKER_URL, wasmUrl } from './locations.js';

export { BlockscopeError };

const instances = new Map(); // options key -> Promise<RuntimeClient>
const BUNDLE_ORIGIN = new URL(import.meta.url).origin;
const pageOrigin = () => (typeof location === 'undefined' ? null : location.origin);

/**
 * Connects to the runtime (once per page and set of options).
 * @param {{workerUrl?: string|URL, flavour?: 'auto'|'simd'|'baseline', inThread?: boolean,
 *          workerTimeout?: number, allowRemoteModels?: boolean}} [options]
 *   inThread runs the runtime on the page's thread; workerTimeout (ms, default 10000) is how long a worker may
 *   take to start before the in-thread fallback; allowRemoteModels lets loadModel fetch from any origin.
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

/**
 * Starts a module worker and resolves once it reports {ready: true}; rejects (and terminates it) if it cannot be
 * created, fails or stays silent for timeoutMs. A cross-origin script is started through a same-origin blob: URL.
 */
function startWorker(url, timeoutMs, hash = '', precompiled = null) {
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

/**
 * {wasmModule: {url, module}} once the page has compiled the wasm at `url` (streaming), or {wasmModule: null} if it
 * could not (network, CORS, a server without application/wasm): never rejects.
 */
function precompile(url) {
  return fetch(url, { credentials: 'same-origin' })
    .then((response) => (response.ok ? WebAssembly.compileStreaming(response) : null))
    .then((module) => ({ wasmModule: module && { url: url.href, module } }), () => ({ wasmModule: null }));
}

/** Request/response transport over a worker (or the in-thread stand-in with the same port shape). */
class WorkerTransport {
  #worker;
  #pending = new Map();
  #nextId = 1;
  constructor(worker) {
    this.#worker = worker;
    worker.onmessage = ({ data }) => this.#receive(data);
    worker.onerror = (e) => {
      const err = new Error(`Blockscope worker failed: ${e.message ?? 'unknown error'}`);
      for (const p of this.#pending.values()) p.reject(err);
      this.#pending.clear();
    };
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
    const id = this.#nextId++;
    const call = msg.op !== 'init';
    const promise = new Promise((resolve, reject) => this.#pending.set(id, { resolve, reject, onEvent, call }));
    this.#worker.postMessage({ ...msg, id }, transfer);
    return { id, promise };
  }
}

export class RuntimeClient {
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
    const flavour = resolveFlavour(options.flavour);
    if (!options.inThread) {
      try {
        if (typeof Worker === 'undefined') throw new Error('this context has no Worker');
        // The page downloads and compiles the wasm while the worker thread starts (which alone can take ~100 ms),
        // and hands the compiled module over; the worker then only instantiates it.
        precompiled = typeof WebAssembly.compileStreaming === 'function' ? precompile(wasmUrl(flavour)) : null;
        const hash = `#flavour=${flavour}${precompiled ? '&module=page' : ''}`;
        const worker = await startWorker(workerUrl, options.workerTimeout ?? 10000, hash, precompiled);
        transport = new WorkerTransport(worker);
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
    const client = new RuntimeClient(transport, mode, options);
    client.fallbackReason = reason;
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

  constructor(transport, mode, { allowRemoteModels = false } = {}) {
    this.#t = transport;
    this.mode = mode;
    this.#allowRemoteModels = allowRemoteModels;
  }

  #call(method, ...args) {
    return this.#t.send({ op: 'call', method, args }).promise;
  }
  /** @internal */
  _send(msg, opts) {
    return this.#t.send(msg, opts);
  }

  /** See Blockscope.layerNorm: {rows, dim, mean, variance, rstd, normalized, output}. */
  layerNorm(x, options) { return this.#call('layerNorm', x, options); }
  /** kind: 'gelu_tanh' | 'gelu_erf' | 'relu' */
  activation(kind, x) { return this.#call('activation', kind, x); }
  activationDerivative(kind, x) { return this.#call('activationDerivative', kind, x); }
  countParameters(config) { return this.#call('countParameters', config); }
  /** [{id, logit, probability}] for the k most likely next tokens of one row of logits. */
  topCandidates(logits, options) { return this.#call('topCandidates', logits, options); }
  memoryStats() { return this.#call('memoryStats'); }
  /** {parameters, flopsPerToken, hiddenEntries} */
  feedForwardCosts(options) { return this.#call('feedForwardCosts', options); }
  /** {attention, feedForward, norms, total} */
  blockParameters(config) { return this.#call('blockParameters', config); }

  async #create(Kind, method, ...args) {
    const info = await this.#t.send({ op: 'create', method, args }).promise;
    return new Kind(this, info);
  }
  /** @returns {Promise<RemoteGPT>} */
  createGPT(config, options) { return this.#create(RemoteGPT, 'createGPT', config, options); }
  /** @returns {Promise<RemoteBlock>} */
  createBlock(config, options) { return this.#create(RemoteBlock, 'createBlock', config, options); }
  /** @returns {Promise<RemoteObject>} with forward(x) -> {output, hiddenPre, hiddenPost} */
  createFeedForward(options) { return this.#create(RemoteFeedForward, 'createFeedForward', options); }
  /** The lesson's residual-gradient-flow network. @returns {Promise<RemoteResidualMLP>} */
  createResidualMLP(config, options) { return this.#create(RemoteResidualMLP, 'createResidualMLP', config, options); }
  /**
   * A tokenizer: {kind: 'gpt2'} loads GPT-2's files shipped with the build (or {vocab, merges} text, or
   * {baseUrl}); {kind: 'bytes'} is one id per byte.
   * @returns {Promise<RemoteTokenizer>}
   */
  async createTokenizer(options = {}) {
    const opts = { ...options };
    if (opts.baseUrl != null) opts.baseUrl = this.#checkModelUrl(absolute(opts.baseUrl), 'createTokenizer');
    return this.#create(RemoteTokenizer, 'createTokenizer', opts);
  }
  /**
   * Loads a checkpoint directory: source {url} or {files: File[]} (config.json + model.safetensors), or
   * {config, weights}. onProgress({loaded, total}) reports the download; models whose float32 weights exceed
   * maxParameterBytes (default 1 GiB) are refused before they are downloaded. weights: 'f32' (default) or
   * 'int8' (quantized at load, inference-only; the runtime names any other value in its error).
   * @returns {Promise<RemoteGPT>}
   */
  async loadModel(source, { onProgress, maxParameterBytes, weights } = {}) {
    const src = source?.url != null ? { url: this.#checkModelUrl(absolute(source.url)) } : source;
    const options = { ...(maxParameterBytes ? { maxParameterBytes } : {}), ...(weights !== undefined ? { weights } : {}) };
    const { promise } = this.#t.send(
      { op: 'loadModel', source: src, options },
      { onEvent: (event, data) => event === 'progress' && onProgress?.(data) },
    );
    return new RemoteGPT(this, await promise);
  }

  /** Model and tokenizer URLs must be on the page's origin or the bundle's, unless the client allows others. */
  #checkModelUrl(url, what = 'loadModel') {
    const { origin } = new URL(url);
    if (this.#allowRemoteModels || origin === pageOrigin() || origin === BUNDLE_ORIGIN) return url;
    throw new Error(`${what} refused ${url}: its origin ${origin} is neither this page's (${pageOrigin()}) nor ` +
      `Blockscope's (${BUNDLE_ORIGIN}); create the client with connect({allowRemoteModels: true}) to allow it`);
  }
}

/** Resolves a URL against the page (the worker would resolve it against its own script). */
function absolute(url) {
  return typeof location === 'undefined' ? String(url) : new URL(String(url), location.href).href;
}

/** A wasm object living in the worker. dispose() frees it. */
class RemoteObject {
  #client;
  constructor(client, info) {
    this.#client = client;
    /** @internal */
    this._client = client;
    this.handle = info.handle;
    this.config = info.config;
    this.numParameters = info.numParameters;
    this.parameters = info.parameters;
  }
  /** @protected */
  call(method, ...args) {
    if (this.handle == null) return Promise.reject(new Error(`this ${this.constructor.name} has been disposed`));
    return this.#client._send({ op: 'call', handle: this.handle, method, args }).promise;
  }
  /** @protected */
  send(msg, opts) {
    return this.#client._send({ handle: this.handle, ...msg }, opts);
  }
  setParameter(name, data) { return this.call('setParameter', name, data); }
  getParameter(name) { return this.call('getParameter', name); }
  loadParameters(params) { return this.call('loadParameters', params); }
  async dispose() {
    if (this.handle == null) return;
    const h = this.handle;
    this.handle = null;
    await this.#client._send({ op: 'dispose', handle: h }).promise;
  }
}

export class RemoteGPT extends RemoteObject {
  constructor(client, info) {
    super(client, info);
    /** 'f32' or 'int8' (loadModel(…, {weights: 'int8'})); bytes its parameters take in wasm memory. */
    this.weightFormat = info.weightFormat;
    this.parameterBytes = info.parameterBytes;
  }
  /** forward(ids, {inspect}) -> {logits, shape, inspection?} */
  forward(ids, options) { return this.call('forward', ids, options); }
  setNormPlacement(placement) {
    this.config = { ...this.config, norm: placement };
    return this.call('setNormPlacement', placement);
  }
  /** Mean cross-entropy (nats per token) of one batch against its targets (dropout off, no gradients). */
  loss(ids, targets) { return this.call('loss', ids, targets); }
  /** {loss, gradients: {name: Float32Array}} of one batch (dropout off). */
  lossAndGradients(ids, targets) { return this.call('lossAndGradients', ids, targets); }
  /** {config, weights, layout}: the model as a checkpoint, in the layout it was loaded from unless {layout}. */
  save(options) { return this.call('save', options); }
  /**
   * A trainer for this GPT in the worker: options {tokens, validationTokens, config} as
   * Blockscope.createTrainer. Disposing the GPT disposes it.
   * @returns {Promise<RemoteTrainer>}
   */
  async createTrainer(options) {
    if (this.handle == null) throw new Error('this RemoteGPT has been disposed');
    const info = await this.send({ op: 'createTrainer', gpt: this.handle, options }).promise;
    return new RemoteTrainer(this._client, info);
  }
  /**
   * Generates tokens; onToken({token, index}) streams them as they come.
   * @returns {Promise<{tokens: number[], stopReason: string}>}
   */
  generate(prompt, options = {}, { onToken, signal } = {}) {
    if (this.handle == null) return Promise.reject(new Error('this RemoteGPT has been disposed'));
    const { id, promise } = this.send(
      { op: 'generate', prompt: Array.from(prompt), options },
      { onEvent: (event, data) => event === 'token' && onToken?.(data) },
    );
    signal?.addEventListener('abort', () => this.send({ op: 'cancel', target: id }), { once: true });
    return promise;
  }
}

export class RemoteTokenizer extends RemoteObject {
  constructor(client, info) {
    super(client, info);
    /** 'gpt2' | 'bytes' | 'bytes+eot' */
    this.kind = info.kind;
    this.vocabSize = info.vocabSize;
    /** id of <|endoftext|> or null */
    this.eotId = info.eotId;
  }
  /** text -> Int32Array of ids */
  encode(text) { return this.call('encode', text); }
  /** ids -> text */
  decode(ids) { return this.call('decode', ids); }
  /** ids -> bytes (for streaming decode with a TextDecoder) */
  decodeBytes(ids) { return this.call('decodeBytes', ids); }
  /** ids -> display text of each token */
  tokenTexts(ids) { return this.call('tokenTexts', ids); }
}

export class RemoteBlock extends RemoteObject {
  /** forward(x, B, T) -> {output, inspection} */
  forward(x, B, T) { return this.call('forward', x, B, T); }
  setNormPlacement(placement) { return this.call('setNormPlacement', placement); }
}

export class RemoteFeedForward extends RemoteObject {
  /** forward(x) -> {output, hiddenPre, hiddenPost} */
  forward(x) { return this.call('forward', x); }
}

export class RemoteResidualMLP extends RemoteObject {
  /** forward(x, B) -> y */
  forward(x, B) { return this.call('forward', x, B); }
  /** the gradient of y.sum(): per-layer weight-gradient norms, layer 1 first */
  backwardSum() { return this.call('backwardSum'); }
  getGradient(name) { return this.call('getGradient', name); }
}

/**
 * A Trainer living in the worker. train() runs steps there, streaming each step's result to onStep, and
 * yields between micro-batches (config.grad_accum per step) so other widgets' calls and pause() are served
 * within one micro-batch's time: split a large batch with grad_accum to keep a page responsive.
 */
export class RemoteTrainer extends RemoteObject {
  #run = null; // {id, promise, remaining, options} of the train() in progress
  constructor(client, info) {
    super(client, info);
    this.stepsDone = info.stepsDone;
    /** Bytes of activations, gradients and optimizer state held in the worker. */
    this.memoryBytes = info.memoryBytes;
  }
  /** One update on sampled batches, or on {ids, targets}. */
  async step(batch) {
    const r = await this.call('step', batch);
    this.stepsDone = r.step;
    return r;
  }
  evaluate() { return this.call('evaluate'); }
  saveOptimizerState() { return this.call('saveOptimizerState'); }
  loadOptimizerState(bytes) { return this.call('loadOptimizerState', bytes); }
  /** True while train() runs. */
  get running() { return this.#run != null; }
  /**
   * Runs `steps` updates in the worker; onStep({step, loss, gradNorm, lr, finite, layerGradNorms, valLoss?})
   * after each (valLoss every evalEvery steps). Resolves {steps, stepsDone, reason: 'steps' | 'cancelled' |
   * 'diverged'} when done, paused or diverged.
   */
  train({ steps = 1, evalEvery = 0, onStep } = {}) {
    if (this.handle == null) return Promise.reject(new Error('this RemoteTrainer has been disposed'));
    if (this.#run) return Promise.reject(new Error('this trainer is already training'));
    const run = { remaining: steps, options: { evalEvery, onStep } };
    const { id, promise } = this.send(
      { op: 'train', options: { steps, evalEvery } },
      {
        onEvent: (event, data) => {
          if (event !== 'step') return;
          run.remaining--;
          this.stepsDone = data.step;
          onStep?.(data);
        },
      },
    );
    run.id = id;
    run.promise = promise.finally(() => {
      if (this.#run === run) this.#run = null;
    });
    this.#last = run;
    this.#run = run;
    return run.promise;
  }
  #last = null;
  /** Stops train() after the step in progress; resolves once it has stopped. */
  async pause() {
    const run = this.#run;
    if (!run) return;
    this.send({ op: 'cancel', target: run.id });
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
}
