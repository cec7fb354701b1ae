// runtime-host.js — serves Blockscope's runtime over messages: the body of the Web Worker (web/runtime/worker.js), and
// of the in-thread fallback when a page cannot start workers. The protocol, spoken with web/runtime/client.js:
//   page -> host  {id, op: 'init' | 'call' | 'create' | 'stream' | 'cancel' | 'pause' | 'resume' | 'dispose', handle?,
//                  method?, args?, target?}   (cancel, pause and resume name a stream request by its id: target)
//   host -> page  {id, ok: true, result} | {id, ok: false, error, name} | {id, event, data}
// Objects created here (GPT, Block, Trainer, ...) stay here, in a handle table that records each one's class; the
// page addresses them by handle. Only what the API's declaration (api.js) declares is served, by its kind: 'call'
// runs a declared call of the object's class, 'create' a declared create() (storing the result under its declared
// class), 'stream' one of the long jobs below; an undeclared method, or a member of another kind, is an error.
// Long jobs yield to the event loop after every token, and after every micro-batch (and evaluation) of a training
// step, so a 'cancel' or another widget's call waits at most one of them.
// Light first (the worker's and the in-thread host's mode): the host starts on the flavour's light module, and the
// first top-level call of a member api.js does not mark light loads the full module (once, however many such calls
// arrive meanwhile); from then on every top-level call goes to the full module. Objects live on in the module that
// created them: their wrappers hold that module's objects.
import { API, membersOf } from './api.js';
import { loadBlockscope } from './blockscope.js';
import { exportMarks } from './marks.js';

const KIND_NAMES = { call: 'method', create: 'constructor method', stream: 'streaming method' };
const memberCache = new Map();
/** The declared spec of `cls`'s member `name` if it is of `kind`; else an Error naming what the class has. */
function declared(cls, name, kind) {
  if (!memberCache.has(cls)) memberCache.set(cls, membersOf(cls));
  const members = memberCache.get(cls);
  const spec = Object.hasOwn(members, name) ? members[name] : null;
  if (spec?.kind === kind) return spec;
  const have = Object.entries(members).filter(([, s]) => s.kind === kind).map(([n]) => n).join(', ');
  throw new Error(`${cls} has no ${KIND_NAMES[kind]} '${String(name)}' (it has: ${have || 'none'})`);
}

// A long job's pause between pieces: one macrotask, so a 'cancel' or another call already queued is served. In a Web
// Worker, a MessageChannel message: the page's requests arrive as messages too, queued with it in order, and it has
// no clamp — setTimeout(0), whose nested timers browsers clamp to 4 ms, alone held a generation inside the context to
// ~200 tokens/s while a token's pass took well under a millisecond. In-thread (in-thread.js, Node), where requests
// arrive by setTimeout, a timer too: a message would run ahead of them every time.
const inWorker = typeof WorkerGlobalScope === 'function' && globalThis instanceof WorkerGlobalScope;
let channel = null;
const waiting = [];
function yieldToEvents() {
  if (!inWorker || typeof MessageChannel !== 'function') return new Promise((resolve) => setTimeout(resolve, 0));
  if (!channel) {
    channel = new MessageChannel();
    channel.port1.onmessage = () => waiting.shift()?.();
  }
  return new Promise((resolve) => {
    waiting.push(resolve);
    channel.port2.postMessage(null);
  });
}

/** Every typed array's buffer in a result, to transfer rather than copy. */
function transferables(value, list = []) {
  if (ArrayBuffer.isView(value)) list.push(value.buffer);
  else if (Array.isArray(value)) value.forEach((v) => transferables(v, list));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => transferables(v, list));
  return [...new Set(list)];
}

/**
 * Returns the message handler of one runtime host; `post(message, transfer)` sends replies and events. lightFirst
 * starts it on the light module (see above); else it loads the full module at 'init', as loadBlockscope() does.
 */
