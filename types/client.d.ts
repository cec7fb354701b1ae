// Types of `blockscope/client` (web/runtime/client.js): the runtime's API, async, with the wasm in a Web Worker
// (or in the page's thread with {inThread: true}). What pages and widgets use.
import type {
  BlockInspection, BlockParameters, Candidate, Checkpoint, FeedForwardCosts, FloatArray, Flavour, ForwardOptions,
  ForwardResult, GenerateOptions, GPTConfig, LayerNormResult, LoadModelOptions, MemoryStats, ModelSource,
  NormPlacement, ParameterInfo, WeightFormat, ResidualMLPConfig, StepResult, StopReason, TokenIds, TokenizerOptions, TrainConfig,
} from './runtime.js';

/** Errors the core reports arrive from the worker as BlockscopeError (other failures as Error). */
export { BlockscopeError } from './runtime.js';

export interface ConnectOptions {
  /** The worker script (default: the bundled or source worker next to this module). */
  workerUrl?: string | URL;
  flavour?: 'auto' | Flavour;
  /** Run the runtime in the page's thread instead of a Web Worker. */
  inThread?: boolean;
}
/** Connects to the runtime (once per page and options). */
export function connect(options?: ConnectOptions): Promise<RuntimeClient>;

export class RuntimeClient {
  /** 'worker' or 'in-thread' */
  readonly mode: 'worker' | 'in-thread';
  readonly flavour: Flavour;
  layerNorm(x: FloatArray, options?: { gamma?: FloatArray; beta?: FloatArray; eps?: number; dim?: number }): Promise<LayerNormResult>;
  activation(kind: string, x: FloatArray): Promise<Float32Array>;
  activationDerivative(kind: string, x: FloatArray): Promise<Float32Array>;
  countParameters(config: GPTConfig): Promise<number>;
  topCandidates(logits: FloatArray, options?: { k?: number; temperature?: number }): Promise<Candidate[]>;
  memoryStats(): Promise<MemoryStats>;
  feedForwardCosts(options: { embDim: number; hiddenDim?: number; expansion?: number; batch?: number; tokens?: number }): Promise<FeedForwardCosts>;
  blockParameters(config: Record<string, unknown>): Promise<BlockParameters>;
  createGPT(config: GPTConfig, options?: { seed?: number }): Promise<RemoteGPT>;
  createBlock(config: Record<string, unknown>, options?: { seed?: number }): Promise<RemoteBlock>;
  createFeedForward(options: { embDim: number; hiddenDim?: number; expansion?: number; activation?: string; seed?: number }): Promise<RemoteFeedForward>;
  createResidualMLP(config?: ResidualMLPConfig, options?: { seed?: number }): Promise<RemoteResidualMLP>;
  createTokenizer(options?: TokenizerOptions): Promise<RemoteTokenizer>;
  loadModel(source: ModelSource, options?: LoadModelOptions): Promise<RemoteGPT>;
}

/** A wasm object living in the worker; dispose() frees it. */
declare class RemoteObject {
  handle: number | null;
  config: Record<string, unknown>;
  numParameters: number;
  parameters: ParameterInfo[];
  setParameter(name: string, data: FloatArray): Promise<void>;
  getParameter(name: string): Promise<Float32Array>;
  loadParameters(params: Record<string, FloatArray>): Promise<void>;
  dispose(): Promise<void>;
}
export type { RemoteObject };

export class RemoteGPT extends RemoteObject {
  /** 'f32', or 'int8' when loaded with loadModel(…, {weights: 'int8'}) (inference-only). */
  weightFormat: WeightFormat;
  /** Bytes the parameters take in wasm memory (int8 matrices count 1.125 bytes per value). */
  parameterBytes: number;
  config: GPTConfig;
  forward(ids: TokenIds, options?: ForwardOptions): Promise<ForwardResult>;
  setNormPlacement(placement: NormPlacement): Promise<void>;
  loss(ids: TokenIds, targets: TokenIds): Promise<number>;
  lossAndGradients(ids: TokenIds, targets: TokenIds): Promise<{ loss: number; gradients: Record<string, Float32Array> }>;
  save(options?: { layout?: '' | 'book' | 'huggingface' }): Promise<Checkpoint>;
  createTrainer(options: { tokens: ArrayLike<number>; validationTokens?: ArrayLike<number> | null; config?: TrainConfig }): Promise<RemoteTrainer>;
  /** Streams tokens to onToken; an AbortSignal cancels. */
  generate(prompt: ArrayLike<number>, options?: GenerateOptions,
    callbacks?: { onToken?: (t: { token: number; index: number }) => void; signal?: AbortSignal }):
    Promise<{ tokens: number[]; stopReason: StopReason }>;
}
export class RemoteTokenizer extends RemoteObject {
  kind: 'gpt2' | 'bytes' | 'bytes+eot';
  vocabSize: number;
  eotId: number | null;
  encode(text: string): Promise<Int32Array>;
  decode(ids: ArrayLike<number>): Promise<string>;
  decodeBytes(ids: ArrayLike<number>): Promise<Uint8Array>;
  tokenTexts(ids: ArrayLike<number>): Promise<string[]>;
}
export class RemoteBlock extends RemoteObject {
  forward(x: FloatArray, B: number, T: number): Promise<{ output: Float32Array; inspection: BlockInspection }>;
  setNormPlacement(placement: NormPlacement): Promise<void>;
}
export class RemoteFeedForward extends RemoteObject {
  forward(x: FloatArray): Promise<{ output: Float32Array; hiddenPre: Float32Array; hiddenPost: Float32Array }>;
}
export class RemoteResidualMLP extends RemoteObject {
  forward(x: FloatArray, B: number): Promise<Float32Array>;
  backwardSum(): Promise<Float32Array>;
  getGradient(name: string): Promise<Float32Array>;
}
export class RemoteTrainer extends RemoteObject {
  stepsDone: number;
  memoryBytes: number;
  readonly running: boolean;
  step(batch?: { ids: TokenIds; targets: TokenIds }): Promise<StepResult>;
  evaluate(): Promise<number>;
  saveOptimizerState(): Promise<Uint8Array>;
  loadOptimizerState(bytes: Uint8Array | ArrayBuffer): Promise<void>;
  /** Runs steps in the worker, streaming each result to onStep. */
  train(options?: { steps?: number; evalEvery?: number; onStep?: (r: StepResult) => void }):
    Promise<{ steps: number; stepsDone: number; reason: 'steps' | 'cancelled' | 'diverged' }>;
  pause(): Promise<void>;
  resume(): Promise<{ steps: number; stepsDone: number; reason: 'steps' | 'cancelled' | 'diverged' }>;
}
