// pool.js — where the page client's requests run (client.js): a small pool of Web Workers, one per heavy job, or the
// one runtime on the page's thread. Each worker is a whole Blockscope runtime with its own wasm memory; an object
// lives in the worker that created it, so every request about it goes there.
// - Size: navigator.hardwareConcurrency − 1 workers (the page's thread keeps a core), at most MAX_WORKERS, unless
//   connect({workers}) asks for another number; one core gets one worker and two cores get two: a page's thread is
//   mostly idle while workers compute (the training lab's two runs on a 2-core machine: 1.73× the steps/s of one
//   worker, bench/lab.mjs), and a second worker starts only when a second heavy job exists. In-thread: one runtime.
// - Lazily: the first worker starts at connect(); another only when a heavy object (api.js `heavy`: a GPT, which
//   trains and generates) is created while every running worker already holds one.
// - Placement: a new heavy object goes to the worker holding the fewest (then the least busy); an object made by
//   another object (a GPT's trainer) stays with it; a light object (a block, a tokenizer) goes to the worker with the
//   fewest heavy objects; a stateless call to the least busy worker (requests in flight), the first on a tie.
// - The wasm is compiled once on the page (transport.js precompile, one per URL) and every worker is handed the same
//   WebAssembly.Module: each instantiates it, none downloads or compiles it again.
// - A worker that dies is replaced alone: its epoch changes (its objects are gone, client.js refuses them by name),
//   the others keep theirs. One that died more than MAX_RESTARTS times is replaced by the in-thread runtime.
// - Light calls on the page: the page's own thread runs the light module (in-thread.js, instantiating the page's one
//   compile of it) and answers the stateless light calls (api.js `light`: activations, LayerNorm) until a worker runs.
//   The first worker starts with the first request that runtime does not serve (an object, a call the light module
//   lacks): a page of light widgets downloads no worker script and starts no thread, and its first numbers wait for no
//   round trip to one (on a phone: the worker's script, then the glue it imports, then messages the page's busy main
//   thread must answer). Objects and every other call go to the workers, as before. A page that cannot start a worker
//   keeps that runtime for everything (it loads the full module when a call needs it).
import { API } from './api.js';
import { importMarks } from './marks.js';
import { precompile, startWorker, WorkerTransport } from './transport.js';
import { fileUrls, wasmUrl } from './locations.js';

/** The default pool's largest size: each worker holds its own wasm memory (16 MiB at start, more per model). */
export const MAX_WORKERS = 4;
/** The largest pool connect({workers}) may ask for. */
export const MAX_REQUESTED_WORKERS = 16;
/** Times one worker may die and be replaced before its place goes to the page's thread. */
export const MAX_RESTARTS = 3;

/**
 * The number of workers a pool may start: for 'auto', hardwareConcurrency − 1 but as many as the cores on one or two
 * (1, 2, 2, 3, ... at most MAX_WORKERS; 1 when unknown), else the integer asked for; anything else is an Error naming it.
 */
export function poolSize(requested = 'auto', cores = globalThis.navigator?.hardwareConcurrency) {
  if (requested === 'auto') {
    const known = Number.isInteger(cores) && cores >= 1 ? cores : 1;
    return Math.min(MAX_WORKERS, known <= 2 ? known : known - 1);
  }
  if (!Number.isInteger(requested) || requested < 1 || requested > MAX_REQUESTED_WORKERS) {
    throw new Error(`connect(): workers must be 'auto' or an integer from 1 to ${MAX_REQUESTED_WORKERS}, got ${String(requested)}`);
  }
  return requested;
}

/** One runtime of the pool: its worker (or the in-thread host), how many heavy objects live there, how busy it is. */
export class PoolRuntime {
  /** Changes each time the worker is replaced: objects created under an earlier epoch are gone. */
  epoch = 0;
  /** Heavy objects living here (counted from the moment their create is sent). */
  load = 0;
  /** Requests sent and not yet answered (a stream counts until it ends). */
  inFlight = 0;
  /** The transport once the runtime answers; null while it starts or restarts. */
  transport = null;
  /** Resolves with the transport once the runtime is ready (a new promise at each restart). */
  ready = null;
  /** 'worker' or 'in-thread' */
  mode = 'worker';
  restarts = 0;
  /** True once a worker that could not start has been taken out of the pool. */
  removed = false;
  constructor(index) {
    this.index = index;
  }
  /** Sends a message to this runtime ({id, promise}); while it (re)starts, the message waits for it (id null). */
  send(msg, opts) {
    const sent = this.transport ? this.transport.send(msg, opts) : waiting(this.ready, msg, opts);
    if (msg.op === 'cancel') return sent;
    this.inFlight++;
    const done = () => { this.inFlight--; };
    sent.promise.then(done, done);
    return sent;
  }
  /** Gives back `weight` heavy objects created under `epoch` (none if the worker was replaced since). */
  release(weight, epoch) {
    if (weight && epoch === this.epoch) this.load = Math.max(0, this.load - weight);
  }
}

