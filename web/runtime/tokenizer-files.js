// tokenizer-files.js — finds a checkpoint's own tokenizer files among dropped files, at a directory URL (bounded
// downloads; a 404 means "not there"), or given as text. Which files to look for, and in which order, is the core's
// rule (tokenizer_files.hpp, the CLI's too): blockscope.js passes the layouts the core names for the model's
// vocabulary — GPT-2-format byte-level BPE (vocab.json + merges.txt, then encoder.json + vocab.bpe) from 256 ids up,
// tokens.json below — so a page requests no file that could not be the model's tokenizer. Returns their text; the
// core parses them (blockscope.js's loadTokenizer). No wasm here.
import { fetchBytes, TEXT_LIMIT } from './downloads.js';

const text = (bytes) => new TextDecoder().decode(bytes);

/**
 * The tokenizer files of a model source ({url}, {files}, {config, weights}; see loadModel), as {kind, texts, from}:
 * the layout's kind ('gpt2' or 'symbols'), its files' text in order, and where they came from (e.g.
 * "https://…/vocab.json + merges.txt"); null when it has none. `layouts` ([{kind, files}], the core's
 * tokenizerLayouts) are looked for in order. source.tokenizer gives the text instead — {vocab, merges} (a BPE) or
 * {tokens} (tokens.json's) —; source.tokenizerFiles === false says there are none (no request is made). A layout's
 * first file without the rest is an error naming them.
 */
export async function findTokenizerFiles(source, layouts, { base, signal, stallMs } = {}) {
  if (source?.tokenizer != null) return given(source.tokenizer);
  if (source?.tokenizerFiles === false) return null;
  if (source?.files != null) return fromFiles(Array.from(source.files), layouts);
  if (source?.url != null) {
    return fromUrl(new URL(String(source.url).replace(/\/?$/, '/'), base), layouts, { signal, stallMs });
  }
  return null;
}

function given({ vocab, merges, tokens }) {
  if (tokens != null) {
    if (typeof tokens !== 'string') throw new Error('source.tokenizer.tokens must be the text of a tokens.json file');
    return { kind: 'symbols', texts: [tokens], from: 'the given tokens.json' };
  }
  if (typeof vocab !== 'string' || typeof merges !== 'string') {
    throw new Error('source.tokenizer needs {vocab, merges} (the text of vocab.json and merges.txt) or {tokens} (of tokens.json)');
  }
  return { kind: 'gpt2', texts: [vocab, merges], from: 'the given vocab.json + merges.txt' };
}

async function fromFiles(files, layouts) {
  for (const { kind, files: names } of layouts) {
    const found = names.map((name) => files.find((f) => f.name === name));
    if (!found[0]) continue;
    const missing = names.filter((_, i) => !found[i]);
    if (missing.length) throw new Error(`found ${names[0]} but not ${missing.join(' + ')}: choose both (or neither)`);
    for (const f of found) {
      if (f.size > TEXT_LIMIT) throw new Error(`${f.name} is ${f.size} bytes, more than a tokenizer file can be`);
    }
    return { kind, texts: await Promise.all(found.map((f) => f.text())), from: names.join(' + ') };
  }
  return null;
}

async function fromUrl(dir, layouts, { signal, stallMs }) {
  for (const { kind, files: names } of layouts) {
    const first = await fetchBytes(new URL(names[0], dir), { signal, stallMs, optional: true });
    if (!first) continue;
    const texts = [text(first)];
    for (const name of names.slice(1)) {
      const bytes = await fetchBytes(new URL(name, dir), { signal, stallMs, optional: true });
      if (!bytes) throw new Error(`${new URL(names[0], dir).href} is there but not ${name} next to it`);
      texts.push(text(bytes));
    }
    return { kind, texts, from: [new URL(names[0], dir).href, ...names.slice(1)].join(' + ') };
  }
  return null;
}
