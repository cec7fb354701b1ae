// scripts/bundler-hints.mjs: the comments app bundlers read go onto every import() of a computed URL in minified code
// (never onto an import of a file, which a bundler must follow), and the source map still points each name at its
// source after the insertions.
import assert from 'node:assert/strict';
import test from 'node:test';
import * as esbuild from 'esbuild';

import { addHints, HINT, shiftMappings } from '../../scripts/bundler-hints.mjs';

const SOURCE = `export const glue = (url) => import(url.href);
export const chunk = () => import('./chunk.js');
export const node = (name) => import(\`node:\${name}\`);
export const after = (x) => x + 1;
const text = 'reimport(x)';
export { text };
`;

/** The source [line, column] each generated [line, column] segment of `map` maps to. */
function decoded(map) {
  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const out = [];
  const state = [0, 0, 0, 0];
  map.mappings.split(';').forEach((line, genLine) => {
    state[0] = 0;
    for (const segment of line.split(',').filter(Boolean)) {
      const values = [];
      let value = 0;
      let shift = 0;
      for (const ch of segment) {
        const d = B64.indexOf(ch);
        value += (d & 31) << shift;
        if (d & 32) shift += 5;
        else {
          values.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = shift = 0;
        }
      }
      values.forEach((v, i) => { state[i] += v; });
      if (values.length >= 4) out.push({ gen: [genLine, state[0]], src: [state[2], state[3]] });
    }
  });
  return out;
}

test('computed import()s get the hints, imports of files and look-alikes in strings do not', async () => {
  const { outputFiles } = await esbuild.build({ stdin: { contents: SOURCE }, write: false, minify: true, format: 'esm',
    outfile: 'out.js', sourcemap: 'external' });
  const code = outputFiles.find((f) => f.path.endsWith('.js')).text;
  const { code: hinted, insertions } = addHints(code);
  assert.equal(insertions.length, 2, hinted);
  assert.equal(hinted.split(HINT).length - 1, 2);
  assert.match(hinted, /import\(\/\* webpackIgnore: true \*\/ \/\* @vite-ignore \*\/ \w+\.href\)/);
  assert.match(hinted, /import\(\/\* webpackIgnore: true \*\/ \/\* @vite-ignore \*\/ `node:/);
  assert.match(hinted, /import\("\.\/chunk\.js"\)/);
  assert.match(hinted, /"reimport\(x\)"/);
  assert.equal(addHints(hinted).insertions.length, 0, 'hinted twice');
});

test('after the insertions the source map maps each generated position to the same source position', async () => {
  const { outputFiles } = await esbuild.build({ stdin: { contents: SOURCE, sourcefile: 'src.js' }, write: false,
    minify: true, format: 'esm', outfile: 'out.js', sourcemap: 'external' });
  const code = outputFiles.find((f) => f.path.endsWith('.js')).text;
  const map = JSON.parse(outputFiles.find((f) => f.path.endsWith('.map')).text);
  const { code: hinted, insertions } = addHints(code);
  const before = decoded(map);
  const shifted = decoded({ mappings: shiftMappings(map.mappings, 0, insertions.filter((i) => i.line === 0)) });
  assert.equal(shifted.length, before.length);
  const lines = [code.split('\n'), hinted.split('\n')];
  for (let i = 0; i < before.length; i++) {
    assert.deepEqual(shifted[i].src, before[i].src);
    // The generated text at the mapped column is the same token before and after.
    const [l, c] = before[i].gen;
    const [l2, c2] = shifted[i].gen;
    assert.equal(lines[1][l2].slice(c2, c2 + 6), lines[0][l].slice(c, c + 6), `segment ${i}`);
  }
  // A segment after the last insertion moved right by both hints.
  assert.equal(shifted.at(-1).gen[1] - before.at(-1).gen[1], insertions.length * HINT.length);
});
