// The npm package in an app built by a bundler, as a lesson author's project does it: `npm pack` from the built tree,
// installed offline into a temporary project with a page that imports 'blockscope/widgets', shows <gelu-explorer> and
// runs a GPT forward pass through connect() (in the runtime's worker). Built with esbuild, Vite (build, and its dev
// server) and webpack 5 with no configuration file, served, and opened in Chromium: the widget shows the core's GELU(1),
// the GPT's logits equal the Node runtime's bit for bit, and no request fails. esbuild copies no files (it has no
// `new URL(…, import.meta.url)` support): there the page names a copy of web/dist/ with <meta name="blockscope-base">,
// as the guide says.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';

import { serve } from '../../scripts/serve.mjs';
import { assertClean, launchBrowser, openPage, startServer } from '../browser/support.mjs';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const BIN = (name) => join(REPO, 'node_modules', '.bin', name);

const TINY = { vocab_size: 50, context_length: 12, emb_dim: 16, n_heads: 4, n_layers: 2 };
/** The app: the widgets (the element is in the page), and a GPT forward pass in the runtime's worker. */
const APP = `import { connect } from 'blockscope/widgets';

connect({ flavour: 'simd' }).then(async (client) => {
  const gpt = await client.createGPT(${JSON.stringify(TINY)}, { seed: 123 });
  const { logits } = await gpt.forward([1, 2, 3]);
  document.body.dataset.mode = client.mode;
  document.body.dataset.logits = JSON.stringify(Array.from(logits));
}).catch((err) => { document.body.dataset.error = String(err?.message ?? err); });
`;
const page = (script, head = '') => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>bundled lesson</title>${head}</head>
<body>
  <gelu-explorer></gelu-explorer>
  ${script}
</body></html>
`;

const env = { tmp: null, project: null, expected: null, browser: null };

before(async () => {
  for (const tool of ['esbuild', 'vite', 'webpack']) assert.ok(existsSync(BIN(tool)), `${tool} is not installed: run npm ci`);
  assert.ok(existsSync(join(REPO, 'web/dist/blockscope-widgets.js')), 'the package is made from the built tree: run `npm run build` first');
  env.tmp = mkdtempSync(join(tmpdir(), 'blockscope-bundlers-'));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', env.tmp, '--loglevel=error'],
    { cwd: REPO, maxBuffer: 64 << 20 });
  const [pack] = JSON.parse(stdout);
  env.project = join(env.tmp, 'lesson');
  mkdirSync(join(env.project, 'src'), { recursive: true });
  writeFileSync(join(env.project, 'package.json'), JSON.stringify({ name: 'lesson', private: true, type: 'module' }));
  await run('npm', ['install', join(env.tmp, pack.filename), '--offline', '--no-audit', '--no-fund', '--ignore-scripts',
    '--loglevel=error'], { cwd: env.project, maxBuffer: 64 << 20 });
  writeFileSync(join(env.project, 'src', 'main.js'), APP);
  // The reference: the same GPT from the repository's runtime in Node, on the bit-exact simd flavour.
  const { loadBlockscope } = await import('../../web/runtime/blockscope.js');
  const bs = await loadBlockscope({ flavour: 'simd' });
  const gpt = bs.createGPT(TINY, { seed: 123 });
  env.expected = Array.from(gpt.forward([1, 2, 3]).logits);
  gpt.dispose();
  env.browser = await launchBrowser();
});

after(async () => {
  await env.browser?.close();
  if (env.tmp) rmSync(env.tmp, { recursive: true, force: true });
});

/**
 * Builds with `args` of node_modules/.bin/`tool` in the project; returns the seconds it took. The build must not warn
 * about Blockscope's files (a bundler that cannot follow an import or a URL says so there).
 */
async function build(tool, args) {
  const started = performance.now();
  let output;
  try {
    const { stdout, stderr } = await run(BIN(tool), args,
      { cwd: env.project, maxBuffer: 64 << 20, env: { ...process.env, NO_COLOR: '1' } });
    output = `${stdout}\n${stderr}`;
  } catch (err) {
    assert.fail(`${tool} ${args.join(' ')} failed:\n${err.stdout}\n${err.stderr}`);
  }
  const warnings = output.split('\n').filter((line) => /warn/i.test(line) && /blockscope/i.test(line));
  assert.deepEqual(warnings, [], `${tool} warned about Blockscope's files:\n${output}`);
  return (performance.now() - started) / 1000;
}

