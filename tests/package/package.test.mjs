// The npm package as a lesson author gets it: `npm pack` from the built tree, `npm install <tarball>` (offline:
// the package has no runtime dependencies) into a temporary project outside the repository, then its file list,
// `blockscope/runtime` and `blockscope/client` in Node (a forward pass equal to the repository's own runtime, bit
// for bit) and one widget served from the project's node_modules/blockscope/ in Chromium, showing the core's numbers.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';

import { serve } from '../../scripts/serve.mjs';
import { chunkGraph, elementChunk, ENTRY } from '../../scripts/widget-chunks.mjs';
import { WIDGET_TAGS } from '../../web/widgets/kit/elements.js';
import { assertClean, launchBrowser, openPage } from '../browser/support.mjs';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const MANIFEST = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));

/** What a lesson author needs: the runtime, every wasm flavour (light and full modules) and their shared glue, the bundles, the types. */
const REQUIRED = [
  'package.json', 'README.md',
  'web/runtime/blockscope.js', 'web/runtime/client.js', 'web/runtime/handles.js', 'web/runtime/models.js', 'web/runtime/training.js', 'web/runtime/in-thread.js',
  'web/runtime/worker.js', 'web/runtime/runtime-host.js', 'web/runtime/api.js', 'web/runtime/transport.js',
  'web/runtime/locations.js',
  'web/dist/blockscope-glue.js', 'web/dist/blockscope-simd.wasm', 'web/dist/blockscope-simd-relaxed.wasm',
  'web/dist/blockscope-baseline.wasm', 'web/dist/blockscope-light-simd.wasm', 'web/dist/blockscope-light-baseline.wasm',
  'web/dist/blockscope-widgets.js', 'web/dist/blockscope-worker.js',
  'web/dist/tokenizers/gpt2/encoder.json', 'web/dist/tokenizers/gpt2/vocab.bpe',
  'web/models/brown/config.json', 'web/models/brown/model.safetensors',
  'web/models/sort/config.json', 'web/models/sort/model.safetensors', 'web/models/sort/tokens.json',
  'web/data/brown/train.txt', 'web/data/brown/val.txt',
  'web/presets/encoder-block-lesson82.json', 'web/presets/ffn-d2-lesson-example.json',
  'web/presets/residual-flow-lesson82.json',
  'web/sw.js', 'web/docs/embedding.html', 'web/embed.html', 'web/blockscope-frame.js', 'types/frame.d.ts',
  'web/index.html', 'web/examples/gelu-explorer.html',
  'types/runtime.d.ts', 'types/client.d.ts', 'types/widgets.d.ts', 'types/shapes.d.ts',
  // The Python package, which pip builds from here with the web files above (tests/python installs it so).
  'python/pyproject.toml', 'python/setup.py', 'python/blockscope/__init__.py', 'python/blockscope/attributes.json',
];
/** Never shipped: build trees, tests, sources of the core, large source maps, dependencies. */
const FORBIDDEN = /^(build|tests|core|wasm|cli|bench|scripts|node_modules|artifacts|models|web\/widgets)\/|\.map$/;

const TINY = { vocab_size: 50, context_length: 12, emb_dim: 16, n_heads: 4, n_layers: 2 };
/** A Node program: LayerNorm of the lesson's [1, 3, 5, 7] and a tiny GPT's logits, from the given runtime. */
const forwardProgram = (specifier) => `
  const { loadBlockscope } = await import(${JSON.stringify(specifier)});
  const bs = await loadBlockscope();
  const ln = bs.layerNorm([1, 3, 5, 7]);
  const gpt = bs.createGPT(${JSON.stringify(TINY)}, { seed: 123 });
  const { logits, shape } = gpt.forward([1, 2, 3]);
  gpt.dispose();
  process.stdout.write(JSON.stringify({ resolved: import.meta.resolve(${JSON.stringify(specifier)}), flavour: bs.flavour,
    version: bs.buildInfo().version,
    mean: ln.mean[0], variance: ln.variance[0], normalized: [...ln.normalized], shape, logits: [...logits] }));
`;
const nodeEval = async (cwd, code) =>
  JSON.parse((await run(process.execPath, ['--input-type=module', '-e', code], { cwd, maxBuffer: 64 << 20 })).stdout);

const env = { tmp: null, tarball: null, pack: null, project: null, installed: null };

