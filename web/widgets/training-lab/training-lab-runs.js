// training-lab-runs.js — the two training runs of <training-lab>: which setting a comparison changes between run A
// and run B, building each run's GPT and trainer in the worker (same createGPT seed, same trainer seed, so the same
// data order and, where the shapes agree, the same initial weights), training them in lockstep one step at a time
// (in parallel where the runtime put each GPT on its own worker; taking turns on one worker, which serves other
// widgets' calls in between), samples, and the stop rule a run is trained under (the core's training loop applies it
// and says when a run diverged; the spike markers are this widget's own display).
// No DOM: the widget (training-lab.js) draws what this records.
import { shippedUrl } from '../../runtime/locations.js';

/** Where the Brown corpus excerpt lives (web/data/brown/), from the source file and from the bundle in dist/ alike. */
export const DATA_URL = shippedUrl('../data/brown/', new URL('../data/brown/', import.meta.url)).href;

// Each run keeps its weights every CHECKPOINT_EVERY steps (from step 0), thinned to at most MAX_CHECKPOINTS so a
// long run stays within a few dozen MB; training-lab-checkpoints.js shows and hands them on.
export const CHECKPOINT_EVERY = 25;
export const MAX_CHECKPOINTS = 25;

/** Saves `run`'s current weights as a checkpoint (the step it has done), thinning older ones past the cap. */
export async function keepCheckpoint(run) {
  const step = run.stepsDone;
  if (!run.gpt || run.checkpoints.at(-1)?.step === step) return;
  const { config, weights } = await run.gpt.save({ layout: 'book' });
  run.checkpoints.push({ step, config, weights });
  if (run.checkpoints.length > MAX_CHECKPOINTS) {
    // Every other one goes (the first and the latest stay): the spacing doubles, the history still spans the run.
    run.checkpoints = run.checkpoints.filter((_, i, all) => i === 0 || i === all.length - 1 || i % 2 === 0);
  }
}

export const VOCAB = 256; // byte-level: a token is one UTF-8 byte
export const CONTEXT = 64;
export const BATCH = 8;
export const HEADS = 4;
export const EVAL_BATCHES = 4;
/** The loss of a uniform guess over the 256 bytes, ln 256 ≈ 5.55 nats: where every run starts. */
export const UNIFORM_LOSS = Math.log(VOCAB);
/** A step whose loss is this far above the uniform guess is a spike (marked; the run may recover from it). */
export const SPIKE_LOSS = UNIFORM_LOSS + 1;
/** A run whose loss stays above the uniform guess for this many steps in a row has diverged (and is stopped), as
 * has one with a step that is not finite. */
export const DIVERGED_STEPS = 20;
/** That rule as the core's training loop applies it (its stopAbove option), the first 5 steps not counted. */
export const STOP_RULE = { loss: UNIFORM_LOSS, steps: DIVERGED_STEPS, after: 5 };
/** The embeddings' gradient below this fraction of the head's: the lower layers no longer learn. */
export const VANISHED_RATIO = 1e-5;

export const SAMPLE_PROMPT = 'The jury said that ';
/** Low temperature with a fixed sampling seed: the same random draws for both runs and every sample (greedy decoding
 * of these small models only repeats "the the the"; a model that learned nothing but byte frequencies writes spaces). */
export const SAMPLE_OPTIONS = { maxNewTokens: 60, temperature: 0.6, seed: 42, overflow: 'crop' };

/**
 * The comparisons: each names run A's and run B's settings; everything else is shared. `gpt(shared)` returns the
 * GPT config keys a run sets, `warmup(shared)` the warmup steps it uses. The labels are the English names the
 * blockscope-ready event and Copy as PyTorch carry (locale-free); the widget shows the messages lab.comparison.<name>
 * and lab.run.<name>.a|b instead.
 */
export const COMPARISONS = {
  norm: {
    label: 'pre-norm vs post-norm',
    a: { label: 'pre-norm', gpt: () => ({ norm: 'pre' }) },
    b: { label: 'post-norm', gpt: () => ({ norm: 'post' }) },
  },
  ffn: {
    label: 'd_ff = 4·d_model vs 2·d_model',
    a: { label: 'd_ff = 4·d_model', gpt: (s) => ({ ffn_hidden: 4 * s.embDim }) },
    b: { label: 'd_ff = 2·d_model', gpt: (s) => ({ ffn_hidden: 2 * s.embDim }) },
  },
  activation: {
    label: 'GELU vs ReLU',
    a: { label: 'GELU', gpt: () => ({ activation: 'gelu_tanh' }) },
    b: { label: 'ReLU', gpt: () => ({ activation: 'relu' }) },
  },
  residual: {
    label: 'with vs without residual connections',
    a: { label: 'with residuals', gpt: () => ({ residual: true }) },
    b: { label: 'without residuals', gpt: () => ({ residual: false }) },
  },
  warmup: {
    label: 'post-norm: warmup vs none',
    a: { label: 'post-norm, warmup', gpt: () => ({ norm: 'post' }), warmup: (s) => s.warmup || Math.round(s.steps / 10) },
    b: { label: 'post-norm, no warmup', gpt: () => ({ norm: 'post' }), warmup: () => 0 },
  },
};

