// A small static file server for web/: the right MIME types (application/wasm for streaming compilation),
// no special headers needed (no COOP/COEP), loopback only. Used by `npm start`, the browser tests and
// bench/page.mjs. Like a real static host (a CDN) it compresses text, JSON and wasm with brotli or gzip,
// as the request's Accept-Encoding allows, so what a page transfers here is what users download; compressed
// files are kept in memory until the file changes. Model weights (.safetensors) go out as they are: F16
// weights barely compress, and hosts leave application/octet-stream alone.
// Caching as static hosts do it: every response carries a validator (an ETag from the file's size and mtime), so a
// copy the browser already has is revalidated with one 304 instead of sent again; the content-hashed chunks of the
// widget bundle (dist/chunk-<name>-<HASH>.js: a new build gives new names) are cached for a year, immutable; every
// other file must be revalidated before use (no-cache), so a rebuilt glue or wasm is never mixed with an old one.
//   node scripts/serve.mjs [--port N] [--root DIR]     (PORT env also accepted; 0 picks a free port)
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.safetensors': 'application/octet-stream',
  '.bpe': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

/** MIME types worth compressing (as CDNs choose them); everything else is sent as stored. */
const COMPRESSIBLE = /^(text\/|application\/(json|wasm|manifest\+json)|image\/svg\+xml)/;
/** The widget bundle's content-hashed chunks (scripts/build-widgets.mjs chunkNames), safe to cache for good. */
const HASHED = /^\/dist\/chunk-[\w-]+-[A-Z0-9]{8}\.js$/;
/** Below this size compression saves less than the headers cost. */
const MIN_COMPRESS_BYTES = 256;

const ENCODERS = {
  // Quality 9: ~50 ms for the wasm; 11 is 7-10% smaller but ~25x slower, too slow for every test server's
  // first request (CDNs compressing on the fly use lower qualities still).
  br: (buf) => promisify(brotliCompress)(buf, {
    params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 9, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: buf.length },
  }),
  gzip: (buf) => promisify(gzip)(buf, { level: 9 }),
};

/**
 * The encoding to send for an Accept-Encoding header: 'br' or 'gzip' (the client's highest q-value, br first on
 * ties), or null for the file as it is.
 */
export function negotiateEncoding(acceptEncoding) {
  const q = new Map();
  for (const part of String(acceptEncoding ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    q.set(name, qParam ? Number(qParam.slice(2)) || 0 : 1);
  }
  let best = null;
  for (const name of ['br', 'gzip']) {
    const value = q.get(name) ?? (q.has('*') ? q.get('*') : 0);
    if (value > 0 && (best === null || value > best.value)) best = { name, value };
  }
  return best?.name ?? null;
}

/** Compressed file contents, keyed by path and encoding, valid while the file's size and mtime are unchanged. */
class CompressionCache {
  #entries = new Map(); // `${encoding}:${path}` -> {mtimeMs, size, body: Promise<Buffer>}
  get(path, info, encoding) {
    const key = `${encoding}:${path}`;
    const hit = this.#entries.get(key);
    if (hit && hit.mtimeMs === info.mtimeMs && hit.size === info.size) return hit.body;
    const body = readFile(path).then((buf) => ENCODERS[encoding](buf));
    body.catch(() => this.#entries.delete(key)); // a failure is not cached
    this.#entries.set(key, { mtimeMs: info.mtimeMs, size: info.size, body });
    return body;
  }
}

/** The validator of a file's representation: its size and mtime, and the encoding it is sent in. */
function etag(info, encoding) {
  return `"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}${encoding ? `-${encoding}` : ''}"`;
}

/** True if an If-None-Match header names `tag` (or is *): the client's copy is current. */
function fresh(ifNoneMatch, tag) {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((t) => ['*', tag, `W/${tag}`].includes(t.trim()));
}

/** Starts the server; resolves to {server, url}. */
export function serve({ root, port = 8080, host = '127.0.0.1' } = {}) {
  const base = resolve(root);
  const compressed = new CompressionCache();
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://localhost');
      let path = normalize(join(base, decodeURIComponent(url.pathname)));
      if (path !== base && !path.startsWith(base + sep)) {
        res.writeHead(403).end('forbidden');
        return;
      }
      let info = await stat(path).catch(() => null);
      if (info?.isDirectory()) {
        path = join(path, 'index.html');
        info = await stat(path).catch(() => null);
      }
      if (!info?.isFile()) {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end(`not found: ${url.pathname}`);
        return;
      }
      const type = MIME[extname(path).toLowerCase()] ?? 'application/octet-stream';
      const compressible = COMPRESSIBLE.test(type) && info.size >= MIN_COMPRESS_BYTES;
      const encoding = compressible ? negotiateEncoding(req.headers['accept-encoding']) : null;
      const headers = {
        'Content-Type': type,
        'Cache-Control': HASHED.test(url.pathname) ? 'public, max-age=31536000, immutable' : 'no-cache',
        ETag: etag(info, encoding),
        'Last-Modified': new Date(info.mtimeMs).toUTCString(),
      };
      if (compressible) headers.Vary = 'Accept-Encoding';
      if (fresh(req.headers['if-none-match'], headers.ETag)) {
        res.writeHead(304, headers).end();
        return;
      }
      if (encoding) {
        const body = await compressed.get(path, info, encoding);
        res.writeHead(200, { ...headers, 'Content-Encoding': encoding, 'Content-Length': body.length });
        res.end(req.method === 'HEAD' ? undefined : body);
        return;
      }
      res.writeHead(200, { ...headers, 'Content-Length': info.size });
      if (req.method === 'HEAD') res.end();
      else createReadStream(path).pipe(res);
    } catch (err) {
      res.writeHead(500, { 'Content-Type': 'text/plain' }).end(String(err?.message ?? err));
    }
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      const { port: actual } = server.address();
      ok({ server, url: `http://${host}:${actual}/` });
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, fallback) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : fallback;
  };
  const root = opt('--root', fileURLToPath(new URL('../web/', import.meta.url)));
  let port = Number(opt('--port', process.env.PORT ?? 8080));
  for (let attempt = 0; ; attempt++) {
    try {
      const { url } = await serve({ root, port });
      console.log(`Blockscope is serving ${root}`);
      console.log(`Open the lesson page: ${url}`);
      break;
    } catch (err) {
      if (err.code !== 'EADDRINUSE' || attempt >= 20 || port === 0) throw err;
      port += 1;
    }
  }
}
