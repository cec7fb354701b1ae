// Download-size benchmark (not a test): gzip -9 and brotli bytes of each wasm module (simd and baseline, each light and
// full, and simd-relaxed's full one: its light module is simd's) and of the JS glue they share, as built in web/dist/; the
// most of them one page downloads (the glue, a light module and the largest full one) against the 300 KB gzip budget,
// and everything a package or CDN ships; the worker bundle, what a page downloads of the widget bundle (its entry and the chunks of
// the widgets it shows: each widget alone, and the lesson page), and the wasm sections by size. A page downloads the
// glue and one flavour's light module, and that flavour's full module when a widget first needs it.
// Run after `scripts/build.sh wasm`:  npm run bench:size  (writes docs/performance.md's download section)
import { existsSync, readFileSync } from 'node:fs';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';

import { lebReader, wasmSections } from '../scripts/wasm-sections.mjs';
import { chunkGraph, closure, ENTRY, inThreadChunk, pageFiles } from '../scripts/widget-chunks.mjs';
import { ELEMENT_TAGS, WIDGET_TAGS } from '../web/widgets/kit/elements.js';
import { report } from './report.mjs';

const DIST = new URL('../web/dist/', import.meta.url);
const BUDGET = 300 * 1024;
const gz = (b) => gzipSync(b, { level: 9 }).length;
const br = (b) => brotliCompressSync(b, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11 } }).length;
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

/** [{name, size, gzip}] of a wasm binary's sections (custom sections by their name). */
function sections(bytes) {
  const NAMES = ['custom', 'type', 'import', 'function', 'table', 'memory', 'global', 'export', 'start', 'element',
    'code', 'data', 'datacount', 'tag'];
  return wasmSections(bytes).map(({ id, body, end }) => {
    let name = NAMES[id] ?? `section ${id}`;
    if (id === 0) {
      const r = lebReader(bytes, body);
      const n = r.next();
      name = `custom "${new TextDecoder().decode(bytes.subarray(r.at, r.at + n))}"`;
    }
    return { name, size: end - body, gzip: gz(bytes.subarray(body, end)) };
  });
}

const out = report('download', 'npm run bench:size');
await out.capture(() => {
  const glue = readFileSync(new URL('blockscope-glue.js', DIST));
  let combined = gz(glue);
  console.log('| file | bytes | gzip -9 | brotli |\n|---|---:|---:|---:|');
  console.log(`| blockscope-glue.js (every module) | ${kb(glue.length)} | ${kb(gz(glue))} | ${kb(br(glue))} |`);
  const wasm = {};
  for (const flavour of ['simd', 'simd-relaxed', 'baseline']) {
    for (const name of flavour === 'simd-relaxed' ? [flavour] : [`light-${flavour}`, flavour]) {
      wasm[name] = readFileSync(new URL(`blockscope-${name}.wasm`, DIST));
      combined += gz(wasm[name]);
      console.log(`| blockscope-${name}.wasm | ${kb(wasm[name].length)} | ${kb(gz(wasm[name]))} | ${kb(br(wasm[name]))} |`);
    }
  }
  const first = gz(glue) + gz(wasm['light-simd']);
  console.log(`\na page's first download (glue + light SIMD128 module), gzip -9: ${kb(first)}; ` +
    `+ ${kb(gz(wasm.simd))} when a widget needs the full module (simd-relaxed's: ${kb(gz(wasm['simd-relaxed']))})`);
  // A page loads one flavour: the budget holds for the most it can download (a package ships every module).
  const most = gz(glue) + Math.max(gz(wasm['light-simd']), gz(wasm['light-baseline'])) +
    Math.max(gz(wasm.simd), gz(wasm['simd-relaxed']), gz(wasm.baseline));
  console.log(`the most one page downloads of the core (glue + light + the largest full module), gzip -9: ${kb(most)} of the ` +
    `${kb(BUDGET)} budget (${most <= BUDGET ? `${kb(BUDGET - most)} under` : `${kb(most - BUDGET)} OVER`}); every module of ` +
    `every flavour and the glue (what the package ships): ${kb(combined)}`);
  // The worker bundle (scripts/build-web.sh), which a page loads when one of its widgets needs more than the light
  // module (the light one runs on the page: web/runtime/pool.js).
  console.log('\n| bundle | bytes | gzip -9 | brotli |\n|---|---:|---:|---:|');
  const worker = new URL('blockscope-worker.js', DIST);
  if (!existsSync(worker)) throw new Error('web/dist/blockscope-worker.js is missing: run `bash scripts/build-web.sh` first');
  const js = readFileSync(worker);
  console.log(`| blockscope-worker.js | ${kb(js.length)} | ${kb(gz(js))} | ${kb(br(js))} |`);
  widgetPages();
  for (const name of ['simd', 'light-simd']) {
    console.log(`\n| ${name} wasm section | bytes | gzip alone |\n|---|---:|---:|`);
    for (const s of sections(wasm[name]).sort((a, b) => b.size - a.size)) console.log(`| ${s.name} | ${s.size} | ${s.gzip} |`);
  }
});
out.publish();

/**
 * What a page downloads of the widget bundle: the entry and every chunk it and the chunks of the elements it shows
 * import (each file compressed alone, as a server sends it), for each widget alone (embed.html), the lesson page
 * (index.html's elements) and the whole bundle.
 */
function widgetPages() {
  const graph = chunkGraph(DIST);
  const lesson = ELEMENT_TAGS.filter((tag) => readFileSync(new URL('../index.html', DIST), 'utf8').includes(`<${tag}`));
  // A page's elements, each with its chunks and its per-element module (fetched while the page loads: kit/elements.js),
  // and the in-thread runtime, which computes the light calls on the page.
  const runtime = closure(graph, [inThreadChunk(graph)]);
  const page = (tags) => [...new Set([...pageFiles(graph, tags), ...runtime])].map((name) => graph.files.get(name).bytes)
    .concat(tags.map((tag) => readFileSync(new URL(`widgets/${tag}.js`, DIST))));
  const rows = [
    ['the entry alone (a page that only scripts the core: connect())', [...closure(graph, [ENTRY])].map((n) => graph.files.get(n).bytes)],
    ...WIDGET_TAGS.map((tag) => [`\`<${tag}>\` alone`, page([tag])]),
    [`the lesson page (its ${lesson.length} elements)`, page(lesson)],
    ['every file of the bundle', [...graph.files.values()].map((f) => f.bytes)],
  ];
  console.log(`\nWhat a page downloads of the widget bundle (${ENTRY}, its chunks and the shown elements' modules, each`,
    'compressed alone, with the in-thread runtime that computes the light calls on the page; not the worker bundle above):\n');
  console.log('| page | files | bytes | gzip -9 | brotli |\n|---|---:|---:|---:|---:|');
  for (const [label, files] of rows) {
    const sum = (f) => files.reduce((n, b) => n + f(b), 0);
    console.log(`| ${label} | ${files.length} | ${kb(sum((b) => b.length))} | ${kb(sum(gz))} | ${kb(sum(br))} |`);
  }
}
