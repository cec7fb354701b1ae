// Lets every WebAssembly module of a build share one JS glue (called by scripts/build-wasm.sh after the builds).
//   node scripts/share-wasm-glue.mjs <simd.js> <other.js> <other.wasm> <output .wasm> [--subset]
// Emscripten writes the same glue for each build but for a few details: the default .wasm file name (unused:
// web/runtime/blockscope.js hands the glue the chosen module's .wasm) and the one-letter names its minifier gives the
// module's exports, which follow the order wasm-ld happens to emit them in (in the baseline build `free` comes
// earlier), as does the order of the glue's wrapper functions for them. This writes the other module with its exports
// renamed to the SIMD build's names to <output .wasm>, after checking that the two glues are then identical; any other
// difference (an import or export only one module has) is an error. The same for the imports the glue provides
// (asmLibraryArg), whose one-letter names can also come in another order; an import the glue does not provide is an
// error too. Called for the baseline and simd-relaxed full modules and for both light modules.
// With --subset (a light module, wasm/CMakeLists.txt) the other module may import fewer of the glue's functions:
// every statement of its glue must then appear, renamed, in the SIMD build's glue, every function it imports must be
// provided there under the same name, and it must use the same exports; the SIMD glue, which only has more library
// functions, then serves it.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename } from 'node:path';

import { exportSection, importSection, readExports, readImports, wasmSections } from './wasm-sections.mjs';

const args = process.argv.slice(2);
const subset = args.includes('--subset');
const [simdGluePath, otherGluePath, otherWasmPath, outputPath] = args.filter((a) => a !== '--subset');
const simdGlue = readFileSync(simdGluePath, 'utf8');
const otherGlue = readFileSync(otherGluePath, 'utf8');
const other = basename(otherGluePath, '.js'); // e.g. blockscope-baseline, blockscope-light-simd
const fail = (message) => {
  console.error(`share-wasm-glue: ${message}`);
  process.exit(1);
};

/** Map from what the glue does with an export (`wasmTable=`, `Module["_free"]=`, `addOnInit(`) to its name. */
function exportUses(glue) {
  const uses = new Map();
  for (const [, use, name] of glue.matchAll(/([\w$]+(?:\["[\w$]+"\])?[=(])Module\["asm"\]\["([\w$]+)"\]/g)) {
    if (uses.has(use) && uses.get(use) !== name) throw new Error(`the glue uses two exports as ${use}`);
    uses.set(use, name);
  }
  return uses;
}

const simdUses = exportUses(simdGlue);
const otherUses = exportUses(otherGlue);
const rename = new Map(); // other export name -> SIMD export name
for (const [use, name] of otherUses) {
  if (!simdUses.has(use)) fail(`only ${other}'s glue uses an export as ${use}`);
  rename.set(name, simdUses.get(use));
}
for (const use of simdUses.keys()) if (!otherUses.has(use)) fail(`${other}'s glue uses no export as ${use}`);

// The same holds for the imports: the glue hands the module its JS functions as `asmLibraryArg={"p":__embind_...}`,
// one-letter names that follow the order the linker first meets each import in (which inlining can change between
// the flavours). Map each of the other module's letters to the SIMD build's letter for the same function.
const IMPORTS = /var asmLibraryArg=\{([^}]*)\}/;
function importLetters(glue) {
  const body = glue.match(IMPORTS)?.[1];
  if (body === undefined) throw new Error('no asmLibraryArg in the glue');
  return new Map([...body.matchAll(/"([\w$]+)":([\w$]+)/g)].map(([, letter, fn]) => [fn, letter]));
}
const simdImports = importLetters(simdGlue);
const otherImports = importLetters(otherGlue);
const importRename = new Map(); // other import name -> SIMD import name
for (const [fn, letter] of otherImports) {
  if (!simdImports.has(fn)) fail(`only ${other} imports ${fn}`);
  importRename.set(letter, simdImports.get(fn));
}
if (!subset) for (const fn of simdImports.keys()) if (!otherImports.has(fn)) fail(`${other} does not import ${fn}`);