before(async () => {
  const missing = ['web/dist/blockscope-simd.wasm', 'web/dist/blockscope-widgets.js'].filter((f) => !existsSync(join(REPO, f)));
  assert.deepEqual(missing, [], 'the package is made from the built tree: run `npm run build` first');
  env.tmp = mkdtempSync(join(tmpdir(), 'blockscope-package-'));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', env.tmp, '--loglevel=error'],
    { cwd: REPO, maxBuffer: 64 << 20 });
  [env.pack] = JSON.parse(stdout);
  env.tarball = join(env.tmp, env.pack.filename);
  env.project = join(env.tmp, 'lesson');
  mkdirSync(env.project);
  writeFileSync(join(env.project, 'package.json'), JSON.stringify({ name: 'lesson', private: true, type: 'module' }));
  await run('npm', ['install', env.tarball, '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'],
    { cwd: env.project, maxBuffer: 64 << 20 });
  env.installed = join(env.project, 'node_modules', 'blockscope');
  const du = (dir) => readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile()).reduce((n, d) => n + statSync(join(d.parentPath ?? d.path, d.name)).size, 0);
  console.log(`packed ${env.pack.filename}: ${env.pack.size.toLocaleString('en')} bytes, ${env.pack.entryCount} files; ` +
    `installed node_modules/blockscope: ${du(env.installed).toLocaleString('en')} bytes ` +
    `(npm's unpackedSize ${env.pack.unpackedSize.toLocaleString('en')})`);
});

after(() => {
  if (env.tmp) rmSync(env.tmp, { recursive: true, force: true });
});

