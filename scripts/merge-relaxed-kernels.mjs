// The simd-relaxed flavour's two post-link steps on an Emscripten program (core/relaxed_kernels.cmake runs them):
//   node scripts/merge-relaxed-kernels.mjs name-imports <program>          right after the link
//   node scripts/merge-relaxed-kernels.mjs merge <program> <kernels.wasm>  last
// <program> is the output path without .js: <program>.wasm, <program>.js (the glue) and <program>.js.symbols.
// name-imports: the relaxed kernels (kernels.hpp) are undefined at the Emscripten link, so they are imports of the
// .wasm under minified names the glue does not provide; Emscripten's symbol map says which function each one is, and
// they are renamed to ("relaxed_simd", the kernel module's export name). An import the glue does not provide that is
// no relaxed kernel is an undefined symbol, and fails the build here.
// merge: the kernel module (the multiply-add kernels built by clang 16 with f32x4.relaxed_madd) runs on the memory
// Emscripten lays out (stack, static data, heap), so it must own nothing in it: no stack pointer or other globals (a
// kernel that kept an array on a stack of its own would write over Emscripten's data), no data segments, tables or
// memory, and it may import nothing but that memory. Anything else fails the build, naming what it found. Binaryen's
// wasm-merge (the npm package binaryen, whose tools read relaxed SIMD) then connects the program's kernel imports to
// the kernel module's exports and the kernel module's memory import to the program's memory; the kernels' exports are
// dropped again, so the result has the program's exports and the glue's imports, and one JS glue serves it
// (scripts/share-wasm-glue.mjs).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { exportSection, importSection, readExports, readImports, wasmSections } from './wasm-sections.mjs';

const [mode, program, kernelsPath] = process.argv.slice(2);
if (!(mode === 'name-imports' && program) && !(mode === 'merge' && kernelsPath)) {
  console.error('usage: node scripts/merge-relaxed-kernels.mjs name-imports <program> | merge <program> <kernels.wasm>');
  process.exit(2);
}
const programPath = `${program}.wasm`;
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BIN = join(ROOT, 'node_modules', '.bin');
const IMPORT_MODULE = 'relaxed_simd'; // kernels.hpp's BLOCKSCOPE_RELAXED_KERNEL
const PROGRAM = 'blockscope'; // the program's name inside wasm-merge
// What the two modules declare (their target_features sections): binaryen validates against these, writes them into
// the result's, and emits no section a feature outside them would need (bulk memory's data count, for one).
const FEATURES = ['--mvp-features', '--enable-simd', '--enable-relaxed-simd', '--enable-exception-handling',
  '--enable-sign-ext', '--enable-mutable-globals'];
const SECTION_NAMES = { 4: 'a table', 5: 'a memory of its own', 6: 'globals (a stack pointer: some kernel keeps an array on the stack)',
  8: 'a start function', 9: 'table elements', 11: 'data segments', 12: 'data segments', 13: 'exception tags' };

const fail = (message) => {
  console.error(`merge-relaxed-kernels: ${message}`);
  process.exit(1);
};
const sectionOf = (bytes, id) => wasmSections(bytes).find((s) => s.id === id);
const replaceSection = (bytes, id, replacement) => {
  const s = sectionOf(bytes, id);
  return Buffer.concat([bytes.subarray(0, s.start), replacement, bytes.subarray(s.end)]);
};
const run = (tool, args) => {
  try {
    execFileSync(join(BIN, tool), [...FEATURES, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    fail(`${tool} ${args.join(' ')} failed: ${String(e.stderr || e.message).trim()}`);
  }
};

if (mode === 'name-imports') nameImports();
else merge();

function nameImports() {
  const glue = readFileSync(`${program}.js`, 'utf8');
  const provided = new Set([...(glue.match(/var asmLibraryArg=\{([^}]*)\}/)?.[1] ?? '').matchAll(/"([\w$]+)":/g)].map((m) => m[1]));
  if (!provided.size) fail(`no asmLibraryArg in ${program}.js`);
  const symbols = new Map(readFileSync(`${program}.js.symbols`, 'utf8').split('\n').filter(Boolean)
    .map((line) => [Number(line.slice(0, line.indexOf(':'))), line.slice(line.indexOf(':') + 1)]));
  const bytes = readFileSync(programPath);
  let fn = 0; // function imports come first in the function index space the symbol map numbers
  const undefinedSymbols = [];
  let kernels = 0;
  const imports = readImports(bytes, sectionOf(bytes, 2)).map((i) => {
    if (i.kind !== 0) return i;
    const symbol = symbols.get(fn++) ?? '?';
    if (provided.has(i.field)) return i;
    if (symbol.startsWith('legalimport$')) fail(`${programPath} splits the int64 arguments of ${symbol.slice(12)}: link with -sWASM_BIGINT`);
    const kernel = symbol.match(/^blockscope::kernels::(\w+)__relaxed\\28/)?.[1];
    if (!kernel) return undefinedSymbols.push(symbol.replace(/\\([0-9a-f]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)))), i;
    kernels++;
    return { ...i, module: IMPORT_MODULE, field: kernel };
  });
  if (undefinedSymbols.length) fail(`undefined symbols in ${programPath}: ${undefinedSymbols.join(', ')}`);
  if (!kernels) fail(`${programPath} imports no relaxed kernel: is it a simd-relaxed build?`);
  writeFileSync(programPath, replaceSection(bytes, 2, importSection(imports)));
}