export function createHost(post, { lightFirst = false } = {}) {
  const handles = new Map(); // handle -> {obj, cls}
  const cancelled = new Set(); // ids of stream requests the page cancelled
  // Ids of paused generations -> the function that wakes one waiting between two tokens (null until it waits).
  const paused = new Map();
  const wake = (id) => {
    const resume = paused.get(id);
    paused.delete(id);
    resume?.();
  };
  const aborts = new Map(); // id of an async create under way (a download) -> its AbortController
  let runtime = null; // the runtime top-level calls go to
  let loadOptions = null; // 'init''s options, for loading the full module later
  let full = null; // Promise of the full runtime, once a call needed it (light first)
  let nextHandle = 1;

  /** The full module's runtime, loaded at the first call that needs it; a failed load is tried again next time. */
  function fullRuntime() {
    full ??= loadBlockscope({ ...loadOptions, module: 'full' }).then((rt) => {
      runtime = rt;
      return rt;
    }, (err) => {
      full = null;
      throw err;
    });
    return full;
  }

  /** Stores `obj` as an object of class `cls`: {handle, ...its declared snapshot properties}. */
  function store(obj, cls) {
    const handle = nextHandle++;
    handles.set(handle, { obj, cls });
    const info = { handle };
    for (const [name, spec] of Object.entries(membersOf(cls))) {
      if (spec.kind === 'snapshot') info[name] = typeof obj[name] === 'function' ? obj[name]() : obj[name];
    }
    return info;
  }

  /**
   * {obj, cls, spec} of a request's target and its declared member of `kind`: an object by handle, or the runtime —
   * the full one, loaded first, for a member the light module does not serve.
   */
  async function target(msg, kind) {
    const entry = msg.handle == null ? { obj: runtime, cls: 'Blockscope' } : handles.get(msg.handle);
    if (!entry) throw new Error(`handle ${msg.handle} does not exist (disposed?)`);
    const spec = declared(entry.cls, msg.method, kind);
    if (msg.handle == null && !spec.light) return { cls: entry.cls, spec, obj: await fullRuntime() };
    return { ...entry, spec };
  }

  // The long jobs, by class and method.
  const streams = {
    async 'GPT.generate'(gpt, msg) {
      const [prompt, options] = msg.args ?? [];
      const tokens = [];
      let stopReason = 'cancelled';
      const it = gpt.generate(prompt, options);
      for (;;) {
        if (cancelled.delete(msg.id)) {
          it.return();
          break;
        }
        const step = it.next();
        if (step.done) {
          stopReason = step.value.stopReason;
          break;
        }
        tokens.push(step.value.token);
        post({ id: msg.id, event: 'token', data: step.value });
        await yieldToEvents(); // lets a 'cancel' message arrive
        // Paused (the page runs a sequence of calls on this model, e.g. an explorer's passes after an edit): wait here,
        // between two tokens, until it resumes or cancels.
        if (paused.has(msg.id)) await new Promise((resolve) => paused.set(msg.id, resolve));
      }
      paused.delete(msg.id);
      return { tokens, stopReason };
    },
    // The core's training loop (Trainer.run), one micro-batch or evaluation per piece, yielding between pieces.
    async 'Trainer.train'(trainer, msg) {
      const run = trainer.run(msg.args?.[0] ?? {});
      for (;;) {
        if (cancelled.delete(msg.id)) trainer.cancel(); // ends the run once the update under way is done
        const piece = run.next();
        if (piece.done) return { ...piece.value, stepsDone: trainer.stepsDone };
        if (piece.value) post({ id: msg.id, event: 'step', data: piece.value });
        await yieldToEvents(); // serves a 'cancel' or another object's call between pieces
      }
    },
  };

  for (const [cls, entry] of Object.entries(API)) {
    for (const [name, spec] of Object.entries(entry.members)) {
      if (spec.kind === 'stream' && !streams[`${cls}.${name}`]) throw new Error(`runtime-host.js cannot run ${cls}.${name}`);
    }
  }

  const ops = {
    async init(msg) {
      loadOptions = msg.options ?? {};
      runtime = await loadBlockscope({ ...loadOptions, module: lightFirst ? 'light' : 'full' });
      if (!lightFirst) full = Promise.resolve(runtime);
      return { flavour: runtime.flavour, build: runtime.buildInfo(), marks: exportMarks() };
    },
    async call(msg) {
      const { obj } = await target(msg, 'call');
      return obj[msg.method](...(msg.args ?? []));
    },
    async create(msg) {
      const { obj, spec } = await target(msg, 'create');
      const args = [...(msg.args ?? [])];
      if (spec.events) { // the page's callbacks become events it hears
        const options = { ...(args[spec.options] ?? {}) };
        for (const [event, key] of Object.entries(spec.events)) options[key] = (data) => post({ id: msg.id, event, data });
        args[spec.options] = options;
      }
      if (!spec.async || spec.options == null) return store(await obj[msg.method](...args), spec.returns);
      // The page's AbortSignal arrives as a 'cancel' of this request.
      const controller = new AbortController();
      aborts.set(msg.id, controller);
      args[spec.options] = { ...(args[spec.options] ?? {}), signal: controller.signal };
      try {
        return store(await obj[msg.method](...args), spec.returns);
      } finally {
        aborts.delete(msg.id);
      }
    },
    async stream(msg) {
      const { obj, cls } = await target(msg, 'stream');
      return streams[`${cls}.${msg.method}`](obj, msg);
    },
    cancel(msg) {
      if (aborts.has(msg.target)) aborts.get(msg.target).abort();
      else cancelled.add(msg.target);
      wake(msg.target);
      return true;
    },
    pause(msg) {
      if (!paused.has(msg.target)) paused.set(msg.target, null);
      return true;
    },
    resume(msg) {
      wake(msg.target);
      return true;
    },
    dispose(msg) {
      handles.get(msg.handle)?.obj.dispose();
      handles.delete(msg.handle);
      return true;
    },
  };

  return async (msg) => {
    try {
      const op = Object.hasOwn(ops, msg?.op) ? ops[msg.op] : null;
      if (!op) throw new Error(`unknown operation '${msg?.op}'`);
      if (msg.op !== 'init' && !runtime) throw new Error('the runtime is not initialized');
      const result = await op(msg);
      post({ id: msg.id, ok: true, result }, transferables(result));
    } catch (err) {
      post({ id: msg.id, ok: false, error: err?.message ?? String(err), name: err?.name ?? 'Error' });
    }
  };
}
