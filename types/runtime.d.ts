// Types of `blockscope/runtime` (web/runtime/blockscope.js): the WebAssembly runtime in the calling thread (pages,
// Web Workers, Node, bundlers). Arrays it returns are copies the caller owns.

export type Flavour = 'simd' | 'baseline';
export type FloatArray = Float32Array | ArrayLike<number>;
/** One sequence of token ids, or a batch of equal-length sequences. */
export type TokenIds = Int32Array | ArrayLike<number> | ArrayLike<number>[];
export type NormPlacement = 'pre' | 'post';
export type ActivationKind = 'gelu_tanh' | 'gelu_erf' | 'relu' | 'tanh';

export interface LoadOptions {
  /** 'auto' (default) picks 'simd' when the engine supports SIMD128. */
  flavour?: 'auto' | Flavour;
  /** The directory holding blockscope-<flavour>.js/.wasm (default: ./dist/ next to blockscope.js). */
  baseUrl?: string | URL;
}

/** Loads (once per flavour and base URL) and returns the runtime. */
export function loadBlockscope(options?: LoadOptions): Promise<Blockscope>;
/** True if this engine supports WebAssembly SIMD128. */
export function simdSupported(): boolean;

/** A GPT config with the book's keys (GPT_CONFIG_124M) plus Blockscope's. */
export interface GPTConfig {
  vocab_size: number;
  context_length: number;
  emb_dim: number;
  n_heads: number;
  n_layers: number;
  drop_rate?: number;
  qkv_bias?: boolean;
  tie_weights?: boolean;
  norm?: NormPlacement;
  ffn_hidden?: number;
  activation?: ActivationKind;
  [key: string]: unknown;
}

/** TrainConfig's keys (defaults filled in by the core). */
export interface TrainConfig {
  steps?: number; batch_size?: number; seq_len?: number; grad_accum?: number;
  lr?: number; min_lr?: number; warmup?: number; weight_decay?: number; decay_all?: boolean;
  beta1?: number; beta2?: number; eps?: number; clip?: number;
  val_fraction?: number; eval_batches?: number; seed?: number;
  [key: string]: unknown;
}

export interface LayerNormResult {
  rows: number; dim: number;
  mean: Float32Array; variance: Float32Array; rstd: Float32Array;
  normalized: Float32Array; output: Float32Array;
}
export interface Candidate { id: number; logit: number; probability: number }
export interface FeedForwardCosts { parameters: number; flopsPerToken: number; hiddenEntries: number }
export interface BlockParameters { attention: number; feedForward: number; norms: number; total: number }
/** malloc'd bytes in use, the wasm memory size, and the wasm stack pointer (constant unless the stack leaks). */
export interface MemoryStats { allocatedBytes: number; heapBytes: number; stackPointer: number }

/**
 * An error the Blockscope core reported (a config it refuses, a token id outside the vocabulary, a model that
 * does not fit its budget...). The module stays usable after any number of them.
 */
export class BlockscopeError extends Error {
  name: 'BlockscopeError';
}
export interface ParameterInfo {
  name: string;
  shape: number[];
  /** 'int8' for a matrix stored as int8 (loadModel(…, {weights: 'int8'})): getParameter refuses it. */
  format?: 'int8';
}

