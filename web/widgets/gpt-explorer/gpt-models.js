// gpt-models.js — the models behind <gpt-explorer>, held in the runtime's worker: a model shipped with Blockscope
// (the GPT trained on the Brown corpus reading bytes or its own BPE tokens, or the one that sorts numbers) with its
// untrained twin (the same config, seeded random weights), or one model that replaces them (a checkpoint from a URL or
// files, or a seeded random model of custom size). Builds only what changed, frees what it replaces, and falls back to
// an untrained model when the trained one cannot be loaded. No DOM. Its labels come from the message table
// (i18n/<locale>/gpt-explorer.js): `label` in English, for events and Copy as PyTorch, which are the same in every
// language, and labelIn(t) in the widget's language, for the page.
import { messages } from '../kit/i18n.js';
import { openModelTokenizer, openTokenizer } from '../kit/tokens.js';
import { shippedUrl } from '../../runtime/locations.js';

const EN = messages('en');
/** Message `key` in English (labels in events and code). */
const en = (key, params) => EN.t(key, params);

/**
 * The models shipped with Blockscope, next to the widget bundle (web/dist/ or web/widgets/ -> web/models/), by the
 * name <gpt-explorer model="…"> takes; brown is the default. Each entry: its directory `url` (what it was trained on is
 * in the message table: gpt.model.<name>.trained, .about and .short); `tokenizerFiles` as loadTokenizer takes it — false for brown, whose directory has no
 * tokenizer files (it reads UTF-8 bytes; a look would cost a request and a 404 on every page), left to the core's rule
 * for brown-bpe (vocab.json + merges.txt, there) and sort (below 256 ids only tokens.json is looked for, and it is there); and `defaults`, the explorer's attributes
 * for that model when the page does not set them: sort's prompt is its card's example input (models/sort/README.md)
 * and greedy decoding of the task's n outputs (models/sort/recipe.json) writes the sorted numbers —
 * tests/browser/gpt-sort.test.mjs checks both against the recipe.
 */
export const SHIPPED_MODELS = Object.freeze({
  brown: {
    url: shippedUrl('../models/brown/', new URL('../models/brown/', import.meta.url)).href, tokenizerFiles: false, defaults: {},
  },
  'brown-bpe': {
    url: shippedUrl('../models/brown-bpe/', new URL('../models/brown-bpe/', import.meta.url)).href, defaults: {},
  },
  sort: {
    url: shippedUrl('../models/sort/', new URL('../models/sort/', import.meta.url)).href, defaults: { prompt: '9 9 9 9 3 1 1 3 SEP', temperature: 0, 'max-new-tokens': 8 },
  },
});
export const DEFAULT_MODEL = 'brown';

/** The shipped model a `model` attribute names ('' is the default one), or null for a URL. */
export function shippedModel(value) {
  const name = String(value ?? '').trim() || DEFAULT_MODEL;
  return Object.hasOwn(SHIPPED_MODELS, name) ? { name, ...SHIPPED_MODELS[name] } : null;
}

/**
 * The labels of a shipped model and its twin in the language of `t` (default English): `trained` and `untrained` (the
 * model line, events, code), `trainedAbout` and `untrainedAbout` (the same without "trained"/"untrained:": the weights
 * switch and the tables) and `short` (what it was trained on, in a few words).
 */
export function labelsOf(shipped = shippedModel(''), t = en) {
  const key = (part) => `gpt.model.${shipped.name}.${part}`;
  return { trained: t(key('trained')), trainedAbout: t(key('about')), short: t(key('short')),
    untrained: t('gpt.model.untrained'), untrainedAbout: t('gpt.model.untrainedAbout') };
}

/**
 * What the prompt's tokens are, for the page, in the language of `t`: the model's own symbols or byte-level BPE, GPT-2's
 * BPE or UTF-8 bytes (the rule kit/tokens.js applies). `asked`: the tokenizer a random model asked for; when it could
 * not be opened, the kit's note says why (in English, with the runtime's reason).
 */
export function tokenNote(tokenizer, asked, t) {
  const { kind, source, symbols, vocabSize } = tokenizer;
  if (kind === 'symbols' && symbols) {
    const shown = symbols.length > 6 ? [...symbols.slice(0, 3), '…', ...symbols.slice(-2)] : symbols;
    return t('gpt.tokens.symbols', { count: symbols.length, symbols: shown.join(' '), source: String(source) });
  }
  if (source) return t('gpt.tokens.own', { source: String(source), vocab: vocabSize });
  if (kind === 'gpt2') return t('gpt.tokens.gpt2', { vocab: vocabSize });
  if (asked && asked !== 'byte') return tokenizer.note;
  return t('gpt.tokens.byte');
}

/**
 * Loads a checkpoint ({url}, {files} or {config, weights}) and its tokenizer, as the CLI picks it (the runtime's
 * loadTokenizer: GPT-2-format files next to the model — vocab.json + merges.txt — win, else the core's default for
 * the vocabulary).
 */