/** The GPT config of one side of a comparison (pre-norm, GELU, 4× FFN, residuals unless the side says otherwise). */
export function gptConfig(side, shared) {
  const config = {
    vocab_size: VOCAB, context_length: CONTEXT, emb_dim: shared.embDim, n_heads: HEADS, n_layers: shared.layers,
    drop_rate: 0, qkv_bias: false, tie_weights: false, norm: 'pre', activation: 'gelu_tanh', ...side.gpt(shared),
  };
  if (config.residual !== false) delete config.residual; // the core writes it only when false
  return config;
}

/** The trainer config of one side: the shared schedule (cosine decay to lr/10 over `steps`) with its warmup. */
export function trainConfig(side, shared) {
  return {
    steps: shared.steps, batch_size: BATCH, seq_len: CONTEXT, lr: shared.lr,
    warmup: Math.min(shared.steps, side.warmup ? side.warmup(shared) : shared.warmup),
    clip: 1, eval_batches: EVAL_BATCHES, seed: shared.seed,
  };
}

/** The corpus as bytes: {tokens, validationTokens} (Int32Array ids 0..255), fetched once per page. */
let corpus = null;
export function loadCorpus() {
  corpus ??= Promise.all(['train.txt', 'val.txt'].map(async (name) => {
    const res = await fetch(new URL(name, DATA_URL));
    if (!res.ok) throw Object.assign(new Error(`could not load the corpus ${name} (HTTP ${res.status})`), { corpusFile: name, httpStatus: res.status });
    return Int32Array.from(new Uint8Array(await res.arrayBuffer()));
  })).then(([tokens, validationTokens]) => ({ tokens, validationTokens }));
  corpus.catch(() => { corpus = null; });
  return corpus;
}

/** One run: its model and trainer in the worker and everything it reported. */
class Run {
  constructor(key, comparison, shared) {
    const side = COMPARISONS[comparison][key];
    this.key = key; // 'a' | 'b'
    this.comparison = comparison; // the widget shows the message lab.run.<comparison>.<key>
    this.label = side.label; // English, for events and Copy as PyTorch
    this.config = gptConfig(side, shared);
    this.train = trainConfig(side, shared);
    this.gpt = null;
    this.trainer = null;
    this.steps = []; // {step, loss, gradNorm, lr, finite}
    this.vals = []; // {step, valLoss}
    this.firstLayers = null; // [{name, norm}] of step 1
    this.layerAvg = null; // [{name, norm}]: a moving average (of the logarithms) over recent finite steps
    this.failed = null; // {step, reason: 'non-finite' | 'exploded'}: diverged, stopped
    this.spikes = []; // [{step, loss}] the first few steps with a loss above SPIKE_LOSS
    this.vanishedAt = null; // start of the current stretch with the embeddings' gradient below VANISHED_RATIO × the head's
    this.sample = null; // {step, bytes}
    this.checkpoints = []; // [{step, config, weights}] (training-lab-checkpoints.js)
  }

  get stepsDone() {
    return this.steps.at(-1)?.step ?? 0;
  }
  get finished() {
    return this.failed != null || this.stepsDone >= this.train.steps;
  }
  get lastVal() {
    return this.vals.at(-1) ?? null;
  }

  /**
   * Spikes are marked; whether the run diverged is the core's report (r.stop on the step that ended the run: a
   * non-finite step, or STOP_RULE's stretch worse than a uniform guess, which began at r.divergedAt).
   */
  checkDivergence(r) {
    if (this.failed) return;
    if (r.finite && r.step > STOP_RULE.after && r.loss > SPIKE_LOSS && this.spikes.length < 20) {
      this.spikes.push({ step: r.step, loss: r.loss });
    }
    if (r.stop === 'diverged') this.failed = { step: r.divergedAt, reason: 'non-finite' };
    else if (r.stop === 'loss_above') this.failed = { step: r.divergedAt, reason: 'exploded' };
  }

