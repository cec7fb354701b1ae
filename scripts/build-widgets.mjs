// build-widgets.mjs — the widget bundle (scripts/build-web.sh runs it): web/widgets/index.js split by esbuild into
// web/dist/blockscope-widgets.js (the entry) and chunk-<name>-<hash>.js next to it — each element's module with its
// English messages, and the code several share. Every chunk sits in dist/ itself, next to the entry: the URLs the
// code resolves from import.meta.url (the defines below, the presets', models' and data's ../) hold for any file.
// Two passes: the first builds the chunks to learn which files each element's code needs beyond what the entry
// imports; the second builds the same chunks with that list in the entry (BLOCKSCOPE_ELEMENT_FILES), so a page that
// loads an element asks for all of its files at once (kit/elements.js preloads them) instead of one import level at
// a time; a widget's list also has the in-thread runtime's files, which start its runtime on the page. Nothing imports the entry, so only the entry differs between the passes; the build checks it.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import * as esbuild from 'esbuild';

import { hintFile } from './bundler-hints.mjs';
import { chunkGraph, closure, ENTRY, inThreadChunk, pageFiles } from './widget-chunks.mjs';
import { ELEMENT_TAGS, WIDGET_TAGS } from '../web/widgets/kit/elements.js';

const DIST = new URL('../web/dist/', import.meta.url).pathname;
const options = (outdir, files) => ({
  entryPoints: { 'blockscope-widgets': new URL('../web/widgets/index.js', import.meta.url).pathname },
  outdir, bundle: true, splitting: true, format: 'esm', target: 'es2022', minify: true, sourcemap: 'external',
  legalComments: 'eof', chunkNames: 'chunk-[name]-[hash]', logLevel: 'warning',
  define: {
    // The worker (blockscope-worker.js, not the runtime's source worker.js: runtime/locations.js), the wasm files and
    // the other languages' tables, next to the bundle (resolved from import.meta.url, so a bundle on a CDN finds them
    // there). The bundle carries the in-thread runtime (a chunk loaded only when no worker can start).
    BLOCKSCOPE_BUNDLED: 'true',
    // The list as a string literal: esbuild puts an object-valued define into a chunk that every file imports.
    BLOCKSCOPE_ELEMENT_FILES: JSON.stringify(JSON.stringify(files)),
  },
});
const chunks = (dir) => readdirSync(dir).filter((f) => /^chunk-.*\.js$/.test(f)).sort();

// The chunks of an older build go first (their names are content hashes).
for (const f of readdirSync(DIST)) if (/^chunk-.*\.js(\.map)?$/.test(f)) rmSync(join(DIST, f));
// Pass 1 (into dist/ too: the chunks' hashes cover their source maps, whose paths depend on the directory). The
// list's shape is the same in both passes, so the entry imports the same names from its chunks.
await esbuild.build(options(DIST, {}));
const graph = chunkGraph(DIST);
const early = closure(graph, [ENTRY]); // loaded with the entry already
// A widget's runtime starts with the light module on the page's thread (runtime/pool.js), so the in-thread runtime's
// files come with every widget's.
const inThread = closure(graph, [inThreadChunk(graph)]);
const files = Object.fromEntries(ELEMENT_TAGS.map((tag) => [tag,
  [...new Set([...pageFiles(graph, [tag]), ...(WIDGET_TAGS.includes(tag) ? inThread : [])])].filter((f) => !early.has(f))]));
const first = chunks(DIST);
// Pass 2: the same chunks, and the entry with the list.
await esbuild.build(options(DIST, files));
const second = chunks(DIST);
if (first.join() !== second.join()) {
  throw new Error(`the widget bundle's chunks differ between the two passes (${second.filter((f) => !first.includes(f)).join(', ')}): ` +
    'something other than the entry depends on BLOCKSCOPE_ELEMENT_FILES');
}
// The comments app bundlers need on import()s of computed URLs, which minifying dropped (bundler-hints.mjs).
for (const f of second) hintFile(join(DIST, f));