test('the tarball holds the runtime, both wasm flavours, the bundles, model, data, presets and types, and nothing else', () => {
  const files = env.pack.files.map((f) => f.path);
  assert.deepEqual(REQUIRED.filter((f) => !files.includes(f)), [], 'required files missing from the package');
  // The languages other than English are modules the bundle imports next to itself.
  for (const locale of ['de', 'es']) {
    assert.ok(files.some((f) => f === `web/dist/i18n/${locale}.js`), `no ${locale} message chunk packed`);
  }
  // The widgets bundle's chunks and per-element modules: every file the entry and the chunks import is packed, and
  // every element has its chunk and its module (chunkGraph and elementChunk throw otherwise).
  const graph = chunkGraph(join(env.installed, 'web/dist'));
  for (const tag of [...WIDGET_TAGS, 'blockscope-tour']) {
    assert.ok(files.includes(`web/dist/${elementChunk(graph, tag)}`), `<${tag}>'s chunk is not packed`);
    assert.ok(files.includes(`web/dist/widgets/${tag}.js`), `<${tag}>'s module is not packed`);
    assert.ok(files.includes(`types/widgets/${tag}.d.ts`), `<${tag}>'s module types are not packed`);
  }
  const chunks = files.filter((f) => /^web\/dist\/chunk-[\w-]+\.js$/.test(f)).map((f) => f.slice('web/dist/'.length));
  assert.deepEqual(chunks.sort(), [...graph.files.keys()].filter((f) => f !== ENTRY).sort(), 'packed chunks the bundle does not use');
  assert.deepEqual(files.filter((f) => FORBIDDEN.test(f)), [], 'files that must not be shipped');
  assert.equal(env.pack.version, MANIFEST.version);
  assert.equal(MANIFEST.private, undefined, 'a private package cannot be published');
  assert.deepEqual(Object.keys(MANIFEST.dependencies ?? {}), [], 'the package must have no runtime dependencies');
  for (const [subpath, target] of Object.entries(MANIFEST.exports)) {
    if (subpath.includes('*')) continue;
    for (const file of typeof target === 'string' ? [target] : Object.values(target)) {
      assert.ok(files.includes(file.replace(/^\.\//, '')), `exports["${subpath}"] points at ${file}, which is not packed`);
    }
  }
  // The installed tree is the tarball's: nothing lost or added by npm install.
  for (const f of files) assert.ok(existsSync(join(env.installed, f)), `installed package lacks ${f}`);
  assert.ok(!existsSync(join(env.installed, 'node_modules')), 'installing the package pulled in dependencies');
});

test('the package\'s README is the short one for its users, and every relative link in it and in the shipped pages resolves to a shipped file', () => {
  const files = env.pack.files.map((f) => f.path);
  const readme = readFileSync(join(env.installed, 'README.md'), 'utf8');
  assert.equal(readme, readFileSync(join(REPO, 'docs/package-README.md'), 'utf8'), 'the package ships another README');
  assert.notEqual(readFileSync(join(REPO, 'README.md'), 'utf8'), readme, 'npm pack left the package README in the repository');
  assert.ok(!existsSync(join(REPO, 'build', 'README.repository.md')), 'npm pack left the repository README aside');
  const broken = [];
  const documents = files.filter((f) => /\.html$/.test(f) || f === 'README.md');
  assert.ok(documents.includes('web/docs/embedding.html') && documents.length >= 10, `documents: ${documents}`);
  for (const doc of documents) {
    const text = readFileSync(join(env.installed, doc), 'utf8');
    // Real tags' href/src (the guide's code samples are escaped, &lt;script …), and Markdown links.
    const links = doc.endsWith('.html')
      ? [...text.matchAll(/<(?:a|link|script|img|iframe)\b[^>]*?\s(?:href|src)="([^"]+)"/g)].map((m) => m[1])
      : [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]);
    for (const link of links) {
      if (/^([a-z][\w+.-]*:|#|\/)/i.test(link)) continue; // another site, a fragment, a site-absolute path
      const target = new URL(link, `file:///pkg/${doc}`).pathname.slice('/pkg/'.length);
      const found = target.endsWith('/') ? files.some((f) => f.startsWith(target)) : files.includes(decodeURIComponent(target));
      if (!found) broken.push(`${doc}: ${link}`);
    }
  }
  assert.deepEqual(broken, [], 'links to files the package does not contain');
});

test('blockscope/runtime and blockscope/client in Node, installed: LayerNorm, GELU and a GPT forward pass equal to the repo', async () => {
  const fromPackage = await nodeEval(env.project, forwardProgram('blockscope/runtime'));
  assert.equal(fromPackage.resolved, new URL('web/runtime/blockscope.js', `file://${env.installed}/`).href);
  // package.json is the version's source; the wasm reports its own (wasm/runtime_bindings.cpp): they must agree.
  assert.equal(fromPackage.version, MANIFEST.version, 'the packaged wasm reports another version than package.json');
  assert.equal(fromPackage.mean, 4);
  assert.equal(fromPackage.variance, 5);
  assert.deepEqual(fromPackage.normalized.map((v) => v.toFixed(4)), ['-1.3416', '-0.4472', '0.4472', '1.3416']);
  assert.deepEqual(fromPackage.shape, [1, 3, TINY.vocab_size]);
  assert.ok(fromPackage.logits.every(Number.isFinite));
  const fromRepo = await nodeEval(REPO, forwardProgram(new URL('web/runtime/blockscope.js', `file://${REPO}`).href));
  assert.equal(fromPackage.flavour, fromRepo.flavour);
  assert.deepEqual(fromPackage.logits, fromRepo.logits, 'the packaged wasm computes other logits than the repo\'s');
  // blockscope/client: the same core behind the async client (in the calling thread: Node has no Worker).
  const client = await nodeEval(env.project, `
    const { connect } = await import('blockscope/client');
    const c = await connect({ inThread: true });
    process.stdout.write(JSON.stringify({ mode: c.mode, gelu: [...(await c.activation('gelu_tanh', [1, -1]))],
      geluCall: [...(await c.gelu([1, -1]))], geluErf: [...(await c.gelu([1], { approximate: 'none' }))] }));`);
  assert.equal(client.mode, 'in-thread');
  assert.deepEqual(client.gelu.map((v) => v.toFixed(4)), ['0.8412', '-0.1588']);
  // gelu() is the runtime's API on the client too (F.gelu's naming): tanh by default, exact erf with 'none'.
  assert.deepEqual(client.geluCall, client.gelu);
  assert.equal(client.geluErf[0].toFixed(4), '0.8413');
  // The subpaths a bundler or a page resolves.
  const resolved = await nodeEval(env.project, `process.stdout.write(JSON.stringify(
    ['blockscope/widgets', 'blockscope/widgets/gelu-explorer', 'blockscope/client', 'blockscope/dist/blockscope-simd.wasm']
      .map((s) => import.meta.resolve(s))))`);
  assert.deepEqual(resolved.map((u) => u.slice(`file://${env.installed}/`.length)),
    ['web/dist/blockscope-widgets.js', 'web/dist/widgets/gelu-explorer.js', 'web/runtime/client.js', 'web/dist/blockscope-simd.wasm']);
});

test('TSX checks the widgets\' attributes through the installed types (JSX.IntrinsicElements)', async () => {
  const dir = join(env.project, 'tsx');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: {
    strict: true, noEmit: true, jsx: 'preserve', module: 'esnext', moduleResolution: 'bundler', target: 'es2022',
    lib: ['esnext', 'dom'], types: [] }, include: ['*.tsx'] }));
  // One file, one tsc run: the valid elements first, then one mistake a line (only Blockscope's tags: without a
  // framework's types, JSX.IntrinsicElements holds nothing else).
  const lines = [
    `import 'blockscope/widgets';`,
    `export const good = [<gelu-explorer id="g" min="-3" max="3" theme="dark" sync-url="" class="wide" key={1}>text</gelu-explorer>,`,
    `  <training-lab comparison="warmup" data-lesson="4" aria-label="lab" />];`,
    `export const badTheme = <gelu-explorer theme="purple" />;`,
    `export const badName = <gelu-explorer colour="red" />;`,
    `export const badOption = <training-lab comparison="nonsense" />;`,
  ];
  writeFileSync(join(dir, 'page.tsx'), `${lines.join('\n')}\n`);
  const out = await run(join(REPO, 'node_modules/.bin/tsc'), ['-p', dir]).then(() => '', (err) => err.stdout);
  const errorLines = [...out.matchAll(/page\.tsx\((\d+),\d+\): error TS\d+/g)].map((m) => Number(m[1]));
  assert.deepEqual(errorLines, [4, 5, 6], `tsc:\n${out}`);
  assert.match(out, /"purple"' is not assignable/);
  assert.match(out, /Property 'colour' does not exist/);
  assert.match(out, /"nonsense"' is not assignable/);
  // React 19 keeps its elements in React.JSX: the guide's one-line extension ("Bundlers") adds the widgets there,
  // next to React's own <div> and <p>.
  const react = join(REPO, 'node_modules/@types/react/');
  writeFileSync(join(dir, 'tsconfig.react.json'), JSON.stringify({ compilerOptions: {
    strict: true, noEmit: true, jsx: 'react-jsx', module: 'esnext', moduleResolution: 'bundler', target: 'es2022',
    lib: ['esnext', 'dom'], types: [], paths: { react: [`${react}index.d.ts`], 'react/jsx-runtime': [`${react}jsx-runtime.d.ts`] } },
  files: ['react.tsx'] }));
  writeFileSync(join(dir, 'react.tsx'), [
    `import type { BlockscopeJSXElements } from 'blockscope/widgets';`,
    `declare module 'react' { namespace JSX { interface IntrinsicElements extends BlockscopeJSXElements {} } }`,
    `export const good = <div><gelu-explorer min="-3" className="wide" ref={null}><p slot="intro">GELU</p></gelu-explorer></div>;`,
    `export const bad = <gelu-explorer theme="purple" />;`, ''].join('\n'));
  const outReact = await run(join(REPO, 'node_modules/.bin/tsc'), ['-p', join(dir, 'tsconfig.react.json')])
    .then(() => '', (err) => err.stdout);
  assert.deepEqual([...outReact.matchAll(/react\.tsx\((\d+),\d+\): error TS\d+/g)].map((m) => Number(m[1])), [4], `tsc:\n${outReact}`);
});

test('a page using <gelu-explorer> from node_modules/blockscope shows the core\'s GELU(1) in Chromium', async () => {
  writeFileSync(join(env.project, 'index.html'), `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>package test</title></head>
<body>
  <script type="module" src="./node_modules/blockscope/web/dist/blockscope-widgets.js"></script>
  <gelu-explorer></gelu-explorer>
</body></html>`);
  const { server, url } = await serve({ root: env.project, port: 0 });
  const browser = await launchBrowser();
  try {
    const { page, context, problems } = await openPage(browser);
    const failed = [];
    const requested = [];
    context.on('request', (r) => requested.push(r.url())); // the worker's requests too
    context.on('response', (r) => r.status() >= 400 && failed.push(`${r.status()} ${r.url()}`));
    await page.goto(url);
    await page.locator('gelu-explorer .status').filter({ hasText: 'points from the core' }).waitFor({ timeout: 30000 });
    await page.locator('gelu-explorer td[data-kind="x"]').filter({ hasText: '1.00' }).waitFor();
    const shown = await page.locator('gelu-explorer td[data-kind="gelu_tanh"]').textContent();
    assert.equal(shown, '0.8412');
    const core = await page.evaluate(async () => {
      const { connect } = await import('./node_modules/blockscope/web/dist/blockscope-widgets.js');
      return (await (await connect()).activation('gelu_tanh', [1]))[0];
    });
    assert.equal(shown, core.toFixed(4));
    const wasm = requested.filter((n) => n.endsWith('.wasm'));
    assert.ok(wasm.length > 0 && wasm.every((n) => n.includes('/node_modules/blockscope/web/dist/')), `wasm from ${wasm}`);
    const chunks = requested.filter((n) => /\/chunk-[\w-]+\.js$/.test(n));
    assert.ok(chunks.some((n) => n.includes('/node_modules/blockscope/web/dist/chunk-gelu-explorer-')), `chunks: ${chunks}`);
    assert.ok(!chunks.some((n) => /chunk-(layernorm|ffn|block|gpt)-explorer-|chunk-training-lab-/.test(n)), `other widgets: ${chunks}`);
    assert.deepEqual(failed, [], 'failed requests');
    assertClean(problems);
    await context.close();
  } finally {
    await browser.close();
    server.close();
  }
});