  /** Records one step's report; returns the event detail for blockscope-train-step. */
  record(r) {
    const entry = { step: r.step, loss: r.loss, gradNorm: r.gradNorm, lr: r.lr, finite: r.finite };
    this.steps.push(entry);
    if (r.valLoss != null && Number.isFinite(r.valLoss)) this.vals.push({ step: r.step, valLoss: r.valLoss });
    if (r.finite) {
      this.firstLayers ??= r.layerGradNorms;
      this.layerAvg = r.layerGradNorms.map(({ name, norm }, i) => {
        const prev = this.layerAvg?.[i]?.norm;
        return { name, norm: prev > 0 && norm > 0 ? Math.exp(0.7 * Math.log(prev) + 0.3 * Math.log(norm)) : norm };
      });
      // On the moving average, with a tenfold margin before it counts as recovered, so noise does not flicker it.
      const norm = (name) => this.layerAvg.find((l) => l.name === name)?.norm ?? NaN;
      const ratio = norm('embeddings') / norm('head');
      if (this.vanishedAt == null && ratio < VANISHED_RATIO) this.vanishedAt = r.step;
      else if (this.vanishedAt != null && ratio > 10 * VANISHED_RATIO) this.vanishedAt = null;
    }
    this.checkDivergence(r);
    const detail = { run: this.key, step: r.step, loss: r.loss, gradNorm: r.gradNorm, lr: r.lr, finite: r.finite };
    if (r.valLoss != null) detail.valLoss = r.valLoss;
    return detail;
  }
}

/**
 * Run A and run B of one comparison, trained in lockstep. Callbacks: onStep(run, detail) after each step,
 * onSample(run) when a new sample is in, onState(state) on 'playing' | 'paused' | 'done'.
 */
export class RunPair {
  constructor(client, data, { comparison, shared, evalEvery, sampleEvery }, callbacks) {
    this.comparison = comparison;
    this.client = client;
    this.data = data;
    this.shared = shared;
    this.evalEvery = evalEvery;
    this.sampleEvery = sampleEvery;
    this.cb = callbacks;
    this.runs = [new Run('a', comparison, shared), new Run('b', comparison, shared)];
    this.playing = false;
    this.loop = null;
    this.disposed = false;
    this.prompt = Array.from(new TextEncoder().encode(SAMPLE_PROMPT));
    this.changes = []; // [{step, lr, warmup, steps}]: schedules applied while the runs had trained (reschedule)
    this.gate = Promise.resolve(); // a reschedule under way: the loop waits for it before the next step
    this.inFlight = Promise.resolve(); // the step under way
    this.rate = { steps: 0, since: 0, perSecond: null }; // steps/s of both runs together
  }

  /** Creates both models (the same createGPT seed) and their trainers (the same trainer seed) in the worker. */
  async build() {
    for (const run of this.runs) {
      run.gpt = await this.client.createGPT(run.config, { seed: this.shared.seed });
      if (this.disposed) break;
      run.trainer = await run.gpt.createTrainer({ ...this.data, config: run.train });
      if (this.disposed) break;
      await keepCheckpoint(run); // step 0: the untrained weights
    }
    if (this.disposed) await this.free();
    else await Promise.all(this.runs.map((run) => this.takeSample(run)));
  }

  get finished() {
    return this.runs.every((r) => r.finished);
  }

  /** Starts (or continues) training; resolves when paused or finished. */
  play() {
    if (this.disposed || this.finished) return this.loop ?? Promise.resolve();
    if (!this.playing) this.cb.onState?.('playing');
    this.playing = true;
    if (this.loop) return this.loop; // a pause still finishing its step: the loop sees `playing` again and goes on
    this.rate = { steps: 0, since: performance.now(), perSecond: this.rate.perSecond };
    this.loop = this.run().finally(() => {
      this.loop = null;
      if (this.playing && !this.disposed && !this.finished) {
        this.playing = false; // asked to play again just as the loop was ending
        this.play();
        return;
      }
      this.playing = false;
      if (!this.disposed) this.cb.onState?.(this.finished ? 'done' : 'paused');
    });
    return this.loop;
  }

  /**
   * Trains the runs one step at a time, in lockstep (the one behind first, so they stay so across pauses). Runs on
   * two workers (the runtime's pool gave each GPT its own) step at once, in parallel; runs on one worker take turns,
   * which leaves the worker free for other widgets' calls between two steps.
   */
  async run() {
    while (this.playing && !this.disposed) {
      let active = this.runs.filter((r) => !r.finished);
      if (active.every((r) => r.stepsDone === active[0].stepsDone)) {
        await this.gate; // a new schedule (reschedule) applies between two steps, both runs at the same step
        if (!this.playing || this.disposed) break;
        active = this.runs.filter((r) => !r.finished);
      }
      if (active.length === 0) break;
      const behind = Math.min(...active.map((r) => r.stepsDone));
      const parallel = new Set(active.map((r) => r.gpt.worker)).size === active.length;
      const next = active.filter((r) => r.stepsDone === behind).slice(0, parallel ? undefined : 1);
      // Settled, not all(): a failing run's error is thrown only once the other run's step is done too.
      this.inFlight = Promise.allSettled(next.map((run) => this.step(run)));
      const steps = await this.inFlight;
      const failed = steps.find((s) => s.status === 'rejected');
      if (failed) throw failed.reason;
    }
  }

