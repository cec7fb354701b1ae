// Lets the two WebAssembly flavours share one JS glue (called by scripts/build-wasm.sh after both builds).
//   node scripts/share-wasm-glue.mjs <simd.js> <baseline.js> <baseline.wasm> <output .wasm>
// Emscripten writes the same glue for both builds but for two details: the default .wasm file name (unused:
// web/runtime/blockscope.js hands the glue the chosen flavour's .wasm) and the one-letter names its minifier gives the
// module's exports, which follow the order wasm-ld happens to emit them in (in the baseline build `free` comes
// earlier), as does the order of the glue's wrapper functions for them. This writes the baseline module with its exports renamed to the SIMD build's names to <output .wasm>,
// after checking that the two glues are then identical; any other difference (an import or export only one flavour
// has) is an error.
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

// The export section (id 7) is a vector of (name, kind byte, index); names are LEB128-length-prefixed UTF-8.
const wasm = readFileSync(baselineWasmPath);
const parts = [wasm.subarray(0, 8)];
for (const { id, start, body: at, end } of wasmSections(wasm)) {
  if (id !== 7) {
    parts.push(wasm.subarray(start, end));
    continue;
  }
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
