// models.js — the classes web/runtime/blockscope.js hands out for models and components: GPT (forward pass,
// inspection, generation, gradients, saving), one transformer block, multi-head attention, the feed-forward
// network and tokenizers. Each wraps a wasm object that blockscope.js created; none loads the module.
import { BaseHandle, copyBlockInspection, copyNorm, Handle, jsonText, num, toFloat32, toIds } from './handles.js';
import { Trainer } from './training.js';
import { tokenText } from './token-text.js';

// A generation dropped half-way (its iterator neither finished nor returned) is freed when the iterator is collected.
const openGenerations = new FinalizationRegistry(({ raw, open }) => {
  if (open.delete(raw)) raw.delete();
});

/**
 * The iterator GPT.generate() returns: one token per next(), {stopReason} as its return value. Its wasm Generator
 * (and KV cache) is freed when it finishes, when the caller stops early (return(), a `break` out of for…of),
 * when its GPT is disposed, or — if the caller just drops it — when it is garbage-collected.
 */
class Generation {
  #gpt;
  #raw;
  #open;
  #index = 0;
  constructor(gpt, raw, open) {
    this.#gpt = gpt;
    this.#raw = raw;
    this.#open = open;
    open.add(raw);
    openGenerations.register(this, { raw, open }, this);
  }
  next() {
    if (!this.#raw) return { done: true, value: undefined };
    try {
      // The wasm Generator refers to this GPT's weights: never step it once the GPT is gone.
      if (this.#gpt.disposed) throw new Error('the GPT was disposed during generation');
      const token = this.#raw.next();
      // sliding: the context was full, so this token came from a full pass over the last context_length tokens.
      if (token >= 0) return { done: false, value: { token, index: this.#index++, sliding: this.#raw.sliding() } };
      const stopReason = this.#raw.stopReason();
      this.#close();
      return { done: true, value: { stopReason } };
    } catch (err) {
      this.#close();
      throw err;
    }
  }
  return(value) {
    this.#close();
    return { done: true, value };
  }
  throw(err) {
    this.#close();
    throw err;
  }
  [Symbol.iterator]() {
    return this;
  }
  #close() {
    const raw = this.#raw;
    if (!raw) return;
    this.#raw = null;
    openGenerations.unregister(this);
    if (this.#open.delete(raw)) raw.delete(); // (already freed if the GPT was disposed)
  }
}

/** A GPT model (the book's GPTModel): seeded random weights until parameters are loaded. */
export class GPT extends Handle {
  static apiName = 'GPT'; // minified bundles rename classes: messages use this
  /** The wasm Generators of this model's open generations (each holds a KV cache): freed with the model. */
  #generations = new Set();
  /** The config with the book's keys plus tie_weights and norm. */
  get config() {
    return this.raw.config();
  }
  /** 'f32' or 'int8' (loaded with loadModel(…, {weights: 'int8'}): inference-only, matrices in int8). */
  get weightFormat() {
    return this.raw.weightFormat();
  }
  /** Bytes the parameters occupy: 4 per float32 value, ~1.125 per int8 matrix value (codes + scales). */
  get parameterBytes() {
    return this.raw.parameterBytes();
  }
  /**
   * Forward pass.
   * @param {number[]|Int32Array|number[][]} ids one sequence or a batch of equal-length sequences
   * @param {{inspect?: boolean|{ffnHidden?: boolean, attention?: boolean}, lastOnly?: boolean,
   *   overflow?: 'error'|'crop'}} [options]
   *   inspect: also return the inspection recorded in the same pass (an object leaves out the large FFN
   *   hidden values or attention weights when false); lastOnly: return only each sequence's last-position
   *   logits (B, 1, vocab_size), all a next-token display needs; overflow: reject (default) sequences longer
   *   than the context, or read only their last context_length tokens (the core's cropping rule).
   * @returns {{logits: Float32Array, shape: number[], inspection?: object, cropped: number}} logits (B, T, vocab_size)
   *   for the T tokens read; cropped: how many leading tokens of each sequence were not
   */
  forward(ids, { inspect = false, lastOnly = false, overflow = 'error' } = {}) {
    let { ids: flat, B, T } = toIds(ids);
    // 'error': the core's forward refuses a sequence that does not fit; anything else goes to the core's rule.
    const cropped = overflow === 'error' ? 0 : this.raw.contextStart(T, String(overflow));
    if (cropped > 0) {
      const kept = new Int32Array(B * (T - cropped));
      for (let b = 0; b < B; b++) kept.set(flat.subarray(b * T + cropped, (b + 1) * T), b * (T - cropped));
      flat = kept;
      T -= cropped;
    }
    const V = this.config.vocab_size;
    const view = this.raw.forward(flat, B, T, !!inspect);
    let logits;
    if (lastOnly) {
      logits = new Float32Array(B * V);
      for (let b = 0; b < B; b++) logits.set(view.subarray(((b + 1) * T - 1) * V, (b + 1) * T * V), b * V);
    } else logits = view.slice();
    const result = { logits, shape: [B, lastOnly ? 1 : T, V], cropped };
    if (inspect) result.inspection = this.#inspection(inspect === true ? {} : inspect);
    return result;
  }
  #inspection({ ffnHidden = true, attention = true }) {
    const i = this.raw.inspection();
    return {
      B: i.B, T: i.T, C: i.C, H: i.H, NH: i.NH,
      layers: i.layers.map((b) => copyBlockInspection(b, { ffnHidden, attention })),
      finalNorm: copyNorm(i.finalNorm),
    };
  }
  /**
   * Logit lens of one sequence: every layer's residual stream (layer 0 the embeddings' output, layer l block l's
   * output) through the final LayerNorm and the output head. @returns {{logits: Float32Array, shape: number[],
   * probabilities?: Float32Array}} logits (n_layers + 1, T, vocab_size), the last layer's forward()'s; with
   * {target}, the target id's probability at every layer and position (n_layers + 1, T).
   */
  logitLens(ids, { target } = {}) {
    const { ids: flat, B, T } = toIds(ids);
    if (B !== 1) throw new Error(`the logit lens reads one sequence, got a batch of ${B}`);
    const view = this.raw.logitLens(flat);
    const out = { logits: view.slice(), shape: [this.config.n_layers + 1, T, this.config.vocab_size] };
    if (target !== undefined) out.probabilities = this.raw.lensProbabilities(num(target)).slice();
    return out;
  }
  /**
   * Ablates attention heads in every later pass (forward, logitLens, attribute, generate): each listed head's
   * output, before its block's output projection, zeroed (mode 'zero') or replaced by its mean over the positions
   * 0..t ('mean'; generation refuses it). Heads as 'block.head' strings or [block, head] pairs, 0-based; [] restores.
   */
  setHeadAblation(heads, { mode = 'zero' } = {}) {
    if (!Array.isArray(heads)) throw new Error('heads must be an array of "block.head" strings or [block, head] pairs');
    const text = heads.map((h) => (Array.isArray(h) ? `${h[0]}.${h[1]}` : String(h))).join(',');
    this.raw.setHeadAblation(text, String(mode));
  }
  /**
   * How much each input position drives the target id's logit (objective 'logit', default) or log-probability
   * ('logprob') at the last position: gradient x input of the position's embedding, summed over features, or
   * integrated gradients (method 'integrated-gradients', `steps` points from a zero embedding, default 32).
   * @returns {Float32Array} one value per position. Float32 weights only.
   */
  attribute(ids, target, options = {}) {
    const { ids: flat, B } = toIds(ids);
    if (B !== 1) throw new Error(`attribution reads one sequence, got a batch of ${B}`);
    return this.raw.attribute(flat, num(target), jsonText(options, 'attribution options')).slice();
  }
  /** 'pre' (GPT-2) or 'post' (original Transformer), keeping the weights. */
  setNormPlacement(placement) {
    this.raw.setNormPlacement(String(placement));
  }
  /**
   * Generates tokens after `prompt` with a KV cache, one per iteration (a synchronous generator: run it in
   * a Web Worker, or step it between frames, to keep a page responsive).
   * @param {number[]|Int32Array} prompt token ids
   * @param {{maxNewTokens?: number, temperature?: number, topK?: number, topP?: number, seed?: number,
   *          stopToken?: number|null, overflow?: 'error'|'crop'}} [options] temperature 0 is greedy;
   *   overflow: reject (default) or crop a prompt longer than the context, and stop or slide when it fills.
   *   Past the context the window slides: with learned position embeddings every kept token moves, so each new
   *   token is a full pass over the last context_length tokens (its `sliding` is true), not a KV-cache step.
   * @yields {{token: number, index: number, sliding: boolean}}
   * @returns {{stopReason: string}} 'max_new_tokens' | 'stop_token' | 'context_full' | 'cancelled'
   */
  generate(prompt, options = {}) {
    const { ids } = toIds(prompt);
    return new Generation(this, new this.#module.Generator(this.raw, ids, jsonText(options, 'generation options')),
      this.#generations);
  }
  /** Frees the model, its trainers and every generation still open on it. */
  dispose() {
    for (const raw of this.#generations) raw.delete();
    this.#generations.clear();
    super.dispose();
  }
  /**
   * The mean cross-entropy (nats per token) of the logits of `ids` against `targets` (same shape: one sequence
   * or an array of equal-length sequences), dropout off — an evaluation, without gradients.
   */
  loss(ids, targets) {
    const x = toIds(ids);
    const y = toIds(targets);
    if (y.B !== x.B || y.T !== x.T) throw new Error(`targets are ${y.B} x ${y.T}, the ids ${x.B} x ${x.T}`);
    return this.#module.loss(this.raw, x.ids, y.ids, x.B, x.T);
  }
  /**
   * The held-out loss of a token stream as `blockscope eval` computes it (the core's evaluate_tokens): `ids` cut
   * into non-overlapping windows of seqLen tokens (0, the default: the context length), the last one shorter,
   * each position predicting the next token; `batch` full windows per forward pass (default 8).
   * @returns {{loss: number, nats: number, tokens: number, windows: number}} mean nats per predicted token, their
   *   sum, the predicted tokens (all but the first) and the windows
   */
  evaluateTokens(ids, { seqLen, batch } = {}) {
    return this.#module.evaluateTokens(this.raw, toIds(ids).ids, jsonText({ seqLen, batch }, 'evaluation options'));
  }
  /**
   * The mean cross-entropy of the logits of `ids` against `targets` (same shape) and the gradient of every
   * parameter (dropout off): {loss, gradients: {name: Float32Array}}.
   */
  lossAndGradients(ids, targets) {
    const x = toIds(ids);
    const y = toIds(targets);
    if (y.B !== x.B || y.T !== x.T) throw new Error(`targets are ${y.B} x ${y.T}, the ids ${x.B} x ${x.T}`);
    const r = this.#module.lossAndGradients(this.raw, x.ids, y.ids, x.B, x.T);
    const gradients = {};
    for (const { name, data } of r.gradients) gradients[name] = data.slice();
    return { loss: r.loss, gradients };
  }
  /**
   * The model as a checkpoint: {config (config.json text), weights (model.safetensors bytes), layout}, in the
   * layout and tensor names it was loaded from (the book's for a model made from a config) unless `layout`
   * ('book' | 'huggingface') says otherwise.
   */
  save({ layout = '' } = {}) {
    const r = this.raw.save(String(layout));
    return { config: r.config, layout: r.layout, weights: r.weights.slice() };
  }
  /**
   * A trainer for this GPT, which it must not outlive (disposing the GPT disposes it). tokens: the training token ids
   * (and validationTokens, or config.val_fraction of tokens held out); config: TrainConfig's keys.
   * @returns {Trainer}
   */
  createTrainer({ tokens, validationTokens = null, config = {} } = {}) {
    return Trainer._create(this, tokens, validationTokens, config);
  }
  /** @internal */
  get _module() {
    return this.#module;
  }
  #module;
  /** @internal */
  static _create(module, raw) {
    const gpt = new GPT(raw);
    gpt.#module = module;
    return gpt;
  }
}

/** One transformer block (pre- or post-norm), or the lesson's encoder block via its config keys. */
export class Block extends Handle {
  static apiName = 'Block'; // minified bundles rename classes: messages use this
  get config() {
    return this.raw.config();
  }
  /** x: (B, T, emb_dim) flat -> {output, inspection} */
  forward(x, B, T) {
    const r = this.raw.forward(toFloat32(x, 'block input'), num(B), num(T));
    return { output: r.output.slice(), inspection: copyBlockInspection(r.inspection) };
  }
  setNormPlacement(placement) {
    this.raw.setNormPlacement(String(placement));
  }
  /** Every step's values with mistake `id` where it fits (only at `atStep` if given): [{id, values}]. */
  mistake(id, x, B, T, { atStep = '' } = {}) {
    return this.raw.mistake(String(id), toFloat32(x, 'block input'), num(B), num(T), String(atStep))
      .map((s) => ({ id: s.id, values: s.values.slice() }));
  }
  /** The mistakes that can happen in this block at sequence length T, 'correct' first. */
  mistakes(T) {
    return this.raw.mistakes(num(T));
  }
}

/** The book's MultiHeadAttention module on its own. */
export class MultiHeadAttention extends Handle {
  static apiName = 'MultiHeadAttention'; // minified bundles rename classes: messages use this
  /** x: (B, T, d_in) flat -> {output (B, T, d_out), weights (B, NH, T, T)} */
  forward(x, B, T) {
    const r = this.raw.forward(toFloat32(x, 'attention input'), num(B), num(T));
    return { output: r.output.slice(), weights: r.weights.slice() };
  }
  /** The output as a learner's attention with mistake `id` computes it. */
  mistake(id, x, B, T) {
    return this.raw.mistake(String(id), toFloat32(x, 'attention input'), num(B), num(T)).slice();
  }
  /** The mistakes this attention can show, 'correct' first. */
  mistakes() {
    return this.raw.mistakes();
  }
}

/** Linear -> activation -> Linear with its hidden values. */
export class FeedForward extends Handle {
  static apiName = 'FeedForward'; // minified bundles rename classes: messages use this
  /** x: (rows, emb_dim) flat -> {output, hiddenPre, hiddenPost} */
  forward(x) {
    const r = this.raw.forward(toFloat32(x, 'feed-forward input'));
    return { output: r.output.slice(), hiddenPre: r.hiddenPre.slice(), hiddenPost: r.hiddenPost.slice() };
  }
  /** x (B, T, emb_dim) as a learner's FFN with mistake `id` computes it. */
  mistake(id, x, B, T) {
    return this.raw.mistake(String(id), toFloat32(x, 'feed-forward input'), num(B), num(T)).slice();
  }
  /** The mistakes that apply at sequence length T, 'correct' first. */
  mistakes(T) {
    return this.raw.mistakes(num(T));
  }
}

/** Text <-> token ids: GPT-2's byte-level BPE, or one id per byte. */
export class Tokenizer extends BaseHandle {
  static apiName = 'Tokenizer'; // minified bundles rename classes: messages use this
  #source;
  /** source: where its files came from (loadTokenizer: a model's own files), else null. */
  constructor(raw, source = null) {
    super(raw);
    this.#source = source;
  }
  /** 'gpt2' | 'bytes' | 'bytes+eot' | 'symbols' ('gpt2' for any GPT-2-format byte-level BPE, a model's own included) */
  get kind() {
    return this.raw.name();
  }
  /** What decode() puts between two tokens' texts: '' for the byte-level tokenizers, ' ' for symbols. */
  get separator() {
    return this.raw.separator();
  }
  /** Where a model's own tokenizer files came from (e.g. "https://…/vocab.json + merges.txt"), or null. */
  get source() {
    return this.#source;
  }
  get vocabSize() {
    return this.raw.vocabSize();
  }
  /** The id of <|endoftext|>, or null. */
  get eotId() {
    return this.raw.eotId();
  }
  /** Int32Array of token ids; "<|endoftext|>" in the text is the single eot id (symbols: whitespace-separated words). */
  encode(text) {
    if (typeof text !== 'string') throw new Error('text to encode must be a string');
    return this.raw.encode(text).slice();
  }
  /** The bytes the ids stand for. */
  decodeBytes(ids) {
    return this.raw.decodeBytes(toIds(ids).ids).slice();
  }
  /** The text the ids stand for (invalid UTF-8, e.g. half a character, becomes U+FFFD). */
  decode(ids) {
    return new TextDecoder('utf-8', { ignoreBOM: true }).decode(this.decodeBytes(ids));
  }
  /** Each token's own text, for display (token-text.js: bytes that are not valid UTF-8 on their own as <0xNN>). */
  tokenTexts(ids) {
    return Array.from(toIds(ids).ids, (id) => tokenText(this.raw.tokenBytes(id).slice()));
  }
}