  /** One step of `run`, then its checkpoint and sample when they are due. */
  async step(run) {
    await run.trainer.train({
      steps: 1, evalEvery: this.evalEvery, stopAbove: STOP_RULE,
      onStep: (r) => {
        const detail = run.record(r);
        this.countStep();
        this.cb.onStep?.(run, detail);
      },
    });
    const done = run.stepsDone;
    if (!this.disposed && (done % CHECKPOINT_EVERY === 0 || run.finished)) await keepCheckpoint(run);
    if (!this.disposed && run.failed == null && (done % this.sampleEvery === 0 || run.finished)) await this.takeSample(run);
  }

  countStep() {
    const now = performance.now();
    this.rate.steps++;
    const elapsed = now - this.rate.since;
    if (elapsed > 1500) {
      this.rate.perSecond = (1000 * this.rate.steps) / elapsed;
      this.rate = { steps: 0, since: now, perSecond: this.rate.perSecond };
    }
  }

  /** A low-temperature sample after the fixed prompt, as bytes (the widget shows bytes that are not UTF-8 as chips). */
  async takeSample(run) {
    if (!run.gpt || this.disposed) return;
    try {
      const { tokens } = await run.gpt.generate(this.prompt, SAMPLE_OPTIONS);
      run.sample = { step: run.stepsDone, bytes: Uint8Array.from(tokens) };
      this.cb.onSample?.(run);
    } catch (err) {
      if (!this.disposed) throw err;
    }
  }

  /**
   * Applies a new schedule — shared.lr, .warmup and .steps — to both runs from their next step on, while they keep
   * their weights, AdamW's moments and step count: between two steps each trainer is replaced by one with the new
   * config that loads the old one's optimizer state (the core draws step s's batches from (seed, s), so the data
   * order goes on unchanged). Both runs are at the same step then (the loop waits for the gate only when they are).
   * `steps` must exceed the steps done. Resolves once both trainers are replaced.
   */
  async reschedule(shared) {
    const previous = this.gate;
    let release;
    this.gate = new Promise((resolve) => { release = resolve; });
    try {
      await previous;
      let current;
      do { // the steps under way, until the loop waits at the gate (both runs at the same step)
        current = this.inFlight;
        await current;
      } while (current !== this.inFlight);
      if (this.disposed) return;
      this.shared = { ...this.shared, lr: shared.lr, warmup: shared.warmup, steps: shared.steps };
      const step = Math.min(...this.runs.map((r) => r.stepsDone));
      let changed = false;
      for (const run of this.runs) changed = (await this.retrain(run)) || changed;
      if (changed && step > 0) this.changes.push({ step, lr: this.shared.lr, warmup: this.shared.warmup, steps: this.shared.steps });
    } finally {
      release();
    }
  }

  /** Replaces `run`'s trainer by one with the current schedule, AdamW's state carried over; false if it has it. */
  async retrain(run) {
    const train = trainConfig(COMPARISONS[this.comparison][run.key], this.shared);
    if (!run.trainer || Object.keys(train).every((k) => train[k] === run.train[k])) return false;
    const state = await run.trainer.saveOptimizerState();
    await run.trainer.dispose();
    run.trainer = null;
    run.trainer = await run.gpt.createTrainer({ ...this.data, config: train });
    await run.trainer.loadOptimizerState(state);
    run.train = train;
    return true;
  }

  /** Stops after the step in progress; resolves once both runs are idle. */
  async pause() {
    this.playing = false;
    await this.loop?.catch(() => {}); // a failure is reported where play() was called
  }

  /** Pauses and frees both models and trainers in the worker. */
  async dispose() {
    if (this.disposed) return;
    this.playing = false;
    this.disposed = true;
    await this.loop?.catch(() => {});
    await this.free();
  }

  async free() {
    const held = this.runs.map((r) => [r.trainer, r.gpt]);
    for (const run of this.runs) run.trainer = run.gpt = null;
    // The trainer before its GPT (disposing a GPT would free its trainer behind the worker's handle table).
    await Promise.all(held.map(async ([trainer, gpt]) => {
      await trainer?.dispose().catch(() => {});
      await gpt?.dispose().catch(() => {});
    }));
  }
}