function waiting(ready, msg, opts) {
  return { id: null, promise: ready.then((t) => t.send(msg, opts).promise) };
}

/** The runtime host on the page's thread behind a worker's message interface: {transport, port} (in-thread.js). */
async function inThreadTransport(options) {
  const { createInThreadPort } = await import('./in-thread.js');
  const port = createInThreadPort(options);
  return { transport: new WorkerTransport(port), port };
}

/** True for a request the page's light runtime may answer: a top-level call of a member api.js marks light. */
function isLightCall(msg) {
  return msg?.op === 'call' && msg.handle == null && API.Blockscope.members[msg.method]?.light === true;
}

/** The pool of one client. `onRestart({reason, mode, worker})` hears each replaced worker once its successor is ready. */
export class RuntimePool {
  #runtimes = [];
  #max;
  #workerUrl;
  #options;
  #flavour;
  // The page's compiles, Promise<{wasmModule: {url, module} | null}> each: the light module the first worker starts on,
  // and the full one, compiled the first time a second worker starts and posted to every worker after the first.
  #precompiled = null;
  #precompiledFull = null;
  #onRestart;
  // The light runtime on the page's thread (a PoolRuntime) until the first worker runs; null from then on, or when
  // there is none (in-thread mode, not a page, no Worker, no streaming compile).
  #page = null;
  #lightOnPage = false; // whether the page's light runtime was started
  #pagePort = null; // its in-thread port (in-thread.js)
  #first = null; // the first runtime while it waits for a request the page's light runtime does not serve
  #firstInfo = null; // Promise of the first runtime's 'init' answer, once it was started
  /** 'worker', or 'in-thread' once the runtime (or one of the pool's) runs on the page's thread. */
  mode = 'worker';
  /** Why the runtime runs in-thread although a worker was wanted (null otherwise). */
  fallbackReason = null;
  /** Why a worker was last replaced (null while none was). */
  restartReason = null;

  constructor(workerUrl, options, flavour, onRestart) {
    this.#workerUrl = workerUrl;
    this.#options = options;
    this.#flavour = flavour;
    this.#onRestart = onRestart;
    this.#max = options.inThread ? 1 : poolSize(options.workers ?? 'auto');
  }

  /**
   * Starts the light runtime on the page (where there is one; the first worker then starts when a request needs it),
   * else the first runtime (a worker, else in-thread); resolves with its 'init' answer.
   */
  open() {
    const first = this.#add();
    // The page downloads and compiles the light wasm module once: its own light runtime instantiates it, and so does
    // the first worker, handed the compiled module (starting a worker thread alone can take ~100 ms); the worker
    // fetches the full module itself when a call needs it (runtime-host.js).
    if (!this.#options.inThread && typeof Worker !== 'undefined' && typeof WebAssembly.compileStreaming === 'function') {
      this.#precompiled = precompile(wasmUrl(this.#flavour, null, 'light'));
    }
    const page = this.#precompiled && typeof document !== 'undefined' ? this.#openPage() : null;
    this.#page = page?.runtime ?? null;
    this.#lightOnPage = page !== null;
    if (!page) return this.#start(first);
    this.#first = first;
    // A light runtime on the page that fails (its module could not load) leaves the start to the worker.
    return page.info.catch(() => {
      this.#page = null;
      return this.#start(first);
    });
  }

