// Writes types/runtime.d.ts and types/client.d.ts from the API's one declaration, web/runtime/api.js: its tables
// give each class's members and their kinds, its doc comments the text (first lines), the runtime signature (`@ts`)
// and the page client's where it differs (`@remote`; by default the runtime's, made async, with classes as their
// Remote* proxies). The data shapes both files use are written by hand in types/shapes.d.ts.
//   node scripts/gen-api-types.mjs           rewrite both files
//   node scripts/gen-api-types.mjs --check   exit 1 naming the files that differ (tests/web/api.test.mjs runs it)
import { readFileSync, writeFileSync } from 'node:fs';

import { API, MODULES } from '../web/runtime/api.js';

const ROOT = new URL('../', import.meta.url);
const SOURCE = 'web/runtime/api.js';

/** The doc comments of api.js by `Class.member` (and `module:runtime.loadBlockscope`): {doc, ts, remote}. */
export function readDocs(text = readFileSync(new URL(SOURCE, ROOT), 'utf8')) {
  const docs = new Map();
  let scope = null; // 'Class', or 'module:<entry>' inside MODULES
  let inModules = false;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (/^export const /.test(lines[i])) inModules = /^export const MODULES/.test(lines[i]);
    const open = lines[i].match(/^ {2}(\w+): \{$/);
    if (open) scope = inModules ? `module:${open[1]}` : open[1];
    if (!/^\s*\/\*\*/.test(lines[i])) continue;
    let comment = lines[i];
    while (!comment.includes('*/')) comment += `\n${lines[++i]}`;
    const member = lines[i + 1]?.match(/^\s*(\w+):/)?.[1];
    if (!member || !scope) continue;
    const body = comment.replace(/^\s*\/\*\*/, '').replace(/\*\/\s*$/, '').split('\n')
      .map((l) => l.replace(/^\s*\*\s?/, '')).join(' ').replace(/\s+/g, ' ').trim();
    const tag = (name) => body.match(new RegExp(`@${name} (.*?)(?= @\\w+ |$)`))?.[1].trim() ?? null;
    const doc = body.replace(/@\w+ .*$/, '').trim();
    docs.set(`${scope}.${member}`, { doc, ts: tag('ts'), remote: tag('remote') });
  }
  return docs;
}

const CLIENT_NAMES = { Blockscope: 'RuntimeClient', BaseHandle: 'RemoteObject', Handle: 'RemoteHandle' };
const remoteName = (cls) => CLIENT_NAMES[cls] ?? `Remote${cls}`;
const isSignature = (ts) => ts.startsWith('(');
/** "(a: X): R" -> ["(a: X)", "R"], splitting at the colon after the balanced parameter list. */
function splitSignature(ts) {
  let depth = 0;
  for (let i = 0; i < ts.length; i++) {
    if ('({[<'.includes(ts[i])) depth++;
    else if (')}]'.includes(ts[i]) || (ts[i] === '>' && ts[i - 1] !== '=')) depth--; // `=>` is an arrow
    if (depth === 0 && ts[i] === ')') return [ts.slice(0, i + 1), ts.slice(i + 1).replace(/^\s*:\s*/, '')];
  }
  throw new Error(`not a signature: ${ts}`);
}
const toRemote = (type) => type.replace(/\b(GPT|Block|MultiHeadAttention|FeedForward|Tokenizer|Trainer|ResidualMLP)\b/g,
  (c) => remoteName(c));
const unpromise = (type) => type.replace(/^Promise<(.*)>$/, '$1');