/** Statistics of one LayerNorm's input and output (per token). */
export interface NormInspection { [key: string]: Float32Array | number | unknown }
/** What one block recorded during a forward pass (norm statistics, FFN values, attention weights, steps). */
export interface BlockInspection {
  norm1: NormInspection;
  norm2: NormInspection;
  attn_weights?: Float32Array;
  residual_norm?: Float32Array;
  steps?: unknown[];
  [key: string]: unknown;
}
export interface ForwardInspection {
  B: number; T: number; C: number; H: number; NH: number;
  layers: BlockInspection[];
  finalNorm: NormInspection;
}
export interface ForwardOptions {
  /** Also return the inspection recorded in the same pass (false leaves out FFN hidden values / attention). */
  inspect?: boolean | { ffnHidden?: boolean; attention?: boolean };
  /** Only each sequence's last-position logits: shape (B, 1, vocab_size). */
  lastOnly?: boolean;
}
export interface ForwardResult {
  /** (B, T, vocab_size), row-major. */
  logits: Float32Array;
  shape: [number, number, number];
  inspection?: ForwardInspection;
}
export interface GenerateOptions {
  maxNewTokens?: number;
  /** 0 is greedy. */
  temperature?: number;
  topK?: number;
  topP?: number;
  seed?: number;
  stopToken?: number | null;
  overflow?: 'error' | 'crop';
}
export type StopReason = 'max_new_tokens' | 'stop_token' | 'context_full' | 'cancelled';
export interface Checkpoint { config: string; weights: Uint8Array; layout: string }
export interface StepResult {
  step: number; loss: number; gradNorm: number; lr: number; finite: boolean;
  layerGradNorms: { name: string; norm: number }[];
  /** Validation loss, on evaluation steps of train(). */
  valLoss?: number;
}
export interface LoadProgress { loaded: number; total: number }
export interface LoadModelOptions {
  onProgress?: (progress: LoadProgress) => void;
  /** Models whose float32 weights exceed this (default 1 GiB) are refused before they are downloaded. */
  maxParameterBytes?: number;
  /**
   * 'f32' (default) or 'int8': the token embedding and every Linear matrix quantized at load (one float32
   * scale per 32 int8 values, like llama.cpp's Q8_0) — under a third of the memory, faster decoding, logits
   * within a few hundredths; such a model is inference-only. Any other value is an Error naming it.
   */
  weights?: WeightFormat;
}
export type WeightFormat = 'f32' | 'int8';
/** A checkpoint directory URL, dropped files (config.json + model.safetensors), or contents. */
export type ModelSource =
  | { url: string | URL }
  | { files: File[] | FileList }
  | { config: string | object; weights: Uint8Array | ArrayBuffer };
export interface TokenizerOptions {
  kind?: 'gpt2' | 'bytes' | 'bytes+eot';
  /** encoder.json / vocab.json text */
  vocab?: string;
  /** vocab.bpe / merges.txt text */
  merges?: string;
  /** Where encoder.json + vocab.bpe are fetched from (default: tokenizers/gpt2/ next to the wasm). */
  baseUrl?: string | URL;
}

/** Base of every class wrapping a wasm object: dispose() (or `using`) frees it. */
export class BaseHandle {
  get disposed(): boolean;
  /** Frees the wasm-side object. Safe to call twice. */
  dispose(): void;
  [Symbol.dispose](): void;
}
/** A wasm object with named parameters. */
export class Handle extends BaseHandle {
  /** [{name, shape}] in state_dict order. */
  parameters(): ParameterInfo[];
  get numParameters(): number;
  setParameter(name: string, data: FloatArray): void;
  getParameter(name: string): Float32Array;
  loadParameters(params: Record<string, FloatArray>): void;
}

