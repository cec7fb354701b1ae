// The data Blockscope's JavaScript API takes and returns: configs, options and results, shared by the calling-thread
// runtime (runtime.d.ts) and the page client (client.d.ts). The classes and their methods are generated from
// web/runtime/api.js by scripts/gen-api-types.mjs; these shapes are written by hand.

/** The wasm builds: 'simd-relaxed' (SIMD128 with relaxed-SIMD multiply-adds: fastest, last bits may differ between
 * machines), 'simd' (SIMD128, the same bits everywhere) and 'baseline' (no SIMD). */
export type Flavour = 'simd-relaxed' | 'simd' | 'baseline';
/** Which of a flavour's two builds: 'full', or 'light' (only the members api.js marks light; pages start on it). */
export type WasmModule = 'full' | 'light';
export type FloatArray = Float32Array | ArrayLike<number>;
/** One sequence of token ids, or a batch of equal-length sequences. */
export type TokenIds = Int32Array | ArrayLike<number> | ArrayLike<number>[];
export type NormPlacement = 'pre' | 'post';
export type ActivationKind = 'gelu_tanh' | 'gelu_erf' | 'relu' | 'tanh';
export type WeightFormat = 'f32' | 'int8';
export type TokenizerKind = 'gpt2' | 'bytes' | 'bytes+eot' | 'symbols';
export type CheckpointLayout = 'book' | 'huggingface';

/**
 * An error the Blockscope core reported (a config it refuses, a token id outside the vocabulary, a model that
 * does not fit its budget...). The runtime stays usable after any number of them.
 */
export class BlockscopeError extends Error {
  name: 'BlockscopeError';
}

export interface ConnectOptions {
  /** The worker script (default: the bundled or source worker next to the client). */
  workerUrl?: string | URL;
  /** As LoadOptions.flavour. */
  flavour?: 'auto' | Flavour;
  /** Run the runtime on the page's thread instead of a Web Worker. */
  inThread?: boolean;
  /** How many Web Workers the runtime may use: one per heavy job (a GPT that trains or generates), started as needed.
   * 'auto' (default): navigator.hardwareConcurrency − 1 (two on a two-core machine), at least 1 and at most 4; or a number from 1 to 16. */
  workers?: 'auto' | number;
  /** How long (ms) a worker may take to start before the in-thread fallback (default 10000). */
  workerTimeout?: number;
  /** Let loadModel and createTokenizer fetch from origins other than the page's and Blockscope's. */
  allowRemoteModels?: boolean;
  /** How long (ms) a visible page's worker may send nothing (it posts a sign of life every second) before it is
   * declared dead: pending calls are rejected and a new worker started (default 20000). */
  silentTimeout?: number;
}

/** Told why a worker stopped, where the runtime now runs and which worker of the pool it was (client.onRestart). */
export type RestartListener = (info: { reason: string; mode: 'worker' | 'in-thread'; worker: number }) => void;

/** GPT.logitLens: logits (n_layers + 1, T, vocab_size), layer 0 the embeddings' output. */
export interface LogitLens {
  logits: Float32Array;
  shape: [number, number, number];
  /** With {target}: softmax(lens)[target], (n_layers + 1, T). */
  probabilities?: Float32Array;
}
/** An attention head: 'block.head' (e.g. '1.0') or [block, head], 0-based. */
export type HeadRef = string | [number, number];
/** 'zero' sets a head's output to 0; 'mean' replaces it at position t by its mean over positions 0..t. */
export type HeadAblationMode = 'zero' | 'mean';
export interface AttributionOptions {
  /** 'grad-x-input' (default) or 'integrated-gradients' (from a zero embedding). */
  method?: 'grad-x-input' | 'integrated-gradients';
  /** Of the target's 'logit' (default) or its 'logprob'. */
  objective?: 'logit' | 'logprob';
  /** Integrated gradients' points alpha = k / steps (1 to 1024, default 32). */
  steps?: number;
}

