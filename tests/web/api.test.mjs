// The JavaScript API's one declaration (web/runtime/api.js) against everything derived from it or written to match
// it: the generated TypeScript declarations (committed, and valid TypeScript), the calling-thread runtime's classes
// and the page client's proxies — each must have exactly the declared members, so a method added in one place and
// not the others fails here.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import test from 'node:test';

import { API, membersOf } from '../../web/runtime/api.js';
import * as runtime from '../../web/runtime/blockscope.js';
import * as client from '../../web/runtime/client.js';
import { BaseHandle, Handle } from '../../web/runtime/handles.js';
import { generate, readDocs } from '../../scripts/gen-api-types.mjs';

const ROOT = new URL('../../', import.meta.url);

test('types/runtime.d.ts and types/client.d.ts are what scripts/gen-api-types.mjs writes from web/runtime/api.js', () => {
  for (const [path, text] of Object.entries(generate())) {
    assert.equal(readFileSync(new URL(path, ROOT), 'utf8'), text, `${path} is stale: run node scripts/gen-api-types.mjs`);
  }
});

test('every declared member has a doc comment with its TypeScript signature', () => {
  const docs = readDocs();
  for (const [cls, entry] of Object.entries(API)) {
    for (const member of Object.keys(entry.members)) {
      assert.ok(docs.get(`${cls}.${member}`)?.ts, `${cls}.${member} has no @ts in api.js`);
    }
  }
});

test('the declarations are valid TypeScript (tsc --strict)', () => {
  const tsc = new URL('node_modules/.bin/tsc', ROOT).pathname;
  // With the per-element modules' types (types/widgets/<tag>.d.ts, the package's "blockscope/widgets/<tag>").
  const modules = readdirSync(new URL('types/widgets/', ROOT)).map((f) => `widgets/${f.replace(/\.d\.ts$/, '')}`);
  assert.ok(modules.length >= 8, `per-element module types: ${modules}`);
  const files = ['shapes', 'runtime', 'client', 'widget-elements', 'widgets', ...modules].map((f) => new URL(`types/${f}.d.ts`, ROOT).pathname);
  execFileSync(tsc, ['--noEmit', '--strict', '--lib', 'esnext,dom', '--target', 'es2022', '--module', 'nodenext', ...files],
    { encoding: 'utf8' });
});

/** Public members of an object: its own fields and those of its prototype chain. */
function publicMembers(obj) {
  const names = new Set(Object.keys(obj));
  for (let p = Object.getPrototypeOf(obj); p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const n of Object.getOwnPropertyNames(p)) names.add(n);
  }
  return [...names].filter((n) => n !== 'constructor' && !n.startsWith('_') && n !== 'raw').sort();
}

const RUNTIME_SIDE = new Set(['call', 'create', 'stream', 'snapshot', 'runtime', 'dispose']);
const CLIENT_SIDE = new Set(['call', 'create', 'stream', 'snapshot', 'client', 'dispose']);
const declared = (cls, side) => Object.entries(membersOf(cls))
  .filter(([, spec]) => side.has(spec.kind)).map(([n]) => n).sort();

test('the calling-thread runtime\'s classes have exactly the declared members', () => {
  const classes = { ...runtime, BaseHandle, Handle };
  for (const cls of Object.keys(API)) {
    const C = classes[cls];
    assert.equal(typeof C, 'function', `blockscope.js does not export class ${cls}`);
    const instance = Object.create(C.prototype);
    if (cls === 'Blockscope') Object.assign(instance, { flavour: 'simd' }); // its one instance field
    assert.deepEqual(publicMembers(instance), declared(cls, RUNTIME_SIDE), `runtime class ${cls}`);
  }
});

test('the page client\'s proxies have exactly the declared members', () => {
  const names = { Blockscope: 'RuntimeClient', BaseHandle: 'RemoteObject', Handle: 'RemoteHandle' };
  for (const cls of Object.keys(API)) {
    const Remote = client._proxies[names[cls] ?? `Remote${cls}`];
    assert.equal(typeof Remote, 'function', `client.js has no proxy for ${cls}`);
    const info = { handle: 1, ...Object.fromEntries(declared(cls, new Set(['snapshot'])).map((n) => [n, null])) };
    const instance = new Remote({}, info);
    assert.deepEqual(publicMembers(instance), declared(cls, CLIENT_SIDE), `client proxy of ${cls}`);
  }
});