const wasm = readFileSync(otherWasmPath);
// The import section: the glue's functions are the function imports (kind 0) of module "a"; only their field names
// change. A function the glue does not provide would fail at instantiation (a simd-relaxed kernel left unmerged).
// The export section: every export renamed to the SIMD build's name for the same thing.
const parts = [wasm.subarray(0, 8)];
for (const s of wasmSections(wasm)) {
  if (s.id === 2) {
    parts.push(importSection(readImports(wasm, s).map((i) => {
      if (i.module !== 'a' || i.kind !== 0) return i;
      if (!importRename.has(i.field)) fail(`${other} imports a.${i.field}, which its glue does not provide`);
      return { ...i, field: importRename.get(i.field) };
    })));
  } else if (s.id === 7) {
    const names = new Set();
    parts.push(exportSection(readExports(wasm, s).map((e) => {
      const name = rename.get(e.name) ?? e.name;
      if (names.has(name)) fail(`${other}'s export ${e.name} would be renamed to ${name}, which it already has`);
      names.add(name);
      return { ...e, name };
    })));
  } else {
    parts.push(wasm.subarray(s.start, s.end));
  }
}
const renamedWasm = Buffer.concat(parts);

// The other glue as it reads with the renamed exports and imports and the SIMD file name.
const renamedGlue = otherGlue
  .replace(/Module\["asm"\]\["([\w$]+)"\]/g, (_, name) => `Module["asm"]["${rename.get(name) ?? name}"]`)
  .replace(IMPORTS, (_, body) => `var asmLibraryArg={${body.replace(/"([\w$]+)":/g,
    (__, letter) => `"${importRename.get(letter) ?? letter}":`)}}`)
  .replaceAll(`${other}.wasm`, `${basename(simdGluePath, '.js')}.wasm`);

if (subset) {
  // Every top-level statement of the module factory, the imports' table aside (checked above), must be one of the SIMD
  // glue's: the SIMD glue then does all the other glue does, and more only in functions this module never calls.
  const have = new Set(factoryStatements(simdGlue));
  const missing = factoryStatements(renamedGlue).find((s) => !IMPORTS.test(s) && !have.has(s));
  if (missing !== undefined) fail(`the SIMD build's glue cannot serve ${other}: it lacks\n  ${missing.slice(0, 300)}`);
} else {
  // The renamed glue must be the SIMD glue, up to the order of the export wrappers
  // (`var _free=Module["_free"]=function(){return(...)}`, independent declarations).
  const WRAPPER = /^var [\w$]+=Module\["[\w$]+"\]=function\(\)\{return\(/;
  const statements = (glue) => {
    const parts = glue.split(';');
    const at = parts.flatMap((s, i) => (WRAPPER.test(s) ? [i] : []));
    const sorted = at.map((i) => parts[i]).sort();
    at.forEach((i, k) => { parts[i] = sorted[k]; });
    return parts;
  };
  const a = statements(simdGlue);
  const b = statements(renamedGlue);
  if (a.join(';') !== b.join(';')) {
    const i = a.findIndex((s, k) => s !== b[k]);
    fail(`the simd and ${other} builds need different JS glue; first difference:\n` +
      `  simd:  ${a[i]?.slice(0, 300)}\n  other: ${b[i]?.slice(0, 300)}`);
  }
}

/**
 * The source text of each statement of the glue's module factory (the function with the most statements), parsed with
 * acorn, the JavaScript parser Emscripten itself needs (Debian's node-acorn, found through NODE_PATH as build-wasm.sh
 * sets it).
 */
function factoryStatements(glue) {
  let acorn;
  try {
    acorn = createRequire(import.meta.url)('acorn');
  } catch {
    fail('acorn is missing (Debian: apt-get install node-acorn, which emscripten pulls in; NODE_PATH=/usr/share/nodejs)');
  }
  let body = [];
  const visit = (node) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node.type !== 'string') return;
    if (/Function/.test(node.type) && node.body.type === 'BlockStatement' && node.body.body.length > body.length) {
      body = node.body.body;
    }
    for (const value of Object.values(node)) if (value && typeof value === 'object') visit(value);
  };
  visit(acorn.parse(glue, { ecmaVersion: 2022, sourceType: 'module' }));
  return body.map((node) => glue.slice(node.start, node.end));
}

let previous = null;
try {
  previous = readFileSync(outputPath);
} catch {
  // not built yet
}
if (!previous?.equals(renamedWasm)) writeFileSync(outputPath, renamedWasm);