/** Opens `url` in Chromium and checks what the page shows and fetches; resolves with the URLs it requested. */
async function checkPage(url, what) {
  const { page, context, problems } = await openPage(env.browser);
  const failed = [];
  const requested = [];
  context.on('request', (r) => requested.push(r.url())); // the workers' requests too
  context.on('response', (r) => r.status() >= 400 && failed.push(`${r.status()} ${r.url()}`));
  context.on('requestfailed', (r) => failed.push(`${r.failure()?.errorText} ${r.url()}`));
  try {
    await page.goto(url);
    await page.locator('gelu-explorer .status').filter({ hasText: 'points from the core' }).waitFor({ timeout: 60000 });
    await page.locator('gelu-explorer td[data-kind="x"]').filter({ hasText: '1.00' }).waitFor();
    assert.equal(await page.locator('gelu-explorer td[data-kind="gelu_tanh"]').textContent(), '0.8412', `${what}: GELU(1)`);
    await page.waitForFunction(() => document.body.dataset.logits || document.body.dataset.error, null, { timeout: 60000 });
    const body = await page.evaluate(() => ({ ...document.body.dataset }));
    assert.equal(body.error, undefined, `${what}: the GPT call failed`);
    assert.equal(body.mode, 'worker', `${what}: the GPT ran ${body.mode}, not in the worker`);
    assert.deepEqual(JSON.parse(body.logits), env.expected, `${what}: the worker's logits differ from Node's`);
    assert.deepEqual(failed, [], `${what}: failed requests`);
    assertClean(problems);
    return requested;
  } finally {
    await context.close();
  }
}

/** Serves `dir` and checks its page `path`; resolves with the URLs it requested. */
async function checkBuilt(dir, what, path = '') {
  const { server, url } = await serve({ root: dir, port: 0 });
  try {
    return await checkPage(`${url}${path}`, what);
  } finally {
    server.close();
  }
}

test('esbuild: an app bundle with the shipped web/dist/ copied beside it and named by <meta name="blockscope-base">', async () => {
  const out = join(env.project, 'out-esbuild');
  const seconds = await build('esbuild', ['src/main.js', '--bundle', '--format=esm', '--minify', `--outdir=${out}`]);
  cpSync(join(env.project, 'node_modules/blockscope/web/dist'), join(out, 'blockscope'), { recursive: true });
  writeFileSync(join(out, 'index.html'), page('<script type="module" src="./main.js"></script>',
    '<meta name="blockscope-base" content="./blockscope/">'));
  console.log(`esbuild built the app in ${seconds.toFixed(1)} s`);
  await checkBuilt(out, 'esbuild');
});

test('Vite build: no configuration, the files the runtime loads are copied into the app', async () => {
  writeFileSync(join(env.project, 'index.html'), page('<script type="module" src="/src/main.js"></script>'));
  const out = join(env.project, 'out-vite');
  const seconds = await build('vite', ['build', '--outDir', out, '--logLevel', 'warn']);
  const assets = readdirSync(join(out, 'assets'));
  for (const file of ['blockscope-glue', 'blockscope-worker', 'blockscope-light-simd', 'blockscope-simd']) {
    assert.ok(assets.some((f) => f.startsWith(`${file}-`)), `Vite did not copy ${file}: ${assets.join(', ')}`);
  }
  console.log(`vite build took ${seconds.toFixed(1)} s`);
  await checkBuilt(out, 'Vite build');
  // The same app pointed at a hosted copy on another origin (CORS, as a CDN sends it): the worker, the glue and the
  // wasm come from there, not from the app's copies.
  const { server, url: hosted } = await startServer({ cors: true, root: join(env.project, 'node_modules/blockscope/web') });
  try {
    const html = readFileSync(join(out, 'index.html'), 'utf8')
      .replace('<title>', `<meta name="blockscope-base" content="${hosted}dist/"><title>`);
    writeFileSync(join(out, 'hosted.html'), html);
    const requested = await checkBuilt(out, 'Vite build with a hosted copy', 'hosted.html');
    for (const file of ['blockscope-worker.js', 'blockscope-glue.js', 'blockscope-light-simd.wasm', 'blockscope-simd.wasm']) {
      assert.ok(requested.includes(`${hosted}dist/${file}`), `${file} not loaded from the hosted copy: ${requested.join('\n')}`);
    }
    assert.deepEqual(requested.filter((r) => /\.wasm$/.test(r) && !r.startsWith(hosted)), [], 'wasm from the app\'s copies');
  } finally {
    server.close();
  }
});

test('Vite dev server: no configuration', async () => {
  writeFileSync(join(env.project, 'index.html'), page('<script type="module" src="/src/main.js"></script>'));
  const server = spawn(BIN('vite'), ['--port', '0', '--host', '127.0.0.1'],
    { cwd: env.project, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const url = await new Promise((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`vite did not start:\n${out}`)), 60000);
      const read = (chunk) => {
        out += chunk;
        const m = out.match(/Local:\s+(http:\/\/\S+)/);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      };
      server.stdout.on('data', read);
      server.stderr.on('data', read);
      server.on('exit', (code) => reject(new Error(`vite exited (${code}):\n${out}`)));
    });
    await checkPage(url, 'Vite dev server');
  } finally {
    server.kill();
  }
});

test('webpack 5: no configuration, the files the runtime loads are emitted as assets', async () => {
  const out = join(env.project, 'out-webpack');
  const seconds = await build('webpack', ['--mode', 'production', '--entry', './src/main.js', '--output-path', out]);
  writeFileSync(join(out, 'index.html'), page('<script src="./main.js"></script>'));
  console.log(`webpack built the app in ${seconds.toFixed(1)} s`);
  await checkBuilt(out, 'webpack');
});