/** A doc comment, wrapped at 120 columns. */
function comment(doc, indent) {
  if (!doc) return '';
  const one = `${indent}/** ${doc} */`;
  if (one.length <= 120) return `${one}\n`;
  const lines = [];
  let line = '';
  for (const word of doc.split(' ')) {
    if (line && `${indent} * ${line} ${word}`.length > 120) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return `${indent}/**\n${lines.map((l) => `${indent} * ${l}\n`).join('')}${indent} */\n`;
}

/** The member's declaration lines on one side ('runtime' or 'client'), or '' when it does not exist there. */
function render(cls, name, spec, d, side) {
  const where = `${cls}.${name}`;
  if (!d?.ts) throw new Error(`${SOURCE}: ${where} has no doc comment with @ts`);
  const onRuntime = spec.kind !== 'client';
  const onClient = spec.kind !== 'runtime';
  if ((side === 'runtime' && !onRuntime) || (side === 'client' && !onClient)) return '';
  const c = comment(d.doc, '  ');
  if (side === 'runtime') {
    if (!isSignature(d.ts)) return `${c}  readonly ${name}: ${d.ts};\n`;
    return `${c}  ${name}${fmtSig(d.ts)};\n`;
  }
  // The page client.
  if (spec.kind === 'client' || spec.kind === 'dispose' || spec.kind === 'stream') {
    const ts = spec.kind === 'client' ? d.ts : d.remote;
    if (!ts) throw new Error(`${SOURCE}: ${where} needs @remote (its client signature)`);
    return isSignature(ts) ? `${c}  ${name}${fmtSig(ts)};\n` : `${c}  readonly ${name}: ${ts};\n`;
  }
  if (d.remote) return `${c}  ${name}${fmtSig(d.remote)};\n`;
  if (spec.kind === 'snapshot') {
    const type = isSignature(d.ts) ? splitSignature(d.ts)[1] : d.ts;
    return `${c}  readonly ${name}: ${toRemote(type)};\n`;
  }
  const [params, ret] = splitSignature(d.ts);
  const result = spec.kind === 'create' ? remoteName(spec.returns) : toRemote(unpromise(ret));
  return `${c}  ${name}${toRemote(params)}: Promise<${result}>;\n`;
}
const fmtSig = (ts) => {
  const [params, ret] = splitSignature(ts);
  return `${params}: ${ret}`;
};

function classBlock(cls, side, docs) {
  const entry = API[cls];
  const name = side === 'runtime' ? cls : remoteName(cls);
  const base = entry.extends ? ` extends ${side === 'runtime' ? entry.extends : remoteName(entry.extends)}` : '';
  const keyword = side === 'client' && (cls === 'BaseHandle' || cls === 'Handle') ? 'declare class' : 'export class';
  let body = '';
  for (const [member, spec] of Object.entries(entry.members)) body += render(cls, member, spec, docs.get(`${cls}.${member}`), side);
  if (side === 'runtime' && cls === 'BaseHandle') body += '  [Symbol.dispose](): void;\n';
  return `${keyword} ${name}${base} {\n${body}}\n`;
}

function shapeNames() {
  const text = readFileSync(new URL('types/shapes.d.ts', ROOT), 'utf8');
  return [...text.matchAll(/^export (?:type|interface|class) (\w+)/gm)].map((m) => m[1]);
}

function moduleFunctions(mod, side, docs) {
  return Object.keys(MODULES[mod]).map((fn) => {
    const d = docs.get(`module:${mod}.${fn}`);
    if (!d?.ts) throw new Error(`${SOURCE}: module function ${mod}.${fn} has no @ts`);
    return `${comment(d.doc, '')}export function ${fn}${fmtSig(side === 'client' && d.remote ? d.remote : d.ts)};\n`;
  }).join('');
}

const HEADER = (what) => `// GENERATED by scripts/gen-api-types.mjs from web/runtime/api.js (the API's one declaration) and types/shapes.d.ts:
// do not edit; change api.js and run \`node scripts/gen-api-types.mjs\`.
// ${what}
`;
const CLASSES = Object.keys(API);

export function generate(docs = readDocs()) {
  const shapes = shapeNames();
  const imports = `import type {\n  ${shapes.filter((s) => s !== 'BlockscopeError').join(', ').replace(/(.{1,110})(, |$)/g, '$1,\n  ').trim().replace(/,$/, '')}\n} from './shapes.js';\n`;
  const runtime = HEADER('Types of `blockscope/runtime` (web/runtime/blockscope.js): the WebAssembly runtime in the calling thread ' +
    '(pages,\n// Web Workers, Node, bundlers). Arrays it returns are copies the caller owns.') +
    `${imports}export * from './shapes.js';\n\n${moduleFunctions('runtime', 'runtime', docs)}\n` +
    CLASSES.map((c) => classBlock(c, 'runtime', docs)).join('\n');
  const client = HEADER('Types of `blockscope/client` (web/runtime/client.js): the runtime\'s API, async, with the wasm in a Web ' +
    'Worker\n// (or on the page\'s thread). What pages and widgets use. Each Remote* object lives in the worker until disposed.') +
    `${imports}export * from './shapes.js';\n\n${moduleFunctions('client', 'client', docs)}\n` +
    CLASSES.map((c) => classBlock(c, 'client', docs)).join('\n') + 'export type { RemoteObject, RemoteHandle };\n';
  return { 'types/runtime.d.ts': runtime, 'types/client.d.ts': client };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const files = generate();
  const check = process.argv.includes('--check');
  const stale = [];
  for (const [path, text] of Object.entries(files)) {
    const url = new URL(path, ROOT);
    let old = null;
    try {
      old = readFileSync(url, 'utf8');
    } catch { /* missing */ }
    if (old === text) continue;
    if (check) stale.push(path);
    else writeFileSync(url, text);
  }
  if (stale.length) {
    console.error(`${stale.join(' and ')} differ from web/runtime/api.js: run \`node scripts/gen-api-types.mjs\``);
    process.exit(1);
  }
}
