// tokenizer-files.js — finds a checkpoint's own tokenizer files: GPT-2-format byte-level BPE files next to the model
// (what `blockscope tokenizer train` writes and the CLI's open_tokenizer reads first), among dropped files, at a
// directory URL (bounded downloads; a 404 means "not there"), or given as text. Returns their text; the core parses
// them (blockscope.js's loadTokenizer). No wasm here.
import { fetchBytes, TEXT_LIMIT } from './downloads.js';

/**
 * The file-name pairs a model directory's tokenizer may have, in the order the core's Gpt2Tokenizer::from_directory
 * tries them: Hugging Face's, then OpenAI's.
 */
export const TOKENIZER_LAYOUTS = Object.freeze([['vocab.json', 'merges.txt'], ['encoder.json', 'vocab.bpe']]);

const text = (bytes) => new TextDecoder().decode(bytes);

/**
 * The tokenizer files of a model source ({url}, {files}, {config, weights}; see loadModel), as {vocab, merges, from}
 * (text, and where they came from, e.g. "https://…/vocab.json + merges.txt"), or null when it has none.
 * source.tokenizer {vocab, merges} gives them directly; source.tokenizerFiles === false says there are none (no
 * request is made). A vocabulary file without its merges file is an error naming both.
 */
export async function findTokenizerFiles(source, { base, signal, stallMs } = {}) {
  if (source?.tokenizer != null) {
    const { vocab, merges } = source.tokenizer;
    if (typeof vocab !== 'string' || typeof merges !== 'string') {
      throw new Error('source.tokenizer needs {vocab, merges}: the text of vocab.json and merges.txt');
    }
    return { vocab, merges, from: 'the given vocab.json + merges.txt' };
  }
  if (source?.tokenizerFiles === false) return null;
  if (source?.files != null) return fromFiles(Array.from(source.files));
  if (source?.url != null) return fromUrl(new URL(String(source.url).replace(/\/?$/, '/'), base), { signal, stallMs });
  return null;
}

async function fromFiles(files) {
  for (const [vocabName, mergesName] of TOKENIZER_LAYOUTS) {
    const vocab = files.find((f) => f.name === vocabName);
    if (!vocab) continue;
    const merges = files.find((f) => f.name === mergesName);
    if (!merges) throw new Error(`found ${vocabName} but not ${mergesName}: choose both (or neither)`);
    for (const f of [vocab, merges]) {
      if (f.size > TEXT_LIMIT) throw new Error(`${f.name} is ${f.size} bytes, more than a tokenizer file can be`);
    }
    return { vocab: await vocab.text(), merges: await merges.text(), from: `${vocabName} + ${mergesName}` };
  }
  return null;
}

async function fromUrl(dir, { signal, stallMs }) {
  for (const [vocabName, mergesName] of TOKENIZER_LAYOUTS) {
    const vocab = await fetchBytes(new URL(vocabName, dir), { signal, stallMs, optional: true });
    if (!vocab) continue;
    const merges = await fetchBytes(new URL(mergesName, dir), { signal, stallMs, optional: true });
    if (!merges) throw new Error(`${new URL(vocabName, dir).href} is there but not ${mergesName} next to it`);
    return { vocab: text(vocab), merges: text(merges), from: `${new URL(vocabName, dir).href} + ${mergesName}` };
  }
  return null;
}
