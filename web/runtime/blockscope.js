// blockscope.js — the one JavaScript module that owns Blockscope's WebAssembly instance.
// It picks the relaxed-SIMD, SIMD128 or baseline build by feature detection, loads it (browser, Web Worker or Node), and
// offers plain functions and classes that take and return ordinary typed arrays. Nothing else imports the
// Emscripten output: widgets talk to this module only.
//
// Lifetimes: the wasm-side objects behind GPT, Block, MultiHeadAttention and FeedForward are freed by
// dispose() (or `using`), and by a FinalizationRegistry as a safety net if a caller forgets. Arrays this
// module returns are copies the caller owns; the zero-copy views the bindings produce never escape.

import { API } from './api.js';
import { Block, FeedForward, GPT, MultiHeadAttention, Tokenizer } from './models.js';
import { checkedBuffer, jsonText, num, toFloat32 } from './handles.js';
import { BlockscopeError, checkedModule } from './wasm-module.js';
import { ResidualMLP, Trainer } from './training.js';
import { mark } from './marks.js';
import { fetchBytes, readStream, TEXT_LIMIT } from './downloads.js';
import { loadFailure } from './load-errors.js';
import { findTokenizerFiles } from './tokenizer-files.js';
import {
  fileUrl, glueUrl as glueUrlOf, relaxedSimdSupported, resolveFlavour, simdSupported, unsupportedReason, wasmUrl as wasmUrlOf,
} from './locations.js';
import { isNode, nodeBuiltin } from './node-builtins.js';

export { relaxedSimdSupported, simdSupported };
export { Block, FeedForward, GPT, MultiHeadAttention, Tokenizer, ResidualMLP, Trainer, BlockscopeError };

const instances = new Map(); // module-flavour@base -> Promise<Blockscope>
// This module's URL, kept out of `new URL(…, import.meta.url)`: app bundlers take that form for a file to copy.
const MODULE_URL = import.meta.url;

/**
 * Loads (once per flavour, module and base URL) and returns the Blockscope runtime.
 * @param {{flavour?: 'auto'|'simd-relaxed'|'simd'|'baseline', baseUrl?: string|URL, module?: 'full'|'light'}} [options]
 *   flavour 'auto' (default) picks 'simd-relaxed' where the engine supports relaxed SIMD, else 'simd' where it supports
 *   SIMD128, else 'baseline'; baseUrl is the directory holding blockscope-glue.js and blockscope-[light-]<flavour>.wasm
 *   (default: where the build put them, or a page's hosted copy: locations.js fileUrl); module 'full' (default) or 'light', the small module whose runtime serves only
 *   the members api.js marks light (a page's runtime host starts on it: runtime-host.js).
 * @returns {Promise<Blockscope>}
 */
export function loadBlockscope(options = {}) {
  const flavour = resolveFlavour(options.flavour);
  const module = options.module ?? 'full';
  const base = options.baseUrl == null ? null : new URL(options.baseUrl, MODULE_URL);
  const key = `${module}-${flavour}@${glueUrlOf(base).href}`;
  if (!instances.has(key)) {
    const p = instantiate(flavour, base, options.compiled, module);
    p.catch(() => instances.delete(key)); // a failed load may be retried
    instances.set(key, p);
  }
  return instances.get(key);
}

