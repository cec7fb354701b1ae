// Downloads of a checkpoint from servers that misbehave the way real hosts do, through the wasm runtime's
// loadModel({url}): a body without Content-Length that never ends (or is gzipped) stops at the largest file the
// config allows, a config.json that never ends stops at the text limit, a server that drips stops after the stall
// timeout, an AbortSignal cancels, and a connection that closes early is reported as a broken download, not as a
// bad file. After each, the same runtime still loads the model and its heap is as before.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';
import { gzipSync } from 'node:zlib';

import { loadBlockscope } from '../../web/runtime/blockscope.js';
import { connect } from '../../web/runtime/client.js';
import { TEXT_LIMIT } from '../../web/runtime/downloads.js';

const dir = new URL('../golden/models/book_tiny/', import.meta.url);
const configText = readFileSync(new URL('config.json', dir), 'utf8');
const weights = readFileSync(new URL('model.safetensors', dir));

// Each route answers one way; `sent` counts the bytes a route wrote, so a test can tell the client stopped reading.
const sent = {};
const CHUNK = Buffer.alloc(64 << 10, 7);
function endless(res, name, headers = {}) {
  res.writeHead(200, headers); // no Content-Length: chunked, unbounded
  sent[name] = 0;
  const pump = () => {
    for (let more = true; more && !res.destroyed;) {
      if (sent[name] > 2 ** 31) return res.end(); // a safety net for the test itself, far above any limit checked
      more = res.write(CHUNK);
      sent[name] += CHUNK.length;
    }
    if (!res.destroyed) res.once('drain', pump);
  };
  pump();
}
const routes = {
  '/good/config.json': (res) => res.end(configText),
  '/good/model.safetensors': (res) => res.end(weights),
  '/endless-weights/config.json': (res) => res.end(configText),
  '/endless-weights/model.safetensors': (res) => endless(res, 'weights'),
  '/gzip-weights/config.json': (res) => res.end(configText),
  // A host that compresses: Content-Length is the compressed size, the body arrives inflated to 160 MiB (more than the config allows).
  '/gzip-weights/model.safetensors': (res) => {
    const body = gzipSync(Buffer.concat([weights, Buffer.alloc(160 << 20)]));
    res.writeHead(200, { 'Content-Encoding': 'gzip', 'Content-Length': body.length });
    res.end(body);
  },
  '/endless-config/config.json': (res) => endless(res, 'config'),
  '/drip/config.json': (res) => res.end(configText),
  '/drip/model.safetensors': (res) => {
    res.writeHead(200, { 'Content-Length': weights.length });
    res.write(weights.subarray(0, 100)); // then nothing more
  },
  '/slow-start/config.json': () => {}, // headers never come
  '/truncated/config.json': (res) => res.end(configText),
  '/truncated/model.safetensors': (res) => {
    res.writeHead(200, { 'Content-Length': weights.length });
    res.write(weights.subarray(0, weights.length >> 1), () => res.destroy());
  },
};