export class GPT extends Handle {
  get config(): GPTConfig;
  /** How the matrices are stored: 'int8' when loaded with {weights: 'int8'} (inference-only). */
  get weightFormat(): WeightFormat;
  /** Bytes the parameters occupy (4 per float32 value, ~1.125 per int8 matrix value). */
  get parameterBytes(): number;
  forward(ids: TokenIds, options?: ForwardOptions): ForwardResult;
  setNormPlacement(placement: NormPlacement): void;
  /** Generates with a KV cache, one token per iteration (synchronous). */
  generate(prompt: ArrayLike<number>, options?: GenerateOptions):
    Generator<{ token: number; index: number }, { stopReason: StopReason }, undefined>;
  /** Mean cross-entropy (nats per token) of ids against targets, dropout off. */
  loss(ids: TokenIds, targets: TokenIds): number;
  lossAndGradients(ids: TokenIds, targets: TokenIds): { loss: number; gradients: Record<string, Float32Array> };
  save(options?: { layout?: '' | 'book' | 'huggingface' }): Checkpoint;
}
export class Block extends Handle {
  get config(): Record<string, unknown>;
  /** x: (B, T, emb_dim) flat. */
  forward(x: FloatArray, B: number, T: number): { output: Float32Array; inspection: BlockInspection };
  setNormPlacement(placement: NormPlacement): void;
}
export class MultiHeadAttention extends Handle {
  /** x: (B, T, d_in) flat -> output (B, T, d_out), weights (B, NH, T, T). */
  forward(x: FloatArray, B: number, T: number): { output: Float32Array; weights: Float32Array };
}
export class FeedForward extends Handle {
  /** x: (rows, emb_dim) flat. */
  forward(x: FloatArray): { output: Float32Array; hiddenPre: Float32Array; hiddenPost: Float32Array };
}
export class Tokenizer extends BaseHandle {
  get kind(): 'gpt2' | 'bytes' | 'bytes+eot';
  get vocabSize(): number;
  /** id of <|endoftext|>, or null */
  get eotId(): number | null;
  encode(text: string): Int32Array;
  decodeBytes(ids: ArrayLike<number>): Uint8Array;
  decode(ids: ArrayLike<number>): string;
  /** The display text of each token. */
  tokenTexts(ids: ArrayLike<number>): string[];
}
export class Trainer extends BaseHandle {
  get config(): TrainConfig;
  get stepsDone(): number;
  /** Bytes of activations, gradients and AdamW's moments. */
  get memoryBytes(): number;
  /** One update on sampled batches, or on the caller's {ids, targets}. */
  step(batch?: { ids: TokenIds; targets: TokenIds }): StepResult;
  beginStep(): void;
  accumulate(): boolean;
  finishStep(): StepResult;
  train(options?: { steps?: number; evalEvery?: number; onStep?: (r: StepResult) => boolean | void }):
    { results: StepResult[]; stopped: boolean };
  evaluate(): number;
  saveOptimizerState(): Uint8Array;
  loadOptimizerState(bytes: Uint8Array | ArrayBuffer): void;
  get gpt(): GPT;
}
export interface ResidualMLPConfig {
  depth?: number; dim?: number; activation?: string; residual?: boolean; layer_norm?: boolean; init_std?: number;
}
/** The residual-gradient-flow network of the lesson. */
export class ResidualMLP extends Handle {
  get config(): ResidualMLPConfig;
  /** x: (B, dim) flat -> y (B, dim). */
  forward(x: FloatArray, B: number): Float32Array;
  /** Backpropagates y.sum(); each layer's weight-gradient norm, layer 1 first. */
  backwardSum(): Float32Array;
  getGradient(name: string): Float32Array;
}

/** The loaded runtime. */
export class Blockscope {
  readonly flavour: Flavour;
  layerNorm(x: FloatArray, options?: { gamma?: FloatArray; beta?: FloatArray; eps?: number; dim?: number }): LayerNormResult;
  activation(kind: ActivationKind, x: FloatArray): Float32Array;
  activationDerivative(kind: ActivationKind, x: FloatArray): Float32Array;
  /** GELU with F.gelu's naming: 'tanh' (default) or 'none' (exact erf). */
  gelu(x: FloatArray, options?: { approximate?: 'tanh' | 'none' }): Float32Array;
  topCandidates(logits: FloatArray, options?: { k?: number; temperature?: number }): Candidate[];
  countParameters(config: GPTConfig): number;
  createGPT(config: GPTConfig, options?: { seed?: number }): GPT;
  createTrainer(gpt: GPT, options: { tokens: ArrayLike<number>; validationTokens?: ArrayLike<number> | null; config?: TrainConfig }): Trainer;
  createResidualMLP(config?: ResidualMLPConfig, options?: { seed?: number }): ResidualMLP;
  createBlock(config: Record<string, unknown>, options?: { seed?: number }): Block;
  createAttention(config: Record<string, unknown>, options?: { seed?: number }): MultiHeadAttention;
  createFeedForward(options: { embDim: number; hiddenDim?: number; expansion?: number; activation?: ActivationKind; seed?: number }): FeedForward;
  feedForwardCosts(options: { embDim: number; hiddenDim?: number; expansion?: number; batch?: number; tokens?: number }): FeedForwardCosts;
  blockParameters(config: Record<string, unknown>): BlockParameters;
  createTokenizer(options?: TokenizerOptions): Promise<Tokenizer>;
  loadModel(source: ModelSource, options?: LoadModelOptions): Promise<GPT>;
  memoryStats(): MemoryStats;
  buildInfo(): Record<string, unknown>;
}