  /** Starts the first runtime (once); resolves with its 'init' answer. */
  #start(first) {
    if (!this.#firstInfo) {
      this.#first = null;
      const opened = this.#openFirst(first);
      first.ready = opened.then(({ transport }) => transport);
      first.ready.catch(() => {});
      this.#firstInfo = opened.then((answer) => answer.info);
    }
    return this.#firstInfo;
  }

  /** `runtime`, started first if it is the first runtime, still waiting for a request. */
  #woken(runtime) {
    if (runtime !== null && runtime === this.#first) this.#start(runtime).catch(() => {}); // reported to its requests
    return runtime;
  }

  /** The first runtime: a worker, else (no Worker, refused, silent) the page's thread. {transport, info}. */
  async #openFirst(first) {
    let transport = null;
    let reason = null; // why a wanted worker could not be used
    if (!this.#options.inThread) {
      try {
        if (typeof Worker === 'undefined') throw new Error('this context has no Worker');
        transport = await this.#startWorker(first);
      } catch (err) {
        reason = err.message;
        console.info(`Blockscope: ${reason}; running the runtime on the page's thread instead.`);
      }
    }
    transport ??= await this.#inThread(first, reason);
    const info = await transport.send({ op: 'init', options: this.#initOptions(first) }).promise;
    // The worker's start-up phases, on this page's timeline; with a light runtime on the page, the runtime's phases
    // (glue, wasm, instantiation) are that one's, so only the worker's own start is taken.
    const marks = Object.entries(info.marks ?? {}).filter(([phase]) => !this.#lightOnPage || phase === 'worker-started');
    importMarks(Object.fromEntries(marks));
    first.transport = transport;
    if (first.mode === 'worker') this.#page = null; // from now on every call goes to a worker
    return { transport, info };
  }

  /**
   * The light runtime on the page's thread: {runtime (a PoolRuntime, index -1, in-thread), info (its 'init' answer)}.
   * It instantiates the light module the page compiles for the first worker.
   */
  #openPage() {
    const runtime = new PoolRuntime(-1);
    runtime.mode = 'in-thread';
    let info = null;
    // Its light calls take microseconds: their messages are microtasks, not tasks a frame may come between.
    runtime.ready = inThreadTransport({ immediate: true }).then(async ({ transport, port }) => {
      this.#pagePort = port;
      const compiled = this.#precompiled.then((m) => m.wasmModule);
      info = await transport.send({ op: 'init', options: { flavour: this.#flavour, compiled } }).promise;
      runtime.transport = transport;
      return transport;
    });
    return { runtime, info: runtime.ready.then(() => info) };
  }

  /** The runtimes that are running (not starting or restarting). */
  running() {
    return this.#runtimes.filter((r) => r.transport && !r.transport.dead);
  }

  /**
   * Where stateless call `msg` goes: the least busy running runtime, the first on a tie; while no worker runs yet, a
   * light call goes to the page's light runtime.
   */
  forCall(msg = null) {
    const running = this.running();
    if (running.length === 0 && this.#page && isLightCall(msg)) return this.#page;
    return this.#woken(least(running, (r) => [r.inFlight, r.load]) ?? this.#runtimes[0]);
  }

  /** Where a new light object goes: the running runtime with the fewest heavy objects, then the least busy. */
  forObject() {
    return this.#woken(least(this.running(), (r) => [r.load, r.inFlight]) ?? this.#runtimes[0]);
  }

  /**
   * Where a new heavy object goes: the runtime holding the fewest (then the least busy), or a new worker when every
   * one already holds one and the pool may grow. The caller counts the object in (load) before it awaits anything.
   */
  forHeavy() {
    const best = least(this.#runtimes, (r) => [r.load, r.inFlight]);
    if (best.load === 0 || this.#runtimes.length >= this.#max || this.mode !== 'worker') return this.#woken(best);
    return this.#grow();
  }

  /** @internal For tests: each runtime's index, mode, load, requests in flight and epoch. */
  describe() {
    return this.#runtimes.map(({ index, mode, load, inFlight, epoch }) => ({ index, mode, load, inFlight, epoch }));
  }

  #add() {
    const runtime = new PoolRuntime(this.#runtimes.length);
    this.#runtimes.push(runtime);
    return runtime;
  }

  /**
   * The 'init' options of `runtime`. In-thread after a failed worker start, the module compiled for the workers is
   * used (the in-thread port passes messages by reference); a worker's 'init' carries only cloneable options.
   */
  #initOptions(runtime) {
    const init = { flavour: this.#flavour };
    if (runtime.mode === 'in-thread' && this.#precompiled) init.compiled = this.#precompiled.then((m) => m.wasmModule);
    return init;
  }

  /** A worker whose death restarts `runtime` (alone). */
  async #startWorker(runtime) {
    // Only the first worker starts on the light module: the pool grows for heavy objects (GPTs), which need the full
    // one, so later workers start on it (&first=full), all instantiating the page's one compile of it.
    let compiled = this.#precompiled;
    if (runtime.index > 0 && compiled) compiled = this.#precompiledFull ??= precompile(wasmUrl(this.#flavour));
    // The worker's index rides in the hash too: it names the worker in the browser's developer tools. So do the URLs
    // of the files that are not where the worker finds them itself (an app bundler renames them: locations.js).
    const files = movedFiles(this.#workerUrl);
    const hash = `#flavour=${this.#flavour}${compiled ? '&module=page' : ''}${runtime.index > 0 ? '&first=full' : ''}` +
      `${files ? `&files=${encodeURIComponent(JSON.stringify(files))}` : ''}&worker=${runtime.index}`;
    const worker = await startWorker(this.#workerUrl, this.#options.workerTimeout ?? 10000, hash, compiled);
    const transport = new WorkerTransport(worker, {
      silentMs: this.#options.silentTimeout,
      onDead: (why) => this.#restart(runtime, transport, why),
    });
    runtime.mode = 'worker';
    return transport;
  }

  async #inThread(runtime, reason) {
    runtime.mode = this.mode = 'in-thread';
    this.fallbackReason = reason;
    this.#max = this.#runtimes.length; // threads on the page's thread would only take turns
    // The page's light runtime, if it started, becomes the runtime (it loads the full module when a call needs it).
    const page = await this.#page?.ready.catch(() => null);
    if (!page) return (await inThreadTransport()).transport;
    this.#pagePort.immediate = false; // heavy calls too from now on: the page may paint between request and answer
    return page;
  }

  /** Starts one more worker; if it cannot start, it leaves the pool (which stops growing) and requests go elsewhere. */
  #grow() {
    const runtime = this.#add();
    runtime.ready = (async () => {
      const transport = await this.#startWorker(runtime);
      await transport.send({ op: 'init', options: this.#initOptions(runtime) }).promise;
      runtime.transport = transport;
      return transport;
    })();
    runtime.ready.catch((err) => {
      runtime.removed = true;
      this.#runtimes.splice(this.#runtimes.indexOf(runtime), 1);
      this.#max = this.#runtimes.length;
      console.info(`Blockscope: another worker could not be started (${err.message}); the pool stays at ${this.#max}.`);
    });
    return runtime;
  }

  /** Replaces `runtime`'s worker, which died (`transport` noticed); the other runtimes are left alone. */
  #restart(runtime, transport, why) {
    if (runtime.transport !== transport) return; // a worker already replaced
    runtime.epoch++;
    runtime.load = 0;
    runtime.restarts++;
    runtime.transport = null;
    this.restartReason = why;
    runtime.ready = (async () => {
      let next;
      try {
        // A worker that keeps dying (its script crashes, the browser keeps killing it) is given up for the page's thread.
        if (runtime.restarts > MAX_RESTARTS) throw new Error(`it stopped ${runtime.restarts} times`);
        next = await this.#startWorker(runtime);
      } catch (err) {
        console.info(`Blockscope: the worker could not be restarted (${err.message}); running in-thread.`);
        next = await this.#inThread(runtime, `the worker stopped (${why}) and could not be restarted: ${err.message}`);
      }
      await next.send({ op: 'init', options: this.#initOptions(runtime) }).promise;
      runtime.transport = next;
      return next;
    })();
    console.warn(`Blockscope: the runtime's worker stopped (${why}); restarting it.`);
    runtime.ready.then(
      () => this.#onRestart({ reason: why, mode: this.mode, worker: runtime.index }),
      (err) => console.error(`Blockscope: the runtime could not be restarted: ${err.message}`),
    );
  }
}

/**
 * The files (name -> URL, locations.js fileUrls) a worker started from `workerUrl` would not find itself, at
 * ../dist/<name> from its own URL (as its locations.js does); null when it finds them all (a build served as it is).
 */
function movedFiles(workerUrl) {
  const beside = (name) => {
    try {
      return new URL(`../dist/${name}`, workerUrl).href;
    } catch {
      return null; // a blob: or data: worker has no files beside it: every file is passed
    }
  };
  const moved = Object.entries(fileUrls()).filter(([name, href]) => href !== beside(name));
  return moved.length ? Object.fromEntries(moved) : null;
}

/** True if key a comes before key b (arrays of numbers compared in order). */
function before(a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i];
  return false;
}

/** The item of `items` with the smallest key(item), the first on a tie; null if there is none. */
function least(items, key) {
  let best = null;
  let bestKey = null;
  for (const item of items) {
    const k = key(item);
    if (best === null || before(k, bestKey)) [best, bestKey] = [item, k];
  }
  return best;
}