let server;
let base;
let bs;
before(async () => {
  server = createServer((req, res) => {
    const route = routes[req.url];
    if (route) route(res);
    else res.writeHead(404).end();
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${server.address().port}`;
  bs = await loadBlockscope();
  (await bs.loadModel({ url: `${base}/good/` })).dispose(); // what a first load keeps for good, before the baselines
});
after(() => {
  server.closeAllConnections();
  server.close();
});

/** The runtime loads the good model and its heap is what it was before the failures. */
async function stillWorks(heapBefore) {
  const gpt = await bs.loadModel({ url: `${base}/good/` });
  assert.equal(gpt.forward([1, 2, 3]).shape[2], 60);
  gpt.dispose();
  assert.equal(bs.memoryStats().allocatedBytes, heapBefore, 'the heap is as before');
}

test('loadModel({url}) reads a well-behaved server', async () => {
  const gpt = await bs.loadModel({ url: `${base}/good/` });
  assert.equal(gpt.numParameters > 0, true);
  gpt.dispose();
});

test('an endless body without Content-Length stops at the largest file the config allows', async () => {
  const heap = bs.memoryStats().allocatedBytes;
  let limit;
  await assert.rejects(bs.loadModel({ url: `${base}/endless-weights/` }), (err) => {
    const m = /model\.safetensors sent more than ([\d.]+) MiB, the most it can be: the download was stopped/.exec(err.message);
    assert.ok(m, err.message);
    limit = Number(m[1]) * 2 ** 20;
    return true;
  });
  await new Promise((r) => setTimeout(r, 300));
  // The client stopped reading at the limit: the server wrote little more than that (its socket buffers), not the
  // 2 GiB it offered.
  assert.ok(sent.weights >= limit - 2 ** 20 && sent.weights < limit + (16 << 20), `the server wrote ${sent.weights} bytes`);
  await stillWorks(heap);
});

test('a compressed body is counted as it inflates, whatever its Content-Length says', async () => {
  const heap = bs.memoryStats().allocatedBytes;
  await assert.rejects(bs.loadModel({ url: `${base}/gzip-weights/` }), /sent more than [\d.]+ MiB, the most it can be/);
  await stillWorks(heap);
});

test('an endless config.json stops at the text limit', async () => {
  const heap = bs.memoryStats().allocatedBytes;
  await assert.rejects(bs.loadModel({ url: `${base}/endless-config/` }),
    new RegExp(`config\\.json sent more than ${(TEXT_LIMIT / 2 ** 20).toFixed(1)} MiB, the most it can be`));
  await new Promise((r) => setTimeout(r, 200));
  assert.ok(sent.config >= TEXT_LIMIT && sent.config < TEXT_LIMIT + (16 << 20), `the server wrote ${sent.config} bytes`);
  await stillWorks(heap);
});

test('a server that stops sending is given up after the stall timeout, before or after its headers', async () => {
  const heap = bs.memoryStats().allocatedBytes;
  let t0 = performance.now();
  await assert.rejects(bs.loadModel({ url: `${base}/drip/` }, { stallTimeout: 500 }),
    /no data from .*drip\/model\.safetensors for 1 s: the download was stopped/);
  assert.ok(performance.now() - t0 < 5000);
  t0 = performance.now();
  await assert.rejects(bs.loadModel({ url: `${base}/slow-start/` }, { stallTimeout: 500 }),
    /no data from .*slow-start\/config\.json for 1 s: the download was stopped/);
  assert.ok(performance.now() - t0 < 5000);
  await stillWorks(heap);
});

test('an AbortSignal cancels a download under way, and one already aborted never starts it', async () => {
  const heap = bs.memoryStats().allocatedBytes;
  const controller = new AbortController();
  const loading = bs.loadModel({ url: `${base}/drip/` }, { signal: controller.signal });
  setTimeout(() => controller.abort(), 100);
  await assert.rejects(loading, /the download of .*drip\/model\.safetensors was cancelled/);
  await assert.rejects(bs.loadModel({ url: `${base}/good/` }, { signal: AbortSignal.abort() }),
    /the download of .*good\/config\.json was cancelled/);
  const why = new AbortController();
  why.abort(new Error('the learner left the page'));
  await assert.rejects(bs.loadModel({ url: `${base}/good/` }, { signal: why.signal }), /was cancelled: the learner left the page/);
  await stillWorks(heap);
});

test('a connection that closes early is a broken download (how much arrived), not a bad file', async () => {
  const heap = bs.memoryStats().allocatedBytes;
  await assert.rejects(bs.loadModel({ url: `${base}/truncated/` }), (err) => {
    assert.match(err.message, /the download of .*truncated\/model\.safetensors (broke off|ended) after \d+ of \d+ bytes/);
    assert.match(err.message, /try again/);
    assert.doesNotMatch(err.message, /safetensors header|data_offsets|shape/);
    return true;
  });
  await stillWorks(heap);
});

test('many failed downloads in a row leak nothing', async () => {
  const heap = bs.memoryStats().allocatedBytes;
  for (let i = 0; i < 30; i++) {
    await assert.rejects(bs.loadModel({ url: `${base}/truncated/` }));
    await assert.rejects(bs.loadModel({ url: `${base}/endless-weights/` }));
  }
  await stillWorks(heap);
});

test("the page client's AbortSignal cancels the download in the runtime host (it cannot cross: it becomes a 'cancel')", async () => {
  const client = await connect({ inThread: true, allowRemoteModels: true });
  const controller = new AbortController();
  const loading = client.loadModel({ url: `${base}/drip/` }, { signal: controller.signal });
  setTimeout(() => controller.abort(), 100);
  await assert.rejects(loading, /the download of .*drip\/model\.safetensors was cancelled/);
  await assert.rejects(client.loadModel({ url: `${base}/good/` }, { signal: AbortSignal.abort() }), /was cancelled before it started/);
  const gpt = await client.loadModel({ url: `${base}/good/` }, { signal: new AbortController().signal });
  assert.equal((await gpt.forward([1, 2, 3])).shape[2], 60);
  await gpt.dispose();
});
