// widget-chunks.mjs — the widget bundle's chunks as built in web/dist/ (scripts/build-web.sh): which files import
// which (statically, or with import() on demand), and so which files a page showing given elements downloads — the
// entry, each element's chunk and every chunk those import. Read from the built files themselves (esbuild writes
// `from"./chunk-….js"` and `import("./chunk-….js")`), so it describes what a browser fetches. bench/size.mjs prints
// the bytes per single-widget embed from it; tests check the split with it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';

export const ENTRY = 'blockscope-widgets.js';
const CHUNK = /^chunk-[\w-]+\.js$/;

/**
 * {files: Map(name -> {bytes, imports: [names imported statically], loads: [names imported on demand]})} of the
 * entry and its chunks in directory `dist` (a file: URL or path).
 */
export function chunkGraph(dist) {
  const dir = typeof dist === 'string' ? dist : dist.pathname;
  if (!existsSync(`${dir}/${ENTRY}`)) throw new Error(`${dir}/${ENTRY} is missing: run \`bash scripts/build-web.sh\` first`);
  const files = new Map();
  for (const name of [ENTRY, ...readdirSync(dir).filter((f) => CHUNK.test(f)).sort()]) {
    const bytes = readFileSync(`${dir}/${name}`);
    const text = bytes.toString('utf8');
    const imports = [...text.matchAll(/(?:\bfrom|\bimport)\s*"\.\/([^"]+)"/g)].map((m) => m[1]);
    const loads = [...text.matchAll(/\bimport\("\.\/([^"]+)"\)/g)].map((m) => m[1]);
    files.set(name, { bytes, imports, loads });
  }
  for (const [name, { imports, loads }] of files) {
    const missing = [...imports, ...loads].filter((f) => !files.has(f));
    if (missing.length > 0) throw new Error(`${name} imports ${missing.join(', ')}, which the build does not have`);
  }
  return { files };
}

/** `names` and every file they import statically (what the browser fetches before evaluating them), in a Set. */
export function closure(graph, names) {
  const out = new Set();
  const visit = (name) => {
    if (out.has(name)) return;
    out.add(name);
    for (const dep of graph.files.get(name).imports) visit(dep);
  };
  for (const name of names) visit(name);
  return out;
}

/**
 * The chunk that defines element `tag` (the entry loads it on demand): chunk-<module name>-<hash>.js, where the
 * module is web/widgets/<tag>/<tag>.js, or tour/tour.js for <blockscope-tour>.
 */
export function elementChunk(graph, tag) {
  const base = tag === 'blockscope-tour' ? 'tour' : tag;
  const loaded = new Set([...graph.files.values()].flatMap((f) => f.loads));
  const found = [...loaded].filter((name) => new RegExp(`^chunk-${base}-[A-Z0-9]+\\.js$`).test(name));
  if (found.length !== 1) throw new Error(`<${tag}>: expected one chunk loaded on demand, found ${found.join(', ') || 'none'}`);
  return found[0];
}

/** The chunk of the in-thread runtime (runtime/in-thread.js), which the runtime client loads on demand. */
export function inThreadChunk(graph) {
  const found = [...graph.files.keys()].filter((name) => /^chunk-in-thread-[A-Z0-9]+\.js$/.test(name));
  if (found.length !== 1) throw new Error(`expected one in-thread runtime chunk, found ${found.join(', ') || 'none'}`);
  return found[0];
}

/** Every file a page showing elements `tags` downloads from the widget bundle (entry and chunks), in a Set. */
export function pageFiles(graph, tags) {
  return closure(graph, [ENTRY, ...tags.map((tag) => elementChunk(graph, tag))]);
}