async function instantiate(flavour, base, precompiled, module) {
  const unsupported = unsupportedReason(flavour);
  if (unsupported) throw new Error(`cannot load the ${flavour} flavour: ${unsupported}`);
  // One Emscripten glue serves every flavour and both modules (scripts/build-wasm.sh checks that it serves each); it is
  // handed the chosen .wasm, as bytes (Node) or compiled (instantiateWasm), and locateFile names it.
  const glueUrl = glueUrlOf(base);
  const wasmUrl = wasmUrlOf(flavour, base, module);
  const moduleArgs = {
    locateFile: (path) => (path.endsWith('.wasm') ? wasmUrl : new URL(path, glueUrl)).href, print: () => {}, printErr: () => {},
  };
  let failed = null;
  let glue;
  if (isNode) {
    // Node 18+ has fetch, but Emscripten's loader would fetch a file path; hand it the bytes instead.
    const { readFile } = await nodeBuiltin('fs/promises');
    moduleArgs.wasmBinary = await readFile(wasmUrl);
    glue = import(/* webpackIgnore: true */ /* @vite-ignore */ glueUrl.href);
  } else {
    // Download and compile the .wasm (streaming: compiled while it arrives) and load the JS glue at the same time;
    // the glue's instantiateWasm hook then only instantiates the compiled module.
    // `precompiled` (a worker's page may compile the wasm while the worker starts): a promise of {url, module}, used
    // when it is this very file, else (null, another URL) the file is fetched and compiled here.
    glue = import(/* webpackIgnore: true */ /* @vite-ignore */ glueUrl.href).then((g) => (mark('glue-loaded'), g), (err) => {
      throw loadFailure(glueUrl, err);
    });
    const compiled = Promise.resolve(precompiled).catch(() => null)
      .then((given) => (given?.url === wasmUrl.href ? given.module : compileStreaming(wasmUrl)))
      .then((m) => (mark('wasm-compiled'), m));
    compiled.catch(() => {}); // reported through `failed`
    failed = new Promise((_, reject) => {
      moduleArgs.instantiateWasm = (imports, receive) => {
        compiled.then((module) => WebAssembly.instantiate(module, imports).then((instance) => receive(instance, module)))
          .catch(reject);
        return {}; // the exports arrive through receive()
      };
    });
  }
  const { default: createModule } = await glue;
  const instance = await (failed ? Promise.race([createModule(moduleArgs), failed]) : createModule(moduleArgs));
  const runtime = new Blockscope(checkedModule(instance), flavour, base, module);
  mark('runtime-ready');
  return runtime;
}

/** Compiles while downloading; falls back to a plain download when the server's MIME type is not application/wasm. */
async function compileStreaming(url) {
  const response = await fetch(url, { credentials: 'same-origin' }).catch((err) => {
    throw loadFailure(url, err); // refused (CORS) or unreachable: the file is named
  });
  if (!response.ok) throw new Error(`could not fetch ${url.href}: HTTP ${response.status} ${response.statusText}`);
  try {
    return await WebAssembly.compileStreaming(response);
  } catch (err) {
    if (!(err instanceof TypeError)) throw err; // a TypeError means the MIME type is wrong; retry without streaming
    return WebAssembly.compile(await (await fetch(url, { credentials: 'same-origin' })).arrayBuffer());
  }
}

/** Bytes a model file is streamed into wasm through, per call (the file is never whole in wasm memory). */
const STAGING_BYTES = 1 << 20;

/** The loaded runtime. Obtain it with loadBlockscope(). */
export class Blockscope {
  #m;
  #base;
  #module;
  constructor(module, flavour, base, kind = 'full') {
    this.#m = module;
    this.#base = base;
    this.#module = kind;
    /** 'simd-relaxed', 'simd' or 'baseline' */
    this.flavour = flavour;
    if (kind === 'light') refuseUnlessLight(this);
  }

