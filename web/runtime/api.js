// api.js — the one declaration of Blockscope's JavaScript API: every class the runtime hands out, the properties a
// page's proxy receives with it, and each method's kind. Derived from it: what the worker host dispatches
// (runtime-host.js: declared methods only, by kind), the page client's Remote* proxies (client.js), and the
// TypeScript declarations types/runtime.d.ts and types/client.d.ts (scripts/gen-api-types.mjs writes them from this
// file's doc comments: the first lines are the doc, `@ts` the runtime signature, `@remote` the client's when it is
// not the runtime's made async). tests/web/api.test.mjs fails when the runtime classes, the proxies or the
// committed .d.ts files drift from it. Doc comments vanish from the minified bundles, so they cost no bytes.
//
// Kinds:
//   CALL     request and response; the page's proxy returns a Promise of the same result
//   create() returns a new runtime object of the named class, which stays in the worker (addressed by handle);
//            `events` name the callbacks in argument number `options` (an options object) that hear the worker's
//            events of that name (functions cannot cross to the worker: the page keeps them)
//   stream() a long job that reports as it goes (events) and can be cancelled; the host runs it in steps so
//            that other calls are served in between
//   RUNTIME  exists in the calling-thread runtime only (not served to pages)
//   CLIENT   exists on the page's proxy only (it never reaches the worker)
//   SNAPSHOT a property (or, on Handle, the parameters() list) read once when the object is created and sent with
//            its handle; on the page's proxy it is a plain property
//   DISPOSE  frees the object: in the worker through the host's handle table, never as a call
//   FUNCTION a function a module exports (MODULES)
//
// light(spec): the member is served by the light wasm module too (wasm/CMakeLists.txt builds it from the bindings these
// members need: activations and LayerNorm on arrays). A page's runtime host starts on the light module and loads the
// full one the first time a top-level member without this mark is called (runtime-host.js); a runtime loaded with
// loadBlockscope({module: 'light'}) refuses the unmarked ones by name. Only the runtime's own members carry it: an
// object's methods always run in the module that created it.
//
// A class marked `heavy` makes objects that train or generate (long jobs): the page client puts each new one created
// from the runtime on the worker of its pool holding the fewest (starting another worker when every one holds one),
// so two of them run on two cores (web/runtime/pool.js). Objects they create stay in their worker.

export const CALL = Object.freeze({ kind: 'call' });
export const RUNTIME = Object.freeze({ kind: 'runtime' });
export const CLIENT = Object.freeze({ kind: 'client' });
export const SNAPSHOT = Object.freeze({ kind: 'snapshot' });
export const DISPOSE = Object.freeze({ kind: 'dispose' });
export const FUNCTION = Object.freeze({ kind: 'function' });
export const create = (returns, { async = false, options = null, events = null } = {}) =>
  Object.freeze({ kind: 'create', returns, async, options, events });
export const stream = (event) => Object.freeze({ kind: 'stream', event });
export const light = (spec) => Object.freeze({ ...spec, light: true });