async function loadCheckpoint(rt, source, onProgress) {
  const model = await rt.loadModel(source, { onProgress });
  try {
    return { model, tokenizer: await openModelTokenizer(rt, source, model.config.vocab_size) };
  } catch (err) {
    await model.dispose();
    throw err;
  }
}

/** A seeded random GPT; rejects with the core's message on a bad config (freeing the tokenizer opened for it). */
async function randomGPT(rt, config, seed, tokenizer) {
  try {
    return await rt.createGPT(config, { seed });
  } catch (err) {
    tokenizer.dispose().catch(() => {});
    throw err;
  }
}

/**
 * What an explorer's attributes (host: attr(name), numAttr(name)) and the checkpoint files the learner dropped or
 * picked (`files`: a 'loaded' spec, or null) ask GPTModels.build for. `shipped`: a shipped model and its twin
 * regardless (the default one when `model` is a URL); `retry`: download the shipped model again after a failure.
 */
export function modelSpec(host, files, { shipped = false, retry = false } = {}) {
  const int = (name) => Math.round(host.numAttr(name));
  const seed = int('seed');
  const randomConfig = (vocab) => ({ vocab_size: vocab, context_length: int('context'), emb_dim: int('emb-dim'),
    n_heads: int('heads'), n_layers: int('layers'), drop_rate: 0.1, qkv_bias: false, norm: 'pre' });
  const value = host.attr('model').trim();
  const named = shippedModel(value);
  if (files && !shipped) return files;
  if (!named && !shipped) return { kind: 'loaded', key: `url:${value}`, source: { url: value }, label: value };
  if (host.attr('weights') === 'random' && !shipped) {
    const tokenizer = host.attr('tokenizer') === 'gpt2' ? 'gpt2' : 'byte';
    return { kind: 'random', seed, tokenizer, config: randomConfig,
      key: JSON.stringify([seed, tokenizer, ...['context', 'emb-dim', 'heads', 'layers'].map(int)]) };
  }
  return { kind: 'shipped', shipped: named ?? shippedModel(''), seed, fallbackConfig: randomConfig, retry };
}

/** Thrown (and ignored by the widget) when the models were released while they were being built. */
export class Released extends Error {}

export class GPTModels {
  /** t: the widget's messages (key, params) -> text, asked each time (the widget's language may change). */
  constructor(t = en) {
    this.t = t;
    this.pair = null; // {url, trained, untrained, seed, tokenizer, shipped}: a shipped model and its twin
    // {kind: 'loaded'|'random'|'fallback', key, model, tokenizer, label (English), labelIn(t) (else label), seed}
    this.single = null;
    this.failed = null; // {url, message}: the shipped model could not be loaded
    this.generation = 0;
    this.select('trained');
  }

  /** Every model held. */
  all() {
    return [this.pair?.trained, this.pair?.untrained, this.single?.model].filter(Boolean);
  }

  /** Every worker-side object held: the models and their tokenizers (to free). */
  held() {
    return [...this.all(), this.pair?.tokenizer, this.single?.tokenizer].filter(Boolean);
  }

  /** Frees everything; builds in progress drop their results. */
  release() {
    this.generation++;
    const held = this.held();
    this.pair = null;
    this.single = null;
    this.failed = null;
    this.select(this.weights);
    for (const m of held) m.dispose().catch(() => {});
    return held.length > 0;
  }

  /** Throws Released if release() ran since `generation`, freeing `fresh` models made meanwhile. */
  check(generation, ...fresh) {
    if (generation === this.generation) return;
    for (const m of fresh) m?.dispose().catch(() => {});
    throw new Released('released');
  }

  /**
   * Builds what `spec` needs, reusing what is already there:
   *   {kind: 'shipped', shipped, seed, fallbackConfig(vocab), retry}  a shipped model (SHIPPED_MODELS entry) + its
   *                                                              twin (or the fallback)
   *   {kind: 'random', key, seed, tokenizer, config(vocab)}      a seeded random model
   *   {kind: 'loaded', key, source, label}                        a checkpoint; throws (keeping the old models) on failure
   * ui: {progress({loaded, total}, label), status(text)}; `t` (the constructor's) words the statuses and labels.
   */
  async build(rt, spec, ui) {
    const gen = this.generation;
    if (spec.kind === 'loaded') {
      if (this.single?.key === spec.key) return;
      ui.status(this.t('gpt.loader.loading', { label: spec.labelIn?.(this.t) ?? spec.label }));
      ui.progress({ loaded: 0, total: 0 }, spec.label);
      const { model, tokenizer } = await loadCheckpoint(rt, spec.source, (p) => ui.progress(p, spec.label));
      this.check(gen, model, tokenizer);
      this.replace({ single: { kind: 'loaded', key: spec.key, model, tokenizer, label: spec.label, labelIn: spec.labelIn } });
      return;
    }
    if (spec.kind === 'random') {
      if (this.single?.key === spec.key) return;
      ui.status(this.t('gpt.status.building'));
      const tokenizer = await openTokenizer(rt, spec.tokenizer);
      const model = await randomGPT(rt, spec.config(tokenizer.vocabSize), spec.seed, tokenizer);
      this.check(gen, model, tokenizer);
      const params = { seed: String(spec.seed) };
      this.replace({ single: { kind: 'random', key: spec.key, model, tokenizer, asked: spec.tokenizer,
        label: en('gpt.model.random', params), labelIn: (t) => t('gpt.model.random', params) } });
      return;
    }
    await this.buildShipped(rt, spec, ui, gen);
  }