export interface LoadOptions {
  /** 'auto' (default) picks 'simd-relaxed' where the engine supports relaxed SIMD, else 'simd' where it supports
   * SIMD128, else 'baseline'. A flavour the engine cannot run is an Error saying what it lacks. */
  flavour?: 'auto' | Flavour;
  /** The directory holding blockscope-glue.js and blockscope-[light-]<flavour>.wasm (default: ../dist/ next to the runtime). */
  baseUrl?: string | URL;
  /** 'full' (default), or 'light': a smaller module whose runtime refuses, by name, every member api.js does not mark
   * light (activations and LayerNorm on arrays are). */
  module?: WasmModule;
}

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
  val_fraction?: number; eval_batches?: number; window_stride?: number; seed?: number;
  [key: string]: unknown;
}
/** The token ids a trainer learns from: `validationTokens`, or config.val_fraction of `tokens` held out. */
export interface TrainerOptions {
  tokens: ArrayLike<number>;
  validationTokens?: ArrayLike<number> | null;
  config?: TrainConfig;
}
export interface StepResult {
  step: number; loss: number; gradNorm: number; lr: number; finite: boolean;
  layerGradNorms: { name: string; norm: number }[];
  /** Validation loss, on evaluation steps of train() / run(). */
  valLoss?: number;
  /** On the update a stop rule ended a run with: why, and the run's divergence (see RunDivergence). */
  stop?: 'diverged' | 'loss_above';
  divergedAt?: number; rolledBack?: boolean; weightsStep?: number;
}
/** The core's training loop (Trainer.run / train()): how many updates, when to evaluate, an optional stop rule. */
export interface TrainOptions {
  steps?: number;
  /** Validation loss every evalEvery steps (and after the schedule's last step, config.steps); 0: never. */
  evalEvery?: number;
  /** Stop once the loss stays above `loss` for `steps` updates in a row, not counting updates 1..after. */
  stopAbove?: { loss: number; steps: number; after?: number };
}
export type TrainStopReason = 'steps' | 'cancelled' | 'diverged' | 'loss_above';
/**
 * How a run that a rule stopped ended: divergedAt is the non-finite update ('diverged') or the first of the
 * stretch above the ceiling ('loss_above'); a non-finite loss puts the weights back to those after update
 * divergedAt - 2 (rolledBack); weightsStep is the update whose weights the model now holds.
 */
export interface RunDivergence { divergedAt: number; rolledBack: boolean; weightsStep: number }
export type RunOutcome = { reason: TrainStopReason; steps: number } & Partial<RunDivergence>;
/** A run in the worker: the run's outcome and the trainer's updates so far. */
export type TrainOutcome = RunOutcome & { stepsDone: number };
/** A token stream's held-out loss: mean nats per predicted token, their sum, the predicted tokens and windows. */
export interface HeldOutLoss { loss: number; nats: number; tokens: number; windows: number }

export interface LayerNormOptions { gamma?: FloatArray; beta?: FloatArray; eps?: number; dim?: number }
export interface LayerNormResult {
  rows: number; dim: number;
  mean: Float32Array; variance: Float32Array; rstd: Float32Array;
  normalized: Float32Array; output: Float32Array;
}
export interface Candidate { id: number; logit: number; probability: number }
export interface FeedForwardOptions { embDim: number; hiddenDim?: number; expansion?: number; activation?: ActivationKind; seed?: number }
export interface FeedForwardCostOptions { embDim: number; hiddenDim?: number; expansion?: number; batch?: number; tokens?: number; bias?: boolean }
export interface FeedForwardCosts { parameters: number; flopsPerToken: number; hiddenEntries: number }
export interface BlockParameters { attention: number; feedForward: number; norms: number; total: number }
export interface BlockFlops { feedForward: number; attentionProjections: number; attentionScores: number; ffnDominatesBelow: number }
/** malloc'd bytes in use, the wasm memory size, and the wasm stack pointer (constant unless the stack leaks). */
export interface MemoryStats {
  allocatedBytes: number;
  heapBytes: number;
  stackPointer: number;
  /** On the page's client: each running worker's stats (allocatedBytes and heapBytes above are their sums). */
  workers?: MemoryStats[];
}
export interface ParameterInfo {
  name: string;
  shape: number[];
  /** 'int8' for a matrix stored as int8 (loadModel(…, {weights: 'int8'})): getParameter refuses it. */
  format?: 'int8';
}

/** Statistics of one tensor over its channels, per token: mean and biased variance (B, T). */
export interface RowStats { mean: Float32Array; var: Float32Array }
/** A LayerNorm's input and output statistics. */
/** A learner's LayerNorm mistake, as core/include/blockscope/mistakes.hpp names it (stable ids). */
/** A learner's mistake (core/include/blockscope/mistakes.hpp; the guide lists what each means). */
export type MistakeId = 'correct' | 'wrong-axis' | 'unbiased-variance' | 'eps-outside-sqrt' | 'no-eps' | 'no-affine'
  | 'tanh-approximation' | 'exact-erf' | 'relu-instead-of-gelu' | 'no-activation' | 'across-sequence'
  | 'no-scale' | 'no-causal-mask' | 'softmax-wrong-axis' | 'no-attention-residual' | 'no-ffn-residual'
  | 'post-norm' | 'pre-norm';