export const API = {
  BaseHandle: {
    members: {
      /** True once dispose() has freed the wasm-side object. @ts boolean */
      disposed: RUNTIME,
      /** Frees the wasm-side object (and, first, the objects that depend on it). Safe to call twice. @ts (): void
       * @remote (): Promise<void> */
      dispose: DISPOSE,
      /** The object's number in the worker's handle table (null once disposed). @ts number | null */
      handle: CLIENT,
      /** The index of the pool's worker the object lives in (0 in-thread): objects on one worker take turns, objects
       * on two run in parallel. @ts number */
      worker: CLIENT,
    },
  },
  Handle: {
    extends: 'BaseHandle',
    members: {
      /** [{name, shape}] in state_dict order. @ts (): ParameterInfo[] */
      parameters: SNAPSHOT,
      /** Parameters in all (int8 ones included). @ts number */
      numParameters: SNAPSHOT,
      /** Replaces parameter `name` with `data` (its length must match the shape). @ts (name: string, data: FloatArray): void */
      setParameter: CALL,
      /** A copy of parameter `name`. @ts (name: string): Float32Array */
      getParameter: CALL,
      /** Sets every parameter present in `params`. @ts (params: Record<string, FloatArray>): void */
      loadParameters: CALL,
    },
  },
  GPT: {
    extends: 'Handle',
    wasm: 'GPT',
    heavy: true,
    members: {
      /** The config with the book's keys plus tie_weights and norm. @ts GPTConfig */
      config: SNAPSHOT,
      /** 'f32', or 'int8' when loaded with {weights: 'int8'} (inference-only). @ts WeightFormat */
      weightFormat: SNAPSHOT,
      /** Bytes the parameters occupy (4 per float32 value, ~1.125 per int8 matrix value). @ts number */
      parameterBytes: SNAPSHOT,
      /** Forward pass of one sequence or a batch: logits (B, T, vocab_size), and the inspection recorded in the same
       * pass with {inspect}. @ts (ids: TokenIds, options?: ForwardOptions): ForwardResult */
      forward: CALL,
      /** Switches every block to pre- or post-norm wiring, keeping the weights. @ts (placement: NormPlacement): void */
      setNormPlacement: CALL,
      /** The logit lens of one sequence: every layer's residual stream (layer 0 the embeddings) through the final
       * LayerNorm and the head, logits (n_layers + 1, T, vocab_size); with {target}, that id's probability at every
       * layer and position. @ts (ids: ArrayLike<number>, options?: { target?: number }): LogitLens */
      logitLens: CALL,
      /** Ablates heads ('block.head' or [block, head], 0-based) in every later pass: zeroed, or replaced by their
       * causal mean over positions; [] restores the model. @ts (heads: HeadRef[], options?: { mode?: HeadAblationMode }): void */
      setHeadAblation: CALL,
      /** Each input position's share in the target's logit (or log-probability) at the last position: gradient x
       * input or integrated gradients. @ts (ids: ArrayLike<number>, target: number, options?: AttributionOptions): Float32Array */
      attribute: CALL,
      /** Generates with a KV cache, one token per iteration (a synchronous generator; the page's proxy streams the
       * tokens to onToken and can be cancelled with an AbortSignal).
       * @ts (prompt: ArrayLike<number>, options?: GenerateOptions): Generator<GeneratedToken, { stopReason: StopReason }, undefined>
       * @remote (prompt: ArrayLike<number>, options?: GenerateOptions, callbacks?: { onToken?: (t: GeneratedToken) => void; signal?: AbortSignal }): Promise<{ tokens: number[]; stopReason: StopReason }> */
      generate: stream('token'),
      /** Mean cross-entropy (nats per token) of ids against targets, dropout off. @ts (ids: TokenIds, targets: TokenIds): number */
      loss: CALL,
      /** The loss and the gradient of every parameter (dropout off).
       * @ts (ids: TokenIds, targets: TokenIds): { loss: number; gradients: Record<string, Float32Array> } */
      lossAndGradients: CALL,
      /** The held-out loss of a token stream as `blockscope eval` computes it: non-overlapping windows of seqLen tokens
       * (0, the default: the context length), each position predicting the next token.
       * @ts (ids: ArrayLike<number>, options?: { seqLen?: number; batch?: number }): HeldOutLoss */
      evaluateTokens: CALL,
      /** The model as a checkpoint, in the layout it was loaded from unless `layout` ('book', 'huggingface' or its
       * alias 'hf') says otherwise. @ts (options?: { layout?: '' | CheckpointLayout | 'hf' }): Checkpoint */
      save: CALL,
      /** A trainer for this GPT (disposing the GPT disposes it). @ts (options: TrainerOptions): Trainer */
      createTrainer: create('Trainer'),
    },
  },
  Block: {
    extends: 'Handle',
    wasm: 'Block',
    members: {
      /** The block's config (the book's keys plus Blockscope's). @ts Record<string, unknown> */
      config: SNAPSHOT,
      /** x: (B, T, emb_dim) flat. @ts (x: FloatArray, B: number, T: number): { output: Float32Array; inspection: BlockInspection } */
      forward: CALL,
      /** Pre- or post-norm wiring, same weights. @ts (placement: NormPlacement): void */
      setNormPlacement: CALL,
      /** Every step's values (input, norm1, att, add1, norm2, ff, add2 in the wiring's order) with a learner's mistake
       * where it fits: a LayerNorm one in both norms, unless atStep confines it to one step ("break a step").
       * @ts (id: MistakeId, x: FloatArray, B: number, T: number, options?: { atStep?: BlockStepId | '' }): BlockStepValues[] */
      mistake: CALL,
      /** The mistakes that can happen in this block at sequence length T, 'correct' first. @ts (T: number): MistakeId[] */
      mistakes: CALL,
    },
  },
  MultiHeadAttention: {
    extends: 'Handle',
    wasm: 'MultiHeadAttention',
    members: {
      /** x: (B, T, d_in) flat -> output (B, T, d_out), weights (B, NH, T, T).
       * @ts (x: FloatArray, B: number, T: number): { output: Float32Array; weights: Float32Array } */
      forward: CALL,
      /** The output (B, T, d_out) as a learner's attention with mistake `id` computes it.
       * @ts (id: MistakeId, x: FloatArray, B: number, T: number): Float32Array */
      mistake: CALL,
      /** The mistakes this attention can show, 'correct' first. @ts (): MistakeId[] */
      mistakes: CALL,
    },
  },
  FeedForward: {
    extends: 'Handle',
    wasm: 'FeedForward',
    members: {
      /** x: (rows, emb_dim) flat. @ts (x: FloatArray): { output: Float32Array; hiddenPre: Float32Array; hiddenPost: Float32Array } */
      forward: CALL,
      /** x (B, T, emb_dim) as a learner's FFN with mistake `id` computes it. @ts (id: MistakeId, x: FloatArray, B: number, T: number): Float32Array */
      mistake: CALL,
      /** The mistakes that apply at sequence length T ('across-sequence' needs T = emb_dim), 'correct' first.
       * @ts (T: number): MistakeId[] */
      mistakes: CALL,
    },
  },
  Tokenizer: {
    extends: 'BaseHandle',
    wasm: 'Tokenizer',
    members: {
      /** 'gpt2' | 'bytes' | 'bytes+eot' | 'symbols' ('gpt2' for any GPT-2-format byte-level BPE; 'symbols' for a
       * tokens.json vocabulary) @ts TokenizerKind */
      kind: SNAPSHOT,
      /** Where a model's own tokenizer files came from (loadTokenizer), e.g. "…/vocab.json + merges.txt" or
       * "…/tokens.json"; else null. @ts string | null */
      source: SNAPSHOT,
      /** @ts number */
      vocabSize: SNAPSHOT,
      /** The id of <|endoftext|>, or null. @ts number | null */
      eotId: SNAPSHOT,
      /** What decode() puts between two tokens' texts: '' for the byte-level tokenizers, ' ' for symbols (join a
       * prompt and its continuation with it). @ts string */
      separator: SNAPSHOT,
      /** Token ids of `text` ("<|endoftext|>" is the one eot id; for symbols, its whitespace-separated words, each of
       * which must be a symbol). @ts (text: string): Int32Array */
      encode: CALL,
      /** The bytes the ids stand for. @ts (ids: ArrayLike<number>): Uint8Array */
      decodeBytes: CALL,
      /** The text the ids stand for (invalid UTF-8 becomes U+FFFD). @ts (ids: ArrayLike<number>): string */
      decode: CALL,
      /** Each token's own text, for display (bytes that are not text on their own as <0xNN>). @ts (ids: ArrayLike<number>): string[] */
      tokenTexts: CALL,
    },
  },
  Trainer: {
    extends: 'BaseHandle',
    wasm: 'Trainer',
    heavy: true,
    members: {
      /** The full training config (defaults filled in). @ts TrainConfig */
      config: SNAPSHOT,
      /** Updates done so far. @ts number */
      stepsDone: SNAPSHOT,
      /** Bytes held for training: activations, gradients and AdamW's two moments. @ts number */
      memoryBytes: SNAPSHOT,
      /** One update on sampled batches, or on the caller's {ids, targets}. @ts (batch?: { ids: TokenIds; targets: TokenIds }): StepResult */
      step: CALL,
      /** The same sampled update in pieces: beginStep(), accumulate() while it returns true, finishStep(). @ts (): void */
      beginStep: RUNTIME,
      /** The forward and backward pass of the step's next micro-batch; true while more remain. @ts (): boolean */
      accumulate: RUNTIME,
      /** Clipping and the update: the step() result. @ts (): StepResult */
      finishStep: RUNTIME,
      /** The core's training loop (the CLI's) in pieces: yields null per micro-batch or evaluation and a result per
       * finished update; stops on a non-finite loss or gradient (putting back the last weights that gave a finite
       * loss), on stopAbove, or after cancel(). @ts (options?: TrainOptions): Generator<StepResult | null, RunOutcome, undefined> */
      run: RUNTIME,
      /** Ends the run() under way once its current update (and that update's evaluation) is done. @ts (): void */
      cancel: RUNTIME,
      /** Runs the core's training loop: synchronously in the runtime (onStep returning false stops it); in the worker
       * on the page's proxy, streaming each update to onStep and yielding between micro-batches so other calls are
       * served. @ts (options?: TrainOptions & { onStep?: (r: StepResult) => boolean | void }): { results: StepResult[]; stopped: boolean } & RunOutcome
       * @remote (options?: TrainOptions & { onStep?: (r: StepResult) => void }): Promise<TrainOutcome> */
      train: stream('step'),
      /** Mean validation loss over config.eval_batches fixed batches (dropout off). @ts (): number */
      evaluate: CALL,
      /** AdamW's m, v and step count as safetensors bytes. @ts (): Uint8Array */
      saveOptimizerState: CALL,
      /** Restores saveOptimizerState()'s bytes. @ts (bytes: Uint8Array | ArrayBuffer): void */
      loadOptimizerState: CALL,
      /** The GPT this trainer updates. @ts GPT */
      gpt: RUNTIME,
      /** True while train() runs. @ts boolean */
      running: CLIENT,
      /** Stops train() after the step in progress; resolves once it has stopped. @ts (): Promise<void> */
      pause: CLIENT,
      /** Continues the last paused train() with its remaining steps and callbacks. @ts (): Promise<TrainOutcome> */
      resume: CLIENT,
    },
  },
  ResidualMLP: {
    extends: 'Handle',
    wasm: 'ResidualMLP',
    members: {
      /** @ts ResidualMLPConfig */
      config: SNAPSHOT,
      /** x: (B, dim) flat -> y (B, dim). @ts (x: FloatArray, B: number): Float32Array */
      forward: CALL,
      /** Backpropagates y.sum(): each layer's weight-gradient norm, layer 1 first. @ts (): Float32Array */
      backwardSum: CALL,
      /** The gradient of parameter `name` after backwardSum(). @ts (name: string): Float32Array */
      getGradient: CALL,
    },
  },
  Blockscope: {
    members: {
      /** 'simd-relaxed', 'simd' or 'baseline': the wasm flavour this runtime runs. @ts Flavour */
      flavour: SNAPSHOT,
      /** 'worker', or 'in-thread' when the runtime (or a replaced worker's successor) runs on the page's thread.
       * @ts 'worker' | 'in-thread' */
      mode: CLIENT,
      /** Why the client runs in-thread although a worker was wanted (null otherwise). @ts string | null */
      fallbackReason: CLIENT,
      /** Why a worker was last replaced after it stopped (null while none was). @ts string | null */
      restartReason: CLIENT,
      /** Calls fn each time a worker stopped and a new runtime took its place (the objects created in it before are
       * gone): returns a function that unsubscribes. @ts (fn: RestartListener): () => void */
      onRestart: CLIENT,
      /** LayerNorm of x (rows, d) with gamma/beta (default 1/0) and eps, with its statistics.
       * @ts (x: FloatArray, options?: LayerNormOptions): LayerNormResult */
      layerNorm: light(CALL),
      /** LayerNorm of x as a learner's code with mistake `id` computes it ('correct' is LayerNorm itself).
       * @ts (id: MistakeId, x: FloatArray, options?: LayerNormOptions): Float32Array */
      layerNormMistake: light(CALL),
      /** The LayerNorm mistake ids, 'correct' first: the order a check tries them in. @ts (): MistakeId[] */
      layerNormMistakes: light(CALL),
      /** The activation `expected` of x as a learner's code with mistake `id` computes it.
       * @ts (id: MistakeId, expected: ActivationKind, x: FloatArray): Float32Array */
      activationMistake: light(CALL),
      /** The activation mistakes that apply where `expected` is meant, 'correct' first. @ts (expected: ActivationKind): MistakeId[] */
      activationMistakes: light(CALL),
      /** Every mistake id the core knows, with the site where it happens. @ts (): MistakeInfo[] */
      mistakes: light(CALL),
      /** An activation applied elementwise. @ts (kind: ActivationKind, x: FloatArray): Float32Array */
      activation: light(CALL),
      /** d activation / dx at x. @ts (kind: ActivationKind, x: FloatArray): Float32Array */
      activationDerivative: light(CALL),
      /** GELU with F.gelu's naming: 'tanh' (default) or 'none' (exact erf). @ts (x: FloatArray, options?: { approximate?: 'tanh' | 'none' }): Float32Array */
      gelu: light(CALL),
      /** The k most likely next tokens of one row of logits, ranked as the sampler ranks them.
       * @ts (logits: FloatArray, options?: { k?: number; temperature?: number }): Candidate[] */
      topCandidates: CALL,
      /** Parameter count of a GPT config without building it. @ts (config: GPTConfig): number */
      countParameters: CALL,
      /** The tokenizer a vocabulary of that size gets by default (the core's rule, as the CLI): 'gpt2' (50,257 ids or
       * more), 'bytes+eot' (257), 'bytes' (256 or more), or null when none fits. @ts (vocabSize: number): TokenizerKind | null */
      defaultTokenizerKind: CALL,
      /** A GPT with seeded random weights. @ts (config: GPTConfig, options?: { seed?: number }): GPT */
      createGPT: create('GPT'),
      /** A trainer for `gpt` (which it must not outlive). @ts (gpt: GPT, options: TrainerOptions): Trainer */
      createTrainer: RUNTIME,
      /** The lesson's residual-gradient-flow network. @ts (config?: ResidualMLPConfig, options?: { seed?: number }): ResidualMLP */
      createResidualMLP: create('ResidualMLP'),
      /** One transformer block (or the lesson's encoder block, by its config keys). @ts (config: Record<string, unknown>, options?: { seed?: number }): Block */
      createBlock: create('Block'),
      /** The book's MultiHeadAttention on its own. @ts (config: Record<string, unknown>, options?: { seed?: number }): MultiHeadAttention */
      createAttention: create('MultiHeadAttention'),
      /** Linear -> activation -> Linear; hiddenDim defaults to expansion (4) x embDim. @ts (options: FeedForwardOptions): FeedForward */
      createFeedForward: create('FeedForward'),
      /** FFN sizes from the core for a (batch, tokens) input. @ts (options: FeedForwardCostOptions): FeedForwardCosts */
      feedForwardCosts: CALL,
      /** Parameters of one block by part. @ts (config: Record<string, unknown>): BlockParameters */
      blockParameters: CALL,
      /** FLOPs per token of one block's sublayers at a sequence length, and the length below which the FFN costs more
       * than attention (2d for the standard FFN). @ts (config: Record<string, unknown>, options?: { tokens?: number }): BlockFlops */
      blockFlops: CALL,
      /** A tokenizer: GPT-2's (its files shipped with the build, or given), one id per byte, or named symbols (a
       * tokens.json's text). @ts (options?: TokenizerOptions): Promise<Tokenizer> */
      createTokenizer: create('Tokenizer', { async: true }),
      /** A checkpoint's tokenizer as the CLI picks it (the core's rule): its own files next to the model win —
       * GPT-2-format BPE (vocab.json + merges.txt or encoder.json + vocab.bpe) from 256 ids up, tokens.json below, and
       * nothing else is looked for —, else the core's default kind for vocabSize; refuses one with more ids than the
       * vocabulary. @ts (source: ModelSource & TokenizerFilesSource, options: LoadTokenizerOptions): Promise<Tokenizer> */
      loadTokenizer: create('Tokenizer', { async: true }),
      /** Loads a checkpoint directory (config.json + model.safetensors, the book's or Hugging Face GPT-2's layout),
       * checked against the memory budget before anything large is allocated or downloaded.
       * @ts (source: ModelSource, options?: LoadModelOptions): Promise<GPT> */
      loadModel: create('GPT', { async: true, options: 1, events: { progress: 'onProgress' } }),
      /** malloc'd bytes in use, the wasm memory size and the stack pointer, of the module that answers (buildInfo().module);
       * on the page's client, of every worker of the pool (allocatedBytes and heapBytes summed, each worker's in
       * `workers`). @ts (): MemoryStats */
      memoryStats: light(CALL),
      /** The build's flavour (its .wasm file), the ISA its kernels target, the package version, and the module that
       * answered: 'light' until a call needed the full one (a page's runtime), else 'full'. (simd-relaxed's light module
       * is simd's, and reports simd.)
       * @ts (): { flavour: Flavour; isa: 'relaxed-simd' | 'simd128' | 'generic'; version: string; module: WasmModule } */
      buildInfo: light(CALL),
    },
  },
};

/** What each package entry exports besides its classes. */
export const MODULES = {
  runtime: {
    /** Loads (once per flavour, module and base URL) and returns the runtime in the calling thread: the full module
     * unless options.module is 'light'.
     * @ts (options?: LoadOptions): Promise<Blockscope> */
    loadBlockscope: FUNCTION,
    /** True if this engine supports WebAssembly SIMD128. @ts (): boolean */
    simdSupported: FUNCTION,
    /** True if this engine supports WebAssembly relaxed SIMD (the simd-relaxed flavour). @ts (): boolean */
    relaxedSimdSupported: FUNCTION,
  },
  client: {
    /** Connects to the runtime in a Web Worker (once per page and set of options), or on the page's thread where a
     * worker cannot start. @ts (options?: ConnectOptions): Promise<Blockscope> @remote (options?: ConnectOptions): Promise<RuntimeClient> */
    connect: FUNCTION,
  },
};

/** The declared members of class `name`, its base classes' included: {member: spec}. */
export function membersOf(name) {
  const entry = API[name];
  if (!entry) throw new Error(`no runtime class '${name}'`);
  return { ...(entry.extends ? membersOf(entry.extends) : {}), ...entry.members };
}
