// The Python package (python/) as a learner uses it: installed with pip from the npm package's files (not from the
// repository's tree), its unit tests, then a real notebook — the learner's tensors made with Debian's PyTorch, and a
// plain-list case — executed by nbclient in an ipykernel, exported to HTML by nbconvert and opened in Chromium with
// every request that is not the page itself, a blob: or a data: URL recorded (and http(s) ones aborted). The page
// must show the widgets with the learner's values (the LayerNorm explorer's mean and variance equal PyTorch's for
// the learner's tensor), the check boxes must give the verdict for the learner's output, with no console error and
// no network; served over http (the light widgets' numbers computed on the page, a worker started for an object, as
// in JupyterLab) and opened from the file (everything on the page's thread).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';

import { launchBrowser, screenshot } from '../browser/support.mjs';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const PYTHON = process.env.BLOCKSCOPE_PYTHON ?? '/usr/bin/python3'; // Debian's, with torch, nbclient, ipykernel
const env = { tmp: null, site: null, files: null, html: null, notebook: null, expected: null, browser: null };
const pyEnv = () => ({ ...process.env, PYTHONPATH: env.site, PYTHONDONTWRITEBYTECODE: '1', PIP_ROOT_USER_ACTION: 'ignore',
  PIP_DISABLE_PIP_VERSION_CHECK: '1', PYDEVD_DISABLE_FILE_VALIDATION: '1' });
const sha = (path) => createHash('sha256').update(readFileSync(path)).digest('hex');

// The notebook: the learner's own tensors (PyTorch) and lists, what PyTorch computes for them, and the widgets.
const CELLS = [
  `import json, math, torch, blockscope
torch.manual_seed(1)
x = torch.randn(3, 5) * 2 + 1             # the learner's activations: 3 tokens, 5 features
ln = torch.nn.LayerNorm(5)
with torch.no_grad():
    ln.weight.fill_(1.5)
    ln.bias.fill_(-0.5)
print('EXPECTED ' + json.dumps({'x': x.tolist(), 'mean': x.mean(-1).tolist(),
                                'variance': x.var(-1, unbiased=False).tolist()}))
print('FROM ' + blockscope.__file__)`,
  // The learner's tensors, nn.LayerNorm's parameters and its output for the check box (with grad_fn).
  `blockscope.show('layernorm-explorer', values=x, gamma=ln.weight, beta=ln.bias, lang='de', controls='none',
                check=ln(x))`,
  // Plain lists, no torch: the exact GELU by hand on the check box's own inputs.
  `def my_gelu(v):
    return [0.5 * t * (1 + math.erf(t / math.sqrt(2))) for t in v]
blockscope.show('gelu-explorer', check_form='erf', check=my_gelu(blockscope.check_inputs('gelu-explorer')))`,
  // A learner's LayerNorm with a classic mistake: the unbiased variance.
  `def my_layer_norm(t):
    return (t - t.mean(-1, keepdim=True)) / torch.sqrt(t.var(-1, keepdim=True) + 1e-5)
rows = [[1, 3, 5, 7], [10, 20, 30, 40]]
blockscope.show('layernorm-explorer', values=rows, check=my_layer_norm(torch.tensor(rows, dtype=torch.float32)))`,
  `try:
    blockscope.show('layernorm-explorer', tokens=x)
except blockscope.UnknownAttributeError as e:
    print('ERROR ' + str(e))`,
];

const DRIVER = `
import json, sys
import nbformat
from nbclient import NotebookClient
from nbconvert import HTMLExporter

cells, path, html_path = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
nb = nbformat.v4.new_notebook()
nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
nb.metadata['kernelspec'] = {'name': 'python3', 'display_name': 'Python 3', 'language': 'python'}
NotebookClient(nb, timeout=600, kernel_name='python3').execute()
nbformat.write(nb, path)
exporter = HTMLExporter(template_name='lab')
# The export template's own scripts (require.js, MathJax) come from Debian's libjs packages, which this machine need
# not have: empty data: URLs stand in for them, so the page's only scripts are the notebook's.
exporter.require_js_url = 'data:text/javascript,'
exporter.mathjax_url = 'data:text/javascript,'
body, _ = exporter.from_notebook_node(nb)
with open(html_path, 'w', encoding='utf-8') as f:
    f.write(body)
`;

