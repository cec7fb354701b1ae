// runtime-host.js — serves Blockscope's runtime over messages: the body of the Web Worker (web/runtime/worker.js), and
// of the in-thread fallback when a page cannot start workers. The protocol, spoken with web/runtime/client.js:
//   page -> worker  {id, op: 'init'|'call'|'create'|'createTrainer'|'loadModel'|'generate'|'train'|'cancel'|
//                    'dispose', ...}
//   worker -> page  {id, ok: true, result} | {id, ok: false, error, name} | {id, event, data}
// Objects created here (GPT, Block, FeedForward, Trainer, ...) stay here and are addressed by handle number.
// Long jobs (generate, train) yield to the event loop after every token, and after every micro-batch of a
// training step, so a 'cancel', or another widget's forward pass, waits at most one micro-batch.
import { loadBlockscope } from './blockscope.js';
import { exportMarks } from './marks.js';

/**
 * Returns the message handler of one runtime host; `post(message, transfer)` sends replies and events.
 */
export function createHost(post) {
  const handles = new Map(); // handle -> wasm-backed object
  const cancelled = new Set(); // ids of generate requests the page cancelled
  let runtime = null;
  let nextHandle = 1;

  function transferables(value, list = []) {
    if (ArrayBuffer.isView(value)) list.push(value.buffer);
    else if (Array.isArray(value)) value.forEach((v) => transferables(v, list));
    else if (value && typeof value === 'object') Object.values(value).forEach((v) => transferables(v, list));
    return [...new Set(list)];
  }

  function reply(id, result) {
    post({ id, ok: true, result }, transferables(result));
  }

  function describe(handle, obj) {
    const info = { handle };
    if (typeof obj.parameters === 'function') {
      info.numParameters = obj.numParameters;
      info.parameters = obj.parameters();
    }
    if ('config' in obj) info.config = obj.config;
    if ('weightFormat' in obj) Object.assign(info, { weightFormat: obj.weightFormat, parameterBytes: obj.parameterBytes });
    if ('stepsDone' in obj) Object.assign(info, { stepsDone: obj.stepsDone, memoryBytes: obj.memoryBytes });
    if ('vocabSize' in obj) Object.assign(info, { kind: obj.kind, vocabSize: obj.vocabSize, eotId: obj.eotId });
    return info;
  }

  function store(obj) {
    const handle = nextHandle++;
    handles.set(handle, obj);
    return describe(handle, obj);
  }

  function target(handle) {
    if (handle == null) return runtime;
    const obj = handles.get(handle);
    if (!obj) throw new Error(`handle ${handle} does not exist (disposed?)`);
    return obj;
  }

  const yieldToEvents = () => new Promise((resolve) => setTimeout(resolve, 0));

  async function generate(msg) {
    const gpt = target(msg.handle);
    const tokens = [];
    let stopReason = 'cancelled';
    const it = gpt.generate(msg.prompt, msg.options);
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
    }
    return { tokens, stopReason };
  }

  async function train(msg) {
    const trainer = target(msg.handle);
    const { steps = 1, evalEvery = 0 } = msg.options ?? {};
    let done = 0;
    let reason = 'steps';
    while (done < steps) {
      if (cancelled.delete(msg.id)) {
        reason = 'cancelled';
        break;
      }
      // A step in micro-batch pieces (config.grad_accum of them), yielding between them too.
      trainer.beginStep();
      while (trainer.accumulate()) await yieldToEvents();
      const r = trainer.finishStep();
      done++;
      if (evalEvery > 0 && r.step % evalEvery === 0) r.valLoss = trainer.evaluate();
      post({ id: msg.id, event: 'step', data: r });
      if (!r.finite) {
        reason = 'diverged';
        break;
      }
      await yieldToEvents(); // serves a 'cancel' or another object's call between steps
    }
    return { steps: done, stepsDone: trainer.stepsDone, reason };
  }

  const ops = {
    async init(msg) {
      runtime = await loadBlockscope(msg.options ?? {});
      return { flavour: runtime.flavour, build: runtime.buildInfo(), marks: exportMarks() };
    },
    call(msg) {
      return target(msg.handle)[msg.method](...(msg.args ?? []));
    },
    async create(msg) {
      return store(await runtime[msg.method](...(msg.args ?? [])));
    },
    createTrainer(msg) {
      return store(runtime.createTrainer(target(msg.gpt), msg.options ?? {}));
    },
    async loadModel(msg) {
      const onProgress = (p) => post({ id: msg.id, event: 'progress', data: p });
      return store(await runtime.loadModel(msg.source, { ...msg.options, onProgress }));
    },
    generate,
    train,
    cancel(msg) {
      cancelled.add(msg.target);
      return true;
    },
    dispose(msg) {
      handles.get(msg.handle)?.dispose();
      handles.delete(msg.handle);
      return true;
    },
  };

  return async (msg) => {
    try {
      const op = ops[msg.op];
      if (!op) throw new Error(`unknown operation '${msg.op}'`);
      if (msg.op !== 'init' && !runtime) throw new Error('the runtime is not initialized');
      reply(msg.id, await op(msg));
    } catch (err) {
      post({ id: msg.id, ok: false, error: err?.message ?? String(err), name: err?.name ?? 'Error' });
    }
  };
}
