// training.js — training classes web/runtime/blockscope.js hands out: a Trainer over a GPT (steps on sampled or given
// batches, evaluation, optimizer state) and the lesson's residual-gradient-flow network. They wrap wasm
// objects created through the GPT's module; none loads the module itself.
import { BaseHandle, checkedBuffer, Handle, jsonText, num, toFloat32, toIds } from './handles.js';

function int32(ids, what) {
  ids = checkedBuffer(ids, what);
  if (ids instanceof Int32Array) return ids;
  if (!Array.isArray(ids) && !ArrayBuffer.isView(ids)) throw new Error(`${what} must be an array of token ids`);
  return toIds(ids).ids;
}

/**
 * {step, loss, gradNorm, lr, finite, layerGradNorms: [{name, norm}]} as plain numbers, plus what a training run
 * adds: valLoss when evaluated, and {stop, divergedAt, rolledBack, weightsStep} on the update a rule ended it with.
 */
function stepResult(r) {
  const out = {
    step: r.step, loss: r.loss, gradNorm: r.gradNorm, lr: r.lr, finite: r.finite,
    layerGradNorms: r.layerGradNorms.map(({ name, norm }) => ({ name, norm })),
  };
  for (const key of ['valLoss', 'stop', 'divergedAt', 'rolledBack', 'weightsStep']) if (key in r) out[key] = r[key];
  return out;
}

/**
 * Trains a GPT: forward, backward, gradient accumulation, clipping and AdamW with warmup + cosine decay, all
 * in the core. Obtain one with Blockscope.createTrainer(gpt, {tokens, config}); disposing the GPT disposes it.
 */
export class Trainer extends BaseHandle {
  static apiName = 'Trainer'; // minified bundles rename classes: messages use this
  /** @internal */
  static _create(gpt, tokens, validationTokens, config) {
    const module = gpt._module;
    const raw = new module.Trainer(gpt.raw, jsonText(config, 'training config'), int32(tokens, 'tokens'),
      validationTokens == null ? null : int32(validationTokens, 'validationTokens'));
    const trainer = new Trainer(raw);
    trainer.#gpt = gpt;
    trainer.#module = module;
    return trainer._ownedBy(gpt);
  }
  #gpt;
  #module;

  /** The full training config (defaults filled in). */
  get config() {
    return this.raw.config();
  }
  /** Updates done so far. */
  get stepsDone() {
    return this.raw.stepsDone();
  }
  /** Bytes held for training: activations, gradients and AdamW's two moments. */
  get memoryBytes() {
    return this.raw.memoryBytes();
  }
  /**
   * One update. Without arguments on freshly sampled batches (seeded); with {ids, targets} on the caller's
   * batch: grad_accum x batch_size rows of seq_len ids (arrays of rows, or flat Int32Arrays).
   * A non-finite loss or gradient returns finite: false and leaves the weights as they were.
   * @returns {{step: number, loss: number, gradNorm: number, lr: number, finite: boolean,
   *            layerGradNorms: {name: string, norm: number}[]}}
   */
  step(batch) {
    if (batch == null) return stepResult(this.raw.step());
    return stepResult(this.raw.stepBatch(int32(batch.ids, 'ids'), int32(batch.targets, 'targets')));
  }
  /**
   * One sampled update in pieces, for code that must stay responsive: beginStep(), then accumulate() (the
   * forward and backward pass of one micro-batch) while it returns true, then finishStep() (clipping and the
   * update) -> the step() result. With config.grad_accum > 1 the pieces are that many micro-batches.
   */
  beginStep() {
    this.raw.beginStep();
  }
  accumulate() {
    return this.raw.accumulate();
  }
  finishStep() {
    return stepResult(this.raw.finishStep());
  }
  /**
   * The core's training loop (the CLI's): `steps` updates in pieces, one micro-batch (or one evaluation) per
   * iteration, yielding null, or an update's result once it is complete — with valLoss every evalEvery steps and
   * after the schedule's last (config.steps). It stops early on a non-finite loss or gradient (putting back the
   * last weights that gave a finite loss), when the loss stays above stopAbove.loss for stopAbove.steps updates
   * in a row not counting the first stopAbove.after, or after cancel() (once the update under way is done).
   * Returns the iterator; its return value is {reason: 'steps' | 'cancelled' | 'diverged' | 'loss_above',
   * steps} (+ {divergedAt, rolledBack, weightsStep} when a rule stopped it).
   */
  run({ steps = 1, evalEvery = 0, stopAbove } = {}) {
    this.raw.beginRun(jsonText({ steps, evalEvery, stopAbove }, 'training options')); // now: a cancel() may follow
    return this.#pieces();
  }
  *#pieces() {
    while (!this.raw.runFinished()) {
      const r = this.raw.advance();
      yield r === null ? null : stepResult(r);
    }
    return this.raw.runOutcome();
  }
  /** Ends the run() under way once its current update (and that update's evaluation) is done. */
  cancel() {
    this.raw.cancelRun();
  }
  /**
   * Runs the core's training loop (see run()) synchronously — use the worker client to keep a page responsive —
   * calling onStep(result) after each update; onStep returning false stops it.
   * @returns {{results: object[], stopped: boolean, reason: string}} stopped: whether it ended before `steps`
   */
  train({ steps = 1, evalEvery = 0, stopAbove, onStep } = {}) {
    const results = [];
    const run = this.run({ steps, evalEvery, stopAbove });
    for (let s = run.next(); ; s = run.next()) {
      if (s.done) return { results, stopped: s.value.reason !== 'steps', ...s.value };
      if (s.value === null) continue;
      results.push(s.value);
      if (onStep?.(s.value) === false) this.cancel();
    }
  }
  /** Mean validation loss over config.eval_batches fixed batches (dropout off). */
  evaluate() {
    return this.raw.evaluate();
  }
  /** AdamW's m, v and step count as safetensors bytes. */
  saveOptimizerState() {
    return this.raw.saveOptimizerState().slice();
  }
  /** Restores saveOptimizerState()'s bytes. */
  loadOptimizerState(bytes) {
    const checked = checkedBuffer(bytes, 'the optimizer state');
    const data = checked instanceof Uint8Array ? checked : new Uint8Array(checked);
    const buffer = new this.#module.ByteBuffer(data.length);
    try {
      buffer.view().set(data);
      this.raw.loadOptimizerState(buffer);
    } finally {
      buffer.delete();
    }
  }
  /** The GPT this trainer updates. */
  get gpt() {
    return this.#gpt;
  }
}

/**
 * The residual-gradient-flow network of lesson 82 §21: `depth` Linear(dim, dim) layers with an activation,
 * with or without shortcuts (and optionally a LayerNorm inside each layer), and the gradient of y.sum().
 */
export class ResidualMLP extends Handle {
  static apiName = 'ResidualMLP'; // minified bundles rename classes: messages use this
  get config() {
    return this.raw.config();
  }
  /** x: (B, dim) flat -> y (B, dim) */
  forward(x, B) {
    return this.raw.forward(toFloat32(x, 'input'), num(B)).slice();
  }
  /** Backpropagates loss = y.sum() of the last forward; returns each layer's weight-gradient norm, layer 1 first. */
  backwardSum() {
    return this.raw.backwardSum().slice();
  }
  /** The gradient of parameter `name` after backwardSum(). */
  getGradient(name) {
    return this.raw.getGradient(String(name)).slice();
  }
}