before(async () => {
  assert.ok(statSync(join(REPO, 'web/dist/blockscope-widgets.js')).isFile(), 'build first: npm run build');
  env.tmp = mkdtempSync(join(tmpdir(), 'blockscope-python-'));
  // The npm package's files, as npm pack would ship them, copied as they would unpack.
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--loglevel=error'], { cwd: REPO, maxBuffer: 64 << 20 });
  env.files = JSON.parse(stdout)[0].files.map((f) => f.path);
  const unpacked = join(env.tmp, 'package');
  for (const f of env.files) {
    mkdirSync(dirname(join(unpacked, f)), { recursive: true });
    copyFileSync(join(REPO, f), join(unpacked, f));
  }
  env.site = join(env.tmp, 'site');
  // Offline and without a venv: the installed setuptools builds it (Debian's pip refuses system installs: --target).
  await run(PYTHON, ['-m', 'pip', 'install', '--quiet', '--no-build-isolation', '--no-index', '--no-deps', '--target', env.site,
    join(unpacked, 'python')], { env: pyEnv(), maxBuffer: 64 << 20 });
});

after(async () => {
  await env.browser?.close();
  if (env.tmp && !process.env.BLOCKSCOPE_KEEP_TMP) rmSync(env.tmp, { recursive: true, force: true });
});

test('python/blockscope/attributes.json is what the widgets say (node scripts/gen-python-attrs.mjs)', async () => {
  await run(process.execPath, ['scripts/gen-python-attrs.mjs', '--check'], { cwd: REPO });
});