  async buildShipped(rt, { shipped, seed, fallbackConfig, retry }, ui, gen) {
    const { url, tokenizerFiles } = shipped;
    if (retry && this.failed?.url === url) this.failed = null;
    if (!(this.pair?.url === url) && !(this.failed?.url === url)) {
      const label = this.t('gpt.model.trainedShort', { short: labelsOf(shipped, this.t).short });
      ui.status(this.t('gpt.loader.loading', { label }));
      ui.progress({ loaded: 0, total: 0 }, label); // indeterminate until the download starts
      try {
        const { model, tokenizer } = await loadCheckpoint(rt, { url, tokenizerFiles }, (p) => ui.progress(p, label));
        this.check(gen, model, tokenizer);
        this.replace({ pair: { url, trained: model, untrained: null, seed: null, tokenizer, shipped } });
      } catch (err) {
        if (err instanceof Released) throw err;
        this.failed = { url, message: err.message };
      }
    }
    if (this.pair?.url === url) {
      if (this.pair.seed === seed) return;
      // The untrained twin: exactly the trained model's config, seeded random weights. Should the core refuse
      // it, the trained model is shown alone (with the reason) rather than nothing.
      let twin = null;
      let twinError = null;
      try {
        twin = await rt.createGPT(this.pair.trained.config, { seed });
      } catch (err) {
        twinError = err.message;
      }
      this.check(gen, twin);
      this.pair.untrained?.dispose().catch(() => {});
      Object.assign(this.pair, { untrained: twin, seed, twinError });
      this.select(this.weights);
      return;
    }
    const key = `fallback:${seed}`;
    if (this.single?.key === key) return;
    const tokenizer = await openTokenizer(rt, 'byte');
    const model = await randomGPT(rt, fallbackConfig(tokenizer.vocabSize), seed, tokenizer);
    this.check(gen, model, tokenizer);
    const params = { seed: String(seed) };
    this.replace({ single: { kind: 'fallback', key, model, tokenizer, seed,
      label: en('gpt.model.fallback', params), labelIn: (t) => t('gpt.model.fallback', params) } });
  }

  /** Installs a new pair or a single model (which replaces the pair), freeing every model no longer held. */
  replace({ pair = null, single = null }) {
    const old = this.held();
    this.pair = pair;
    this.single = single;
    const kept = new Set(this.held());
    for (const m of old) if (!kept.has(m)) m.dispose().catch(() => {});
    this.select(this.weights);
  }

  /**
   * Chooses the model the charts and Generate use: 'trained' or 'untrained' within the shipped pair (the other one
   * is `other`, for the side-by-side table); a single model is always selected. `modelKey` names its weights
   * (linked selection links heads only between widgets showing the same weights).
   */
  select(weights) {
    this.weights = weights === 'untrained' ? 'untrained' : 'trained';
    if (this.single) {
      Object.assign(this, { model: this.single.model, other: null, key: this.single.kind, otherKey: null,
        tokenizer: this.single.tokenizer, label: this.single.label, modelKey: this.single.key });
    } else if (this.pair && !this.pair.untrained) {
      Object.assign(this, { model: this.pair.trained, other: null, key: 'trained', otherKey: null,
        tokenizer: this.pair.tokenizer, label: labelsOf(this.pair.shipped).trained, modelKey: `trained:${this.pair.url}` });
    } else if (this.pair) {
      const w = this.weights;
      const o = w === 'trained' ? 'untrained' : 'trained';
      Object.assign(this, { model: this.pair[w], other: this.pair[o], key: w, otherKey: o,
        tokenizer: this.pair.tokenizer, label: labelsOf(this.pair.shipped)[w],
        modelKey: w === 'trained' ? `trained:${this.pair.url}` : `untrained:${this.pair.url}:${this.pair.seed}` });
    } else {
      Object.assign(this, { model: null, other: null, key: null, otherKey: null, tokenizer: null, label: '', modelKey: null });
    }
  }

  /** The selected model's label in the language of `t` (a checkpoint's is its file names or URL: data, as given). */
  labelIn(t) {
    if (this.single) return this.single.labelIn?.(t) ?? this.single.label;
    if (this.pair) return labelsOf(this.pair.shipped, t)[this.key];
    return '';
  }

  /** The labels of the shipped pair in the language of `t`, or null without one (labelsOf). */
  pairLabels(t) {
    return this.pair ? labelsOf(this.pair.shipped, t) : null;
  }
}
