// The widget bundle as built in web/dist/ (scripts/build-web.sh), split per element: the entry imports no element's
// code, each element's chunk imports no other element's, each widget's English messages are in its own chunk and in no
// other file, the other languages stay modules of their own, and every per-element module re-exports its element's
// chunk. (tests/browser/widget-chunks.test.mjs checks what Chromium actually downloads.)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';
import { fileURLToPath } from 'node:url';

import { chunkGraph, closure, elementChunk, ENTRY, pageFiles } from '../../scripts/widget-chunks.mjs';
import { ELEMENT_TAGS, WIDGET_TAGS } from '../../web/widgets/kit/elements.js';

const DIST = fileURLToPath(new URL('../../web/dist/', import.meta.url));
const graph = chunkGraph(DIST);
const chunkOf = Object.fromEntries(ELEMENT_TAGS.map((tag) => [tag, elementChunk(graph, tag)]));
const text = (name) => graph.files.get(name).bytes.toString('utf8');
/** `message` as esbuild writes it inside a string literal: ASCII, the rest as \xHH or \uHHHH escapes. */
const escaped = (message) => message.replace(/[^\x00-\x7f]/g, (c) => {
  const hex = c.charCodeAt(0).toString(16).toUpperCase();
  return hex.length <= 2 ? `\\x${hex.padStart(2, '0')}` : `\\u${hex.padStart(4, '0')}`;
});

test('every element has a chunk of its own, loaded on demand; nothing imports the entry', () => {
  assert.equal(new Set(Object.values(chunkOf)).size, ELEMENT_TAGS.length);
  for (const [name, file] of graph.files) assert.ok(!file.imports.includes(ENTRY) && !file.loads.includes(ENTRY), `${name} imports the entry`);
  const entry = closure(graph, [ENTRY]);
  for (const [tag, chunk] of Object.entries(chunkOf)) assert.ok(!entry.has(chunk), `the entry imports <${tag}>'s code`);
  assert.ok(![...entry].some((f) => f.startsWith('chunk-in-thread-')), 'the entry imports the in-thread runtime');
});

test('a page with one element downloads no other element\'s chunk', () => {
  for (const tag of ELEMENT_TAGS) {
    const files = pageFiles(graph, [tag]);
    const others = ELEMENT_TAGS.filter((t) => t !== tag && files.has(chunkOf[t]));
    assert.deepEqual(others, [], `<${tag}> alone downloads the code of ${others.join(', ')}`);
  }
});

test('each widget\'s English messages are in its chunk and in no other file; German and Spanish in none', async () => {
  for (const tag of [...WIDGET_TAGS, 'blockscope-tour']) {
    const file = tag === 'blockscope-tour' ? 'tour' : tag;
    const { default: en } = await import(`../../web/widgets/i18n/en/${file}.js`);
    const { default: de } = await import(`../../web/widgets/i18n/de/${file}.js`);
    // A long message of the widget's own, as esbuild writes string literals (JSON-like, minified).
    const [key, message] = Object.entries(en).filter(([, m]) => typeof m === 'string' && !/["\\\n]/.test(m))
      .sort((a, b) => b[1].length - a[1].length)[0];
    const holders = [...graph.files.keys()].filter((name) => text(name).includes(escaped(message)));
    assert.deepEqual(holders, [chunkOf[tag]], `en ${key} of <${tag}>`);
    const german = escaped(de[key]);
    assert.ok(![...graph.files.keys()].some((name) => text(name).includes(german)), `de ${key} of <${tag}> is in the bundle`);
    assert.ok(readFileSync(`${DIST}i18n/de.js`, 'utf8').includes(german), `dist/i18n/de.js lacks de ${key}`);
  }
});

test('every per-element module re-exports its element\'s chunk', () => {
  for (const tag of ELEMENT_TAGS) {
    const module = readFileSync(`${DIST}widgets/${tag}.js`, 'utf8');
    assert.match(module, new RegExp(`^export \\{ \\w+, \\w+ as default \\} from '\\.\\./${chunkOf[tag]}';$`, 'm'), `dist/widgets/${tag}.js`);
  }
});