test('the npm package ships the Python package, and pip installs it from those files with the built web files', () => {
  const python = env.files.filter((f) => f.startsWith('python/')).sort();
  for (const f of ['python/pyproject.toml', 'python/setup.py', 'python/README.md', 'python/blockscope/__init__.py',
    'python/blockscope/attributes.json', 'python/blockscope/loader.js', 'python/blockscope/_files.py']) {
    assert.ok(python.includes(f), `the npm package lacks ${f}`);
  }
  assert.deepEqual(python.filter((f) => /\/(tests|build|__pycache__)\/|\.egg-info\/|\/blockscope\/web\//.test(f)), []);
  // The installed package carries the build's very files.
  for (const f of ['dist/blockscope-widgets.js', 'dist/blockscope-worker.js', 'dist/blockscope-glue.js',
    'dist/blockscope-simd.wasm', 'dist/blockscope-simd-relaxed.wasm', 'dist/blockscope-baseline.wasm',
    'dist/blockscope-light-simd.wasm', 'dist/blockscope-light-baseline.wasm', 'presets/layernorm-book42.json',
    'models/sort/model.safetensors']) {
    assert.equal(sha(join(env.site, 'blockscope/web', f)), sha(join(REPO, 'web', f)), f);
  }
});

test('Python unit tests (python/tests, unittest) pass against the installed package', async () => {
  const { stdout, stderr } = await run(PYTHON, ['-c', 'import blockscope, sys; print(blockscope.__file__)'], { env: pyEnv() });
  assert.ok(stdout.startsWith(env.site), `imported ${stdout} ${stderr}`);
  const r = await run(PYTHON, ['-m', 'unittest', 'discover', '-s', join(REPO, 'python/tests'), '-v'], { env: pyEnv(), maxBuffer: 16 << 20 })
    .catch((err) => err);
  assert.ok(!(r instanceof Error), `unittest failed:\n${r.stderr ?? r}`);
  assert.match(r.stderr, /\nOK\s*$/);
});

test('a notebook runs in ipykernel (nbclient) and exports to HTML (nbconvert); the first widget carries the files', async () => {
  env.notebook = join(env.tmp, 'lesson.ipynb');
  env.html = join(env.tmp, 'lesson.html');
  await run(PYTHON, ['-c', DRIVER, JSON.stringify(CELLS), env.notebook, env.html], { env: pyEnv(), maxBuffer: 64 << 20, timeout: 600000 });
  const nb = JSON.parse(readFileSync(env.notebook, 'utf8'));
  const stdout = nb.cells.flatMap((c) => c.outputs).filter((o) => o.output_type === 'stream').map((o) => [].concat(o.text).join('')).join('');
  env.expected = JSON.parse(stdout.match(/^EXPECTED (.*)$/m)[1]);
  assert.ok(stdout.match(/^FROM (.*)$/m)[1].startsWith(env.site), 'the kernel imported another blockscope');
  assert.match(stdout, /^ERROR <layernorm-explorer> has no attribute tokens\. Did you mean .*values=/m);
  // Outputs: cells 2–4 show one widget each; only the first carries the runtime (≈ 1 MB), the others are small.
  const html = nb.cells.slice(1, 4).map((c) => [].concat(c.outputs.find((o) => o.data?.['text/html'])?.data['text/html']).join(''));
  const sizes = html.map((h) => Buffer.byteLength(h));
  console.log(`notebook outputs: ${sizes.map((n) => n.toLocaleString('en')).join(', ')} bytes; .ipynb ` +
    `${statSync(env.notebook).size.toLocaleString('en')} bytes; exported HTML ${statSync(env.html).size.toLocaleString('en')} bytes`);
  assert.ok(html[0].includes('"dist/blockscope-widgets.js"') && html[0].includes('"dist/blockscope-simd.wasm"'));
  assert.ok(sizes[0] > 500_000 && sizes[0] < 1_500_000, `carrier ${sizes[0]} bytes`);
  for (const [i, h] of html.slice(1).entries()) {
    assert.ok(!h.includes('blockscope-widgets.js') && sizes[i + 1] < 8000, `output ${i + 2} carries files (${sizes[i + 1]} bytes)`);
  }
  assert.match(html[0], /<layernorm-explorer values="[^"]+" gamma="1\.5" beta="-0\.5" lang="de" controls="none"><\/layernorm-explorer>/);
});

/**
 * Asks the page's runtime client (the inlined bundle's connect()) for an object, which lives in a worker (the light
 * widgets' calls are answered on the page and start none): {mode, vocab, workers (started through the notebook's files)}.
 */
function createObject(page) {
  return page.evaluate(async () => {
    const reg = window.__blockscopeNotebook;
    const { connect } = await import(reg.files['blockscope-notebook:/dist/blockscope-widgets.js']);
    const client = await connect();
    const tokenizer = await client.createTokenizer({ kind: 'bytes' });
    return { mode: client.mode, vocab: tokenizer.vocabSize, workers: reg.workers.length };
  });
}

/** Opens the exported page and returns what the widgets show; `problems` lists console errors and stray requests. */
async function openExport(url, allowed) {
  env.browser ??= await launchBrowser();
  const context = await env.browser.newContext({ viewport: { width: 1100, height: 900 } });
  const page = await context.newPage();
  const problems = { console: [], requests: [] };
  const infos = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.console.push(m.text());
    else infos.push(m.text());
  });
  page.on('pageerror', (e) => problems.console.push(String(e)));
  context.on('request', (r) => { // the page's and its workers' requests
    const u = r.url();
    if (!u.startsWith('blob:') && !u.startsWith('data:') && !allowed.includes(u)) problems.requests.push(u);
  });
  await context.route(/^https?:/, (route) => (allowed.includes(route.request().url()) ? route.continue() : route.abort()));
  await page.addInitScript(() => {
    window.__checks = [];
    document.addEventListener('blockscope-check', (e) => {
      const widgets = [...document.querySelectorAll('layernorm-explorer, gelu-explorer')];
      window.__checks.push({ index: widgets.indexOf(e.target), ...e.detail });
    });
  });
  await page.goto(url);
  await page.waitForFunction(() => window.__checks.length >= 3 && [...document.querySelectorAll('layernorm-explorer')]
    .reduce((n, el) => n + (el.shadowRoot?.querySelectorAll('td[data-stat="mean"]').length ?? 0), 0) === 5, null, { timeout: Number(process.env.BLOCKSCOPE_WAIT ?? 90000) });
  const shown = await page.evaluate(() => {
    const all = [...document.querySelectorAll('layernorm-explorer, gelu-explorer')];
    return {
      checks: window.__checks,
      notes: document.querySelectorAll('.blockscope-note').length,
      widgets: all.map((el) => {
        const s = el.shadowRoot;
        const texts = (sel) => [...s.querySelectorAll(sel)].map((n) => n.textContent);
        const result = s.querySelector('[part~="check-result"]');
        return {
          tag: el.localName, lang: el.getAttribute('lang'), controls: el.getAttribute('controls'),
          checkForm: el.getAttribute('check-form'),
          tokens: [...s.querySelectorAll('.tokens input')].map((i) => i.value),
          mean: texts('table.sequence td[data-stat="mean"]'), variance: texts('table.sequence td[data-stat="variance"]'),
          gamma: s.querySelector('output[for="gamma"]')?.textContent, beta: s.querySelector('output[for="beta"]')?.textContent,
          verdict: result?.textContent, verdictClass: result?.className, pasted: s.querySelector('[part~="check-input"]')?.value,
        };
      }),
    };
  });
  return { page, context, problems, infos, shown };
}