  /** LayerNorm of x (rows, d) with gamma/beta (default 1/0, d = gamma.length or x.length) and eps. */
  layerNorm(x, { gamma, beta, eps = 1e-5, dim } = {}) {
    const xs = toFloat32(x, 'LayerNorm input');
    const d = gamma?.length ?? beta?.length ?? dim ?? xs.length;
    const g = gamma ? toFloat32(gamma, 'gamma') : new Float32Array(d).fill(1);
    const b = beta ? toFloat32(beta, 'beta') : new Float32Array(d);
    const r = this.#m.layerNorm(xs, g, b, num(eps));
    return {
      rows: r.rows, dim: r.dim,
      mean: r.mean.slice(), variance: r.var.slice(), rstd: r.rstd.slice(),
      normalized: r.normalized.slice(), output: r.output.slice(),
    };
  }
  /** LayerNorm of x as a learner's code with mistake `id` computes it ('correct': LayerNorm itself). */
  layerNormMistake(id, x, { gamma, beta, eps = 1e-5, dim } = {}) {
    const xs = toFloat32(x, 'LayerNorm input');
    const d = gamma?.length ?? beta?.length ?? dim ?? xs.length;
    const g = gamma ? toFloat32(gamma, 'gamma') : new Float32Array(d).fill(1);
    const b = beta ? toFloat32(beta, 'beta') : new Float32Array(d);
    return this.#m.layerNormMistake(String(id), xs, g, b, num(eps)).slice();
  }
  /** The LayerNorm mistake ids, 'correct' first (the order a check tries them in). */
  layerNormMistakes() {
    return this.#m.layerNormMistakes();
  }
  /** The activation `expected` of x as a learner's code with mistake `id` computes it. */
  activationMistake(id, expected, x) {
    return this.#m.activationMistake(String(id), String(expected), toFloat32(x, 'activation input')).slice();
  }
  /** The activation mistakes that apply where `expected` is meant, 'correct' first. */
  activationMistakes(expected) {
    return this.#m.activationMistakes(String(expected));
  }
  /** Every mistake id the core knows, with its site. */
  mistakes() {
    return this.#m.mistakeList();
  }
  /** kind: 'gelu_tanh' | 'gelu_erf' | 'relu' */
  activation(kind, x) {
    return this.#m.activation(String(kind), toFloat32(x, 'activation input')).slice();
  }
  /** d activation / dx at x. */
  activationDerivative(kind, x) {
    return this.#m.activationDerivative(String(kind), toFloat32(x, 'activation input')).slice();
  }
  /** GELU with F.gelu's naming: approximate 'tanh' (GPT-2, default) or 'none' (exact erf). */
  gelu(x, { approximate = 'tanh' } = {}) {
    if (approximate !== 'tanh' && approximate !== 'none') {
      throw new Error(`approximate must be 'tanh' or 'none', got '${approximate}'`);
    }
    return this.activation(approximate === 'tanh' ? 'gelu_tanh' : 'gelu_erf', x);
  }
  /**
   * The k most likely next tokens of one row of logits, ranked as the sampler ranks them, with their
   * probabilities under softmax(logits / temperature) over the whole vocabulary: [{id, logit, probability}].
   */
  topCandidates(logits, { k = 10, temperature = 1 } = {}) {
    const r = this.#m.topCandidates(toFloat32(logits, 'logits'), num(k), num(temperature));
    return r.ids.map((id, i) => ({ id, logit: r.logits[i], probability: r.probabilities[i] }));
  }
  /** Parameter count of a GPT config without building it. */
  countParameters(config) {
    return this.#m.countParameters(jsonText(config, 'GPT config'));
  }
  /**
   * The tokenizer kind a model's vocabulary gets by default, as the CLI decides it: 'gpt2' (50,257 ids or
   * more), 'bytes+eot' (257), 'bytes' (256 or more), or null when no tokenizer fits (fewer than 256).
   */
  defaultTokenizerKind(vocabSize) {
    return this.#m.defaultTokenizerKind(num(vocabSize));
  }
  /** @returns {GPT} */
  createGPT(config, { seed = 123 } = {}) {
    return GPT._create(this.#m, new this.#m.GPT(jsonText(config, 'GPT config'), num(seed)));
  }
  /**
   * A trainer for `gpt` (which it must not outlive: disposing the GPT disposes it). tokens: the training
   * token ids (and validationTokens, or config.val_fraction of tokens held out); config: TrainConfig's keys
   * (steps, batch_size, seq_len, grad_accum, lr, min_lr, warmup, weight_decay, decay_all, beta1, beta2, eps,
   * clip, val_fraction, eval_batches, window_stride, seed).
   * @returns {Trainer}
   */
  createTrainer(gpt, options) {
    if (!(gpt instanceof GPT)) throw new Error('createTrainer needs a GPT from this runtime');
    return gpt.createTrainer(options);
  }
  /**
   * The lesson's residual-gradient-flow network: config {depth, dim, activation, residual, layer_norm,
   * init_std}. @returns {ResidualMLP}
   */
  createResidualMLP(config = {}, { seed = 7 } = {}) {
    return new ResidualMLP(new this.#m.ResidualMLP(jsonText(config, 'residual MLP config'), num(seed)));
  }
  /** @returns {Block} config: emb_dim, context_length, n_heads, drop_rate, qkv_bias, norm (+ encoder keys) */
  createBlock(config, { seed = 123 } = {}) {
    return new Block(new this.#m.Block(jsonText(config, 'block config'), num(seed)));
  }
  /** @returns {MultiHeadAttention} config: d_in, d_out, context_length, num_heads, qkv_bias, causal */
  createAttention(config, { seed = 123 } = {}) {
    return new MultiHeadAttention(new this.#m.MultiHeadAttention(jsonText(config, 'attention config'), num(seed)));
  }
  /** @returns {FeedForward} hiddenDim defaults to expansion (4) x embDim */
  createFeedForward({ embDim, hiddenDim, expansion = 4, activation = 'gelu_tanh', seed = 123 }) {
    return new FeedForward(new this.#m.FeedForward(num(embDim), num(hiddenDim ?? expansion * embDim), String(activation), num(seed)));
  }
  /** FFN sizes from the core: {parameters, flopsPerToken, hiddenEntries} for a (B, n) batch; bias: both Linears'. */
  feedForwardCosts({ embDim, hiddenDim, expansion = 4, batch = 1, tokens = 1, bias = true }) {
    return this.#m.feedForwardCosts(num(embDim), num(hiddenDim ?? expansion * embDim), num(batch), num(tokens), !!bias);
  }
  /** FLOPs per token of one block's sublayers at `tokens`: {feedForward, attentionProjections, attentionScores, ffnDominatesBelow}. */
  blockFlops(config, { tokens = 1 } = {}) {
    return this.#m.blockFlops(jsonText(config, 'block config'), num(tokens));
  }
  /** Parameters of one block by part: {attention, feedForward, norms, total}. */
  blockParameters(config) {
    return this.#m.blockParameters(jsonText(config, 'block config'));
  }
  /**
   * A tokenizer. kind 'gpt2' takes the file contents (vocab: vocab.json/encoder.json text, merges:
   * merges.txt/vocab.bpe text) or fetches encoder.json + vocab.bpe from `baseUrl` (default: the GPT-2 files
   * shipped next to the wasm build, tokenizers/gpt2/). kind 'symbols' takes tokens (a tokens.json's text: its
   * symbols, id = index). kind 'bytes' / 'bytes+eot' needs nothing.
   * @returns {Promise<Tokenizer>}
   */
  async createTokenizer({ kind = 'gpt2', vocab, merges, tokens, baseUrl } = {}) {
    if (kind === 'gpt2' && (vocab == null || merges == null)) {
      const base = baseUrl == null ? null : new URL(baseUrl, glueUrlOf(this.#base));
      const file = (name) => (base ? new URL(name, base) : fileUrl(`tokenizers/gpt2/${name}`, this.#base));
      const text = async (name) => new TextDecoder().decode(await fetchBytes(file(name)));
      [vocab, merges] = await Promise.all([text('encoder.json'), text('vocab.bpe')]);
    }
    const first = kind === 'symbols' ? tokens : vocab;
    return new Tokenizer(new this.#m.Tokenizer(String(kind), String(first ?? ''), String(merges ?? ''), ''));
  }

  /**
   * The tokenizer of a checkpoint, chosen as the CLI chooses it (cli/common.cpp open_tokenizer), by the core's rule
   * (tokenizer_files.hpp): the model's own files of a layout that fits its vocabulary win — GPT-2-format BPE
   * (vocab.json + merges.txt or encoder.json + vocab.bpe) from 256 ids up, tokens.json (symbols) below — among
   * {files}, at a {url} directory, or given as {tokenizer: {vocab, merges} or {tokens}} ({tokenizerFiles: false}
   * skips the look; tokenizer-files.js), else the core's defaultTokenizerKind(vocabSize) (GPT-2's shipped files for
   * 'gpt2'). Refuses a tokenizer with more ids than the vocabulary, and a vocabulary no tokenizer fits.
   * @returns {Promise<Tokenizer>}
   */
  async loadTokenizer(source, { vocabSize, signal, stallTimeout } = {}) {
    const V = num(vocabSize);
    const stallMs = stallTimeout === undefined ? undefined : num(stallTimeout);
    const layouts = this.#m.tokenizerLayouts(V);
    const files = await findTokenizerFiles(source, layouts,
      { base: isNode ? `file://${process.cwd()}/` : location.href, signal, stallMs });
    let tokenizer;
    if (files) {
      // The core names `from` in its errors ("…/tokens.json: entry 3 …").
      tokenizer = new Tokenizer(new this.#m.Tokenizer(files.kind, files.texts[0], files.texts[1] ?? '', files.from), files.from);
    } else {
      const kind = this.defaultTokenizerKind(V);
      if (!kind) {
        const looked = layouts.map((l) => l.files.join(' + ')).join(' or ');
        throw new Error(`no tokenizer fits a vocabulary of ${V} token ids (UTF-8 bytes need 256) and the model has no ` +
          `tokenizer files${looked ? ` (${looked})` : ''}`);
      }
      tokenizer = await this.createTokenizer({ kind });
    }
    if (tokenizer.vocabSize > V) {
      const n = tokenizer.vocabSize;
      tokenizer.dispose();
      throw new Error(`the tokenizer${files ? ` (${files.from})` : ''} has ${n} token ids but the model's vocabulary has only ${V}`);
    }
    return tokenizer;
  }

  /**
   * Loads a checkpoint (config.json + model.safetensors, the book's or Hugging Face GPT-2's layout).
   * source: {url} (a directory URL), {files} (File objects, e.g. from <input type=file multiple> or a drop),
   * or {config, weights} (text/object and bytes). The config is checked first: a model whose float32 weights
   * exceed maxParameterBytes (default: the core's, the same limit the CLI applies) is refused before anything
   * large is allocated or downloaded, and a weights file larger than any checkpoint of its config could be is
   * refused from its size — by the core, with the CLI's message.
   * weights: 'f32' (default) or 'int8' — the token embedding and every Linear matrix quantized as they stream
   * in (one scale per 32 values, like llama.cpp's Q8_0): under a third of the memory and faster decoding, logits
   * within a few hundredths; the model is then inference-only (training it is an error). See the README.
   * A download is bounded by the largest file its config can have (whatever the server announces), stopped after
   * stallTimeout ms without data (default 30000), and cancelled by `signal` (an AbortSignal).
   * @returns {Promise<GPT>}
   */
  async loadModel(source, { onProgress, maxParameterBytes, weights, signal, stallTimeout } = {}) {
    // The options are checked first (by the core, which names a bad value and fills in its defaults), before any
    // download.
    const given = (v, as) => (v === undefined ? undefined : as(v));
    const options = this.#m.loadOptions(jsonText({ maxParameterBytes: given(maxParameterBytes, num), weights: given(weights, String) },
      'loadModel options'));
    const stallMs = stallTimeout === undefined ? undefined : num(stallTimeout);
    const { configText, openWeights } = await this.#resolveModelSource(source, { signal, stallMs });
    // The largest file this config can have bounds the download, whatever the server says (or does not say).
    const { maxFileBytes } = this.#m.checkModelConfig(configText, options);
    // The file streams through a small staging buffer into the core's ModelLoader, which converts each tensor
    // straight into the model's parameters: wasm memory never holds the file itself (it would stay grown).
    let loader = null;
    let staging = null;
    const into = (total, chunks) => {
      loader = new this.#m.ModelLoader(configText, total, options); // refuses a file too large for the config
      staging = new this.#m.ByteBuffer(Math.min(total, STAGING_BYTES));
      const write = (chunk) => {
        for (let off = 0; off < chunk.length; off += STAGING_BYTES) {
          const piece = chunk.subarray(off, off + STAGING_BYTES);
          staging.view().set(piece); // re-fetch the view: memory may have grown
          loader.write(staging, piece.length);
        }
      };
      if (chunks) {
        for (const c of chunks) write(c);
        return loader;
      }
      return { write, result: () => loader };
    };
    try {
      await openWeights({ onProgress, into, limit: maxFileBytes, signal, stallMs });
      return GPT._create(this.#m, new this.#m.GPT(loader));
    } finally {
      staging?.delete();
      loader?.delete();
    }
  }

  async #resolveModelSource(source, { signal, stallMs }) {
    if (source?.url != null) {
      const base = new URL(String(source.url).replace(/\/?$/, '/'), isNode ? `file://${process.cwd()}/` : location.href);
      const configText = new TextDecoder().decode(await fetchBytes(new URL('config.json', base), { signal, stallMs }));
      return { configText, openWeights: (opts) => fetchBytes(new URL('model.safetensors', base), opts) };
    }
    if (source?.files != null) {
      const files = Array.from(source.files);
      const config = files.find((f) => f.name === 'config.json');
      const weights = files.find((f) => f.name.endsWith('.safetensors'));
      if (!config || !weights) {
        throw new Error(`choose both config.json and a .safetensors file (got ${files.map((f) => f.name).join(', ') || 'nothing'})`);
      }
      if (config.size > TEXT_LIMIT) throw new Error(`${config.name} is ${config.size} bytes: not a config.json`);
      return {
        configText: await config.text(),
        openWeights: (opts) => readStream(weights.stream(), weights.size, { what: weights.name, ...opts }),
      };
    }
    if (source?.config != null && source?.weights != null) {
      const configText = typeof source.config === 'string' ? source.config : jsonText(source.config, 'config.json');
      let w = source.weights;
      if (!(w instanceof ArrayBuffer) && !ArrayBuffer.isView(w)) throw new Error('weights must be bytes (a Uint8Array or ArrayBuffer)');
      w = checkedBuffer(w, 'the weights');
      const bytes = w instanceof Uint8Array ? w : ArrayBuffer.isView(w) ? new Uint8Array(w.buffer, w.byteOffset, w.byteLength) : new Uint8Array(w);
      return {
        configText,
        openWeights: async ({ onProgress, into }) => {
          onProgress?.({ loaded: bytes.length, total: bytes.length });
          return into(bytes.length, [bytes]);
        },
      };
    }
    throw new Error('loadModel needs {url}, {files} or {config, weights}');
  }

  /** {allocatedBytes, heapBytes, stackPointer}: malloc'd bytes in use, the wasm memory size and stack pointer. */
  memoryStats() {
    return this.#m.memoryStats();
  }
  /** {flavour, isa, version} of the build, and module: 'full' or 'light'. */
  buildInfo() {
    return { ...this.#m.buildInfo(), module: this.#module };
  }
}

/**
 * On a runtime of the light module, every member api.js does not mark light (the light module lacks its bindings)
 * becomes one that fails naming it: an Error thrown, or a rejected Promise for an async create().
 */
function refuseUnlessLight(runtime) {
  for (const [name, spec] of Object.entries(API.Blockscope.members)) {
    if (spec.light || typeof runtime[name] !== 'function') continue;
    const refuse = () => new Error(`${name}() needs Blockscope's full module; this runtime runs the light one ` +
      '(loadBlockscope() without {module: \'light\'} loads the full one)');
    Object.defineProperty(runtime, name, {
      value: spec.async ? () => Promise.reject(refuse()) : () => { throw refuse(); },
    });
  }
}
