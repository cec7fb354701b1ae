// Lets the WebAssembly flavours share one JS glue (called by scripts/build-wasm.sh after the builds, once for the
// baseline and once for the simd-relaxed flavour; "other" below is either).
//   node scripts/share-wasm-glue.mjs <simd.js> <other.js> <other.wasm> <output .wasm>
// Emscripten writes the same glue for every build but for two details: the default .wasm file name (unused:
// web/runtime/blockscope.js hands the glue the chosen flavour's .wasm) and the one-letter names its minifier gives the
// module's exports, which follow the order wasm-ld happens to emit them in (in the baseline build `free` comes
// earlier), as does the order of the glue's wrapper functions for them. This writes the other module with its exports
// renamed to the SIMD build's names to <output .wasm>, after checking that the two glues are then identical; any other
// difference (an import or export only one flavour has) is an error. The same for the imports the glue provides
// (asmLibraryArg), whose one-letter names can also come in another order; an import of the module that the glue does
// not provide (a simd-relaxed kernel left unmerged) is an error too.
import { readFileSync, writeFileSync } from 'node:fs';

import { exportSection, importSection, readExports, readImports, wasmSections } from './wasm-sections.mjs';

const [simdGluePath, otherGluePath, otherWasmPath, outputPath] = process.argv.slice(2);
const otherFile = otherGluePath.split('/').pop().replace(/\.js$/, '.wasm'); // blockscope-<flavour>.wasm
const simdGlue = readFileSync(simdGluePath, 'utf8');
const otherGlue = readFileSync(otherGluePath, 'utf8');

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
  if (!simdUses.has(use)) throw new Error(`only the ${otherGluePath} glue uses an export as ${use}`);
  rename.set(name, simdUses.get(use));
}

// The same holds for the imports: the glue hands the module its JS functions as `asmLibraryArg={"p":__embind_...}`,
// one-letter names that follow the order the linker first meets each import in (which inlining can change between
// the flavours). Map each letter of the other build to the SIMD build's letter for the same function.
const IMPORTS = /var asmLibraryArg=\{([^}]*)\}/;
function importLetters(glue) {
  const body = glue.match(IMPORTS)?.[1];
  if (body === undefined) throw new Error('no asmLibraryArg in the glue');
  return new Map([...body.matchAll(/"([\w$]+)":([\w$]+)/g)].map(([, letter, fn]) => [fn, letter]));
}
const simdImports = importLetters(simdGlue);
const importRename = new Map(); // other import name -> SIMD import name
for (const [fn, letter] of importLetters(otherGlue)) {
  if (!simdImports.has(fn)) throw new Error(`only ${otherGluePath} imports ${fn}`);
  importRename.set(letter, simdImports.get(fn));
}

const wasm = readFileSync(otherWasmPath);
const parts = [wasm.subarray(0, 8)];
for (const section of wasmSections(wasm)) {
  if (section.id === 2) {
    // The glue's functions are the function imports (kind 0) of module "a"; only their field names change.
    parts.push(importSection(readImports(wasm, section).map((i) => {
      if (i.module !== 'a' || i.kind !== 0) return i;
      if (!importRename.has(i.field)) throw new Error(`${otherWasmPath} imports a.${i.field}, which the glue does not provide`);
      return { ...i, field: importRename.get(i.field) };
    })));
  } else if (section.id === 7) {
    parts.push(exportSection(readExports(wasm, section).map((e) => ({ ...e, name: rename.get(e.name) ?? e.name }))));
  } else {
    parts.push(wasm.subarray(section.start, section.end));
  }
}
const renamedWasm = Buffer.concat(parts);

// The other glue as it reads with the renamed exports and the SIMD file name must be the SIMD glue, up to the
// order of the export wrappers (`var _free=Module["_free"]=function(){return(...)}`, independent declarations).
const WRAPPER = /^var [\w$]+=Module\["[\w$]+"\]=function\(\)\{return\(/;
const statements = (glue) => {
  const parts = glue.split(';');
  const at = parts.flatMap((s, i) => (WRAPPER.test(s) ? [i] : []));
  const sorted = at.map((i) => parts[i]).sort();
  at.forEach((i, k) => { parts[i] = sorted[k]; });
  return parts;
};
const a = statements(simdGlue);
const b = statements(otherGlue
  .replace(/Module\["asm"\]\["([\w$]+)"\]/g, (_, name) => `Module["asm"]["${rename.get(name) ?? name}"]`)
  .replace(IMPORTS, (_, body) => `var asmLibraryArg={${body.replace(/"([\w$]+)":/g,
    (__, letter) => `"${importRename.get(letter) ?? letter}":`)}}`)
  .replaceAll(otherFile, 'blockscope-simd.wasm'));
if (a.join(';') !== b.join(';')) {
  const i = a.findIndex((s, k) => s !== b[k]);
  console.error(`share-wasm-glue: the simd build and ${otherGluePath} need different JS glue; first difference:\n` +
    `  simd:  ${a[i]?.slice(0, 300)}\n  other: ${b[i]?.slice(0, 300)}`);
  process.exit(1);
}
let previous = null;
try {
  previous = readFileSync(outputPath);
} catch {
  // not built yet
}
if (!previous?.equals(renamedWasm)) writeFileSync(outputPath, renamedWasm);