const num = (text) => Number(String(text).replace(/\u2212/g, '-').replace(',', '.'));

function assertShown({ shown, problems }) {
  const { expected } = env;
  const [ln, gelu, wrong] = shown.widgets;
  assert.deepEqual(shown.widgets.map((w) => w.tag), ['layernorm-explorer', 'gelu-explorer', 'layernorm-explorer']);
  assert.equal(shown.notes, 0, 'a widget\'s "loading" note is still there');
  // The learner's tensor, to the last float32 bit, and PyTorch's statistics of it.
  assert.deepEqual(ln.tokens.map((row) => row.split(',').map((v) => Math.fround(Number(v)))),
    expected.x.map((row) => row.map(Math.fround)));
  assert.equal(ln.mean.length, 3);
  ln.mean.forEach((m, t) => assert.ok(Math.abs(num(m) - expected.mean[t]) <= 6e-5, `mean ${t}: ${m} vs ${expected.mean[t]}`));
  ln.variance.forEach((v, t) => assert.ok(Math.abs(num(v) - expected.variance[t]) <= 6e-5, `variance ${t}: ${v} vs ${expected.variance[t]}`));
  assert.deepEqual([num(ln.gamma), num(ln.beta)], [1.5, -0.5]);
  assert.deepEqual([ln.lang, ln.controls], ['de', 'none']);
  // The plain-list case.
  assert.deepEqual(wrong.tokens, ['1, 3, 5, 7', '10, 20, 30, 40']);
  assert.deepEqual(wrong.mean.map(num), [4, 25]);
  assert.deepEqual(wrong.variance.map(num), [5, 125]);
  // The check boxes: the learner's outputs pasted and judged.
  const check = (i) => shown.checks.filter((c) => c.index === i);
  assert.equal(check(0).length, 1);
  assert.equal(check(0)[0].match, 'correct', `LayerNorm check: ${ln.verdict}`);
  assert.match(ln.verdictClass, /\bok\b/);
  assert.ok(ln.pasted.startsWith('[['), ln.pasted);
  assert.equal(gelu.checkForm, 'erf');
  assert.equal(check(1).length, 1);
  assert.equal(check(1)[0].match, 'correct', `GELU check: ${gelu.verdict}`);
  assert.match(gelu.verdictClass, /\bok\b/);
  assert.equal(check(2).length, 1);
  assert.ok(!['correct', 'unknown'].includes(check(2)[0].match), `the unbiased-variance LayerNorm: ${check(2)[0].match}`);
  assert.match(wrong.verdictClass, /\bbad\b/);
  assert.match(wrong.verdict, /unbiased|n − 1|n - 1/i, wrong.verdict);
  assert.deepEqual(problems.console, [], 'console errors');
  assert.deepEqual(problems.requests, [], 'requests that are not the page, blob: or data:');
}