function merge() {
  const tmp = mkdtempSync(join(tmpdir(), 'blockscope-relaxed-'));
  try {
    // wasm-ld always defines a stack pointer and a function table; without a use they go, and whatever is left is used.
    const pruned = join(tmp, 'kernels.wasm');
    run('wasm-opt', [kernelsPath, '--remove-unused-module-elements', '-o', pruned]);
    let kernels = readFileSync(pruned);
    const owned = wasmSections(kernels).filter((s) => SECTION_NAMES[s.id]).map((s) => SECTION_NAMES[s.id]);
    if (owned.length) fail(`the relaxed-SIMD kernel module has ${[...new Set(owned)].join(', ')}; it may own nothing in Emscripten's memory`);
    const kernelImports = sectionOf(kernels, 2) ? readImports(kernels, sectionOf(kernels, 2)) : [];
    const calls = kernelImports.filter((i) => i.kind !== 2);
    if (calls.length) fail(`the relaxed-SIMD kernel module calls ${calls.map((i) => i.field).join(', ')}, which it does not define`);
    if (kernelImports.length !== 1) fail('the relaxed-SIMD kernel module does not import its memory (wasm-ld --import-memory)');
    const kernelNames = readExports(kernels, sectionOf(kernels, 7)).filter((e) => e.kind === 0).map((e) => e.name);

    const programBytes = readFileSync(programPath);
    const programExports = readExports(programBytes, sectionOf(programBytes, 7));
    const memory = programExports.filter((e) => e.kind === 2);
    if (memory.length !== 1) fail(`${programPath} exports ${memory.length} memories, expected 1`);
    const wanted = readImports(programBytes, sectionOf(programBytes, 2)).filter((i) => i.module === IMPORT_MODULE).map((i) => i.field);
    const missing = wanted.filter((n) => !kernelNames.includes(n));
    if (missing.length) fail(`${programPath} imports ${missing.join(', ')} from ${IMPORT_MODULE}, which the kernel module does not export`);
    const unused = kernelNames.filter((n) => !wanted.includes(n));
    if (!wanted.length) fail(`${programPath} imports no kernel from ${IMPORT_MODULE}: is it a simd-relaxed build?`);

    // The kernel module's memory is the program's, under the program's (minified) export name.
    kernels = replaceSection(kernels, 2, importSection([{ ...kernelImports[0], module: PROGRAM, field: memory[0].name }]));
    writeFileSync(pruned, kernels);
    const merged = join(tmp, 'merged.wasm');
    run('wasm-merge', [programPath, PROGRAM, pruned, IMPORT_MODULE, '-o', merged]);
    let out = readFileSync(merged);

    const exportNames = new Set(programExports.map((e) => e.name));
    out = replaceSection(out, 7, exportSection(readExports(out, sectionOf(out, 7)).filter((e) => exportNames.has(e.name))));
    const left = readImports(out, sectionOf(out, 2)).filter((i) => i.module === IMPORT_MODULE || i.module === PROGRAM);
    if (left.length) fail(`after merging, ${programPath} still imports ${left.map((i) => `${i.module}.${i.field}`).join(', ')}`);
    if (readExports(out, sectionOf(out, 7)).length !== programExports.length) fail('merging changed the program\'s exports');
    if (wasmSections(out).some((s) => s.id === 5 && readMemoryCount(out, s) !== 1)) fail('the merged module has more than one memory');
    writeFileSync(programPath, out);
    if (unused.length) console.warn(`merge-relaxed-kernels: ${unused.join(', ')} not used by ${programPath}`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function readMemoryCount(bytes, s) {
  return bytes[s.body]; // a vector length below 128 is one LEB128 byte
}
