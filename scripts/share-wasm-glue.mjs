// Lets the two WebAssembly flavours share one JS glue (called by scripts/build-wasm.sh after both builds).
//   node scripts/share-wasm-glue.mjs <simd.js> <baseline.js> <baseline.wasm> <output .wasm>
// Emscripten writes the same glue for both builds but for two details: the default .wasm file name (unused:
// web/runtime/blockscope.js hands the glue the chosen flavour's .wasm) and the one-letter names its minifier gives the
// module's exports, which follow the order wasm-ld happens to emit them in (in the baseline build `free` comes
// earlier), as does the order of the glue's wrapper functions for them. This writes the baseline module with its exports renamed to the SIMD build's names to <output .wasm>,
// after checking that the two glues are then identical; any other difference (an import or export only one flavour
// has) is an error. The same for the imports the glue provides (asmLibraryArg), whose one-letter names can also come
// in another order.
import { readFileSync, writeFileSync } from 'node:fs';

import { leb, lebReader, wasmSections } from './wasm-sections.mjs';

const [simdGluePath, baselineGluePath, baselineWasmPath, outputPath] = process.argv.slice(2);
const simdGlue = readFileSync(simdGluePath, 'utf8');
const baselineGlue = readFileSync(baselineGluePath, 'utf8');

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
const baselineUses = exportUses(baselineGlue);
const rename = new Map(); // baseline export name -> SIMD export name
for (const [use, name] of baselineUses) {
  if (!simdUses.has(use)) throw new Error(`only the baseline glue uses an export as ${use}`);
  rename.set(name, simdUses.get(use));
}

// The same holds for the imports: the glue hands the module its JS functions as `asmLibraryArg={"p":__embind_...}`,
// one-letter names that follow the order the linker first meets each import in (which inlining can change between
// the flavours). Map each baseline letter to the SIMD build's letter for the same function.
const IMPORTS = /var asmLibraryArg=\{([^}]*)\}/;
function importLetters(glue) {
  const body = glue.match(IMPORTS)?.[1];
  if (body === undefined) throw new Error('no asmLibraryArg in the glue');
  return new Map([...body.matchAll(/"([\w$]+)":([\w$]+)/g)].map(([, letter, fn]) => [fn, letter]));
}
const simdImports = importLetters(simdGlue);
const importRename = new Map(); // baseline import name -> SIMD import name
for (const [fn, letter] of importLetters(baselineGlue)) {
  if (!simdImports.has(fn)) throw new Error(`only the baseline build imports ${fn}`);
  importRename.set(letter, simdImports.get(fn));
}

const wasm = readFileSync(baselineWasmPath);
const name = (r) => {
  const length = r.next();
  const text = wasm.subarray(r.at, r.at + length).toString('utf8');
  r.at += length;
  return text;
};
const named = (text) => {
  const bytes = Buffer.from(text, 'utf8');
  return [...leb(bytes.length), ...bytes];
};
const parts = [wasm.subarray(0, 8)];
for (const { id, start, body: at, end } of wasmSections(wasm)) {
  if (id === 2) {
    // The import section: a vector of (module, field, kind byte, description). The glue's functions are the
    // function imports (kind 0) of module "a"; only their field names change.
    const r = lebReader(wasm, at);
    const count = r.next();
    const body = [...leb(count)];
    for (let i = 0; i < count; i++) {
      const module = name(r);
      const field = name(r);
      const kindStart = r.at;
      const kind = wasm[r.at++];
      if (kind === 0) r.next(); // type index
      else if (kind === 1 || kind === 2) {
        if (kind === 1) r.at++; // reference type
        const flags = wasm[r.at++];
        r.next();
        if (flags & 1) r.next();
      } else if (kind === 3) r.at += 2; // value type, mutability
      else throw new Error(`unknown import kind ${kind}`);
      const renamed = module === 'a' && kind === 0 ? importRename.get(field) ?? field : field;
      body.push(...named(module), ...named(renamed), ...wasm.subarray(kindStart, r.at));
    }
    parts.push(Buffer.from([2, ...leb(body.length), ...body]));
    continue;
  }
  if (id !== 7) {
    parts.push(wasm.subarray(start, end));
    continue;
  }
  // The export section (id 7) is a vector of (name, kind byte, index); names are LEB128-length-prefixed UTF-8.
  const r = lebReader(wasm, at);
  const count = r.next();
  const body = [...leb(count)];
  for (let i = 0; i < count; i++) {
    const length = r.next();
    const name = wasm.subarray(r.at, r.at + length).toString('utf8');
    r.at += length;
    const kindStart = r.at++;
    r.next(); // the index
    const renamed = Buffer.from(rename.get(name) ?? name, 'utf8');
    body.push(...leb(renamed.length), ...renamed, ...wasm.subarray(kindStart, r.at));
  }
  parts.push(Buffer.from([7, ...leb(body.length), ...body]));
}
const renamedWasm = Buffer.concat(parts);

// The baseline glue as it reads with the renamed exports and the SIMD file name must be the SIMD glue, up to the
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
const b = statements(baselineGlue
  .replace(/Module\["asm"\]\["([\w$]+)"\]/g, (_, name) => `Module["asm"]["${rename.get(name) ?? name}"]`)
  .replace(IMPORTS, (_, body) => `var asmLibraryArg={${body.replace(/"([\w$]+)":/g,
    (__, letter) => `"${importRename.get(letter) ?? letter}":`)}}`)
  .replaceAll('blockscope-baseline.wasm', 'blockscope-simd.wasm'));
if (a.join(';') !== b.join(';')) {
  const i = a.findIndex((s, k) => s !== b[k]);
  console.error(`share-wasm-glue: the simd and baseline builds need different JS glue; first difference:\n` +
    `  simd:     ${a[i]?.slice(0, 300)}\n  baseline: ${b[i]?.slice(0, 300)}`);
  process.exit(1);
}
let previous = null;
try {
  previous = readFileSync(outputPath);
} catch {
  // not built yet
}
if (!previous?.equals(renamedWasm)) writeFileSync(outputPath, renamedWasm);