test('the exported HTML served over http: the widgets show the learner\'s values and verdicts, objects in a worker, no network', async () => {
  const body = readFileSync(env.html);
  const server = createServer((req, res) => {
    if (req.url === '/lesson.html') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(body);
    } else {
      res.writeHead(req.url === '/favicon.ico' ? 204 : 404);
      res.end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  try {
    const opened = await openExport(`${origin}/lesson.html`, [`${origin}/lesson.html`, `${origin}/favicon.ico`]);
    assertShown(opened);
    assert.deepEqual(await createObject(opened.page), { mode: 'worker', vocab: 256, workers: 1 });
    assert.deepEqual(opened.infos.filter((t) => /page's thread/.test(t)), [], 'the core should run in a worker');
    assert.deepEqual(opened.problems.console, [], 'console errors');
    await screenshot(opened.page, 'python-notebook-export');
    await opened.context.close();
  } finally {
    server.close();
  }
});

test('outputs rendered as JupyterLab renders them, out of order and re-run: they wait for the files, share one runtime', async () => {
  // JupyterLab puts a trusted text/html output in with innerHTML and then replaces each <script> by a copy, which
  // runs. A windowed notebook can render a later output before the first; a re-run replaces an output with new HTML.
  const nb = JSON.parse(readFileSync(env.notebook, 'utf8'));
  const outputs = nb.cells.slice(1, 4).map((c) => [].concat(c.outputs.find((o) => o.data?.['text/html']).data['text/html']).join(''));
  const page = `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body>
<main id="notebook"></main>
<script>
  window.render = (html, before = null) => {
    const host = document.createElement('div');
    host.className = 'jp-OutputArea-output';
    host.innerHTML = html;
    document.getElementById('notebook').insertBefore(host, before);
    for (const old of host.querySelectorAll('script')) {
      const copy = document.createElement('script');
      for (const { name, value } of old.attributes) copy.setAttribute(name, value);
      copy.textContent = old.textContent;
      old.replaceWith(copy);
    }
    return host;
  };
</script></body></html>`;
  const server = createServer((req, res) => {
    if (req.url === '/lab.html') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(page);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/lab.html`;
  env.browser ??= await launchBrowser();
  const context = await env.browser.newContext();
  const p = await context.newPage();
  const problems = { console: [], requests: [] };
  p.on('console', (m) => m.type() === 'error' && problems.console.push(m.text()));
  p.on('pageerror', (e) => problems.console.push(String(e)));
  context.on('request', (r) => !/^(blob|data):/.test(r.url()) && r.url() !== url && problems.requests.push(r.url()));
  try {
    await p.goto(url);
    // The GELU output (no files of its own) first: it waits, and says what it waits for.
    await p.evaluate((html) => { window.gelu = window.render(html); }, outputs[1]);
    await p.waitForFunction(() => /Waiting for Blockscope's files/.test(window.gelu.querySelector('.blockscope-note')?.textContent),
      null, { timeout: 15000 });
    // Then the first output, which carries them, above it; and the third.
    await p.evaluate(([first, third]) => {
      window.first = window.render(first, window.gelu);
      window.render(third);
    }, [outputs[0], outputs[2]]);
    const verdicts = () => p.evaluate(() => [...document.querySelectorAll('layernorm-explorer, gelu-explorer')]
      .map((el) => el.shadowRoot?.querySelector('[part~="check-result"]')?.className ?? ''));
    await p.waitForFunction(() => [...document.querySelectorAll('layernorm-explorer, gelu-explorer')]
      .filter((el) => /\b(ok|bad)\b/.test(el.shadowRoot?.querySelector('[part~="check-result"]')?.className)).length === 3,
    null, { timeout: 60000 });
    assert.deepEqual((await verdicts()).map((c) => c.match(/\b(ok|bad)\b/)[1]), ['ok', 'ok', 'bad']);
    assert.deepEqual(await createObject(p), { mode: 'worker', vocab: 256, workers: 1 });
    // The first cell runs again: its output is replaced by a new one (carrying the files again); the page keeps its
    // one copy of the widgets and its one worker.
    await p.evaluate((first) => {
      const again = window.render(first, window.first);
      window.first.remove();
      window.first = again;
    }, outputs[0]);
    await p.waitForFunction(() => /\bok\b/.test(window.first.querySelector('layernorm-explorer')?.shadowRoot
      ?.querySelector('[part~="check-result"]')?.className), null, { timeout: 60000 });
    const state = await p.evaluate(() => ({
      widgets: document.querySelectorAll('layernorm-explorer, gelu-explorer').length,
      workers: window.__blockscopeNotebook.workers.length,
      notes: document.querySelectorAll('.blockscope-note').length,
    }));
    assert.deepEqual(state, { widgets: 3, workers: 1, notes: 0 });
    assert.deepEqual(problems.console, [], 'console errors');
    assert.deepEqual(problems.requests, [], 'requests that are not the page, blob: or data:');
  } finally {
    await context.close();
    server.close();
  }
});

test('the exported HTML opened from the file: the same, the core on the page\'s thread (file pages give workers no blobs)', async () => {
  const url = pathToFileURL(env.html).href;
  const opened = await openExport(url, [url]);
  assertShown(opened);
  assert.deepEqual(await createObject(opened.page), { mode: 'in-thread', vocab: 256, workers: 0 });
  assert.ok(opened.infos.some((t) => /page's thread/.test(t)), 'expected the in-thread fallback on a file:// page');
  await opened.context.close();
});