export type MistakeSite = 'module' | 'layer-norm' | 'activation' | 'feed-forward' | 'attention' | 'wiring';
export interface MistakeInfo { id: MistakeId; site: MistakeSite }
export type BlockStepId = 'input' | 'norm1' | 'att' | 'add1' | 'norm2' | 'ff' | 'add2';
export interface BlockStepValues { id: BlockStepId; values: Float32Array }
export interface NormInspection { in: RowStats; out: RowStats }
/** A step of a block's forward pass, stable across placements and versions (the order depends on the placement). */
export type StepId = 'input' | 'norm1' | 'att' | 'drop1' | 'add1' | 'norm2' | 'ff' | 'drop2' | 'add2';
/** One operation of a block's forward pass (`op`: the book's wording) and the statistics of its output, per token. */
export interface StepInspection { id: StepId; op: string; mean: Float32Array; var: Float32Array; norm: Float32Array }
/** What one block recorded during a forward pass. */
export interface BlockInspection {
  steps: StepInspection[];
  norm1: NormInspection;
  norm2: NormInspection;
  /** (B, T) L2 norm of the block's output (the residual stream). */
  residualNorm: Float32Array;
  /** (B, T, H) after the first Linear / after the activation (left out with inspect: {ffnHidden: false}). */
  ffnHiddenPre?: Float32Array;
  ffnHiddenPost?: Float32Array;
  /** (B, NH, T, T) softmax weights (left out with inspect: {attention: false}). */
  attnWeights?: Float32Array;
}
export interface ForwardInspection {
  B: number; T: number; C: number; H: number; NH: number;
  layers: BlockInspection[];
  finalNorm: NormInspection;
}
export interface ForwardOptions {
  /** Also return the inspection recorded in the same pass (an object leaves out FFN hidden values / attention). */
  inspect?: boolean | { ffnHidden?: boolean; attention?: boolean };
  /** Only each sequence's last-position logits: shape (B, 1, vocab_size). */
  lastOnly?: boolean;
  /** A sequence longer than the context: rejected ('error', default) or read from its last context_length tokens. */
  overflow?: 'error' | 'crop';
}
export interface ForwardResult {
  /** (B, T, vocab_size), row-major. */
  logits: Float32Array;
  shape: [number, number, number];
  inspection?: ForwardInspection;
  /** How many leading tokens of each sequence the pass did not read (overflow 'crop'); 0 when they fit. */
  cropped: number;
}
export interface GenerateOptions {
  maxNewTokens?: number;
  /** 0 is greedy. */
  temperature?: number;
  topK?: number;
  topP?: number;
  seed?: number;
  stopToken?: number | null;
  /** Reject (default) or crop a prompt longer than the context, and stop or slide when it fills. */
  overflow?: 'error' | 'crop';
}
export interface GeneratedToken { token: number; index: number }
export type StopReason = 'max_new_tokens' | 'stop_token' | 'context_full' | 'cancelled';
/** A checkpoint: config.json text, model.safetensors bytes and their layout. */
export interface Checkpoint { config: string; weights: Uint8Array; layout: CheckpointLayout }
export interface LoadProgress { loaded: number; total: number }
export interface LoadModelOptions {
  onProgress?: (progress: LoadProgress) => void;
  /**
   * Models whose float32 weights exceed this (default: the core's, 2 GiB, as the CLI) are refused before they are
   * downloaded; 0 refuses every model.
   */
  maxParameterBytes?: number;
  /**
   * 'f32' (default) or 'int8': the token embedding and every Linear matrix quantized at load (one float32 scale
   * per 32 int8 values, like llama.cpp's Q8_0) — under a third of the memory, faster decoding, logits within a few
   * hundredths; such a model is inference-only. Any other value is an Error naming it.
   */
  weights?: WeightFormat;
  /** Cancels the load (the download stops; nothing is kept). */
  signal?: AbortSignal;
  /** Milliseconds a download may go without receiving a byte before it is stopped (default 30000). */
  stallTimeout?: number;
}
/** A checkpoint directory URL, dropped files (config.json + model.safetensors), or contents. */
export type ModelSource =
  | { url: string | URL }
  | { files: File[] | FileList }
  | { config: string | object; weights: Uint8Array | ArrayBuffer };
/** Besides the model's source, what loadTokenizer may be told of its tokenizer files. */
export interface TokenizerFilesSource {
  /** The tokenizer files' text (vocab.json + merges.txt, or tokens.json), instead of looking next to the model. */
  tokenizer?: { vocab: string; merges: string } | { tokens: string };
  /** false: the model has no tokenizer files (no request is made for them). */
  tokenizerFiles?: boolean;
}
export interface LoadTokenizerOptions {
  /** The model's vocab_size: picks the default tokenizer, and bounds a tokenizer's ids. */
  vocabSize: number;
  /** Cancels the downloads. */
  signal?: AbortSignal;
  /** Milliseconds a download may go without receiving a byte before it is stopped (default 30000). */
  stallTimeout?: number;
}
export interface TokenizerOptions {
  kind?: TokenizerKind;
  /** encoder.json / vocab.json text */
  vocab?: string;
  /** vocab.bpe / merges.txt text */
  merges?: string;
  /** tokens.json text, for kind 'symbols': a JSON array of distinct symbols, id = index */
  tokens?: string;
  /** Where encoder.json + vocab.bpe are fetched from (default: tokenizers/gpt2/ next to the wasm). */
  baseUrl?: string | URL;
}
export interface ResidualMLPConfig {
  depth?: number; dim?: number; activation?: string; residual?: boolean; layer_norm?: boolean; init_std?: number;
}
